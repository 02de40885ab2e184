/**
 * The engine host, extension-host side: runs the engine (azurite and our adapter) in a
 * `worker_threads` Worker (./engineWorker.ts) and speaks ./engineProtocol.ts to it. Every request,
 * server and timer of the emulator then runs on the worker's thread: the extension host's thread,
 * which every other extension shares, only passes messages. An uncaught exception or an
 * out-of-memory in the engine ends the worker, not the extension host: {@link EngineHost.onDidExit}
 * fires with the reason, and the next request brings a new worker up.
 *
 * Why a worker thread, not a child process: bench/README.md ("Engine host").
 */
import { Worker } from 'node:worker_threads';
import type { ApiVersionCheck } from '../core/apiVersions';
import { Emitter, type Event } from '../core/events';
import type { Endpoint } from '../core/lifecycle';
import type { ServiceKind } from '../core/services';
import type { ContentBytes } from './azurite';
import {
  isEngineEvent, type EngineEvent, type EngineMessage, type EngineOp, type EngineOps, type EngineStats, type EngineWorkerData,
  type LoadResult, type WireServiceOptions,
} from './engineProtocol';

/** Where the worker and the engine are, and how the worker starts. */
export interface EngineHostOptions {
  /** The worker's entry file: dist/engineWorker.js (out/engine-worker.js in tests). Absolute. */
  readonly workerPath: string;
  /** The engine module: dist/engine.js (out/engine-bundle.js in tests). Absolute. */
  readonly enginePath: string;
  /** Folder of the engine's V8 code cache; undefined to load without one. */
  readonly codeCacheDir: string | undefined;
  /**
   * The worker's V8 heap limit in MB (`resourceLimits.maxOldGenerationSizeMb`): past it the worker
   * ends with ERR_WORKER_OUT_OF_MEMORY instead of taking memory from the editor. Blob and queue
   * content is held in Buffers outside this heap; table entities and all metadata are inside it.
   */
  readonly heapLimitMb: () => number;
  /** Where the worker's own log lines go (code cache outcomes). */
  readonly log: { info(line: string): void; error(line: string): void };
}

/** Why the worker ended (`reason` is for people: "out of memory (heap limit 2048 MB)", "engine crash forced by a test"). */
export interface EngineExit {
  readonly reason: string;
}

/** The memory figures the worker last sent (bytes). */
export interface EngineMemory {
  readonly blobBytes: number;
  readonly queueBytes: number;
  readonly usedBytes: number;
  readonly limitBytes: number | undefined;
}

/** A write the engine refused because of the extent limit (bytes). */
export interface EngineRefusal {
  readonly category: string;
  readonly requestedBytes: number;
  readonly usedBytes: number;
  readonly limitBytes: number;
}

/** One service of the engine, as the host holds it; each start makes a new one. */
export interface ServiceHandle {
  /** @throws Error with Node's `code` (EADDRINUSE …) when listening fails, or when the engine stops. */
  start(): Promise<Endpoint>;
  /** Resolves when the port is free and disk data is saved. */
  stop(): Promise<void>;
  /** Deletes the service's data (disk files or in-memory extents); only while stopped. */
  clean(): Promise<void>;
  /** Frees unreferenced in-memory extents now (Azurite's GC, run once). @returns bytes freed */
  reclaim(): Promise<number>;
  /** Content bytes per container or queue (blob and queue while running); undefined otherwise. */
  contentBytes(): Promise<ContentBytes | undefined>;
}

/** A service's options as the host takes them: the wire options, and where its access-log lines go. */
export interface HostServiceOptions extends Omit<WireServiceOptions, 'accessLog'> {
  readonly accessLog: ((line: string) => void) | undefined;
}

type Pending = { resolve(value: unknown): void; reject(err: Error): void };

/** Runs the engine in a worker thread; see the file comment. Dispose with {@link terminate}. */
export class EngineHost {
  private worker: Worker | undefined;
  private nextId = 1;
  private nextService = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly accessSinks = new Map<number, (line: string) => void>();
  private memory: EngineMemory = { blobBytes: 0, queueBytes: 0, usedBytes: 0, limitBytes: undefined };
  private loaded: LoadResult | undefined;
  private readonly exitEmitter = new Emitter<EngineExit>();
  private readonly memoryEmitter = new Emitter<EngineMemory>();
  private readonly refusalEmitter = new Emitter<EngineRefusal>();
  private readonly servedNewerEmitter = new Emitter<{ kind: ServiceKind; asked: string; servedAs: string }>();
  private readonly dataEmitter = new Emitter<ServiceKind>();
  private debugSink: ((line: string) => void) | undefined;
  /** The settings a new worker starts with (kept current by the setters). */
  private state: { extentLimitBytes: number | undefined; apiVersionCheck: ApiVersionCheck; accounts?: string | undefined };

