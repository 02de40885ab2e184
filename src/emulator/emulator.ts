/**
 * The emulator facade: three {@link ServiceManager}s (blob, queue, table) driven by validated
 * settings, over the engine host (./engineHost.ts: azurite runs in a child process) and its
 * {@link MemoryMeter} (one extent store shared by blob and queue, as in Azurite). Knows nothing of
 * VS Code; the extension feeds it settings and draws its events.
 */
import { connectableHost, connectionString, DEV_ACCOUNT, type ClientAddress, type StorageAccount } from '../core/connectionString';
import { azuriteAccountsValue } from '../core/accounts';
import { formatBound, LIFECYCLE_BOUNDS, StepTimeout, withBound, type LifecycleBounds } from '../core/bounds';
import { Emitter, type Disposable, type Event } from '../core/events';
import type { Endpoint, ServiceState } from '../core/lifecycle';
import { formatBytes, type LimitBurstTimings, type MemoryReport } from '../core/memory';
import { EXTENT_SERVICE_KINDS, SERVICE_KINDS, serviceName, type ServiceKind } from '../core/services';
import { errorsFor, isPortNumber, type EmulatorOptions, type ParsedSettings, type SettingError } from '../core/settings';
import { heldOptionKeys, needsRestart } from '../core/configChange';
import { dataFileNames } from '../core/dataFiles';
import { diskUsageBytes } from './diskUsage';
import { ENGINE_API_VERSIONS } from './engineFacts';
import { EngineHost, type EngineExit, type HostServiceOptions } from './engineHost';
import { EngineLoader } from './engineLoader';
import type { LoadResult } from './engineProtocol';
import type { ContentBytes } from './azurite';
import type { LimitHit } from './memoryMeter';
import { MemoryMeter } from './memoryMeter';
import { failure, type Failure } from '../core/outcome';
import { describeEngineLoss } from '../core/engineLoss';
import { ownPortConflict, portsOfOthers, type ListenAddress } from '../core/ownPorts';
import { servedElsewhere } from './ports';
import { LifecycleQueue } from './lifecycleQueue';
import { ServiceManager, type Blocker, type Outcome } from './serviceManager';
import { certificateDatesWarning, servedCertificate } from './certificates';
import { takeUnfinishedSave, unfinishedSaveMessage, type UnfinishedSave } from './shutdownMarker';

/** The memory limit's setting key. */
const LIMIT_SETTING = 'azurite.extentMemoryLimit';
/** The setting of the disk-mode data folder. */
const LOCATION_SETTING = 'azurite.location';

/** The engine module's shape (src/emulator/azurite.ts, dist/engine.js): it runs in the engine's process. */
export type Engine = typeof import('./azurite');

export { MEMORY_REFRESH_MS, type LimitHit } from './memoryMeter';

/** The least time between two reclaims the emulator runs by itself after refused writes (ms). */
export const AUTO_RECLAIM_INTERVAL_MS = 5_000;

/** Where the engine is: the engine process's entry and the engine module it loads. Paths absolute. */
export interface EngineFiles {
  /** dist/engineProcess.js (out/engine-process.js in tests). */
  readonly processPath: string;
  /** dist/engine.js (out/engine-bundle.js in tests). */
  readonly enginePath: string;
  /** dist/checksumWorker.js (out/checksum-worker.js in tests): large bodies are hashed there; undefined: on the serving thread. */
  readonly checksumWorkerPath?: string | undefined;
  /** Folder of the engine's V8 code cache (the extension's global storage); undefined: none. */
  readonly codeCacheDir?: string;
}

/** The engine ended under the services: why, and what was lost, for a person to read. */
export interface EngineLoss {
  readonly reason: string;
  /** The setting the reason names as what to change (see EngineExit.setting), if any. */
  readonly setting?: string;
  /** The whole message: what happened, which services stopped, what data is gone. */
  readonly message: string;
  readonly stopped: readonly ServiceKind[];
}

/**
 * What runs after each successful start, as part of it (Emulator.setAfterStart): `signal` aborts
 * when the service is asked to stop or clean, or the emulator to shut down.
 */
export type AfterStart = (kind: ServiceKind, inMemory: boolean, signal: AbortSignal) => Promise<Outcome>;

/** A service Azurite closed by itself: which, and the failure to show (its message, and the setting to open). */
export interface ServiceLoss {
  readonly kind: ServiceKind;
  readonly failure: Failure;
}

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


/** Where memory goes beyond the extent store. Bytes; `metadataEstimateBytes` is an estimate. */
export interface MemoryBreakdown {
  readonly report: MemoryReport;
  /** LokiJS metadata of running services: serialized JSON length (see EngineService.metadataBytesEstimate). */
  readonly metadataEstimateBytes: number;
  /** The engine's JavaScript heap in use (0 while no engine runs). */
  readonly heapUsedBytes: number;
  /** The engine process's resident set, extents included (0 while no engine runs). */
  readonly rssBytes: number;
}

/** Lifecycle operations that {@link Emulator} runs one at a time per service. */
type LifecycleVerb = 'start' | 'stop' | 'clean' | 'restart';

const OK: Outcome = { ok: true };

/**
 * Reclaim memory found a service never without a request in flight (a client holds one open, or its
 * requests never pause): nothing was freed there. `freedBytes`: what the other service freed.
 */
export class ReclaimBusyError extends Error {
  constructor(readonly kinds: readonly ServiceKind[], readonly freedBytes: number) {
    super(`Nothing was reclaimed from ${kinds.map(serviceName).join(' and ')}: a request was in flight all the time Azurite waited for a pause (a client holds one open, or its requests never pause). Reclaim again once they are done; Azurite's own GC frees deleted data within about 20 minutes anyway.`);
  }
}

/** Runs the three services. Dispose with {@link Emulator.dispose} (stops everything). */
export class Emulator {
  /** One manager per service kind. */
  private readonly services: Readonly<Record<ServiceKind, ServiceManager>>;
  private settings: ParsedSettings;
  /** Runs the engine in a child process; made at construction, the process only on the first use. */
  private readonly host: EngineHost;
  private readonly meter: MemoryMeter;
  private readonly stateEmitter = new Emitter<ServiceStateChange>();
  private readonly lossEmitter = new Emitter<EngineLoss>();
  private readonly serviceLossEmitter = new Emitter<ServiceLoss>();
  /**
   * Services in the last steps of a start (from its listen until its outcome is known), with the
   * closure by Azurite that came meanwhile, if any: the start's outcome reports it instead of
   * {@link onDidLoseService}.
   */
  private readonly closedInStart = new Map<ServiceKind, Failure | undefined>();
  private readonly subscriptions: Disposable[] = [];
  /** The engine's load and warm-up, once per engine process. */
  private readonly loader: EngineLoader;
  /** The lifecycle bounds in force: LIFECYCLE_BOUNDS with the constructor's `bounds` over them. */
  private readonly bounds: LifecycleBounds;
  /** The self-signed certificate each service served when it last started with HTTPS (PEM), if it was self-signed. */
  private readonly servedCertificates: Partial<Record<ServiceKind, string>> = {};
  private readonly trustEmitter = new Emitter<ServiceKind>();
  /**
   * Fires when a service started over HTTPS has been found to serve a self-signed certificate,
   * which {@link trustedCertificates} now gives (shortly after it shows running).
   */
  readonly onDidTrustCertificate: Event<ServiceKind> = this.trustEmitter.event;
  /** Whether each service was last started in memory mode (settings may have changed since). */
  private readonly lastStartInMemory: Record<ServiceKind, boolean> = { blob: false, queue: false, table: false };
  /** Each service's last start, while it failed: its options and message; a change of them clears that error. */
  private readonly failedStart: Partial<Record<ServiceKind, { readonly options: EmulatorOptions; readonly message: string; readonly secret?: Failure['secret'] }>> = {};
  /** The options each running service was started with. */
  private readonly startedWith: Partial<Record<ServiceKind, EmulatorOptions>> = {};
  /** Each service's lifecycle operations, one at a time (./lifecycleQueue.ts). */
  private readonly queue = new LifecycleQueue<ServiceKind, LifecycleVerb>((kind, err) => failure('other', `${serviceName(kind)} service: ${(err as Error).message}`));

