/**
 * Runs one service through its lifecycle (src/core/lifecycle.ts) on top of the adapter. Every
 * public method resolves to a {@link Outcome} and never rejects, so a click handler can await it
 * without try/catch; failures are kept in the state (`closed` with `error`) and in the outcome.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { formatBound, LIFECYCLE_BOUNDS, StepTimeout, withBound, type LifecycleBounds } from '../core/bounds';
import { Emitter, type Event } from '../core/events';
import { INITIAL_STATE, IllegalTransition, transition, type LifecycleEvent, type ServiceState } from '../core/lifecycle';
import { serviceName, type ServiceKind } from '../core/services';
import { failure, type Failure, type FailureReason, type Outcome } from '../core/outcome';
import { describeLocationError, describePortConflict, describeStartError, startErrorSetting, type PortConflict } from '../core/startErrors';
import { findFreePort, probePortHolder } from './ports';
import type { HostServiceOptions, ServiceHandle } from './engineHost';
import type { ContentBytes, SelfClosure } from './azurite';
import { describeSelfClosure } from '../core/engineLoss';
import { certificateProblem, SECRET_PASSWORD_REFUSED } from './certificates';
import { ENGINE_GONE } from './engineProtocol';
import { waitForLiveSave, type UnfinishedSave } from './shutdownMarker';

export type { Failure, Outcome };

/** Makes an engine service from options (EngineHost.createService in production: the service runs in the engine's process). */
export type ServiceFactory = (options: HostServiceOptions) => ServiceHandle;

/** Called before a start with what the service is about to use; resolve a failure to refuse the start. */
export type StartCheck = (options: HostServiceOptions) => Promise<Failure | undefined>;

/** A setting whose value stops the service: its key (`azurite.blobPort`) and the message naming the fix. */
export interface Blocker {
  readonly key: string;
  readonly message: string;
}

/** What a manager needs beyond its factory; every field optional. */
export interface ManagerContext {
  /** Bounds of the lifecycle steps (../core/bounds.ts); tests shorten some. */
  readonly bounds?: Partial<LifecycleBounds>;
  /**
   * Ports our other services are configured to use or run on: never offered as the free port after
   * a conflict ("Use Port N" must not break another service next).
   */
  readonly reservedPorts?: () => ReadonlySet<number>;
  /**
   * Called when a disk-mode start or clean waits for a save of the same data that another process
   * is still writing (./shutdownMarker.ts `waitForLiveSave`), for a log line.
   */
  readonly onWaitForSave?: (save: UnfinishedSave) => void;
  /** Called when a start or clean waits for a stop or clean of ours that ran past its bound, for a log line. */
  readonly onWaitForLateStop?: (what: 'stop' | 'clean') => void;
  /**
   * The process id of this window's engine, whose save markers are not waited for (see
   * `LiveSaveWait.ownPid`): its own stops are waited for by the manager (a stop past its bound too).
   */
  readonly enginePid?: () => number | undefined;
  /**
   * True once the emulator is shutting down: a wait for another process's save ends then, and a
   * start whose checks are done does not listen (it fails as reason `state`).
   */
  readonly shuttingDown?: () => boolean;
  /**
   * Called after Azurite closed the running service by itself (./azurite.ts
   * `EngineServiceOptions.onClosedItself`): the state is `closed` with `failure.message` as its
   * error by then. For a notification.
   */
  readonly onClosedItself?: (failure: Failure) => void;
}

/** Lifecycle of one service kind. */
export class ServiceManager {
  private current: ServiceState = INITIAL_STATE;
  private running: ServiceHandle | undefined;
  /** The stop under way (state `closing`), if any. */
  private stopping: Promise<Outcome> | undefined;
  private readonly stateEmitter = new Emitter<ServiceState>();
  /** The stop of a server that listened after its start's bound had passed (a next start waits for it). */
  private undoingLateStart: Promise<void> | undefined;
  /**
   * A stop that ran past its bound and still runs in the engine (closing, saving in disk mode,
   * dropping in-memory data), or a clean still deleting the data: a next start or clean waits for
   * it, as long as a stop may take, so that it neither loads data that is still being written or
   * deleted nor loses what it makes to that stop or clean.
   */
  private lateStop: Promise<void> | undefined;
  /** True when {@link lateStop} is a clean that ran past its bound (still deleting the data), not a stop. */
  private lateStopIsClean = false;

