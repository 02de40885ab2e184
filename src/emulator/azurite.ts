/**
 * The adapter: the only module that imports azurite. Everything azurite-specific — ~18 positional
 * constructor arguments, the process-wide logger, the port that is freed after close() resolves,
 * the shared chunk store — stays in this file behind {@link createService}, {@link MeteredChunkStore}
 * and {@link setDebugLogSink}. Facts relied on are in docs/ENGINE.md; the
 * azurite files named below are under node_modules/azurite/dist/src (azurite 3.37.0).
 */
// The declarations sit beside this file under the same base name, which TypeScript skips unless
// referenced explicitly (an import of a .d.ts of ambient modules is not possible).
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./azurite.d.ts" />
import { once } from 'node:events';
import type * as http from 'node:http';
import type { Socket } from 'node:net';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import type BlobConfiguration from 'azurite/dist/src/blob/BlobConfiguration';
import type ServerBase from 'azurite/dist/src/common/ServerBase';
import {
  MemoryExtentChunkStore,
  type MemoryExtentChunk,
} from 'azurite/dist/src/common/persistence/MemoryExtentStore';
import logger from 'azurite/dist/src/common/Logger';
import AllExtentsAsyncIterator from 'azurite/dist/src/common/persistence/AllExtentsAsyncIterator';
import { DEFAULT_EXTENT_GC_PROTECT_TIME_IN_MS } from 'azurite/dist/src/common/utils/constants';
import { formatBound, StepTimeout, withBound } from '../core/bounds';
import type { Disposable } from '../core/events';
import type { Endpoint } from '../core/lifecycle';
import type { ServiceKind } from '../core/services';
import { DATA_FILES } from '../core/dataFiles';
import { abandonSave, beginSave, endSave } from './shutdownMarker';
import { systemMemoryBytes } from './systemMemory';
import { defaultLimitBytes } from '../core/memory';
import type { HttpsOptions } from '../core/settings';
import { seamNewestVersion, type ApiVersionPolicy } from '../engine/apiVersionPolicy';

/*
 * Each service's server, configuration and GC manager are required when that service is first
 * made, not when this module loads: starting Blob then evaluates only blob's part of azurite
 * (express routes, handlers, Loki stores), which shortens the first click.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const blobModules = () => ({
  Configuration: (require('azurite/dist/src/blob/BlobConfiguration') as typeof import('azurite/dist/src/blob/BlobConfiguration')).default,
  Server: (require('azurite/dist/src/blob/BlobServer') as typeof import('azurite/dist/src/blob/BlobServer')).default,
  GCManager: (require('azurite/dist/src/blob/gc/BlobGCManager') as typeof import('azurite/dist/src/blob/gc/BlobGCManager')).default,
  ContextMiddleware: (require('azurite/dist/src/blob/middlewares/blobStorageContext.middleware') as typeof import('azurite/dist/src/blob/middlewares/blobStorageContext.middleware')).default,
});
const queueModules = () => ({
  Configuration: (require('azurite/dist/src/queue/QueueConfiguration') as typeof import('azurite/dist/src/queue/QueueConfiguration')).default,
  Server: (require('azurite/dist/src/queue/QueueServer') as typeof import('azurite/dist/src/queue/QueueServer')).default,
  GCManager: (require('azurite/dist/src/queue/gc/QueueGCManager') as typeof import('azurite/dist/src/queue/gc/QueueGCManager')).default,
  ContextMiddleware: (require('azurite/dist/src/queue/middlewares/queueStorageContext.middleware') as typeof import('azurite/dist/src/queue/middlewares/queueStorageContext.middleware')).default,
});
const tableModules = () => ({
  Configuration: (require('azurite/dist/src/table/TableConfiguration') as typeof import('azurite/dist/src/table/TableConfiguration')).default,
  Server: (require('azurite/dist/src/table/TableServer') as typeof import('azurite/dist/src/table/TableServer')).default,
  ContextMiddleware: (require('azurite/dist/src/table/middleware/tableStorageContext.middleware') as typeof import('azurite/dist/src/table/middleware/tableStorageContext.middleware')).default,
});
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * Requires services' parts of azurite now (what a first start of each would require), listening on
 * nothing: the engine host's warm-up, so that a click only builds and starts the server.
 * @param kinds the services (default all three)
 */
export function preloadServiceModules(kinds: readonly ServiceKind[] = ['blob', 'queue', 'table']): void {
  for (const kind of kinds) {
    if (kind === 'blob') blobModules();
    else if (kind === 'queue') queueModules();
    else tableModules();
  }
}

export { offloadChecksums } from '../engine/azuriteChecksums';

/**
 * The default extent memory limit in bytes: Azurite's, half of the memory (its
 * `DEFAULT_EXTENT_MEMORY_LIMIT` is `Math.trunc(os.totalmem() * 0.5)`), but of the memory this
 * process may use ({@link systemMemoryBytes}): in a container with a memory limit, half of that
 * limit. Azurite's own default there lets the content grow past the container's memory, and the
 * kernel kills the engine, losing every in-memory service's data, instead of refusing the write
 * with HTTP 409.
 */
export const DEFAULT_LIMIT_BYTES: number = defaultLimitBytes(systemMemoryBytes());

/**
 * Azurite's in-memory chunk store (MemoryExtentStore.js `MemoryExtentChunkStore`), extended — by
 * subclassing its public methods, not by patching — to keep bytes per category ("blob", "queue")
 * and to tell listeners when content changes. Azurite's own limit check stays untouched: a write is
 * refused when `totalSize + delta > sizeLimit`, and the server answers HTTP 409
 * `MemoryExtentStoreAtSizeLimit`.
 *
 * One instance per Emulator, passed to both blob and queue servers as `memoryStore`, so the limit is
 * shared by blob and queue as in Azurite, but not with any other emulator in the process.
 */
export class MeteredChunkStore extends MemoryExtentChunkStore {
  private readonly bytesByCategory = new Map<string, number>();
  private readonly listeners = new Set<() => void>();
  private readonly refusalListeners = new Set<(refusal: StoreRefusal) => void>();

