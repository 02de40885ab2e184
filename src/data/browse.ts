/**
 * What the Storage view reads and changes: listings in pages, a queue's messages by peek, a table's
 * entities, a blob's content, uploads and deletes. Everything goes through the storage REST API
 * with the Azure SDKs (./clients.ts), so the same code browses our engine and an Azurite that runs
 * elsewhere. No vscode here; the view (src/ui/storageView.ts) turns these into tree items.
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { lookup as mimeLookup } from 'mime-types';
import type { TableEntityResult } from '@azure/data-tables';
import type { BlobClient } from '@azure/storage-blob';
import { decodedBase64Text } from '../core/messageText';
import { unreachableBlobName } from '../core/snapshotFormat';
import type { StorageClients } from './clients';
import { unlistableContainerError } from './blobNames';
import { messageTextOf, unreadableQueueError } from './queueText';
import type { DataOptions } from './snapshot';
import { downloadToFile, isContainerNotFound, messageOf, pool, tracker } from './work';

/** Items per page of a listing; a "Load more…" item fetches the next page. */
export const PAGE_SIZE = 200;
/** The most messages one peek returns (the Queue service's limit for `numofmessages`). */
export const PEEK_LIMIT = 32;

/** One page of a listing. `continuation` is absent on the last page. */
export interface Page<T> {
  readonly items: T[];
  readonly continuation?: string | undefined;
}

/** A blob container, queue or table. */
export interface NamedItem {
  readonly name: string;
  /** Last modified (containers), when the service gives it. */
  readonly lastModified?: Date | undefined;
}

/** A blob in a listing. `size` in bytes. */
export interface BlobInfo {
  readonly kind: 'blob';
  /** The full blob name (with its virtual folders). */
  readonly name: string;
  readonly size: number;
  readonly contentType?: string | undefined;
  readonly lastModified?: Date | undefined;
  /** BlockBlob, PageBlob or AppendBlob. */
  readonly blobType?: string | undefined;
}

/** A virtual folder in a listing: the blob names that share `name` (which ends with `/`) as a prefix. */
export interface FolderInfo {
  readonly kind: 'folder';
  readonly name: string;
}

/** A message seen by peek (it stays in the queue, its dequeue count unchanged). */
export interface MessageInfo {
  readonly messageId: string;
  readonly text: string;
  /** What the text says when it is base64 of UTF-8 text (core/messageText.ts), as Azure Functions writes messages. */
  readonly decodedText?: string;
  readonly insertedOn?: Date | undefined;
  readonly expiresOn?: Date | undefined;
  readonly dequeueCount: number;
}

/** A queue's first messages (peeked) and its approximate message count. */
export interface QueuePeek {
  readonly messages: MessageInfo[];
  /** `x-ms-approximate-messages-count` of Get Queue Metadata. */
  readonly approximateCount: number;
}

/** A table entity as the SDK returns it, with `partitionKey`, `rowKey`, `etag` and `timestamp`. */
export type EntityInfo = TableEntityResult<Record<string, unknown>>;

/** A blob's content and properties. */
export interface BlobContent {
  readonly content: Buffer;
  readonly contentType?: string | undefined;
  readonly lastModified?: Date | undefined;
}

/** A blob's properties without its content. `size` in bytes. */
export interface BlobStat {
  readonly size: number;
  readonly lastModified?: Date | undefined;
  readonly createdOn?: Date | undefined;
  readonly contentType?: string | undefined;
  /** Changes on every write (Last-Modified has whole seconds only). */
  readonly etag?: string | undefined;
}

/** What a delete names. `folder` is not deletable: the Blob service has no folders. */
export type ItemRef =
  | { readonly kind: 'container'; readonly name: string }
  | { readonly kind: 'blob'; readonly container: string; readonly name: string }
  | { readonly kind: 'queue'; readonly name: string }
  | { readonly kind: 'message'; readonly queue: string; readonly messageId: string }
  | { readonly kind: 'table'; readonly name: string }
  | { readonly kind: 'entity'; readonly table: string; readonly partitionKey: string; readonly rowKey: string };

function service<T>(client: T | undefined, what: string): T {
  if (client === undefined) throw new Error(`The ${what} service is not running.`);
  return client;
}

/**
 * The SDK client of a blob.
 * @throws Error when the name cannot be reached through the SDK (core/snapshotFormat.ts
 *   unreachableBlobName): a request would read, replace or delete another blob
 */
