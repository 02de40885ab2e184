/**
 * How the data layer runs many requests: a bounded pool, and progress counts. No vscode.
 */
import type { DataOptions } from './snapshot';

/** Runs `work` over `items` with at most `options.concurrency` (16) at once; stops at the first failure or an abort. */
export async function pool<T>(items: readonly T[], options: Pick<DataOptions, 'signal' | 'concurrency'>, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown;
  const worker = async (): Promise<void> => {
    while (failed === undefined && next < items.length) {
      options.signal?.throwIfAborted();
      const item = items[next++]!;
      try {
        await work(item);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 16, items.length) }, worker));
  if (failed !== undefined) throw failed;
}

/** Counts steps and reports them through `options.progress`. */
export function tracker(options: DataOptions, total: number): { step(message: string, n?: number): void; addTotal(n: number): void } {
  let done = 0;
  let all = total;
  return {
    step(message, n = 1) {
      done += n;
      options.progress?.({ done, total: all, message });
    },
    addTotal(n) {
      all += n;
    },
  };
}
