/**
 * The engine host, extension-host side: runs the engine (azurite and our adapter) in a child process
 * (./engineProcess.ts, started with `child_process.fork`) and speaks ./engineProtocol.ts to it over
 * the IPC channel. Every request, server and timer of the emulator, and the garbage collection of
 * its heap, then run in that process, at the lowest CPU priority once the engine has loaded: the
 * extension host's thread, which every other extension shares, only passes messages. An uncaught
 * exception or an out-of-memory in the engine ends its process, not the extension host:
 * {@link EngineHost.onDidExit} fires with the reason, and the next request brings a new process up.
 *
 * Why a child process, not a worker thread: bench/README.md ("Engine host").
 */
import { fork, type ChildProcess } from 'node:child_process';
import { systemMemoryBytes } from './systemMemory';
import type { ApiVersionCheck } from '../core/apiVersions';
import { Emitter, type Event } from '../core/events';
import { formatBytes } from '../core/memory';
import type { Endpoint } from '../core/lifecycle';
import type { ServiceKind } from '../core/services';
import type { ContentBytes, SelfClosure } from './azurite';
import {
  ENGINE_DATA_VARIABLE, ENGINE_GONE, isEngineEvent, type EngineEvent, type EngineMessage, type EngineOp, type EngineOps, type EngineProcessData, type EngineStats,
  type LoadResult, type WireServiceOptions,
} from './engineProtocol';

/** Where the engine process and the engine are, and how the process starts. */
export interface EngineHostOptions {
  /** The engine process's entry file: dist/engineProcess.js (out/engine-process.js in tests). Absolute. */
  readonly processPath: string;
  /** The engine module: dist/engine.js (out/engine-bundle.js in tests). Absolute. */
  readonly enginePath: string;
  /** The checksum thread's entry: dist/checksumWorker.js (out/checksum-worker.js in tests); undefined: hash on the serving thread. */
  readonly checksumWorkerPath?: string | undefined;
  /** Folder of the engine's V8 code cache; undefined to load without one. */
  readonly codeCacheDir: string | undefined;
  /**
   * The engine process's V8 heap limit in MB (`--max-old-space-size`): past it the process ends
   * ("JavaScript heap out of memory") instead of taking memory from the editor. Blob and queue
   * content is held in Buffers outside this heap; table entities and all metadata are inside it.
   */
  readonly heapLimitMb: () => number;
  /** Where the engine's own log lines go (code cache outcomes). */
  readonly log: { info(line: string): void; error(line: string): void };
}

/** Why the engine's process ended. */
export interface EngineExit {
  /** For people, as a clause: "it ran out of memory (…)", "an uncaught error in the engine: …". */
  readonly reason: string;
  /**
   * The setting that `reason` names as what to change (`azurite.engine.heapLimit` for an out-of-memory
   * past it), if any: the UI offers Open Settings for it.
   */
  readonly setting?: string;
}

/** The memory figures the engine last sent (bytes). */
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
  /**
   * Frees unreferenced in-memory extents now (Azurite's GC, run once), at a moment with no request
   * in flight. @param idleWaitMs how long to wait for that moment (ms) @param spareMs extents
   * written this recently are kept (ms; 0 by default) @returns bytes freed
   * @throws Error with `code` `EBUSY` when requests were in flight throughout `idleWaitMs`
   */
  reclaim(idleWaitMs: number, spareMs?: number): Promise<number>;
  /** Content bytes per container or queue (blob and queue while running); undefined otherwise. */
  contentBytes(): Promise<ContentBytes | undefined>;
}

/**
 * A service's options as the host takes them: the wire options, where its access-log lines go, and
 * who is told when azurite closes the service by itself (./azurite.ts `EngineServiceOptions.onClosedItself`;
 * the service is then stopped, and its handle's stop answers at once).
 */