function blobClient(clients: StorageClients, container: string, name: string): BlobClient {
  const unreachable = unreachableBlobName(name);
  if (unreachable !== undefined) throw new Error(`The ${unreachable}.`);
  return service(clients.blob, 'Blob').getContainerClient(container).getBlobClient(name);
}

/**
 * One page of the account's blob containers, by name.
 * @param continuation the previous page's `continuation`
 * @throws Error when the Blob service has no endpoint; the SDK's RestError on a failed request
 */
export async function listContainers(clients: StorageClients, continuation?: string, pageSize = PAGE_SIZE, signal?: AbortSignal): Promise<Page<NamedItem>> {
  const page = await service(clients.blob, 'Blob').listContainers({ abortSignal: signal }).byPage({ maxPageSize: pageSize, ...(continuation ? { continuationToken: continuation } : {}) }).next();
  if (page.done === true) return { items: [] };
  const items = (page.value.containerItems ?? []).map((c) => ({ name: c.name, lastModified: c.properties.lastModified }));
  return { items, continuation: page.value.continuationToken || undefined };
}

/**
 * One page of a container's blobs and virtual folders directly under `prefix` (folders by `/`, as
 * List Blobs with a delimiter gives them), folders first as the service returns them. Names are
 * true, a carriage return included (the blob client's listing policy, ./blobNames.ts).
 * @param prefix '' for the container's top, else a folder's name ending with `/`
 * @throws the SDK's RestError on a failed request; an Error that names the likely cause when Azurite
 *   could not write the listing (500: a name with a character XML cannot carry; `unlistableContainerError`)
 */
export async function listBlobs(clients: StorageClients, container: string, prefix: string, continuation?: string, pageSize = PAGE_SIZE, signal?: AbortSignal): Promise<Page<BlobInfo | FolderInfo>> {
  const client = service(clients.blob, 'Blob').getContainerClient(container);
  const pages = client.listBlobsByHierarchy('/', { ...(prefix !== '' ? { prefix } : {}), abortSignal: signal }).byPage({ maxPageSize: pageSize, ...(continuation ? { continuationToken: continuation } : {}) });
  let page: Awaited<ReturnType<typeof pages.next>>;
  try {
    page = await pages.next();
  } catch (err) {
    throw unlistableContainerError(container, err) ?? err;
  }
  if (page.done === true) return { items: [] };
  const segment = page.value.segment;
  const folders: FolderInfo[] = (segment.blobPrefixes ?? []).map((p) => ({ kind: 'folder', name: p.name }));
  const blobs: BlobInfo[] = segment.blobItems.map((b) => ({
    kind: 'blob', name: b.name, size: b.properties.contentLength ?? 0, contentType: b.properties.contentType,
    lastModified: b.properties.lastModified, blobType: b.properties.blobType,
  }));
  return { items: [...folders, ...blobs], continuation: page.value.continuationToken || undefined };
}

/** One page of the account's queues, by name. @throws Error when the Queue service has no endpoint */
export async function listQueues(clients: StorageClients, continuation?: string, pageSize = PAGE_SIZE, signal?: AbortSignal): Promise<Page<NamedItem>> {
  const page = await service(clients.queue, 'Queue').listQueues({ abortSignal: signal }).byPage({ maxPageSize: pageSize, ...(continuation ? { continuationToken: continuation } : {}) }).next();
  if (page.done === true) return { items: [] };
  return { items: (page.value.queueItems ?? []).map((q) => ({ name: q.name })), continuation: page.value.continuationToken || undefined };
}

/**
 * A queue's first messages by Peek Messages (at most {@link PEEK_LIMIT}, the service's limit): they
 * stay in the queue and their dequeue count does not change. The approximate count comes from Get
 * Queue Metadata.
 * @throws the SDK's RestError on a failed request; an Error that names the likely cause when Azurite
 *   could not write the messages (500: a character XML cannot carry; `unreadableQueueError`)
 */
