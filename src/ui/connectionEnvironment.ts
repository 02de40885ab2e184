/**
 * "Which variables to inject, and why": the running emulator's connection string, and whether
 * `AzureWebJobsStorage` may be set given the workspace's Azure Functions `local.settings.json`
 * files and its `.env` files (rule and reasons in src/core/localSettings.ts). Shared by terminals
 * (terminalEnvironment.ts) and debug sessions (debugEnvironment.ts), so both always agree.
 *
 * The files are found with `workspace.findFiles('**\/local.settings.json')` and {@link DOTENV_GLOB}
 * (projects may sit in a subfolder) and watched with FileSystemWatchers; a change re-reads them and
 * fires {@link ConnectionEnvironment.onDidChange}.
 */
import * as vscode from 'vscode';
import { connectableHost } from '../core/connectionString';
import {
  classifyDotenv, classifyLocalSettings, decideVariables, decodeLocalSettings, needsDevelopmentStorage, STORAGE_VARIABLE,
  type ConnectionVariables, type LocalSettingsFile, type OwnEndpoint,
} from '../core/localSettings';
import { DEFAULT_PORTS, SERVICE_KINDS, serviceName } from '../core/services';
import type { Emulator, EmulatorLog } from '../emulator/emulator';

/** The glob of the Functions settings files read. */
export const LOCAL_SETTINGS_GLOB = '**/local.settings.json';
/**
 * The glob of the `.env` files read: `.env`, and the `.env.local`, `.env.development(.local)` and
 * `.env.test(.local)` that Next.js, Vite, dotenv-flow and the like load in development and tests
 * (each also keeps a variable its environment already has). Not the `.env.production` files, which
 * a development terminal's programs do not load.
 */
export const DOTENV_GLOB = '**/{.env,.env.local,.env.development,.env.development.local,.env.test,.env.test.local}';
/**
 * Folders not searched: packages, and .NET's build output (`bin/`, `obj/`), where every build copies
 * the project's local.settings.json (a copy, stale until the next build; the project's file decides).
 */
export const LOCAL_SETTINGS_EXCLUDE = '{**/node_modules/**,**/bin/**,**/obj/**}';
/** A path inside a folder {@link LOCAL_SETTINGS_EXCLUDE} leaves out. */
const EXCLUDED_SEGMENT = /(^|\/)(node_modules|bin|obj)(\/|$)/;
/** How long after the last folder created the files are read again, in ms. */
const CREATED_FOLDER_QUIET_MS = 500;
/** Most files of each kind read; past it, neither variable is injected (a file not read may set its own). */
export const MAX_LOCAL_SETTINGS_FILES = 20;

interface FoundFile {
  readonly uri: vscode.Uri;
  readonly label: string;
  /** A `.env` file, not a local.settings.json. */
  readonly dotenv: boolean;
  /** The content, or the read error's message. */
  readonly text: string | { readonly error: string };
}

/** Keeps the workspace's local.settings.json files read, and decides the variables from them. */
export class ConnectionEnvironment implements vscode.Disposable {
  private files: FoundFile[] = [];
  /**
   * Why the files are not known (before the first search has ended, or when the search failed):
   * counted as a file that could not be read, so that nothing is injected over what is not seen.
   */
  private unsearched: string | undefined = 'the search for them has not ended';
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  private scanning: Promise<void> = Promise.resolve();
  /** The rescan after folders were created ({@link folderCreated}), while it waits. */
  private rescanTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Workspace folders added since the last search began, by URI: their files count as unread until it ends. */
  private readonly unsearchedFolders = new Map<string, vscode.WorkspaceFolder>();
  private generation = 0;
  /** Fires after the local.settings.json files were read again (created, changed, deleted). */
  readonly onDidChange: vscode.Event<void> = this.changed.event;

  constructor(private readonly emulator: Emulator, private readonly log: EmulatorLog) {
    const watcher = vscode.workspace.createFileSystemWatcher(LOCAL_SETTINGS_GLOB);
    const dotenvWatcher = vscode.workspace.createFileSystemWatcher(DOTENV_GLOB);
    // VS Code reports a deleted folder (rm -rf, a branch switched) as the folder alone, not as the
    // files in it, which the watchers above then never see go: a folder deleted that held a file
    // read here reads them again. So too a folder moved in (mv, a drag from outside the
    // workspace): its files, never seen come, are read once the burst of folders created ends.
    const folders = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
    const rescan = (): void => void this.rescan();
    this.disposables.push(
      watcher, dotenvWatcher, folders, this.changed,
      watcher.onDidCreate(rescan), watcher.onDidChange(rescan), watcher.onDidDelete(rescan),
      dotenvWatcher.onDidCreate(rescan), dotenvWatcher.onDidChange(rescan), dotenvWatcher.onDidDelete(rescan),
      folders.onDidDelete((gone) => { if (this.files.some((f) => isInside(f.uri, gone))) rescan(); }),
      folders.onDidCreate((created) => void this.folderCreated(created)),
      { dispose: () => clearTimeout(this.rescanTimer) },
      // The folders added are not searched yet: until they are, their files count as unread (not
      // as absent, which would let a terminal opened there meanwhile get what they may set).
      vscode.workspace.onDidChangeWorkspaceFolders((e) => {
        for (const f of e.added) this.unsearchedFolders.set(f.uri.toString(), f);
        rescan();
      }),
    );
    void this.rescan();
  }

