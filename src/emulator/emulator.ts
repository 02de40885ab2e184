/**
 * The emulator: three {@link ServiceManager}s (blob, queue, table) and one in-memory chunk store
 * shared by blob and queue, driven by validated settings. Knows nothing of VS Code; the extension
 * feeds it settings and draws its events.
 */
import { connectionString, type ClientAddress } from '../core/connectionString';
import { Emitter, type Event } from '../core/events';
import type { Endpoint, ServiceState } from '../core/lifecycle';
import { formatBytes, type MemoryReport } from '../core/memory';
import { EXTENT_SERVICE_KINDS, SERVICE_KINDS, serviceName, type ServiceKind } from '../core/services';
import { errorsFor, type EmulatorOptions, type ParsedSettings } from '../core/settings';
import { needsRestart } from '../core/configChange';
import * as os from 'node:os';
import { dataFileNames } from '../core/dataFiles';
import { defaultLimitBytes } from '../core/memory';
import type { EngineServiceOptions, MeteredChunkStore } from './azurite';
import { diskUsageBytes } from './diskUsage';
import { createApiVersionPolicy, type ApiVersionPolicy } from '../engine/apiVersionPolicy';
import { ENGINE_API_VERSIONS } from './engineFacts';
import { ServiceManager, type Outcome } from './serviceManager';
import { takeUnfinishedSave, unfinishedSaveMessage, type UnfinishedSave } from './shutdownMarker';

/** The engine module's shape (src/emulator/azurite.ts): loaded lazily, so only its type is imported here. */
export type Engine = typeof import('./azurite');

/** Where the emulator's log lines go (an output channel in the extension, an array in tests). */
export interface EmulatorLog {
  info(line: string): void;
  error(line: string): void;
  /** One access-log line per request, prefixed with the service name (only when `azurite.silent` is off). */
  access(line: string): void;
  /** Azurite's debug log (only called when `azurite.debug` is on). */
  debug(line: string): void;
}

/** A state change of one service. */
export interface ServiceStateChange {
  readonly kind: ServiceKind;
  readonly state: ServiceState;
}

/** Minimum time between two memory events while content changes, in ms. */
export const MEMORY_REFRESH_MS = 1000;

/** Refusals closer together than this (ms) belong to one burst, reported once. */
export const LIMIT_BURST_GAP_MS = 5000;

/**
 * The first write refused by the memory limit in a burst (HTTP 409 MemoryExtentStoreAtSizeLimit).
 * Sizes in bytes.
 */
export interface LimitHit {
  readonly kind: ServiceKind;
  readonly requestedBytes: number;
  readonly usedBytes: number;
  readonly limitBytes: number;
}

/** Where memory goes beyond the extent store. Bytes; `metadataEstimateBytes` is an estimate. */
export interface MemoryBreakdown {
  readonly report: MemoryReport;
  /** LokiJS metadata of running services: serialized JSON length (see EngineService.metadataBytesEstimate). */
  readonly metadataEstimateBytes: number;
  readonly heapUsedBytes: number;
  readonly rssBytes: number;
}

/** Lifecycle operations that {@link Emulator} runs one at a time per service. */
type LifecycleVerb = 'start' | 'stop' | 'clean' | 'restart';

const OK: Outcome = { ok: true };