export async function peekMessages(clients: StorageClients, queue: string, signal?: AbortSignal): Promise<QueuePeek> {
  const client = service(clients.queue, 'Queue').getQueueClient(queue);
  const [peeked, properties] = await Promise.all([
    client.peekMessages({ numberOfMessages: PEEK_LIMIT, abortSignal: signal }).catch((err: unknown) => { throw unreadableQueueError(queue, err) ?? err; }),
    client.getProperties({ abortSignal: signal }),
  ]);
  return {
    approximateCount: properties.approximateMessagesCount ?? peeked.peekedMessageItems.length,
    messages: peeked.peekedMessageItems.map((m) => {
      const text = messageTextOf(m.messageText);
      const decodedText = decodedBase64Text(text);
      return { messageId: m.messageId, text, ...(decodedText !== undefined ? { decodedText } : {}), insertedOn: m.insertedOn, expiresOn: m.expiresOn, dequeueCount: m.dequeueCount };
    }),
  };
}

/** One page of the account's tables, by name. @throws Error when the Table service has no endpoint */
export async function listTables(clients: StorageClients, continuation?: string, pageSize = PAGE_SIZE, signal?: AbortSignal): Promise<Page<NamedItem>> {
  const page = await service(clients.table, 'Table').listTables({ abortSignal: signal }).byPage({ maxPageSize: pageSize, ...(continuation ? { continuationToken: continuation } : {}) }).next();
  if (page.done === true) return { items: [] };
  const items = page.value.filter((t) => t.name !== undefined).map((t) => ({ name: t.name! }));
  return { items, continuation: page.value.continuationToken || undefined };
}

/**
 * One page of a table's entities, in the service's order (PartitionKey, then RowKey), each property
 * as the service typed it: `{ value, type }` with the value as text (the SDK's
 * `disableTypeConversion`), so that an Edm.DateTime keeps its seven digits of fractions and a
 * Double NaN stays a Double (core/snapshotFormat.ts `entityDocument` shows them).
 */
export async function listEntities(clients: StorageClients, table: string, continuation?: string, pageSize = PAGE_SIZE, signal?: AbortSignal): Promise<Page<EntityInfo>> {
  const client = service(clients.tableClient(table), 'Table');
  const page = await client.listEntities<Record<string, unknown>>({ disableTypeConversion: true, abortSignal: signal }).byPage({ maxPageSize: pageSize, ...(continuation ? { continuationToken: continuation } : {}) }).next();
  if (page.done === true) return { items: [] };
  return { items: [...page.value], continuation: page.value.continuationToken || undefined };
}

/** A blob's properties (Get Blob Properties). @throws the SDK's RestError (404 when it does not exist) */
export async function statBlob(clients: StorageClients, container: string, name: string): Promise<BlobStat> {
  const p = await blobClient(clients, container, name).getProperties();
  return { size: p.contentLength ?? 0, lastModified: p.lastModified, createdOn: p.createdOn, contentType: p.contentType, etag: p.etag };
}

/**
 * A blob's whole content (Get Blob) and properties, of one version of it: the ranges a large blob
 * is read in must all match the ETag its properties gave (If-Match). A blob rewritten in the middle
 * of the read is read again, up to three times in all.
 * @throws the SDK's RestError (404 when it does not exist; 412 when it changed during every try)
 */
export async function readBlob(clients: StorageClients, container: string, name: string, signal?: AbortSignal): Promise<BlobContent> {
  const client = blobClient(clients, container, name);
  for (let attempt = 1; ; attempt++) {
    const p = await client.getProperties({ abortSignal: signal });
    try {
      const content = (p.contentLength ?? 0) === 0 ? Buffer.alloc(0)
        : await client.downloadToBuffer(0, undefined, { abortSignal: signal, concurrency: 4, conditions: { ifMatch: p.etag } });
      return { content, contentType: p.contentType, lastModified: p.lastModified };
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode !== 412 || attempt === 3) throw err;
    }
  }
}

/** Writes a blob's content to a file (created or replaced). */
export async function saveBlob(clients: StorageClients, container: string, name: string, file: string, signal?: AbortSignal): Promise<void> {
  await downloadToFile(blobClient(clients, container, name), file, signal);
}

/** True when a blob of that name exists. */
export async function blobExists(clients: StorageClients, container: string, name: string): Promise<boolean> {
  return blobClient(clients, container, name).exists();
}

/** What an upload reads: a file's path, the bytes, or a function that reads them when the upload begins. */
export type UploadContent = string | Uint8Array | (() => Promise<Uint8Array>);

/** The largest file uploaded in one Put Blob, bytes: the SDK's uploadFile default (256 MiB). */
const SINGLE_PUT_MAX_BYTES = 256 * 1024 * 1024;
/** The block size a larger file is uploaded in (Put Block, then Put Block List), bytes. */
const UPLOAD_BLOCK_BYTES = 4 * 1024 * 1024;