  /** @param limitBytes the limit in bytes; undefined = Azurite's default (50% of total memory). */
  constructor(limitBytes: number | undefined) {
    super(limitBytes ?? DEFAULT_LIMIT_BYTES);
  }

  /**
   * Stores `chunk` under `categoryName` ("blob" or "queue") when the limit allows, as azurite's
   * store does, and counts its bytes (a replaced chunk's old size comes off).
   * @returns false when the limit refuses it (the refusal listeners are told: requested bytes, bytes used, limit)
   */
  override trySet(categoryName: string, chunk: MemoryExtentChunk): boolean {
    const before = this.get(categoryName, chunk.id)?.count ?? 0;
    const ok = super.trySet(categoryName, chunk);
    if (ok) this.add(categoryName, chunk.count - before);
    else for (const listener of this.refusalListeners) listener({ category: categoryName, requestedBytes: chunk.count - before, usedBytes: this.totalSize(), limitBytes: this.limitBytes() });
    return ok;
  }

  /**
   * Calls `listener` synchronously each time the store refuses a write because of the limit — the
   * moment azurite's MemoryExtentStore.appendExtent answers HTTP 409 `MemoryExtentStoreAtSizeLimit`.
   * @returns a disposable that removes the listener.
   */
  onDidRefuse(listener: (refusal: StoreRefusal) => void): Disposable {
    this.refusalListeners.add(listener);
    return { dispose: () => { this.refusalListeners.delete(listener); } };
  }

  /** Deletes one chunk, as azurite's store does, and takes its bytes off the category's count. @returns whether it was there */
  override delete(categoryName: string, id: string): boolean {
    const existing = this.get(categoryName, id);
    const ok = super.delete(categoryName, id);
    if (ok && existing !== undefined) this.add(categoryName, -existing.count);
    return ok;
  }

  /** Deletes every chunk of a category, as azurite's store does; its count drops to 0 (a memory event when it held any). */
  override clear(categoryName: string): void {
    super.clear(categoryName);
    if (this.bytesByCategory.delete(categoryName)) this.changed();
  }

  /** Bytes held for one category ("blob" or "queue"). */
  categoryBytes(categoryName: string): number {
    return this.bytesByCategory.get(categoryName) ?? 0;
  }

  /** The limit in force, in bytes (Azurite's default if none was set). */
  limitBytes(): number {
    return this.sizeLimit() ?? DEFAULT_LIMIT_BYTES;
  }

