/**
 * The "save in progress" marker: a small JSON file in the data folder, one per service, written
 * (synchronously) when a disk-mode service begins the save of its stop, and removed once its LokiJS
 * metadata is on disk. A marker found at the next start of that service on that folder means the
 * last save did not finish — the extension host was killed first (VS Code gives `deactivate()` about
 * 5 s), or the save failed — so data written in the seconds before it may be missing. Azurite saves
 * metadata every 5 s (LokiJS autosave) and on close, so at most those last seconds are lost.
 * No vscode, no azurite.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { serviceName, type ServiceKind } from '../core/services';

/** A save that began and never finished: which service, which folder, when (ms since epoch), which process. */
export interface UnfinishedSave {
  readonly kind: ServiceKind;
  readonly location: string;
  readonly startedAtMs: number;
  readonly pid: number;
}

/** The marker's file name in the data folder, e.g. `__storage_emulators_saving_blob__.json`. */
export function markerFileName(kind: ServiceKind): string {
  return `__storage_emulators_saving_${kind}__.json`;
}

/**
 * Replaces `file` with `text` at once: written to a temporary file beside it, then renamed over it.
 * Another window reading the marker (a start's {@link takeUnfinishedSave} or {@link waitForLiveSave})
 * then sees the old marker or the new one, never the empty file a write in place shows between its
 * truncate and its write; an empty marker reads as a save that did not finish, and was taken (and
 * removed) while that save was still under way. Throws what the write or the rename throws (the
 * temporary file removed).
 */
function replaceFile(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, text);
    try {
      fs.renameSync(temp, file);
    } catch (err) {
      // Windows refuses to replace a file another process has open (another window reading the
      // marker): written in place then, as before, rather than no marker at all.
      if (!['EPERM', 'EACCES', 'EBUSY'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
      fs.writeFileSync(file, text);
      fs.rmSync(temp, { force: true });
    }
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * Writes the marker for `kind` in `location`, synchronously (one small file, no fsync), so that it
 * is in the file system even if the process is killed right after; replaced at once, never seen
 * half-written. Never throws: a folder that cannot be written is reported by the save itself.
 */
export function beginSave(location: string, kind: ServiceKind): void {
  const marker: Omit<UnfinishedSave, 'location'> & ProcessIdentity = { kind, startedAtMs: Date.now(), pid: process.pid, ...processIdentity() };
  try {
    replaceFile(path.join(location, markerFileName(kind)), JSON.stringify(marker));
  } catch {
    // Best effort: without the marker an unfinished save goes unreported, nothing else changes.
  }
}

/**
 * Marks the save of `kind` in `location` as ended without finishing (the save threw): the marker
 * stays for the next start to report, but nobody waits for it ({@link waitForLiveSave}). Never throws.
 */
export function abandonSave(location: string, kind: ServiceKind): void {
  const file = path.join(location, markerFileName(kind));
  try {
    const marker = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    replaceFile(file, JSON.stringify({ ...marker, ended: true }));
  } catch {
    // No marker (it could not be written), or not readable: nothing to wait for either way.
  }
}

/** Removes the marker once the save is on disk. Never throws (a missing marker is fine). */
export async function endSave(location: string, kind: ServiceKind): Promise<void> {
  await fs.promises.rm(path.join(location, markerFileName(kind)), { force: true }).catch(() => undefined);
}

/**
 * Reads and removes the marker of `kind` in `location`, so it is reported once. A marker of a save
 * still under way in another process that runs (another window's stop on the same folder, begun
 * while this start loaded) is left alone: that save may yet finish, and a start meanwhile must
 * still wait for it ({@link waitForLiveSave}).
 * @param ownPid this window's engine process, whose markers are never a save under way elsewhere
 * @returns the unfinished save, or undefined when the last save finished (no marker) or is still
 *   under way elsewhere. A marker that cannot be parsed still counts, with its file's modification time.
 */
export async function takeUnfinishedSave(location: string, kind: ServiceKind, ownPid?: number): Promise<UnfinishedSave | undefined> {
  const file = path.join(location, markerFileName(kind));
  let text: string;
  let mtimeMs: number;
  try {
    [text, mtimeMs] = await Promise.all([fs.promises.readFile(file, 'utf8'), fs.promises.stat(file).then((s) => s.mtimeMs)]);
  } catch {
    return undefined;
  }
  // Decided from the text read, and removed only while the file still holds it: a save that
  // another window's stop begins meanwhile writes a new marker, which stays.
  const marker = parseMarker(kind, location, text);
  if (marker !== undefined && isLive(marker, ownPid)) return undefined;
  const now = await fs.promises.readFile(file, 'utf8').catch(() => undefined);
  if (now !== text) return undefined;
  await endSave(location, kind);
  return {
    kind,
    location,
    startedAtMs: marker?.startedAtMs ?? mtimeMs,
    pid: marker?.pid ?? 0,
  };
}

/**
 * What tells a process from a later one that got its id (Linux only; empty elsewhere): the boot's id
 * (`/proc/sys/kernel/random/boot_id`) and when the process started, in clock ticks since boot
 * (`/proc/<pid>/stat`, field 22; proc(5)).
 */
export interface ProcessIdentity {
  readonly bootId?: string;
  readonly startTicks?: string;
}

/** This process's {@link ProcessIdentity}, or of process `pid`; fields that cannot be read are left out. */
export function processIdentity(pid: number | 'self' = 'self'): ProcessIdentity {
  const read = (file: string): string | undefined => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  };
  const bootId = read('/proc/sys/kernel/random/boot_id')?.trim();
  const stat = read(`/proc/${pid}/stat`);
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its ')'.
  const startTicks = stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  return { ...(bootId !== undefined && bootId !== '' ? { bootId } : {}), ...(startTicks !== undefined && /^\d+$/.test(startTicks) ? { startTicks } : {}) };
}

/** True when a process with this id runs (EPERM: it runs as another user). */
function processRuns(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reads the marker of a save of `kind` in `location` that may be under way, without removing it; undefined when there is none, it cannot be parsed, or its save ended ({@link abandonSave}). */
async function peekSave(location: string, kind: ServiceKind): Promise<(UnfinishedSave & ProcessIdentity) | undefined> {
  const text = await fs.promises.readFile(path.join(location, markerFileName(kind)), 'utf8').catch(() => undefined);
  const marker = text === undefined ? undefined : parseMarker(kind, location, text);
  return marker?.ended === true ? undefined : marker;
}

/** A marker's text as its fields; undefined when it cannot be parsed or lacks the process and time. */
function parseMarker(kind: ServiceKind, location: string, text: string): (UnfinishedSave & ProcessIdentity & { ended: boolean }) | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<UnfinishedSave> & { ended?: unknown; bootId?: unknown; startTicks?: unknown };
    if (typeof parsed.pid !== 'number' || typeof parsed.startedAtMs !== 'number') return undefined;
    return {
      kind, location, startedAtMs: parsed.startedAtMs, pid: parsed.pid, ended: parsed.ended === true,
      ...(typeof parsed.bootId === 'string' ? { bootId: parsed.bootId } : {}),
      ...(typeof parsed.startTicks === 'string' ? { startTicks: parsed.startTicks } : {}),
    };
  } catch {
    return undefined;
  }
}

