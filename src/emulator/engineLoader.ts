/**
 * Bringing the engine up, once per engine process: the load that every start and clean waits for,
 * and the warm-up after activation that loads the rest of what a start needs. Both are shared by
 * every caller while under way, forgotten when they fail, and forgotten when the engine's process
 * ends (the next load brings a new one up). {@link Emulator} holds one.
 */
import { formatBound, LIFECYCLE_BOUNDS, StepTimeout, withBound } from '../core/bounds';
import type { LoadResult } from './engineProtocol';

/** What the loader asks of the engine host (./engineHost.ts `EngineHost`). */
export interface LoadableEngine {
  /** Starts the engine's process if needed and loads the engine's top level; later calls answer at once. */
  load(): Promise<LoadResult>;
  /** Loads every service's part of the engine; resolves with the time it took in the engine, ms. */
  preload(): Promise<number>;
  /**
   * Ends the engine's process (a load after this call starts a new one); resolves once it has exited.
   * @param lostBecause given: the end is reported as the engine's loss, with this reason (services
   *   that run in that process stop, and say why)
   */
  terminate(lostBecause?: string): Promise<void>;
}

/**
 * The load and the warm-up of one engine host's engine, each once per engine process. Never throws
 * on its own: {@link load} and {@link warmUp} reject with what went wrong, and a later call tries again.
 */
export class EngineLoader {
  private loading: Promise<void> | undefined;
  private warming: Promise<void> | undefined;

  /**
   * @param log where the load and warm-up times go, one line each per engine process
   * @param loadBoundMs how long a load may take before it is given up and the process ended, ms
   *   (default `LIFECYCLE_BOUNDS.engineLoadMs`)
   */
  constructor(
    private readonly engine: LoadableEngine,
    private readonly log: { info(line: string): void },
    private readonly loadBoundMs: number = LIFECYCLE_BOUNDS.engineLoadMs,
  ) {}

  /**
   * Brings the engine up in its process (its top level; a start requires its service's part), the
   * first step of every start. Logs the load time once per engine process. Later calls resolve at
   * once; calls while a load is under way share it.
   * @throws Error when the engine does not load, or not within the bound (the process is then
   *   ended, so that the next load starts a new one); the next call tries again
   */
  load(): Promise<void> {
    this.loading ??= this.forgottenOnFailure('loading', async () => {
      const started = performance.now();
      const result = await withBound(this.engine.load(), this.loadBoundMs).catch(async (err: unknown) => {
        if (!(err instanceof StepTimeout)) throw err;
        // An engine stuck in its load is no use to a later start: end it, the next start makes a new
        // one. Not awaited: a process stuck in the kernel (a hung network drive) may outlive even
        // SIGKILL for long, and the failure is said now; the host has let go of it already.
        const why = `it did not load within ${formatBound(err.boundMs)} (a slow disk or a virus scan of the extension folder?)`;
        // Reported as a loss: a start may wait on that process (it loads a crash's new process itself).
        void this.engine.terminate(why).catch(() => undefined);
        throw new Error(`${why}; try again`);
      });
      const cache = result.codeCache !== undefined ? `, code cache: ${result.codeCache}` : '';
      this.log.info(`Engine loaded in ${Math.round(performance.now() - started)} ms (in its process: ${result.loadMs} ms${cache})`);
    });
    return this.loading;
  }

  /**
   * The warm-up after activation: {@link load}, then every service's part of the engine, one service
   * at a time (a start asked for meanwhile waits for one service's code, not three), listening on
   * nothing and showing nothing. Logs its time once per engine process. Later calls resolve at once.
   * @throws Error when the engine does not load or its process ends meanwhile; the next call tries again
   */
  warmUp(): Promise<void> {
    this.warming ??= this.forgottenOnFailure('warming', async () => {
      await this.load();
      const ms = await this.engine.preload();
      this.log.info(`Engine warm-up done: every service's code loaded in ${ms} ms.`);
    });
    return this.warming;
  }

  /**
   * Runs `step` for `slot`; when it fails, the slot forgets it, unless another run has taken its
   * place meanwhile (after a {@link forget}), which stays.
   */
  private forgottenOnFailure(slot: 'loading' | 'warming', step: () => Promise<void>): Promise<void> {
    const run: Promise<void> = step().catch((err: unknown) => {
      if (this[slot] === run) this[slot] = undefined;
      throw err;
    });
    return run;
  }

  /** The engine's process ended: the next {@link load} or {@link warmUp} brings a new one up. */
  forget(): void {
    this.loading = undefined;
    this.warming = undefined;
  }
}
