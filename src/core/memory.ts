/**
 * Memory use of the in-memory extent store against `azurite.extentMemoryLimit`.
 *
 * Units: every field ending in `Bytes` is bytes. The setting is in MB where, as in Azurite's CLI
 * (azurite/dist/src/common/persistence/MemoryExtentStore.js and the `--extentMemoryLimit` option),
 * 1 MB = 1024 × 1024 bytes; byte figures are shown in the same binary units, labelled KB/MB/GB.
 */

/** Bytes in one MB as Azurite counts `extentMemoryLimit` (1024²). */
export const BYTES_PER_MB = 1024 * 1024;

/**
 * A snapshot of the extent store. Counted: blob content and queue message text.
 * Not counted (Azurite keeps them in LokiJS, outside the limit): table entities and all metadata.
 */
export interface MemoryReport {
  /** Bytes of blob content held in memory. */
  readonly blobBytes: number;
  /** Bytes of queue message text held in memory. */
  readonly queueBytes: number;
  /** blobBytes + queueBytes: what the limit is checked against. */
  readonly usedBytes: number;
  /** The limit in force, in bytes. */
  readonly limitBytes: number;
  /** True when Azurite's default (50% of total memory) is the limit in force: no setting has applied. */
  readonly isDefaultLimit: boolean;
  /**
   * Present while `azurite.extentMemoryLimit` asks for a limit that is not in force, because the
   * engine refused it (more is in memory than it allows): `bytes` is what it asks for, undefined for
   * unset (Azurite's default).
   */
  readonly refusedSetting?: { readonly bytes: number | undefined };
}

/**
 * A limit in bytes as the MB of `azurite.extentMemoryLimit` that gave it (`950 MB`, `0.5 MB`; to the
 * millionth, a byte being about that: the value typed, not the whole byte Azurite rounds it to), not a
 * rounded figure: "0.9 GB" could name both a setting and a use above it.
 */
export function settingMbText(bytes: number): string {
  return `${Number((bytes / BYTES_PER_MB).toFixed(6))} MB`;
}

/**
 * Where the limit in force comes from, for the memory view and the meter's tooltip: the setting,
 * Azurite's default, and a setting asked for but refused.
 * Example: "the default, 50% of total memory or of a container's memory limit; azurite.extentMemoryLimit asks for 1 MB, refused
 * while more was in memory (it applies at the next start or settings change once less is)".
 */
export function describeLimitSource(report: MemoryReport): string {
  const source = report.isDefaultLimit ? "the default, 50% of total memory or of a container's memory limit" : 'from azurite.extentMemoryLimit';
  const refused = report.refusedSetting;
  if (refused === undefined) return report.isDefaultLimit ? `${source} (azurite.extentMemoryLimit is unset)` : source;
  const asked = refused.bytes === undefined ? "is unset now (the default)" : `asks for ${settingMbText(refused.bytes)}`;
  return `${report.isDefaultLimit ? source : 'from an earlier azurite.extentMemoryLimit'}; azurite.extentMemoryLimit ${asked}, refused while more was in memory (it applies at the next start or settings change once less is)`;
}

/**
 * Converts the setting's MB to bytes, rounded to a whole byte as Azurite does
 * (common/ConfigurationBase.js `setExtentMemoryLimit`: `Math.round(mb * 1024 * 1024)`).
 */
export function mbToBytes(mb: number): number {
  return Math.round(mb * BYTES_PER_MB);
}

/**
 * The default limit: half the memory, as Azurite's (`Math.trunc(os.totalmem() * 0.5)` bytes,
 * DEFAULT_EXTENT_MEMORY_LIMIT in MemoryExtentStore.js), of the memory the engine may use.
 * @param totalMemoryBytes the memory the engine's process may use, in bytes (emulator/systemMemory.ts:
 *   the machine's, or a container's memory limit when lower)
 */
export function defaultLimitBytes(totalMemoryBytes: number): number {
  return Math.trunc(totalMemoryBytes * 0.5);
}

/** Percent of the limit in use, 0–100+ (one decimal kept); 0 when the limit is 0. */
export function percentUsed(report: MemoryReport): number {
  if (report.limitBytes <= 0) return 0;
  return Math.round((report.usedBytes / report.limitBytes) * 1000) / 10;
}

/** Points of the limit that use must fall below the warning threshold before the warning can show again. */
export const WARNING_REARM_POINTS = 5;

