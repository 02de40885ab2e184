/**
 * The engine host's process (dist/engineProcess.js), a child of the extension host: loads the engine
 * (dist/engine.js, through the V8 code cache) and runs its services, answering the requests of
 * ./engineProtocol.ts over the IPC channel. Nothing here runs on the extension host's threads:
 * requests, the servers' work, azurite's timers and V8's garbage collection of the engine's heap all
 * run in this process, and an uncaught exception or an out-of-memory here ends this process, which
 * the extension host sees as an `exit` (./engineHost.ts), not as a crash of its own.
 *
 * Once the engine has loaded, every thread of this process runs at the lowest priority (nice 19;
 * see {@link lowerPriority}), so that when the CPU is short the editor runs first.
 *
 * If the extension host goes away without a word (its IPC channel closes), every service stops,
 * saving disk data, and the process exits: nothing is left running.
 *
 * Small on purpose: azurite itself is in dist/engine.js, loaded on the first request (`load`, sent
 * by the warm-up, or the first `start`).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import type { ServiceKind } from '../core/services';
import { SERVICE_KINDS } from '../core/services';
import { createApiVersionPolicy, type ApiVersionPolicy } from '../engine/apiVersionPolicy';
import type { EngineService, MeteredChunkStore } from './azurite';
import { CodeCachedModule, type CodeCacheState } from './codeCache';
import { DutyBoundValue } from './dutyBound';
import { redactCredentials } from '../core/redact';
import {
  ENGINE_DATA_VARIABLE, ENGINE_GONE, ENGINE_NICENESS, enginePriority, isIdleTick, type EngineEvent, type EngineMemoryFigures, type EngineOps, type EngineProcessData, type EngineRequest,
  type EngineResponse, type LoadResult, type WireServiceOptions,
} from './engineProtocol';

type Engine = typeof import('./azurite');

const sendToHost = process.send?.bind(process);
if (sendToHost === undefined) throw new Error('engineProcess.js runs only as a child process with an IPC channel (see src/emulator/engineHost.ts)');
const data = JSON.parse(process.env[ENGINE_DATA_VARIABLE] ?? '{}') as EngineProcessData;
// Read once; azurite and anything it starts need not see it.
delete process.env[ENGINE_DATA_VARIABLE];

/** Messages handed to the channel and not yet written (their callback has not run). */
let sending = 0;
let onSent: (() => void)[] = [];
const post = (message: EngineResponse | EngineEvent): void => {
  // The channel is gone when the extension host went away: 'disconnect' below ends this process.
  // It can go between this check and the write (EPIPE before 'disconnect' is seen). With a callback
  // the failure comes to it; without one Node emits it as an 'error' on process, an uncaught
  // exception here, whose handler exits at once: stops under way would not finish their saves.
  if (!process.connected) return;
  sending++;
  const sent = (): void => {
    if (--sending > 0) return;
    const waiters = onSent;
    onSent = [];
    for (const w of waiters) w();
  };
  try {
    sendToHost(message, undefined, {}, sent);
  } catch (err) {
    // A message that cannot be serialized throws here, before any callback: it counts as sent, or
    // every later wait for the channel (a finish's) would wait its whole bound.
    sent();
    throw err;
  }
};

/** Resolves once every message posted so far is written to the channel (or failed to be). */
function allSent(): Promise<void> {
  return sending === 0 ? Promise.resolve() : new Promise((resolve) => onSent.push(resolve));
}

/** The LokiJS metadata estimate (`stats`), made again only as its cost allows. */
const metadataEstimate = new DutyBoundValue<number>(0.05);

/** How long the end after a finish waits for the stops parked on it to answer, ms. */
const ANSWERS_BOUND_MS = 2000;

/**
 * Runs every thread of this process at nice {@link ENGINE_NICENESS} (19, the lowest priority), once
 * the engine has loaded. Every thread, not only the one that runs JavaScript: V8's helper threads
 * and libuv's pool are this process's too, and at normal priority V8's helpers held the extension
 * host's thread off the CPU while large uploads kept the engine busy (bench/README.md, "Engine
 * host"). Linux schedules threads one by one, and `setpriority` takes a thread id (the ids are in
 * /proc/self/task); threads started later inherit the nice value of the thread that starts them.
 * On macOS and Windows a priority belongs to the whole process; on Windows it is Below Normal, not
 * Idle ({@link enginePriority}). The load itself runs at normal
 * priority, since a click in a window that is still opening waits for it. Called after the
 * warm-up and after every start; the work is done once. A refusal leaves the priority as it is.
 */