  /**
   * Calls `listener` synchronously after every change of content (on the request's hot path:
   * keep it cheap). @returns a disposable that removes the listener.
   */
  onDidChange(listener: () => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => { this.listeners.delete(listener); } };
  }

  private add(categoryName: string, delta: number): void {
    if (delta === 0) return;
    this.bytesByCategory.set(categoryName, (this.bytesByCategory.get(categoryName) ?? 0) + delta);
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** A write the chunk store refused: `category` is "blob" or "queue"; sizes in bytes. */
export interface StoreRefusal {
  readonly category: string;
  readonly requestedBytes: number;
  readonly usedBytes: number;
  readonly limitBytes: number;
}

/** Everything one service needs to start. Paths absolute; `port` 0 = any free port. */
export interface EngineServiceOptions {
  readonly kind: ServiceKind;
  readonly host: string;
  readonly port: number;
  readonly inMemory: boolean;
  /**
   * Data folder for disk mode (created if missing). In memory mode nothing is read or written
   * there, and nothing there is deleted: azurite still gets its database paths in it.
   */
  readonly location: string;
  readonly loose: boolean;
  /**
   * The service's API-version policy (src/engine/apiVersionPolicy.ts), read on every request: changing
   * its `mode` applies to the running server at once. Without the engine seam (an unbundled engine)
   * only `off` is honoured and every other mode is azurite's strict check.
   */
  readonly apiVersionPolicy: ApiVersionPolicy;
  /** Receives one access-log line per request (no trailing newline); undefined = no access log. */
  readonly accessLog: ((line: string) => void) | undefined;
  /** The emulator's chunk store; required for blob and queue in memory mode. */
  readonly memoryStore: MeteredChunkStore | undefined;
  /**
   * Seconds an idle keep-alive connection stays open (ServerBase sets `httpServer.keepAliveTimeout`
   * to this × 1000 when > 0); 0 keeps Node's default of 5 s.
   */
  readonly keepAliveSec: number;
  /**
   * Serve HTTPS: PEM (`cert` + `key`) or PFX (`cert` + `pwd`), absolute paths; undefined = HTTP.
   * Azurite reads the files in the server's constructor (ConfigurationBase.getCert) and
   * https.createServer throws on a bad file or password; check first (./certificates.ts).
   */
  readonly https: HttpsOptions | undefined;
  /** "basic": accept OAuth bearer tokens (checked for issuer, audience and lifetime, not signature). */
  readonly oauth: 'basic' | undefined;
  /** Take the account only from the first path segment, never from a dotted host name. */
  readonly disableProductStyleUrl: boolean;
  /**
   * Disk mode: save changed metadata at most this many ms after an acknowledged write (default
   * {@link SAVE_WINDOW_MS}); 0 leaves only Azurite's own 5 s autosave (for the bench's comparison).
   */
  readonly saveWindowMs?: number;
  /**
   * Disk mode: told when a metadata save fails (the first failure of a run, as an error) and when a
   * save succeeds again after that (info). Undefined: not told; the retry happens all the same.
   */
  readonly saveLog?: { readonly info: (line: string) => void; readonly error: (line: string) => void } | undefined;
  /**
   * Called when a request that may have changed data has been answered with a status below 400
   * ({@link changesData}): on the request's path, keep it cheap (the engine process throttles what it sends).
   */
  readonly onDataChange?: (() => void) | undefined;
  /**
   * Called when azurite closes the running server by itself, not asked by a stop of ours: its GC's
   * "critical error" handler does (blob/BlobServer.js and queue/QueueServer.js, through
   * common/GCCriticalErrorCloseHelper.js), for instance on a data folder whose metadata it cannot
   * read. By then the service has been stopped as a stop of ours would: the port is free, disk data
   * is saved (or `saveError` says why not), in-memory content is freed. Never called for table
   * (azurite 3.37's table server has no GC) or after a stop of ours began. docs/ENGINE.md, "Lifecycle".
   */
  readonly onClosedItself?: ((closure: SelfClosure) => void) | undefined;
}

/** What {@link EngineServiceOptions.onClosedItself} is told. Plain data: it crosses to the extension host. */
export interface SelfClosure {
  /** The message of the GC error azurite closed the server for (its first line), or undefined when it logged none. */
  readonly gcError: string | undefined;
  /** Disk mode: why the save after the close failed (the data on disk is then from the save before); undefined when it succeeded. */
  readonly saveError: string | undefined;
}

/**
 * The bytes of content one container or queue refers to: the unique extent chunks of its blobs
 * (committed blocks, page ranges, single-put content, snapshots and versions included, a chunk shared
 * by a snapshot and its base blob counted once) and uncommitted blocks, or of its messages.
 */
export interface ContentBytesItem {
  readonly account: string;
  /** The container or queue. */
  readonly name: string;
  readonly bytes: number;
  /**
   * Records: committed blobs with their snapshots and versions (as List Blobs shows them with
   * snapshots and versions included), or messages (hidden ones included, as
   * azurite's Get Queue Metadata counts them: LokiQueueMetadataStore `getMessagesCount`).
   */
  readonly count: number;
}

/** What {@link EngineService.contentBytes} answers. Bytes. */
export interface ContentBytes {
  readonly items: ContentBytesItem[];
  /**
   * What the extent store holds for the service's category in memory mode (includes content no
   * record refers to any more, which azurite's GC frees later); undefined in disk mode.
   */
  readonly storeBytes: number | undefined;
}

/**
 * Whether a request may change data: any method but GET, HEAD and OPTIONS, and a Get Messages
 * ({@link isDequeue}). A GET of a blob named `…/messages` also counts: a spurious refresh, no harm.
 * @param method the HTTP method
 * @param url the request's path and query
 */
export function changesData(method: string | undefined, url: string | undefined): boolean {
  if (method !== 'GET') return method !== 'HEAD' && method !== 'OPTIONS';
  return isDequeue(method, url);
}

/**
 * Whether a request is a Get Messages: a GET of a queue's messages without `peekonly=true`. It
 * dequeues (hides the messages it returns and raises their dequeue count), so it changes data only
 * when its answer holds a message; a consumer polling an empty queue (a Functions queue trigger)
 * changes nothing.
 * @param method the HTTP method
 * @param url the request's path and query
 */
export function isDequeue(method: string | undefined, url: string | undefined): boolean {
  if (method !== 'GET') return false;
  const q = (url ?? '').indexOf('?');
  const pathPart = q < 0 ? (url ?? '') : (url ?? '').slice(0, q);
  return pathPart.endsWith('/messages') && !/[?&]peekonly=true(&|$)/i.test(url ?? '');
}

/**
 * Watches what `res` writes for `needle` (ASCII), across chunk boundaries.
 * @returns whether the body written so far holds `needle`
 */
function bodyContains(res: http.ServerResponse, needle: string): () => boolean {
  let found = false;
  let tail = '';
  const look = (chunk: unknown): void => {
    if (found || (typeof chunk !== 'string' && !(chunk instanceof Uint8Array))) return;
    const text = tail + (typeof chunk === 'string' ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1'));
    found = text.includes(needle);
    tail = text.slice(-(needle.length - 1));
  };
  const write = res.write;
  const end = res.end;
  res.write = function (this: http.ServerResponse, chunk: unknown, ...rest: unknown[]) {
    look(chunk);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: http.ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    look(chunk);
    return (end as (...a: unknown[]) => http.ServerResponse).call(this, chunk, ...rest);
  } as typeof res.end;
  return () => found;
}

/** One service of the engine. A new instance is made for each start (azurite servers cannot restart). */
export interface EngineService {
  /**
   * Starts listening. @returns the real endpoint.
   * @throws the listen error (with Node's `code`, e.g. EADDRINUSE) or a store error; on failure
   * every store and GC timer the attempt opened is closed again. With `https`, also the file or
   * OpenSSL error of a certificate that does not load (thrown before anything is opened).
   */
  start(): Promise<Endpoint>;
  /**
   * Stops; resolves only when the port is free and, in disk mode, every LokiJS database of the
   * service (blob: metadata + extent metadata, queue: the same, table: metadata) is on disk — see
   * {@link saveLokiDatabases}. In memory mode also drops the data. In disk mode a marker file
   * (./shutdownMarker.ts) is in the data folder from the start of the stop until the save is done.
   * @throws the save error (the marker then stays, so the next start reports it), or else the
   *   close error (the data was saved after it: the marker is removed).
   */
  stop(): Promise<void>;
  /** Deletes the service's data (disk files in `location`, or in-memory extents). Only while stopped. */
  clean(): Promise<void>;
  /**
   * Frees the extents no blob or message refers to any more, now, by running azurite's own
   * mark-and-sweep (blob/gc/BlobGCManager.js, queue/gc/QueueGCManager.js) once. Azurite's timed GC
   * spares extents written in the last 10 minutes so that a write in flight keeps its data; this
   * run waits until no request is in flight and spares only extents written after it began.
   * No-op for table, in disk mode, or while stopped; a stop during the wait ends it without a sweep
   * (the stop frees the content), and a stop during the sweep waits for it.
   * @param idleWaitMs how long to wait for a moment with no request in flight (ms)
   * @param spareMs extents written this long before the sweep began are spared too (ms; 0: none)
   * @throws ReclaimBusy when requests were in flight for all of `idleWaitMs` (nothing is freed)
   */
  reclaim(idleWaitMs: number, spareMs?: number): Promise<void>;
  /**
   * An estimate, in bytes, of the metadata the service keeps in LokiJS (containers, blob
   * properties, queue and message records, table entities): the JSON length of its collections'
   * documents, without the content buffers some records point to (extent data, counted already).
   * Not counted against the extent limit. 0 while stopped.
   */
  metadataBytesEstimate(): number;
  /**
   * The content bytes per container (blob) or queue (queue), read from the running server's LokiJS
   * collections (see {@link contentBytesOf}); undefined for table or while stopped.
   * @param storeBytes the extent store's bytes for the service's category, or undefined in disk mode
   */
  contentBytes(storeBytes: number | undefined): ContentBytes | undefined;
  /**
   * Has the running server read `AZURITE_ACCOUNTS` from this thread's environment again now, rather
   * than at its next 60 s refresh (common/AccountDataStore.js `refresh()`, on the server's
   * `accountDataStore`). No-op while stopped.
   */
  refreshAccounts(): void;
}


/**
 * A reclaim that found the service never without a request in flight for its whole wait (a client
 * holds a request open, or traffic never paused); nothing was freed. `code` is `EBUSY`, so that the
 * kind of failure crosses from the engine's process.
 */
export class ReclaimBusy extends Error {
  readonly code = 'EBUSY';
  constructor(readonly kind: ServiceKind, readonly waitedMs: number) {
    super(`the ${kind} service had a request in flight throughout ${formatBound(waitedMs)}`);
  }
}

/** How long a stop lets the requests in flight finish before azurite's close ends every connection (ms). */
const DRAIN_MS = 2000;
/** After this long past azurite's close, connections still open at stop are cut so the port is freed (ms). */
const FORCE_CLOSE_AFTER_MS = 2000;

function lineStream(sink: (line: string) => void): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      pending += chunk.toString();
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trimEnd();
        pending = pending.slice(nl + 1);
        if (line !== '') sink(line);
      }
      callback();
    },
  });
}

