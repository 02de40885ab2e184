/**
 * Snapshots and seeds: read a snapshot folder, export an account's data into one, import one,
 * reset an account to one. The format is src/core/snapshotFormat.ts (described for users in
 * docs/SNAPSHOT.md). Everything goes through the storage REST API with the Azure SDKs
 * (./clients.ts), so the same code serves our engine and an Azurite that runs elsewhere.
 * No vscode here: progress is a callback, cancellation an AbortSignal.
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { lookup as mimeLookup } from 'mime-types';
import type { ContainerItem } from '@azure/storage-blob';
import type { TableEntity, TableTransaction } from '@azure/data-tables';
import type { ServiceKind } from '../core/services';
import {
  blobEntryLines, blobFiles, entityLines, INT32, isContainerName, isContainerOrQueueName, isTableName, SPECIAL_CONTAINERS, messageLines, parseBlobEntries, parseContainerEntry,
  parseEntities, parseMessages, parseQueueEntry, printContainerEntry, printEntity, printQueueEntry, SnapshotFormatError, typedValueProblem, unreachableBlobName, unwritableBlobName,
  type BlobEntry, type ContainerEntry, type EntityEntry, type MessageEntry, type QueueEntry, type TypedValue,
} from '../core/snapshotFormat';
import { servicesOf, type StorageClients } from './clients';
import { downloadToFile, isContainerNotFound, isNotFound, messageOf, NotUtf8Error, pool, readLines, readText, tracker, writeLines } from './work';
import { messageTextOf, unreadableQueueError } from './queueText';
import { unlistableContainerError } from './blobNames';

/** A blob of a snapshot: its description and where its content is (an absolute path). */
export interface SnapshotBlob {
  readonly entry: BlobEntry;
  readonly file: string;
  /** Content length in bytes. */
  readonly size: number;
}

/** What a snapshot folder holds, parsed and checked; blob content stays on disk until imported. */
export interface Snapshot {
  readonly folder: string;
  readonly containers: readonly { readonly name: string; readonly entry: ContainerEntry; readonly blobs: readonly SnapshotBlob[] }[];
  readonly queues: readonly { readonly name: string; readonly entry: QueueEntry; readonly messages: readonly MessageEntry[] }[];
  readonly tables: readonly { readonly name: string; readonly entities: readonly EntityEntry[] }[];
}

/** Item counts of a snapshot, an export, an import or a reset. `bytes`: blob content, in bytes. */
export interface DataCounts {
  containers: number;
  blobs: number;
  bytes: number;
  queues: number;
  messages: number;
  tables: number;
  entities: number;
  /**
   * Export only, and only when there are any: the blobs (`<container>/<name>`, sorted) that the
   * listing named but that no blob of that name held when the export read them (404), where the
   * listed name holds a numeric character reference (`&#xD;`, `&#13;`). Such a blob may have been
   * deleted meanwhile, or its true name may be one the listing could not carry (./blobNames.ts
   * reads every name Azurite writes; another server's might not): left out of the snapshot either
   * way, and named by {@link describeCounts} rather than counted silently as deleted.
   */
  unreadBlobs?: string[];
}

/** A numeric character reference (`&#xD;`, `&#13;`) in a name as the SDK listed it. */
const LISTED_REFERENCE = /&#(?:x[0-9A-Fa-f]+|[0-9]+);/;
/** The most names of {@link DataCounts.unreadBlobs} a message lists. */
const UNREAD_NAMES_SHOWN = 5;

/** Progress of a long operation: `done` of `total` items (blobs, messages, entities), and what is being done. */
export interface DataProgress {
  readonly done: number;
  readonly total: number;
  readonly message: string;
  /**
   * True when `total` counts only the items found so far and may grow (an export counts each
   * container's blobs, queue's messages and table's entities when it reaches it): done ÷ total is
   * then no share of the whole.
   */
  readonly totalGrows?: boolean;
  /**
   * True for a report that starts another phase of the work (an import's rollback): a UI that
   * throttles reports shows it at once, since none may follow it.
   */
  readonly phase?: boolean;
}

/** Options of the long operations. */
export interface DataOptions {
  /** Called as items complete (often: throttle it for a UI). */
  readonly progress?: (p: DataProgress) => void;
  /** Aborts between items and inside SDK calls; the operation then rejects with an AbortError. */
  readonly signal?: AbortSignal;
  /** Requests in flight at once (default 16). */
  readonly concurrency?: number;
  /**
   * Frees the memory of deleted blobs and messages now, where the engine can (our engine's
   * `Emulator.reclaimMemory`): in memory mode azurite frees deleted content only at its next GC, so
   * without it a reset or a rollback near `azurite.extentMemoryLimit` would be refused.
   */
  readonly reclaim?: () => Promise<unknown>;
}

/** Import options: {@link DataOptions}, and what the user agreed to replace. */
export interface ImportOptions extends DataOptions {
  /**
   * The items ({@link importConflicts}) the user was asked about and agreed to replace: the import
   * stops before it changes anything when more exist by the time it runs. Undefined: replace what exists.
   */
  readonly confirmed?: AccountNames;
  /**
   * Called once the copy of what the import replaces is made, before its first change (the first
   * delete): until then an import that ends, however it ends, has changed nothing. The import waits
   * for it; a rejection stops the import before it changes anything.
   * @param backup the folder holding that copy, a snapshot folder (docs/SNAPSHOT.md); empty when
   *   nothing is replaced
   */
  readonly changing?: (backup: string) => Promise<void>;
}

/** Export options: {@link DataOptions}, and which items to export (default all). */
export interface ExportOptions extends DataOptions {
  readonly only?: AccountNames;
  /**
   * How long received queue messages stay hidden while the export reads a queue, in seconds
   * (default 300, at least 1). Held messages are hidden again each time half of it has passed.
   * For tests; nobody needs to change it.
   */
  readonly queueVisibilitySeconds?: number;
}

/** Files a snapshot reader skips anywhere: what Finder and Explorer leave behind. */
const IGNORED_FILES = new Set(['.DS_Store', 'Thumbs.db', 'desktop.ini']);
/**
 * Git's files, ignored where no data can be (directly in `blob/`, `queue/` and `table/`): a
 * `.gitkeep` that keeps an empty service folder in a repository, a `.gitattributes` or `.gitignore`.
 * Inside a container folder a file of that name is a blob like any other.
 */
