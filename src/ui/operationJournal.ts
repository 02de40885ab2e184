/**
 * The journal of a data operation under way (an Import, a Reset, the seed loaded at a start): what
 * lets the next window say that one did not finish.
 *
 * These never leave data half done while their window lives: an Import rolls itself back when it
 * fails or is cancelled (src/data/snapshot.ts importSnapshot), a Reset empties to the end and a seed
 * that stops loading is deleted again. None of that can happen when the window closes or reloads
 * under them: the extension host ends, and a service on disk (or an attached Azurite) keeps what
 * was done so far. So each runs in a folder of its own under `<storage>/data-operations/` (the workspace's
 * storage folder, or the global one in a window without a folder), which holds `journal.json` and,
 * for an Import, the copy of what it replaces. An operation that ends, however it ends, removes its
 * journal; a journal found by a later window whose process is gone is an operation that did not finish.
 *
 * No `vscode` here: plain files, so that unit tests can run it.
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { SERVICE_KINDS, serviceName, type ServiceKind } from '../core/services';
import { bootTimeMs, processIdentity, processStillRuns } from '../emulator/shutdownMarker';

/** The folder, under a storage folder, that holds one folder per operation under way. */
export const OPERATIONS_FOLDER = 'data-operations';
const JOURNAL = 'journal.json';
/** How long the copy of what an interrupted Import replaced is kept after it was found (ms): 30 days. */
export const INTERRUPTED_COPY_KEEP_MS = 30 * 24 * 60 * 60 * 1000;

/** What `journal.json` holds. */
export interface OperationJournal {
  readonly version: 1;
  readonly operation: 'import' | 'reset' | 'seed';
  /** The snapshot folder imported, or the seed folder loaded (absolute); '' for a Reset without a seed. */
  readonly folder: string;
  /** The services it works on. */
  readonly kinds: readonly ServiceKind[];
  /** Where, for messages: "the running Blob, Queue" or "the Azurite at host:port". */
  readonly where: string;
  /** Whether it works on this window's own services, every one kept in memory (their data goes with the window). */
  readonly inMemory: boolean;
  /**
   * The data folder of this window's own services it works on, kept on disk (absolute): what the
   * next window's actions check they would work on. Absent for an attached Azurite, in memory, and
   * in journals of earlier versions.
   */
  readonly location?: string | undefined;
  /** When it began (ISO 8601). */
  readonly startedAt: string;
  /** The process (extension host) that runs it, and on Linux what tells it from a later process with its id. */
  readonly pid: number;
  readonly bootId?: string;
  readonly startTicks?: string;
  /**
   * `copying` while an Import makes the copy of what it replaces (nothing changed yet); `changing`
   * from the first change on (a Reset and a seed begin there).
   */
  readonly phase: 'copying' | 'changing';
  /** An Import's copy of what it replaces (a snapshot folder), once made: under the operation's own folder. */
  readonly backup?: string | undefined;
}

/** What the caller of {@link beginOperation} gives; the rest is filled in. */
export type OperationStart = Pick<OperationJournal, 'operation' | 'folder' | 'kinds' | 'where' | 'inMemory' | 'location'>;

/** An operation under way, as {@link beginOperation} returns it. */
export interface OperationRun {
  /** The operation's own folder: the `scratch` of importSnapshot, where an Import's copy goes. */
  readonly scratch: string;
  /** Records that an Import is about to change data, its copy being in `backup`. */
  changing(backup: string): Promise<void>;
  /** Removes the journal, and the operation's folder unless a copy was kept in it (a failed rollback's). */
  end(): Promise<void>;
}

/**
 * Writes the journal of an operation about to begin, in a new folder under `<storage>/data-operations/`:
 * phase `copying` for an Import, `changing` for the others.
 * @param storage the extension's storage folder (created if missing)
 * @throws Error from the file system when the folder or the journal cannot be written
 */
export async function beginOperation(storage: string, start: OperationStart): Promise<OperationRun> {
  const root = path.join(storage, OPERATIONS_FOLDER);
  await fsp.mkdir(root, { recursive: true });
  const scratch = await fsp.mkdtemp(path.join(root, `${start.operation}-`));
  const file = path.join(scratch, JOURNAL);
  let written: OperationJournal = { version: 1, ...start, startedAt: new Date().toISOString(), pid: process.pid, ...processIdentity(), phase: start.operation === 'import' ? 'copying' : 'changing' };
  await writeAtomic(file, written);
  return {
    scratch,
    changing: async (backup) => {
      written = { ...written, phase: 'changing', backup };
      await writeAtomic(file, written);
    },
    end: async () => {
      await fsp.rm(file, { force: true });
      // Empty unless a rollback that failed kept its copy there (its error names the folder).
      await fsp.rmdir(scratch).catch(() => undefined);
    },
  };
}

/** An operation that did not finish, as {@link takeInterrupted} finds it. */
export interface InterruptedOperation {
  readonly journal: OperationJournal;
  /** An Import's copy of what it replaced, when it has something in it (kept {@link INTERRUPTED_COPY_KEEP_MS}). */
  readonly copy: string | undefined;
}

/**
 * Finds the operations under `<storage>/data-operations/` whose process is gone before they ended, and
 * removes their journals (each is reported once). Those that had changed nothing yet, and those on
 * services kept in memory (their data went with their window), are removed whole. Folders without
 * a journal (copies kept after a failed rollback or an interrupted Import) are removed once older
 * than {@link INTERRUPTED_COPY_KEEP_MS}. Never throws: a journal that cannot be read is skipped.
 * @param isAlive whether the process that wrote a journal still runs (default: src/emulator/shutdownMarker.ts processStillRuns)
 * @param now the time (ms since the epoch) that ages copies
 * @param bootedAtMs when this machine booted (ms since the epoch), for the default `isAlive`
 * @returns the interrupted operations that may have left data half done, oldest first, and how
 *   many operations of running processes are under way (found again once those end)
 */