function makeServer(o: EngineServiceOptions): ServerBase {
  const accessLog = o.accessLog !== undefined;
  const stream = o.accessLog !== undefined ? lineStream(o.accessLog) : undefined;
  const at = (file: string): string => path.join(o.location, file);
  // ConfigurationBase.hasCert(): cert + key = PEM, cert + pwd = PFX, "" = not set.
  const cert = o.https?.cert ?? '';
  const key = o.https?.key ?? '';
  const pwd = o.https?.key === undefined ? (o.https?.pwd ?? '') : '';
  if (o.inMemory && o.kind !== 'table' && o.memoryStore === undefined) {
    throw new Error(`the ${o.kind} service needs a memory store in memory mode`);
  }
  const modules = o.kind === 'blob' ? blobModules() : o.kind === 'queue' ? queueModules() : tableModules();
  // azurite hands its configuration's `skipApiVersionCheck` to the storage-context middleware
  // factory, which the seam wraps (src/engine/apiVersionPolicy.ts): given the policy object, it
  // decides per request. Unwrapped, an object would turn the check off, so pass azurite a boolean.
  const versionCheck = seamNewestVersion(modules.ContextMiddleware) !== undefined ? o.apiVersionPolicy : o.apiVersionPolicy.mode === 'off';
  switch (o.kind) {
    case 'blob':
    case 'queue': {
      // Same positional arguments for both (blob/BlobConfiguration.js, queue/QueueConfiguration.js).
      const f = DATA_FILES[o.kind];
      const args: ConstructorParameters<typeof BlobConfiguration> = [
        o.host, o.port, o.keepAliveSec, at(f.db), at(f.extentDb),
        [{ locationId: 'Default', locationPath: at(f.extents), maxConcurrency: 1 }],
        accessLog, stream, false, undefined, o.loose, versionCheck,
        cert, key, pwd, o.oauth, o.disableProductStyleUrl, o.inMemory, o.memoryStore,
      ];
      if (o.kind === 'blob') {
        const { Server, Configuration } = blobModules();
        return new Server(new Configuration(...args));
      }
      const { Server, Configuration } = queueModules();
      return new Server(new Configuration(...args));
    }
    case 'table': {
      const { Server, Configuration } = tableModules();
      return new Server(new Configuration(
        o.host, o.port, o.keepAliveSec, at(DATA_FILES.table.db), false, accessLog, stream, undefined,
        o.loose, versionCheck, cert, key, pwd, o.oauth, o.disableProductStyleUrl, o.inMemory));
    }
  }
}

/**
 * Closes a service's server; resolves when its port is free (azurite's close() resolves earlier).
 * First the port stops taking connections and idle keep-alive connections are closed (Node's own
 * `server.close()`), and the requests in flight get up to {@link DRAIN_MS} to finish (the caller
 * has made their responses close their connections: `Connection: close`): azurite's
 * close() ends every connection at once, busy or not, and closes the stores under requests still
 * running. (azurite wraps its server with `stoppable`, which counts the requests of each connection
 * in a 'request' listener, and azurite's ServerBase removes that listener right after, so to
 * stoppable every connection looks idle; docs/ENGINE.md, "Lifecycle".) Then azurite's close();
 * connections still open {@link FORCE_CLOSE_AFTER_MS} later are cut.
 * @param idle resolves when no request is in flight on the server
 * @throws what azurite's close() throws
 */
async function closeAndWaitForPort(server: ServerBase, idle: () => Promise<void>): Promise<void> {
  const close = azuriteCloseOf.get(server) ?? (() => server.close());
  const http = server.httpServer;
  const closed = http.listening ? once(http, 'close') : Promise.resolve([]);
  if (http.listening) http.close();
  await withBound(idle(), DRAIN_MS).catch(() => undefined);
  const force = setTimeout(() => {
    http.closeAllConnections();
    // Over HTTPS Node tracks a connection only once its TLS handshake is done: one that never began
    // it (a client that connected and sent nothing) would hold the close for the 120 s handshake timeout.
    for (const socket of socketsOf.get(server) ?? []) socket.destroy();
  }, FORCE_CLOSE_AFTER_MS);
  try {
    await close();
    await closed;
  } catch (err) {
    // azurite's close failed (a save on a full disk): the connections still open are cut all the
    // same when the timer fires, which does not keep the engine's process alive.
    force.unref();
    throw err;
  }
  clearTimeout(force);
}

/** The TCP connections of each server as they were accepted (before any TLS handshake), until they close. */
const socketsOf = new WeakMap<ServerBase, Set<Socket>>();

