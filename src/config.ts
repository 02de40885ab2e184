/**
 * The typed view of the `azurite.*` settings: reads them from VS Code, with the workspace facts the
 * location needs, and hands them to src/core/settings.ts for validation.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { certificatePath, DEFAULT_LOCATION_FOLDER, locationNeedsFolder, parseSettings, type LocationContext, type NamedFolder, type ParsedSettings, type RawSettings, type SecretSettings } from './core/settings';
import { SERVICE_KINDS } from './core/services';

/** The settings section: the Azurite extension's, so existing settings.json files keep working. */
export const SECTION = 'azurite';

/** The `azurite.*` settings now in force (as vscode.workspace.getConfiguration(SECTION)). */
export function azuriteConfig(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

/** The setting keys this extension reads, without the `azurite.` prefix (same keys as the Azurite extension). */
export const SETTING_KEYS = [
  'blobHost', 'blobPort', 'queueHost', 'queuePort', 'tableHost', 'tablePort',
  'location', 'inMemoryPersistence', 'extentMemoryLimit', 'loose', 'skipApiVersionCheck', 'apiVersionCheck', 'debug', 'silent',
  'blobKeepAliveTimeout', 'queueKeepAliveTimeout', 'tableKeepAliveTimeout', 'cert', 'key', 'pwd', 'oauth',
  'disableProductStyleUrl', 'engine.heapLimit',
] as const;

/** Azurite's database files; any of them in the workspace root means Azurite data already lives there. */
const AZURITE_ROOT_FILES = ['__azurite_db_blob__.json', '__azurite_db_queue__.json', '__azurite_db_table__.json'];

/** Workspace folders on disk (only `file:` folders can hold data). */
export function diskWorkspaceFolders(): vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
}

/** The workspace folders on disk by name and path: what `${workspaceFolder:name}` in a path setting looks up. */
export function namedWorkspaceFolders(): NamedFolder[] {
  return diskWorkspaceFolders().map((f) => ({ name: f.name, path: f.uri.fsPath }));
}

/**
 * The workspace folder data is kept relative to: the one chosen for this workspace (multi-root),
 * if it is still open, else the first folder on disk.
 * @param chosen fsPath remembered in workspaceState under {@link DATA_FOLDER_KEY}
 */
export function workspaceFolderPath(chosen?: string): string | undefined {
  const folders = diskWorkspaceFolders();
  return (folders.find((f) => f.uri.fsPath === chosen) ?? folders[0])?.uri.fsPath;
}

/** workspaceState key of the folder chosen for data in a multi-root workspace. */
export const DATA_FOLDER_KEY = 'azurite.dataFolder';

/**
 * In a multi-root workspace, in disk mode, asks which folder holds Azurite's data when that is
 * not known yet and matters: no `azurite.location`, or one relative to the workspace folder or
 * with `${workspaceFolder}` ({@link locationNeedsFolder}; not one that names its folder, as
 * `${workspaceFolder:api}` does); and no folder chosen, or the chosen one has left the workspace.
 * Remembers the answer for this workspace (workspaceState). Called before every start, also the
 * restart a settings change makes.
 * @returns false when the user dismissed the question (nothing should start)
 */
export async function ensureDataFolderChosen(state: vscode.Memento): Promise<boolean> {
  const folders = diskWorkspaceFolders();
  const config = azuriteConfig();
  if (folders.length < 2 || config.get<boolean>('inMemoryPersistence') === true) return true;
  const location = config.get<unknown>('location');
  const given = typeof location === 'string' && location.trim() !== '' ? location.trim() : undefined;
  if (given !== undefined && !locationNeedsFolder(given, { workspaceFolders: namedWorkspaceFolders(), homeDir: os.homedir() })) return true;
  const chosen = state.get<string>(DATA_FOLDER_KEY);
  if (chosen !== undefined && folders.some((f) => f.uri.fsPath === chosen)) return true;
  // One question for every start that needs it meanwhile (autostart, a click, a task): VS Code shows
  // one quick pick at a time, and a second one would close the first as if it had been dismissed.
  asking ??= (async () => {
    try {
      dataFolderQuestions++;
      const pick = await vscode.window.showQuickPick(
        folders.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f })),
        {
          title: 'Azurite: which workspace folder keeps the emulator data?',
          placeHolder: given === undefined
            ? 'Data goes into .azurite/ in the folder you pick; asked once per workspace'
            : `azurite.location "${given}" is taken from the folder you pick; asked once per workspace`,
          ignoreFocusOut: true,
        },
      );
      if (pick === undefined) return false;
      await state.update(DATA_FOLDER_KEY, pick.folder.uri.fsPath);
      return true;
    } finally {
      asking = undefined;
    }
  })();
  return asking;
}

/** The data folder question while it is open (see ensureDataFolderChosen). */
let asking: Promise<boolean> | undefined;
let dataFolderQuestions = 0;

/** How many times this extension host has shown the data folder question, and whether it is open now (for tests). */
export function dataFolderQuestionState(): { readonly shown: number; readonly open: boolean } {
  return { shown: dataFolderQuestions, open: asking !== undefined };
}