export interface HostServiceOptions extends Omit<WireServiceOptions, 'accessLog'> {
  readonly accessLog: ((line: string) => void) | undefined;
  readonly onClosedItself?: ((closure: SelfClosure) => void) | undefined;
}

/** A request waiting for its answer; `answered` runs as the answer is received, before any later message of the engine. */
type Pending = { resolve(value: unknown): void; reject(err: Error): void; answered?(value: unknown): void };

/** Runs the engine in a child process; see the file comment. Dispose with {@link terminate}. */
export class EngineHost {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private nextService = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly accessSinks = new Map<number, (line: string) => void>();
  private readonly closureSinks = new Map<number, (closure: SelfClosure) => void>();
  private memory: EngineMemory = { blobBytes: 0, queueBytes: 0, usedBytes: 0, limitBytes: undefined };
  private loaded: LoadResult | undefined;
  private readonly exitEmitter = new Emitter<EngineExit>();
  private readonly memoryEmitter = new Emitter<EngineMemory>();
  private readonly refusalEmitter = new Emitter<EngineRefusal>();
  private readonly servedNewerEmitter = new Emitter<{ kind: ServiceKind; asked: string; servedAs: string }>();
  private readonly dataEmitter = new Emitter<ServiceKind>();
  private debugSink: ((line: string) => void) | undefined;
  /** The settings a new engine process starts with (kept current by the setters). */
  private state: { extentLimitBytes: number | undefined; apiVersionCheck: ApiVersionCheck; accounts?: string | undefined };

  /** Fires when the engine's process ends without being asked to (crash, out of memory, uncaught exception, killed). */
  readonly onDidExit: Event<EngineExit> = this.exitEmitter.event;
  /** Fires with the extent store's figures after they change (at most once per 100 ms). */
  readonly onDidChangeMemory: Event<EngineMemory> = this.memoryEmitter.event;
  /** Fires for each write refused by the extent limit. */
  readonly onDidRefuse: Event<EngineRefusal> = this.refusalEmitter.event;
  /** Fires for the first request of each version newer than the engine knows, per service kind. */
  readonly onDidServeNewer: Event<{ kind: ServiceKind; asked: string; servedAs: string }> = this.servedNewerEmitter.event;
  /** Fires when a service's data may have changed (the engine's `changed` event: at most every 250 ms per kind). */
  readonly onDidChangeData: Event<ServiceKind> = this.dataEmitter.event;

  constructor(private readonly options: EngineHostOptions, initial: { extentLimitBytes: number | undefined; apiVersionCheck: ApiVersionCheck }) {
    this.state = { ...initial };
  }

  /** True while an engine process runs. */
  get isRunning(): boolean {
    return this.child !== undefined;
  }

  /** True when no request to the engine's process waits for its answer (no start, stop, clean, load or warm-up under way in it). */
  get idle(): boolean {
    return this.pending.size === 0;
  }

  /** The heap limit (MB) the engine's process runs with, read from the setting when it started; undefined while none runs. */
  get heapLimitMbInForce(): number | undefined {
    return this.child !== undefined ? this.spawnedHeapLimitMb : undefined;
  }

  private spawnedHeapLimitMb: number | undefined;
  /** The heap the runtime allows the engine's process, in MB, when below the setting (see heapCapMb()); else undefined. */
  private heapCapMb: number | undefined;