/** How often {@link waitForLiveSave} looks at the marker again, ms. */
const LIVE_SAVE_POLL_MS = 50;

/**
 * The age past which a marker's save is taken to have ended with its process, whatever process
 * has its id now, ms: 10 minutes, five times the longest a stop's save may take (LIFECYCLE_BOUNDS.stopMs).
 */
export const LIVE_SAVE_MAX_AGE_MS = 10 * 60_000;

/** What {@link waitForLiveSave} is told besides where to look. */
export interface LiveSaveWait {
  /** How long to wait at most, ms. */
  readonly boundMs: number;
  /**
   * The engine process of this window, whose markers are never waited for: the service manager
   * waits for its own stops (./serviceManager.ts: queued ones, and one past its bound), so a marker
   * naming it is one whose removal failed, or of a crashed engine whose process id the new one got.
   */
  readonly ownPid?: number | undefined;
  /** Called once, when there is a save to wait for (for a log line). */
  readonly onWait?: (save: UnfinishedSave) => void;
  /** Polled while waiting: true ends the wait at once (the window is closing). */
  readonly cancelled?: () => boolean;
  /** When this machine booted, ms since the epoch (default {@link bootTimeMs}); tests set it. */
  readonly bootedAtMs?: number;
}

/**
 * Waits while a save of `kind` in `location` is still under way in another process that runs: an
 * engine that a reloaded or closed window left saving (its extension host went away first), or
 * another window's stop of a service on the same folder. Loading or deleting the folder meanwhile
 * would read the metadata from before that save, and the next save would then write over it. A
 * marker older than {@link LIVE_SAVE_MAX_AGE_MS}, marked ended ({@link abandonSave}), begun before
 * this machine booted, or (on Linux) of an earlier process with the same id, is not waited for. Polls the marker every 50 ms; a new save that begins meanwhile is waited for too,
 * within the same bound.
 * @returns undefined when no save was under way; else the save waited for and whether every save
 *   had ended (markers gone, or their processes ended) within the bound, or 'cancelled'. Never throws.
 */