/**
 * Reads and validates the settings now in force.
 * @param globalStoragePath the extension's global storage folder (data location when no folder is open)
 * @param chosenFolder the folder chosen for data in a multi-root workspace (see ensureDataFolderChosen)
 * @param secrets values from Secret Storage (the PFX password of `Azurite: Set Certificate Password`)
 */
export function readSettings(globalStoragePath: string, chosenFolder?: string, secrets: SecretSettings = {}): ParsedSettings {
  const config = azuriteConfig();
  const raw: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) raw[key] = config.get(key);
  // A port set nowhere reads as unset, not as package.json's default (which get() gives): when two
  // services clash, the error names the port the user set (core/settings.ts portContradictions).
  for (const kind of SERVICE_KINDS) {
    const i = config.inspect(`${kind}Port`);
    const setSomewhere = i !== undefined && [i.globalValue, i.workspaceValue, i.workspaceFolderValue, i.globalLanguageValue, i.workspaceLanguageValue, i.workspaceFolderLanguageValue].some((v) => v !== undefined);
    if (!setSomewhere) raw[`${kind}Port`] = undefined;
  }
  return parseSettings(raw as RawSettings, locationContext(globalStoragePath, chosenFolder), secrets);
}

/**
 * The absolute path `azurite.cert` stands for now (core/settings.ts certificatePath), or undefined:
 * the file whose password in Secret Storage the settings read.
 */
export function configuredCertificate(globalStoragePath: string, chosenFolder?: string): string | undefined {
  return certificatePath(azuriteConfig().get<unknown>('cert'), locationContext(globalStoragePath, chosenFolder));
}

/**
 * What resolving `azurite.location` needs, now: the workspace folder data is kept relative to
 * ({@link workspaceFolderPath}), every workspace folder by name, the home folder, global storage,
 * and whether the folder's root already holds Azurite's files. `${env:NAME}` reads this extension
 * host's environment (core/settings.ts's default).
 */
export function locationContext(globalStoragePath: string, chosenFolder?: string): LocationContext {
  const workspaceFolder = workspaceFolderPath(chosenFolder);
  const rootHasAzuriteData = workspaceFolder !== undefined && hasAzuriteData(workspaceFolder);
  return {
    workspaceFolder,
    workspaceFolders: namedWorkspaceFolders(),
    homeDir: os.homedir(),
    globalStoragePath,
    rootHasAzuriteData,
    // Only asked when the root holds data (the one case it decides), so a start reads no more files than before.
    defaultFolderHasAzuriteData: rootHasAzuriteData && hasAzuriteData(path.join(workspaceFolder, DEFAULT_LOCATION_FOLDER)),
  };
}

/** True when `folder` holds any of Azurite's database files (`__azurite_db_<service>__.json`). */
export function hasAzuriteData(folder: string): boolean {
  return AZURITE_ROOT_FILES.some((f) => fs.existsSync(path.join(folder, f)));
}

/**
 * Where a fix to the setting `azurite.<key>` is written: the most specific place it is set now
 * (workspace folder, workspace, user settings), so the fix is the value in force.
 * @param whereUnset where it goes when the setting is set nowhere (the user settings unless given)
 */
export function settingTargetOf(key: string, whereUnset = vscode.ConfigurationTarget.Global): vscode.ConfigurationTarget {
  const where = azuriteConfig().inspect(key);
  return where?.workspaceFolderValue !== undefined ? vscode.ConfigurationTarget.WorkspaceFolder
    : where?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace
      : where?.globalValue !== undefined ? vscode.ConfigurationTarget.Global
        : whereUnset;
}

/** True when a configuration change touches any `azurite.*` setting. */
export function affectsEmulator(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(SECTION);
}

/** Settings of this extension that are not emulator options (read where they are used). */
export interface ExtensionSettings {
  /** Restart services on a settings change without asking, even when in-memory data would be lost. */
  readonly restartOnConfigChange: boolean;
  /** Put the connection string into integrated terminals' environment. */
  readonly terminalEnvironment: boolean;
  /** Put the connection string into debug sessions' environment, and start storage for Functions projects before debugging. */
  readonly debugEnvironment: boolean;
  /** The raw `azurite.autoStart` value (parse with parseAutoStart). */
  readonly autoStart: unknown;
  /** `azurite.engine.warmUp`: load the engine in the background after activation. */
  readonly engineWarmUp: boolean;
}

/** `azurite.memory.warningThreshold`: percent of the limit (1–100) from which the meter warns; 80 when unset or invalid. */
export function warningThreshold(): number {
  const v = azuriteConfig().get<unknown>('memory.warningThreshold');
  return typeof v === 'number' && v >= 1 && v <= 100 ? v : 80;
}

/** Reads {@link ExtensionSettings}. */
export function readExtensionSettings(): ExtensionSettings {
  const config = azuriteConfig();
  return {
    restartOnConfigChange: config.get<boolean>('restartOnConfigChange') === true,
    terminalEnvironment: config.get<boolean>('terminalEnvironment') !== false,
    debugEnvironment: config.get<boolean>('debugEnvironment') !== false,
    autoStart: config.get('autoStart'),
    engineWarmUp: config.get<boolean>('engine.warmUp') !== false,
  };
}

/** Where "Use Port N" and similar fixes are written: the workspace when a folder is open, else the user settings. */
export function settingsTarget(): vscode.ConfigurationTarget {
  return vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
}