  /** The engine process's id while one runs (tests look at its threads' priorities). */
  get pid(): number | undefined {
    return this.child?.pid;
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
   * Starts the engine process if needed and loads the engine's top level, listening on nothing: the first
   * step of every start and of the warm-up. Later calls answer at once.
   * @throws Error when the engine does not load (or its process ends meanwhile)
   */
  async load(): Promise<LoadResult> {
    if (this.loaded !== undefined && this.child !== undefined) return this.loaded;
    const result = await this.request('load', {});
    this.loaded = result;
    const cappedMb = heapCapMb(this.spawnedHeapLimitMb, result.heapSizeLimitBytes);
    if (cappedMb !== undefined && cappedMb !== this.heapCapMb) {
      this.log('info', `azurite.engine.heapLimit is ${this.spawnedHeapLimitMb} MB, but this runtime lets the engine's heap grow to about ${cappedMb} MB only (VS Code's Electron caps a heap at 4 GB): the engine stops there.`);
    }
    this.heapCapMb = cappedMb;
    if (this.memory.limitBytes === undefined) this.memory = { ...this.memory, limitBytes: this.state.extentLimitBytes ?? result.defaultLimitBytes };
    return result;
  }

  /**
   * Requires every service's part of azurite in the engine, one service at a time (a start sent
   * meanwhile goes between them), and then writes the code cache if it needs writing: the rest of
   * the warm-up, after {@link load}.
   * @returns the time it took in the engine, ms
   * @throws Error when the engine's process ends meanwhile
   */
  async preload(): Promise<number> {
    await this.load();
    return this.request('preload', {});
  }

  /**
   * A new service of the engine (nothing happens in the engine until its start). Once the engine
   * process its start went to has ended, its stop, reclaim and content bytes answer at once (the
   * service went with that process) rather than start a new engine process to ask.
   */
  createService(options: HostServiceOptions): ServiceHandle {
    const service = this.nextService++;
    // Functions do not cross: the sinks stay here, keyed by the service's number.
    const { accessLog, onClosedItself, ...plain } = options;
    const wire: WireServiceOptions = { ...plain, accessLog: accessLog !== undefined };
    let startedIn: ChildProcess | undefined;
    const gone = (): boolean => startedIn === undefined || startedIn !== this.child;
    return {
      start: async () => {
        if (accessLog !== undefined) this.accessSinks.set(service, accessLog);
        if (onClosedItself !== undefined) this.closureSinks.set(service, onClosedItself);
        try {
          // The process the start's load went to ended while the start waited (another process's
          // save, a late stop): the new one is loaded first, as every start's is, so that its load
          // result (memory default, heap cap) is known.
          if (this.loaded === undefined || this.child === undefined) await this.load();
          const starting = this.request('start', { service, options: wire });
          startedIn = this.child;
          return await starting;
        } catch (err) {
          this.forgetSinks(service);
          throw err;
        }
      },
      stop: async () => {
        try {
          if (!gone()) await this.request('stop', { service });
        } finally {
          this.forgetSinks(service);
        }
      },
      clean: async () => { await this.request('clean', { options: wire }); },
      reclaim: async (idleWaitMs, spareMs) => (gone() ? 0 : this.request('reclaim', { service, idleWaitMs, ...(spareMs !== undefined ? { spareMs } : {}) })),
      contentBytes: async () => (gone() ? undefined : (await this.request('contentBytes', { service })) ?? undefined),
    };
  }

  /**
   * Sets the extent limit (bytes; undefined = Azurite's default).
   * @returns false when the limit is below what is stored (the limit in force stays)
   */
  async setLimit(limitBytes: number | undefined): Promise<boolean> {
    if (this.child === undefined) {
      this.state.extentLimitBytes = limitBytes;
      // The figure comes from the next engine process; until then the meter shows the setting.
      this.memory = { ...this.memory, limitBytes: undefined };
      return true;
    }
    const ok = await this.request('setLimit', { limitBytes: limitBytes ?? null });
    if (ok) {
      this.state.extentLimitBytes = limitBytes;
      // In force now: the figures shown until the engine's next memory event say so.
      this.memory = { ...this.memory, limitBytes: limitBytes ?? this.loaded?.defaultLimitBytes };
    }
    return ok;
  }

  /** Applies an API-version policy to every service, running or not; resolves when it is in force. */
  async setApiVersionCheck(mode: ApiVersionCheck): Promise<void> {
    this.state.apiVersionCheck = mode;
    if (this.child !== undefined) await this.request('setApiVersionCheck', { mode });
  }

  /**
   * Sets the engine process's own `AZURITE_ACCOUNTS` (src/core/accounts.ts `azuriteAccountsValue`;
   * undefined = Azurite's default account only) and has running services read it again at once. The
   * extension host's `process.env`, which other extensions share, is never touched. Resolves when
   * in force.
   */
  async setAccounts(value: string | undefined): Promise<void> {
    this.state.accounts = value;
    if (this.child !== undefined) await this.request('setAccounts', { value: value ?? null });
  }

  /** Routes azurite's debug log to `sink`, or turns it off (undefined). */
  setDebugLogSink(sink: ((line: string) => void) | undefined): void {
    const was = this.debugSink !== undefined;
    this.debugSink = sink;
    if (this.child !== undefined && was !== (sink !== undefined)) void this.request('setDebugLog', { enabled: sink !== undefined }).catch(() => undefined);
  }

  /** Asks the engine for the extent store's figures now (they then hold every write it has answered). */
  async refreshMemory(): Promise<EngineMemory> {
    if (this.child === undefined) return this.memory;
    // Taken as the answer is received, in the order of the engine's messages: a memory event the
    // engine sent after answering (newer figures) is handled after it. Taken once this await
    // resumes, the answer would overwrite such an event when both arrived together.
    await this.request('memory', {}, (m) => { this.memory = m; });
    return this.memory;
  }

  /** The engine's heap and the LokiJS estimate of its running services (bytes); zeros without an engine process. */
  async stats(): Promise<EngineStats> {
    if (this.child === undefined) return { metadataEstimateBytes: 0, heapUsedBytes: 0, rssBytes: 0 };
    return this.request('stats', {});
  }

  /** Makes the engine throw an uncaught exception (tests of crash handling; see ExtensionMode.Test). */
  async crashForTest(): Promise<void> {
    await this.request('crashForTest', {});
  }

  /** Fills the engine's heap until its process runs out of memory (unit tests of the heap limit). */
  async exhaustHeapForTest(): Promise<void> {
    await this.request('exhaustHeapForTest', {});
  }

  /** Runs a full garbage collection in the engine (tests that measure leaks). */
  async collectGarbageForTest(): Promise<void> {
    if (this.child !== undefined) await this.request('collectGarbageForTest', {});
  }

  /**
   * Resolves once the engine has sent every `changed` event it owes (its throttle holds none back),
   * so that each change of a request answered before this call has fired onDidChangeData (tests).
   */
  async changesSentForTest(): Promise<void> {
    if (this.child !== undefined) await this.request('changesSentForTest', {});
  }

  /**
   * Ends the engine's process (after every service was stopped) and resolves when it has exited.
   * Fires no onDidExit, unless `lostBecause` is given: the end of a process that must not go on (its
   * load ran past its bound), reported as a loss with that reason. A process that does not end
   * within {@link TERMINATE_WAIT_MS} is killed; one that even SIGKILL does not end within
   * {@link KILL_WAIT_MS} (stuck in the kernel, on a hung disk) is let go of: this resolves then, so
   * that a window's close is never held up by it.
   */
  terminate(lostBecause?: string): Promise<void> {
    // Every end under way is waited for: the loader's of a process whose load ran past its bound,
    // then a window's shutdown (of a newer process, or of none).
    const ending = this.terminateNow(lostBecause);
    this.terminating.add(ending);
    void ending.finally(() => this.terminating.delete(ending));
    return Promise.all([...this.terminating]).then(() => undefined);
  }

  /** The {@link terminate}s under way, each until its process has exited (or been let go of). */
  private readonly terminating = new Set<Promise<void>>();

  private async terminateNow(lostBecause: string | undefined): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.loaded = undefined;
    this.failPending(lostBecause !== undefined ? `the emulator engine stopped: ${lostBecause}` : 'the emulator engine was shut down');
    if (lostBecause !== undefined && child !== undefined) {
      // As a process that ended unasked (onProcessEnded): what ran in it is gone.
      this.accessSinks.clear();
      this.closureSinks.clear();
      this.memory = { blobBytes: 0, queueBytes: 0, usedBytes: 0, limitBytes: this.memory.limitBytes };
      this.exitEmitter.fire({ reason: lostBecause });
      this.memoryEmitter.fire(this.memory);
    }
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    let giveUp: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      giveUp = setTimeout(() => {
        child.kill('SIGKILL');
        giveUp = setTimeout(() => {
          // Let go of it: nothing of this process (its IPC channel, its pipes) keeps ours waiting.
          if (child.connected) child.disconnect();
          child.stdout?.destroy();
          child.stderr?.destroy();
          child.unref();
          resolve();
        }, KILL_WAIT_MS);
      }, TERMINATE_WAIT_MS);
    });
    await Promise.race([exited, killed]);
    clearTimeout(giveUp);
  }

  /**
   * {@link terminate} for good: from now on every request fails and no process is started, also
   * while this waits for the process to exit (a request then would start a new one that nothing
   * ends). Call {@link dispose} after it.
   */
  async shutDown(): Promise<void> {
    this.shuttingDown = true;
    await this.terminate();
  }

  /** Set by shutDown(). */
  private shuttingDown = false;

  /** Removes every listener (call after terminate); from then on every request fails and no process is started. */
  dispose(): void {
    this.disposed = true;
    for (const e of [this.exitEmitter, this.memoryEmitter, this.refusalEmitter, this.servedNewerEmitter, this.dataEmitter]) e.dispose();
  }

  /** Set by dispose(). */
  private disposed = false;

  /**
   * Sends `op` to the engine's process (started if needed).
   * @param answered runs with the answer as it is received (before the engine's later messages are handled)
   */
  private request<K extends EngineOp>(op: K, fields: EngineOps[K]['request'], answered?: (value: EngineOps[K]['value']) => void): Promise<EngineOps[K]['value']> {
    if (this.disposed || this.shuttingDown) return Promise.reject(new Error('the emulator engine was shut down'));
    const child = this.ensureProcess();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, ...(answered !== undefined ? { answered: answered as (v: unknown) => void } : {}) });
      try {
        // A send that fails later means the process is ending: its end ('close') rejects every pending request.
        child.send({ id, op, ...fields }, (err) => { if (err !== null && err !== undefined) this.log('error', `could not reach the emulator engine: ${err.message}`); });
      } catch (err) {
        // Thrown at once (a request that cannot be cloned; no channel, as when the process could not
        // be started): this request fails with it, and nothing waits for an answer that cannot come.
        this.pending.delete(id);
        reject(err as Error);
      }
    });
  }

  private ensureProcess(): ChildProcess {
    if (this.child !== undefined) return this.child;
    const data: EngineProcessData = {
      enginePath: this.options.enginePath,
      codeCacheDir: this.options.codeCacheDir,
      checksumWorkerPath: this.options.checksumWorkerPath,
      extentLimitBytes: this.state.extentLimitBytes,
      apiVersionCheck: this.state.apiVersionCheck,
      debugLog: this.debugSink !== undefined,
      accounts: this.state.accounts,
    };
    const heapLimitMb = this.options.heapLimitMb();
    this.spawnedHeapLimitMb = heapLimitMb;
    const child = fork(this.options.processPath, [], {
      // Our flags only: the extension host's own (an --inspect port when it is being debugged …) are not the engine's.
      execArgv: [`--max-old-space-size=${heapLimitMb}`, ...ENGINE_V8_FLAGS],
      // VS Code's extension host runs on Electron: this makes its binary run as plain Node.
      // The start-up data holds account keys: in the environment (readable by this user only), not in argv.
      env: { ...engineEnvironment(process.env), ELECTRON_RUN_AS_NODE: '1', [ENGINE_DATA_VARIABLE]: JSON.stringify(data) },
      // V8's structured clone, as between threads: undefined, Maps and typed arrays cross as they are.
      serialization: 'advanced',
      // stdout: the extension host's; stderr: kept (its tail says why the process ended) and passed on.
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    let fatal: string | undefined;
    let stderrTail = '';
    let outOfMemory = false;
    child.stderr?.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      const text = stderrTail + chunk.toString('utf8');
      // Latched: V8's line comes before a native stack trace that can be longer than the tail kept.
      outOfMemory ||= OUT_OF_MEMORY.test(text);
      stderrTail = text.slice(-4096);
    });
    child.on('message', (message: EngineMessage) => {
      if (isEngineEvent(message) && message.event === 'fatal') fatal = message.message;
      // A process terminated on purpose, or already reported, has no say in the figures any more.
      else if (this.child === child) this.receive(message);
    });
    // 'error': the process could not be started, or a signal could not be sent; 'exit' follows when it ran.
    child.on('error', (err) => {
      if (child.pid === undefined) this.onProcessEnded(child, { reason: `it could not be started: ${err.message}` });
    });
    // The reason is read once 'close' comes: 'exit' can come before the last of the IPC channel and
    // stderr is read, which hold what says why (the `fatal` message, V8's out-of-memory line).
    // 'close' waits for both to be read to the end; should it not come, a second after 'exit' will do.
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const ended = (): void => {
      if (exit === undefined || this.child !== child) return;
      // What the store held as it ended (the engine's last figures: at most 100 ms old), against the
      // memory this process may use: a SIGKILL then may be the system's out-of-memory killer.
      const held = { storeBytes: this.memory.usedBytes, systemBytes: systemMemoryBytes() };
      this.onProcessEnded(child, describeExit({ fatal, stderrTail, outOfMemory, ...exit }, heapLimitMb, this.heapCapMb, held));
    };
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      setTimeout(ended, 1000).unref();
    });
    child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
      exit ??= { code, signal };
      ended();
    });
    this.child = child;
    return child;
  }

  private onProcessEnded(child: ChildProcess, exit: EngineExit): void {
    if (this.child !== child) return; // terminated on purpose, or already reported
    this.child = undefined;
    this.loaded = undefined;
    this.accessSinks.clear();
    this.closureSinks.clear();
    this.memory = { blobBytes: 0, queueBytes: 0, usedBytes: 0, limitBytes: this.memory.limitBytes };
    this.failPending(`the emulator engine stopped: ${exit.reason}`, exit.setting);
    this.exitEmitter.fire(exit);
    this.memoryEmitter.fire(this.memory);
  }

  private log(level: 'info' | 'error', line: string): void {
    if (level === 'error') this.options.log.error(line);
    else this.options.log.info(line);
  }

  /** Drops the access-log and closure sinks of `service` (stopped, failed to start, or closed by azurite). */
  private forgetSinks(service: number): void {
    this.accessSinks.delete(service);
    this.closureSinks.delete(service);
  }

  /**
   * Rejects every request waiting for an answer with `message`, code ENGINE_GONE, and `setting`
   * (the setting the reason names, see EngineExit.setting) when given.
   */
  private failPending(message: string, setting?: string): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(Object.assign(new Error(message), { code: ENGINE_GONE }, setting !== undefined ? { setting } : {}));
  }

  private receive(message: EngineMessage): void {
    if (isEngineEvent(message)) {
      this.handleEvent(message);
      return;
    }
    const p = this.pending.get(message.id);
    if (p === undefined) return;
    this.pending.delete(message.id);
    if (message.ok) {
      p.answered?.(message.value);
      p.resolve(message.value);
    } else {
      const { message: text, code, name } = message.error;
      p.reject(Object.assign(new Error(text), code !== undefined ? { code } : {}, name !== undefined ? { name } : {}));
    }
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
        this.log(e.level, e.line);
        return;
      case 'closed': {
        const sink = this.closureSinks.get(e.service);
        this.forgetSinks(e.service);
        sink?.({ gcError: e.gcError, saveError: e.saveError });
        return;
      }
      case 'fatal':
        return; // taken in ensureProcess: the exit that follows reports it
    }
  }
}