  /** Fires after every state change with the new state. */
  readonly onDidChangeState: Event<ServiceState> = this.stateEmitter.event;

  constructor(
    readonly kind: ServiceKind,
    private readonly createService: ServiceFactory,
    private readonly context: ManagerContext = {},
  ) {}

  /** The bounds in force (read at each step, so a test can change its context's). */
  private get bounds(): LifecycleBounds {
    return { ...LIFECYCLE_BOUNDS, ...this.context.bounds };
  }

  /**
   * True while a server of this service may still answer on its port although the state says
   * closed: a start that listened past its bound is being undone, or a stop ran past its bound.
   * A probe of the port then finds this service itself, not another Azurite.
   */
  get mayHoldPort(): boolean {
    return this.undoingLateStart !== undefined || (this.lateStop !== undefined && !this.lateStopIsClean);
  }

  /** The current state. */
  get state(): ServiceState {
    return this.current;
  }

  /**
   * Starts the service with `options`. Refuses (state stays closed, error kept) when `blockers`
   * has setting errors, when the data folder cannot be written, when the HTTPS certificate does not
   * load (./certificates.ts: missing file, wrong PFX password, key not matching), or when `check`
   * says no, or when the emulator began shutting down before it listens (reason `state`). A
   * refused service never listened and holds no store.
   *
   * Every step is bounded (../core/bounds.ts): past its bound the start fails as reason `timeout`,
   * naming what hung and the setting, and the service is closed again. A server that listens after
   * its bound is stopped as soon as it does, and a next start waits for that stop, as long as its
   * own listen may take; a previous start that is still under way after that fails the new one
   * (reason `timeout`), since only ending the engine ends it.
   * @param signal aborted when the user asks for a stop or clean meanwhile: a wait for another
   *   process's save of the same data ends then, and the start resolves to a `cancelled` outcome
   *   with the service closed and no error
   */
  async start(options: HostServiceOptions, blockers: readonly Blocker[] = [], check?: StartCheck, signal?: AbortSignal): Promise<Outcome> {
    if (this.current.status !== 'closed') return this.illegal('start');
    const stillStarting = await this.lateStartEnded('start', options);
    if (stillStarting !== undefined) return stillStarting;
    if (this.current.status !== 'closed') return this.illegal('start');
    const stillStopping = await this.lateStopEnded('start');
    if (stillStopping !== undefined) return stillStopping;
    if (this.current.status !== 'closed') return this.illegal('start');
    // A check that throws (the engine ended while it asked it) refuses the start: start() never rejects.
    const refusal = blockers.length > 0
      ? failure('setting', blockers.map((b) => b.message).join(' '), { setting: blockers[0]!.key })
      : await Promise.resolve(check?.(options)).catch((err: unknown) => failure('engine', `${serviceName(this.kind)} service could not start: ${(err as Error).message}`, { setting: lossSetting(err) }));
    if (this.current.status !== 'closed') return this.illegal('start');
    if (refusal !== undefined) {
      this.set({ status: 'closed', error: refusal.message });
      this.settingsRefusal = blockers.length > 0 ? refusal.message : undefined;
      return refusal;
    }
    this.apply({ type: 'start' });
    // Read-only check first, so a bad certificate leaves no data folder behind.
    const name = serviceName(this.kind);
    const b = this.bounds;
    if (options.https !== undefined) {
      const https = options.https;
      const problem = await withBound(certificateProblem(https), b.certificateMs).catch((err: unknown) => {
        if (!(err instanceof StepTimeout)) throw err;
        return new StepTimeout(err.boundMs);
      });
      if (problem instanceof StepTimeout) {
        return this.fail(`${name} service could not start: reading the HTTPS certificate (azurite.cert is ${JSON.stringify(https.cert)}${https.key !== undefined ? `, azurite.key ${JSON.stringify(https.key)}` : ''}) did not finish within ${formatBound(problem.boundMs)}. Is it on a drive that does not answer? Put the files in a local folder and point azurite.cert${https.key !== undefined ? ' and azurite.key' : ''} at them.`, 'timeout', 'azurite.cert');
      }
      // The password in Secret Storage does not open the PFX: what to offer is the command that sets it.
      if (problem !== undefined && https.pwdFromSecretStorage === true && problem.startsWith(SECRET_PASSWORD_REFUSED)) {
        this.apply({ type: 'failed', message: problem });
        return failure('certificate', problem, { secret: 'certificatePassword' });
      }
      // The setting the message is about (a key that is not the certificate's names azurite.key): what Open Settings opens.
      if (problem !== undefined) return this.fail(problem, 'certificate', /^azurite\.(key|pwd)\b/.exec(problem)?.[0] ?? 'azurite.cert');
    }
    if (!options.inMemory) {
      let problem: NodeJS.ErrnoException | undefined;
      try {
        problem = await withBound(writableFolderProblem(options.location), b.folderMs);
      } catch (err) {
        if (!(err instanceof StepTimeout)) throw err;
        return this.fail(`azurite.location resolves to ${JSON.stringify(options.location)}, and checking that it is a folder ${name} can write to did not finish within ${formatBound(err.boundMs)} (a drive or file system that does not answer). Set azurite.location to a local folder you can write to, or turn on azurite.inMemoryPersistence.`, 'timeout', 'azurite.location');
      }
      if (problem !== undefined) return this.fail(describeLocationError(options.location, problem), 'location', 'azurite.location');
      const stillSaving = await this.earlierSaveStillRunning(options.location, signal);
      if (stillSaving?.reason === 'cancelled') {
        // Not a failure: the item shows the service stopped, as the stop asked, not in red (no
        // `failed` event, whose state would carry the message as an error).
        this.set({ status: 'closed' });
        return failure('cancelled', `${name} was not started: ${stillSaving.message}`);
      }
      if (stillSaving !== undefined) return this.fail(`${name} service could not start: ${stillSaving.message}`, stillSaving.reason, stillSaving.reason === 'timeout' ? 'azurite.location' : undefined);
    }
    // The emulator began shutting down during the checks: its stop waits behind this start, and a
    // listen (in disk mode, a load of the data) would only hold the close up.
    if (this.context.shuttingDown?.() === true) return this.fail(`${name} was not started: the emulator is shutting down (the window is closing or reloading).`, 'state');
    const service: ServiceHandle = this.createService({ ...options, onClosedItself: (closure) => this.closedItself(service, options, closure) });
    const listenBound = options.inMemory ? b.listenMs : b.listenWithDataMs;
    const starting = service.start();
    try {
      const endpoint = await withBound(starting, listenBound);
      this.running = service;
      this.apply({ type: 'started', endpoint });
      const early = this.earlyClosure;
      this.earlyClosure = undefined;
      if (early?.service === service) this.closedItself(service, options, early.closure);
      return { ok: true };
    } catch (err) {
      if (err instanceof StepTimeout) {
        this.undoLateStart(starting, service);
        const what = options.inMemory ? `listening on ${options.host}:${options.port}` : `listening on ${options.host}:${options.port} and loading its data from ${JSON.stringify(options.location)}`;
        return this.fail(`${name} service could not start: ${what} did not finish within ${formatBound(err.boundMs)}. Check azurite.${this.kind}Host (${JSON.stringify(options.host)}): a host name that does not resolve hangs here; 127.0.0.1 is this machine.${options.inMemory ? '' : ' A very large data folder can also take this long: see azurite.location.'}`, 'timeout', `azurite.${this.kind}Host`);
      }
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && options.port !== 0) {
        const conflict = await explainConflict(this.kind, options.host, options.port, this.context.reservedPorts?.() ?? new Set());
        return this.fail(describePortConflict(conflict), 'port', `azurite.${this.kind}Port`, conflict);
      }
      const setting = startErrorSetting(this.kind, err as Error);
      return this.fail(describeStartError(options, err as Error), setting !== undefined ? 'setting' : reasonOf(err), setting ?? lossSetting(err));
    }
  }

  /**
   * Stops the service; resolves when its port is free and, in disk mode, its metadata is on disk
   * (ServiceHandle.stop). A stop called while one is under way (state `closing`) resolves with that
   * stop's outcome, so a shutdown can wait for a restart's stop to finish saving. Never rejects.
   */
  async stop(): Promise<Outcome> {
    if (this.current.status === 'closing' && this.stopping !== undefined) return this.stopping;
    if (this.current.status !== 'running') return this.illegal('close');
    const service = this.running!;
    this.apply({ type: 'close' });
    const stopping = (async (): Promise<Outcome> => {
      const request = service.stop();
      try {
        await withBound(request, this.bounds.stopMs);
        this.running = undefined;
        this.apply({ type: 'closed' });
        return { ok: true };
      } catch (err) {
        this.running = undefined;
        if (err instanceof StepTimeout) {
          const late: Promise<void> = request.then(() => undefined, () => undefined).finally(() => {
            if (this.lateStop === late) this.lateStop = undefined;
          });
          this.lateStop = late;
          this.lateStopIsClean = false;
          return this.fail(`${serviceName(this.kind)} service did not stop within ${formatBound(err.boundMs)} (closing its port and saving its data); it may hold its port until the window reloads.`, 'timeout');
        }
        return this.fail(`${serviceName(this.kind)} service did not stop cleanly: ${(err as Error).message}`, reasonOf(err), lossSetting(err));
      } finally {
        this.stopping = undefined;
      }
    })();
    this.stopping = stopping;
    return stopping;
  }

  /** Deletes the service's data. Only while closed. */
  async clean(options: HostServiceOptions): Promise<Outcome> {
    if (this.current.status !== 'closed') return this.illegal('clean');
    // A start that listened late loads the data and saves it again when it ends: deleting the data
    // meanwhile would leave its save (the data as it was) behind.
    const stillStarting = await this.lateStartEnded('clean', options);
    if (stillStarting !== undefined) return stillStarting;
    if (this.current.status !== 'closed') return this.illegal('clean');
    const stillStopping = await this.lateStopEnded('clean');
    if (stillStopping !== undefined) return stillStopping;
    if (this.current.status !== 'closed') return this.illegal('clean');
    this.apply({ type: 'clean' });
    if (!options.inMemory) {
      const stillSaving = await this.earlierSaveStillRunning(options.location);
      if (stillSaving !== undefined) return this.fail(`${serviceName(this.kind)} data could not be cleaned: ${stillSaving.message}`, stillSaving.reason, stillSaving.reason === 'timeout' ? 'azurite.location' : undefined);
    }
    const request = this.createService(options).clean();
    try {
      await withBound(request, this.bounds.cleanMs);
      this.apply({ type: 'cleaned' });
      return { ok: true };
    } catch (err) {
      if (err instanceof StepTimeout) {
        // Still deleting in the engine: a next start or clean waits for it, as for a late stop.
        const late: Promise<void> = request.then(() => undefined, () => undefined).finally(() => {
          if (this.lateStop === late) this.lateStop = undefined;
        });
        this.lateStop = late;
        this.lateStopIsClean = true;
        return this.fail(`${serviceName(this.kind)} data could not be cleaned: deleting it${options.inMemory ? '' : ` in ${JSON.stringify(options.location)} (azurite.location)`} did not finish within ${formatBound(err.boundMs)}.`, 'timeout', options.inMemory ? undefined : 'azurite.location');
      }
      return this.fail(`${serviceName(this.kind)} data could not be cleaned: ${(err as Error).message}`, reasonOf(err), lossSetting(err));
    }
  }

  /**
   * Waits, up to the stop's bound, for a stop or clean of ours that ran past its bound ({@link lateStop}).
   * @returns undefined when there is none or it ended; else the failure (reason `timeout`, kept on the state)
   */
  private async lateStopEnded(verb: 'start' | 'clean'): Promise<Failure | undefined> {
    if (this.lateStop === undefined) return undefined;
    this.context.onWaitForLateStop?.(this.lateStopIsClean ? 'clean' : 'stop');
    const boundMs = this.bounds.stopMs;
    const ended = await withBound(this.lateStop, boundMs).then(() => true, () => false);
    if (ended) return undefined;
    const previous = this.lateStopIsClean ? 'its previous clean is still deleting its data' : 'its previous stop is still closing and saving';
    const message = `${serviceName(this.kind)} ${verb === 'start' ? 'service could not start' : 'data could not be cleaned'}: ${previous} in the emulator engine (waited ${formatBound(boundMs)} more). Reload the window to end it.`;
    if (this.current.status === 'closed') this.set({ status: 'closed', error: message });
    return failure('timeout', message);
  }

  /**
   * Waits, as long as a start's listen may take, for a start that listened past its bound to be
   * undone ({@link undoingLateStart}).
   * @returns undefined when there is none or it ended; else the failure (reason `timeout`, kept on the state)
   */
  private async lateStartEnded(verb: 'start' | 'clean', options: HostServiceOptions): Promise<Failure | undefined> {
    if (this.undoingLateStart === undefined) return undefined;
    const boundMs = options.inMemory ? this.bounds.listenMs : this.bounds.listenWithDataMs;
    const ended = await withBound(this.undoingLateStart, boundMs).then(() => true, () => false);
    if (ended) return undefined;
    const message = `${serviceName(this.kind)} ${verb === 'start' ? 'service could not start' : 'data could not be cleaned'}: its previous start did not finish in time and is still under way in the emulator engine (waited ${formatBound(boundMs)} more). Reload the window to end it.`;
    if (this.current.status === 'closed') this.set({ status: 'closed', error: message });
    return failure('timeout', message);
  }

  /**
   * Waits, up to the stop's bound, for a save of this service's data in `location` that a process
   * still runs (a window that reloaded or closed left its engine saving; see ./shutdownMarker.ts).
   * @param signal aborted when the user asks for a stop or clean meanwhile: the wait ends (reason `cancelled`)
   * @returns undefined when there was none or it ended; else the end of a message saying which
   *   process still saves and what to do (reason `timeout`), that the emulator is shutting down
   *   (reason `state`), or that a stop was asked for (reason `cancelled`)
   */
  private async earlierSaveStillRunning(location: string, signal?: AbortSignal): Promise<{ message: string; reason: FailureReason } | undefined> {
    const boundMs = this.bounds.stopMs;
    const shuttingDown = (): boolean => this.context.shuttingDown?.() === true;
    const waited = await waitForLiveSave(location, this.kind, {
      boundMs,
      ownPid: this.context.enginePid?.(),
      onWait: (save) => this.context.onWaitForSave?.(save),
      cancelled: () => shuttingDown() || signal?.aborted === true,
    });
    if (waited === undefined || waited.ended === true) return undefined;
    if (waited.ended === 'cancelled' && shuttingDown()) return { message: 'the emulator is shutting down (the window is closing or reloading).', reason: 'state' };
    if (waited.ended === 'cancelled') return { message: `a stop was asked for while it waited for process ${waited.save.pid} to finish saving its data.`, reason: 'cancelled' };
    const message = `process ${waited.save.pid} (the emulator engine of a window that reloaded or closed, or of another window on the same folder) is still saving ${serviceName(this.kind)} data in ${JSON.stringify(location)} after ${formatBound(boundMs)} more. Going on now would read the data from before that save and then write over it. Try again once that process has ended (or end it).`;
    return { message, reason: 'timeout' };
  }

  /**
   * Frees unreferenced in-memory extents now (see ServiceHandle.reclaim); no-op unless running.
   * @param spareMs extents written this recently are kept (ms; 0: none)
   * @returns bytes freed
   * @throws Error with `code` `EBUSY` when requests were in flight throughout `reclaimIdleMs`
   */
  async reclaim(spareMs = 0): Promise<number> {
    return (await this.running?.reclaim(this.bounds.reclaimIdleMs, spareMs)) ?? 0;
  }

  /** Content bytes per container or queue (see ServiceHandle.contentBytes); undefined unless running. */
  async contentBytes(): Promise<ContentBytes | undefined> {
    return this.running?.contentBytes();
  }

  /**
   * The engine ended under the service (crash, out of memory): a running service is now closed with
   * `message` as its error. A start, stop or clean still waiting for the engine fails on its own
   * (its request is rejected), through the usual `failed` transition.
   */
  engineLost(message: string): void {
    if (this.current.status !== 'running') return;
    this.running = undefined;
    this.stopping = undefined;
    this.set({ status: 'closed', error: message });
  }

  /**
   * Azurite closed `service` by itself, and the engine stopped it as a stop would (port free, disk
   * data saved unless `closure.saveError`). A running service is now closed with the reason as its
   * error; one whose stop already began, or that was replaced since, keeps what that says.
   */
  private closedItself(service: ServiceHandle, options: HostServiceOptions, closure: SelfClosure): void {
    if (this.running !== service) {
      // The engine's answer to the start and this report can be handled in one turn, before the
      // start's continuation has taken the answer: kept until it has.
      if (this.current.status === 'starting') this.earlyClosure = { service, closure };
      return;
    }
    if (this.current.status !== 'running') return;
    this.running = undefined;
    const message = describeSelfClosure(this.kind, options.inMemory, options.location, closure.gcError, closure.saveError);
    this.set({ status: 'closed', error: message });
    this.context.onClosedItself?.(failure('engine', message, { setting: options.inMemory ? undefined : 'azurite.location' }));
  }

  /** A closure by Azurite reported while its service's start had not yet been answered here (see closedItself). */
  private earlyClosure: { readonly service: ServiceHandle; readonly closure: SelfClosure } | undefined;

  /** Removes every listener. Does not stop the service (use stop()). */
  dispose(): void {
    this.stateEmitter.dispose();
  }

  /**
   * After a start ran past its bound: stops its server if it listens after all, so nothing of a
   * failed start stays listening. A next start waits until the late start has ended either way.
   */
  private undoLateStart(starting: Promise<unknown>, service: ServiceHandle): void {
    const undo = starting.then(() => service.stop()).catch(() => undefined).finally(() => {
      if (this.undoingLateStart === undo) this.undoingLateStart = undefined;
    });
    this.undoingLateStart = undo;
  }

  private fail(message: string, reason: FailureReason, setting?: string, conflict?: PortConflict): Failure {
    this.apply({ type: 'failed', message });
    return failure(reason, message, { setting, conflict });
  }

  private illegal(event: LifecycleEvent['type']): Outcome {
    const verb = { start: 'start', close: 'stop', clean: 'clean' }[event as 'start' | 'close' | 'clean'];
    const status = this.current.status;
    const why = status === 'running' ? 'it is running' : status === 'closed' ? 'it is stopped' : `it is ${status}`;
    return failure('state', `Cannot ${verb} the ${serviceName(this.kind)} service: ${why}.`);
  }

  private apply(event: LifecycleEvent): void {
    const next = transition(this.current, event);
    if (next instanceof IllegalTransition) throw new Error(`internal: ${next.message}`);
    this.set(next);
  }

  /**
   * The settings changed: the error of a start they refused goes (the status bar shows the
   * settings' own errors, as they are now, beside the state), and so does `staleError`, the message
   * of a failed start one of whose settings changed since (a taken port, a host that hung, may be
   * fixed), while it is the error shown. Other errors stay.
   */
  settingsChanged(staleError?: string): void {
    const s = this.current;
    if (s.status === 'closed' && s.error !== undefined && (s.error === this.settingsRefusal || s.error === staleError)) this.set({ status: 'closed' });
    this.settingsRefusal = undefined;
  }

  /**
   * Drops the state's error when it is `message` (a closed service then shows plain closed): for a
   * failure that something found since has made moot.
   */
  forgetError(message: string): void {
    const s = this.current;
    if (s.status === 'closed' && s.error === message) this.set({ status: 'closed' });
  }

  /**
   * A start or clean of this service failed before it reached this manager (the emulator engine did
   * not load): a closed service shows `message` as its error, as for a start refused here, until its
   * next start. Nothing changes while the service is not closed.
   */
  failedBeforeStart(message: string): void {
    if (this.current.status === 'closed') this.set({ status: 'closed', error: message });
  }

  /** The message of the last start refused by a setting (a blocker), while that refusal is the state's error. */
  private settingsRefusal: string | undefined;

  private set(state: ServiceState): void {
    this.current = state;
    this.stateEmitter.fire(state);
  }
}

