/**
 * The memory meter: the extent store's figures as the engine reports them (./engineHost.ts), turned
 * into throttled {@link MemoryReport} events, limit hits reported once per burst of each service,
 * and the `azurite.extentMemoryLimit` applied to the store. Knows nothing of services or of VS Code.
 */
import { systemMemoryBytes } from './systemMemory';
import { Emitter, type Disposable, type Event } from '../core/events';
import { defaultLimitBytes, formatBytes, groupDigits, leastLimitMb, settingMbText, LimitBursts, LIMIT_BURST_TIMINGS, type LimitBurstTimings, type MemoryReport } from '../core/memory';
import type { ServiceKind } from '../core/services';
import type { EngineHost } from './engineHost';

/** Minimum time between two memory events while content changes, in ms. */
export const MEMORY_REFRESH_MS = 1000;

/**
 * The first write refused by the memory limit in a burst of its service's refusals (HTTP 409
 * MemoryExtentStoreAtSizeLimit). Sizes in bytes.
 */
export interface LimitHit {
  readonly kind: ServiceKind;
  readonly requestedBytes: number;
  readonly usedBytes: number;
  readonly limitBytes: number;
}

/** Meters the engine's extent store (blob and queue content, shared as in Azurite). Dispose to stop. */
export class MemoryMeter implements Disposable {
  private readonly memoryEmitter = new Emitter<MemoryReport>();
  private readonly limitEmitter = new Emitter<LimitHit>();
  private readonly subscriptions: Disposable[];
  private timer: NodeJS.Timeout | undefined;
  private lastEventAt = -Infinity;
  private readonly bursts: LimitBursts<ServiceKind>;
  /** The `extentMemoryLimitBytes` setting the store's limit came from (undefined = Azurite's default). */
  private appliedSetting: number | undefined;
  /** The setting the engine refused last (what it asks for, undefined = unset), until one applies. */
  private refused: { readonly bytes: number | undefined } | undefined;

  /**
   * Fires with a fresh report after in-memory content changes, at most once per
   * {@link MEMORY_REFRESH_MS}; never while nothing changes.
   */
  readonly onDidChange: Event<MemoryReport> = this.memoryEmitter.event;
  /**
   * Fires once per burst of writes refused by the memory limit, per service: for a service's first
   * refusal after a quiet gap, and again once its burst has lasted its longest
   * ({@link LIMIT_BURST_TIMINGS}: a minute, 10 minutes). A new limit applied, or the service started again
   * ({@link newBurstOf}), begins a new burst.
   */
  readonly onDidHitLimit: Event<LimitHit> = this.limitEmitter.event;

  /**
   * @param limitSetting the `extentMemoryLimitBytes` setting at start (bytes; undefined = Azurite's default)
   * @param burstTimings how refusals group into bursts (ms), in place of LIMIT_BURST_TIMINGS, for tests
   */
  constructor(private readonly host: EngineHost, limitSetting: number | undefined, burstTimings: LimitBurstTimings = LIMIT_BURST_TIMINGS) {
    this.appliedSetting = limitSetting;
    this.bursts = new LimitBursts(burstTimings);
    this.subscriptions = [
      host.onDidChangeMemory(() => this.schedule()),
      host.onDidRefuse((r) => {
        const kind = r.category === 'queue' ? 'queue' : 'blob';
        if (this.bursts.refused(kind, performance.now())) this.limitEmitter.fire({ kind, requestedBytes: r.requestedBytes, usedBytes: r.usedBytes, limitBytes: r.limitBytes });
      }),
    ];
  }

  /** The in-memory extent store now, as last reported by the engine (exact: sums of bytes held). */
  report(): MemoryReport {
    const m = this.host.memoryFigures;
    return {
      blobBytes: m.blobBytes,
      queueBytes: m.queueBytes,
      usedBytes: m.usedBytes,
      limitBytes: m.limitBytes ?? this.appliedSetting ?? defaultLimitBytes(systemMemoryBytes()),
      isDefaultLimit: this.appliedSetting === undefined,
      ...(this.refused !== undefined ? { refusedSetting: { bytes: this.refused.bytes } } : {}),
    };
  }

  /**
   * Applies `azurite.extentMemoryLimit` to the engine's store (live, under running services).
   * @param settingBytes the setting in bytes; undefined = Azurite's default (50% of total memory)
   * @returns a message naming the setting and the fix when the limit is below what is stored (the
   *   limit in force stays), else undefined
   */
  async applyLimit(settingBytes: number | undefined): Promise<string | undefined> {
    const ok = await this.host.setLimit(settingBytes);
    // A refusal stands until a setting is applied (this one later, another, or the same as in force).
    const refusedBefore = this.refused;
    this.refused = ok ? undefined : { bytes: settingBytes };
    if (JSON.stringify(refusedBefore) !== JSON.stringify(this.refused)) this.schedule();
    if (!ok) {
      // The mirrored figures may trail the engine's by up to its event interval: ask for exact ones.
      await this.host.refreshMemory().catch(() => undefined);
      const r = this.report();
      const asked = settingBytes === undefined
        ? `is unset, which asks for the default of ${formatBytes(this.host.loadResult?.defaultLimitBytes ?? defaultLimitBytes(systemMemoryBytes()))}`
        : `asks for ${settingMbText(settingBytes)}`;
      // The setting in its own unit (MB) and use to the byte, not as rounded figures such as "0.9 GB",
      // which can name both a setting and a use above it; the least to set is above use, not equal
      // to it (see leastLimitMb).
      return `azurite.extentMemoryLimit ${asked}, but ${formatBytes(r.usedBytes)} (${groupDigits(r.usedBytes)} bytes) of blob and queue data is in memory, so the limit stays at ${formatBytes(r.limitBytes)}. Set it to ${leastLimitMb(r.usedBytes)} or more (MB), or clean the blob or queue service (or reclaim memory) first.`;
    }
    if (this.appliedSetting !== settingBytes) {
      this.appliedSetting = settingBytes;
      // A write refused under the new limit is news, even a second after one refused under the old.
      this.bursts.forget();
      this.schedule();
    }
    return undefined;
  }

  /**
   * Ends `kind`'s burst of refused writes, so that its next refusal is reported: for a service that
   * has just started (a restart, a Clean) and is refused again within the burst's gap.
   */
  newBurstOf(kind: 'blob' | 'queue'): void {
    this.bursts.forget(kind);
  }

  /**
   * Takes a new `azurite.extentMemoryLimit` while no in-memory Blob or Queue runs, so that the
   * report (Show Memory Usage, Raise Limit's proposal) shows the setting in force: applied to the
   * engine's store when the engine's process runs (the store is empty then: a stop in memory mode
   * clears its service's share; during a load, the engine's process takes it once loaded), and
   * recorded for the next engine process when none runs (also after a crash). Never starts the
   * engine's process; a refusal is left to the next start, which says it.
   * @param settingBytes the setting in bytes; undefined = Azurite's default (50% of total memory)
   */
  async followSetting(settingBytes: number | undefined): Promise<void> {
    await this.applyLimit(settingBytes).catch(() => undefined);
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const s of this.subscriptions) s.dispose();
    this.memoryEmitter.dispose();
    this.limitEmitter.dispose();
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    const delay = Math.max(0, this.lastEventAt + MEMORY_REFRESH_MS - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.lastEventAt = performance.now();
      this.memoryEmitter.fire(this.report());
    }, delay);
  }
}