  /** Fires after any service changes state. */
  readonly onDidChangeState: Event<ServiceStateChange> = this.stateEmitter.event;
  /**
   * Fires with a fresh report after in-memory content changes, at most once per
   * MEMORY_REFRESH_MS; never while nothing changes.
   */
  readonly onDidChangeMemory: Event<MemoryReport>;
  /** Fires once per burst of a service's writes refused by the memory limit (see MemoryMeter.onDidHitLimit). */
  readonly onDidHitLimit: Event<LimitHit>;
  /**
   * Fires when the engine ends under running services (crash, out of memory, an uncaught
   * exception): every service it ran is closed with the reason as its error. An engine that ends
   * with no service running is only logged. The next start brings a new engine up.
   */
  readonly onDidLoseEngine: Event<EngineLoss> = this.lossEmitter.event;
  /**
   * Fires when Azurite closes a running service by itself (its GC's critical error, e.g. on a data
   * folder whose metadata it cannot read): the service is closed with the failure's message as its
   * error, stopped as a stop would leave it (port free, disk data saved). The engine and the other
   * services go on.
   */
  readonly onDidLoseService: Event<ServiceLoss> = this.serviceLossEmitter.event;
  /**
   * Fires with the service whose data a client may have changed (a request other than GET, HEAD or
   * OPTIONS, or a dequeue, answered below 400): at once, then at most every 250 ms per service
   * while changes go on, the last change always reported; never while idle. The Storage view
   * refreshes on it.
   */
  readonly onDidChangeData: Event<ServiceKind>;
  private extraAccounts: StorageAccount[] = [];
  private readonly unfinishedSaveEmitter = new Emitter<UnfinishedSave>();
  /**
   * Fires when a disk-mode service starts on a folder where its last stop began saving and never
   * finished (./shutdownMarker.ts): data written just before that stop may be missing. Once per
   * marker; the log says so too (error level).
   */
  readonly onDidFindUnfinishedSave: Event<UnfinishedSave> = this.unfinishedSaveEmitter.event;
  private readonly staleStartEmitter = new Emitter<ServiceKind>();
  /**
   * Fires with a service that started while the settings changed under its start: it runs with
   * those it read when the start began, and {@link servicesNeedingRestart} lists it. (A change
   * applied to a running service is the settings watcher's; this one reaches no running service.)
   */
  readonly onDidStartWithStaleSettings: Event<ServiceKind> = this.staleStartEmitter.event;
  private readonly startsEmitter = new Emitter<ServiceKind>();
  /**
   * Fires with a service when a start or restart of it is asked for, and when it has finished:
   * {@link startsUnderWay} may have changed. Before a start's state turns `starting` it waits
   * (for the engine's load, a stop before it, its checks), and a status bar shows it starting all
   * the same.
   */
  readonly onDidChangeStartsUnderWay: Event<ServiceKind> = this.startsEmitter.event;
  /**
   * The services another Azurite was last found serving ({@link servedElsewhere}): the configured
   * host and port it was found on, the protocol it answered with, and the address that answered
   * (clients reach it there: a `::` host's loopback may be 127.0.0.1 only). See
   * {@link servedElsewhereKinds} for when an entry is forgotten.
   */
  private readonly elsewhere: Partial<Record<ServiceKind, { readonly host: string; readonly port: number; readonly https: boolean; readonly address: string }>> = {};
  private readonly elsewhereEmitter = new Emitter<ServiceKind>();
  /**
   * Fires with a service when {@link servedElsewhereKinds} changes for it: another Azurite was found
   * serving it, or that finding was forgotten. Terminals refresh their variables on it.
   */
  readonly onDidChangeServedElsewhere: Event<ServiceKind> = this.elsewhereEmitter.event;

  /**
   * @param engine where the engine process's entry and the engine module are; nothing is loaded or
   *   started until the first {@link warmUp} or start
   * @param bounds lifecycle bounds in place of LIFECYCLE_BOUNDS' (../core/bounds.ts), for tests
   * @param limitBursts how refused writes group into bursts reported once (ms), in place of
   *   LIMIT_BURST_TIMINGS (../core/memory.ts), for tests
   */
  constructor(
    settings: ParsedSettings,
    private readonly log: EmulatorLog,
    engine: EngineFiles,
    bounds?: Partial<LifecycleBounds>,
    limitBursts?: LimitBurstTimings,
  ) {
    // Logging must never throw: on shutdown the output channel may already be disposed, and a throw
    // there would end the stop before the data is saved.
    this.log = neverThrows(log);
    this.host = new EngineHost(
      { ...engine, codeCacheDir: engine.codeCacheDir, heapLimitMb: () => this.settings.options.engineHeapLimitMb, log: this.log },
      { extentLimitBytes: settings.options.extentMemoryLimitBytes, apiVersionCheck: settings.options.apiVersionCheck },
    );
    this.meter = new MemoryMeter(this.host, settings.options.extentMemoryLimitBytes, limitBursts);
    this.bounds = { ...LIFECYCLE_BOUNDS, ...bounds };
    this.loader = new EngineLoader(this.host, this.log, this.bounds.engineLoadMs);
    this.onDidChangeData = this.host.onDidChangeData;
    this.onDidChangeMemory = this.meter.onDidChange;
    this.onDidHitLimit = this.meter.onDidHitLimit;
    this.subscriptions.push(
      this.host.onDidServeNewer(({ kind, asked, servedAs }) =>
        this.log.info(`${serviceName(kind)}: a client asked for API version ${asked}, newer than the newest this engine knows; serving it as ${servedAs} (azurite.apiVersionCheck: acceptNewer).`)),
      this.host.onDidExit((exit) => this.engineLost(exit)),
      this.host.onDidRefuse((r) => void this.reclaimAfterRefusal(r.category === 'queue' ? 'queue' : 'blob')),
      this.host.onDidChangeData(() => { this.dataVersion++; }),
    );
    this.settings = settings;
    const services = {} as Record<ServiceKind, ServiceManager>;
    for (const kind of SERVICE_KINDS) {
      const manager = new ServiceManager(kind, (o) => this.host.createService(o), {
        reservedPorts: () => { const p = this.ports(); return portsOfOthers(kind, p.configured, p.running); },
        enginePid: () => this.host.pid,
        onWaitForLateStop: (what) => this.log.info(`${serviceName(kind)}: waiting for its previous ${what}, which ran past its bound, to finish ${what === 'stop' ? 'closing and saving' : 'deleting the data'} in the emulator engine.`),
        shuttingDown: () => this.disposed,
        onClosedItself: (failed) => {
          this.log.error(failed.message);
          // A lost in-memory Blob or Queue may have been what kept a refused limit from applying.
          if (EXTENT_SERVICE_KINDS.includes(kind) && this.lastStartInMemory[kind]) void this.followLimitSetting();
          // During the start's last steps the start's own outcome says it (one notification, not two).
          if (this.closedInStart.has(kind)) this.closedInStart.set(kind, failed);
          else this.serviceLossEmitter.fire({ kind, failure: failed });
        },
        onWaitForSave: (save) => this.log.info(`${serviceName(kind)}: waiting for the save of its data in ${save.location} that process ${save.pid} began at ${new Date(save.startedAtMs).toLocaleTimeString()} to finish (a window that reloaded or closed leaves its engine saving), so that it is not read before it is whole.`),
        bounds,
      });
      manager.onDidChangeState((state) => {
        // Ours serves it now, where the other Azurite was found (it has gone, or the port would have been taken).
        if (state.status === 'running') this.forgetServedElsewhere(kind);
        // A refusal after a restart (a Clean, say) is reported even within the last burst's gap.
        if (state.status === 'running' && kind !== 'table') this.meter.newBurstOf(kind);
        this.stateEmitter.fire({ kind, state });
      });
      services[kind] = manager;
    }
    this.services = services;
  }

  /** The options in force for the next start. */
  get options(): EmulatorOptions {
    return this.settings.options;
  }

