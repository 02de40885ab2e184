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
 * MD5 and/or CRC-64/NVME of `stream` in one pass. Each is computed when `expected` has it or
 * `force` asks for it, and is undefined otherwise (azurite's contract for this function).
 */
export function computeTransactionalChecksums(
  stream: Readable,
  expected: ExpectedChecksums,
  force?: ForcedChecksums,
): Promise<TransactionalChecksums> {
  const md5 = expected.md5 !== undefined || Boolean(force?.md5) ? createHash('md5') : undefined;
  const crc = expected.crc64 !== undefined || Boolean(force?.crc64) ? new Crc64Nvme() : undefined;
  return new Promise((resolve, reject) => {
    stream
      .on('data', (chunk: Uint8Array | string) => {
        md5?.update(chunk);
        crc?.update(chunk);
      })
      .on('end', () => resolve({
        md5: md5 === undefined ? undefined : new Uint8Array(md5.digest()),
        crc64: crc?.digest(),
      }))
      .on('error', reject);
  });
}