/** Runs the three services. Dispose with {@link Emulator.dispose} (stops everything). */
export class Emulator {
  /** One manager per service kind. */
  readonly services: Readonly<Record<ServiceKind, ServiceManager>>;
  private settings: ParsedSettings;
  /** The engine module, loaded on the first start or clean (src/emulator/azurite.ts; dist/engine.js when bundled). */
  private engine: Engine | undefined;
  private engineLoading: Promise<Engine> | undefined;
  /** The emulator's chunk store, made when the engine loads. */
  private store: MeteredChunkStore | undefined;
  private readonly stateEmitter = new Emitter<ServiceStateChange>();
  private readonly memoryEmitter = new Emitter<MemoryReport>();
  private memoryTimer: NodeJS.Timeout | undefined;
  private lastMemoryEventAt = 0;
  private unsubscribeStore: () => void = () => undefined;
  private unsubscribeRefusals: () => void = () => undefined;
  private readonly limitEmitter = new Emitter<LimitHit>();
  private lastRefusalAt = 0;
  /** The `extentMemoryLimitBytes` setting the store's limit came from (undefined = Azurite's default). */
  private appliedLimitSetting: number | undefined;
  /** Whether each service was last started in memory mode (settings may have changed since). */
  private readonly lastStartInMemory: Record<ServiceKind, boolean> = { blob: false, queue: false, table: false };
  /** The options each running service was started with. */
  private readonly startedWith: Partial<Record<ServiceKind, EmulatorOptions>> = {};
  /**
   * Each service's API-version policy, handed to its servers and read by the engine on every request
   * (src/engine/apiVersionPolicy.ts), so `updateSettings` changes it under a running server.
   */
  private readonly apiVersionPolicies: Readonly<Record<ServiceKind, ApiVersionPolicy>>;
  /** The lifecycle operation under way per service, if any (see {@link serialize}). */
  private readonly inFlight: Partial<Record<ServiceKind, { readonly verb: LifecycleVerb; readonly done: Promise<Outcome> }>> = {};

  /** Fires after any service changes state. */
  readonly onDidChangeState: Event<ServiceStateChange> = this.stateEmitter.event;
  /**
   * Fires with a fresh report after in-memory content changes, at most once per
   * {@link MEMORY_REFRESH_MS}; never while nothing changes.
   */
  readonly onDidChangeMemory: Event<MemoryReport> = this.memoryEmitter.event;
  /**
   * Fires once per burst of writes refused by the memory limit: for the first refusal after
   * {@link LIMIT_BURST_GAP_MS} without one.
   */
  readonly onDidHitLimit: Event<LimitHit> = this.limitEmitter.event;
  private readonly unfinishedSaveEmitter = new Emitter<UnfinishedSave>();
  /**
   * Fires when a disk-mode service starts on a folder where its last stop began saving and never
   * finished (./shutdownMarker.ts): data written just before that stop may be missing. Once per
   * marker; the log says so too (error level).
   */
  readonly onDidFindUnfinishedSave: Event<UnfinishedSave> = this.unfinishedSaveEmitter.event;

  /**
   * @param loadEngine loads the engine module; called once, on the first start or clean, so that
   *   activation does not pay for azurite (the extension passes a loader of dist/engine.js through a
   *   V8 code cache, src/emulator/codeCache.ts; the default requires the engine directly).
   */
  constructor(
    settings: ParsedSettings,
    private readonly log: EmulatorLog,
    // A require, not an import, so that loading waits for the first start; the bundle maps it to
    // dist/engine.js (esbuild.mjs).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    private readonly loadEngine: () => Engine | Promise<Engine> = () => require('./azurite') as Engine,
  ) {
    // Logging must never throw: on shutdown the output channel may already be disposed, and a throw
    // there would end the stop before the data is saved.
    this.log = neverThrows(log);
    this.settings = settings;
    this.appliedLimitSetting = settings.options.extentMemoryLimitBytes;
    const services = {} as Record<ServiceKind, ServiceManager>;
    for (const kind of SERVICE_KINDS) {
      const manager = new ServiceManager(kind, (o) => this.engine!.createService(o));
      manager.onDidChangeState((state) => {
        this.stateEmitter.fire({ kind, state });
        if (state.status === 'running' && !this.lastStartInMemory[kind]) void this.reportUnfinishedSave(kind, this.settings.options.location);
      });
      services[kind] = manager;
    }
    this.services = services;
    const policies = {} as Record<ServiceKind, ApiVersionPolicy>;
    for (const kind of SERVICE_KINDS) {
      policies[kind] = createApiVersionPolicy(settings.options.apiVersionCheck, (asked, servedAs) =>
        this.log.info(`${serviceName(kind)}: a client asked for API version ${asked}, newer than the newest this engine knows; serving it as ${servedAs} (azurite.apiVersionCheck: acceptNewer).`));
    }
    this.apiVersionPolicies = policies;
  }

