/**
 * `azurite.autoStart`: start services when a workspace opens, silently — no notification on
 * success, only failures are shown — and skip a service whose port already answers as that
 * service of an Azurite, over HTTP or HTTPS (another window or the Azurite CLI is serving it). Nothing starts while `azurite.attach` is set: the
 * window works with that Azurite, and a local start would be refused.
 */
import { readExtensionSettings } from './config';
import { failure } from './core/outcome';
import { parseAutoStart, serviceName } from './core/services';
import type { Emulator } from './emulator/emulator';
import { showOutcome, type NotifyDeps } from './ui/notify';

/**
 * Starts the configured services. Resolves when done; never rejects.
 * @param deps also `attached()`, the Azurite of `azurite.attach` (its label) while it is set
 * @param info writes a line to the output channel
 */
export async function autoStart(emulator: Emulator, deps: NotifyDeps & { readonly attached: () => { readonly label: string } | undefined }, info: (line: string) => void): Promise<void> {
  const kinds = parseAutoStart(readExtensionSettings().autoStart);
  if (!Array.isArray(kinds)) {
    showOutcome(failure('setting', kinds.error, { setting: 'azurite.autoStart' }), deps);
    return;
  }
  if (kinds.length === 0) return;
  const attachedNow = (): boolean => {
    const attached = deps.attached();
    if (attached !== undefined) info(`autoStart: nothing started, the window is attached to the Azurite at ${attached.label} (azurite.attach)`);
    return attached !== undefined;
  };
  if (attachedNow()) return;
  if (!(await deps.prepareStart())) return;
  // Set while the data-folder question (or the reading of the password and accounts) was open.
  if (attachedNow()) return;
  await Promise.all(kinds.map(async (kind) => {
    const elsewhere = await emulator.servedElsewhere(kind);
    if (elsewhere !== undefined) {
      info(`autoStart: ${serviceName(kind)} skipped, ${elsewhere}`);
      return;
    }
    const outcome = await emulator.start(kind);
    if (outcome.ok) info(`autoStart: ${serviceName(kind)} started`);
    else showOutcome(outcome, deps);
  }));
}