/**
 * Uploads content as a block blob (created or replaced), its Content-Type from the name's extension
 * (`mime-types`; none when unknown, as the Blob service then stores `application/octet-stream`).
 * A file is read as a stream (one Put Blob up to 256 MiB, as the SDK's uploadFile does; 4 MiB
 * blocks, four at a time, past that), and closed however the upload ends (an abort included: the
 * SDK's own uploadFile leaves its read streams open then).
 * @param content a file's path, the bytes, or a function that reads them (called once, here)
 * @param onlyIfNew when true, an existing blob is not replaced (`If-None-Match: *`): the service
 *   answers 409 BlobAlreadyExists, thrown as the SDK's RestError
 */
export async function uploadBlob(clients: StorageClients, container: string, name: string, content: UploadContent, signal?: AbortSignal, onlyIfNew = false): Promise<void> {
  const client = blobClient(clients, container, name).getBlockBlobClient();
  const type = mimeLookup(name);
  const options = {
    abortSignal: signal,
    ...(type !== false ? { blobHTTPHeaders: { blobContentType: type } } : {}),
    ...(onlyIfNew ? { conditions: { ifNoneMatch: '*' } } : {}),
  };
  if (typeof content === 'string') {
    const size = (await fsp.stat(content)).size;
    if (size === 0) {
      await client.upload(Buffer.alloc(0), 0, options);
      return;
    }
    // Every read stream opened (a retry opens another) is closed when the upload ends.
    const opened: fs.ReadStream[] = [];
    const open = (): fs.ReadStream => {
      const stream = fs.createReadStream(content);
      opened.push(stream);
      return stream;
    };
    try {
      // One Put Blob up to the size the SDK's uploadFile sends whole (the service then stores its
      // Content-MD5); larger, blocks of 4 MiB, four at a time.
      if (size <= SINGLE_PUT_MAX_BYTES) await client.upload(open, size, options);
      else await client.uploadStream(open(), UPLOAD_BLOCK_BYTES, 4, options);
    } finally {
      for (const stream of opened) stream.destroy();
    }
    return;
  }
  await client.uploadData(typeof content === 'function' ? await content() : content, options);
}

/**
 * Deletes an item. A container, queue or table goes with everything in it. A blob goes with its
 * snapshots (`deleteSnapshots: 'include'`: the service refuses to delete a blob that has some otherwise).
 * A message needs a pop receipt, which a peek does not give: its queue's visible messages are
 * received one at a time (hidden for 30 s) until it is found; it is deleted and the ones ahead of
 * it are made visible again at once. Their dequeue counts go up by one: the REST API has no other way.
 * @param abortSignal ends the requests under way (an AbortError)
 * @throws Error when a message is not found among the first {@link PEEK_LIMIT} visible messages
 *   (received by another client, or hidden); the SDK's RestError on a failed request (404 when the
 *   item is gone); an AbortError once `abortSignal` aborts
 */
export async function deleteItem(clients: StorageClients, ref: ItemRef, abortSignal?: AbortSignal): Promise<void> {
  switch (ref.kind) {
    case 'container': await service(clients.blob, 'Blob').getContainerClient(ref.name).delete({ abortSignal }); return;
    case 'blob': await blobClient(clients, ref.container, ref.name).delete({ deleteSnapshots: 'include', abortSignal }); return;
    case 'queue': await service(clients.queue, 'Queue').getQueueClient(ref.name).delete({ abortSignal }); return;
    case 'message': await deleteMessage(clients, ref.queue, ref.messageId, abortSignal); return;
    case 'table': await service(clients.table, 'Table').deleteTable(ref.name, { abortSignal }); return;
    case 'entity': await service(clients.tableClient(ref.table), 'Table').deleteEntity(ref.partitionKey, ref.rowKey, { abortSignal }); return;
  }
}

/** A file or bytes to upload as a blob: the blob's full name, and what to read ({@link UploadContent}). */
export interface UploadItem {
  readonly blob: string;
  readonly content: UploadContent;
  /** True when no blob of that name may be replaced (one made since the user was asked is not). */
  readonly onlyIfNew?: boolean;
}

/**
 * Uploads several blobs into one container ({@link uploadBlob} each), four at a time, reporting
 * progress per blob, going on past a blob that fails. Content read by a function is read as its
 * upload begins: at most four in memory at once. An error every later upload would meet too (the
 * service gone, the container gone, the key refused) ends them all at once.
 * @returns how many were uploaded, and each failure with the blob's name and its error's first line
 * @throws the abort's reason when options.signal aborts, or that error (what was uploaded before stays)
 */