/** Keeps {@link socketsOf} for `server` (call before it listens). */
function trackSockets(server: ServerBase): void {
  const sockets = new Set<Socket>();
  socketsOf.set(server, sockets);
  server.httpServer.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
}

/** azurite's own close() of a server whose `close` {@link createService} replaced (see its `closeAsStop`): what a stop of ours calls. */
const azuriteCloseOf = new WeakMap<ServerBase, () => Promise<void>>();

/**
 * Creates one service of the engine from plain options.
 * @throws Error when a blob/queue service is asked for memory mode without a memory store, or when
 *   `saveWindowMs` is not a number of ms ≥ 0 (NaN would make setTimeout save after every write).
 */
export function createService(options: EngineServiceOptions): EngineService {
  const window = options.saveWindowMs ?? SAVE_WINDOW_MS;
  if (!Number.isFinite(window) || window < 0) throw new Error(`saveWindowMs must be a number of ms ≥ 0, not ${String(options.saveWindowMs)}`);
  let server: ServerBase | undefined;
  let saver: Saver | undefined;
  /** The reclaim's sweep under way: a stop waits for it before it closes the stores the sweep walks. */
  let sweeping: Promise<void> | undefined;
  /** Set when a stop begins: a reclaim whose wait ends after it sweeps nothing. */
  let stopping = false;
  let idleWaiters: (() => void)[] = [];
  /** The requests in flight (their responses, not yet closed), and whether a stop drains them (each then closes its connection). */
  const responses = new Set<http.ServerResponse>();
  let draining = false;
  /** Makes each response not yet sent close its connection after it: a keep-alive client's next request then goes to a new one, refused. */
  const closeAfterResponse = (res: http.ServerResponse): void => { if (!res.headersSent) res.setHeader('Connection', 'close'); };
  const whenIdle = (): Promise<void> => (responses.size === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve)));
  /** The stop under way: a second stop (azurite's own close, then the host's) waits for it instead of closing again. */
  let stopUnderWay: Promise<void> | undefined;
  const service: EngineService = {
    async start(): Promise<Endpoint> {
      stopping = false;
      draining = false;
      if (!options.inMemory) await fs.mkdir(options.location, { recursive: true });
      const s = makeServer(options);
      // Before the listen: a connection accepted while start() still runs its last steps counts too.
      trackSockets(s);
      gcCriticalErrors.delete(options.kind);
      try {
        await s.start();
      } catch (err) {
        // ServerBase.start() leaves GC timers and stores opened by beforeStart() behind.
        await s.afterClose().catch(() => undefined);
        throw err;
      }
      server = s;
      closeAsStop(s);
      if (!options.inMemory) for (const db of lokiDatabases(s as ServerInternals)) keepUnsavedOnFailure(db, options.kind, options.saveLog);
      // Disk mode: what a client was told is written reaches the disk within SAVE_WINDOW_MS.
      const save = options.inMemory || window === 0 ? undefined : saveWithin(s as ServerInternals, window);
      saver = save;
      // Requests in flight, so reclaim() can wait for a moment when every extent written is referenced.
      const onDataChange = options.onDataChange;
      s.httpServer.on('request', (req, res) => {
        if (save !== undefined) res.once('finish', () => { if (res.statusCode >= 200 && res.statusCode < 300) save.touch(); });
        if (onDataChange !== undefined && changesData(req.method, req.url)) {
          // A Get Messages changes data only when it returns a message (each is a <QueueMessage> in its answer).
          const delivered = isDequeue(req.method, req.url) ? bodyContains(res, '<QueueMessage>') : undefined;
          res.once('finish', () => { if (res.statusCode < 400 && (delivered === undefined || delivered())) onDataChange(); });
        }
        responses.add(res);
        if (draining) closeAfterResponse(res);
        res.once('close', () => {
          responses.delete(res);
          if (responses.size === 0) {
            const waiters = idleWaiters;
            idleWaiters = [];
            for (const w of waiters) w();
          }
        });
      });
      const address = s.httpServer.address();
      const port = typeof address === 'object' && address !== null ? address.port : options.port;
      return { host: options.host, port, url: s.getHttpServerAddress() };
    },
    stop(): Promise<void> {
      if (stopUnderWay === undefined) {
        stopUnderWay = stopNow().finally(() => { stopUnderWay = undefined; });
      }
      return stopUnderWay;
    },
    async clean(): Promise<void> {
      if (server !== undefined) throw new Error(`cannot clean the ${options.kind} service while it runs`);
      if (options.inMemory) {
        options.memoryStore?.clear(options.kind);
        return;
      }
      // As the Azurite extension does (VSCServerManagerBlob.cleanImpl), a fresh, never-started server
      // cleans. Its Loki stores start autosave timers when constructed: close them first (nothing is
      // loaded, so nothing is saved), or the timers keep the extension host busy forever. It never
      // listens, so it gets no certificate: cleaning works even while azurite.cert is broken.
      const s = makeServer({ ...options, https: undefined, oauth: undefined });
      await s.afterClose();
      await s.clean();
      // The data is gone: a marker of an unfinished save of it is moot (./shutdownMarker.ts).
      await endSave(options.location, options.kind);
    },
    async reclaim(idleWaitMs: number, spareMs = 0): Promise<void> {
      const s = server as ServerInternals | undefined;
      if (s === undefined || !options.inMemory || options.kind === 'table') return;
      // An upload in flight has written extents that no record refers to yet: sweep only between requests.
      await withBound(whenIdle(), idleWaitMs).catch((err: unknown) => {
        throw err instanceof StepTimeout ? new ReclaimBusy(options.kind, idleWaitMs) : err;
      });
      // Stopped during the wait (its close ended the requests): the stop frees what it held.
      if (server !== s || stopping) return;
      const sweep = sweepOnce(options.kind, s, spareMs);
      sweeping = sweep;
      try {
        await sweep;
      } finally {
        if (sweeping === sweep) sweeping = undefined;
      }
    },
    metadataBytesEstimate(): number {
      const s = server as ServerInternals | undefined;
      if (s === undefined) return 0;
      // In memory mode a blob's record points at its extent chunk, content buffers included
      // (`persistency.chunks`): that is extent data, counted already, so it is left out.
      const withoutContent = (key: string, value: unknown): unknown => (key === 'chunks' ? undefined : value);
      // One record at a time: a whole collection as one string can pass V8's longest string (the
      // estimate then failed) and, near azurite.engine.heapLimit, the heap.
      let bytes = 0;
      for (const store of [s.metadataStore, s.extentMetadataStore]) {
        for (const c of store?.db?.collections ?? []) {
          for (const record of c.data) bytes += (JSON.stringify(record, withoutContent)?.length ?? 0) + 1;
        }
      }
      return bytes;
    },
    refreshAccounts(): void {
      const store = (server as ServerInternals | undefined)?.accountDataStore;
      if (typeof store?.refresh === 'function') store.refresh();
    },
    contentBytes(storeBytes: number | undefined): ContentBytes | undefined {
      const s = server as ServerInternals | undefined;
      if (s === undefined || options.kind === 'table') return undefined;
      return { items: contentBytesOf(options.kind, s.metadataStore?.db), storeBytes };
    },
  };
  return service;

  /**
   * Stops the running server: see {@link EngineService.stop}. Not called twice at once
   * ({@link EngineService.stop} joins the one under way).
   */
  async function stopNow(): Promise<void> {
    const s = server;
    if (s === undefined) return;
    stopping = true;
    await sweeping?.catch(() => undefined);
    // A failed window save left the dirty flags cleared (LokiJS clears them when a save begins): save all.
    const windowSaveFailed = saver?.failed === true;
    saver?.cancel();
    saver = undefined;
    if (!options.inMemory) beginSave(options.location, options.kind);
    let closeError: unknown;
    draining = true;
    for (const res of responses) closeAfterResponse(res);
    try {
      await closeAndWaitForPort(s, whenIdle);
    } catch (err) {
      closeError = err;
    }
    server = undefined;
    if (options.inMemory) {
      // The extents stay in the chunk store unless freed. Not azurite's clean(): its Loki stores'
      // clean() deletes their files whatever the mode, and in memory mode those paths are still
      // the database files of disk mode in azurite.location (the in-memory databases go with the server).
      options.memoryStore?.clear(options.kind);
    } else {
      // Even after a failed close what can be saved is saved; a failed close may have cleared Loki's
      // dirty flags without writing (see saveLokiDatabases), so then every database is written again.
      try {
        await saveLokiDatabases(s as ServerInternals, closeError !== undefined || windowSaveFailed);
      } catch (err) {
        abandonSave(options.location, options.kind);
        throw err;
      } finally {
        // azurite's close stops at the first store whose close fails (a full disk): the stores
        // after it keep their 5 s autosave, which would write this server's data over the files
        // of the service's next start. Nothing of this server is written after its stop.
        stopAutosaves(s as ServerInternals);
      }
      await endSave(options.location, options.kind);
    }
    if (closeError !== undefined) {
      // Its timer that rereads AZURITE_ACCOUNTS every minute, left running by the failed close.
      (s as ServerInternals).accountDataStore?.close?.().catch(() => undefined);
      throw closeError;
    }
  }

  /**
   * Makes azurite's own close of `s` (any call of `s.close()` but a stop's) a stop of ours: azurite's
   * GC closes a server after a critical error (blob/BlobServer.js, queue/QueueServer.js call
   * `this.close()` through common/GCCriticalErrorCloseHelper.js). Its close alone would end the
   * requests in flight, leave disk data to Loki's close (which may skip a save under way: see
   * saveLokiDatabases) and in-memory content in the shared chunk store, and tell nobody. Then
   * {@link EngineServiceOptions.onClosedItself} is called.
   */
  function closeAsStop(s: ServerBase): void {
    azuriteCloseOf.set(s, s.close.bind(s));
    s.close = async (): Promise<void> => {
      // During a stop of ours (which calls azurite's close itself, after the drain), or after it:
      // that stop is the close. The GC's error is then not reported; a next start meets it again.
      if (stopping || server !== s) {
        await stopUnderWay?.catch(() => undefined);
        return;
      }
      const gcError = gcCriticalErrors.get(options.kind);
      let saveError: string | undefined;
      try {
        await service.stop();
      } catch (err) {
        saveError = (err as Error).message;
      }
      options.onClosedItself?.({ gcError, saveError });
    };
  }
}