  /** The options in force for the next start. */
  get options(): EmulatorOptions {
    return this.settings.options;
  }

  /**
   * Replaces the settings. Applied at once: the debug and access logs, and the memory limit when a
   * blob or queue service runs in memory (a limit below current use is refused: the message is
   * returned and the old limit stays). Everything else applies from the next start: see
   * {@link servicesNeedingRestart}.
   * @returns messages about settings that could not be applied live
   */
  updateSettings(settings: ParsedSettings): string[] {
    const wasSilent = this.settings.options.silent;
    this.settings = settings;
    for (const kind of SERVICE_KINDS) this.apiVersionPolicies[kind].mode = settings.options.apiVersionCheck;
    if (wasSilent && !settings.options.silent) {
      const quiet = SERVICE_KINDS.filter((k) => this.services[k].state.status === 'running' && this.startedWith[k]?.silent === true);
      if (quiet.length > 0) this.log.info(`Access log: ${quiet.map(serviceName).join(', ')} started with azurite.silent on and log requests from their next start.`);
    }
    if (SERVICE_KINDS.some((k) => this.services[k].state.status === 'running')) this.applyDebugLog();
    const problems: string[] = [];
    const memoryKind = EXTENT_SERVICE_KINDS.find((k) => this.services[k].state.status === 'running' && this.lastStartInMemory[k]);
    if (memoryKind !== undefined) {
      const refused = this.checkMemoryLimit(this.serviceOptions(memoryKind));
      if (refused !== undefined) problems.push(refused);
    }
    return problems;
  }

  /** Running services whose settings changed in a way only a restart applies. */
  servicesNeedingRestart(): ServiceKind[] {
    return SERVICE_KINDS.filter((k) => {
      const started = this.startedWith[k];
      return this.services[k].state.status === 'running' && started !== undefined && needsRestart(k, started, this.settings.options);
    });
  }

  /** True when `kind` runs in memory mode: a restart would drop its data. */
  isRunningInMemory(kind: ServiceKind): boolean {
    return this.services[kind].state.status === 'running' && this.lastStartInMemory[kind];
  }

  /** Stops and starts `kind` with the settings now in force (after any operation under way on it). */
  restart(kind: ServiceKind): Promise<Outcome> {
    return this.serialize(kind, 'restart', async () => {
      if (this.services[kind].state.status === 'running') {
        const stopped = await this.stopNow(kind);
        if (!stopped.ok) return stopped;
      }
      return this.startNow(kind);
    });
  }

  /** Setting error messages that stop `kind` from starting. */
  settingErrors(kind: ServiceKind): string[] {
    return errorsFor(this.settings.errors, kind).map((e) => e.message);
  }

  /** Loads the engine once; later calls return the loaded module. Logs the load time. */
  async engineModule(): Promise<Engine> {
    if (this.engine !== undefined) return this.engine;
    this.engineLoading ??= (async () => {
      const started = performance.now();
      const engine = await this.loadEngine();
      this.log.info(`Engine loaded in ${Math.round(performance.now() - started)} ms`);
      const store = new engine.MeteredChunkStore(this.settings.options.extentMemoryLimitBytes);
      this.unsubscribeStore = store.onDidChange(() => this.scheduleMemoryEvent());
      this.unsubscribeRefusals = store.onDidRefuse((r) => {
        const now = Date.now();
        const first = now - this.lastRefusalAt > LIMIT_BURST_GAP_MS;
        this.lastRefusalAt = now;
        if (first) this.limitEmitter.fire({ kind: r.category === 'queue' ? 'queue' : 'blob', requestedBytes: r.requestedBytes, usedBytes: r.usedBytes, limitBytes: r.limitBytes });
      });
      this.store = store;
      this.engine = engine;
      return engine;
    })();
    return this.engineLoading;
  }

  /**
   * Starts one service. Idempotent: on a running service it resolves `{ ok: true }` and does
   * nothing; while a start of it is under way it resolves with that start's outcome; after a stop,
   * clean or restart under way it waits for that, then starts. Never rejects.
   */
  start(kind: ServiceKind): Promise<Outcome> {
    return this.serialize(kind, 'start', () => (this.services[kind].state.status === 'running' ? Promise.resolve(OK) : this.startNow(kind)));
  }