  /** Fires when the worker ends without being asked to (crash, out of memory, uncaught exception). */
  readonly onDidExit: Event<EngineExit> = this.exitEmitter.event;
  /** Fires with the extent store's figures after they change (at most once per worker event-loop turn). */
  readonly onDidChangeMemory: Event<EngineMemory> = this.memoryEmitter.event;
  /** Fires for each write refused by the extent limit. */
  readonly onDidRefuse: Event<EngineRefusal> = this.refusalEmitter.event;
  /** Fires for the first request of each version newer than the engine knows, per service kind. */
  readonly onDidServeNewer: Event<{ kind: ServiceKind; asked: string; servedAs: string }> = this.servedNewerEmitter.event;
  /** Fires when a service's data may have changed (the worker's `changed` event: at most every 250 ms per kind). */
  readonly onDidChangeData: Event<ServiceKind> = this.dataEmitter.event;

  constructor(private readonly options: EngineHostOptions, initial: { extentLimitBytes: number | undefined; apiVersionCheck: ApiVersionCheck }) {
    this.state = { ...initial };
  }

  /** True while a worker runs. */
  get isRunning(): boolean {
    return this.worker !== undefined;
  }

  /** The extent store's figures as last reported (zeros before the engine loads). */
  get memoryFigures(): EngineMemory {
    return this.memory;
  }

  /** What the last load answered (undefined until the engine has loaded). */
  get loadResult(): LoadResult | undefined {
    return this.loaded;
  }

  /**
   * Starts the worker if needed and loads the engine's top level, listening on nothing: the first
   * step of every start and of the warm-up. Later calls answer at once.
   * @throws Error when the engine does not load (or the worker ends meanwhile)
   */
  async load(): Promise<LoadResult> {
    if (this.loaded !== undefined && this.worker !== undefined) return this.loaded;
    const result = await this.request('load', {});
    this.loaded = result;
    if (this.memory.limitBytes === undefined) this.memory = { ...this.memory, limitBytes: this.state.extentLimitBytes ?? result.defaultLimitBytes };
    return result;
  }

  /**
   * Requires every service's part of azurite in the worker, one service at a time (a start sent
   * meanwhile goes between them), and then writes the code cache if it needs writing: the rest of
   * the warm-up, after {@link load}.
   * @returns the time it took in the worker, ms
   * @throws Error when the worker ends meanwhile
   */
  async preload(): Promise<number> {
    await this.load();
    return this.request('preload', {});
  }

  /** A new service of the engine (nothing happens in the worker until its start). */
  createService(options: HostServiceOptions): ServiceHandle {
    const service = this.nextService++;
    const wire: WireServiceOptions = { ...options, accessLog: options.accessLog !== undefined };
    return {
      start: async () => {
        if (options.accessLog !== undefined) this.accessSinks.set(service, options.accessLog);
        try {
          return await this.request('start', { service, options: wire });
        } catch (err) {
          this.accessSinks.delete(service);
          throw err;
        }
      },
      stop: async () => {
        try {
          await this.request('stop', { service });
        } finally {
          this.accessSinks.delete(service);
        }
      },
      clean: async () => { await this.request('clean', { options: wire }); },
      reclaim: () => this.request('reclaim', { service }),
      contentBytes: async () => (await this.request('contentBytes', { service })) ?? undefined,
    };
  }

  /**
   * Sets the extent limit (bytes; undefined = Azurite's default).
   * @returns false when the limit is below what is stored (the limit in force stays)
   */
  async setLimit(limitBytes: number | undefined): Promise<boolean> {
    if (this.worker === undefined) {
      this.state.extentLimitBytes = limitBytes;
      // The figure comes from the next worker; until then the meter shows the setting.
      this.memory = { ...this.memory, limitBytes: undefined };
      return true;
    }
    const ok = await this.request('setLimit', { limitBytes: limitBytes ?? null });
    if (ok) this.state.extentLimitBytes = limitBytes;
    return ok;
  }

  /** Applies an API-version policy to every service, running or not; resolves when it is in force. */
  async setApiVersionCheck(mode: ApiVersionCheck): Promise<void> {
    this.state.apiVersionCheck = mode;
    if (this.worker !== undefined) await this.request('setApiVersionCheck', { mode });
  }

  /**
   * Sets the worker's own `AZURITE_ACCOUNTS` (src/core/accounts.ts `azuriteAccountsValue`; undefined =
   * Azurite's default account only) and has running services read it again at once. The worker's
   * environment is a copy: the extension host's `process.env`, which other extensions share, is
   * never touched. Resolves when in force.
   */
  async setAccounts(value: string | undefined): Promise<void> {
    this.state.accounts = value;
    if (this.worker !== undefined) await this.request('setAccounts', { value: value ?? null });
  }

  /** Routes azurite's debug log to `sink`, or turns it off (undefined). */
  setDebugLogSink(sink: ((line: string) => void) | undefined): void {
    const was = this.debugSink !== undefined;
    this.debugSink = sink;
    if (this.worker !== undefined && was !== (sink !== undefined)) void this.request('setDebugLog', { enabled: sink !== undefined }).catch(() => undefined);
  }

