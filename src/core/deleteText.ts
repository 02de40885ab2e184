/**
 * How the Storage view names the items a Delete works on, in its confirmation and its failures
 * (src/ui/storageView.ts). Pure; no vscode.
 */
import type { ItemRef } from '../data/browse';
import { visibleName } from './storageTooltip';

/** An item as a confirmation and a failure name it: `blob "a.txt"`, `entity "p" / "r"`, `message <id>`. */
export function describeRef(ref: ItemRef): string {
  // Control characters as their visible symbols, as the tree shows them: a name holding a line
  // break would otherwise read as two items in a confirmation.
  const v = visibleName;
  switch (ref.kind) {
    case 'container': return `container "${v(ref.name)}"`;
    case 'blob': return `blob "${v(ref.name)}"`;
    case 'queue': return `queue "${v(ref.name)}"`;
    case 'message': return `message ${ref.messageId}`;
    case 'table': return `table "${v(ref.name)}"`;
    case 'entity': return `entity "${v(ref.partitionKey)}" / "${v(ref.rowKey)}"`;
  }
}

/** Most items a confirmation of several lists; the rest are counted. */
export const CONFIRM_LISTED = 10;

/**
 * The lines of the confirmation of a Delete of several items: each item (with its account when
 * they span several) and, for a container, queue or table, what goes with it; past
 * {@link CONFIRM_LISTED}, how many more.
 */
export function listForConfirmation(refs: readonly { readonly node: { readonly account: string }; readonly ref: ItemRef }[]): string {
  const accounts = new Set(refs.map((r) => r.node.account));
  const lines = refs.slice(0, CONFIRM_LISTED).map(({ node, ref }) => {
    const what = `${accounts.size > 1 ? `${node.account}: ` : ''}${describeRef(ref)}`;
    const within = ref.kind === 'container' ? ' and every blob in it' : ref.kind === 'queue' ? ' and every message in it' : ref.kind === 'table' ? ' and every entity in it' : '';
    return `${what}${within}`;
  });
  if (refs.length > CONFIRM_LISTED) lines.push(`… and ${refs.length - CONFIRM_LISTED} more`);
  return lines.join('\n');
}