let lowered = false;
function lowerPriority(): void {
  if (lowered) return;
  lowered = true;
  try {
    if (process.platform === 'linux') {
      for (const tid of fs.readdirSync('/proc/self/task')) os.setPriority(Number(tid), ENGINE_NICENESS);
    } else {
      os.setPriority(enginePriority(process.platform));
    }
  } catch {
    // Not allowed here (a sandbox, a container's seccomp policy): the engine runs at normal priority.
  }
}
// This process's environment is its own: azurite reads its accounts from here, and the extension host's stays as it is.
setAccountsVariable(data.accounts);

function setAccountsVariable(value: string | null | undefined): void {
  if (value === undefined || value === null) delete process.env['AZURITE_ACCOUNTS'];
  else process.env['AZURITE_ACCOUNTS'] = value;
}
const log = {
  info: (line: string) => post({ event: 'log', level: 'info', line }),
  error: (line: string) => post({ event: 'log', level: 'error', line }),
};

let engine: Engine | undefined;
let codeCacheState: CodeCacheState | undefined;
let loadMs = 0;
let store: MeteredChunkStore | undefined;
// Keyed by this process's V8 flags too: its heap limit is a window's setting, and windows share the folder.
const v8Flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
const cache = data.codeCacheDir !== undefined ? new CodeCachedModule<Engine>(data.enginePath, data.codeCacheDir, log, undefined, v8Flags) : undefined;
/**
 * Writes the code cache (`CodeCachedModule.save`: once, and only when there was none or V8 refused
 * it) after the answer under way is sent: V8 serializes the compiled code synchronously, which would
 * otherwise delay that answer (a first click's start) by as long.
 */
function saveCodeCacheLater(): void {
  if (cache !== undefined) setImmediate(() => void cache.save());
}
const services = new Map<number, EngineService>();
/** Each running service's kind and mode (what `contentBytes` needs to pick the store's figure). */
const serviceInfo = new Map<number, { readonly kind: ServiceKind; readonly inMemory: boolean }>();
const policies = {} as Record<ServiceKind, ApiVersionPolicy>;
for (const kind of SERVICE_KINDS) {
  policies[kind] = createApiVersionPolicy(data.apiVersionCheck, (asked, servedAs) => post({ event: 'servedNewer', kind, asked, servedAs }));
}

/** Lines batched per event-loop turn: one message per turn instead of one per request. */
const pendingAccess = new Map<number, string[]>();
let pendingDebug: string[] = [];
let flushScheduled = false;
let memoryScheduled = false;
function scheduleFlush(): void {
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(() => {
    flushScheduled = false;
    for (const [service, lines] of pendingAccess) post({ event: 'access', service, lines });
    pendingAccess.clear();
    if (pendingDebug.length > 0) post({ event: 'debug', lines: pendingDebug });
    pendingDebug = [];
  });
}
function memoryFigures(): EngineMemoryFigures {
  const s = store!;
  return { blobBytes: s.categoryBytes('blob'), queueBytes: s.categoryBytes('queue'), usedBytes: s.totalSize(), limitBytes: s.limitBytes() };
}
/**
 * Memory events at most once per MEMORY_EVENT_INTERVAL_MS, the last change always sent: under load a
 * post per request (a structured clone on this thread, a wake-up of the host's) cost a few percent
 * of each small request. The host's MemoryMeter throttles further, to one event a second for the UI.
 */
const MEMORY_EVENT_INTERVAL_MS = 100;
let lastMemoryPost = -Infinity;
function scheduleMemory(): void {
  if (memoryScheduled || store === undefined) return;
  memoryScheduled = true;
  const send = (): void => {
    memoryScheduled = false;
    lastMemoryPost = performance.now();
    post({ event: 'memory', ...memoryFigures() });
  };
  const wait = lastMemoryPost + MEMORY_EVENT_INTERVAL_MS - performance.now();
  if (wait <= 0) setImmediate(send);
  else setTimeout(send, wait).unref();
}