/**
 * When the threshold warning (`azurite.memory.warningThreshold`) shows: once as use reaches the
 * threshold, then again only after use has fallen {@link WARNING_REARM_POINTS} points below it
 * (to 0 for a threshold of 5 or less), so that use hovering at the threshold (queue messages
 * coming and going) warns once.
 */
export class ThresholdWarning {
  private armed = true;

  /**
   * @param percent use now, percent of the limit (see {@link percentUsed})
   * @param threshold the setting's percent, read at each report (a live setting)
   * @returns true when this report should show the warning
   */
  update(percent: number, threshold: number): boolean {
    if (percent >= threshold) {
      const warn = this.armed;
      this.armed = false;
      return warn;
    }
    if (percent <= Math.max(0, threshold - WARNING_REARM_POINTS)) this.armed = true;
    return false;
  }
}

/** How writes refused at the memory limit are grouped into bursts, each reported once. In ms. */
export interface LimitBurstTimings {
  /** Refusals of one service at most this far apart belong to one burst. */
  readonly gapMs: number;
  /**
   * The longest a burst lasts, from its first refusal: a refusal this long after it begins a new
   * burst even while refusals go on, so a client that keeps retrying is reported again.
   */
  readonly maxMs: number;
}

/**
 * The timings in force: a burst ends after a minute without a refusal, or 10 minutes after it
 * began. A client that writes every few seconds (a timer function, a queue producer) into a full
 * store makes each refusal a separate write (the SDKs do not retry a 409): with a shorter gap,
 * each raised a notification of its own.
 */
export const LIMIT_BURST_TIMINGS: LimitBurstTimings = { gapMs: 60_000, maxMs: 600_000 };

/**
 * Which refused writes to report: the first of each burst, per service, so that Blob's refusals
 * neither hide Queue's nor keep a burst of Queue's going, and one burst gives one report.
 */
export class LimitBursts<K extends string = string> {
  private readonly bursts = new Map<K, { readonly firstAt: number; lastAt: number }>();

  constructor(private readonly timings: LimitBurstTimings = LIMIT_BURST_TIMINGS) {}

  /**
   * Records a refused write.
   * @param kind the service that refused it
   * @param nowMs when, in ms on a monotonic clock (performance.now())
   * @returns true when it begins a burst of `kind`'s (report it), false when it belongs to one
   */
  refused(kind: K, nowMs: number): boolean {
    const burst = this.bursts.get(kind);
    if (burst !== undefined && nowMs - burst.lastAt <= this.timings.gapMs && nowMs - burst.firstAt < this.timings.maxMs) {
      burst.lastAt = nowMs;
      return false;
    }
    this.bursts.set(kind, { firstAt: nowMs, lastAt: nowMs });
    return true;
  }

  /**
   * Ends the bursts under way: the next refusal begins a burst and is reported.
   * @param kind the service whose burst ends; every service's when undefined
   */
  forget(kind?: K): void {
    if (kind === undefined) this.bursts.clear();
    else this.bursts.delete(kind);
  }
}

/**
 * The least `azurite.extentMemoryLimit` to suggest while `usedBytes` are stored: the whole number
 * of MB that holds at least one byte more than that. Azurite takes a limit equal to use, but then
 * refuses every later write, and Raise Limit's input box ({@link limitInputError}) refuses it too.
 * @param usedBytes blob and queue content held now, in bytes
 * @returns a whole number of MB (1 MB = {@link BYTES_PER_MB} bytes), at least 1
 */
export function leastLimitMb(usedBytes: number): number {
  return Math.ceil((Math.max(0, usedBytes) + 1) / BYTES_PER_MB);
}

/** The most of the memory the engine may use that Raise Limit proposes for content, in percent: the engine's heap and the extension host share that memory. */
export const PROPOSED_LIMIT_MAX_PERCENT = 75;

/**
 * The limit Raise Limit proposes: twice the one in force, but at most
 * {@link PROPOSED_LIMIT_MAX_PERCENT}% of `systemBytes` (under the default limit, half of it, twice
 * would be all of it, and the OS would end the engine's process long before), and always above the
 * one in force (a limit already past that share is raised by a MB); more when that would
 * still refuse the write that was refused (a 5 MB upload under a 1 MB limit): then the least limit
 * that holds it besides what is stored ({@link leastLimitMb}).
 * @param limitBytes the limit in force, in bytes
 * @param usedBytes blob and queue content held now, in bytes
 * @param requestedBytes the refused write's size, in bytes (0 for none)
 * @param systemBytes the memory the engine's process may use, in bytes (emulator/systemMemory.ts); no cap when undefined
 * @returns a whole number of MB (1 MB = {@link BYTES_PER_MB} bytes)
 */