/** `engine` for an error of a request the engine's process could not answer (it ended, or was ending), else `other`. */
function reasonOf(err: unknown): FailureReason {
  return (err as { code?: unknown } | undefined)?.code === ENGINE_GONE ? 'engine' : 'other';
}

/**
 * For an error of a request the engine's process could not answer because it ended: the setting
 * its reason names (EngineExit.setting: the heap limit after an out-of-memory), else undefined.
 */
export function lossSetting(err: unknown): string | undefined {
  const e = err as { code?: unknown; setting?: unknown } | undefined;
  return e?.code === ENGINE_GONE && typeof e.setting === 'string' ? e.setting : undefined;
}

/** How long the search for a free port after a conflict may take, ms. */
const FREE_PORT_SEARCH_MS = 5_000;

/**
 * Probes who holds a taken port and finds the next free one, skipping `reserved` (the ports our other
 * services are configured to use or run on, so "Use Port N" never breaks another of them next).
 */
export async function explainConflict(kind: ServiceKind, host: string, port: number, reserved: ReadonlySet<number>): Promise<PortConflict> {
  const holder = await probePortHolder(host, port);
  // Bounded: with a host name, each port tried is a name lookup, and a slow name server would keep
  // the start (and the service's queue) waiting. Without a free port the message says to pick one.
  // Any failure of the search (not only its bound) leaves the message without a free port: this runs
  // inside a start's error handling, which must end in a failure, not a throw.
  const freePort = await withBound(findFreePort(host, port + 1, 100, reserved, Date.now() + FREE_PORT_SEARCH_MS), FREE_PORT_SEARCH_MS).catch(() => undefined);
  return {
    kind,
    host,
    port,
    holder: holder.kind === 'azurite' ? 'azurite' : 'other',
    ...(holder.server !== undefined ? { server: holder.server } : {}),
    ...(freePort !== undefined ? { freePort } : {}),
  };
}