  /**
   * Resolves once the files have been read: the latest scan, and any that began while it ran (a
   * watcher event during activation), so that a decision never sees the files not yet searched.
   */
  async ready(): Promise<void> {
    let scan: Promise<void>;
    do {
      scan = this.scanning;
      await scan;
    } while (scan !== this.scanning);
  }

  /**
   * A file or folder created: if a folder, outside the folders not searched, the files are read
   * again {@link CREATED_FOLDER_QUIET_MS} after the last one (an `npm install` or a build creates
   * hundreds).
   */
  private async folderCreated(created: vscode.Uri): Promise<void> {
    // Within the workspace folder: a workspace that itself lies under a bin/ folder still counts.
    if (EXCLUDED_SEGMENT.test(vscode.workspace.asRelativePath(created, false))) return;
    const type = await vscode.workspace.fs.stat(created).then((s) => s.type, () => vscode.FileType.Unknown);
    if ((type & vscode.FileType.Directory) === 0 || this.disposed) return;
    clearTimeout(this.rescanTimer);
    this.rescanTimer = setTimeout(() => void this.rescan(), CREATED_FOLDER_QUIET_MS);
  }

  /** Reads every local.settings.json and .env file again; resolves when it, and any scan begun meanwhile, is done and onDidChange has fired. */
  rescan(): Promise<void> {
    const generation = ++this.generation;
    // Searched by this scan (or a newer one), which is what their decisions wait for.
    const searching = [...this.unsearchedFolders.keys()];
    this.scanning = (async () => {
      let found: FoundFile[];
      try {
        found = [...await findAndRead(LOCAL_SETTINGS_GLOB, 'local.settings.json', false), ...await findAndRead(DOTENV_GLOB, '.env', true)];
      } catch (err) {
        this.log.error(`Could not look for local.settings.json and .env files: ${(err as Error).message}`);
        if (generation !== this.generation) return;
        this.unsearched = `the search for them failed: ${(err as Error).message}`;
        this.files = [];
        this.changed.fire();
        return;
      }
      if (generation !== this.generation) return; // a newer scan owns the result
      this.unsearched = undefined;
      for (const key of searching) this.unsearchedFolders.delete(key);
      this.files = found;
      for (const f of this.classified()) {
        if (f.dotenv === true && f.use.kind === 'unknown') this.log.error(`${f.label}: could not be read (${f.use.reason}); neither AzureWebJobsStorage nor ${STORAGE_VARIABLE} is injected over it.`);
        else if (f.use.kind === 'unknown') this.log.error(`${f.label}: could not read Values.AzureWebJobsStorage (${f.use.reason}); AzureWebJobsStorage is not injected over it.`);
        else if (f.storageUse?.kind === 'unknown') this.log.error(`${f.label}: could not read Values.${STORAGE_VARIABLE} (${f.storageUse.reason}); ${STORAGE_VARIABLE} is not injected over it.`);
      }
      this.changed.fire();
    })();
    // Not this scan alone: one begun meanwhile (a watcher's event) owns the result, and the files
    // are those of the latest scan only once it has ended.
    return this.ready();
  }

  /** Our services' endpoints: running ones where they listen, the others at their configured (or default) port. */
  private ownEndpoints(): OwnEndpoint[] {
    const own: OwnEndpoint[] = [];
    for (const kind of SERVICE_KINDS) {
      const a = this.emulator.clientAddress(kind);
      own.push({ host: connectableHost(a.host), port: a.port });
      own.push({ host: '127.0.0.1', port: DEFAULT_PORTS[kind] });
    }
    return own;
  }