/**
 * Variables of the extension host's environment that the engine's process does not get, because Node
 * acts on them as on flags, and the engine's flags are its execArgv alone: `NODE_OPTIONS` (a VS Code
 * started from a JavaScript Debug Terminal carries js-debug's `--require` bootloader there, which
 * would attach the debugger to the engine; an `--inspect` would take a port), and
 * `VSCODE_INSPECTOR_OPTIONS` (that bootloader's settings).
 */
export const ENGINE_UNINHERITED_VARIABLES: readonly string[] = ['NODE_OPTIONS', 'VSCODE_INSPECTOR_OPTIONS'];

/**
 * The environment the engine's process inherits: `env` without {@link ENGINE_UNINHERITED_VARIABLES},
 * matched in any case (Windows' variable names ignore case).
 * @param env the extension host's environment
 * @returns a new object; `env` is not changed
 */
export function engineEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const dropped = new Set(ENGINE_UNINHERITED_VARIABLES.map((n) => n.toUpperCase()));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !dropped.has(name.toUpperCase())));
}

/**
 * V8 flags of the engine's process besides its heap limit. `--single-threaded-gc`: V8 collects the
 * engine's garbage on the engine's own thread (incrementally, as before) instead of on helper
 * threads beside it. Those helpers, busy with the heap's growth while large uploads come in, are
 * threads that compete with the editor's for the cores; on the engine's thread the work stays at
 * the engine's priority and uses one core. The cost is longer collection steps inside the engine.
 * bench/README.md ("Engine host") has the measurements.
 */