/** An extent chunk as azurite's records keep it (`persistency`: common/persistence/IExtentChunk). */
interface ChunkRef { readonly id: string; readonly offset: number; readonly count: number }

/**
 * Sums the unique extent chunks each container or queue refers to, from azurite's LokiJS
 * collections, the records its GC walks to find referenced extents
 * (blob/persistence/BlobReferredExtentsAsyncIterator.js, queue/persistence/QueueReferredExtentsAsyncIterator.js):
 * blob: `$BLOBS_COLLECTION$` records (`accountName`, `containerName`, `persistency`,
 * `committedBlocksInOrder[].persistency`, `pageRangesInOrder[].persistency`; snapshots and versions
 * are records of their own) and `$BLOCKS_COLLECTION$` (uncommitted blocks: `accountName`,
 * `containerName`, `persistency`); queue: `$MESSAGES_COLLECTION$` (`accountName`, `queueName`,
 * `persistency`). Containers and queues without content are listed with 0 (`$CONTAINERS_COLLECTION$`,
 * `$QUEUES_COLLECTION$`: `accountName`, `name`). Synchronous: one pass over the records, on the
 * engine's thread.
 */
function contentBytesOf(kind: 'blob' | 'queue', db: LokiLike | undefined): ContentBytesItem[] {
  type Doc = Record<string, unknown>;
  const docs = (name: string): Doc[] => (db?.getCollection?.(name)?.data ?? []) as Doc[];
  const sums = new Map<string, { account: string; name: string; seen: Set<string>; bytes: number; count: number }>();
  const entry = (account: unknown, name: unknown) => {
    const key = `${String(account)}\u0000${String(name)}`;
    let e = sums.get(key);
    if (e === undefined) sums.set(key, (e = { account: String(account), name: String(name), seen: new Set(), bytes: 0, count: 0 }));
    return e;
  };
  const add = (e: ReturnType<typeof entry>, chunk: unknown): void => {
    const c = chunk as ChunkRef | undefined;
    if (c === undefined || c === null || typeof c.count !== 'number') return;
    const id = `${c.id}:${c.offset}:${c.count}`;
    if (e.seen.has(id)) return;
    e.seen.add(id);
    e.bytes += c.count;
  };
  if (kind === 'blob') {
    for (const c of docs('$CONTAINERS_COLLECTION$')) entry(c['accountName'], c['name']);
    for (const b of docs('$BLOBS_COLLECTION$')) {
      const e = entry(b['accountName'], b['containerName']);
      // A blob that only has staged blocks is not listed (List Blobs takes `isCommitted` records:
      // LokiBlobMetadataStore `listBlobs`), so it is not counted; its blocks' bytes are.
      if (b['isCommitted'] !== false) e.count++;
      add(e, b['persistency']);
      for (const block of (b['committedBlocksInOrder'] as { persistency?: unknown }[] | undefined) ?? []) add(e, block.persistency);
      for (const range of (b['pageRangesInOrder'] as { persistency?: unknown }[] | undefined) ?? []) add(e, range.persistency);
    }
    for (const block of docs('$BLOCKS_COLLECTION$')) add(entry(block['accountName'], block['containerName']), block['persistency']);
  } else {
    for (const q of docs('$QUEUES_COLLECTION$')) entry(q['accountName'], q['name']);
    for (const m of docs('$MESSAGES_COLLECTION$')) {
      const e = entry(m['accountName'], m['queueName']);
      e.count++;
      add(e, m['persistency']);
    }
  }
  return [...sums.values()].map(({ account, name, bytes, count }) => ({ account, name, bytes, count }));
}

