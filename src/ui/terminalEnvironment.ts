/**
 * Integrated terminals get the running emulator's connection string as
 * `AZURE_STORAGE_CONNECTION_STRING` (read by the Azure SDKs and the az CLI) and `AzureWebJobsStorage`
 * (read by Azure Functions), through VS Code's environmentVariableCollection — new terminals see
 * the values, and VS Code offers to relaunch open ones when they change.
 *
 * Two layers. The global collection holds the workspace-wide decision: `AzureWebJobsStorage` is left
 * out while any local.settings.json in the workspace sets its own (see connectionEnvironment.ts),
 * since a terminal may be opened anywhere. In a multi-root workspace that would keep it from a
 * folder whose own project uses the development storage because another folder's project sets a
 * cloud account; so each workspace folder whose own decision (only its own local.settings.json
 * files, as for debug sessions) allows a variable the global one leaves out gets it in its scoped
 * collection (`getScoped({ workspaceFolder })`), which VS Code applies, on top of the global one, to
 * terminals it counts in that folder (the folder of the terminal's cwd; else the folder of the last
 * active editor, or the first). A folder's decision weighs a subset of the files with the same
 * connection string and environment, so it can only add variables, with the same value
 * (decideVariables); a scoped collection can add, never take a global variable away. Each
 * collection's description says what was set and why.
 *
 * Off with `azurite.terminalEnvironment: false`; cleared while no service runs, here or in another
 * Azurite found serving it on its configured port (Emulator.servedElsewhereKinds). A variable the user
 * sets in `terminal.integrated.env.<platform>` is left to that value: VS Code applies an extension's
 * collection after that setting, so setting it here would override the user's. So is one a task in
 * a tasks.json sets in its `options.env`, a terminal profile in its `env`, or a JavaScript Debug
 * Terminal launch (`node-terminal`) in its `env` (core/taskEnvironment.ts): VS Code applies the
 * collection over those too. For a folder the
 * setting is read with the folder's URI (VS Code 1.139 registers it per window, so in a multi-root
 * workspace that gives the workspace's value; read per folder in case that changes). Not
 * persistent (the scoped collections share the global one's flag): VS Code would otherwise restore
 * the values in the next window, before anything runs there (terminals restored at startup,
 * `runOn: folderOpen` tasks), and keep them for good once this extension stays passive.
 */
import * as vscode from 'vscode';
import { CONNECTION_VARIABLES, type ConnectionVariable, type ConnectionVariables } from '../core/localSettings';
import { launchVariables, profileVariables, taskVariables, variablesSet, type TaskPlatform, type TasksSource } from '../core/taskEnvironment';
import type { Emulator } from '../emulator/emulator';
import type { ConnectionEnvironment } from './connectionEnvironment';

/** The variables set, in this order. */
export const TERMINAL_VARIABLES = CONNECTION_VARIABLES;

/** VS Code's setting of the variables its terminals get, per platform (`.linux`, `.osx`, `.windows`). */
const TERMINAL_ENV_SECTION = 'terminal.integrated.env';

/** The configuration section of tasks.json files: VS Code reads them, the user's too, as this section. */
const TASKS_SECTION = 'tasks';

/** VS Code's setting of terminal profiles, per platform; a profile's `env` is its terminals'. */
const PROFILES_SECTION = 'terminal.integrated.profiles';

/** The configuration section of launch.json files (and a workspace file's `launch`). */
const LAUNCH_SECTION = 'launch';

/** A platform's key under `terminal.integrated.env` (and in tasks.json). */
type TerminalPlatform = TaskPlatform;

/** The key of this platform under `terminal.integrated.env`. */
function terminalPlatform(): TerminalPlatform {
  return process.platform === 'win32' ? 'windows' : process.platform === 'darwin' ? 'osx' : 'linux';
}

/** The description's mark, after what it says. */
const BY = '(Storage Emulators)';

/**
 * Keeps the extension's environment variable collection, and the scoped collection of each workspace
 * folder whose own decision adds to it, in step with the emulator and the local.settings.json files.
 */
export class TerminalEnvironment implements vscode.Disposable {
  private readonly subscriptions: { dispose(): void }[];
  /** The folders whose scoped collection holds variables of ours, by URI. */
  private readonly scoped = new Map<string, vscode.WorkspaceFolder>();
  /**
   * The WorkspaceFolder each folder's scoped collection was first asked for with, by URI: VS Code's
   * getScoped makes one collection per URI and keeps that object as its scope (see {@link isStale}).
   */
  private readonly scopes = new Map<string, vscode.WorkspaceFolder>();