  /**
   * Replaces the settings. Applied at once: the API-version policy, the debug and access logs, and
   * the memory limit when a blob or queue service runs in memory (a limit below current use is
   * refused: the message is returned and the old limit stays; so does the old limit when the new
   * value is not valid). `azurite.engine.heapLimit` applies
   * when the engine's process next starts: at the first start once no service runs (see
   * applyHeapLimit), a window reload, or after the engine ended; a change while one runs is logged
   * saying so. Everything else applies from the next start of each
   * service: see {@link servicesNeedingRestart}.
   * @returns (when the engine has them in force) the settings that could not be applied live, and
   *   the new setting errors that no stopped service's status bar item shows (`reason: 'setting'`)
   */
  async updateSettings(settings: ParsedSettings): Promise<Failure[]> {
    const wasSilent = this.settings.options.silent;
    const heapLimitBefore = this.settings.options.engineHeapLimitMb;
    const errorsBefore = this.settings.errors;
    const limitBefore = this.settings.options.extentMemoryLimitBytes;
    const apiVersionCheckBefore = this.settings.options.apiVersionCheck;
    this.settings = settings;
    for (const kind of SERVICE_KINDS) {
      // Another Azurite found on the old host or port says nothing about the new one.
      const found = this.elsewhere[kind];
      const now = settings.options.services[kind];
      if (found !== undefined && (found.host !== now.host || found.port !== now.port)) this.forgetServedElsewhere(kind);
      const failed = this.failedStart[kind];
      const staleError = failed !== undefined && needsRestart(kind, failed.options, settings.options) ? failed.message : undefined;
      this.services[kind].settingsChanged(staleError);
      if (staleError !== undefined) this.failedStart[kind] = undefined;
    }
    const heapInForce = this.host.heapLimitMbInForce;
    const heapLimit = settings.options.engineHeapLimitMb;
    if (heapLimit !== heapLimitBefore && heapInForce !== undefined && heapInForce !== heapLimit) {
      const when = this.runningKinds().length > 0
        ? 'while a service runs in it: the first start once every service has stopped brings up a new process with the new limit (so does a window reload).'
        : 'until the next start, which brings up a new process with the new limit.';
      this.log.info(`azurite.engine.heapLimit is now ${heapLimit} MB. The emulator engine's process, already running, keeps its limit of ${heapInForce} MB ${when}`);
    }
    if (wasSilent && !settings.options.silent) {
      const quiet = SERVICE_KINDS.filter((k) => this.isRunning(k) && this.startedWith[k]?.silent === true);
      if (quiet.length > 0) this.log.info(`Access log: ${quiet.map(serviceName).join(', ')} started with azurite.silent on and log requests from their next start.`);
    }
    this.applyDebugLog();
    const problems: Failure[] = [];
    // Sent when it changed, bounded like a start's request (which may wait behind the engine's
    // load): an engine that does not answer (stalled, or starved of CPU) must not hold up the start
    // that reads the settings first. Its next process takes the policy.
    if (settings.options.apiVersionCheck !== apiVersionCheckBefore) await withBound(this.host.setApiVersionCheck(settings.options.apiVersionCheck), this.liveRequestBoundMs())
      .catch((err: Error) => problems.push(err instanceof StepTimeout
        ? failure('timeout', `azurite.apiVersionCheck could not be applied: the emulator engine did not answer within ${formatBound(err.boundMs)} (it is stalled or starved of CPU). Reload the window if it stays so.`, { setting: 'azurite.apiVersionCheck' })
        : failure('engine', `azurite.apiVersionCheck could not be applied: ${err.message}`, { setting: 'azurite.apiVersionCheck' })));
    const memoryKind = EXTENT_SERVICE_KINDS.find((k) => this.isRunning(k) && this.lastStartInMemory[k]);
    const limitError = settings.errors.find((e) => e.key === LIMIT_SETTING);
    if (memoryKind !== undefined && limitError === undefined) {
      // In memory as it started, whatever azurite.inMemoryPersistence says now (a mode change waits for its restart).
      const refused = await this.checkMemoryLimit({ ...this.serviceOptions(memoryKind), inMemory: true }, false).catch((err: Error) => failure('engine', err.message));
      // Said when the limit changed: a refused one is tried again on every change of another setting
      // (it applies once enough data is gone), but not shown again each time.
      const limitChanged = settings.options.extentMemoryLimitBytes !== limitBefore || errorsBefore.some((e) => e.key === LIMIT_SETTING);
      if (refused !== undefined && (limitChanged || refused.reason !== 'memoryLimit')) problems.push(refused);
    } else if (limitError === undefined) {
      // Bounded like a start's: an engine that does not answer leaves the setting to the next start.
      await this.followLimitSetting();
    }
    // A setting error is shown on a stopped service's status bar item. Those no item shows are
    // returned when they are new (not merely still there after a change of another setting): of
    // settings that stop no start, and of the memory limit while the engine keeps the one in force.
    const isNew = (e: SettingError): boolean => !errorsBefore.some((b) => b.key === e.key && b.message === e.message);
    for (const e of settings.errors.filter(isNew)) {
      const running = e.services.filter((k) => this.isRunning(k));
      if (e.services.length === 0) problems.push(failure('setting', e.message, { setting: e.key }));
      else if (e === limitError && memoryKind !== undefined) {
        problems.push(failure('setting', `${e.message} Until then the limit stays at ${formatBytes(this.meter.report().limitBytes)}.`, { setting: e.key }));
      } else if (running.length > 0) {
        // Not restarted (servicesNeedingRestart): no stopped item shows it.
        const names = running.map(serviceName).join(', ');
        problems.push(failure('setting', `${e.message} ${names} ${running.length === 1 ? 'keeps' : 'keep'} running with the settings ${running.length === 1 ? 'it' : 'they'} started with until this is fixed.`, { setting: e.key }));
      }
    }
    return problems;
  }

  /**
   * Running services whose settings changed in a way only a restart applies. Not those a setting
   * error would stop from starting again: a restart would only stop them (the options hold the
   * default in place of the bad value, which looks like a change). They keep running as they
   * started, and restart once the value is fixed, if it then differs from the one they run with.
   */
  servicesNeedingRestart(): ServiceKind[] {
    return SERVICE_KINDS.filter((k) => this.isRunning(k) && this.startedWith[k] !== undefined && !this.runsWithCurrentSettings(k) && errorsFor(this.settings.errors, k).length === 0);
  }

  /**
   * True when `kind`, started with `started`, must restart to run with the settings in force; a
   * value that is not valid and blocks no service (`azurite.oauth: "basi"`) restarts nothing
   * (core/configChange.ts heldOptionKeys).
   */
  private needsRestartNow(kind: ServiceKind, started: EmulatorOptions): boolean {
    return needsRestart(kind, started, this.settings.options, heldOptionKeys(this.settings.errors));
  }

  /**
   * True when `kind` runs with the options the settings give now: none changed that only a restart
   * applies, and no error that blocks `kind` put a default in place of a value it runs with (one
   * that blocks no service, `azurite.oauth: "basi"`, leaves the value it runs with in force:
   * {@link needsRestartNow}).
   */
  runsWithCurrentSettings(kind: ServiceKind): boolean {
    const started = this.startedWith[kind];
    return this.isRunning(kind) && started !== undefined && !this.needsRestartNow(kind, started);
  }

  /**
   * True when `kind` is not running but a server of ours may still answer on its port (a start or
   * stop past its bound, still ending in the engine): a probe of that port would find ourselves, not
   * another Azurite. A start waits for it to end.
   */
  mayHoldPort(kind: ServiceKind): boolean {
    return this.services[kind].mayHoldPort;
  }

  /**
   * Whether the same service of another Azurite (another window's, the CLI, a container) answers on
   * the host and port `kind` is configured for (./ports.ts `servedElsewhere`), so that a start here
   * would only fail on the taken port. Only a closed service of ours that holds no port is probed:
   * one starting may answer there itself (a start shares the one under way), and one whose start or
   * stop ran past its bound may too (a start waits for it).
   *
   * What a probe finds is remembered ({@link servedElsewhereKinds}): connection strings name that
   * service at the address probed, with the protocol it answered with, so that terminals and debug
   * sessions reach it. A probe that finds nothing there forgets it. Nothing is remembered while a
   * start is refused ({@link setStartBlocker}: the window is attached to an Azurite elsewhere), or
   * when the settings changed the host or port, or a start of ours began, while the probe ran.
   * @returns what answers there ("127.0.0.1:10000 already answers as Azurite-Blob/3.35.0"), or undefined
   */
  async servedElsewhere(kind: ServiceKind): Promise<string | undefined> {
    if (this.status(kind).status !== 'closed' || this.mayHoldPort(kind)) return undefined;
    const { host, port } = this.settings.options.services[kind];
    const found = await servedElsewhere({ host, port }, kind);
    const now = this.settings.options.services[kind];
    // A start of ours begun meanwhile may be what answered: only a service still closed, holding no port, counts.
    const stillApplies = now.host === host && now.port === port && this.status(kind).status === 'closed' && !this.mayHoldPort(kind);
    if (found === undefined || this.startBlocker?.(kind) !== undefined) {
      if (stillApplies) this.forgetServedElsewhere(kind);
    } else if (stillApplies) {
      // A start of ours that failed there (the port taken: by this Azurite, as its start raced ours)
      // is moot now: the item shows the Azurite that serves it instead of that error.
      const failed = this.failedStart[kind];
      if (failed !== undefined) {
        this.services[kind].forgetError(failed.message);
        this.failedStart[kind] = undefined;
      }
      const was = this.elsewhere[kind];
      this.elsewhere[kind] = { host, port, https: found.https, address: found.host };
      if (was?.host !== host || was.port !== port || was.https !== found.https || was.address !== found.host) this.elsewhereEmitter.fire(kind);
    }
    return found?.description;
  }