export const ENGINE_V8_FLAGS: readonly string[] = ['--single-threaded-gc'];

/** How long {@link EngineHost.terminate} waits for the engine's process to end before it kills it (ms). */
export const TERMINATE_WAIT_MS = 5000;

/** How long {@link EngineHost.terminate} waits after SIGKILL before it stops waiting for the exit (ms). */
export const KILL_WAIT_MS = 2000;

/** What is known of an engine process that ended. */
export interface EngineEnd {
  /** The message of the uncaught exception it reported (`fatal`), if any. */
  readonly fatal: string | undefined;
  /** The last few KB of its stderr, where V8 writes "JavaScript heap out of memory". */
  readonly stderrTail: string;
  /** Whether its stderr had V8's out-of-memory line anywhere (the tail may have lost it). */
  readonly outOfMemory?: boolean;
  /** Its exit code, or null when a signal ended it. */
  readonly code: number | null;
  /** The signal that ended it (SIGKILL, SIGABRT …), or null. */
  readonly signal: NodeJS.Signals | null;
}

/**
 * The heap (MB) the runtime really allows the engine's process, when that is below what it was
 * started with: V8 reports a `heap_size_limit` of about `--max-old-space-size` plus the young
 * generation, and less where the runtime caps the heap (Electron's pointer compression: 4 GB).
 * @param requestedMb the `--max-old-space-size` the process was started with (undefined: none known)
 * @param heapSizeLimitBytes what V8 in that process reports
 * @returns the cap in MB, or undefined when the setting is in force (within 1%)
 */