  constructor(
    private readonly collection: vscode.GlobalEnvironmentVariableCollection,
    emulator: Emulator,
    private readonly environment: ConnectionEnvironment,
    private readonly enabled: () => boolean,
  ) {
    collection.persistent = false;
    this.subscriptions = [
      emulator.onDidChangeState(() => this.refresh()),
      // Another Azurite found serving a service, or that finding forgotten.
      emulator.onDidChangeServedElsewhere(() => this.refresh()),
      environment.onDidChange(() => this.refresh()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if ([TERMINAL_ENV_SECTION, TASKS_SECTION, PROFILES_SECTION, LAUNCH_SECTION].some((section) => e.affectsConfiguration(section))) this.refresh();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.foldersChanged()),
    ];
    this.refresh();
  }

  /** Sets or clears the variables, globally and per workspace folder, from the current state, settings and local.settings.json files. */
  refresh(): void {
    const current = this.enabled() ? this.environment.current() : undefined;
    if (current === undefined) {
      this.clearScoped();
      this.collection.clear();
      return;
    }
    const platform = terminalPlatform();
    // Any entry of theirs wins: a value, "" or null (which removes the variable from terminals).
    const theirs = userVariables(current, undefined, platform);
    const global: Partial<Record<ConnectionVariable, string>> = {};
    for (const name of TERMINAL_VARIABLES) if (!theirs.some((t) => t.name === name)) global[name] = current.variables[name];
    this.collection.description = `${[current.description, ...theirs.map((t) => `${t.name} not set in terminals: ${t.by} sets its own${t.note}`)].join('; ')} ${BY}`;
    write(this.collection, global);

    const folders = vscode.workspace.workspaceFolders ?? [];
    for (const [key, folder] of [...this.scoped]) {
      if (!folders.some((f) => f.uri.toString() === key)) this.clearFolder(key, folder);
    }
    for (const folder of folders) this.refreshFolder(folder, current, platform);
  }

  /**
   * Sets in `folder`'s scoped collection the variables its own decision adds to the workspace-wide
   * one, `current` (unless `terminal.integrated.env`, read for the folder, names them); clears it
   * when there are none.
   */
  private refreshFolder(folder: vscode.WorkspaceFolder, current: ConnectionVariables, platform: TerminalPlatform): void {
    const own = this.environment.current(folder);
    // A folder's decision weighs some of the files the workspace-wide one weighs, with the same
    // connection string and environment: it only ever adds variables, with the same value
    // (decideVariables). Were one to differ, the global value would stay: which of two mutators of
    // one variable VS Code applies last depends on the order they were set in.
    const added = own === undefined ? [] : TERMINAL_VARIABLES.filter((name) => own.variables[name] !== undefined && current.variables[name] === undefined);
    const theirs = own === undefined ? [] : userVariables(own, folder, platform).filter((t) => added.includes(t.name));
    const set = added.filter((name) => !theirs.some((t) => t.name === name));
    const key = folder.uri.toString();
    if (own === undefined || set.length === 0 || this.isStale(folder)) {
      this.clearFolder(key, folder);
      return;
    }
    const scoped = this.scopedFor(folder);
    scoped.description = `${[
      `${set.join(' and ')} set in terminals of ${folder.name} too: only its own local.settings.json files count there (${own.description})`,
      ...theirs.map((t) => `${t.name} not set in terminals of ${folder.name}: ${t.by} sets its own${t.note}`),
    ].join('; ')} ${BY}`;
    write(scoped, Object.fromEntries(set.map((name) => [name, own.variables[name]])));
    this.scoped.set(key, folder);
  }

  /** `folder`'s scoped collection (VS Code makes it on the first call for the folder's URI and keeps it). */
  private scopedFor(folder: vscode.WorkspaceFolder): vscode.EnvironmentVariableCollection {
    const key = folder.uri.toString();
    if (!this.scopes.has(key)) this.scopes.set(key, folder);
    return this.collection.getScoped({ workspaceFolder: folder });
  }

  /**
   * True when `folder`'s scoped collection would reach another folder's terminals. VS Code (1.139)
   * keeps, per URI, the collection getScoped made for the first WorkspaceFolder object it was given,
   * with that object as the scope it sends. The extension host moves a folder's index in place while
   * the folder stays in the workspace, but a folder removed and added back is a new object, while the
   * collection keeps the old one and its old index; VS Code matches scoped variables to a terminal by
   * that index, so they would reach the terminals of whichever folder is now at the old place.
   */
  private isStale(folder: vscode.WorkspaceFolder): boolean {
    const first = this.scopes.get(folder.uri.toString());
    return first !== undefined && first !== folder && first.index !== folder.index;
  }

  /** Clears the scoped collection of the folder `key` (a folder's URI) when it holds ours. */
  private clearFolder(key: string, folder: vscode.WorkspaceFolder): void {
    if (!this.scoped.delete(key)) return;
    this.scopedFor(folder).clear();
  }

  /** Clears every scoped collection of ours. */
  private clearScoped(): void {
    for (const [key, folder] of [...this.scoped]) this.clearFolder(key, folder);
  }