  /**
   * Starts `kind` unless the same service of another Azurite serves its port now ({@link
   * servedElsewhere}, probed right before), and counts a start that fails because an Azurite took
   * the port meanwhile (two windows restored at once, the CLI started during a question) as served
   * by it too: what the autostart, the `azurite` task and the Functions pre-start do once they have
   * asked what they must ask.
   * @returns `{ servedElsewhere }` (what answers there, as servedElsewhere says it), or the start's `{ outcome }`
   */
  async startUnlessServed(kind: ServiceKind): Promise<{ readonly servedElsewhere: string } | { readonly outcome: Outcome }> {
    const before = await this.servedElsewhere(kind);
    if (before !== undefined) return { servedElsewhere: before };
    const outcome = await this.start(kind);
    if (!outcome.ok && outcome.reason === 'port' && outcome.conflict?.holder === 'azurite') {
      const taken = await this.servedElsewhere(kind);
      if (taken !== undefined) return { servedElsewhere: `${taken} (it began serving while this window started it)` };
    }
    return { outcome };
  }

  /**
   * The services, in SERVICE_KINDS order, that the last {@link servedElsewhere} probe found another
   * Azurite serving and that do not run here: {@link connectionString} names each at its configured
   * host and port, with the protocol it answered with. One is forgotten (and
   * {@link onDidChangeServedElsewhere} fires) when a service of ours starts running in its place,
   * when a later probe finds nothing there, when the settings change its host or port, and by
   * {@link forgetServedElsewhere}. Nothing watches the other Azurite meanwhile: if it stops, its
   * entry stays until one of those, and clients are refused at that address on this machine.
   */
  servedElsewhereKinds(): ServiceKind[] {
    return SERVICE_KINDS.filter((k) => this.elsewhere[k] !== undefined && !this.isRunning(k));
  }

  /**
   * Forgets what {@link servedElsewhere} found for `kind` (every service when left out), firing
   * {@link onDidChangeServedElsewhere} for each one that was remembered: the VS Code layer calls it
   * when the window attaches to an Azurite elsewhere (`azurite.attach`), whose connection string
   * is not this one's.
   */
  forgetServedElsewhere(kind?: ServiceKind): void {
    for (const k of kind === undefined ? SERVICE_KINDS : [kind]) {
      if (this.elsewhere[k] === undefined) continue;
      this.elsewhere[k] = undefined;
      this.elsewhereEmitter.fire(k);
    }
  }

  /**
   * The data `kind` holds while it runs or stops (its final save): the mode and folder it started
   * with, whatever the settings say since; undefined while it is stopped or starting.
   */
  dataInUse(kind: ServiceKind): { readonly inMemory: boolean; readonly location: string } | undefined {
    const status = this.services[kind].state.status;
    if (status !== 'running' && status !== 'closing') return undefined;
    return { inMemory: this.lastStartInMemory[kind], location: this.startedWith[kind]?.location ?? this.settings.options.location };
  }

  /** True when `kind` runs in memory mode: a restart would drop its data. */
  isRunningInMemory(kind: ServiceKind): boolean {
    return this.isRunning(kind) && this.lastStartInMemory[kind];
  }

  /**
   * Stops and starts `kind` with the settings now in force, after any operation under way or queued
   * on it. A service that is not running when its turn comes stays stopped (`{ ok: true }`): a Stop
   * the user asked for before it is not undone by a restart for a settings change.
   */
  restart(kind: ServiceKind): Promise<Outcome> {
    // A stop or clean asked for after this restart (while it stops the service, or waits its turn)
    // cuts the seed of its start short, as for a start.
    const abortsBefore = this.abortsAsked[kind];
    return this.announced(kind, this.queue.run(kind, 'restart', async () => {
      if (!this.isRunning(kind)) return OK;
      const stopped = await this.stopNow(kind);
      if (!stopped.ok) return stopped;
      return this.startNow(kind, abortsBefore);
    }));
  }

  /** Setting error messages that stop `kind` from starting. */
  settingErrors(kind: ServiceKind): string[] {
    return errorsFor(this.settings.errors, kind).map((e) => e.message);
  }

  /**
   * The services whose last start failed because the certificate password in Secret Storage does
   * not open the PFX (`Failure.secret`), while that failure still stands (no settings change since
   * that would start them differently): what a new password should start again.
   */
  failedForCertificatePassword(): ServiceKind[] {
    return SERVICE_KINDS.filter((k) => this.failedStart[k]?.secret === 'certificatePassword' && this.status(k).status === 'closed');
  }

  /** True when `azurite.<kind>Port` holds a value that is not a port (the options then hold the default). */
  portSettingInvalid(kind: ServiceKind): boolean {
    return this.settings.errors.some((e) => e.key === `azurite.${kind}Port` && !isPortNumber(e.value));
  }

  /** The settings that stop `kind` from starting: each key with its message. */
  private blockers(kind: ServiceKind): Blocker[] {
    return errorsFor(this.settings.errors, kind).map((e) => ({ key: e.key, message: e.message }));
  }

  /**
   * The warm-up after activation: brings the engine up in its process and loads everything a start
   * needs, listening on nothing and showing nothing (see {@link EngineLoader.warmUp}). Later calls
   * resolve at once.
   * @throws Error when the engine does not load
   */
  warmUp(): Promise<void> {
    return this.loader.warmUp();
  }

  /** What the engine's load answered (its time and the code cache's state), once it has loaded. */
  engineLoadResult(): LoadResult | undefined {
    return this.host.loadResult;
  }

  /** The state of one service. */
  status(kind: ServiceKind): ServiceState {
    return this.services[kind].state;
  }

  /** The services that run now, in SERVICE_KINDS order. */
  runningKinds(): ServiceKind[] {
    return SERVICE_KINDS.filter((k) => this.isRunning(k));
  }

  private isRunning(kind: ServiceKind): boolean {
    return this.services[kind].state.status === 'running';
  }

  private afterStart: AfterStart | undefined;
  /** The starts under way, by service, with what their hook after the start ({@link setAfterStart}) is given: what a stop, clean or dispose() aborts. */
  private readonly afterStartAborts = new Map<ServiceKind, AbortController>();

  /**
   * Sets what runs after each successful start of a service, as part of that start (its outcome is
   * the start's; the service keeps running when it fails): the VS Code layer loads `azurite.seed`
   * here. Undefined removes it.
   * @param hook gets the service, whether it runs in memory, and a signal that aborts when the
   *   service is asked to stop or clean, or the emulator to shut down, from the start's first step
   *   on: that request does not wait for the hook to finish its work, only for it to settle (an
   *   aborted seed deletes what it loaded and resolves to a `cancelled` outcome). A restart for a
   *   settings change does not abort it: on disk, the restarted start would load a seed only into
   *   a service still empty.
   */
  setAfterStart(hook: AfterStart | undefined): void {
    this.afterStart = hook;
  }

  /**
   * Cuts short the hook (the seed) of each start of `kinds` under way, as a stop or clean of it does
   * ({@link setAfterStart}), before that stop is asked for: a Close or Clean first waits for a
   * Reset, Import or Export under way, which may itself wait for the seed ({@link lifecycleSettled}),
   * so the seed would otherwise load in full first.
   */
  cutSeedShort(kinds: readonly ServiceKind[]): void {
    for (const kind of kinds) this.abortAfterStart(kind);
  }

  /** Aborts the hook after a start of `kind` under way, if any (see {@link setAfterStart}). */
  private abortAfterStart(kind: ServiceKind): void {
    this.abortsAsked[kind]++;
    this.afterStartAborts.get(kind)?.abort();
  }

  /**
   * Resolves when the starts (their seed included), stops, cleans and restarts of `kinds` under way
   * or queued have finished: what a data operation (Reset, Import, Export) waits for before it
   * begins, so that it does not work on a service half started or half loaded with its seed.
   * Never rejects.
   */
  async lifecycleSettled(kinds: readonly ServiceKind[]): Promise<void> {
    await Promise.all(kinds.map((k) => this.queue.settled(k)));
  }

  /**
   * The services, in SERVICE_KINDS order, whose latest lifecycle operation asked for is a start or
   * restart that has not finished: its checks (still `closed`), its listen (`starting`) or its seed
   * (`running`). {@link lifecycleSettled} waits for them.
   */
  startsUnderWay(): ServiceKind[] {
    return SERVICE_KINDS.filter((k) => {
      const verb = this.queue.latest(k);
      return verb === 'start' || verb === 'restart' || (verb === 'clean' && this.cleansThatStart.has(k));
    });
  }