export function heapCapMb(requestedMb: number | undefined, heapSizeLimitBytes: number): number | undefined {
  if (requestedMb === undefined) return undefined;
  const mb = Math.floor(heapSizeLimitBytes / (1024 * 1024));
  return mb < requestedMb * 0.99 ? mb : undefined;
}

/** V8's line on stderr when `--max-old-space-size` is reached ("FATAL ERROR: Reached heap limit … JavaScript heap out of memory"). */
const OUT_OF_MEMORY = /heap out of memory|Reached heap limit/i;

/** The setting of the engine process's heap limit, named by an out-of-memory end. */
export const HEAP_LIMIT_SETTING = 'azurite.engine.heapLimit';
/** The setting that caps the blob and queue content held in memory. */
export const EXTENT_LIMIT_SETTING = 'azurite.extentMemoryLimit';

/**
 * The share of the system's memory ({@link systemMemoryBytes}) from which the blob and queue
 * content an engine held in memory is named as a possible cause of a SIGKILL (the system's
 * out-of-memory killer): a quarter (Azurite's default limit lets that content reach half).
 */
export const LARGE_STORE_SHARE = 0.25;

/**
 * Why an engine process ended unasked, for a person to read, with the setting to change when the
 * reason names one. Out of memory is recognised by V8's own message on stderr (Node prints "FATAL
 * ERROR: … JavaScript heap out of memory" and aborts when `--max-old-space-size` is reached): its
 * setting is `azurite.engine.heapLimit`. A SIGKILL (never sent by this extension to an engine it
 * has not let go of) while the extent store held at least {@link LARGE_STORE_SHARE} of the
 * system's memory says the system may have run out of memory, naming `azurite.extentMemoryLimit`.
 * A process that exited with a code before it could report anything (its entry file missing, a V8
 * flag refused) gets the line of its stderr that says why ({@link failureLine}).
 * @param heapLimitMb the `--max-old-space-size` it ran with, MB
 * @param heapCapMb the heap the runtime allowed it when below that, MB (see {@link heapCapMb})
 * @param held what its extent store held as it ended and the system's memory, bytes (undefined: not known)
 */
