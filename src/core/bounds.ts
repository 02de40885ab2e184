/**
 * How long each lifecycle step may take before it counts as hung, in one place. A step past its
 * bound fails with a message naming what hung and the setting to look at; the service goes back to
 * stopped. The bounds are generous on purpose: they exist so that a start or stop always ends (a
 * spinner that never stops is the bug they fix), not to hurry a slow machine. Pure: no vscode, no
 * azurite, no fs.
 */

/** Bounds of the lifecycle steps, in ms. */
export interface LifecycleBounds {
  /**
   * Reading and opening the HTTPS certificate (`azurite.cert`, `azurite.key`): two small local file
   * reads and one OpenSSL parse take milliseconds; 5 s only passes when a file sits on a network
   * share that does not answer.
   */
  readonly certificateMs: number;
  /**
   * Checking the data folder (`azurite.location`): a stat per ancestor and one mkdir per missing
   * level, each milliseconds locally; 5 s only passes on a hung network mount or a special file
   * system.
   */
  readonly folderMs: number;
  /**
   * Loading the engine in its process (azurite's modules, ~1 s cold without a code cache on a fast
   * machine, a few seconds on a slow disk or under an antivirus scan): 30 s.
   */
  readonly engineLoadMs: number;
  /**
   * The engine's start of one service in memory mode, which is a listen and nothing else
   * (milliseconds; a host name whose lookup never answers is what hangs here): 10 s.
   */
  readonly listenMs: number;
  /**
   * The engine's start of one service in disk mode: the listen plus loading the service's metadata
   * (LokiJS reads its whole JSON file; a large one takes seconds): 60 s.
   */
  readonly listenWithDataMs: number;
  /**
   * Stopping one service: closing its server and, in disk mode, saving all of its metadata (a large
   * database writes for seconds on a slow disk): 120 s. Shorter would cut a save short and lose data.
   */
  readonly stopMs: number;
  /** Deleting one service's data (its files, or its in-memory extents): 60 s. */
  readonly cleanMs: number;
  /**
   * Reclaiming memory waits for a moment with no request in flight on the service (an upload in
   * flight has written content that nothing refers to yet). Between a client's requests there is
   * one within milliseconds; 10 s only passes while a client holds a request open or the traffic
   * never pauses, and then nothing is reclaimed.
   */
  readonly reclaimIdleMs: number;
  /**
   * A reclaim the emulator runs by itself after a write was refused at the memory limit spares
   * content written in the last minute: a request whose client has gone (its response closed) may
   * still be about to refer to it. Azurite's own queue GC frees deleted content after about as long.
   */
  readonly autoReclaimSpareMs: number;
}

/** The bounds in force (tests shorten them through ServiceManager's constructor). */
export const LIFECYCLE_BOUNDS: LifecycleBounds = {
  certificateMs: 5_000,
  folderMs: 5_000,
  engineLoadMs: 30_000,
  listenMs: 10_000,
  listenWithDataMs: 60_000,
  stopMs: 120_000,
  cleanMs: 60_000,
  reclaimIdleMs: 10_000,
  autoReclaimSpareMs: 60_000,
};

/** A step that ran past its bound. `boundMs` is the bound it ran past. */
export class StepTimeout extends Error {
  constructor(readonly boundMs: number) {
    super(`did not finish within ${formatBound(boundMs)}`);
  }
}

/** "5 s", "120 s", "250 ms". */
export function formatBound(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * `step` or a {@link StepTimeout} after `boundMs`, whichever comes first. The step itself goes on
 * (a promise cannot be cancelled): `late` is called with its value if it resolves after the bound,
 * so the caller can undo it (stop a server that listened too late). The timer is cleared as soon as the
 * step settles.
 * @throws StepTimeout past the bound, or the step's own error
 */
export function withBound<T>(step: Promise<T>, boundMs: number, late?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reject(new StepTimeout(boundMs));
    }, boundMs);
    step.then(
      (value) => {
        clearTimeout(timer);
        if (timedOut) late?.(value);
        else resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        if (!timedOut) reject(err);
      },
    );
  });
}
