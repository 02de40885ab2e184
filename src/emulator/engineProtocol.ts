/**
 * The one way across to the engine host: the messages between the extension host (src/emulator/
 * engineHost.ts) and the engine's process (src/emulator/engineProcess.ts), over Node's IPC channel
 * with `serialization: 'advanced'` (V8's structured clone). Plain data only: no functions, no class
 * instances. docs/ARCHITECTURE.md describes the flow.
 *
 * Requests carry an `id`; the engine answers each with exactly one {@link EngineResponse} of the
 * same id. Events ({@link EngineEvent}) flow from the engine unasked. A service the host makes
 * gets a number (`service`), chosen by the host, that names it in later requests and events.
 */
import type { ApiVersionCheck } from '../core/apiVersions';
import type { Endpoint } from '../core/lifecycle';
import type { ServiceKind } from '../core/services';
import type { ContentBytes, EngineServiceOptions, SelfClosure } from './azurite';
import type { CodeCacheState } from './codeCache';

/**
 * The nice value every thread of the engine's process runs at once the engine has loaded: 19, the
 * lowest priority (bench/README.md, "Engine host", has the measurements behind it).
 */
export const ENGINE_NICENESS = 19;

/**
 * The priority the engine's process lowers itself to on `platform` (for `os.setPriority`). Nice 19
 * on Linux and macOS, where it still gets its share of a busy CPU. On Windows libuv turns 19 into
 * the Idle priority class, whose threads run only when no normal-priority thread wants the CPU:
 * a test run that keeps every core busy would starve the emulator it talks to. There it is Below
 * Normal (`os.constants.priority.PRIORITY_BELOW_NORMAL`, 10).
 */
export function enginePriority(platform: NodeJS.Platform): number {
  return platform === 'win32' ? 10 : ENGINE_NICENESS;
}

/** A tick (1 s) of the engine's wait after its extension host has gone that used under this much CPU time (ms) may be idle. */
export const IDLE_CPU_MS = 2;

/**
 * True for a tick of the engine's wait after its extension host has gone (./engineProcess.ts) in
 * which nothing ran: under {@link IDLE_CPU_MS} ms of CPU time and no file system request pending
 * (libuv's `FSReqCallback`, `FSReqPromise`, … among `process.getActiveResourcesInfo()`). A save to
 * a slow disk uses little CPU while its write is pending, and is not idle.
 * @param cpuMs CPU time used in the tick (ms)
 * @param activeResources what keeps the event loop alive, as `process.getActiveResourcesInfo()` names it
 */
export function isIdleTick(cpuMs: number, activeResources: readonly string[]): boolean {
  return cpuMs < IDLE_CPU_MS && !activeResources.some((r) => r.startsWith('FSReq'));
}

/** The environment variable that carries {@link EngineProcessData} to the engine's process. */
export const ENGINE_DATA_VARIABLE = 'STORAGE_EMULATORS_ENGINE_DATA';

/**
 * The `code` of an error a request fails with because the engine's process ended, or was shutting
 * down and refused it: lifecycle failures of that cause have reason `engine` (../core/outcome.ts).
 */
export const ENGINE_GONE = 'ENGINE_GONE';

/**
 * What the engine's process is started with: JSON in its environment variable
 * {@link ENGINE_DATA_VARIABLE}, which it reads and removes first thing. Not an argument: a
 * process's command line can be read by every user of the machine, and this holds account keys.
 * Paths absolute; sizes in bytes.
 */
