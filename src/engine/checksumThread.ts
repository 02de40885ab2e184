/**
 * The checksums of large request bodies (MD5, CRC-64/NVME), computed on a thread of the engine's
 * process other than the one that serves requests.
 *
 * Azure Storage answers every Put Blob with the content's MD5 and every Put Block without
 * Content-MD5 with its CRC-64 (azurite 3.37 blob/handlers/BlockBlobHandler.js computes them through
 * common/utils/utils.js `computeTransactionalChecksums`, which the engine seam hands to
 * ./azuriteChecksums.ts). On the serving thread a 4 MiB block's CRC-64 takes milliseconds, during
 * which no other request is served. Here the serving thread
 * only copies the body's bytes into batches and hands them over; the hashing runs meanwhile on the
 * checksum thread, while the serving thread goes on with other requests.
 *
 * Two sides, one file:
 * - {@link ChecksumThread}, in the engine (dist/engine.js), makes the thread on first use and sends
 *   it jobs.
 * - {@link serveChecksums}, the thread's entry (dist/checksumWorker.js, out/checksum-worker.js),
 *   answers them.
 * Messages: `{ id, md5, crc64, bytes }` opens job `id` with a first batch, `{ id, bytes }` adds a
 * batch, `{ id, end: true }` asks for the digests, `{ id, drop: true }` forgets the job (the request
 * failed); the thread answers each `end` with `{ id, md5?, crc64? }` (Uint8Array digests), and
 * each batch, once hashed, with `{ hashed: n }` (its bytes: what bounds the backlog). Batches are
 * transferred, not copied.
 *
 * Pure Node: no azurite, no vscode.
 */
import { createHash, type Hash } from 'node:crypto';
import { parentPort, Worker } from 'node:worker_threads';
import { Crc64Nvme } from './crc64';

/** What a finished job answers: each digest asked for (MD5 16 bytes, CRC-64 8 bytes little-endian). */
export interface ChecksumDigests {
  md5: Uint8Array | undefined;
  crc64: Uint8Array | undefined;
}

type ToThread =
  | { readonly id: number; readonly md5: boolean; readonly crc64: boolean; readonly bytes: Uint8Array }
  | { readonly id: number; readonly bytes: Uint8Array }
  | { readonly id: number; readonly end: true }
  | { readonly id: number; readonly drop: true };
type FromThread =
  | { readonly id: number; readonly md5?: Uint8Array; readonly crc64?: Uint8Array }
  | { readonly hashed: number };

/**
 * Bytes a batch collects before it is handed to the thread (256 KiB): large enough that a
 * message's own cost is small beside the hashing it saves, small enough that a large body is hashed
 * while it still arrives.
 */
export const CHECKSUM_BATCH_BYTES = 256 * 1024;

/**
 * Most bytes handed to the thread and not yet hashed, across jobs (8 MiB), before callers should
 * pause their source ({@link ChecksumThread.overBacklog}): in memory mode azurite's extent stream
 * gives a whole body at once, and without a bound a 200 MiB Put Blob sat copied in the thread's
 * queue, outside the memory limit and the heap cap.
 */
export const CHECKSUM_BACKLOG_BYTES = 8 * 1024 * 1024;

/** One job on the thread, as the serving side sees it. */
export interface ChecksumJob {
  /** Adds the body's next bytes (copied now; the caller may reuse `chunk`). */
  update(chunk: Uint8Array): void;
  /** Every byte is in: resolves with the digests. @throws Error when the thread ended meanwhile */
  digest(): Promise<ChecksumDigests>;
  /** The body will not complete: forget the job. */
  drop(): void;
}

/** The serving side: a thread made on first use, jobs sent to it. See the file comment. */
export class ChecksumThread {
  private worker: Worker | undefined;
  /**
   * Set when a thread failed before it ever answered (its entry file missing or broken): every new
   * thread would fail the same way, and each failure fails the uploads hashed on it (HTTP 500).
   * From then on, {@link begin} gives no job and bodies are hashed on the serving thread.
   */
  private unusable = false;
  private nextId = 1;
  /** Bytes handed to the thread and not yet hashed; callers waiting for it to fall to half the bound. */
  private backlog = 0;
  private drainWaiters: (() => void)[] = [];

  /** Bytes handed to the thread and not yet hashed. */
  get backlogBytes(): number {
    return this.backlog;
  }

  /** True while more than {@link CHECKSUM_BACKLOG_BYTES} wait to be hashed: pause the source, then {@link whenDrained}. */
  get overBacklog(): boolean {
    return this.backlog > CHECKSUM_BACKLOG_BYTES;
  }

  /** Calls `resume` once the backlog has fallen to half the bound (at once if it has), or the thread ended. */
  whenDrained(resume: () => void): void {
    if (this.backlog <= CHECKSUM_BACKLOG_BYTES / 2) resume();
    else this.drainWaiters.push(resume);
  }

  private drained(bytes: number | 'all'): void {
    this.backlog = bytes === 'all' ? 0 : Math.max(0, this.backlog - bytes);
    if (this.backlog > CHECKSUM_BACKLOG_BYTES / 2) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }
  private readonly waiting = new Map<number, { resolve(d: ChecksumDigests): void; reject(e: Error): void }>();

  /**
   * @param workerPath the thread's entry (dist/checksumWorker.js), absolute
   * @param onFailure told, once per thread, when a thread fails (an uncaught error in it, its entry
   *   file missing): a line for the output channel, since the uploads it was hashing then fail with
   *   HTTP 500 and nothing else says why
   */
  constructor(private readonly workerPath: string, private readonly onFailure: (line: string) => void = () => undefined) {}