/** The part of a LokiJS database (lokijs 1.5 `Loki`) the estimate and the final save use. */
interface LokiLike {
  readonly collections: readonly { readonly data: unknown[]; dirty?: boolean }[];
  /** Where lokijs writes (LokiFsAdapter in disk mode: `saveDatabase(filename, serialized, callback)`). */
  readonly persistenceAdapter?: { mode?: string; saveDatabase?: (name: string, data: string, callback: (err?: Error | null) => void) => void } | null;
  /** A collection by name, or null (lokijs `Loki.getCollection`). */
  getCollection?(name: string): { readonly data: unknown[] } | null;
  /** True while a save (autosave or explicit) is being written (`throttledSaves`, on by default). */
  readonly throttledSavePending?: boolean;
  /** True when a collection changed since the last save started. */
  autosaveDirty(): boolean;
  /** Stops the autosave timer (lokijs `Loki.autosaveDisable`). */
  autosaveDisable?(): void;
  /** Saves now, or — while a save is being written — right after it; the callback runs when written. */
  saveDatabase(callback: (err?: Error | null) => void): void;
}

/**
 * Makes sure a stopped disk-mode server's LokiJS databases are on disk; resolves when they are.
 * Call after the http server has closed (no request left to change them).
 *
 * Why azurite's close is not enough (azurite 3.37, lokijs 1.5.12): each Loki store's close()
 * (blob/persistence/LokiBlobMetadataStore.js, queue/persistence/LokiQueueMetadataStore.js,
 * table/persistence/LokiTableMetadataStore.js, common/persistence/LokiExtentMetadataStore.js), called
 * from the servers' afterClose() (ServerBase.close), is `db.close(cb)`. Loki's close saves only if a
 * collection is dirty, but its fs save clears the dirty flags when the write *begins*
 * (`saveDatabaseInternal` → `autosaveClearFlags`, then LokiFsAdapter writes `file~` and renames it).
 * So a close that lands while a 5 s autosave is still writing sees nothing dirty and resolves at
 * once, before the file is renamed into place: if the process exits then, the last autosave is lost.
 * Also, ServerBase.close() runs afterClose() without waiting for requests in flight
 * (stoppable's `stop()` is not awaited): a request still running past the stop's drain
 * (closeAndWaitForPort) changes a database whose autosave is off. Here each database that is dirty or still writing is saved once
 * more; `saveDatabase` queues behind a write in progress, so the callback means "this state is on disk".
 * Cost: one JSON serialisation and write of the database (see bench/save.mjs), usually skipped
 * because close() already saved.
 * @param all save every database, dirty or not (after a failed close: Loki clears the dirty flags
 *   when a write begins, and does not restore them when it fails).
 * @throws the first write error (ENOSPC, EACCES, EISDIR …) after every database was tried.
 */