  /** Services whose clean under way stopped them and starts them again when done (a clean of a running service). */
  private readonly cleansThatStart = new Set<ServiceKind>();

  /**
   * Starts one service. Idempotent: on a running service it resolves `{ ok: true }` and does
   * nothing; while a start of it is under way it resolves with that start's outcome; after a stop,
   * clean or restart under way it waits for that, then starts. Once {@link dispose} has begun it
   * resolves to a `state` failure: at once, or at the start's next step when it was under way (it
   * does not listen if it had not yet; a service already listening gets no seed and is stopped by
   * the dispose). A start whose engine ends before it has finished (after the listen too) resolves
   * to an `engine` failure with the loss's message ({@link onDidLoseEngine}). Never rejects.
   */
  start(kind: ServiceKind): Promise<Outcome> {
    if (this.disposed) return Promise.resolve(this.shutDownFailure(kind, 'started'));
    const blocked = this.startBlocker?.(kind);
    if (blocked !== undefined) return Promise.resolve(blocked);
    // A stop or clean asked for after this start, while it still waits its turn, cuts its seed short too.
    const abortsBefore = this.abortsAsked[kind];
    return this.announced(kind, this.queue.run(kind, 'start', () => (this.isRunning(kind) ? Promise.resolve(OK) : this.startNow(kind, abortsBefore))));
  }

  /**
   * How many stops and cleans of `kind` were asked for so far (a stop of a stopped service too):
   * something that would start it later (a retry after a failed restart) compares counts to tell
   * whether the user has asked for it to stop meanwhile.
   */
  stopsAsked(kind: ServiceKind): number {
    return this.abortsAsked[kind];
  }

  /** How many stops and cleans of each service were asked for (see {@link abortAfterStart}): a start queued before one of them gets an aborted signal for its hook. */
  private readonly abortsAsked: Record<ServiceKind, number> = { blob: 0, queue: 0, table: 0 };

  /** Fires {@link onDidChangeStartsUnderWay} now and once `outcome` (which never rejects) has settled; returns it. */
  private announced(kind: ServiceKind, outcome: Promise<Outcome>): Promise<Outcome> {
    this.startsEmitter.fire(kind);
    void outcome.finally(() => this.startsEmitter.fire(kind));
    return outcome;
  }

  private startBlocker: ((kind: ServiceKind) => Failure | undefined) | undefined;

  /**
   * Sets what may refuse a start (the VS Code layer refuses while `azurite.attach` points at an
   * Azurite elsewhere): asked when the start is asked for, and again once the engine has loaded,
   * before the service listens. Undefined removes it.
   * @param blocker returns the failure a start resolves to, or undefined to let it go on
   */
  setStartBlocker(blocker: ((kind: ServiceKind) => Failure | undefined) | undefined): void {
    this.startBlocker = blocker;
  }

  /**
   * Stops one service; resolves when its port is free. Idempotent like {@link start}: a stopped
   * service resolves `{ ok: true }`, a stop under way is shared, a start under way is waited for.
   */
  stop(kind: ServiceKind): Promise<Outcome> {
    // A seed still loading is cut short (it deletes what it loaded), not waited for to the end.
    this.abortAfterStart(kind);
    return this.queue.run(kind, 'stop', () => (this.isRunning(kind) ? this.stopNow(kind) : Promise.resolve(OK)));
  }

  /**
   * @param abortsBefore {@link abortsAsked} of `kind` when the start was asked for (a user's start):
   *   a stop or clean asked for since, while the start waited its turn, aborts its hook at once
   */
  private async startNow(kind: ServiceKind, abortsBefore?: number): Promise<Outcome> {
    // From the start's first step: a Stop clicked while the service still starts cuts the seed short too.
    const abort = new AbortController();
    if (abortsBefore !== undefined && this.abortsAsked[kind] !== abortsBefore) abort.abort();
    this.afterStartAborts.set(kind, abort);
    try {
      return await this.startSteps(kind, abort.signal);
    } finally {
      if (this.afterStartAborts.get(kind) === abort) this.afterStartAborts.delete(kind);
      // However the start ended, a closure from now on is reported as one (onDidLoseService).
      this.closedInStart.delete(kind);
    }
  }

  /**
   * The steps of a start; `seedSignal` aborts when a stop, clean or dispose() is asked for meanwhile
   * (see setAfterStart), which also ends the start's wait for another process's save of its data.
   */
  private async startSteps(kind: ServiceKind, seedSignal: AbortSignal): Promise<Outcome> {
    // A start queued before dispose() began, or a restart after a settings change, runs no more.
    if (this.disposed) return this.shutDownFailure(kind, 'started');
    const began = performance.now();
    await this.applyHeapLimit();
    // dispose() began while the old process ended: no new one is brought up only to be shut down.
    if (this.disposed) return this.shutDownFailure(kind, 'started');
    try {
      await this.loader.load();
    } catch (err) {
      const message = `${serviceName(kind)} service could not start: the emulator engine did not load (${(err as Error).message}).`;
      this.log.error(message);
      // Shown on the service's status bar item, as any failed start is.
      this.services[kind].failedBeforeStart(message);
      return failure('engine', message);
    }
    // dispose() began while the engine loaded: its stop waits behind this start, which goes no
    // further (no folder check, no listen, no database loaded only to be saved again).
    if (this.disposed) return this.shutDownFailure(kind, 'started');
    // Refused since it was asked for (azurite.attach set while the engine loaded): it does not listen.
    const blocked = this.startBlocker?.(kind);
    if (blocked !== undefined) return blocked;
    const options = this.serviceOptions(kind);
    // The last start's certificate is not this one's (azurite.cert may have changed): read again once it listens.
    this.servedCertificates[kind] = undefined;
    this.applyDebugLog();
    this.lastStartInMemory[kind] = options.inMemory;
    const startedWith = this.settings.options;
    // Set before the start, whose `running` event's listeners read it (dataLocation); read only
    // while the service runs, so a start that fails leaves nothing stale in use.
    this.startedWith[kind] = startedWith;
    // From here until the start's outcome is known, a closure by Azurite is that outcome.
    this.closedInStart.set(kind, undefined);
    const outcome = await this.services[kind].start(options, this.blockers(kind), async (o) => this.ownPortHolder(o) ?? this.checkMemoryLimit(o, true), seedSignal);
    // A cancelled start (a stop asked while it waited) shows no error to forget later.
    this.failedStart[kind] = outcome.ok || outcome.reason === 'cancelled' ? undefined : { options: startedWith, message: outcome.message, secret: outcome.secret };
    // In the start's own folder, and before anything queued after the start (a stop writes a new marker).
    // A report that fails (a log that throws) never fails the start.
    if (outcome.ok && !options.inMemory) await this.reportUnfinishedSave(kind, options.location).catch(() => undefined);
    // Before the seed, whose clients trust it; the Storage view, which may have asked since the
    // service showed running, asks again on the event.
    // Not once dispose() began: reading the certificate back may take 2 s, for clients that will not come.
    if (outcome.ok && options.https !== undefined && !this.disposed) {
      const address = this.clientAddress(kind);
      const host = connectableHost(address.host).replace(/^\[(.*)\]$/, '$1');
      const served = await servedCertificate(host, address.port);
      if (served === undefined) this.log.error(`${serviceName(kind)}: the certificate it serves could not be read back within 2 s; this extension's own clients (the Storage view, Reset, Export, Import, the seed) trust it only if VS Code does. Restart the service to try again.`);
      this.servedCertificates[kind] = served?.selfSigned;
      if (served?.hostMismatch !== undefined) {
        this.log.error(`${serviceName(kind)}: the certificate of azurite.cert is not for ${host}, the host its connection string names (${served.hostMismatch}), so clients refuse it. Make one that names ${host}, or set azurite.${kind}Host to a name the certificate has.`);
      }
      if (served?.selfSigned !== undefined) this.trustEmitter.fire(kind);
      // Served all the same, as Azurite does: clients that skip the check still work with it.
      const dates = await certificateDatesWarning(options.https);
      if (dates !== undefined) this.log.error(`${serviceName(kind)}: ${dates}`);
    }
    // The engine ended during the start's last steps (the unfinished-save report, the certificate's
    // read-back): engineLost closed the service and logged why. The start failed, as one whose
    // engine ended before it listened; no seed is loaded into a service that is gone.
    const now = this.services[kind].state;
    const closedByAzurite = this.closedInStart.get(kind);
    this.closedInStart.delete(kind);
    if (outcome.ok && closedByAzurite !== undefined) return closedByAzurite;
    if (outcome.ok && now.status !== 'running') {
      return failure('engine', now.status === 'closed' && now.error !== undefined ? now.error : `${serviceName(kind)} service stopped as it started.`, { setting: this.lastLoss?.setting });
    }
    this.report(kind, outcome, `listening on ${this.endpoint(kind)?.url ?? ''}${options.inMemory ? ' (in memory)' : ` (data in ${options.location})`}, started in ${Math.round(performance.now() - began)} ms`);
    // dispose() began during the start: the stop it queued comes next, and the seed would only hold
    // the window's close up (and write data that stop must then save).
    if (outcome.ok && this.disposed) return failure('state', `${serviceName(kind)}'s start was cut short: the emulator is shutting down (the window is closing or reloading).`);
    // Checked once the service runs, before the seed: a change from now on finds it running (the
    // settings watcher restarts it then), one before is this event's. A restart asked for now
    // runs after this start, seed included.
    if (outcome.ok && this.needsRestartNow(kind, startedWith)) this.staleStartEmitter.fire(kind);
    // Inside the start: a caller that awaits start() gets the service with its seed loaded.
    if (!outcome.ok || this.afterStart === undefined) return outcome;
    return this.afterStart(kind, options.inMemory, seedSignal).catch((err: unknown) => failure('data', `${serviceName(kind)} service: ${(err as Error).message}`));
  }