export async function takeInterrupted(storage: string, isAlive?: (journal: OperationJournal) => boolean, now = Date.now(), bootedAtMs = bootTimeMs()): Promise<{ interrupted: InterruptedOperation[]; running: number }> {
  const root = path.join(storage, OPERATIONS_FOLDER);
  const names = await fsp.readdir(root).catch(() => [] as string[]);
  const interrupted: InterruptedOperation[] = [];
  let running = 0;
  // Under way, in this window or another: its process still runs (not merely a process with its id).
  const runs = isAlive ?? ((j: OperationJournal) => processStillRuns({ pid: j.pid, startedAtMs: Date.parse(j.startedAt), ...(j.bootId !== undefined ? { bootId: j.bootId } : {}), ...(j.startTicks !== undefined ? { startTicks: j.startTicks } : {}) }, bootedAtMs));
  for (const name of names) {
    const dir = path.join(root, name);
    const file = path.join(dir, JOURNAL);
    const journal = await readJournal(file);
    if (journal === undefined) {
      const stat = await fsp.stat(dir).catch(() => undefined);
      if (stat?.isDirectory() && !fs.existsSync(file) && now - stat.mtimeMs > INTERRUPTED_COPY_KEEP_MS) await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      continue;
    }
    if (runs(journal)) {
      running++;
      continue;
    }
    // Taken by renaming it: of two windows that look at once (empty windows share the global
    // storage folder), one reports it; and one that ended since it was read is not reported.
    const taken = path.join(dir, `${JOURNAL}.taken-${process.pid}`);
    if (!(await fsp.rename(file, taken).then(() => true, () => false))) continue;
    // Found by its name in the operation's folder: the storage folder's path may read otherwise now
    // (a moved or linked user data folder) than when the journal was written.
    const backup = journal.backup === undefined ? undefined : path.join(dir, path.basename(journal.backup));
    const copy = backup !== undefined && hasContent(backup) ? backup : undefined;
    if (journal.phase === 'copying' || journal.inMemory || copy === undefined) await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    else {
      await fsp.rm(taken, { force: true }).catch(() => undefined);
      // Its 30 days count from now.
      await fsp.utimes(dir, new Date(now), new Date(now)).catch(() => undefined);
    }
    if (journal.phase === 'changing' && !journal.inMemory) interrupted.push({ journal, copy });
  }
  interrupted.sort((a, b) => a.journal.startedAt.localeCompare(b.journal.startedAt));
  return { interrupted, running };
}

async function readJournal(file: string): Promise<OperationJournal | undefined> {
  try {
    const value = JSON.parse(await fsp.readFile(file, 'utf8')) as Partial<OperationJournal>;
    const known = value.version === 1 && typeof value.folder === 'string' && typeof value.where === 'string' && typeof value.pid === 'number'
      && (value.phase === 'copying' || value.phase === 'changing') && (value.operation === 'import' || value.operation === 'reset' || value.operation === 'seed')
      && Array.isArray(value.kinds) && value.kinds.every((k) => (SERVICE_KINDS as readonly string[]).includes(k))
      && typeof value.startedAt === 'string' && !Number.isNaN(Date.parse(value.startedAt))
      && (value.backup === undefined || typeof value.backup === 'string')
      && (value.location === undefined || typeof value.location === 'string');
    return known ? value as OperationJournal : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a snapshot folder holds anything: a blob/, queue/ or table/ with entries. */
function hasContent(folder: string): boolean {
  return ['blob', 'queue', 'table'].some((k) => {
    try {
      return fs.readdirSync(path.join(folder, k)).length > 0;
    } catch {
      return false;
    }
  });
}

/** Writes JSON so that a reader sees the old file or the new one, never half of it. */
async function writeAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await fsp.writeFile(tmp, JSON.stringify(value));
  await fsp.rename(tmp, file);
}

/**
 * What the notification of an operation its window closed under says: what it was, when it began,
 * what it may have left, and what settles it.
 */
export function interruptedMessage(journal: OperationJournal, copy: string | undefined): string {
  const when = new Date(journal.startedAt).toLocaleString();
  const closed = 'did not finish: its window closed or reloaded.';
  const names = journal.kinds.map(serviceName).join(', ');
  switch (journal.operation) {
    case 'import': {
      const days = Math.round(INTERRUPTED_COPY_KEEP_MS / 86_400_000);
      return `The Import of ${journal.folder} into ${journal.where}, begun ${when}, ${closed} `
        + 'Part of the snapshot may be loaded and items it replaces may be missing: import it again to finish it'
        + (copy !== undefined ? `, or restore the items it replaced from their copy in ${copy} (a snapshot folder, kept ${days} days).` : '.');
    }
    case 'reset':
      return `The Reset of ${names}, begun ${when}, ${closed} ${journal.kinds.length === 1 ? 'It' : 'They'} may hold part of what was there${journal.folder !== '' ? ` and part of the seed in ${journal.folder}` : ''}: reset again to finish it.`;
    case 'seed':
      return `Loading the seed in ${journal.folder} into ${names}, begun ${when}, ${closed} ${names} holds part of it, and on disk a seed loads only into an empty service: Reset empties ${names} and loads the seed in full.`;
  }
}