export interface EngineProcessData {
  /** The engine module: dist/engine.js (src/emulator/azurite.ts bundled with azurite and the seams). */
  readonly enginePath: string;
  /** Folder of the engine's V8 code cache, or undefined to load the engine with plain require. */
  readonly codeCacheDir: string | undefined;
  /**
   * The checksum thread's entry (dist/checksumWorker.js): large bodies are hashed there
   * (src/engine/checksumThread.ts). Undefined: on the serving thread, as azurite does.
   */
  readonly checksumWorkerPath: string | undefined;
  /** The extent store's limit in bytes at start; undefined = Azurite's default (50% of total memory). */
  readonly extentLimitBytes: number | undefined;
  /** The API-version policy at start (changed later with `setApiVersionCheck`). */
  readonly apiVersionCheck: ApiVersionCheck;
  /** True to route azurite's debug log to `debug` events from the start. */
  readonly debugLog: boolean;
  /** The process's `AZURITE_ACCOUNTS` at start (changed later with `setAccounts`); undefined = Azurite's default account only. */
  readonly accounts?: string | undefined;
}

/**
 * A service's options as they cross: the adapter's EngineServiceOptions without what cannot cross
 * (the engine makes the API-version policy and the chunk store itself), and `accessLog` as a flag.
 */
export type WireServiceOptions = Omit<EngineServiceOptions, 'accessLog' | 'apiVersionPolicy' | 'memoryStore' | 'onDataChange' | 'onClosedItself' | 'saveLog'> & {
  /** True: send the service's access-log lines as `access` events. */
  readonly accessLog: boolean;
};

/** What `load` answers: how long loading took (ms) and what happened to the code cache. */
export interface LoadResult {
  readonly loadMs: number;
  readonly codeCache: CodeCacheState | undefined;
  /** The code cache file the load looked for (absolute path); undefined without a cache folder. */
  readonly codeCacheFile?: string | undefined;
  /** Azurite's default extent limit in bytes (50% of total memory). */
  readonly defaultLimitBytes: number;
  /**
   * The largest heap V8 lets the engine's process have, in bytes (`v8.getHeapStatistics()
   * .heap_size_limit`): about `azurite.engine.heapLimit` plus the young generation, or less where
   * the runtime caps it (Electron, which desktop VS Code runs extensions on, builds V8 with pointer
   * compression: 4 GB at most).
   */
  readonly heapSizeLimitBytes: number;
}

/** The extent store's figures (bytes), as the `memory` event and request carry them. */
export interface EngineMemoryFigures {
  readonly blobBytes: number;
  readonly queueBytes: number;
  readonly usedBytes: number;
  readonly limitBytes: number;
}

/** What `stats` answers (bytes): the LokiJS estimate of the running services, and the engine process's heap and resident set. */
export interface EngineStats {
  readonly metadataEstimateBytes: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
}

/**
 * Each request: its fields (besides `op` and `id`) and the value its answer carries.
 * - `load`: load the engine's top level, listen on nothing (the first step of a start and the warm-up).
 * - `preload`: require every service's part of azurite, one at a time, so that a start sent meanwhile
 *   waits for one service's, not three (the rest of the warm-up); the answer is the time taken (ms).
 * - `start`: make and start a service; the answer is its real endpoint.
 * - `stop`: stop it; answered when the port is free and disk data is saved.
 * - `clean`: delete a stopped service's data.
 * - `reclaim`: free unreferenced extents of a running service now, once no request is in flight
 *   (waiting at most `idleWaitMs`, else it fails with code `EBUSY`), sparing extents written in the
 *   last `spareMs` (0 by default); the answer is the bytes freed.
 * - `contentBytes`: the content bytes per container or queue of a running blob or queue service
 *   (null for table or when not running).
 * - `memory`: the extent store's figures now (also sent unasked as `memory` events).
 * - `setLimit`: the extent limit in bytes (null = Azurite's default); false when below current use.
 * - `setAccounts`: the engine process's own `AZURITE_ACCOUNTS` (null: unset), read again by running services at once.
 * - `crashForTest`: throw an uncaught exception in the engine (tests of crash handling only).
 * - `exhaustHeapForTest`: fill the engine's heap until it runs out (tests of the heap limit only).
 * - `collectGarbageForTest`: a full garbage collection in the engine (tests that measure leaks only).
 * - `changesSentForTest`: answered once no `changed` event is scheduled, after the last one sent: every
 *   change of a request answered before this one has then reached the host (tests of those events only).
 */