  private async stopNow(kind: ServiceKind): Promise<Outcome> {
    const outcome = await this.services[kind].stop();
    this.report(kind, outcome, 'stopped');
    // The last in-memory Blob or Queue gone, the store is empty: a limit the engine refused while it
    // held data applies now, and the meter shows it.
    if (outcome.ok && EXTENT_SERVICE_KINDS.includes(kind) && this.lastStartInMemory[kind]) await this.followLimitSetting();
    return outcome;
  }

  /**
   * Has the meter take `azurite.extentMemoryLimit` when no in-memory Blob or Queue runs (see
   * MemoryMeter.followSetting), bounded like a start's request; an invalid setting keeps the limit
   * in force. Never rejects.
   */
  private async followLimitSetting(): Promise<void> {
    if (EXTENT_SERVICE_KINDS.some((k) => this.isRunning(k) && this.lastStartInMemory[k])) return;
    if (this.settings.errors.some((e) => e.key === LIMIT_SETTING)) return;
    await withBound(this.meter.followSetting(this.settings.options.extentMemoryLimitBytes), this.bounds.listenMs).catch(() => undefined);
  }

  /**
   * Deletes one service's data. A running service is stopped, cleaned and started again, so the
   * user ends with an empty service in the state it had.
   */
  clean(kind: ServiceKind): Promise<Outcome> {
    if (this.disposed) return Promise.resolve(this.shutDownFailure(kind, 'cleaned'));
    const refusal = this.cleanRefusal(kind);
    if (refusal !== undefined) return Promise.resolve(refusal);
    this.abortAfterStart(kind);
    // A stop or clean asked for after this one cuts the seed of the start it ends with short.
    const abortsBefore = this.abortsAsked[kind];
    return this.queue.run(kind, 'clean', async () => {
      const late = this.cleanRefusal(kind);
      if (late !== undefined) return late;
      const wasRunning = this.isRunning(kind);
      if (!wasRunning) return this.cleanNow(kind, false);
      // It starts the service again: a start under way from now on (the status bar, a debug launch).
      this.cleansThatStart.add(kind);
      this.startsEmitter.fire(kind);
      try {
        return await this.cleanNow(kind, true, abortsBefore);
      } finally {
        this.cleansThatStart.delete(kind);
        this.startsEmitter.fire(kind);
      }
    });
  }

  /**
   * The steps of {@link clean} once its turn has come: stop (`wasRunning`), delete, start again (`wasRunning`).
   * @param abortsBefore {@link abortsAsked} of `kind` when the clean was asked for: a stop or clean asked since aborts its start's hook
   */
  private async cleanNow(kind: ServiceKind, wasRunning: boolean, abortsBefore?: number): Promise<Outcome> {
    if (wasRunning) {
      const stopped = await this.stopNow(kind);
      if (!stopped.ok) return stopped;
    }
    // A clean queued before dispose() began runs no more: its load could start an engine process.
    if (this.disposed) return this.shutDownFailure(kind, 'cleaned');
    try {
      await this.loader.load();
    } catch (err) {
      const message = `${serviceName(kind)} data could not be cleaned: the emulator engine did not load (${(err as Error).message}).`;
      // The service (stopped for the clean, when it ran) stays stopped: its item says why.
      this.services[kind].failedBeforeStart(message);
      return failure('engine', message);
    }
    // Nor one during whose load dispose() began: nothing is deleted while the window closes.
    if (this.disposed) return this.shutDownFailure(kind, 'cleaned');
    const outcome = await this.services[kind].clean(this.serviceOptions(kind));
    this.report(kind, outcome, 'data cleaned');
    if (outcome.ok && wasRunning) return this.startNow(kind, abortsBefore);
    return outcome;
  }

  /**
   * The newest `x-ms-version` the engine's `kind` service knows (azurite's ValidAPIVersions, read
   * when the engine was bundled), or undefined when running unbundled.
   */
  newestApiVersion(kind: ServiceKind): string | undefined {
    return ENGINE_API_VERSIONS?.[kind];
  }

  /**
   * Why `kind`'s data may not be cleaned now, or undefined: in disk mode an invalid
   * `azurite.location`, which leaves the folder in force at the default one (a folder other windows
   * may share), not the one the user means.
   */
  cleanRefusal(kind: ServiceKind): Failure | undefined {
    if (this.settings.options.inMemoryPersistence) return undefined;
    const error = errorsFor(this.settings.errors, kind).find((e) => e.key === LOCATION_SETTING);
    return error !== undefined ? failure('setting', `${serviceName(kind)} data was not cleaned: ${error.message}`, { setting: LOCATION_SETTING }) : undefined;
  }

  /**
   * What clean would delete, for a confirmation: a folder and file names, or "in-memory data". A
   * running service whose memory mode or data folder changed since it started (a restart put off)
   * is stopped, its data then deleted where the settings in force keep it, and started there: the
   * text says so, and what of the data it runs with is dropped (in memory) or kept (on disk).
   */
  cleanTarget(kind: ServiceKind): string {
    const o = this.settings.options;
    const name = serviceName(kind);
    const target = o.inMemoryPersistence ? `all ${name} data held in memory` : `${dataFileNames(kind).join(', ')} in ${o.location}`;
    const started = this.isRunning(kind) ? this.startedWith[kind] : undefined;
    if (started === undefined) return target;
    if (started.inMemoryPersistence && !o.inMemoryPersistence) {
      return `all ${name} data held in memory, where it runs now, and ${target}, where it starts again (azurite.inMemoryPersistence changed since it started)`;
    }
    if (!started.inMemoryPersistence && o.inMemoryPersistence) {
      return `nothing on disk: ${name} starts again in memory (azurite.inMemoryPersistence changed since it started); its data in ${started.location} is kept`;
    }
    if (!started.inMemoryPersistence && started.location !== o.location) {
      return `${target}, where it starts again (azurite.location changed since it started); its data in ${started.location} is kept`;
    }
    return target;
  }

  /** The endpoint of a running service. */
  endpoint(kind: ServiceKind): Endpoint | undefined {
    const state = this.services[kind].state;
    return state.status === 'running' ? state.endpoint : undefined;
  }

  /**
   * The certificate (PEM) the extension's own clients of each running service of `kinds` trust: the
   * one it serves over HTTPS when it is self-signed, read from the service as it started
   * (./certificates.ts `servedCertificate`; {@link onDidTrustCertificate} fires then). None over
   * HTTP, and none for a certificate an authority issued (the system's trust, or
   * NODE_EXTRA_CA_CERTS, decides then).
   */
  trustedCertificates(kinds: readonly ServiceKind[] = SERVICE_KINDS): Partial<Record<ServiceKind, string>> {
    return Object.fromEntries(kinds.filter((k) => this.isRunning(k) && this.servedCertificates[k] !== undefined).map((k) => [k, this.servedCertificates[k]!]));
  }

  /**
   * Where clients connect to `kind`: the running endpoint (https as it was started), else the
   * configured host and port, with the address and protocol another Azurite found there answered
   * on ({@link servedElsewhereKinds}), or else the configured ones (https when `azurite.cert` is set).
   */
  clientAddress(kind: ServiceKind): ClientAddress {
    const running = this.endpoint(kind);
    const configured = this.settings.options.services[kind];
    const elsewhere = running === undefined ? this.elsewhere[kind] : undefined;
    const https = running !== undefined ? running.url.startsWith('https:') : elsewhere?.https ?? (this.settings.options.https !== undefined);
    return { host: running?.host ?? elsewhere?.address ?? configured.host, port: running?.port ?? configured.port, https };
  }