/**
 * `changed` events per service kind: the first change at once (the Storage view refreshes within a
 * second), then at most one per CHANGE_EVENT_INTERVAL_MS while clients keep writing, the last
 * change always sent; nothing while idle.
 */
const CHANGE_EVENT_INTERVAL_MS = 250;
const changeTimers = new Map<ServiceKind, { last: number; scheduled: boolean }>();
/** What `changesSentForTest` requests wait for: no `changed` event scheduled any more. */
const changesSentWaiters: (() => void)[] = [];
function scheduleChanged(kind: ServiceKind): void {
  let t = changeTimers.get(kind);
  if (t === undefined) changeTimers.set(kind, (t = { last: -Infinity, scheduled: false }));
  if (t.scheduled) return;
  t.scheduled = true;
  const timer = t;
  const send = (): void => {
    timer.scheduled = false;
    timer.last = performance.now();
    post({ event: 'changed', kind });
    if (changesSentWaiters.length > 0 && ![...changeTimers.values()].some((t) => t.scheduled)) for (const resolve of changesSentWaiters.splice(0)) resolve();
  };
  const wait = timer.last + CHANGE_EVENT_INTERVAL_MS - performance.now();
  if (wait <= 0) setImmediate(send);
  else setTimeout(send, wait).unref();
}

function setDebugLog(enabled: boolean): void {
  // Redacted here, so that a bearer token in a request's headers never leaves the engine's process.
  engine?.setDebugLogSink(enabled ? (line) => { pendingDebug.push(redactCredentials(line)); scheduleFlush(); } : undefined);
}

/**
 * Loads the engine once (through the code cache when there is one): its top level only. Each
 * service's part of azurite is required by its first start, or ahead of it by `preload`.
 */
function load(): Engine {
  if (engine !== undefined) return engine;
  const began = performance.now();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = cache !== undefined ? cache.load() : (require(data.enginePath) as Engine);
  loadMs = Math.round(performance.now() - began);
  codeCacheState = cache?.state;
  engine = loaded;
  if (data.checksumWorkerPath !== undefined) loaded.offloadChecksums(data.checksumWorkerPath, (line) => log.error(line));
  const s = new loaded.MeteredChunkStore(data.extentLimitBytes);
  s.onDidChange(scheduleMemory);
  s.onDidRefuse((r) => post({ event: 'refused', ...r }));
  store = s;
  setDebugLog(data.debugLog);
  return loaded;
}

/** True while `preload` runs: the code cache is then written when it ends, holding every service's code. */
let preloading = false;

function serviceOptions(service: number, o: WireServiceOptions): Parameters<Engine['createService']>[0] {
  return {
    ...o,
    apiVersionPolicy: policies[o.kind],
    accessLog: o.accessLog ? (line: string) => {
      let lines = pendingAccess.get(service);
      if (lines === undefined) pendingAccess.set(service, (lines = []));
      // A request's URL holds a SAS's signature; the log channel is written to VS Code's log files.
      lines.push(line.includes('sig=') ? redactCredentials(line) : line);
      scheduleFlush();
    } : undefined,
    memoryStore: store,
    saveLog: log,
    onDataChange: () => scheduleChanged(o.kind),
    onClosedItself: (closure) => {
      // A stop from the host that began meanwhile took the service out, and answers for it.
      if (!services.has(service)) return;
      services.delete(service);
      serviceInfo.delete(service);
      flushAccess(service);
      post({ event: 'closed', service, ...closure });
    },
  };
}

/** Sends the access lines of `service` batched this turn now, before what ends its log (a stop's answer, a `closed` event). */
function flushAccess(service: number): void {
  const lines = pendingAccess.get(service);
  pendingAccess.delete(service);
  if (lines !== undefined && lines.length > 0) post({ event: 'access', service, lines });
}

