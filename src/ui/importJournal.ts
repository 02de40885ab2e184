/**
 * The journal of an Import under way: what lets the next window say that an Import did not finish.
 *
 * An Import rolls itself back when it fails or is cancelled (src/data/snapshot.ts importSnapshot),
 * but not when its window closes or reloads under it: the extension host ends, and a service on
 * disk (or an attached Azurite) keeps part of the snapshot, with some of the items it replaced
 * deleted. So each Import runs in a folder of its own under `<storage>/imports/` (the workspace's
 * storage folder, or the global one in a window without a folder), which holds `journal.json` and
 * the copy of what the Import replaces. An Import that ends, however it ends, removes its journal;
 * a journal found by a later window whose process is gone is an Import that did not finish.
 *
 * No `vscode` here: plain files, so that unit tests can run it.
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';

/** The folder, under a storage folder, that holds one folder per Import. */
export const IMPORTS_FOLDER = 'imports';
const JOURNAL = 'journal.json';
/** How long the copy of what an interrupted Import replaced is kept after it was found (ms): 30 days. */
export const INTERRUPTED_COPY_KEEP_MS = 30 * 24 * 60 * 60 * 1000;

/** What `journal.json` holds. */
export interface ImportJournal {
  readonly version: 1;
  /** The snapshot folder imported (absolute). */
  readonly folder: string;
  /** Where it was imported, for messages: "the running Blob, Queue" or "the Azurite at host:port". */
  readonly where: string;
  /** Whether it went into this window's own services with `azurite.inMemoryPersistence` (gone with the window). */
  readonly inMemory: boolean;
  /** When it began (ISO 8601). */
  readonly startedAt: string;
  /** The process (extension host) that ran it. */
  readonly pid: number;
  /**
   * `copying` until the copy of what it replaces is made (nothing changed yet); `changing` from its
   * first change on.
   */
  readonly phase: 'copying' | 'changing';
  /** The copy of what it replaces (a snapshot folder), once made: under the Import's own folder. */
  readonly backup?: string | undefined;
}

/** An Import under way, as {@link beginImport} returns it. */
export interface ImportRun {
  /** The Import's own folder: the `scratch` of importSnapshot, where its copy goes. */
  readonly scratch: string;
  /** Records that the Import is about to change data, its copy being in `backup`. */
  changing(backup: string): Promise<void>;
  /** Removes the journal, and the Import's folder unless a copy was kept in it (a failed rollback's). */
  end(): Promise<void>;
}

/**
 * Writes the journal of an Import about to begin, in a new folder under `<storage>/imports/`.
 * @param storage the extension's storage folder (created if missing)
 * @throws Error from the file system when the folder or the journal cannot be written
 */
export async function beginImport(storage: string, journal: Omit<ImportJournal, 'version' | 'phase' | 'backup' | 'pid' | 'startedAt'>): Promise<ImportRun> {
  const root = path.join(storage, IMPORTS_FOLDER);
  await fsp.mkdir(root, { recursive: true });
  const scratch = await fsp.mkdtemp(path.join(root, 'import-'));
  const file = path.join(scratch, JOURNAL);
  let written: ImportJournal = { version: 1, ...journal, startedAt: new Date().toISOString(), pid: process.pid, phase: 'copying' };
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

/** An Import that did not finish, as {@link takeInterruptedImports} finds it. */
export interface InterruptedImport {
  readonly journal: ImportJournal;
  /** The copy of what it replaced, when it has one with something in it (kept {@link INTERRUPTED_COPY_KEEP_MS}). */
  readonly copy: string | undefined;
}

/**
 * Finds the Imports under `<storage>/imports/` whose process is gone before they ended, and removes
 * their journals (each is reported once). Those that had changed nothing yet, and those into
 * services kept in memory (their data went with their window), are removed whole. Folders without
 * a journal (copies kept after a failed rollback or an interrupted Import) are removed once older
 * than {@link INTERRUPTED_COPY_KEEP_MS}. Never throws: a journal that cannot be read is skipped.
 * @param isAlive whether a process runs (default: `process.kill(pid, 0)`)
 * @returns the interrupted Imports that may have left data half-imported, oldest first, and how
 *   many Imports of other processes are still under way (found again once those end)
 */
export async function takeInterruptedImports(storage: string, isAlive: (pid: number) => boolean = processAlive, now = Date.now()): Promise<{ interrupted: InterruptedImport[]; running: number }> {
  const root = path.join(storage, IMPORTS_FOLDER);
  const names = await fsp.readdir(root).catch(() => [] as string[]);
  const interrupted: InterruptedImport[] = [];
  let running = 0;
  for (const name of names) {
    const dir = path.join(root, name);
    const file = path.join(dir, JOURNAL);
    const journal = await readJournal(file);
    if (journal === undefined) {
      const stat = await fsp.stat(dir).catch(() => undefined);
      if (stat?.isDirectory() && !fs.existsSync(file) && now - stat.mtimeMs > INTERRUPTED_COPY_KEEP_MS) await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      continue;
    }
    // Under way, in this window or an other (a process id is not reused while its process runs).
    if (isAlive(journal.pid)) {
      running++;
      continue;
    }
    const copy = journal.backup !== undefined && path.dirname(journal.backup) === dir && hasContent(journal.backup) ? journal.backup : undefined;
    if (journal.phase === 'copying' || journal.inMemory || copy === undefined) await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    else {
      await fsp.rm(file, { force: true }).catch(() => undefined);
      // Its 30 days count from now.
      await fsp.utimes(dir, new Date(now), new Date(now)).catch(() => undefined);
    }
    if (journal.phase === 'changing' && !journal.inMemory) interrupted.push({ journal, copy });
  }
  interrupted.sort((a, b) => a.journal.startedAt.localeCompare(b.journal.startedAt));
  return { interrupted, running };
}

async function readJournal(file: string): Promise<ImportJournal | undefined> {
  try {
    const value = JSON.parse(await fsp.readFile(file, 'utf8')) as Partial<ImportJournal>;
    if (value.version !== 1 || typeof value.folder !== 'string' || typeof value.pid !== 'number' || (value.phase !== 'copying' && value.phase !== 'changing')) return undefined;
    return value as ImportJournal;
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

/** Whether a process runs: signal 0 tests for it (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