export function proposedLimitMb(limitBytes: number, usedBytes: number, requestedBytes = 0, systemBytes?: number): number {
  const twice = Math.ceil((limitBytes * 2) / BYTES_PER_MB);
  // Never below the limit in force (one already past the share is raised by a MB, not lowered).
  const most = systemBytes === undefined ? twice : Math.max(Math.floor((systemBytes * PROPOSED_LIMIT_MAX_PERCENT) / 100 / BYTES_PER_MB), Math.floor(limitBytes / BYTES_PER_MB) + 1);
  return Math.max(Math.min(twice, most), leastLimitMb(usedBytes + Math.max(0, requestedBytes)));
}

/**
 * Checks a new `azurite.extentMemoryLimit` typed into Raise Limit's input box.
 * @param value the text typed, in MB
 * @param usedBytes blob and queue content held now, in bytes
 * @returns why it cannot be the limit, or undefined when it can
 */
export function limitInputError(value: string, usedBytes: number): string | undefined {
  const mb = Number(value);
  if (value.trim() === '' || !Number.isFinite(mb) || mb <= 0) return 'Enter a number of MB greater than 0.';
  if (mbToBytes(mb) <= usedBytes) return `Enter more than the ${formatBytes(usedBytes)} in use now (${groupDigits(usedBytes)} bytes), or clean Blob or Queue first.`;
  return undefined;
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** Index into UNITS of the unit `formatBytes` picks for `bytes`. */
function unitIndex(bytes: number): number {
  let unit = 0;
  let value = bytes;
  while (unit < UNITS.length - 1 && Math.round(value * 10) / 10 >= 0.9 * 1024) {
    value /= 1024;
    unit++;
  }
  return unit;
}

function inUnit(bytes: number, unit: number): string {
  if (unit === 0) return `${Math.round(bytes)} B`;
  const rounded = Math.round((bytes / 1024 ** unit) * 10) / 10;
  return `${rounded.toFixed(1).replace(/\.0$/, '')} ${UNITS[unit]}`;
}

/**
 * An integer with comma thousands separators: 1048576 → "1,048,576" (what
 * `toLocaleString('en-US')` gives for integers). Not `toLocaleString`: its first call loads ICU's
 * number formatting, a large part of the extension's activation (the memory item's tooltip is built then).
 * @param n a non-negative integer (other numbers are returned as `String(n)`)
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) return String(n);
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/**
 * Formats a byte count in binary units: 512 → "512 B", 1536 → "1.5 KB", 1048576 → "1 MB".
 * Values from 0.9 of the next unit up are shown in that unit (943718 → "0.9 MB"). One decimal at
 * most, trailing ".0" dropped.
 * @param bytes a non-negative byte count
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return `${bytes} B`;
  return inUnit(bytes, unitIndex(bytes));
}

/**
 * "0.9 MB / 1 MB" — the memory meter's text. The use is shown in the limit's unit so the two read
 * as a fraction (921,600 bytes of 1 MB → "0.9 MB", not "900 KB"), unless it is below 0.1 of that
 * unit, when it gets its own ("12 B / 11.8 GB").
 */
export function formatUsage(report: MemoryReport): string {
  const limitUnit = unitIndex(report.limitBytes);
  const usedUnit = report.usedBytes >= 0.1 * 1024 ** limitUnit ? limitUnit : unitIndex(report.usedBytes);
  return `${inUnit(report.usedBytes, usedUnit)} / ${formatBytes(report.limitBytes)}`;
}

/**
 * The full report as Markdown lines (the memory meter's status bar tooltip, core/statusView.ts).
 */
export function describeMemory(report: MemoryReport): string[] {
  const limit = `${formatBytes(report.limitBytes)} (${groupDigits(report.limitBytes)} bytes)`;
  return [
    `In-memory extents: ${formatUsage(report)} (${percentUsed(report)}%)`,
    `Blob content: ${formatBytes(report.blobBytes)} (${groupDigits(report.blobBytes)} bytes)`,
    `Queue messages: ${formatBytes(report.queueBytes)} (${groupDigits(report.queueBytes)} bytes)`,
    `Limit: ${limit} — ${describeLimitSource(report)}`,
    'Table entities and metadata are kept outside the extent store and are not counted against the limit.',
  ];
}
