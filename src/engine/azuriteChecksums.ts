/**
 * Replacements for the three CRC-64 exports of azurite 3.37's common/utils/utils.js, with the same
 * names, signatures and results, computed with the slice-by-16 {@link Crc64Nvme} instead of
 * azurite's one-byte-per-step `CRC64Hash` (which that file does not export, so the functions that
 * use it are replaced instead).
 *
 * The seam: the `crc64` patch of esbuild.mjs's azurite seam plugin appends, at bundle time, three
 * lines to that file that overwrite those exports with these functions (azurite's callers read them
 * from the exports object at call time). Only the bundle (dist/extension.js, out/engine-bundle.js)
 * sees the swap; node_modules is untouched, nothing of azurite is copied here, and this file does
 * not import azurite.
 *
 * Callers in azurite 3.37: blob/utils/utils.js `computeAndValidateTransactionalChecksums` (Put Blob,
 * Put Block, Put Block From URL, Append Block, Put Page) calls `computeTransactionalChecksums`;
 * `getCRC64FromString` / `getCRC64FromStream` are exported but unused by the servers today.
 * Verified by test/unit/engine/crc64.test.ts (same bytes as azurite's functions) and
 * test/unit/engine/bundledEngine.test.ts (SDK uploads through the bundle).
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ChecksumThread, type ChecksumJob } from './checksumThread';
import { Crc64Nvme } from './crc64';

/** What the request supplied (only presence matters here; the caller compares). */
export interface ExpectedChecksums {
  readonly md5?: unknown;
  readonly crc64?: unknown;
}

/** Checksums to compute even when the request supplied none. */
export interface ForcedChecksums {
  readonly md5?: boolean;
  readonly crc64?: boolean;
}

export interface TransactionalChecksums {
  md5: Uint8Array | undefined;
  crc64: Uint8Array | undefined;
}

/** CRC-64/NVME of a string (UTF-8) or bytes: 8 bytes, little-endian. */
export function getCRC64FromString(text: string | Uint8Array): Uint8Array {
  return new Crc64Nvme().update(text).digest();
}

/** CRC-64/NVME of everything `stream` emits. Rejects on the stream's error. */
export function getCRC64FromStream(stream: Readable): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const crc = new Crc64Nvme();
    stream
      .on('data', (chunk: Uint8Array | string) => { crc.update(chunk); })
      .on('end', () => resolve(crc.digest()))
      .on('error', reject);
  });
}

/**
 * Bodies of at least this many bytes (1 MiB) are hashed on the checksum thread once one is set
 * ({@link offloadChecksums}); smaller ones on the serving thread. For a small body the copy, the two
 * messages and the waits cost more than the hashing they move (bench/README.md, "Engine host", has
 * the A/B behind the threshold).
 */
export const OFFLOAD_MIN_BYTES = 1024 * 1024;

let checksumThread: ChecksumThread | undefined;

/**
 * Hashes large bodies on a thread of their own from now on (see ./checksumThread.ts), or on the
 * serving thread again (`workerPath` undefined), as azurite does. The engine's process turns it on;
 * the in-process engine of the benchmark keeps azurite's way.
 * @param workerPath the checksum thread's entry (dist/checksumWorker.js), absolute
 * @param onFailure told when the thread fails (see ChecksumThread): the engine's process logs it
 */
export function offloadChecksums(workerPath: string | undefined, onFailure?: (line: string) => void): void {
  void checksumThread?.close();
  checksumThread = workerPath === undefined ? undefined : new ChecksumThread(workerPath, onFailure);
}

/** Bytes handed to the checksum thread and not yet hashed (0 without a thread): what bounds the copies held for it. */
export function checksumBacklogBytes(): number {
  return checksumThread?.backlogBytes ?? 0;
}

/**
 * MD5 and/or CRC-64/NVME of `stream` in one pass. Each is computed when `expected` has it or
 * `force` asks for it, and is undefined otherwise (azurite's contract for this function). With a
 * checksum thread set, a body of {@link OFFLOAD_MIN_BYTES} or more is hashed there: the bytes are
 * kept until that size is reached, then sent on in batches as they arrive.
 * @throws (rejects) the stream's error, or an Error when the checksum thread ended meanwhile
 */
export function computeTransactionalChecksums(
  stream: Readable,
  expected: ExpectedChecksums,
  force?: ForcedChecksums,
): Promise<TransactionalChecksums> {
  const wantMd5 = expected.md5 !== undefined || Boolean(force?.md5);
  const wantCrc = expected.crc64 !== undefined || Boolean(force?.crc64);
  // Undefined again when the thread cannot be started for this body: then it is hashed here.
  let thread = wantMd5 || wantCrc ? checksumThread : undefined;
  const md5 = wantMd5 ? createHash('md5') : undefined;
  const crc = wantCrc ? new Crc64Nvme() : undefined;
  // With a thread: the first bytes wait here until the body proves large enough to hand over.
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let job: ChecksumJob | undefined;
  let ended = false;
  return new Promise((resolve, reject) => {
    stream
      .on('data', (data: Uint8Array | string) => {
        if (thread === undefined) {
          md5?.update(data);
          crc?.update(data);
          return;
        }
        const chunk = typeof data === 'string' ? Buffer.from(data) : data;
        // Bounded: past the thread's backlog the stream waits (its chunks are references to the
        // stored body; the batches sent are copies).
        const pauseIfBehind = (): void => {
          if (thread?.overBacklog !== true) return;
          stream.pause();
          thread.whenDrained(() => stream.resume());
        };
        if (job !== undefined) {
          job.update(chunk);
          pauseIfBehind();
          return;
        }
        held.push(chunk);
        heldBytes += chunk.length;
        if (heldBytes >= OFFLOAD_MIN_BYTES) {
          job = thread.begin(wantMd5, wantCrc);
          if (job === undefined) thread = undefined;
          for (const c of held) {
            if (job !== undefined) {
              job.update(c);
            } else {
              md5?.update(c);
              crc?.update(c);
            }
          }
          held = [];
          pauseIfBehind();
        }
      })
      .on('end', () => {
        ended = true;
        if (job !== undefined) {
          job.digest().then((d) => resolve({ md5: d.md5, crc64: d.crc64 }), reject);
          return;
        }
        for (const c of held) {
          md5?.update(c);
          crc?.update(c);
        }
        resolve({ md5: md5 === undefined ? undefined : new Uint8Array(md5.digest()), crc64: crc?.digest() });
      })
      .on('error', (err) => {
        ended = true;
        job?.drop();
        reject(err);
      })
      // A request aborted by its client closes without 'end' or 'error': the thread forgets its job.
      .on('close', () => { if (!ended) job?.drop(); });
  });
}