/**
 * Checks that `folder` is a folder this process can write to, creating what is missing of it, without
 * `fs.mkdir(…, { recursive: true })`: Node's recursive mkdir never returns on some paths (it spins on
 * `/proc/forbidden/x`, where each mkdir answers ENOENT, and holds one of libuv's four threads for
 * good). Instead: find the nearest ancestor that exists, check it is a writable folder, create the
 * rest one level at a time, and write and delete a probe file (which also catches a read-only file
 * system, where root's access check passes).
 * @returns the error (with Node's `code`), or undefined when the folder is usable. Never rejects.
 */
export async function writableFolderProblem(folder: string): Promise<NodeJS.ErrnoException | undefined> {
  try {
    const missing: string[] = [];
    let existing = path.resolve(folder);
    for (;;) {
      try {
        const stat = await fs.stat(existing);
        if (!stat.isDirectory()) return errno('ENOTDIR', `${JSON.stringify(existing)} is a file, not a folder`);
        break;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const parent = path.dirname(existing);
        if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === existing) return err as NodeJS.ErrnoException;
        missing.unshift(existing);
        existing = parent;
      }
    }
    await fs.access(existing, fs.constants.W_OK);
    for (const level of missing) {
      try {
        await fs.mkdir(level);
      } catch (err) {
        // Made meanwhile (another service's start): fine if it is a folder.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !(await fs.stat(level)).isDirectory()) throw err;
      }
    }
    const probe = path.join(folder, `.azurite-write-check-${process.pid}-${Math.random().toString(36).slice(2)}`);
    await fs.writeFile(probe, '');
    await fs.rm(probe, { force: true });
    return undefined;
  } catch (err) {
    return err as NodeJS.ErrnoException;
  }
}

function errno(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}