  /**
   * Folders added, removed or moved. VS Code tells a scoped variable's folder by its index, as sent
   * with the collection (the extension host updates a folder's index in place but sends the collection
   * only when it changes), and clears a scoped collection by index too, which a removed folder's stale
   * one may share with a folder that moved. So every scoped collection is cleared, which sends the
   * indices now, and set again, except for a folder removed and added back at another place
   * ({@link isStale}): its terminals get only the global collection's variables until the next window.
   */
  private foldersChanged(): void {
    this.clearScoped();
    this.refresh();
  }

  /**
   * The values now set (undefined when not set).
   * @param folder that folder's scoped collection: what its terminals get on top of the global one
   *   (nothing unless its own local.settings.json files allow more than the workspace's); the global
   *   collection when undefined
   */
  values(folder?: vscode.WorkspaceFolder): Record<string, string | undefined> {
    const c = folder === undefined ? this.collection : this.scopedFor(folder);
    return Object.fromEntries(TERMINAL_VARIABLES.map((n) => [n, c.get(n)?.value]));
  }

  /**
   * What the collection's description says now (what was injected and why).
   * @param folder that folder's scoped collection (undefined when it adds nothing); the global one when undefined
   */
  description(folder?: vscode.WorkspaceFolder): string | undefined {
    const d = (folder === undefined ? this.collection : this.scopedFor(folder)).description;
    return typeof d === 'string' ? d : d?.value;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}

/**
 * The variables of `current` that the user sets for terminals: those `terminal.integrated.env.<platform>`
 * names (a value, "" or null), read for `folder` when given, or whose identity-based form it sets to
 * a string (`AzureWebJobsStorage__accountName`; null removes it); then those a terminal profile
 * sets in its `env` (`terminal.integrated.profiles.<platform>`), a task in its `options.env`, or a
 * `node-terminal` launch in its `env` (core/taskEnvironment.ts), in the user's tasks.json or
 * launch.json, the workspace's and, for `folder` (every folder when undefined), the folder's. `by`
 * names the setting, the profile, the task or the launch; `note`
 * is what the description adds: " (AzureWebJobsStorage__accountName: an identity-based connection)"
 * for an identity-based form, else ''.
 */
function userVariables(current: ConnectionVariables, folder: vscode.WorkspaceFolder | undefined, platform: TerminalPlatform): { readonly name: ConnectionVariable; readonly by: string; readonly note: string }[] {
  const users = vscode.workspace.getConfiguration(TERMINAL_ENV_SECTION, folder?.uri).get<Record<string, unknown>>(platform) ?? {};
  const ours = TERMINAL_VARIABLES.filter((name) => current.variables[name] !== undefined);
  const found = variablesSet(users, ours, platform).map((v) => ({ ...v, by: `${TERMINAL_ENV_SECTION}.${platform}` }));
  const all: { readonly name: string; readonly by: string; readonly note: string }[] = [...found];
  const rest = (): ConnectionVariable[] => ours.filter((name) => !all.some((f) => f.name === name));
  all.push(...profileVariables(vscode.workspace.getConfiguration(PROFILES_SECTION, folder?.uri).get<unknown>(platform), rest(), platform, `${PROFILES_SECTION}.${platform}`));
  all.push(...taskVariables(sectionSources(TASKS_SECTION, folder, 'tasks.json'), rest(), platform));
  all.push(...launchVariables(sectionSources(LAUNCH_SECTION, folder, 'launch.json'), rest(), platform));
  return all.map((v) => ({ ...v, name: v.name as ConnectionVariable }));
}

/**
 * The tasks.json (`section` 'tasks') or launch.json ('launch') contents whose tasks or launches may
 * run in a terminal of `folder` (of any folder when undefined): the user's, the workspace's (a
 * single folder's file, or a multi-root workspace file's section) and, in a multi-root workspace,
 * each folder's.
 * @param file what a description calls the file (`tasks.json`)
 */
function sectionSources(section: string, folder: vscode.WorkspaceFolder | undefined, file: string): TasksSource[] {
  const multiRoot = vscode.workspace.workspaceFile !== undefined;
  const all = vscode.workspace.getConfiguration().inspect<unknown>(section);
  const sources: TasksSource[] = [
    { value: all?.globalValue, name: `the user ${file}` },
    { value: all?.workspaceValue, name: multiRoot ? 'the workspace file' : file },
  ];
  if (multiRoot) {
    for (const f of folder === undefined ? vscode.workspace.workspaceFolders ?? [] : [folder]) {
      sources.push({ value: vscode.workspace.getConfiguration(undefined, f.uri).inspect<unknown>(section)?.workspaceFolderValue, name: `${file} of ${f.name}` });
    }
  }
  return sources;
}

/** Makes `collection` hold exactly `variables` (those undefined deleted), changing only what differs. */
function write(collection: vscode.EnvironmentVariableCollection, variables: Partial<Record<ConnectionVariable, string>>): void {
  for (const name of TERMINAL_VARIABLES) {
    const value = variables[name];
    if (value === undefined) {
      if (collection.get(name) !== undefined) collection.delete(name);
    } else if (collection.get(name)?.value !== value) collection.replace(name, value);
  }
}