export async function uploadBlobs(clients: StorageClients, container: string, items: readonly UploadItem[], options: DataOptions = {}): Promise<{ uploaded: number; failures: { blob: string; message: string }[] }> {
  const progress = tracker(options, items.length);
  let uploaded = 0;
  const failures: { blob: string; message: string }[] = [];
  await pool(items, { signal: options.signal, concurrency: 4 }, async (item) => {
    try {
      await uploadBlob(clients, container, item.blob, item.content, options.signal, item.onlyIfNew === true);
      uploaded++;
    } catch (err) {
      if (options.signal?.aborted === true || failsEveryUpload(err)) throw err;
      failures.push({ blob: item.blob, message: messageOf(err) });
    }
    progress.step(item.blob);
  });
  return { uploaded, failures };
}

/**
 * True for an error every later upload would meet too, which ends the uploads at once: the service
 * gone (connection refused or reset), the container gone (404 ContainerNotFound), or the account's
 * key refused (403).
 */
function failsEveryUpload(err: unknown): boolean {
  const e = err as { code?: unknown; statusCode?: unknown } | undefined;
  if (e?.code === 'ECONNREFUSED' || e?.code === 'ECONNRESET') return true;
  if (e?.statusCode === 403) return true;
  return isContainerNotFound(err);
}

/**
 * Which of `names` exist as blobs in `container`, in the order given: one Get Blob Properties per
 * name, 16 at a time, each counted as a step of `options.progress`.
 * @throws an AbortError when `options.signal` aborts; the SDK's RestError of a check that failed
 */
export async function existingBlobs(clients: StorageClients, container: string, names: readonly string[], options: DataOptions = {}): Promise<string[]> {
  const found = new Set<string>();
  const progress = tracker(options, names.length);
  await pool(names, { signal: options.signal }, async (name) => {
    if (await blobClient(clients, container, name).exists({ abortSignal: options.signal })) found.add(name);
    progress.step(name);
  });
  return names.filter((n) => found.has(n));
}

/**
 * The approximate message count of each queue (Get Queue Metadata), in order; undefined where it failed.
 * @throws the signal's reason once `signal` has aborted (the counts missing then say nothing of the queues)
 */
export async function queueCounts(clients: StorageClients, queues: readonly string[], signal?: AbortSignal): Promise<(number | undefined)[]> {
  const counts = new Map<string, number | undefined>();
  const client = service(clients.queue, 'Queue');
  await pool(queues, {}, async (name) => {
    counts.set(name, await client.getQueueClient(name).getProperties({ abortSignal: signal }).then((p) => p.approximateMessagesCount, () => undefined));
  });
  // Aborted: the counts are missing for that, not because the queues are gone.
  signal?.throwIfAborted();
  return queues.map((q) => counts.get(q));
}

/**
 * Deletes several items ({@link deleteItem} each), eight at a time, going on past failures. The
 * messages of one queue go together, in one pass over its visible messages: one at a time, each
 * pass would hide the messages the others look for. `options.signal` cancels: the requests under
 * way end, no more begin, and it resolves with `cancelled` once those under way have ended.
 * @returns how many were deleted, each failure with its error's first line (none from the cancel),
 *   and whether it was cancelled before the end
 */
