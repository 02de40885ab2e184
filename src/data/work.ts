/**
 * How the data layer runs many requests: a bounded pool, progress counts, and a blob's download
 * to a file, and the one line of an error it reports. No vscode.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobClient } from '@azure/storage-blob';
import type { DataOptions } from './snapshot';
import { describeRestError } from '../core/restErrors';

/**
 * Writes a blob's content to `file` (created or replaced). The content goes to a hidden file
 * beside it (`.download-<random>.part`), which replaces `file` only once the download is complete,
 * so a failed or cancelled download leaves a file that was there as it was, and removes its part.
 * Instead of the SDK's `downloadToFile`, whose file stays open when the download fails or is
 * cancelled (it pipes without closing the file on a read error: a descriptor lost for the
 * extension host's life, and on Windows a file that cannot be deleted); `pipeline` closes both
 * ends either way.
 * @throws RestError from the download; AbortError when `signal` aborts; the file system's error
 */
export async function downloadToFile(blob: BlobClient, file: string, signal?: AbortSignal): Promise<void> {
  const response = await blob.download(0, undefined, { abortSignal: signal });
  const body = response.readableStreamBody;
  if (body === undefined) throw new Error(`the download of ${blob.name} had no body`);
  // Not named after the file: a name of 255 bytes, the most a file system takes, has no room for more.
  const part = path.join(path.dirname(file), `.download-${randomBytes(6).toString('hex')}.part`);
  try {
    await pipeline(body, fs.createWriteStream(part), signal !== undefined ? { signal } : {});
    await fsp.rename(part, file);
  } catch (err) {
    await fsp.rm(part, { force: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * Writes `lines` (each with its own line end) to `file`, created or replaced, a piece at a time:
 * a `.jsonl` file may be larger than the longest string V8 makes (about 512 MiB).
 * @throws the file system's error
 */
export async function writeLines(file: string, lines: Iterable<string>): Promise<void> {
  await pipeline(Readable.from(lines), fs.createWriteStream(file));
}

/** A text file that is not UTF-8: the first line (1-based) that holds bytes UTF-8 does not allow. */
export class NotUtf8Error extends Error {
  constructor(readonly line: number) {
    super(`line ${line} is not UTF-8`);
    this.name = 'NotUtf8Error';
  }
}

/**
 * Reads a UTF-8 text file's lines, without their ends (`\n`, `\r\n`, a lone `\r`), a piece at a
 * time: a `.jsonl` file may be larger than the longest string V8 makes (about 512 MiB). A byte
 * order mark at the start is kept (the snapshot parser drops it). Bytes UTF-8 does not allow (a
 * file saved as Windows-1252, what Windows PowerShell 5.1's `Set-Content` writes) are refused, not
 * read as U+FFFD.
 * @param signal checked after each piece read (64 KiB): a large file's read ends soon after it aborts
 * @throws NotUtf8Error naming the first such line; the file system's error (ENOENT for a missing file);
 *   the signal's reason (an AbortError) once `signal` aborts
 */
export async function readLines(file: string, signal?: AbortSignal): Promise<string[]> {
  const lines: string[] = [];
  let lineNumber = 0;
  // One `\n`-ended piece of the file: one line, or several split by lone CRs.
  const add = (bytes: Buffer): void => {
    const text = decodeLines(bytes, lineNumber + 1);
    const parts = (text.endsWith('\r') ? text.slice(0, -1) : text).split('\r');
    // One at a time: a file of lone CRs is one piece of very many lines (a spread would overflow the stack).
    for (const part of parts) lines.push(part);
    lineNumber += parts.length;
  };
  const input = fs.createReadStream(file);
  try {
    let pending: Buffer[] = [];
    for await (const chunk of input as AsyncIterable<Buffer>) {
      signal?.throwIfAborted();
      let start = 0;
      for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
        pending.push(chunk.subarray(start, end));
        add(pending.length === 1 ? pending[0]! : Buffer.concat(pending));
        pending = [];
        start = end + 1;
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
    }
    if (pending.length > 0) add(Buffer.concat(pending));
  } finally {
    input.destroy();
  }
  return lines;
}

/**
 * A UTF-8 text file's whole text (a byte order mark at the start kept).
 * @throws NotUtf8Error naming the first line that holds bytes UTF-8 does not allow; the file
 *   system's error; RangeError for a file larger than the longest string V8 makes
 */
export async function readText(file: string): Promise<string> {
  return decodeLines(await fsp.readFile(file), 1);
}

/** True for the error a fatal TextDecoder throws on bytes its encoding does not allow. */
function isInvalidEncoding(err: unknown): boolean {
  return err instanceof TypeError && (err as NodeJS.ErrnoException).code === 'ERR_ENCODING_INVALID_ENCODED_DATA';
}

/**
 * `bytes` decoded as UTF-8, strictly, a byte order mark kept.
 * @param firstLine the line number `bytes` begins at (1-based)
 * @throws NotUtf8Error naming the first line (counting `\n`, `\r\n` and lone `\r` as line ends)
 *   that holds bytes UTF-8 does not allow; any other error of the decoder as it is
 */
function decodeLines(bytes: Buffer, firstLine: number): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (err) {
    if (!isInvalidEncoding(err)) throw err;
  }
  // Which line: each decoded on its own (no UTF-8 sequence holds a CR or LF byte), the first that fails.
  let line = firstLine;
  let start = 0;
  while (start <= bytes.length) {
    let end = start;
    while (end < bytes.length && bytes[end] !== 0x0a && bytes[end] !== 0x0d) end++;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(start, end));
    } catch (err) {
      if (isInvalidEncoding(err)) throw new NotUtf8Error(line);
      throw err;
    }
    if (end >= bytes.length) break;
    // CRLF ends one line.
    start = bytes[end] === 0x0d && bytes[end + 1] === 0x0a ? end + 2 : end + 1;
    line++;
  }
  throw new NotUtf8Error(line);
}

/**
 * Runs `work` over `items` with at most `options.concurrency` (16) at once. At the first failure or
 * an abort no more items begin; it settles once the items under way have ended (so that a caller's
 * clean-up or rollback never runs beside them).
 * @throws the first failure, or the signal's reason (an AbortError) after an abort
 */
export async function pool<T>(items: readonly T[], options: Pick<DataOptions, 'signal' | 'concurrency'>, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown;
  const worker = async (): Promise<void> => {
    while (failed === undefined && next < items.length) {
      if (options.signal?.aborted === true) {
        failed = options.signal.reason;
        break;
      }
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

/**
 * Counts steps and reports them through `options.progress`.
 * @param total the steps known at the start
 * @param totalGrows true when {@link addTotal} adds steps found on the way (reported as `totalGrows`)
 */
export function tracker(options: DataOptions, total: number, totalGrows = false): { step(message: string, n?: number): void; addTotal(n: number): void } {
  let done = 0;
  let all = total;
  return {
    step(message, n = 1) {
      done += n;
      options.progress?.({ done, total: all, message, ...(totalGrows ? { totalGrows } : {}) });
    },
    addTotal(n) {
      all += n;
    },
  };
}

/** True for the SDKs' RestError with HTTP status 404 (the item does not exist, or no longer). */
export function isNotFound(err: unknown): boolean {
  return (err as { statusCode?: unknown } | undefined)?.statusCode === 404;
}

/** True for a blob request's 404 that says the container is gone (ContainerNotFound), not only the blob. */
export function isContainerNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; details?: { errorCode?: unknown } } | undefined;
  return isNotFound(err) && (e?.code === 'ContainerNotFound' || e?.details?.errorCode === 'ContainerNotFound');
}

/**
 * An error's message; of the SDKs' RestError only the first line (the rest is RequestId and Time),
 * of a table error the message inside its JSON body, and for an untrusted HTTPS certificate what to
 * do (../core/restErrors.ts).
 */
export function messageOf(err: unknown): string {
  return describeRestError(err);
}

/**
 * For a request that failed with HTTP 500, an Error that says why in words a user can act on
 * (`./blobNames.ts`, `./queueText.ts`: Azurite's answer when it cannot write what it stores).
 * @param err what the SDK threw
 * @param message what to say instead of the bare status
 * @returns the Error (the SDK's error as `cause`, its `statusCode` kept), or undefined when `err`
 *   is no 500
 */
export function explainedServerError(err: unknown, message: string): Error | undefined {
  if ((err as { statusCode?: unknown } | undefined)?.statusCode !== 500) return undefined;
  return Object.assign(new Error(message, { cause: err }), { statusCode: 500 });
}
