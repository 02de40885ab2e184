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
 * Writes the marker for `kind` in `location`, synchronously (one small file, no fsync), so that it
 * is in the file system even if the process is killed right after. Never throws: a folder that
 * cannot be written is reported by the save itself.
 */
export function beginSave(location: string, kind: ServiceKind): void {
  const marker: Omit<UnfinishedSave, 'location'> = { kind, startedAtMs: Date.now(), pid: process.pid };
  try {
    fs.writeFileSync(path.join(location, markerFileName(kind)), JSON.stringify(marker));
  } catch {
    // Best effort: without the marker an unfinished save goes unreported, nothing else changes.
  }
}

/** Removes the marker once the save is on disk. Never throws (a missing marker is fine). */
export async function endSave(location: string, kind: ServiceKind): Promise<void> {
  await fs.promises.rm(path.join(location, markerFileName(kind)), { force: true }).catch(() => undefined);
}

/**
 * Reads and removes the marker of `kind` in `location`, so it is reported once.
 * @returns the unfinished save, or undefined when the last save finished (no marker). A marker that
 *   cannot be parsed still counts, with its file's modification time.
 */
export async function takeUnfinishedSave(location: string, kind: ServiceKind): Promise<UnfinishedSave | undefined> {
  const file = path.join(location, markerFileName(kind));
  let text: string;
  let mtimeMs: number;
  try {
    [text, mtimeMs] = await Promise.all([fs.promises.readFile(file, 'utf8'), fs.promises.stat(file).then((s) => s.mtimeMs)]);
  } catch {
    return undefined;
  }
  await endSave(location, kind);
  let parsed: Partial<UnfinishedSave> = {};
  try { parsed = JSON.parse(text) as Partial<UnfinishedSave>; } catch { /* use the file's time */ }
  return {
    kind,
    location,
    startedAtMs: typeof parsed.startedAtMs === 'number' ? parsed.startedAtMs : mtimeMs,
    pid: typeof parsed.pid === 'number' ? parsed.pid : 0,
  };
}

/** The sentence the log and the notification show for an unfinished save. */
export function unfinishedSaveMessage(u: UnfinishedSave): string {
  const at = new Date(u.startedAtMs).toLocaleString();
  return `The last shutdown did not finish saving ${serviceName(u.kind)} metadata at ${at} (data folder ${u.location}); data written in the last seconds before it may be missing.`;
}