  /**
   * The services a connection string names ({@link connectionString}): every running one, and the
   * others that have a port to name (not 0, which is chosen only at the start). All three when that
   * leaves none (every port 0, nothing running: their URLs then say port 0).
   */
  addressedKinds(): ServiceKind[] {
    const kinds = SERVICE_KINDS.filter((k) => this.endpoint(k) !== undefined || this.settings.options.services[k].port !== 0);
    return kinds.length > 0 ? kinds : [...SERVICE_KINDS];
  }

  /**
   * A connection string naming {@link addressedKinds}: the running services where they listen, the
   * others at their configured address ({@link clientAddress}: where another Azurite was found
   * serving one, with the protocol it answered with). Every endpoint is named, because
   * the .NET and Python SDKs (and so the Functions host) build a missing one from the account name
   * and `core.windows.net`: a client of a stopped service is then refused at its local port instead
   * of going to a cloud address with the development key.
   * @param account the account (default the development account; see {@link accounts})
   */
  connectionString(account: StorageAccount = DEV_ACCOUNT): string {
    return connectionString(Object.fromEntries(this.addressedKinds().map((k) => [k, this.clientAddress(k)])), account);
  }

  /** The in-memory extent store as the engine last reported it (bytes; events keep it current). */
  memoryReport(): MemoryReport {
    return this.meter.report();
  }

  /** The in-memory extent store now, asked of the engine: exact, after every write it has answered. */
  async memoryReportNow(): Promise<MemoryReport> {
    await this.host.refreshMemory();
    return this.meter.report();
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
   * timed GC would free within about 20 minutes: blob every 10 minutes, sparing what was written in the last 10), in each service at a moment with no request in flight.
   * @returns bytes freed (the drop in use; concurrent writes can make it smaller)
   * @throws ReclaimBusyError when a service had a request in flight throughout its wait
   *   (LifecycleBounds.reclaimIdleMs); the other service is reclaimed all the same
   */
  async reclaimMemory(): Promise<number> {
    let freed = 0;
    const busy: ServiceKind[] = [];
    for (const kind of EXTENT_SERVICE_KINDS) {
      try {
        freed += await this.oneReclaimAtATime(() => this.services[kind].reclaim());
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EBUSY') throw err;
        busy.push(kind);
      }
    }
    await this.host.refreshMemory().catch(() => undefined); // so that memoryReport() shows the drop at once
    if (busy.length > 0) throw new ReclaimBusyError(busy, freed);
    return freed;
  }

  /**
   * After a write refused at the memory limit: frees the content of deleted blobs and messages
   * written over a minute ago (LifecycleBounds autoReclaimSpareMs), which azurite's timed GC would
   * keep for up to 10 minutes, so that a client's retry can fit: the refusing service first. One at
   * a time (never beside Reclaim Memory), at most one every {@link AUTO_RECLAIM_INTERVAL_MS} while
   * refusals go on, and none when no data changed since the last. Logged when it freed something;
   * never throws.
   */
  private async reclaimAfterRefusal(kind: ServiceKind): Promise<void> {
    const last = this.autoReclaim;
    // Nothing written or deleted since the last one: another sweep would free nothing.
    if (last.running || this.disposed || last.atVersion === this.dataVersion || performance.now() - last.endedAt < AUTO_RECLAIM_INTERVAL_MS) return;
    this.autoReclaim = { running: true, endedAt: last.endedAt, atVersion: this.dataVersion };
    try {
      let freed = 0;
      // The refusing service first: the other's wait for a pause must not delay it.
      for (const k of [kind, ...EXTENT_SERVICE_KINDS.filter((e) => e !== kind)]) {
        freed += await this.oneReclaimAtATime(() => this.services[k].reclaim(this.bounds.autoReclaimSpareMs)).catch(() => 0);
      }
      await this.host.refreshMemory().catch(() => undefined);
      if (freed > 0) this.log.info(`${serviceName(kind)}: a write was refused at azurite.extentMemoryLimit; freed ${formatBytes(freed)} of deleted blob and queue content (written over ${formatBound(this.bounds.autoReclaimSpareMs)} ago) for the next writes.`);
    } finally {
      this.autoReclaim = { ...this.autoReclaim, running: false, endedAt: performance.now() };
    }
  }

  /** The reclaim after a refused write: under way, when the last one ended (performance.now(), ms), and the data it saw. */
  private autoReclaim = { running: false, endedAt: -Infinity, atVersion: -1 };
  /** Counts the engine's data-change events: a reclaim with none since the last one is skipped. */
  private dataVersion = 0;
  private reclaims: Promise<unknown> = Promise.resolve();

  /** Runs one service's reclaim after any under way (Reclaim Memory's and the automatic ones never overlap). */
  private oneReclaimAtATime<T>(run: () => Promise<T>): Promise<T> {
    const next = this.reclaims.then(run, run);
    this.reclaims = next.catch(() => undefined);
    return next;
  }

  /**
   * Sets the extra accounts the engine serves besides the development account (Azurite's
   * `AZURITE_ACCOUNTS`, set in the engine's process only); running services take them at once.
   * @param extra the custom accounts with their keys (none: the development account only)
   * @throws Error when the engine ends meanwhile, or does not answer in time (a request's bound,
   *   LifecycleBounds.listenMs, plus the engine's load while it loads)
   */
  async setAccounts(extra: readonly StorageAccount[]): Promise<void> {
    this.extraAccounts = [...extra];
    // Bounded like a start's request: a start waits for the accounts. The next engine process takes them anyway.
    await withBound(this.host.setAccounts(azuriteAccountsValue(extra)), this.liveRequestBoundMs()).catch((err: unknown) => {
      throw err instanceof StepTimeout ? new Error(`the emulator engine did not answer within ${formatBound(err.boundMs)} (it is stalled or starved of CPU)`) : err;
    });
  }

  /** Every account the engine serves: the development account first, then `azurite.accounts`. */
  accounts(): StorageAccount[] {
    return [DEV_ACCOUNT, ...this.extraAccounts];
  }

  /**
   * The bytes of content each container (`blob`) or queue (`queue`) of every account refers to,
   * read from the engine's records (src/emulator/azurite.ts `contentBytesOf`): what the Storage view
   * shows beside each. In memory mode `storeBytes` is what the extent store holds for the service,
   * which also counts content deleted but not yet freed by azurite's GC.
   * @returns undefined when the service is not running
   * @throws Error when the engine ends meanwhile
   */
  async contentBytes(kind: 'blob' | 'queue'): Promise<ContentBytes | undefined> {
    return this.services[kind].contentBytes();
  }

  /**
   * The memory report plus what is not counted: LokiJS metadata (estimated), the engine's heap and
   * the engine process's resident set, asked of the engine (zeros while no engine runs).
   */
  async memoryBreakdown(): Promise<MemoryBreakdown> {
    const stats = await this.host.stats().catch(() => ({ metadataEstimateBytes: 0, heapUsedBytes: 0, rssBytes: 0 }));
    return {
      report: await this.memoryReportNow().catch(() => this.memoryReport()),
      metadataEstimateBytes: stats.metadataEstimateBytes,
      heapUsedBytes: stats.heapUsedBytes,
      rssBytes: stats.rssBytes,
    };
  }

  /**
   * Makes the engine throw an uncaught exception, as a fault in azurite would: for the tests that
   * show the extension host survives it (reached through the test-only API).
   */
  crashEngineForTest(): Promise<void> {
    return this.host.crashForTest();
  }

  /** The engine process's id while one runs (tests look at its threads' priorities). */
  get enginePid(): number | undefined {
    return this.host.pid;
  }

  /** A full garbage collection in the engine, for tests that measure leaks. */
  collectGarbageForTest(): Promise<void> {
    return this.host.collectGarbageForTest();
  }

  /**
   * Resolves once every change of a request answered before this call has fired onDidChangeData:
   * none is left in the engine's throttle (tests that count those events).
   */
  changesSentForTest(): Promise<void> {
    return this.host.changesSentForTest();
  }

  /** True while the engine's process runs. */
  get engineRunning(): boolean {
    return this.host.isRunning;
  }

  /**
   * The data folder of `kind`: the one it started with while it runs (a change of `azurite.location`
   * applies at its restart), else the one a start would use now.
   */
  dataLocation(kind: ServiceKind): string {
    return (this.isRunning(kind) ? this.startedWith[kind]?.location : undefined) ?? this.settings.options.location;
  }