  /**
   * Stops one service; resolves when its port is free. Idempotent like {@link start}: a stopped
   * service resolves `{ ok: true }`, a stop under way is shared, a start under way is waited for.
   */
  stop(kind: ServiceKind): Promise<Outcome> {
    return this.serialize(kind, 'stop', () => (this.services[kind].state.status === 'running' ? this.stopNow(kind) : Promise.resolve(OK)));
  }

  /**
   * Runs lifecycle operations of one service one after another. A call with the same verb as the
   * operation under way (the latest one asked for) shares its outcome instead of running again, so
   * two clicks, or a command from another extension during a click, never start a second server.
   */
  private serialize(kind: ServiceKind, verb: LifecycleVerb, operation: () => Promise<Outcome>): Promise<Outcome> {
    const current = this.inFlight[kind];
    if (current !== undefined && current.verb === verb) return current.done;
    const done: Promise<Outcome> = (current?.done ?? Promise.resolve(OK))
      .then(operation)
      .catch((err: unknown) => ({ ok: false, message: `${serviceName(kind)} service: ${(err as Error).message}` }) as Outcome)
      .finally(() => { if (this.inFlight[kind]?.done === done) delete this.inFlight[kind]; });
    this.inFlight[kind] = { verb, done };
    return done;
  }

  private async startNow(kind: ServiceKind): Promise<Outcome> {
    const began = performance.now();
    try {
      await this.engineModule();
    } catch (err) {
      const message = `${serviceName(kind)} service could not start: the emulator engine did not load (${(err as Error).message}).`;
      this.log.error(message);
      return { ok: false, message };
    }
    const options = this.serviceOptions(kind);
    this.applyDebugLog();
    this.lastStartInMemory[kind] = options.inMemory;
    const startedWith = this.settings.options;
    const outcome = await this.services[kind].start(options, this.settingErrors(kind), (o) => this.checkMemoryLimit(o));
    if (outcome.ok) this.startedWith[kind] = startedWith;
    this.report(kind, outcome, `listening on ${this.endpoint(kind)?.url ?? ''}${options.inMemory ? ' (in memory)' : ` (data in ${options.location})`}, started in ${Math.round(performance.now() - began)} ms`);
    return outcome;
  }

  private async stopNow(kind: ServiceKind): Promise<Outcome> {
    const outcome = await this.services[kind].stop();
    this.report(kind, outcome, 'stopped');
    return outcome;
  }

  /**
   * Deletes one service's data. A running service is stopped, cleaned and started again, so the
   * user ends with an empty service in the state it had.
   */
  clean(kind: ServiceKind): Promise<Outcome> {
    return this.serialize(kind, 'clean', async () => {
      const wasRunning = this.services[kind].state.status === 'running';
      if (wasRunning) {
        const stopped = await this.stopNow(kind);
        if (!stopped.ok) return stopped;
      }
      await this.engineModule();
      const outcome = await this.services[kind].clean(this.serviceOptions(kind));
      this.report(kind, outcome, 'data cleaned');
      if (outcome.ok && wasRunning) return this.startNow(kind);
      return outcome;
    });
  }

  /**
   * The newest `x-ms-version` the engine's `kind` service knows (azurite's ValidAPIVersions, read
   * when the engine was bundled), or undefined when running unbundled.
   */
  newestApiVersion(kind: ServiceKind): string | undefined {
    return ENGINE_API_VERSIONS?.[kind];
  }

  /** What clean would delete, for a confirmation: a folder and file names, or "in-memory data". */
  cleanTarget(kind: ServiceKind): string {
    const o = this.settings.options;
    if (o.inMemoryPersistence) return `all ${serviceName(kind)} data held in memory`;
    return `${dataFileNames(kind).join(', ')} in ${o.location}`;
  }

  /** The endpoint of a running service. */
  endpoint(kind: ServiceKind): Endpoint | undefined {
    const state = this.services[kind].state;
    return state.status === 'running' ? state.endpoint : undefined;
  }