type Handler<K extends keyof EngineOps> = (request: EngineRequest<K>) => EngineOps[K]['value'] | Promise<EngineOps[K]['value']>;
const handlers: { [K in keyof EngineOps]: Handler<K> } = {
  load: (): LoadResult => {
    const e = load();
    return { loadMs, codeCache: codeCacheState, codeCacheFile: cache?.loadedFile, defaultLimitBytes: e.DEFAULT_LIMIT_BYTES, heapSizeLimitBytes: v8.getHeapStatistics().heap_size_limit };
  },
  preload: async () => {
    const e = load();
    const began = performance.now();
    preloading = true;
    try {
      // One service at a time, yielding between them: a start sent meanwhile (a click during the
      // warm-up) is handled after the service being loaded, not after all three.
      for (const kind of SERVICE_KINDS) {
        await new Promise((resolve) => setImmediate(resolve));
        e.preloadServiceModules([kind]);
      }
    } finally {
      preloading = false;
    }
    // The load ran at normal priority, so that a click in a window that is still opening does not
    // wait behind the editor's own start; serving requests runs below it.
    lowerPriority();
    // Written once, when there was none or V8 refused it: the next window's engine skips compiling.
    saveCodeCacheLater();
    return Math.round(performance.now() - began);
  },
  start: async ({ service, options }) => {
    // Finishing (a signal from outside): this process ends once what runs has saved.
    if (finishing !== undefined) throw Object.assign(new Error('the emulator engine is shutting down (it was sent a signal to end); start the service again in a moment'), { code: ENGINE_GONE });
    const e = load();
    const created = e.createService(serviceOptions(service, options));
    const endpoint = await created.start();
    // azurite read AZURITE_ACCOUNTS as the start began; a setAccounts during the start (it only
    // refreshes running services) would otherwise wait for azurite's own reread, 60 s later.
    created.refreshAccounts();
    lowerPriority();
    // Without a warm-up, the cache is written after the first start (it then holds what a start compiles).
    if (!preloading) saveCodeCacheLater();
    services.set(service, created);
    serviceInfo.set(service, { kind: options.kind, inMemory: options.inMemory });
    return endpoint;
  },
  stop: async ({ service }) => {
    const s = services.get(service);
    // Finishing (a signal from outside while the host stays): the service's stop is under way
    // there. Answered once it has saved, so the host does not go on (to a window's close and its
    // SIGTERM, which would end this process mid-save) while it still saves.
    if (s === undefined && finishing !== undefined) {
      // Parked: the finish does not wait for this stop (it waits for the finish).
      parkedStops++;
      try {
        await finishing;
      } finally {
        parkedStops--;
      }
      // The finish's stop of this service is this stop's: its failure (a save that threw) is
      // answered, not success. One still under way (the finish overdue) is waited for, as long as
      // the process still runs.
      const own = finishStops.get(service);
      finishStops.delete(service);
      await own;
    }
    services.delete(service);
    serviceInfo.delete(service);
    await s?.stop();
    // Its access lines batched this turn go now, before the stop's answer (when the host drops the
    // service's log sink), not at the turn's end.
    flushAccess(service);
    return null;
  },
  clean: async ({ options }) => {
    await load().createService(serviceOptions(-1, { ...options, accessLog: false })).clean();
    return null;
  },
  reclaim: async ({ service, idleWaitMs, spareMs }) => {
    const s = services.get(service);
    if (s === undefined || store === undefined) return 0;
    const before = store.totalSize();
    await s.reclaim(idleWaitMs, spareMs ?? 0);
    // A stop during the reclaim freed the service's content; that is not the reclaim's.
    if (services.get(service) !== s) return 0;
    return Math.max(0, before - store.totalSize());
  },
  contentBytes: ({ service }) => {
    const s = services.get(service);
    if (s === undefined) return null;
    const info = serviceInfo.get(service);
    const storeBytes = info?.inMemory === true && store !== undefined ? store.categoryBytes(info.kind) : undefined;
    return s.contentBytes(storeBytes) ?? null;
  },
  memory: () => {
    load();
    return memoryFigures();
  },
  setLimit: ({ limitBytes }) => {
    const e = load();
    const limit = limitBytes ?? e.DEFAULT_LIMIT_BYTES;
    if (limit === store!.sizeLimit()) return true;
    const ok = store!.setSizeLimit(limit);
    if (ok) scheduleMemory();
    return ok;
  },
  stats: () => {
    // The memory view asks every second or two while it is open: the walk over every record takes
    // at most 5% of this thread, however much data there is.
    const metadataEstimateBytes = metadataEstimate.get([...services.keys()].join(), () => {
      let bytes = 0;
      for (const s of services.values()) bytes += s.metadataBytesEstimate();
      return bytes;
    });
    const { heapUsed, rss } = process.memoryUsage();
    return { metadataEstimateBytes, heapUsedBytes: heapUsed, rssBytes: rss };
  },
  setApiVersionCheck: ({ mode }) => {
    for (const kind of SERVICE_KINDS) policies[kind].mode = mode;
    return null;
  },
  setAccounts: ({ value }) => {
    setAccountsVariable(value);
    for (const s of services.values()) s.refreshAccounts();
    return null;
  },
  setDebugLog: ({ enabled }) => {
    setDebugLog(enabled);
    return null;
  },
  collectGarbageForTest: () => {
    v8.setFlagsFromString('--expose-gc');
    (vm.runInNewContext('gc') as () => void)();
    return null;
  },
  changesSentForTest: async () => {
    // Answered after the last `changed` event it waits for: the host receives that event first.
    if ([...changeTimers.values()].some((t) => t.scheduled)) await new Promise<void>((resolve) => changesSentWaiters.push(resolve));
    return null;
  },
  crashForTest: () => {
    setImmediate(() => { throw new Error('engine crash forced by a test (crashForTest)'); });
    return null;
  },
  exhaustHeapForTest: () => {
    const kept: unknown[] = [];
    setImmediate(() => {
      for (;;) kept.push(Array.from({ length: 1024 }, (_, i) => ({ i, text: `entity ${i}` })));
    });
    return null;
  },
};