  /** Bytes on disk of `kind`'s data in its data folder ({@link dataLocation}; disk mode). */
  diskUsageBytes(kind: ServiceKind): Promise<number> {
    return diskUsageBytes(kind, this.dataLocation(kind));
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
      return failure('other', message);
    });
  }

  /**
   * Stops everything (see {@link stopAll}: resolves when every service's metadata is on disk) and
   * releases listeners and timers. Never rejects.
   */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const kind of SERVICE_KINDS) this.abortAfterStart(kind);
    try {
      await this.stopAll();
    } finally {
      await this.host.shutDown().catch(() => undefined);
      for (const s of this.subscriptions) s.dispose();
      this.meter.dispose();
      this.host.dispose();
      for (const kind of SERVICE_KINDS) this.services[kind].dispose();
      this.stateEmitter.dispose();
      this.lossEmitter.dispose();
      this.serviceLossEmitter.dispose();
      this.unfinishedSaveEmitter.dispose();
      this.staleStartEmitter.dispose();
      this.startsEmitter.dispose();
      this.trustEmitter.dispose();
      this.elsewhereEmitter.dispose();
    }
  }

  /** True once dispose() began: starts and cleans are refused, so that no engine process outlives it. */
  private disposed = false;

  /** True once {@link dispose} began (the window is closing or reloading, or the extension stops). */
  get shuttingDown(): boolean {
    return this.disposed;
  }

  /** What a start or clean asked for after dispose() began resolves to. */
  private shutDownFailure(kind: ServiceKind, verb: 'started' | 'cleaned'): Failure {
    return failure('state', `${serviceName(kind)} was not ${verb}: the emulator is shutting down (the window is closing or reloading).`);
  }

  /** Reports (log + event) a save of `kind` in `location` that began and never finished, if its marker is there. */
  private async reportUnfinishedSave(kind: ServiceKind, location: string): Promise<void> {
    const unfinished = await takeUnfinishedSave(location, kind, this.host.pid);
    if (unfinished === undefined) return;
    this.log.error(unfinishedSaveMessage(unfinished));
    this.unfinishedSaveEmitter.fire(unfinished);
  }

  private serviceOptions(kind: ServiceKind): HostServiceOptions {
    const o = this.settings.options;
    return {
      kind,
      host: o.services[kind].host,
      port: o.services[kind].port,
      inMemory: o.inMemoryPersistence,
      location: o.location,
      loose: o.loose,
      // Off in the engine when silent (building azurite's access lines is a noticeable part of a small request). When on,
      // `azurite.silent` is also read per line, so turning it on applies at once; turning it off
      // applies from the service's next start (updateSettings says so).
      accessLog: o.silent ? undefined : (line) => { if (!this.settings.options.silent) this.log.access(`${serviceName(kind)} ${line}`); },
      keepAliveSec: o.services[kind].keepAliveSec,
      https: o.https,
      oauth: o.oauth,
      disableProductStyleUrl: o.disableProductStyleUrl,
    };
  }

  /**
   * True when another of our services is configured to use `port` or runs on it (../core/ownPorts.ts
   * `portsOfOthers`): a port offered to `kind` after a conflict that must not be written now.
   */
  isPortOfOtherService(kind: ServiceKind, port: number): boolean {
    const p = this.ports();
    return portsOfOthers(kind, p.configured, p.running).has(port);
  }

  /** Each service's configured port (0: a free one at start) and each running service's address (../core/ownPorts.ts). */
  private ports(): { configured: Record<ServiceKind, number>; running: Partial<Record<ServiceKind, ListenAddress>> } {
    const configured = {} as Record<ServiceKind, number>;
    const running: Partial<Record<ServiceKind, ListenAddress>> = {};
    for (const kind of SERVICE_KINDS) {
      configured[kind] = this.settings.options.services[kind].port;
      const endpoint = this.endpoint(kind);
      if (endpoint !== undefined) running[kind] = endpoint;
    }
    return { configured, running };
  }

  /** A start refused because another of our services runs on the port it asks for (see ownPortConflict). */
  private ownPortHolder(options: HostServiceOptions): Failure | undefined {
    const p = this.ports();
    return ownPortConflict(options.kind, options, p.configured, p.running);
  }

  /**
   * Applies the configured limit to the shared store before a blob/queue start in memory mode
   * (`starting`), or to the running one after a settings change.
   * Bounded by `listenMs` (one request to the engine): an engine that does not answer (stalled, or
   * starved of CPU) fails the start as reason `timeout` instead of leaving it, and every stop and
   * shutdown queued behind it, waiting for good. The limit still applies if the answer comes later.
   */
  private async checkMemoryLimit(options: HostServiceOptions, starting: boolean): Promise<Failure | undefined> {
    if (!options.inMemory || options.kind === 'table') return undefined;
    let refused: string | undefined;
    try {
      refused = await withBound(this.meter.applyLimit(this.settings.options.extentMemoryLimitBytes), this.bounds.listenMs);
    } catch (err) {
      if (!(err instanceof StepTimeout)) throw err;
      const what = starting ? `${serviceName(options.kind)} service could not start: the` : 'The';
      return failure('timeout', `${what} emulator engine did not answer within ${formatBound(err.boundMs)} when asked to apply ${LIMIT_SETTING} (it is stalled or starved of CPU). Try again; if it still does not answer, reload the window, which starts a new engine.`, { setting: LIMIT_SETTING });
    }
    if (refused === undefined) return undefined;
    // At a start, the service is left stopped: say so, not only that the limit stays.
    return failure('memoryLimit', starting ? `${serviceName(options.kind)} service could not start: ${refused}` : refused, { setting: LIMIT_SETTING });
  }

  /**
   * Before a start: ends an engine process that runs with another `azurite.engine.heapLimit`
   * than the setting when nothing of it is in use (no service runs, starts, stops or holds its
   * port, no request to it is unanswered), so that the start brings up one with the setting's
   * limit. While anything is in use the process keeps its limit: ending it would end that. Starts
   * of other services queued meanwhile (Start All) need no wait: each loads whichever process is
   * there when its turn comes, the new one included.
   */
  private async applyHeapLimit(): Promise<void> {
    const inForce = this.host.heapLimitMbInForce;
    const wanted = this.settings.options.engineHeapLimitMb;
    if (inForce === undefined || inForce === wanted) return;
    const inUse = SERVICE_KINDS.some((k) => this.services[k].state.status !== 'closed' || this.services[k].mayHoldPort);
    if (inUse || !this.host.idle) return;
    this.log.info(`azurite.engine.heapLimit is ${wanted} MB and the emulator engine's process, which no service uses, runs with ${inForce} MB: starting a new one.`);
    // Forgotten before the wait: a start or clean meanwhile loads the new process through the loader (its bound, its log line).
    const ended = this.host.terminate();
    this.loader.forget();
    await ended;
  }

  /** The engine's process ended without being asked to: close what it ran, say why and what is lost. */
  private engineLost(exit: EngineExit): void {
    this.lastLoss = exit;
    this.loader.forget();
    const stopped = this.runningKinds();
    const message = describeEngineLoss(exit.reason, stopped, (k) => this.lastStartInMemory[k]);
    this.log.error(message);
    for (const kind of stopped) this.services[kind].engineLost(message);
    // The next engine takes the setting (a limit the lost one refused included), and the meter shows
    // it from the next turn of the event loop on.
    void this.followLimitSetting();
    // With no service running in it (an idle engine, one that ended during the warm-up, or during a
    // start whose own failure says so) the log line is all: nothing was lost, nothing is shown.
    if (stopped.length > 0) this.lossEmitter.fire({ reason: exit.reason, message, stopped, ...(exit.setting !== undefined ? { setting: exit.setting } : {}) });
  }

  /** The last end of the engine's process that was not asked for (its reason and setting). */
  private lastLoss: EngineExit | undefined;

  /**
   * How long a setting the engine applies live may take to be answered, ms: a request's bound
   * (`listenMs`), plus the engine's load (`engineLoadMs`) it may wait behind while the warm-up runs.
   */
  private liveRequestBoundMs(): number {
    return this.bounds.listenMs + (this.host.loadResult !== undefined ? 0 : this.bounds.engineLoadMs);
  }

  /** azurite's debug log is process-wide in the engine: route it while `azurite.debug` is on. */
  private applyDebugLog(): void {
    this.host.setDebugLogSink(this.settings.options.debug ? (line) => this.log.debug(line) : undefined);
  }

  private report(kind: ServiceKind, outcome: Outcome, success: string): void {
    if (outcome.ok) this.log.info(`${serviceName(kind)}: ${success}`);
    // Cancelled by the user (a stop asked while the start waited): said, not as an error.
    else if (outcome.reason === 'cancelled') this.log.info(outcome.message);
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
