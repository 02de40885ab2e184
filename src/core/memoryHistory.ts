/**
 * A short history of memory use for the chart: samples of used and limit bytes over time, kept for
 * {@link HISTORY_WINDOW_MS}. Samples arrive with memory events (at most one a second while data
 * changes, none while idle), so the chart draws steps: a value holds until the next sample.
 */

/** One sample. `t` in ms since the epoch; sizes in bytes. */
export interface MemorySample {
  readonly t: number;
  readonly usedBytes: number;
  readonly limitBytes: number;
}

/** How far back the history goes: 10 minutes. */
export const HISTORY_WINDOW_MS = 10 * 60 * 1000;

/** Samples in time order, oldest dropped once outside the window (one older sample is kept as the start value). */
export class MemoryHistory {
  private readonly samples: MemorySample[] = [];

  /** Adds a sample (ignored when identical to the last one in value). */
  add(sample: MemorySample): void {
    const last = this.samples[this.samples.length - 1];
    if (last !== undefined && last.usedBytes === sample.usedBytes && last.limitBytes === sample.limitBytes) return;
    this.samples.push(sample);
    this.trim(sample.t);
  }

  /** The samples for a chart ending at `now`: those in the window, preceded by the value in force at its start. */
  window(now: number): MemorySample[] {
    this.trim(now);
    return [...this.samples];
  }

  private trim(now: number): void {
    const from = now - HISTORY_WINDOW_MS;
    while (this.samples.length > 1 && this.samples[1]!.t <= from) this.samples.shift();
  }
}