async function saveLokiDatabases(s: ServerInternals, all = false): Promise<void> {
  const results = await Promise.allSettled(lokiDatabases(s).map((db) => {
    if (!all && !db.autosaveDirty() && db.throttledSavePending !== true) return Promise.resolve();
    return new Promise<void>((resolve, reject) => db.saveDatabase((err) => (err ? reject(err) : resolve())));
  }));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

/**
 * Makes a failed save of `db` leave its collections marked unsaved, so that the next save (Azurite's
 * 5 s autosave, the durability window's, or the stop's) writes them again. lokijs clears the dirty
 * flags when a save begins and does not restore them when the write fails (its own comment in
 * `saveDatabaseInternal` says so): a failed autosave, or a window save failing while a stop closes
 * the server, was otherwise never retried, and the stop skipped what it believed saved. Wraps the
 * database's own LokiFsAdapter instance; adapters of another mode are left alone.
 */
function keepUnsavedOnFailure(db: LokiLike, kind: ServiceKind, log: EngineServiceOptions['saveLog']): void {
  const adapter = db.persistenceAdapter;
  if (adapter === undefined || adapter === null || (adapter.mode !== undefined && adapter.mode !== 'normal') || typeof adapter.saveDatabase !== 'function') return;
  const save = adapter.saveDatabase.bind(adapter);
  let failing = false;
  adapter.saveDatabase = (name, data, callback) => save(name, data, (err) => {
    if (err) {
      for (const c of db.collections) c.dirty = true;
      // LokiFsAdapter wraps fs's error in another (`new Error(err)`): its message begins "Error: ".
      if (!failing) log?.error(`Could not save ${kind} metadata to ${name}: ${err.message.replace(/^Error: /, '')}. It stays unsaved and is written again at the next save (within 5 s, and at stop).`);
      failing = true;
    } else if (failing) {
      failing = false;
      log?.info(`Saved ${kind} metadata to ${name} again.`);
    }
    callback(err);
  });
}

/**
 * The durability window in disk mode, in ms: a write acknowledged with a 2xx is in the metadata on
 * disk at most this long after its response, plus the time one save takes (Azurite's own LokiJS
 * autosave runs every 5 s; see docs/ENGINE.md, "Saving metadata").
 */
export const SAVE_WINDOW_MS = 1000;

/**
 * Saves a running disk-mode server's LokiJS databases that have changed, at most `windowMs` after
 * the first 2xx response since the last save (`touch()` after each one), so at most one save per
 * window. A save under way is not interrupted: lokijs queues the next one behind it (`throttledSaves`).
 * Errors are left to the stop's final save (`saveLokiDatabases`), which reports them: after one,
 * `failed` tells it to write every database, dirty or not.
 */
function saveWithin(s: ServerInternals, windowMs: number): Saver {
  let timer: NodeJS.Timeout | undefined;
  let failed = false;
  let cancelled = false;
  return {
    get failed() { return failed; },
    touch() {
      // After cancel(): a response that finishes while the stop closes the server saves nothing more.
      if (timer !== undefined || cancelled) return;
      timer = setTimeout(() => {
        timer = undefined;
        for (const db of lokiDatabases(s)) {
          if (db.autosaveDirty()) db.saveDatabase((err) => { if (err) failed = true; });
        }
      }, windowMs);
    },
    cancel() {
      cancelled = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** A running disk-mode server's window saver (see saveWithin). */
interface Saver {
  /** Call on each 2xx response. */
  touch(): void;
  /** Drops a save not yet begun, and later touches (the stop saves). */
  cancel(): void;
  /** True once a window save failed. */
  readonly failed: boolean;
}

/** Turns off the autosave of each of the server's LokiJS databases (lokijs `autosaveDisable`). */
function stopAutosaves(s: ServerInternals): void {
  for (const db of lokiDatabases(s)) db.autosaveDisable?.();
}

/** The LokiJS databases a server holds: its metadata, and for blob and queue its extent metadata. */
function lokiDatabases(s: ServerInternals): LokiLike[] {
  return [s.metadataStore?.db, s.extentMetadataStore?.db].filter((db): db is LokiLike => db !== undefined && typeof db.saveDatabase === 'function');
}

/** The fields of a running azurite server that reclaim and the estimate use (set in *Server.js constructors). */
interface ServerInternals extends ServerBase {
  readonly metadataStore?: { db?: LokiLike };
  readonly extentMetadataStore?: { db?: LokiLike };
  readonly extentStore?: unknown;
  /** The server's account store (common/AccountDataStore.js), which reads AZURITE_ACCOUNTS (every minute until closed). */
  readonly accountDataStore?: { refresh?(): void; close?(): Promise<void> };
}

/**
 * One mark-and-sweep by azurite's own GC manager, with an all-extents provider that spares only
 * extents written in the last `spareMs` (azurite's AllExtentsAsyncIterator, its query time moved so
 * that its 10-minute protection ends `spareMs` ago). The manager runs its first sweep on start(), then logs
 * "Sleep for …" and sleeps; its logger tells us when that first sweep is done, then close() ends it.
 */
async function sweepOnce(kind: 'blob' | 'queue', s: ServerInternals, spareMs: number): Promise<void> {
  const now = Date.now() - spareMs;
  const extentMetadata = s.extentMetadataStore as unknown as ConstructorParameters<typeof AllExtentsAsyncIterator>[0];
  const allExtents = {
    isInitialized: () => true,
    init: async () => undefined,
    iteratorExtents: () => {
      const it = new AllExtentsAsyncIterator(extentMetadata);
      it.time = new Date(now + DEFAULT_EXTENT_GC_PROTECT_TIME_IN_MS);
      return it;
    },
  };
  let swept!: () => void;
  let failed!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => { swept = resolve; failed = reject; });
  const quiet = (message: string): void => { if (/markSweepLoop\(\) Sleep for/.test(message)) swept(); };
  const gcLogger = { error: quiet, warn: quiet, info: quiet, verbose: quiet, debug: quiet };
  const Manager = kind === 'blob' ? blobModules().GCManager : queueModules().GCManager;
  const gc = new Manager(s.metadataStore, allExtents, s.extentStore, (err: Error) => failed(err), gcLogger, 2 ** 30);
  await gc.start();
  try {
    await done;
  } finally {
    await gc.close();
  }
}


/**
 * The GC error azurite logs before it closes a server by itself: "Blob GC Manager critical error:
 * <message>\nStack: …" (blob/BlobServer.js, queue/QueueServer.js), at level "error".
 */
const GC_CRITICAL_ERROR = /^(Blob|Queue) GC Manager critical error: ([^\n]*)/;

/** The last GC critical error azurite logged per service kind (see {@link GC_CRITICAL_ERROR}); cleared at each start. */
const gcCriticalErrors = new Map<ServiceKind, string>();

/**
 * Routes azurite's process-wide debug log (common/Logger.js, a singleton whose `strategy` may be
 * replaced) to `sink`, or turns it off with undefined. Lines are "level: message". Either way the
 * strategy keeps the message of a GC critical error, which names why azurite closed a server
 * ({@link SelfClosure.gcError}); that costs each log call one comparison.
 */
export function setDebugLogSink(sink: ((line: string) => void) | undefined): void {
  logger.strategy = {
    log: (level: string, message: string, contextID?: string) => {
      if (level === 'error') {
        const critical = GC_CRITICAL_ERROR.exec(message);
        if (critical !== null) gcCriticalErrors.set(critical[1]!.toLowerCase() as ServiceKind, critical[2]!);
      }
      sink?.(`${level}: ${contextID ? `${contextID} ` : ''}${message}`);
    },
  };
}
setDebugLogSink(undefined);