export async function waitForLiveSave(
  location: string,
  kind: ServiceKind,
  wait: LiveSaveWait,
): Promise<{ readonly save: UnfinishedSave; readonly ended: boolean | 'cancelled' } | undefined> {
  const live = (): Promise<UnfinishedSave | undefined> => liveSave(location, kind, wait.ownPid, wait.bootedAtMs);
  let save = await live();
  if (save === undefined) return undefined;
  wait.onWait?.(save);
  const deadline = Date.now() + wait.boundMs;
  while (Date.now() < deadline) {
    if (wait.cancelled?.() === true) return { save, ended: 'cancelled' };
    await new Promise((resolve) => setTimeout(resolve, LIVE_SAVE_POLL_MS));
    const next = await live();
    if (next === undefined) return { save, ended: true };
    save = next;
  }
  return { save, ended: false };
}

/**
 * The save of `kind` in `location` under way in another process that runs, if its marker says so
 * ({@link isLive}).
 */
async function liveSave(location: string, kind: ServiceKind, ownPid: number | undefined, bootedAtMs?: number): Promise<UnfinishedSave | undefined> {
  const save = await peekSave(location, kind);
  return save !== undefined && isLive(save, ownPid, bootedAtMs) ? { kind: save.kind, location: save.location, startedAtMs: save.startedAtMs, pid: save.pid } : undefined;
}

/**
 * Whether a marker's save is under way in another process that runs: not ended, younger than
 * {@link LIVE_SAVE_MAX_AGE_MS}, begun since this machine booted, not of `ownPid`, and of the
 * process that runs under its id now.
 */
function isLive(marker: UnfinishedSave & ProcessIdentity & { ended?: boolean }, ownPid: number | undefined, bootedAtMs = bootTimeMs()): boolean {
  if (marker.ended === true || marker.pid === ownPid || Date.now() - marker.startedAtMs >= LIVE_SAVE_MAX_AGE_MS) return false;
  return processStillRuns(marker, bootedAtMs);
}

/**
 * Whether the process that wrote a record (a save marker, an operation journal) at `startedAtMs`
 * still runs: a process runs under its id, and it is the same one. On Linux the record's boot id
 * and start time decide that (/proc); where they cannot be read (macOS, Windows), a record written
 * before this machine booted ({@link startedBeforeBoot}) is of an ended process. (A container
 * restarted gives the same ids: that is Linux, where the start time tells.) The uptime is not used
 * where /proc answers: a clock stepped forward (WSL after the host slept)
 * would make a live record look older than the boot.
 * @param bootedAtMs when this machine booted (ms since the epoch; default {@link bootTimeMs}); tests set it
 */
export function processStillRuns(record: ProcessIdentity & { readonly pid: number; readonly startedAtMs: number }, bootedAtMs = bootTimeMs()): boolean {
  if (!processRuns(record.pid)) return false;
  const now = processIdentity(record.pid);
  const sameBoot = record.bootId !== undefined && now.bootId !== undefined ? record.bootId === now.bootId : undefined;
  if (sameBoot === false) return false;
  if (record.startTicks !== undefined && now.startTicks !== undefined) return record.startTicks === now.startTicks;
  if (sameBoot === true) return true;
  return !startedBeforeBoot(record.startedAtMs, bootedAtMs);
}

/** When this machine booted, ms since the epoch (from `os.uptime()`, whole seconds on some systems). */
export function bootTimeMs(): number {
  return Date.now() - os.uptime() * 1000;
}

/**
 * True when something that began at `startedAtMs` began before this machine booted: the process
 * that did it has ended, whatever process has its id now. This is what tells a reused process id
 * apart after a restart where /proc cannot (macOS, Windows). 2 s of slack for `os.uptime()`'s
 * rounding and clock steps.
 */
export function startedBeforeBoot(startedAtMs: number, bootedAtMs = bootTimeMs()): boolean {
  return startedAtMs < bootedAtMs - 2000;
}

/** The sentence the log and the notification show for an unfinished save. */
export function unfinishedSaveMessage(u: UnfinishedSave): string {
  const at = new Date(u.startedAtMs).toLocaleString();
  return `The last shutdown did not finish saving ${serviceName(u.kind)} metadata at ${at} (data folder ${u.location}); data written in the last seconds before it may be missing.`;
}