  /**
   * Opens a job that computes the digests asked for.
   * @returns the job, or undefined when the thread cannot be started: Node throws
   *   ERR_WORKER_INIT_FAILED when the system refuses a thread (a low process or memory limit). The
   *   caller then hashes on its own thread, as azurite does; the next job tries the thread again.
   *   Also undefined for good once a thread failed before it ever answered (see `unusable`).
   */
  begin(md5: boolean, crc64: boolean): ChecksumJob | undefined {
    // The thread the job was opened on: only it knows the job. Once it has ended the job cannot
    // finish (a new thread would ignore its bytes and never answer its digest), so it fails.
    let on: Worker;
    if (this.unusable) return undefined;
    try {
      on = this.thread();
    } catch {
      return undefined;
    }
    const id = this.nextId++;
    // Bytes are copied into a batch of the job's own as they come, and each full batch is
    // transferred, not copied again: the caller's chunks may be views of buffers it goes on using.
    let batch = new Uint8Array(CHECKSUM_BATCH_BYTES);
    let used = 0;
    let opened = false;
    const onItsThread = (message: ToThread, transfer: ArrayBuffer[] = []): boolean => {
      if (on !== this.worker) return false;
      // Counted before the transfer, which detaches the bytes (their length is then 0).
      if ('bytes' in message) this.backlog += message.bytes.length;
      on.postMessage(message, transfer);
      return true;
    };
    const flush = (): void => {
      if (used === 0 && opened) return;
      const bytes = used === batch.length ? batch : batch.slice(0, used);
      onItsThread(opened ? { id, bytes } : { id, md5, crc64, bytes }, [bytes.buffer]);
      opened = true;
      batch = new Uint8Array(CHECKSUM_BATCH_BYTES);
      used = 0;
    };
    return {
      update: (chunk) => {
        for (let at = 0; at < chunk.length;) {
          const n = Math.min(chunk.length - at, batch.length - used);
          batch.set(chunk.subarray(at, at + n), used);
          used += n;
          at += n;
          if (used === batch.length) flush();
        }
      },
      digest: () => {
        flush();
        return new Promise<ChecksumDigests>((resolve, reject) => {
          this.waiting.set(id, { resolve, reject });
          if (!onItsThread({ id, end: true })) {
            this.waiting.delete(id);
            reject(new Error('the checksum thread ended'));
          }
        });
      },
      drop: () => { if (opened) onItsThread({ id, drop: true }); },
    };
  }

  /** Ends the thread; jobs still waiting reject. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.failWaiting('the checksum thread was closed');
    if (w !== undefined) await w.terminate();
  }

  private thread(): Worker {
    if (this.worker !== undefined) return this.worker;
    const w = new Worker(this.workerPath);
    // Idle, the thread keeps nothing alive: the process ends when its real work does.
    w.unref();
    let answered = false;
    w.on('message', (m: FromThread) => {
      answered = true;
      if ('hashed' in m) {
        this.drained(m.hashed);
        return;
      }
      const waiting = this.waiting.get(m.id);
      if (waiting === undefined) return;
      this.waiting.delete(m.id);
      waiting.resolve({ md5: m.md5, crc64: m.crc64 });
    });
    w.on('error', (err) => {
      if (!answered) this.unusable = true;
      const jobs = this.waiting.size;
      this.failWaiting(`the checksum thread failed: ${err.message}`);
      this.onFailure(`The checksum thread of large uploads failed (${err.message}); ${jobs} upload(s) of 1 MiB or more that it was hashing failed with HTTP 500 and may be retried. ` +
        (answered ? 'The next such upload starts a new thread.' : 'Such uploads are hashed on the serving thread from now on.'));
    });
    w.on('exit', () => {
      if (this.worker === w) this.worker = undefined;
      this.failWaiting('the checksum thread ended');
    });
    this.worker = w;
    return w;
  }

  private failWaiting(message: string): void {
    // The thread's queue went with it: nothing is held back any more.
    this.drained('all');
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of waiting) w.reject(new Error(message));
  }
}

/** The thread's side: answers jobs until the thread ends. Call once, as the thread's entry. */
export function serveChecksums(): void {
  const port = parentPort;
  if (port === null) throw new Error('checksumWorker.js runs only as a worker thread (see src/engine/checksumThread.ts)');
  const jobs = new Map<number, { md5: Hash | undefined; crc: Crc64Nvme | undefined }>();
  port.on('message', (m: ToThread) => {
    if ('md5' in m) jobs.set(m.id, { md5: m.md5 ? createHash('md5') : undefined, crc: m.crc64 ? new Crc64Nvme() : undefined });
    const job = jobs.get(m.id);
    if ('bytes' in m) {
      job?.md5?.update(m.bytes);
      job?.crc?.update(m.bytes);
      // Every batch is acknowledged, a forgotten job's too: the sender counts them all.
      port.postMessage({ hashed: m.bytes.length } satisfies FromThread);
      return;
    }
    if (job === undefined) return;
    if ('end' in m) {
      jobs.delete(m.id);
      const answer: FromThread = { id: m.id, md5: job.md5 === undefined ? undefined : new Uint8Array(job.md5.digest()), crc64: job.crc?.digest() };
      port.postMessage(answer);
    } else {
      jobs.delete(m.id);
    }
  });
}