export function describeExit(end: EngineEnd, heapLimitMb: number, heapCapMb?: number, held?: { readonly storeBytes: number; readonly systemBytes: number }): EngineExit {
  if (end.outOfMemory === true || OUT_OF_MEMORY.test(end.stderrTail)) {
    const reason = heapCapMb === undefined
      ? `it ran out of memory (${HEAP_LIMIT_SETTING} is ${heapLimitMb} MB)`
      : `it ran out of memory (${HEAP_LIMIT_SETTING} is ${heapLimitMb} MB, but VS Code's runtime lets the engine's heap grow to about ${heapCapMb} MB only)`;
    return { reason, setting: HEAP_LIMIT_SETTING };
  }
  if (end.fatal !== undefined) return { reason: `an uncaught error in the engine: ${end.fatal}` };
  if (end.signal === 'SIGKILL' && held !== undefined && held.systemBytes > 0 && held.storeBytes >= held.systemBytes * LARGE_STORE_SHARE) {
    return {
      reason: `it was ended by SIGKILL, which this extension did not send; it held ${formatBytes(held.storeBytes)} of blob and queue content in memory, of the ${formatBytes(held.systemBytes)} this system has, so the system may have run out of memory and ended it (${EXTENT_LIMIT_SETTING} caps that content)`,
      setting: EXTENT_LIMIT_SETTING,
    };
  }
  if (end.signal !== null) return { reason: `it was ended by ${end.signal}` };
  const why = end.code === 0 ? undefined : failureLine(end.stderrTail);
  return { reason: `it exited with code ${end.code ?? 'unknown'}${why !== undefined ? `: ${why}` : ''}` };
}

/**
 * The line of a process's stderr that says why it failed: the last line that begins with an
 * error's name (`Error: Cannot find module …`), `node:` (`node: bad option: …`) or `FATAL`, else the
 * last non-empty line; Node's closing "Node.js v20…" line is never it. At most 300 characters.
 * @returns undefined for an empty stderr
 */
export function failureLine(stderr: string): string | undefined {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/^Node\.js v\d/.test(l));
  const line = [...lines].reverse().find((l) => /^(\w*Error\b|node:|FATAL\b)/.test(l)) ?? lines.at(-1);
  return line === undefined || line.length <= 300 ? line : `${line.slice(0, 299)}…`;
}