  /**
   * Where clients connect to `kind`: the running endpoint (https as it was started), else the
   * configured host, port and protocol (https when `azurite.cert` is set).
   */
  clientAddress(kind: ServiceKind): ClientAddress {
    const running = this.endpoint(kind);
    const configured = this.settings.options.services[kind];
    const https = running !== undefined ? running.url.startsWith('https:') : this.settings.options.https !== undefined;
    return { host: running?.host ?? configured.host, port: running?.port ?? configured.port, https };
  }

  /**
   * A connection string for the running services (all three if none runs, from the settings).
   */
  connectionString(): string {
    const running = SERVICE_KINDS.filter((k) => this.endpoint(k) !== undefined);
    const kinds = running.length > 0 ? running : SERVICE_KINDS;
    return connectionString(Object.fromEntries(kinds.map((k) => [k, this.clientAddress(k)])));
  }

  /** The in-memory extent store now. Exact: sums of bytes held, read from the store. */
  memoryReport(): MemoryReport {
    const store = this.store;
    if (store === undefined) {
      const limit = this.settings.options.extentMemoryLimitBytes;
      return { blobBytes: 0, queueBytes: 0, usedBytes: 0, limitBytes: limit ?? defaultLimitBytes(os.totalmem()), isDefaultLimit: limit === undefined };
    }
    const blobBytes = store.categoryBytes('blob');
    const queueBytes = store.categoryBytes('queue');
    return {
      blobBytes,
      queueBytes,
      usedBytes: store.totalSize(),
      limitBytes: store.limitBytes(),
      isDefaultLimit: this.appliedLimitSetting === undefined,
    };
  }

  /** True when a blob or queue service runs in memory mode (the meter has something to show). */
  isMemoryInUse(): boolean {
    return EXTENT_SERVICE_KINDS.some((k) => {
      const s = this.services[k].state;
      return s.status !== 'closed' && this.lastStartInMemory[k];
    });
  }

  /**
   * Frees in-memory extents that no blob or message refers to any more (deleted data that azurite's
   * timed GC would free within 1–10 minutes).
   * @returns bytes freed (the drop in use; concurrent writes can make it smaller)
   */
  async reclaimMemory(): Promise<number> {
    const store = this.store;
    if (store === undefined) return 0;
    const before = store.totalSize();
    await Promise.all(EXTENT_SERVICE_KINDS.map((k) => this.services[k].reclaim()));
    return Math.max(0, before - store.totalSize());
  }

  /** The memory report plus what is not counted: LokiJS metadata (estimated) and the process's heap and RSS. */
  memoryBreakdown(): MemoryBreakdown {
    const usage = process.memoryUsage();
    return {
      report: this.memoryReport(),
      metadataEstimateBytes: SERVICE_KINDS.reduce((n, k) => n + this.services[k].metadataBytesEstimate(), 0),
      heapUsedBytes: usage.heapUsed,
      rssBytes: usage.rss,
    };
  }

  /** Bytes on disk of `kind`'s data in the data folder (disk mode). */
  diskUsageBytes(kind: ServiceKind): Promise<number> {
    return diskUsageBytes(kind, this.settings.options.location);
  }

  /**
   * Stops every service, including one whose start is under way (stop waits for it). Resolves when
   * all ports are free and disk data is saved; one per service, in SERVICE_KINDS order.
   */
  async stopAll(): Promise<Outcome[]> {
    // allSettled: one service's failure (even a throw) never cuts short another's save.
    const settled = await Promise.allSettled(SERVICE_KINDS.map((k) => this.stop(k)));
    return settled.map((r, i) => {
      if (r.status === 'fulfilled') return r.value;
      const message = `${serviceName(SERVICE_KINDS[i]!)} service did not stop cleanly: ${(r.reason as Error)?.message ?? String(r.reason)}`;
      this.log.error(message);
      return { ok: false, message };
    });
  }