const GIT_FILES = new Set(['.gitkeep', '.gitignore', '.gitattributes']);
/** Blob content moves in pieces of this many bytes for append and page blobs (the REST limit for a block is 4 MiB per append). */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Entities per table transaction (the Table service's limit). */
const BATCH_ENTITIES = 100;
/**
 * The estimated bytes a table transaction may carry (3 MiB): the Table service refuses a batch
 * request over 4 MiB (azurite too, with 413 RequestBodyTooLarge), and the estimate below leaves
 * room for what it does not count.
 */
const BATCH_BYTES = 3 * 1024 * 1024;
/** What a transaction adds per entity beside its JSON (the multipart headers, about 300 bytes). */
const BATCH_PART_BYTES = 1024;
/** How long an export keeps received messages invisible before it makes them visible again (s). */
const EXPORT_VISIBILITY_S = 300;

/** The counts of a parsed snapshot. */
export function snapshotCounts(s: Snapshot): DataCounts {
  return {
    containers: s.containers.length,
    blobs: s.containers.reduce((n, c) => n + c.blobs.length, 0),
    bytes: s.containers.reduce((n, c) => n + c.blobs.reduce((m, b) => m + b.size, 0), 0),
    queues: s.queues.length,
    messages: s.queues.reduce((n, q) => n + q.messages.length, 0),
    tables: s.tables.length,
    entities: s.tables.reduce((n, t) => n + t.entities.length, 0),
  };
}

/**
 * The counts of the services in `kinds` (default all three, in that order), for a notification or
 * a log line: "3 containers (1,000 blobs, 50.0 MB), 1 queue (20 messages), 2 tables (10,000 entities)".
 * An export's {@link DataCounts.unreadBlobs} follow, named (the first five): "…; 1 blob left out:
 * "docs/a&#xD;b" was listed, but no blob of that name was there when read (deleted meanwhile, or a
 * name the listing could not carry)".
 */
export function describeCounts(c: DataCounts, kinds: readonly ServiceKind[] = ['blob', 'queue', 'table']): string {
  const n = (k: number, one: string, many = `${one}s`): string => `${k.toLocaleString('en-US')} ${k === 1 ? one : many}`;
  const mb = c.bytes >= 1024 * 1024 ? `${(c.bytes / 1024 / 1024).toFixed(1)} MB` : `${(c.bytes / 1024).toFixed(1)} KB`;
  const parts: Record<ServiceKind, string> = {
    blob: `${n(c.containers, 'container')} (${n(c.blobs, 'blob')}, ${mb})`,
    queue: `${n(c.queues, 'queue')} (${n(c.messages, 'message')})`,
    table: `${n(c.tables, 'table')} (${n(c.entities, 'entity', 'entities')})`,
  };
  const counts = (['blob', 'queue', 'table'] as const).filter((k) => kinds.includes(k)).map((k) => parts[k]).join(', ');
  const unread = kinds.includes('blob') ? c.unreadBlobs ?? [] : [];
  if (unread.length === 0) return counts;
  const shown = unread.slice(0, UNREAD_NAMES_SHOWN).map((name) => JSON.stringify(name)).join(', ');
  const more = unread.length > UNREAD_NAMES_SHOWN ? ` and ${(unread.length - UNREAD_NAMES_SHOWN).toLocaleString('en-US')} more` : '';
  return `${counts}; ${n(unread.length, 'blob')} left out: ${shown}${more} ${unread.length === 1 ? 'was' : 'were'} listed, but no blob of that name was there when read (deleted meanwhile, or a name the listing could not carry)`;
}

// ---------------------------------------------------------------------------------------------
// Reading a snapshot folder

/**
 * Reads and checks a snapshot folder. A missing folder, or one without `blob/`, `queue/` and
 * `table/`, is an empty snapshot (a seed folder may hold only some services).
 * @param folder absolute path
 * @param kinds the services to read (default all)
 * @param signal checked before each file and blob and while a `.jsonl` file is read: a large
 *   folder's read ends soon after it aborts
 * @throws SnapshotFormatError naming the file (relative to `folder`) and line of the first problem:
 *   bad JSON, an unknown key, a bad name, a blob line without its file, a file in UTF-16, two table
 *   files whose names differ only in case (naming both); the signal's reason (an AbortError) once
 *   `signal` aborts
 */
export async function readSnapshot(folder: string, kinds: readonly ServiceKind[] = ['blob', 'queue', 'table'], signal?: AbortSignal): Promise<Snapshot> {
  const rel = (p: string): string => path.relative(folder, p).split(path.sep).join('/');
  const list = async (dir: string, serviceFolder = false): Promise<fs.Dirent[]> => {
    try {
      return (await fsp.readdir(dir, { withFileTypes: true })).filter((d) => !IGNORED_FILES.has(d.name) && !(serviceFolder && GIT_FILES.has(d.name))).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  };
  /** A symbolic link where a file or folder of the format is expected: not followed, and said so. */
  const refuseLink = (d: fs.Dirent, dir: string): void => {
    if (d.isSymbolicLink()) throw new SnapshotFormatError(rel(path.join(dir, d.name)), 0, 'is a symbolic link, which is not followed here: put the file or folder itself into the snapshot folder (docs/SNAPSHOT.md)');
  };
  const notUtf8 = (p: string) => (err: unknown): never => {
    if (!(err instanceof NotUtf8Error)) throw err;
    throw new SnapshotFormatError(rel(p), err.line, 'this line is not UTF-8 (the file was saved in another encoding, such as Windows-1252, which Windows PowerShell 5.1\'s Set-Content writes); save the file as UTF-8 (in PowerShell: Set-Content -Encoding UTF8)');
  };
  const read = async (p: string): Promise<string> => {
    signal?.throwIfAborted();
    await refuseUtf16(p, rel(p));
    return readText(p).catch(notUtf8(p));
  };
  const lines = async (p: string): Promise<string[]> => {
    signal?.throwIfAborted();
    await refuseUtf16(p, rel(p));
    return readLines(p, signal).catch(notUtf8(p));
  };

  const containers: Snapshot['containers'][number][] = [];
  if (kinds.includes('blob')) {
    const dir = path.join(folder, 'blob');
    const entries = await list(dir, true);
    const names = new Set<string>();
    let realDir: string | undefined; // blob/ with symbolic links resolved, once needed
    for (const d of entries) {
      const m = /^(.*?)(\.blobs\.jsonl|\.container\.json|\.files)?$/.exec(d.name)!;
      const name = m[1]!;
      const suffix = m[2];
      const isContainerFolder = suffix === undefined && d.isDirectory();
      refuseLink(d, dir);
      if (!isContainerFolder && !(suffix === '.files' && d.isDirectory()) && !(suffix !== undefined && suffix !== '.files' && d.isFile())) {
        throw new SnapshotFormatError(rel(path.join(dir, d.name)), 0, 'blob/ holds only container folders, <container>.blobs.jsonl, <container>.container.json and <container>.files/ (docs/SNAPSHOT.md)');
      }
      if (!isContainerName(name)) {
        throw new SnapshotFormatError(rel(path.join(dir, d.name)), 0, `"${name}" is not a container name: 3–63 lower-case letters, digits and single hyphens, or ${SPECIAL_CONTAINERS.join(', ')}`);
      }
      names.add(name);
    }
    for (const name of [...names].sort()) {
      const listing = path.join(dir, `${name}.blobs.jsonl`);
      const described = fs.existsSync(listing) ? parseBlobEntries(rel(listing), await lines(listing)) : [];
      const containerFile = path.join(dir, `${name}.container.json`);
      const entry = fs.existsSync(containerFile) ? parseContainerEntry(rel(containerFile), await read(containerFile)) : {};
      const byName = new Map(described.map((e) => [e.name, e]));
      const blobs: SnapshotBlob[] = [];
      const claimed = new Set<string>();
      // Every described blob, in file order: its content is `file`, or <container>/<name>.
      for (const e of described) {
        signal?.throwIfAborted();
        const file = path.join(dir, ...(e.file ?? `${name}/${e.name}`).split('/'));
        const stat = await fsp.stat(file).catch(() => undefined);
        if (stat === undefined || !stat.isFile()) throw new SnapshotFormatError(rel(listing), e.line, `no file ${rel(file)} for blob "${e.name}"`);
        // The name stays inside blob/ (parseBlobEntries), but a symbolic link on the way may not.
        realDir ??= await fsp.realpath(dir);
        if (!isBelow(realDir, await fsp.realpath(file))) {
          throw new SnapshotFormatError(rel(listing), e.line, `${rel(file)} for blob "${e.name}" leads through a symbolic link out of the snapshot folder's blob/`);
        }
        if (e.type === 'PageBlob' && stat.size % 512 !== 0) {
          throw new SnapshotFormatError(rel(listing), e.line, `page blob "${e.name}": ${rel(file)} is ${stat.size} bytes, and a page blob's size is a multiple of 512`);
        }
        claimed.add(file);
        const plain: Record<string, unknown> = { ...e };
        delete plain.line;
        blobs.push({ entry: plain as unknown as BlobEntry, file, size: stat.size });
      }
      // Files in the container folder that no line describes: blobs named by their path, a content type from the extension.
      const walk = async (sub: string): Promise<void> => {
        for (const d of await list(path.join(dir, name, sub))) {
          const relName = sub === '' ? d.name : `${sub}/${d.name}`;
          if (d.isDirectory()) {
            await walk(relName);
          } else if (d.isFile()) {
            signal?.throwIfAborted();
            const file = path.join(dir, name, ...relName.split('/'));
            if (claimed.has(file) || byName.has(relName)) continue;
            const unwritable = unwritableBlobName(relName);
            if (unwritable !== undefined) throw new SnapshotFormatError(rel(file), 0, unwritable);
            const stat = await fsp.stat(file);
            blobs.push({ entry: { name: relName, contentType: contentTypeOf(relName) }, file, size: stat.size });
          }
        }
      };
      await walk('');
      blobs.sort((a, b) => (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0));
      containers.push({ name, entry, blobs });
    }
  }

  const queues: Snapshot['queues'][number][] = [];
  if (kinds.includes('queue')) {
    const dir = path.join(folder, 'queue');
    const names = new Set<string>();
    for (const d of await list(dir, true)) {
      const m = /^(.*?)(\.jsonl|\.queue\.json)$/.exec(d.name);
      refuseLink(d, dir);
      if (m === null || !d.isFile()) throw new SnapshotFormatError(rel(path.join(dir, d.name)), 0, 'queue/ holds only <queue>.jsonl and <queue>.queue.json files (docs/SNAPSHOT.md)');
      if (!isContainerOrQueueName(m[1]!)) throw new SnapshotFormatError(rel(path.join(dir, d.name)), 0, `"${m[1]}" is not a queue name: 3–63 lower-case letters, digits and single hyphens`);
      names.add(m[1]!);
    }
    for (const name of [...names].sort()) {
      const file = path.join(dir, `${name}.jsonl`);
      const messages = fs.existsSync(file) ? parseMessages(rel(file), await lines(file)) : [];
      const meta = path.join(dir, `${name}.queue.json`);
      const entry = fs.existsSync(meta) ? parseQueueEntry(rel(meta), await read(meta)) : {};
      queues.push({ name, entry, messages });
    }
  }

  const tables: Snapshot['tables'][number][] = [];
  if (kinds.includes('table')) {
    const dir = path.join(folder, 'table');
    const byKey = new Map<string, string>(); // a table name in lower case → its file
    for (const d of await list(dir, true)) {
      const m = /^(.*)\.jsonl$/.exec(d.name);
      refuseLink(d, dir);
      if (m === null || !d.isFile()) throw new SnapshotFormatError(rel(path.join(dir, d.name)), 0, 'table/ holds only <table>.jsonl files (docs/SNAPSHOT.md)');
      if (!isTableName(m[1]!)) throw new SnapshotFormatError(rel(path.join(dir, d.name)), 0, `"${m[1]}" is not a table name: 3–63 letters and digits, starting with a letter`);
      const file = path.join(dir, d.name);
      // The Table service's names ignore case: the second file's table would be the first one's.
      const other = byKey.get(m[1]!.toLowerCase());
      if (other !== undefined) throw new SnapshotFormatError(rel(file), 0, `${rel(other)} and ${rel(file)} are one table, since table names ignore case: put its entities into one file`);
      byKey.set(m[1]!.toLowerCase(), file);
      tables.push({ name: m[1]!, entities: parseEntities(rel(file), await lines(file)) });
    }
  }
  return { folder, containers, queues, tables };
}

/**
 * Refuses a file that begins with a UTF-16 byte order mark (FF FE or FE FF), what PowerShell 5's
 * `>` and `Out-File` write: read as UTF-8 it would be "not JSON" with no word of why.
 * @param file absolute path
 * @param relName the path to name in the error
 * @throws SnapshotFormatError saying to save the file as UTF-8
 */
async function refuseUtf16(file: string, relName: string): Promise<void> {
  const handle = await fsp.open(file, 'r');
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    if (bytesRead === 2 && ((buffer[0] === 0xff && buffer[1] === 0xfe) || (buffer[0] === 0xfe && buffer[1] === 0xff))) {
      throw new SnapshotFormatError(relName, 0, 'the file is UTF-16 (it begins with a UTF-16 byte order mark, as PowerShell 5\'s ">" writes); save it as UTF-8 (in PowerShell: Set-Content -Encoding UTF8, or Out-File -Encoding utf8)');
    }
  } finally {
    await handle.close();
  }
}

/** True when `p` is below the folder `root` (both absolute, symbolic links resolved). */
function isBelow(root: string, p: string): boolean {
  const r = path.relative(root, p);
  return r !== '' && r !== '..' && !r.startsWith(`..${path.sep}`) && !path.isAbsolute(r);
}

/** A content type for a file name from its extension (the mime-types package), else application/octet-stream. */
export function contentTypeOf(name: string): string {
  return mimeLookup(name) || 'application/octet-stream';
}

// ---------------------------------------------------------------------------------------------
// What an account holds

/** The names of the containers, queues and tables an account holds, for the services with an endpoint. */
export interface AccountNames {
  readonly containers: string[];
  readonly queues: string[];
  readonly tables: string[];
}

/**
 * Lists every container, queue and table of the account (all pages).
 * @throws RestError from the SDKs when a service does not answer
 */
export async function accountNames(clients: StorageClients, signal?: AbortSignal): Promise<AccountNames> {
  const containers: string[] = [];
  const queues: string[] = [];
  const tables: string[] = [];
  if (clients.blob) for await (const c of clients.blob.listContainers({ abortSignal: signal })) containers.push(c.name);
  if (clients.queue) for await (const q of clients.queue.listQueues({ abortSignal: signal })) queues.push(q.name);
  if (clients.table) for await (const t of clients.table.listTables({ abortSignal: signal })) if (t.name !== undefined) tables.push(t.name);
  return { containers, queues, tables };
}

/** True when the service holds no container, queue or table (what "empty" means for `azurite.seed` in disk mode). */
export async function isServiceEmpty(clients: StorageClients, kind: ServiceKind): Promise<boolean> {
  if (kind === 'blob' && clients.blob) return (await clients.blob.listContainers().byPage({ maxPageSize: 1 }).next()).value?.containerItems?.length === 0;
  if (kind === 'queue' && clients.queue) return ((await clients.queue.listQueues().byPage({ maxPageSize: 1 }).next()).value?.queueItems?.length ?? 0) === 0;
  if (kind === 'table' && clients.table) {
    for await (const t of clients.table.listTables()) if (t.name !== undefined) return false;
    return true;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Export

/**
 * Writes the account's data (the services with an endpoint) into `folder` in the snapshot format.
 * Each exported service's subfolder (`blob/`, `queue/`, `table/`) is written beside it first and
 * then replaces the old one, so a failed or cancelled export leaves the folder as it was; other
 * files in `folder` are never touched.
 * Queue messages are read by receiving them (the REST API peeks at most 32) and made visible again
 * once the whole queue has been read, their content untouched (no new extent): each exported message's dequeue count rises by
 * one, and messages a consumer holds invisible at that moment are not exported.
 * Blob names are listed as they are, a carriage return included (the blob client's listing policy,
 * ./blobNames.ts). A blob deleted after the listing is left out; one whose listed name holds a
 * character reference is also named in the result's `unreadBlobs`. So is a container, queue or
 * table deleted after the listing of them, before its own was read; one deleted while it is read
 * fails the export, naming it.
 * @returns the counts written
 * @throws RestError from the SDKs; an Error naming the container and the likely cause when Azurite
 *   cannot write a container's listing (a name with a character XML cannot carry:
 *   `unlistableContainerError` of ./blobNames.ts); AbortError when `options.signal` aborts
 */
export async function exportSnapshot(clients: StorageClients, folder: string, options: ExportOptions = {}): Promise<DataCounts> {
  const counts: DataCounts = { containers: 0, blobs: 0, bytes: 0, queues: 0, messages: 0, tables: 0, entities: 0 };
  const kinds = servicesOf(clients.endpoints);
  await fsp.mkdir(folder, { recursive: true });
  await removeAbandonedStaging(folder);
  const staging = await fsp.mkdtemp(path.join(folder, STAGING_PREFIX));
  await fsp.writeFile(path.join(staging, STAGING_OWNER), JSON.stringify({ pid: process.pid, host: os.hostname() }));
  // The folder is often in a repository: a staging folder left behind (its removal failed, or its
  // window ended mid-export) is never committed.
  await fsp.writeFile(path.join(staging, '.gitignore'), '*\n');
  const progress = tracker(options, 0, true);
  const only = options.only;
  let kept = false;
  try {
    if (clients.blob) {
      const dir = path.join(staging, 'blob');
      await fsp.mkdir(dir);
      const containers: ContainerItem[] = [];
      for await (const c of clients.blob.listContainers({ includeMetadata: true, abortSignal: options.signal })) if (!only || only.containers.includes(c.name)) containers.push(c);
      for (const c of containers) {
        // Azurite takes any name that begins with `$`; Azure, and so the snapshot reader, only its own three.
        if (!isContainerName(c.name)) throw new Error(`container ${c.name} has a name Azure does not allow (only $root, $web and $logs begin with $), so a snapshot with it would not load. Copy what it holds into a container with a valid name, delete it, then try again`);
        const container = clients.blob.getContainerClient(c.name);
        const blobs: BlobEntry[] = [];
        const sizes: number[] = [];
        try {
          for await (const b of container.listBlobsFlat({ includeMetadata: true, abortSignal: options.signal })) {
            // Its download would fetch another blob's content under its name.
            const unreachable = unreachableBlobName(b.name);
            if (unreachable !== undefined) throw new Error(`in container ${c.name} the ${unreachable}. Delete it with a client that sends its path as it is (curl --path-as-is), then try again`);
            const p = b.properties;
            blobs.push(withoutUndefined({
              name: b.name,
              type: (p.blobType ?? 'BlockBlob') as BlobEntry['type'],
              contentType: p.contentType,
              contentEncoding: p.contentEncoding || undefined,
              contentLanguage: p.contentLanguage || undefined,
              contentDisposition: p.contentDisposition || undefined,
              cacheControl: p.cacheControl || undefined,
              metadata: b.metadata,
            }));
            sizes.push(p.contentLength ?? 0);
          }
        } catch (err) {
          // Deleted since the containers were listed (a test cleaning up as it runs): left out, as a
          // deleted blob is. Deleted while its listing ran: named.
          if (isNotFound(err) && blobs.length === 0) continue;
          if (isNotFound(err)) throw new Error(`container ${c.name} was deleted while the export listed its blobs; nothing was written: export again`, { cause: err });
          // A name Azurite cannot write into the listing fails it with a bare 500: say what that likely is.
          throw unlistableContainerError(c.name, err) ?? err;
        }
        const files = blobFiles(c.name, blobs.map((b) => b.name));
        progress.addTotal(blobs.length);
        await fsp.mkdir(path.join(dir, c.name));
        // A blob a client deleted after the listing (a test cleaning up as it runs) is left out.
        const gone = new Set<string>();
        await pool(blobs, options, async (b) => {
          const file = path.join(dir, ...files.get(b.name)!.split('/'));
          await fsp.mkdir(path.dirname(file), { recursive: true });
          try {
            await downloadToFile(container.getBlobClient(b.name), file, options.signal);
          } catch (err) {
            if (!isNotFound(err)) throw blobReadError(c.name, b.name, err);
            // The whole container deleted meanwhile: its blobs are not "left out" one by one.
            if (isContainerNotFound(err)) {
              throw new Error(`container ${c.name} was deleted while the export read its blobs; nothing was written: export again`, { cause: err });
            }
            gone.add(b.name);
          }
          progress.step(`Exporting blob ${c.name}/${b.name}`);
        });
        // A listed name with a character reference may be one the listing could not carry, not a
        // deleted blob: the result names it.
        const unread = [...gone].filter((name) => LISTED_REFERENCE.test(name)).sort().map((name) => `${c.name}/${name}`);
        if (unread.length > 0) (counts.unreadBlobs ??= []).push(...unread);
        const written = blobs.filter((b) => !gone.has(b.name));
        await writeLines(path.join(dir, `${c.name}.blobs.jsonl`), blobEntryLines(c.name, written.map((b) => ({ ...b, file: files.get(b.name)! }))));
        const containerJson = printContainerEntry(withoutUndefined({ metadata: c.metadata, publicAccess: c.properties.publicAccess }));
        if (containerJson !== undefined) await fsp.writeFile(path.join(dir, `${c.name}.container.json`), containerJson);
        counts.containers++;
        counts.blobs += written.length;
        counts.bytes += sizes.reduce((a, size, i) => a + (gone.has(blobs[i]!.name) ? 0 : size), 0);
      }
    }
    if (clients.queue) {
      const dir = path.join(staging, 'queue');
      await fsp.mkdir(dir);
      for await (const q of clients.queue.listQueues({ includeMetadata: true, abortSignal: options.signal })) {
        if (only && !only.queues.includes(q.name)) continue;
        const queue = clients.queue.getQueueClient(q.name);
        // Each message received: its id → its newest pop receipt (what makes it visible again).
        const held = new Map<string, string>();
        // Each message read, in order; those gone by the time they are shown again are left out.
        const read: Array<{ id: string; text: string }> = [];
        // The ids in `read`: a message stays read when the export no longer holds it.
        const seen = new Set<string>();
        const gone = new Set<string>();
        let notVisible: unknown;
        // Progress counts messages: the queue's approximate count up front, more if more come.
        // Deleted since the queues were listed: left out, as a deleted message is.
        const properties = await queue.getProperties({ abortSignal: options.signal }).catch((err: unknown) => { if (isNotFound(err)) return undefined; throw err; });
        if (properties === undefined) continue;
        let counted = properties.approximateMessagesCount ?? 0;
        progress.addTotal(counted);
        const visibility = options.queueVisibilitySeconds ?? EXPORT_VISIBILITY_S;
        let hiddenSince = Date.now(); // when the oldest hiding that has not been renewed began
        try {
          // The signal is checked between requests, never handed to one that hides messages: a
          // request cut off after the engine handled it would leave messages hidden that `held`
          // does not know (or with a pop receipt it does not have).
          for (;;) {
            options.signal?.throwIfAborted();
            // Before half the hiding has run out, hide again what is held: a queue that takes longer
            // to read than the hiding lasts is not read twice over (and read for ever).
            if (held.size > 0 && Date.now() - hiddenSince >= (visibility * 1000) / 2) {
              hiddenSince = Date.now();
              await pool([...held], {}, async ([id, popReceipt]) => {
                try {
                  held.set(id, (await queue.updateMessage(id, popReceipt, undefined, visibility)).popReceipt!);
                } catch (err) {
                  // Received by a consumer after all (another pop receipt): no longer the export's to
                  // show again, and still read once. 404: gone (its time-to-live ran out, or a client
                  // deleted it), and left out as at the end.
                  held.delete(id);
                  if (isNotFound(err)) gone.add(id);
                }
              });
              options.signal?.throwIfAborted();
            }
            // Peeked first: a message Azurite cannot write fails a receive only after it hid the
            // messages, and the SDK's retry then reads the queue as empty (./queueText.ts).
            await queue.peekMessages({ numberOfMessages: 32 }).catch((err: unknown) => {
              if (isNotFound(err)) throw new Error(`queue ${q.name} was deleted while the export read its messages; nothing was written: export again`, { cause: err });
              throw unreadableQueueError(q.name, err) ?? err;
            });
            const got = await queue.receiveMessages({ numberOfMessages: 32, visibilityTimeout: visibility });
            if (got.receivedMessageItems.length === 0) break;
            let fresh = 0;
            for (const m of got.receivedMessageItems) {
              // Seen before (its hiding ran out all the same, say while the machine slept, or a
              // consumer that received it meanwhile let it go): not a new message.
              if (!seen.has(m.messageId)) {
                seen.add(m.messageId);
                read.push({ id: m.messageId, text: messageTextOf(m.messageText) });
                fresh++;
              }
              // There after all (a service that answers a pop receipt gone stale with 404).
              gone.delete(m.messageId);
              held.set(m.messageId, m.popReceipt);
            }
            if (read.length > counted) {
              progress.addTotal(read.length - counted);
              counted = read.length;
            }
            progress.step(`Exporting queue ${q.name}: ${read.length} messages`, fresh);
          }
        } finally {
          // Visible again, whatever happened: an export never hides a queue's messages. Without a
          // text, Update Message keeps the message's own: no new copy of it in the extent store.
          // Every message is tried; the first failure is thrown after (unless the reading failed).
          await pool([...held], {}, async ([id, popReceipt]) => {
            await queue.updateMessage(id, popReceipt, undefined, 0).catch((err: unknown) => {
              // 404: the message is gone (its time-to-live ran out, or a client deleted it): not exported.
              if (isNotFound(err)) gone.add(id);
              else notVisible ??= err;
            });
          });
        }
        if (notVisible !== undefined) throw notVisible;
        const texts = read.filter((m) => !gone.has(m.id)).map((m) => m.text);
        await writeLines(path.join(dir, `${q.name}.jsonl`), messageLines(texts.map((text) => ({ text }))));
        const meta = printQueueEntry(withoutUndefined({ metadata: q.metadata }));
        if (meta !== undefined) await fsp.writeFile(path.join(dir, `${q.name}.queue.json`), meta);
        counts.queues++;
        counts.messages += texts.length;
      }
    }
    if (clients.table) {
      const dir = path.join(staging, 'table');
      await fsp.mkdir(dir);
      for await (const t of clients.table.listTables({ abortSignal: options.signal })) {
        if (t.name === undefined || (only && !only.tables.includes(t.name))) continue;
        const table = clients.tableClient(t.name)!;
        const entities: EntityEntry[] = [];
        // Progress counts entities as they come (a table has no count to ask for).
        try {
          for await (const e of table.listEntities<Record<string, unknown>>({ disableTypeConversion: true, abortSignal: options.signal })) {
            entities.push(entityFromSdk(t.name, e));
            if (entities.length % 1000 === 0) {
              progress.addTotal(1000);
              progress.step(`Exporting table ${t.name}: ${entities.length} entities`, 1000);
            }
          }
        } catch (err) {
          // Deleted since the tables were listed: left out. Deleted while its entities were read: named.
          if (isNotFound(err) && entities.length === 0) continue;
          if (isNotFound(err)) throw new Error(`table ${t.name} was deleted while the export read its entities; nothing was written: export again`, { cause: err });
          throw err;
        }
        progress.addTotal(entities.length % 1000);
        progress.step(`Exporting table ${t.name}: ${entities.length} entities`, entities.length % 1000);
        await writeLines(path.join(dir, `${t.name}.jsonl`), entityLines(entities));
        counts.tables++;
        counts.entities += entities.length;
      }
    }
    // A cancel during the last steps (writing the files, making messages visible again) is seen
    // here: the folder stays as it was.
    options.signal?.throwIfAborted();
    // Git's files in the service folders being replaced (a .gitkeep) stay, as other files in `folder` do.
    for (const k of kinds) {
      for (const name of GIT_FILES) await fsp.copyFile(path.join(folder, k, name), path.join(staging, k, name)).catch(() => undefined);
    }
    await swapIn(folder, staging, kinds);
    return counts;
  } catch (err) {
    // A folder that could not be put back is still in the staging folder: keep it.
    if (err instanceof SwapRollbackError) {
      kept = true;
      await keepStaging(staging);
    }
    throw err;
  } finally {
    // A staging folder that cannot be removed (a file held open by a virus scan or an indexer) must
    // not turn a finished Export into a failed one; an Export after this process has ended removes it
    // as abandoned (removeAbandonedStaging).
    if (!kept) await fsp.rm(staging, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

/**
 * A failed {@link swapIn} that could not put every folder back: the message says, for each, where
 * the previous export's folder is and which folder holds the new export.
 */
export class SwapRollbackError extends Error {}

/**
 * Moves each of `kinds`' folders from `staging` into `folder`, the one it replaces first moved aside
 * into `staging` (as `<kind>.old`). All or nothing: when a move fails (on Windows a rename fails
 * while another program has a file in the folder open), the folders already moved go back where
 * they were, so `folder` holds the previous export of every service, not a mix of two exports.
 * @param rename the move (tests pass one that fails)
 * @throws the move's error after the rollback; a {@link SwapRollbackError} when the rollback itself
 *   fails, and then `staging` must be kept (see {@link keepStaging})
 */
export async function swapIn(folder: string, staging: string, kinds: readonly ServiceKind[],
  rename: (from: string, to: string) => Promise<void> = fsp.rename): Promise<void> {
  // Each move done, to undo in reverse: `aside` moved the previous export's folder out of the way,
  // `in` moved the new one into place.
  const steps: Array<{ step: 'aside' | 'in'; from: string; to: string }> = [];
  try {
    for (const kind of kinds) {
      const target = path.join(folder, kind);
      if (fs.existsSync(target)) {
        const old = path.join(staging, `${kind}.old`);
        await rename(target, old);
        steps.push({ step: 'aside', from: target, to: old });
      }
      await rename(path.join(staging, kind), target);
      steps.push({ step: 'in', from: path.join(staging, kind), to: target });
    }
  } catch (err) {
    const left: string[] = [];
    for (const { step, from, to } of steps.reverse()) {
      await rename(to, from).catch(() => {
        left.push(step === 'in' ? `${to} holds the new export` : `the previous ${path.basename(from)}/ is ${to}`);
      });
    }
    if (left.length > 0) {
      throw new SwapRollbackError(`${messageOf(err)}; the previous export could not be put back in full (${left.join('; ')}): move the folders by hand`);
    }
    throw err;
  }
}

/**
 * Marks a staging folder that holds a previous export's folder after a failed {@link swapIn}, so
 * that no later export removes it as abandoned. Best effort: the error names the folder anyway.
 */
async function keepStaging(staging: string): Promise<void> {
  await fsp.writeFile(path.join(staging, STAGING_KEPT), 'An export could not put the previous export back in full; its folders are here (*.old). Move them back by hand, then delete this folder.\n').catch(() => undefined);
}

/** An export writes into `<folder>/.export-XXXXXX` first, then moves each service's folder out of it. */
const STAGING_PREFIX = '.export-';
/** In the staging folder: the process that writes it (`{ pid, host }`), so a later export can tell it was abandoned. */
const STAGING_OWNER = 'owner.json';
/** In a staging folder that {@link keepStaging} kept: never removed as abandoned. */
const STAGING_KEPT = '.kept';
/** A staging folder without a readable owner is taken as abandoned once this old (ms). */
const STAGING_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Removes the staging folders in `folder` that exports left behind when their process ended under
 * them (a window reload or a crash mid-export), which would otherwise stay in a folder that is often
 * a repository: one whose owner ran on this machine and is gone, or, without an owner file, one
 * older than a day. Those of live exports, and of other machines (a shared folder), stay.
 */
async function removeAbandonedStaging(folder: string): Promise<void> {
  const entries = await fsp.readdir(folder, { withFileTypes: true }).catch(() => []);
  for (const d of entries) {
    if (!d.isDirectory() || !/^\.export-[A-Za-z0-9]{6}$/.test(d.name)) continue;
    const dir = path.join(folder, d.name);
    if (fs.existsSync(path.join(dir, STAGING_KEPT))) continue;
    const owner = await fsp.readFile(path.join(dir, STAGING_OWNER), 'utf8').then((t) => JSON.parse(t) as { pid?: unknown; host?: unknown }, () => undefined);
    const abandoned = owner !== undefined && typeof owner.pid === 'number'
      ? owner.host === os.hostname() && !processAlive(owner.pid)
      : Date.now() - ((await fsp.stat(dir).catch(() => undefined))?.mtimeMs ?? Date.now()) > STAGING_MAX_AGE_MS;
    if (abandoned) await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** True when a process of this id runs on this machine (signal 0 only checks; EPERM: it runs as another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * An SDK entity read with `disableTypeConversion` as a snapshot entity (Timestamp and ETag left out).
 * @throws Error naming the table when the entity has a property of its own named `partitionKey` or
 *   `rowKey`: the SDK writes it over the entity's key (`deserialize` in @azure/data-tables), so
 *   the key read is not the entity's; Error naming the property when its name begins with `odata.`
 *   or ends with `@odata.type` (Azurite stores it; the snapshot reader refuses it); Error naming the table, the entity's keys and the property
 *   when a value does not fit its type as the snapshot reader checks it ({@link typedValueProblem}:
 *   an Edm.Binary that is no base64, say, which the service stores unchecked)
 */
function entityFromSdk(table: string, e: Record<string, unknown>): EntityEntry {
  if (typeof e.partitionKey !== 'string' || typeof e.rowKey !== 'string') {
    throw new Error(`table ${table} has an entity with a property of its own named "partitionKey" or "rowKey", which the Azure SDK for JavaScript reads as the entity's PartitionKey or RowKey, so it cannot be exported. Rename that property with another client, then try again`);
  }
  const properties: Record<string, TypedValue> = {};
  for (const [name, raw] of Object.entries(e)) {
    if (name === 'partitionKey' || name === 'rowKey' || name === 'etag' || name === 'timestamp' || name === 'odata.metadata') continue;
    // Azurite stores a property of any such name; the snapshot reader takes `odata.` names for the service's own.
    if (name.startsWith('odata.') || name.endsWith('@odata.type')) {
      throw new Error(`table ${table}, entity PartitionKey "${String(e.partitionKey)}", RowKey "${String(e.rowKey)}": property "${name}" has a name the OData format keeps for itself (it begins with "odata." or ends with "@odata.type"), so a snapshot with it would not load. Rename that property with another client, then try again`);
    }
    if (typeof raw === 'object' && raw !== null && 'type' in raw && 'value' in raw) {
      const { value, type } = raw as { value: unknown; type: TypedValue['type'] };
      // The SDK calls any unannotated whole number Int32, also one outside Int32's range (a client
      // sent `Date.now()` without an annotation, and azurite took it). Printed as Int32 it would
      // not load again; an Edm.Double holds it exactly (up to 2^53).
      const outsideInt32 = type === 'Int32' && !(Number(value) >= INT32.min && Number(value) <= INT32.max);
      const typed: TypedValue = { value: String(value), type: outsideInt32 ? 'Double' : type };
      const problem = typedValueProblem(typed);
      if (problem !== undefined) {
        const shown = typed.value.length > 60 ? `${JSON.stringify(typed.value.slice(0, 60))}…` : JSON.stringify(typed.value);
        throw new Error(`table ${table}, entity PartitionKey "${String(e.partitionKey)}", RowKey "${String(e.rowKey)}": property "${name}" holds ${shown} as Edm.${typed.type}, but ${problem}, so a snapshot with it would not load. Correct that property with another client, then try again`);
      }
      properties[name] = typed;
    }
  }
  return { partitionKey: String(e.partitionKey), rowKey: String(e.rowKey), properties };
}

/**
 * Characters Azurite's table transaction parser cannot take: it finds each operation's JSON with a
 * regular expression whose `.` stops at a line separator (U+2028) or paragraph separator (U+2029),
 * which JSON leaves unescaped, and answers the whole transaction 500 "Transaction Failed"
 * (docs/ENGINE.md, "Table transactions"). Our engine's seam fixes that, but an attached Azurite (a
 * Docker container, the CLI) has no seam. A single Insert Entity takes them everywhere.
 */
const BATCH_UNSAFE = /[\u2028\u2029]/;

/**
 * Entities grouped into table transactions: one partition each (a transaction's rule), at most
 * 100 entities and about 3 MiB of JSON each, in the entities' order within a partition (the order
 * does not matter to the table, which sorts by key).
 * @returns the batches; an entity larger than the byte bound goes alone, and so does one that
 *   holds U+2028 or U+2029 anywhere (keys, names, values), which a transaction would refuse: such
 *   a batch of one comes where the entity does, before the rest of its partition's open batch
 */
export function transactionBatches(entities: readonly EntityEntry[]): EntityEntry[][] {
  const batches: EntityEntry[][] = [];
  const open = new Map<string, { batch: EntityEntry[]; bytes: number }>();
  for (const e of entities) {
    const printed = printEntity(e);
    if (BATCH_UNSAFE.test(printed)) {
      batches.push([e]);
      continue;
    }
    const bytes = Buffer.byteLength(printed) + BATCH_PART_BYTES;
    let current = open.get(e.partitionKey);
    if (current === undefined || current.batch.length === BATCH_ENTITIES || current.bytes + bytes > BATCH_BYTES) {
      current = { batch: [], bytes: 0 };
      batches.push(current.batch);
      open.set(e.partitionKey, current);
    }
    current.batch.push(e);
    current.bytes += bytes;
  }
  return batches;
}

/** A snapshot entity as the data-tables SDK sends it: bare JS values where JSON keeps the type, `{ value, type }` else. */
function entityToSdk(e: EntityEntry): TableEntity<Record<string, unknown>> {
  const out: Record<string, unknown> = { partitionKey: e.partitionKey, rowKey: e.rowKey };
  for (const [name, { value, type }] of Object.entries(e.properties)) {
    switch (type) {
      case 'String': out[name] = value; break;
      case 'Boolean': out[name] = value === 'true'; break;
      case 'Int32': out[name] = Number(value); break;
      default: out[name] = { value, type };
    }
  }
  return out as TableEntity<Record<string, unknown>>;
}

// ---------------------------------------------------------------------------------------------
// Import, reset

/**
 * What an import would replace: the snapshot's containers, queues and tables that already exist,
 * named as the account names them. Table names are case-insensitive (`Customers` replaces
 * `customers`), so a table is named as it exists: the import's backup must find it by that name.
 */
export async function importConflicts(clients: StorageClients, snapshot: Snapshot, signal?: AbortSignal): Promise<AccountNames> {
  const have = await accountNames(clients, signal);
  const snapshotTables = new Set(snapshot.tables.map((t) => t.name.toLowerCase()));
  return {
    containers: snapshot.containers.map((c) => c.name).filter((n) => clients.blob && have.containers.includes(n)),
    queues: snapshot.queues.map((q) => q.name).filter((n) => clients.queue && have.queues.includes(n)),
    tables: have.tables.filter((h) => clients.table && snapshotTables.has(h.toLowerCase())),
  };
}

/**
 * Loads a snapshot into the account: each container, queue and table of the snapshot replaces the
 * one of that name (deleted, then made again from the snapshot); everything else stays. Services
 * without an endpoint are skipped. Nothing half-imported: the items to be replaced are exported to
 * `scratch` first, and on any failure (a refused write at the
 * memory limit, a cancel) what the import made is deleted and what was replaced is loaded back.
 * @param scratch a folder to hold that backup in (a temp folder); the backup is removed afterwards,
 *   unless restoring it failed (the error then names it)
 * @returns the counts loaded
 * @throws Error naming the item that failed and the SDK's message, after the rollback (which is
 *   said in the message; a rollback that failed too is said as well); an AbortError for a cancel:
 *   the signal's own before anything changed, or, once it had changed data and its rollback put
 *   it back, an Error named `AbortError` with `undone: true`; Error "Import stopped before it changed anything: …" when the
 *   copy of what it replaces cannot be made (an entity the export refuses, say), or when it would
 *   replace an item not in `options.confirmed`
 */
export async function importSnapshot(clients: StorageClients, snapshot: Snapshot, scratch: string, options: ImportOptions = {}): Promise<DataCounts> {
  const conflicts = await importConflicts(clients, snapshot, options.signal);
  const confirmed = options.confirmed;
  if (confirmed !== undefined) {
    // Made by a client since the user was asked (an app's CreateIfNotExists): not the user's to lose unasked.
    const unasked = [
      ...conflicts.containers.filter((n) => !confirmed.containers.includes(n)).map((n) => `container ${n}`),
      ...conflicts.queues.filter((n) => !confirmed.queues.includes(n)).map((n) => `queue ${n}`),
      ...conflicts.tables.filter((n) => !confirmed.tables.some((c) => c.toLowerCase() === n.toLowerCase())).map((n) => `table ${n}`),
    ];
    if (unasked.length > 0) throw new Error(`Import stopped before it changed anything: ${unasked.join(', ')} ${unasked.length === 1 ? 'was' : 'were'} made since you confirmed what it replaces; import again to be asked about ${unasked.length === 1 ? 'it' : 'them'}`);
  }
  const backupDir = await fsp.mkdtemp(path.join(scratch, 'azurite-import-backup-'));
  try {
    const hasBackup = conflicts.containers.length + conflicts.queues.length + conflicts.tables.length > 0;
    // Its counts are not the import's: the backup reports as a message alone (done and total 0).
    const backupProgress = options.progress === undefined ? undefined
      : (p: DataProgress): void => options.progress?.({ done: 0, total: 0, message: `Keeping a copy of what the import replaces: ${p.done.toLocaleString('en-US')} / ${p.total.toLocaleString('en-US')} items` });
    if (hasBackup) {
      try {
        await exportSnapshot(clients, backupDir, { only: conflicts, signal: options.signal, ...(backupProgress ? { progress: backupProgress } : {}) });
      } catch (err) {
        if (err instanceof Error && err.name === 'AbortError') throw err;
        // Without the copy a failure could not be undone: nothing is replaced.
        throw new Error(`Import stopped before it changed anything: the copy of what it replaces could not be made: ${messageOf(err)}`, { cause: err });
      }
    }
    // A cancel during the backup's last steps (which finish whatever the signal says) ends the
    // import here, before anything has changed.
    options.signal?.throwIfAborted();
    await options.changing?.(backupDir);
    const made: AccountNames = { containers: [], queues: [], tables: [] };
    try {
      await deleteNames(clients, conflicts, options.signal);
      if (hasBackup) await options.reclaim?.();
      return await loadSnapshot(clients, snapshot, options, made);
    } catch (err) {
      let undone = 'the data found before was restored';
      // The rollback can take as long as the import: say it, with no count (a cancel is over).
      options.progress?.({ done: 0, total: 0, phase: true, message: hasBackup ? 'Import stopped: restoring the data it replaced…' : 'Import stopped: deleting what it loaded…' });
      try {
        // What it made, and what it was to replace: a cancel or a failed delete can leave some of
        // those as they were, and the backup would not load over them. One that cannot be deleted
        // is left as it is, and the rest of the copy is still loaded back.
        const left = await deleteNames(clients, namesOfBoth(made, conflicts)).then(() => undefined, (e: unknown) => {
          if (e instanceof DeleteError) return e;
          throw e;
        });
        await options.reclaim?.();
        if (hasBackup) await loadSnapshot(clients, without(await readSnapshot(backupDir), left?.left ?? { containers: [], queues: [], tables: [] }), {});
        if (left !== undefined) throw left;
      } catch (rollbackErr) {
        undone = `restoring the data found before failed too (${messageOf(rollbackErr)}); a copy of it is in ${backupDir}`;
        await fsp.writeFile(path.join(backupDir, '.kept'), '').catch(() => undefined);
        throw new Error(`Import stopped: ${messageOf(err)}; ${undone}.`, { cause: rollbackErr });
      }
      // A cancel, undone: the account is as it was, and the caller sees a cancel, not a failure,
      // marked so that it can say the data was put back.
      if (err instanceof Error && err.name === 'AbortError') throw Object.assign(new Error('The import was cancelled; what it had changed was put back.', { cause: err }), { name: 'AbortError', undone: true });
      throw new Error(`Import stopped: ${messageOf(err)}; ${undone}.`, { cause: err });
    }
  } finally {
    // Nor a copy that cannot be removed a finished (or failed) Import into another outcome: it is in the
    // Import's scratch folder, which is removed with the operation or later.
    if (fs.existsSync(backupDir) && !(await isKept(backupDir))) await fsp.rm(backupDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

/** The names in `a` or `b`, each once. */
function namesOfBoth(a: AccountNames, b: AccountNames): AccountNames {
  const both = (x: string[], y: string[]): string[] => [...new Set([...x, ...y])];
  return { containers: both(a.containers, b.containers), queues: both(a.queues, b.queues), tables: both(a.tables, b.tables) };
}

/** A backup folder is kept only when a failed rollback's message points at it (marked by a file). */
async function isKept(dir: string): Promise<boolean> {
  return fs.existsSync(path.join(dir, '.kept'));
}

/**
 * Empties the account's services that have an endpoint (every container, queue and table is
 * deleted) and loads `seed` into them, if given. Ports and connections stay: nothing restarts.
 * Never a mix of old data and part of the seed: the emptying runs to its end whatever the signal
 * says (it was confirmed, and takes one request per item), and a seed that stops loading (a
 * cancel, a refused write) is deleted again, so the services are left empty. Containers that apps
 * hold leases on have their leases broken (see deleteNames).
 * @returns the counts of the seed loaded (zeros without a seed)
 * @throws Error "could not delete container a (…), …; everything else was deleted[, and the seed
 *   was not loaded]" when emptying left items; RestError from listing; AbortError on a cancel (the services are then empty);
 *   Error "Loading the seed stopped: …; the services were left empty." when the seed failed
 */
export async function resetAccount(clients: StorageClients, seed: Snapshot | undefined, options: DataOptions = {}): Promise<DataCounts> {
  try {
    await emptyAccount(clients, options);
  } catch (err) {
    if (!(err instanceof DeleteError)) throw err;
    // Say what the failure left as it is: everything else is gone, and the seed did not go in.
    throw new Error(`${err.message}; everything else was deleted${seed !== undefined ? ', and the seed was not loaded' : ''}`, { cause: err });
  }
  if (seed === undefined) return { containers: 0, blobs: 0, bytes: 0, queues: 0, messages: 0, tables: 0, entities: 0 };
  try {
    return await loadSnapshot(clients, seed, options);
  } catch (err) {
    try {
      await emptyAccount(clients, options);
    } catch (emptyErr) {
      throw new Error(`Loading the seed stopped: ${messageOf(err)}; deleting what it had loaded failed too (${messageOf(emptyErr)}).`, { cause: emptyErr });
    }
    if (err instanceof Error && err.name === 'AbortError') throw err;
    throw new Error(`Loading the seed stopped: ${messageOf(err)}; the services were left empty.`, { cause: err });
  }
}

/**
 * Loads a seed into services that held nothing a moment ago (a start): unlike {@link resetAccount}
 * nothing is deleted first, so what a client made since the port opened stays. A seed that stops
 * loading half-way has the containers, queues and tables it created deleted again (not one a
 * client made first under the same name, which fails the seed), so a disk-mode service does not
 * keep part of it for good (it would count as not empty at every later start).
 * @returns the counts loaded
 * @throws Error "Loading the seed stopped: …; what it had loaded was deleted again." (or that the
 *   delete failed too); AbortError on a cancel, once the seed's items are deleted
 */
export async function loadSeed(clients: StorageClients, seed: Snapshot, options: DataOptions = {}): Promise<DataCounts> {
  const made: AccountNames = { containers: [], queues: [], tables: [] };
  try {
    return await loadSnapshot(clients, seed, options, made);
  } catch (err) {
    try {
      await deleteNames(clients, made);
      await options.reclaim?.();
    } catch (deleteErr) {
      throw new Error(`Loading the seed stopped: ${messageOf(err)}; deleting what it had loaded failed too (${messageOf(deleteErr)}).`, { cause: deleteErr });
    }
    if (err instanceof Error && err.name === 'AbortError') throw err;
    throw new Error(`Loading the seed stopped: ${messageOf(err)}; what it had loaded was deleted again.`, { cause: err });
  }
}


/** Deletes every container, queue and table of the account, not cancellable, and frees their memory. */
async function emptyAccount(clients: StorageClients, options: DataOptions): Promise<void> {
  await deleteNames(clients, await accountNames(clients));
  await options.reclaim?.();
}

/**
 * Deletes the named containers, queues and tables (missing ones are fine). A container that an
 * app holds a lease on has the lease broken first (the delete was confirmed: Reset, an import's
 * replacement). One that cannot be deleted does not stop the others.
 * @throws Error naming each item that could not be deleted and why; AbortError on a cancel
 */
async function deleteNames(clients: StorageClients, names: AccountNames, signal?: AbortSignal): Promise<void> {
  const failed: string[] = [];
  const left: AccountNames = { containers: [], queues: [], tables: [] };
  const attempt = async (what: string, list: string[], name: string, remove: (() => Promise<unknown>) | undefined): Promise<void> => {
    try {
      await remove?.();
    } catch (err) {
      if (signal?.aborted) throw err;
      failed.push(`${what} ${name} (${messageOf(err)})`);
      list.push(name);
    }
  };
  const { blob, queue, table } = clients;
  await pool(names.containers, { signal }, (n) => attempt('container', left.containers, n, blob && (() => deleteContainer(blob.getContainerClient(n), signal))));
  await pool(names.queues, { signal }, (n) => attempt('queue', left.queues, n, queue && (() => queue.getQueueClient(n).deleteIfExists({ abortSignal: signal }))));
  await pool(names.tables, { signal }, (n) => attempt('table', left.tables, n, table && (() => table.deleteTable(n, { abortSignal: signal }))));
  if (failed.length > 0) throw new DeleteError(`could not delete ${failed.join(', ')}`, left);
}

/** {@link deleteNames}' error: the names it could not delete as well as why. */
class DeleteError extends Error {
  constructor(message: string, readonly left: AccountNames) {
    super(message);
  }
}

/** `snapshot` without the containers, queues and tables named in `names`. */
function without(snapshot: Snapshot, names: AccountNames): Snapshot {
  return {
    folder: snapshot.folder,
    containers: snapshot.containers.filter((c) => !names.containers.includes(c.name)),
    queues: snapshot.queues.filter((q) => !names.queues.includes(q.name)),
    tables: snapshot.tables.filter((t) => !names.tables.some((n) => n.toLowerCase() === t.name.toLowerCase())),
  };
}

/**
 * Deletes a container, missing or not; when the delete is refused for a lease held on it (HTTP 412,
 * LeaseIdMissing: Azure and Azurite refuse to delete a leased container without its lease id), the
 * lease is broken at once and the delete tried again. Leases on its blobs do not stop the delete.
 */
async function deleteContainer(container: ContainerClient, signal: AbortSignal | undefined): Promise<void> {
  try {
    await container.deleteIfExists({ abortSignal: signal });
  } catch (err) {
    if ((err as { statusCode?: unknown }).statusCode !== 412) throw err;
    await container.getBlobLeaseClient().breakLease(0, { abortSignal: signal });
    await container.deleteIfExists({ abortSignal: signal });
  }
}

/**
 * Makes the snapshot's items in the services that have an endpoint; they must not exist yet (a
 * seed into an empty service): a container, queue or table that exists stops the load, left as it
 * is. `made`, when given, collects the containers, queues and tables this call created (not those
 * that were there already), for a rollback that deletes only them. Blobs go 16 at a time, entities
 * in transactions of one partition ({@link transactionBatches}), messages one by one in file order.
 * @returns the counts loaded
 * @throws Error naming the item and the SDK's message (the RestError as `cause`, its `statusCode`
 *   kept: 409 when an item exists); AbortError on a cancel
 */
export async function loadSnapshot(clients: StorageClients, snapshot: Snapshot, options: DataOptions, made?: AccountNames): Promise<DataCounts> {
  const counts = snapshotCounts(snapshot);
  const total = (clients.blob ? counts.blobs : 0) + (clients.queue ? counts.messages : 0) + (clients.table ? counts.entities : 0);
  const progress = tracker(options, total);
  const signal = options.signal;
  if (clients.blob) {
    const blob = clients.blob;
    for (const c of snapshot.containers) {
      const container = blob.getContainerClient(c.name);
      await inFlight(made?.containers, c.name, () => naming(`container ${c.name}`, () => container.create({ metadata: c.entry.metadata ? { ...c.entry.metadata } : undefined, access: c.entry.publicAccess, abortSignal: signal })));
      made?.containers.push(c.name); // an existing container fails the create (409)
      await pool(c.blobs, options, async (b) => {
        await naming(`blob ${c.name}/${b.entry.name}`, () => uploadBlob(container, b, signal));
        progress.step(`Importing blob ${c.name}/${b.entry.name}`);
      });
    }
  }
  if (clients.queue) {
    for (const q of snapshot.queues) {
      const queue = clients.queue.getQueueClient(q.name);
      const created = await inFlight(made?.queues, q.name, () => naming(`queue ${q.name}`, () => queue.create({ metadata: q.entry.metadata ? { ...q.entry.metadata } : undefined, abortSignal: signal })));
      // 204: the queue was there already with the same metadata (Azure's Create Queue does not fail
      // then). Its messages are not ours to add to, as for a container that exists (409).
      if (created._response.status === 201) made?.queues.push(q.name);
      else throw exists(`queue ${q.name}`);
      // One at a time: a queue keeps the order messages were sent in.
      for (const [i, m] of q.messages.entries()) {
        await naming(`queue ${q.name}, message ${i + 1} of queue/${q.name}.jsonl`, () => queue.sendMessage(m.text, { messageTimeToLive: -1, abortSignal: signal }));
        progress.step(`Importing queue ${q.name}`);
      }
    }
  }
  if (clients.table) {
    for (const t of snapshot.tables) {
      // The SDK's createTable does not fail for a table that exists (409): only a 201 or 204 made it.
      let status = 0;
      const tables = clients.table;
      await inFlight(made?.tables, t.name, () => naming(`table ${t.name}`, () => tables.createTable(t.name, { abortSignal: signal, onResponse: (r) => { status = r.status; } })));
      if (status === 201 || status === 204) made?.tables.push(t.name);
      else throw exists(`table ${t.name}`);
      const table = clients.tableClient(t.name)!;
      await pool(transactionBatches(t.entities), { ...options, concurrency: 4 }, async (batch) => {
        const first = batch[0]!;
        const what = batch.length === 1 ? `table ${t.name}, entity PartitionKey "${first.partitionKey}", RowKey "${first.rowKey}"`
          : `table ${t.name}, the ${batch.length} entities of PartitionKey "${first.partitionKey}" from RowKey "${first.rowKey}"`;
        await naming(what, async () => {
          if (batch.length === 1) {
            await table.createEntity(entityToSdk(first), { abortSignal: signal });
          } else {
            const actions: TableTransaction['actions'] = batch.map((e) => ['create', entityToSdk(e)]);
            await table.submitTransaction(actions, { abortSignal: signal });
          }
        });
        progress.step(`Importing table ${t.name}`, batch.length);
      });
    }
  }
  return {
    ...counts,
    ...(clients.blob ? {} : { containers: 0, blobs: 0, bytes: 0 }),
    ...(clients.queue ? {} : { queues: 0, messages: 0 }),
    ...(clients.table ? {} : { tables: 0, entities: 0 }),
  };
}

type ContainerClient = ReturnType<NonNullable<StorageClients['blob']>['getContainerClient']>;

/** The error of a queue or table that exists already, as a container's create gives it (409). */
function exists(what: string): Error {
  return Object.assign(new Error(`${what}: it exists already (made by a client meanwhile), and is left as it is`), { statusCode: 409 });
}

/**
 * The error of a blob the export could not read, naming it (the SDK's error as `cause`, its
 * `statusCode` kept); a cancel's AbortError as it is. A blob in the Archive tier cannot be read
 * (BlobArchived, 409, as in Azure), and a snapshot does not keep access tiers (docs/SNAPSHOT.md):
 * the error says how to make it readable. Azurite moves a blob out of Archive at once (Set Blob
 * Tier answers 202 but does not wait, unlike Azure's rehydration: `LokiBlobMetadataStore.setTier`).
 */
function blobReadError(container: string, name: string, err: unknown): unknown {
  if ((err as Error).name === 'AbortError') return err;
  const e = err as { statusCode?: unknown; code?: unknown; details?: { errorCode?: unknown } };
  const archived = e.code === 'BlobArchived' || e.details?.errorCode === 'BlobArchived';
  const message = archived
    ? `blob ${container}/${name} is in the Archive tier, whose content cannot be read: set its tier to Hot or Cool with a client (Azurite does so at once), then try again`
    : `blob ${container}/${name}: ${messageOf(err)}`;
  return Object.assign(new Error(message, { cause: err }), e.statusCode !== undefined ? { statusCode: e.statusCode } : {});
}

/**
 * Runs one request of a load. Its error names the item it was for (`blob photos/cat.png: The
 * specified blob already exists.`, the SDK's error as `cause`, its `statusCode` kept); a cancel's
 * AbortError goes through as it is.
 */
async function naming<T>(what: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    const statusCode = (err as { statusCode?: unknown }).statusCode;
    throw Object.assign(new Error(`${what}: ${messageOf(err)}`, { cause: err }), statusCode !== undefined ? { statusCode } : {});
  }
}

/**
 * Runs the create of a container, queue or table. When a cancel ends it while the request is on
 * its way, the service may have made the item all the same: it is noted in `made` then, so that a
 * rollback deletes it too (a delete of one that is not there does no harm).
 */
async function inFlight<T>(made: string[] | undefined, name: string, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (err) {
    if ((err as Error).name === 'AbortError') made?.push(name);
    throw err;
  }
}

/** Uploads one blob of a snapshot with its type, properties and metadata. */
async function uploadBlob(container: ContainerClient, b: SnapshotBlob, signal?: AbortSignal): Promise<void> {
  const e = b.entry;
  const headers = withoutUndefined({
    blobContentType: e.contentType,
    blobContentEncoding: e.contentEncoding,
    blobContentLanguage: e.contentLanguage,
    blobContentDisposition: e.contentDisposition,
    blobCacheControl: e.cacheControl,
  });
  const metadata = e.metadata ? { ...e.metadata } : undefined;
  const type = e.type ?? 'BlockBlob';
  if (type === 'BlockBlob') {
    const client = container.getBlockBlobClient(e.name);
    if (b.size === 0) await client.upload(Buffer.alloc(0), 0, { blobHTTPHeaders: headers, metadata, abortSignal: signal });
    else await client.uploadFile(b.file, { blobHTTPHeaders: headers, metadata, abortSignal: signal });
    return;
  }
  // Read a piece at a time: a page blob's file is its whole size, zeros included (a VHD of gigabytes,
  // more than one Buffer holds), and the extension host's memory is shared.
  const handle = await fsp.open(b.file, 'r');
  try {
    const size = (await handle.stat()).size;
    const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, size));
    const pieces = async function* (): AsyncGenerator<{ at: number; piece: Buffer }> {
      for (let at = 0; at < size; at += CHUNK_BYTES) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK_BYTES, size - at), at);
        if (bytesRead === 0) return;
        yield { at, piece: buffer.subarray(0, bytesRead) };
      }
    };
    if (type === 'AppendBlob') {
      const client = container.getAppendBlobClient(e.name);
      await client.create({ blobHTTPHeaders: headers, metadata, abortSignal: signal });
      for await (const { piece } of pieces()) await client.appendBlock(piece, piece.length, { abortSignal: signal });
      return;
    }
    if (size % 512 !== 0) throw new Error(`page blob "${e.name}" (${b.file}) is ${size} bytes: a page blob's size is a multiple of 512`);
    const client = container.getPageBlobClient(e.name);
    await client.create(size, { blobHTTPHeaders: headers, metadata, abortSignal: signal });
    const zeros = Buffer.alloc(buffer.length);
    for await (const { at, piece } of pieces()) {
      // Pages never written read as zeros: only pieces with data are uploaded (compared with memcmp).
      if (!piece.equals(zeros.subarray(0, piece.length))) await client.uploadPages(piece, at, piece.length, { abortSignal: signal });
    }
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