export async function deleteItems(clients: StorageClients, refs: readonly ItemRef[], options: DataOptions = {}): Promise<{ deleted: number; failures: { ref: ItemRef; message: string }[]; cancelled: boolean }> {
  const progress = tracker(options, refs.length);
  let deleted = 0;
  const failures: { ref: ItemRef; message: string }[] = [];
  // Work units: each message-free ref alone, and the messages of each queue as one unit.
  const byQueue = new Map<string, Extract<ItemRef, { kind: 'message' }>[]>();
  const units: ItemRef[][] = [];
  for (const ref of refs) {
    if (ref.kind !== 'message') { units.push([ref]); continue; }
    const group = byQueue.get(ref.queue);
    if (group !== undefined) { group.push(ref); continue; }
    const created = [ref];
    byQueue.set(ref.queue, created);
    units.push(created);
  }
  const work = pool(units, { signal: options.signal, concurrency: 8 }, async (unit) => {
    const first = unit[0]!;
    if (first.kind === 'message') {
      const messages = unit as Extract<ItemRef, { kind: 'message' }>[];
      const result = await deleteMessages(clients, first.queue, messages.map((m) => m.messageId), options.signal).catch((err: unknown) => new Map(messages.map((m) => [m.messageId, messageOf(err)])));
      // Cancelled: what was not deleted is no failure (the caller says how many were).
      if (options.signal?.aborted === true) throw options.signal.reason;
      for (const ref of messages) {
        const failure = result.get(ref.messageId);
        if (failure === undefined) deleted++;
        else failures.push({ ref, message: failure });
        progress.step(ref.kind);
      }
      return;
    }
    try {
      await deleteItem(clients, first, options.signal);
      deleted++;
    } catch (err) {
      if (options.signal?.aborted === true) throw options.signal.reason;
      failures.push({ ref: first, message: messageOf(err) });
    }
    progress.step(first.kind);
  });
  try {
    await work;
  } catch (err) {
    if (options.signal?.aborted !== true) throw err;
    return { deleted, failures, cancelled: true };
  }
  return { deleted, failures, cancelled: false };
}

/** How long messages received on the way to the ones being deleted stay hidden if restoring them fails (s). */
const HIDE_SECONDS = 30;
/** How long making such a message visible again may take before it is left to its {@link HIDE_SECONDS} (ms). */
const RESTORE_BOUND_MS = 10_000;

async function deleteMessage(clients: StorageClients, queue: string, messageId: string, signal?: AbortSignal): Promise<void> {
  const failure = (await deleteMessages(clients, queue, [messageId], signal)).get(messageId);
  if (failure !== undefined) throw new Error(failure);
}

/**
 * Deletes messages of one queue in one pass: its visible messages are received one at a time
 * (hidden for 30 s), in the queue's order, until each is found, none is left, or the first
 * {@link PEEK_LIMIT} visible messages have been looked at; the ones asked for are deleted, the
 * others made visible again at once (Update Message with visibilitytimeout=0 keeps the text when
 * none is given), also when a request fails. One at a time, so that only the messages ahead of the
 * last one asked for are touched: a batch would hide and count the messages behind it too.
 * Azurite serves visible messages in the order they became visible, so a message the view's peek
 * showed is among the first {@link PEEK_LIMIT} as long as it is there (a message that becomes
 * visible later goes behind it): looking further would only hide and count more of the queue.
 * @returns the messages not deleted, each with why: not found among the first visible messages, or
 *   the first line of the error of the request that failed (the rest are then not looked for)
 */
async function deleteMessages(clients: StorageClients, queue: string, messageIds: readonly string[], abortSignal?: AbortSignal): Promise<Map<string, string>> {
  const client = service(clients.queue, 'Queue').getQueueClient(queue);
  const wanted = new Set(messageIds);
  const held: { messageId: string; popReceipt: string }[] = [];
  let why = (id: string): string => `Message ${id} is not among the queue's first ${PEEK_LIMIT} visible messages: another client received or deleted it.`;
  try {
    for (let looked = 0; wanted.size > 0 && looked < PEEK_LIMIT; looked++) {
      // Peeked first: a receive that meets a message Azurite cannot write hides it and reads as none.
      await client.peekMessages({ numberOfMessages: 1, abortSignal }).catch((err: unknown) => { throw unreadableQueueError(queue, err) ?? err; });
      const m = (await client.receiveMessages({ numberOfMessages: 1, visibilityTimeout: HIDE_SECONDS, abortSignal })).receivedMessageItems[0];
      if (m === undefined) break;
      // Held until its delete succeeds: one that fails is made visible again with the others, and reported.
      held.push({ messageId: m.messageId, popReceipt: m.popReceipt });
      if (!wanted.has(m.messageId)) continue;
      await client.deleteMessage(m.messageId, m.popReceipt, { abortSignal });
      held.pop();
      wanted.delete(m.messageId);
    }
  } catch (err) {
    const message = messageOf(err);
    why = () => message;
  } finally {
    // Not under the caller's signal (a cancel must not leave them hidden), but bounded: a service
    // that stopped answering would hold them anyway, and their 30 s end unhides them.
    await Promise.allSettled(held.map((m) => client.updateMessage(m.messageId, m.popReceipt, undefined, 0, { abortSignal: AbortSignal.timeout(RESTORE_BOUND_MS) })));
  }
  return new Map([...wanted].map((id) => [id, why(id)]));
}