  /** Asks the engine for the extent store's figures now (they then hold every write it has answered). */
  async refreshMemory(): Promise<EngineMemory> {
    if (this.worker === undefined) return this.memory;
    const m = await this.request('memory', {});
    this.memory = m;
    return m;
  }

  /** The worker's heap and the LokiJS estimate of its running services (bytes); zeros without a worker. */
  async stats(): Promise<EngineStats> {
    if (this.worker === undefined) return { metadataEstimateBytes: 0, heapUsedBytes: 0 };
    return this.request('stats', {});
  }

  /** Makes the engine throw an uncaught exception (tests of crash handling; see ExtensionMode.Test). */
  async crashForTest(): Promise<void> {
    await this.request('crashForTest', {});
  }

  /** Runs a full garbage collection in the worker (tests that measure leaks). */
  async collectGarbageForTest(): Promise<void> {
    if (this.worker !== undefined) await this.request('collectGarbageForTest', {});
  }

  /** Ends the worker (after every service was stopped). Fires no onDidExit. */
  async terminate(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.loaded = undefined;
    if (worker !== undefined) await worker.terminate();
    this.failPending('the emulator engine was shut down');
  }

  /** Removes every listener (call after terminate). */
  dispose(): void {
    for (const e of [this.exitEmitter, this.memoryEmitter, this.refusalEmitter, this.servedNewerEmitter, this.dataEmitter]) e.dispose();
  }

  private request<K extends EngineOp>(op: K, fields: EngineOps[K]['request']): Promise<EngineOps[K]['value']> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ id, op, ...fields });
    });
  }

  private ensureWorker(): Worker {
    if (this.worker !== undefined) return this.worker;
    const data: EngineWorkerData = {
      enginePath: this.options.enginePath,
      codeCacheDir: this.options.codeCacheDir,
      extentLimitBytes: this.state.extentLimitBytes,
      apiVersionCheck: this.state.apiVersionCheck,
      debugLog: this.debugSink !== undefined,
      accounts: this.state.accounts,
    };
    const heapLimitMb = this.options.heapLimitMb();
    const worker = new Worker(this.options.workerPath, {
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: heapLimitMb },
      // The worker's console goes to the extension host's (its log), not to a pipe nobody reads.
      stdout: false,
      stderr: false,
    });
    let failure: Error | undefined;
    worker.on('message', (message: EngineMessage) => this.receive(message));
    worker.on('error', (err) => { failure = err; });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return; // terminated on purpose
      this.worker = undefined;
      this.loaded = undefined;
      this.accessSinks.clear();
      this.memory = { blobBytes: 0, queueBytes: 0, usedBytes: 0, limitBytes: this.memory.limitBytes };
      const reason = describeExit(failure, code, heapLimitMb);
      this.failPending(`the emulator engine stopped: ${reason}`);
      this.exitEmitter.fire({ reason });
      this.memoryEmitter.fire(this.memory);
    });
    this.worker = worker;
    return worker;
  }

  private failPending(message: string): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(new Error(message));
  }

  private receive(message: EngineMessage): void {
    if (isEngineEvent(message)) {
      this.handleEvent(message);
      return;
    }
    const p = this.pending.get(message.id);
    if (p === undefined) return;
    this.pending.delete(message.id);
    if (message.ok) p.resolve(message.value);
    else p.reject(Object.assign(new Error(message.error.message), message.error.code !== undefined ? { code: message.error.code } : {}));
  }

  private handleEvent(e: EngineEvent): void {
    switch (e.event) {
      case 'memory':
        this.memory = { blobBytes: e.blobBytes, queueBytes: e.queueBytes, usedBytes: e.usedBytes, limitBytes: e.limitBytes };
        this.memoryEmitter.fire(this.memory);
        return;
      case 'refused':
        this.refusalEmitter.fire({ category: e.category, requestedBytes: e.requestedBytes, usedBytes: e.usedBytes, limitBytes: e.limitBytes });
        return;
      case 'access': {
        const sink = this.accessSinks.get(e.service);
        if (sink !== undefined) for (const line of e.lines) sink(line);
        return;
      }
      case 'debug':
        if (this.debugSink !== undefined) for (const line of e.lines) this.debugSink(line);
        return;
      case 'changed':
        this.dataEmitter.fire(e.kind);
        return;
      case 'servedNewer':
        this.servedNewerEmitter.fire({ kind: e.kind, asked: e.asked, servedAs: e.servedAs });
        return;
      case 'log':
        if (e.level === 'error') this.options.log.error(e.line);
        else this.options.log.info(e.line);
        return;
    }
  }
}

/** A reason a person can read, from the worker's error (if any) and exit code. */
export function describeExit(error: Error | undefined, code: number, heapLimitMb: number): string {
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return `it ran out of memory (azurite.engine.heapLimit is ${heapLimitMb} MB)`;
  }
  if (error !== undefined) return `an uncaught error in the engine: ${error.message}`;
  return `it exited with code ${code}`;
}
