/**
 * Runs one service through its lifecycle (src/core/lifecycle.ts) on top of the adapter. Every
 * public method resolves to a {@link Outcome} and never rejects, so a click handler can await it
 * without try/catch; failures are kept in the state (`closed` with `error`) and in the outcome.
 */
import * as fs from 'node:fs/promises';
import { Emitter, type Event } from '../core/events';
import { INITIAL_STATE, IllegalTransition, transition, type LifecycleEvent, type ServiceState } from '../core/lifecycle';
import { serviceName, type ServiceKind } from '../core/services';
import { failure, type Failure, type FailureReason, type Outcome } from '../core/outcome';
import { describeLocationError, describePortConflict, describeStartError, startErrorSetting, type PortConflict } from '../core/startErrors';
import { findFreePort, probePortHolder } from './ports';
import type { HostServiceOptions, ServiceHandle } from './engineHost';
import { certificateProblem } from './certificates';

export type { Failure, Outcome };

/** Makes an engine service from options (EngineHost.createService in production: the service runs in the engine's worker). */
export type ServiceFactory = (options: HostServiceOptions) => ServiceHandle;

/** Called before a start with what the service is about to use; resolve a failure to refuse the start. */
export type StartCheck = (options: HostServiceOptions) => Promise<Failure | undefined>;

/** A setting whose value stops the service: its key (`azurite.blobPort`) and the message naming the fix. */
export interface Blocker {
  readonly key: string;
  readonly message: string;
}

/** Lifecycle of one service kind. */
export class ServiceManager {
  private current: ServiceState = INITIAL_STATE;
  private running: ServiceHandle | undefined;
  /** The stop under way (state `closing`), if any. */
  private stopping: Promise<Outcome> | undefined;
  private readonly stateEmitter = new Emitter<ServiceState>();

  /** Fires after every state change with the new state. */
  readonly onDidChangeState: Event<ServiceState> = this.stateEmitter.event;

  constructor(
    readonly kind: ServiceKind,
    private readonly createService: ServiceFactory,
  ) {}

  /** The current state. */
  get state(): ServiceState {
    return this.current;
  }

  /**
   * Starts the service with `options`. Refuses (state stays closed, error kept) when `blockers`
   * has setting errors, when the data folder cannot be written, when the HTTPS certificate does not
   * load (./certificates.ts: missing file, wrong PFX password, key not matching), or when `check`
   * says no. A refused service never listened and holds no store.
   */
  async start(options: HostServiceOptions, blockers: readonly Blocker[] = [], check?: StartCheck): Promise<Outcome> {
    if (this.current.status !== 'closed') return this.illegal('start');
    const refusal = blockers.length > 0
      ? failure('setting', blockers.map((b) => b.message).join(' '), { setting: blockers[0]!.key })
      : await check?.(options);
    if (this.current.status !== 'closed') return this.illegal('start');
    if (refusal !== undefined) {
      this.set({ status: 'closed', error: refusal.message });
      return refusal;
    }
    this.apply({ type: 'start' });
    // Read-only check first, so a bad certificate leaves no data folder behind.
    if (options.https !== undefined) {
      const problem = await certificateProblem(options.https);
      if (problem !== undefined) return this.fail(problem, 'certificate', 'azurite.cert');
    }
    if (!options.inMemory) {
      const problem = await writableFolderProblem(options.location);
      if (problem !== undefined) return this.fail(describeLocationError(options.location, problem), 'location', 'azurite.location');
    }
    const service = this.createService(options);
    try {
      const endpoint = await service.start();
      this.running = service;
      this.apply({ type: 'started', endpoint });
      return { ok: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && options.port !== 0) {
        const conflict = await explainConflict(this.kind, options.host, options.port);
        return this.fail(describePortConflict(conflict), 'port', `azurite.${this.kind}Port`, conflict);
      }
      const setting = startErrorSetting(this.kind, err as Error);
      return this.fail(describeStartError(options, err as Error), setting !== undefined ? 'setting' : 'other', setting);
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
      try {
        await service.stop();
        this.running = undefined;
        this.apply({ type: 'closed' });
        return { ok: true };
      } catch (err) {
        this.running = undefined;
        return this.fail(`${serviceName(this.kind)} service did not stop cleanly: ${(err as Error).message}`, 'other');
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
    this.apply({ type: 'clean' });
    try {
      await this.createService(options).clean();
      this.apply({ type: 'cleaned' });
      return { ok: true };
    } catch (err) {
      return this.fail(`${serviceName(this.kind)} data could not be cleaned: ${(err as Error).message}`, 'other');
    }
  }

  /** Frees unreferenced in-memory extents now (see ServiceHandle.reclaim); no-op unless running. */
  async reclaim(): Promise<number> {
    return (await this.running?.reclaim()) ?? 0;
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

  /** Removes every listener. Does not stop the service (use stop()). */
  dispose(): void {
    this.stateEmitter.dispose();
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

  private set(state: ServiceState): void {
    this.current = state;
    this.stateEmitter.fire(state);
  }
}

/** Probes who holds a taken port and finds the next free one (skipping Azurite's other defaults). */
async function explainConflict(kind: ServiceKind, host: string, port: number): Promise<PortConflict> {
  const holder = await probePortHolder(host, port);
  const freePort = await findFreePort(host, port + 1, 100, new Set([10000, 10001, 10002]));
  return {
    kind,
    host,
    port,
    holder: holder.kind === 'azurite' ? 'azurite' : 'other',
    ...(holder.server !== undefined ? { server: holder.server } : {}),
    ...(freePort !== undefined ? { freePort } : {}),
  };
}

/** Creates `folder` if needed and checks it is writable. @returns the error, or undefined when fine. */
async function writableFolderProblem(folder: string): Promise<NodeJS.ErrnoException | undefined> {
  try {
    await fs.mkdir(folder, { recursive: true });
    await fs.access(folder, fs.constants.W_OK);
    return undefined;
  } catch (err) {
    return err as NodeJS.ErrnoException;
  }
}