/**
 * An uncaught exception ends this process; the extension host first gets its
 * message (`fatal`), so that what it shows says why.
 */
process.on('uncaughtException', (err) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${err instanceof Error ? err.stack ?? message : message}\n`);
  const exit = (): never => process.exit(70);
  if (!process.connected) exit();
  sendToHost({ event: 'fatal', message } satisfies EngineEvent, undefined, {}, exit);
  setTimeout(exit, 1000);
});

/**
 * Starts, stops and cleans under way. A stop takes its service out of `services` before it saves,
 * so the `disconnect` handler waits for these before it stops what is left and exits: a stop that
 * deactivate() sent just before the extension host went away still finishes its save.
 */
const lifecycleUnderWay = new Set<Promise<unknown>>();
const LIFECYCLE_OPS: ReadonlySet<keyof EngineOps> = new Set<keyof EngineOps>(['start', 'stop', 'clean']);

/**
 * How the engine, once its extension host has gone, bounds its wait for the lifecycle requests and
 * stops under way. It checks once a second (a tick); it exits after {@link EXIT_IDLE_TICKS} ticks in
 * a row in which nothing ran ({@link isIdleTick}: under 2 ms of CPU time, no file system
 * request pending (nothing runs: a stop hangs), or after {@link EXIT_MAX_TICKS} ticks in all
 * (something runs and never ends). A save to a slow disk (a network share, a USB drive) uses little
 * CPU while its write is pending: it is not idle.
 *
 * Counted in ticks and CPU time, not in wall time: at nice 19 on a machine whose cores are busy, or
 * stopped for a while (a suspended machine, SIGSTOP), the engine is slow but still saving, and a
 * bound in wall time cut that save short. A starved or stopped process runs late ticks, and fewer.
 */
const EXIT_IDLE_TICKS = 10;
/** Ticks after which the engine exits whatever runs (about 2 minutes when it is not starved). */
const EXIT_MAX_TICKS = 120;

/**
 * Resolves when this process has been idle for {@link EXIT_IDLE_TICKS} ticks in a row, or after
 * {@link EXIT_MAX_TICKS} ticks.
 */
function idleOrOverdue(): Promise<void> {
  return new Promise((resolve) => {
    let ticks = 0;
    let idleTicks = 0;
    let cpu = process.cpuUsage();
    const timer = setInterval(() => {
      const used = process.cpuUsage(cpu);
      cpu = process.cpuUsage();
      ticks++;
      idleTicks = isIdleTick((used.user + used.system) / 1000, process.getActiveResourcesInfo()) ? idleTicks + 1 : 0;
      if (idleTicks >= EXIT_IDLE_TICKS || ticks >= EXIT_MAX_TICKS) {
        clearInterval(timer);
        resolve();
      }
    }, 1000);
  });
}

/**
 * Lets the starts, stops and cleans under way finish, stops every service still running, which
 * saves disk data and frees the ports, lets the stops that waited for it answer, then calls `end`.
 * Bounded by {@link idleOrOverdue} (and {@link ANSWERS_BOUND_MS} for the answers). Once only:
 * a second call (a signal after the channel closed) leaves the first to end the process.
 */
let finishing: Promise<void> | undefined;
/** Stops in `lifecycleUnderWay` that wait for {@link finishing} (their service was already taken by it). */
let parkedStops = 0;
/**
 * The stop {@link finishThen} ran of each service it took, by the service's number: a stop the host
 * sends for it meanwhile answers with its outcome (rejected: the save failed).
 */
const finishStops = new Map<number, Promise<void>>();
function finishThen(end: () => void): void {
  if (finishing !== undefined) return;
  const finish = async (): Promise<void> => {
    // Until nothing is under way and nothing runs: a stop the host sends meanwhile (after a signal
    // from outside it is still there) takes its service out of `services` and saves on its own.
    for (;;) {
      // Until only the stops parked on this finish are left (each turn: until one of the others ends).
      while (lifecycleUnderWay.size > parkedStops) await Promise.race([...lifecycleUnderWay].map((p) => p.catch(() => undefined)));
      if (services.size === 0) return;
      const stops = [...services].map(([id, s]) => {
        const stop = s.stop();
        finishStops.set(id, stop);
        // Every service is stopped, whatever another's stop does; a failure is the parked stop's to answer.
        return stop.catch(() => undefined);
      });
      services.clear();
      await Promise.all(stops);
    }
  };
  finishing = Promise.race([finish(), idleOrOverdue()]);
  // The stops parked on the finish answer before the process ends (their answers written).
  void finishing.then(async () => {
    const answered = Promise.all([...lifecycleUnderWay].map((p) => p.catch(() => undefined))).then(allSent);
    await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, ANSWERS_BOUND_MS))]);
    end();
  });
}

/** The extension host went away (it exited or crashed, or ended this process's channel): {@link finishThen} exit. */
process.on('disconnect', () => finishThen(() => process.exit(0)));

/**
 * A signal that would end this process at once (SIGTERM: the extension host's terminate, or a
 * `kill` from outside; SIGINT, SIGHUP: Ctrl+C or a closed terminal reaching the process group)
 * first saves what is unsaved ({@link finishThen}), then ends it with that signal, as the extension
 * host reports it ("it was ended by SIGTERM"). A second signal ends it at once; the extension
 * host's SIGKILL still bounds the wait. Linux and macOS only: on Windows a kill ends a process
 * without a signal it could handle.
 */
let signalled = false;
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  const endWith = (): void => {
    process.removeAllListeners(signal);
    try {
      process.kill(process.pid, signal);
    } catch {
      process.exit(1);
    }
  };
  process.on(signal, () => {
    // A second signal (Ctrl+C twice) ends the process at once, as it would have without this.
    if (signalled) return endWith();
    signalled = true;
    finishThen(endWith);
  });
}

process.on('message', (request: EngineRequest) => {
  const handler = handlers[request.op] as Handler<keyof EngineOps>;
  const handled = (async () => {
    try {
      const value = await handler(request as never);
      post({ id: request.id, ok: true, value });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      // The name too when it says more than "Error": a SyntaxError from loading damaged data files.
      const name = typeof e?.name === 'string' && e.name !== 'Error' ? { name: e.name } : {};
      post({ id: request.id, ok: false, error: { message: e?.message ?? String(err), ...(typeof e?.code === 'string' ? { code: e.code } : {}), ...name } });
    }
  })();
  if (LIFECYCLE_OPS.has(request.op)) {
    lifecycleUnderWay.add(handled);
    void handled.finally(() => lifecycleUnderWay.delete(handled));
  }
});