export interface EngineOps {
  load: { request: Record<never, never>; value: LoadResult };
  preload: { request: Record<never, never>; value: number };
  start: { request: { service: number; options: WireServiceOptions }; value: Endpoint };
  stop: { request: { service: number }; value: null };
  clean: { request: { options: WireServiceOptions }; value: null };
  reclaim: { request: { service: number; idleWaitMs: number; spareMs?: number }; value: number };
  contentBytes: { request: { service: number }; value: ContentBytes | null };
  memory: { request: Record<never, never>; value: EngineMemoryFigures };
  setLimit: { request: { limitBytes: number | null }; value: boolean };
  stats: { request: Record<never, never>; value: EngineStats };
  setApiVersionCheck: { request: { mode: ApiVersionCheck }; value: null };
  setDebugLog: { request: { enabled: boolean }; value: null };
  setAccounts: { request: { value: string | null }; value: null };
  crashForTest: { request: Record<never, never>; value: null };
  exhaustHeapForTest: { request: Record<never, never>; value: null };
  collectGarbageForTest: { request: Record<never, never>; value: null };
  changesSentForTest: { request: Record<never, never>; value: null };
}

/** An operation name. */
export type EngineOp = keyof EngineOps;

/** A request of operation `K`. */
export type EngineRequest<K extends EngineOp = EngineOp> = { readonly id: number; readonly op: K } & EngineOps[K]['request'];

/**
 * The answer to one request. `error.code` is Node's error code when there is one (EADDRINUSE …);
 * `error.name` the error's class when it is not plain `Error` (SyntaxError …).
 */
export type EngineResponse =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: { readonly message: string; readonly code?: string; readonly name?: string } };

/** What the engine says unasked. Sizes in bytes. */
export type EngineEvent =
  /** The extent store changed; sent at most once per 100 ms, the last change always sent. */
  | { readonly event: 'memory'; readonly blobBytes: number; readonly queueBytes: number; readonly usedBytes: number; readonly limitBytes: number }
  /** A write was refused by the limit (HTTP 409 MemoryExtentStoreAtSizeLimit). */
  | { readonly event: 'refused'; readonly category: string; readonly requestedBytes: number; readonly usedBytes: number; readonly limitBytes: number }
  /** Access-log lines of one service, batched per event-loop turn. */
  | { readonly event: 'access'; readonly service: number; readonly lines: readonly string[] }
  /** azurite's debug-log lines, batched per event-loop turn. */
  | { readonly event: 'debug'; readonly lines: readonly string[] }
  /** The first request of a version newer than the engine knows, per service kind. */
  | { readonly event: 'servedNewer'; readonly kind: ServiceKind; readonly asked: string; readonly servedAs: string }
  /**
   * A request that may have changed a service's data was answered (azurite.ts `changesData`): sent
   * at once, then at most once per 250 ms per service kind while changes go on, the last always sent.
   */
  | { readonly event: 'changed'; readonly kind: ServiceKind }
  /**
   * Azurite closed a running service by itself (its GC's critical error; azurite.ts
   * `EngineServiceOptions.onClosedItself`). Sent once the service is stopped as a stop would leave it
   * (port free, disk data saved or `saveError` set); the engine has forgotten the service, so a
   * later `stop` of it answers at once. Not sent when the host's own stop of it began first.
   */
  | ({ readonly event: 'closed'; readonly service: number } & SelfClosure)
  /** An uncaught exception is ending the engine's process: its message, sent just before the exit. */
  | { readonly event: 'fatal'; readonly message: string }
  /** A line for the output channel (code cache outcomes and the like). */
  | { readonly event: 'log'; readonly level: 'info' | 'error'; readonly line: string };

/** Anything the engine sends. */
export type EngineMessage = EngineResponse | EngineEvent;

/** True when `message` is an event rather than a response. */
export function isEngineEvent(message: EngineMessage): message is EngineEvent {
  return 'event' in message;
}