  /** The files found, classified against our endpoints now. */
  classified(folder?: vscode.WorkspaceFolder): LocalSettingsFile[] {
    const own = this.ownEndpoints();
    if (this.unsearched !== undefined) {
      const use = { kind: 'unknown', reason: this.unsearched } as const;
      return [{ label: 'the workspace\'s local.settings.json and .env files', use, storageUse: use }];
    }
    // Every file under the folder, those of a workspace folder nested in it too (getWorkspaceFolder
    // names the innermost): a launch in /repo may run the project in /repo/api.
    const files: LocalSettingsFile[] = this.files
      .filter((f) => folder === undefined || isInside(f.uri, folder.uri))
      .map((f) => {
        const classify = f.dotenv ? classifyDotenv : classifyLocalSettings;
        return typeof f.text === 'string'
          ? { label: f.label, dotenv: f.dotenv, use: classify(f.text, own), storageUse: classify(f.text, own, STORAGE_VARIABLE) }
          : { label: f.label, dotenv: f.dotenv, use: { kind: 'unknown', reason: f.text.error }, storageUse: { kind: 'unknown', reason: f.text.error } };
      });
    // A workspace folder added since the last search: its files, not searched yet, may set their own.
    for (const added of this.unsearchedFolders.values()) {
      if (folder !== undefined && !isInside(added.uri, folder.uri)) continue;
      const use = { kind: 'unknown', reason: 'the folder was just added to the workspace, and the search for its files has not ended' } as const;
      files.push({ label: `the local.settings.json and .env files of ${added.name}`, use, storageUse: use });
    }
    // Past the cap (a file stands for those not read) the search stopped early: this folder's own
    // file may be one it never returned.
    for (const [dotenv, name] of [[false, 'local.settings.json'], [true, '.env']] as const) {
      const capped = this.files.find((f) => f.dotenv === dotenv && typeof f.text !== 'string' && f.text.error.startsWith('not read: '));
      if (folder !== undefined && capped !== undefined && !files.some((f) => f.dotenv === dotenv && f.use.kind === 'unknown')) {
        const use = { kind: 'unknown', reason: (capped.text as { error: string }).error } as const;
        files.push({ label: `the ${name} files of ${folder.name}`, dotenv, use, storageUse: use });
      }
    }
    return files;
  }

  /** True when a local.settings.json (in `folder`, or anywhere) points AzureWebJobsStorage at the development storage. */
  needsDevelopmentStorage(folder?: vscode.WorkspaceFolder): boolean {
    return needsDevelopmentStorage(this.classified(folder));
  }

  /**
   * The variables to set now and why; undefined while no service runs here and none is known to be
   * served by another Azurite on its configured port (Emulator.servedElsewhereKinds: found by the
   * `azurite` task, autostart or the Functions pre-start, which leave it to that Azurite). A variable the extension
   * host's own environment sets to a value of the user's (a cloud account exported in the shell
   * that started VS Code) is left out, since terminals and debugged programs inherit it.
   * @param folder only the local.settings.json files of this workspace folder count (a debug
   *   session's folder); every file when undefined (terminals, which may open in any folder)
   */
  current(folder?: vscode.WorkspaceFolder): ConnectionVariables | undefined {
    const running = SERVICE_KINDS.filter((k) => this.emulator.endpoint(k) !== undefined);
    const elsewhere = this.emulator.servedElsewhereKinds();
    if (running.length === 0 && elsewhere.length === 0) return undefined;
    const services = { running: running.map(serviceName), elsewhere: elsewhere.map(serviceName) };
    return decideVariables(this.emulator.connectionString(), services, this.classified(folder), process.env, this.ownEndpoints());
  }

  dispose(): void {
    this.disposed = true;
    for (const d of this.disposables) d.dispose();
  }
}

/** True when `file` is `folder` or lies below it (same scheme and authority). */
function isInside(file: vscode.Uri, folder: vscode.Uri): boolean {
  if (file.scheme !== folder.scheme || file.authority !== folder.authority) return false;
  const base = folder.path.replace(/\/+$/, '');
  return file.path === base || file.path.startsWith(`${base}/`);
}

/**
 * The files `glob` finds (outside {@link LOCAL_SETTINGS_EXCLUDE}), read, in path order. Past
 * {@link MAX_LOCAL_SETTINGS_FILES}, one file stands for those not read, as a file that could not be
 * read: any of them may set its own value, so nothing is injected over them.
 * @param name the files' name, for that file's reason
 * @throws the search's error
 */
async function findAndRead(glob: string, name: string, dotenv: boolean): Promise<FoundFile[]> {
  const uris = await vscode.workspace.findFiles(glob, LOCAL_SETTINGS_EXCLUDE, MAX_LOCAL_SETTINGS_FILES + 1);
  uris.sort((a, b) => a.fsPath.localeCompare(b.fsPath));
  const unread = uris.length > MAX_LOCAL_SETTINGS_FILES ? uris.splice(MAX_LOCAL_SETTINGS_FILES) : [];
  const labelOf = (uri: vscode.Uri): string => vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
  const found = await Promise.all(uris.map(async (uri): Promise<FoundFile> => {
    try {
      const bytes = await vscode.workspace.fs.readFile(uri);
      return { uri, label: labelOf(uri), dotenv, text: dotenv ? new TextDecoder().decode(bytes) : decodeLocalSettings(bytes) };
    } catch (err) {
      return { uri, label: labelOf(uri), dotenv, text: { error: (err as Error).message } };
    }
  }));
  for (const uri of unread) {
    found.push({ uri, label: labelOf(uri), dotenv, text: { error: `not read: the workspace has more than ${MAX_LOCAL_SETTINGS_FILES} ${name} files, and only the first ${MAX_LOCAL_SETTINGS_FILES} are read` } });
  }
  return found;
}
