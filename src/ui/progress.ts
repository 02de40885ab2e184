/**
 * Progress for the data commands (snapshots, reset, the Storage view's save, upload and delete): a
 * notification with counts that appears only once the work has taken a second, so quick operations
 * flash nothing, and a Cancel button that aborts the work.
 */
import { setMaxListeners } from 'node:events';
import * as vscode from 'vscode';
import { plainNotificationText } from '../core/notificationText';
import { progressIncrement } from '../core/progress';
import type { DataOptions, DataProgress } from '../data/index';
import { RECORDED_MAX } from './notify';

/** How long work runs before its progress notification appears, in ms. */
export const PROGRESS_DELAY_MS = 1000;

/** The titles of the progress notifications shown so far (newest last, at most {@link RECORDED_MAX}): what tests read back. */
const shownTitles: string[] = [];

/** The titles ("Azurite: …") of the progress notifications {@link withDelayedProgress} has shown (copies). */
export function recordedProgress(): string[] {
  return [...shownTitles];
}

/**
 * Runs `run` under a progress notification with counts ("1,200 / 11,000 items — …", or the message
 * alone when done and total are 0), shown after
 * {@link PROGRESS_DELAY_MS}; cancellable when `cancellable` (the signal passed to `run` aborts).
 * @param title shown after "Azurite: "
 * @param outer aborts the signal passed to `run` too (an `azurite` task ended by the user), whether
 *   or not the notification is cancellable
 * @returns what `run` resolves to, once the notification (if shown) has closed
 * @throws whatever `run` rejects with (an AbortError after Cancel)
 */
export async function withDelayedProgress<T>(title: string, cancellable: boolean, run: (options: DataOptions) => Promise<T>, outer?: AbortSignal): Promise<T> {
  const abort = new AbortController();
  // Each request in flight listens to the signal (the data layer runs up to 16 at once, and the
  // SDKs' retry policies listen too): more than Node's default 10 is no leak, so no warning for it.
  setMaxListeners(64, abort.signal);
  const onOuter = (): void => abort.abort();
  if (outer?.aborted === true) abort.abort();
  else outer?.addEventListener('abort', onOuter, { once: true });
  let latest: DataProgress | undefined;
  let report: ((p: DataProgress) => void) | undefined;
  let finished = false;
  const work = run({ signal: abort.signal, progress: (p) => { latest = p; report?.(p); } }).finally(() => { finished = true; });
  const shown = new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      if (finished) return resolve();
      // Titles and messages name blobs and containers: never as links (core/notificationText.ts).
      const shownTitle = plainNotificationText(`Azurite: ${title}`);
      shownTitles.push(shownTitle);
      if (shownTitles.length > RECORDED_MAX) shownTitles.shift();
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: shownTitle, cancellable }, async (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        let reported = 0;
        let lastAt = 0;
        /** A report held back by the 100 ms spacing: the newest is sent when the spacing ends, so that a long step after it does not leave an older message showing. */
        let trailing: NodeJS.Timeout | undefined;
        report = (p) => {
          const now = Date.now();
          // At most one report per 100 ms; always the last step of a count, and a new phase.
          if (now - lastAt < 100 && !(p.total > 0 && p.done >= p.total) && p.phase !== true) {
            trailing ??= setTimeout(() => {
              trailing = undefined;
              if (!finished && latest !== undefined) report?.(latest);
            }, 100 - (now - lastAt));
            return;
          }
          clearTimeout(trailing);
          trailing = undefined;
          lastAt = now;
          const increment = progressIncrement(reported, p.done, p.total, p.totalGrows);
          reported += increment ?? 0;
          // No counts (done and total 0): a step whose message says it all, such as an import's backup.
          const counts = p.done === 0 && p.total === 0 ? '' : `${p.done.toLocaleString('en-US')}${p.total > 0 ? ` / ${p.total.toLocaleString('en-US')}` : ''} items — `;
          progress.report({ message: plainNotificationText(`${counts}${p.message}`), ...(increment !== undefined ? { increment } : {}) });
        };
        if (latest !== undefined) report(latest);
        await work.catch(() => undefined);
        clearTimeout(trailing);
      });
      resolve();
    }, PROGRESS_DELAY_MS);
    void work.catch(() => undefined).finally(() => { clearTimeout(timer); resolve(); });
  });
  try {
    return await work;
  } finally {
    outer?.removeEventListener('abort', onOuter);
    await shown;
  }
}