  /**
   * Stops everything (see {@link stopAll}: resolves when every service's metadata is on disk) and
   * releases listeners and timers. Never rejects.
   */
  async dispose(): Promise<void> {
    try {
      await this.stopAll();
    } finally {
      clearTimeout(this.memoryTimer);
      this.unsubscribeStore();
      this.unsubscribeRefusals();
      this.limitEmitter.dispose();
      for (const kind of SERVICE_KINDS) this.services[kind].dispose();
      this.stateEmitter.dispose();
      this.memoryEmitter.dispose();
      this.unfinishedSaveEmitter.dispose();
    }
  }

  /** Reports (log + event) a save of `kind` in `location` that began and never finished, if its marker is there. */
  private async reportUnfinishedSave(kind: ServiceKind, location: string): Promise<void> {
    const unfinished = await takeUnfinishedSave(location, kind);
    if (unfinished === undefined) return;
    this.log.error(unfinishedSaveMessage(unfinished));
    this.unfinishedSaveEmitter.fire(unfinished);
  }

  private serviceOptions(kind: ServiceKind): EngineServiceOptions {
    const o = this.settings.options;
    return {
      kind,
      host: o.services[kind].host,
      port: o.services[kind].port,
      inMemory: o.inMemoryPersistence,
      location: o.location,
      loose: o.loose,
      apiVersionPolicy: this.apiVersionPolicies[kind],
      // Off in the engine when silent (azurite's access log costs ~12% of a small request). When on,
      // `azurite.silent` is also read per line, so turning it on applies at once; turning it off
      // applies from the service's next start (updateSettings says so).
      accessLog: o.silent ? undefined : (line) => { if (!this.settings.options.silent) this.log.access(`${serviceName(kind)} ${line}`); },
      memoryStore: this.store,
      keepAliveSec: o.services[kind].keepAliveSec,
      https: o.https,
      oauth: o.oauth,
      disableProductStyleUrl: o.disableProductStyleUrl,
    };
  }

  /** Applies the configured limit to the shared store before a blob/queue start in memory mode. */
  private checkMemoryLimit(options: EngineServiceOptions): string | undefined {
    if (!options.inMemory || options.kind === 'table') return undefined;
    const setting = this.settings.options.extentMemoryLimitBytes;
    const store = this.store!;
    const limit = setting ?? this.engine!.DEFAULT_LIMIT_BYTES;
    if (limit !== store.sizeLimit() && !store.setSizeLimit(limit)) {
      return `azurite.extentMemoryLimit asks for ${formatBytes(limit)}, but ${formatBytes(store.totalSize())} of blob and queue data is in memory, so the limit stays at ${formatBytes(store.limitBytes())}. Raise the limit above ${formatBytes(store.totalSize())}, or clean the blob or queue service (or reclaim memory) first.`;
    }
    if (this.appliedLimitSetting !== setting) {
      this.appliedLimitSetting = setting;
      this.scheduleMemoryEvent();
    }
    return undefined;
  }

  /** azurite's debug log is process-wide: route it while `azurite.debug` is on. */
  private applyDebugLog(): void {
    this.engine?.setDebugLogSink(this.settings.options.debug ? (line) => this.log.debug(line) : undefined);
  }

  private scheduleMemoryEvent(): void {
    if (this.memoryTimer !== undefined) return;
    const delay = Math.max(0, this.lastMemoryEventAt + MEMORY_REFRESH_MS - Date.now());
    this.memoryTimer = setTimeout(() => {
      this.memoryTimer = undefined;
      this.lastMemoryEventAt = Date.now();
      this.memoryEmitter.fire(this.memoryReport());
    }, delay);
  }

  private report(kind: ServiceKind, outcome: Outcome, success: string): void {
    if (outcome.ok) this.log.info(`${serviceName(kind)}: ${success}`);
    else this.log.error(outcome.message);
  }
}

/** `log` with every method wrapped: a throw (a disposed output channel) drops the line instead. */
function neverThrows(log: EmulatorLog): EmulatorLog {
  const guard = (write: (line: string) => void) => (line: string): void => {
    try { write(line); } catch { /* the line is lost, the caller goes on */ }
  };
  return {
    info: guard((l) => log.info(l)),
    error: guard((l) => log.error(l)),
    access: guard((l) => log.access(l)),
    debug: guard((l) => log.debug(l)),
  };
}
