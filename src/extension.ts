/**
 * Composition root: builds the emulator, the status bar, the commands, the terminal and debug
 * environments, the Functions storage hooks, the `azurite` task provider and the settings watcher,
 * and pushes every disposable into `context.subscriptions`. No logic here.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { COMMANDS, PASSIVE_CONTEXT_KEY } from './core/commandIds';
import { azuriteConfig, configuredCertificate, DATA_FOLDER_KEY, dataFolderQuestionState, ensureDataFolderChosen, locationContext, readExtensionSettings, readSettings, warningThreshold } from './config';
import { locationNeedsFolder } from './core/settings';
import { MemoryAlerts, writeLimit } from './ui/memoryAlerts';
import { MemoryPanel } from './ui/memoryPanel';
import { notify, recordedNotifications, recordedActions, showOutcome, usePortNow } from './ui/notify';
import { recordedProgress } from './ui/progress';
import { unfinishedSaveMessage } from './emulator/shutdownMarker';
import { CODE_CACHE_FOLDER, type CodeCacheState } from './emulator/codeCache';
import { Emulator } from './emulator/emulator';
import { failure, type Failure, type Outcome } from './core/outcome';
import { SettingsWatcher } from './settingsWatcher';
import { autoStart } from './autoStart';
import { channelLog } from './ui/log';
import { StatusBar, type StatusItemKey } from './ui/statusBar';
import type { StatusItemSnapshot } from './ui/statusItem';
import { TerminalEnvironment } from './ui/terminalEnvironment';
import { ConnectionEnvironment } from './ui/connectionEnvironment';
import { DebugEnvironment } from './ui/debugEnvironment';
import { FunctionsStorage } from './ui/functionsStorage';
import { AzuriteTaskProvider } from './ui/azuriteTask';
import { SnapshotCommands, type SnapshotCommandArgs } from './ui/snapshotCommands';
import type { InterruptedOperation } from './ui/operationJournal';
import { DataTarget } from './ui/dataTarget';
import { Accounts } from './ui/accounts';
import { accountKeySecret } from './core/accounts';
import { StorageView, type StorageNode, type StorageTreeSnapshot } from './ui/storageView';
import { bindToLoopback, ExposureAlerts } from './ui/exposureAlerts';
import type { ExposedService } from './core/hosts';
import { LocationNotice, useLocation } from './ui/locationNotice';
import { CertificatePassword, movePasswordToSecretStorage, PASSWORD_SECRET_KEY, passwordSecretKey, REMOVED_MARK, setCertificatePasswordAndRestart, watchPasswordSetting } from './ui/certificatePassword';
import type { ServiceKind } from './core/services';

/**
 * How long after activation the engine's warm-up begins, in ms. Activation runs on
 * `onStartupFinished` (the workbench has restored) and the load runs on the engine's thread, so the
 * warm-up starts at once: a later start left a click made as soon as the status bar item appeared
 * waiting for the engine's load (bench/README.md, "First click").
 */
const WARM_UP_DELAY_MS = 0;

/** The Azurite extension, whose command ids and default ports this extension shares. */
export const AZURITE_EXTENSION_ID = 'Azurite.azurite';

/**
 * What `activate()` returns to other extensions (`vscode.extensions.getExtension(id).exports`).
 * They drive the emulator through the Azurite command ids (README, "Using it from other tools").
 */
export interface ExtensionApi {
  /** True when the extension stays passive because the Azurite extension is enabled. */
  readonly passive: boolean;
}

/**
 * What the integration tests read, which they cannot otherwise see (status bar items,
 * notifications): returned only when VS Code runs the extension in `ExtensionMode.Test`.
 */
export interface TestingApi extends ExtensionApi {
  readonly emulator: Emulator;
  /** What each status bar item shows now. */
  statusItems(): Record<StatusItemKey, StatusItemSnapshot>;
  /** What let the service items show (undefined while they wait for the warm-up). */
  statusItemsShownBy(): StatusBar['revealedBy'];
  /** The folder chosen for data in a multi-root workspace (remembered per workspace), if any. */
  dataFolder(): string | undefined;
  /** Stores `folder` (or forgets the choice) as the answer to the data folder question would. */
  chooseDataFolder(folder: string | undefined): Thenable<void>;
  /** How many times the data folder question has been shown in this window, and whether it is open now. */
  dataFolderQuestions(): { readonly shown: number; readonly open: boolean };
  /** Notifications shown so far (newest last, at most 1,000). */
  notifications(): string[];
  /** The actions (buttons) the newest notification shown with exactly `message` offered; undefined when none was shown. */
  notificationActions(message: string): readonly string[] | undefined;
  /** The titles of the progress notifications shown after a second of work so far (newest last, at most 1,000). */
  progressShown(): string[];
  /** True while the memory usage view is open. */
  memoryPanelOpen(): boolean;
  /** The memory usage view's page as last rendered (undefined while it is closed). */
  memoryPanelHtml(): string | undefined;
  /** Whether the memory usage view shows, whether a render of it is under way, and how many renders have set its page. */
  memoryPanelRenders(): { readonly visible: boolean; readonly rendering: boolean; readonly count: number };
  /**
   * The variables integrated terminals get now: the global collection's, or with `folder` what that
   * workspace folder's scoped collection adds for terminals in it (all undefined when it adds nothing).
   */
  terminalVariables(folder?: vscode.WorkspaceFolder): Record<string, string | undefined>;
  /** What the terminals' environment description says now (what was injected and why): the global collection's, or `folder`'s scoped one's. */
  terminalDescription(folder?: vscode.WorkspaceFolder): string | undefined;
  /** Whether VS Code keeps the terminals' variables across a window reload (never: the emulator does not outlive its window). */
  terminalVariablesPersist(): boolean;
  /** Reads the workspace's local.settings.json files again (as a file watcher event does); resolves when read. */
  rescanLocalSettings(): Promise<void>;
  /** Resolves when settings-driven restarts and the autostart have finished. */
  settled(): Promise<void>;
  /** Resolves when no Reset, Import or Export is under way (those begun meanwhile included); never rejects. */
  dataIdle(): Promise<void>;
  /** How many Reset, Import and Export operations are under way or waiting for one before them. */
  dataOperations(): number;
  /**
   * Looks once more for Imports, Resets and seeds that did not finish (after the look at activation
   * has ended) and reports them as activation does; resolves to those found (buttons unanswered).
   */
  interruptedOperations(): Promise<InterruptedOperation[]>;
  /** Runs what a button of an interrupted operation's notification runs (SnapshotCommands.settleInterrupted). */
  settleInterrupted(op: InterruptedOperation, choice: string, args?: SnapshotCommandArgs): Promise<Outcome>;
  /** The storage folder whose `data-operations/` holds the journals of data operations (src/ui/operationJournal.ts). */
  operationsStorage(): string;
  /** The engine's V8 code cache: what happened to it on load (undefined before) and its file. */
  engineCodeCache(): { state: CodeCacheState | undefined; file: string | undefined };
  /** Runs what "Bind to 127.0.0.1" on the exposure notification runs. */
  bindToLoopback(kind: ServiceKind): Promise<Outcome>;
  /** Runs what a button (`choice`) of the exposure notification about `services` on `host` runs; the binds' outcomes. */
  answerExposure(choice: string, services: readonly ExposedService[], host: string): Promise<Outcome[]>;
  /** Runs what Raise Limit on a memory notification runs once `mb` (MB) is typed; true when written. */
  raiseLimitTo(mb: number): Promise<boolean>;
  /** Runs what "Use Port N" on a port conflict's notification runs (the start's outcome; undefined when nothing started). */
  usePort(kind: ServiceKind, port: number): Promise<Outcome | undefined>;
  /** Runs what "Use That Folder" on the notice of the Azurite extension's data runs. */
  useLocation(folder: string): Promise<Outcome>;
  /** The PFX password in Secret Storage of the certificate file at `cert` (absolute; undefined when none or removed), or without it the one for every file without its own, read back. */
  storedCertificatePassword(cert?: string): Thenable<string | undefined>;
  /** This extension's Secret Storage (to store or remove what an earlier version kept, say). */
  readonly secretStorage: vscode.SecretStorage;
  /** Runs what "Move to Secret Storage" on the azurite.pwd notice runs. */
  movePasswordToSecretStorage(): Promise<boolean>;
  /** The Storage view's tree as it shows now, expanded `depth` levels (first pages). */
  storageTree(depth?: number): Promise<StorageTreeSnapshot[]>;
  /** A node of the Storage view by id (loaded by {@link storageTree} first), to pass to its commands. */
  storageNode(id: string): StorageNode | undefined;
  /** Drops `transfer` on the Storage view's node `id`, as a drag and drop does. */
  storageDrop(id: string, transfer: vscode.DataTransfer): Promise<void>;
  /** An account's key as stored in Secret Storage (`azurite.accounts`). */
  storedAccountKey(name: string): Thenable<string | undefined>;
  /** Resolves when the accounts of the current `azurite.accounts` are in the engine. */
  accountsReady(): Promise<void>;
  /** Wall time of activate(), in ms. */
  readonly activationMs: number;
}

/**
 * How the entry point (src/entry.ts) loaded this module through the V8 code cache. Absent when this
 * module is required directly.
 */
export interface ExtensionCodeCache {
  /** How long loading this module took (ms), before `activate()` was called: the output's "Activated in" line gives it. */
  readonly loadMs: number;
  /** Sends the cache's lines, those so far and later ones, to `sink`. */
  logTo(sink: (line: string) => void): void;
  /** Writes the cache if this window had none or V8 refused it; resolves when done, never rejects. */
  save(): Promise<void>;
}

let stopOnDeactivate: (() => Promise<void>) | undefined;
/** The stop deactivate() started: the output channel is disposed only after it (see activate). */
let shutdown: Promise<void> | undefined;

/**
 * Activation: `onStartupFinished`; earlier on `onDebug` and `onTaskType:azurite` (an F5 or an
 * `azurite` preLaunchTask in a window that has just opened) and in workspaces holding a Functions
 * project's local.settings.json (so the debug hooks are registered as early as the Azure Functions
 * extension's). Called by the entry point (src/entry.ts), which loaded this module through the code
 * cache `codeCache`.
 */
export function activate(context: vscode.ExtensionContext, codeCache?: ExtensionCodeCache): ExtensionApi | TestingApi {
  const started = performance.now();
  const channel = vscode.window.createOutputChannel('Azurite', { log: true });
  // VS Code calls deactivate() and then, without awaiting it, disposes context.subscriptions in array
  // order (extHostExtensionService `_deactivate`): keep the channel open until the stop has logged.
  context.subscriptions.push({ dispose: () => void (shutdown ?? Promise.resolve()).finally(() => channel.dispose()) });
  if (vscode.extensions.getExtension(AZURITE_EXTENSION_ID) !== undefined) {
    return stayPassive(channel, context.environmentVariableCollection);
  }
  // The code cache's lines. A passive extension (above) neither logs them nor saves the cache.
  codeCache?.logTo((line) => channel.info(line));

  // The folder chosen for data in a multi-root workspace (ensureDataFolderChosen), if any.
  const dataFolder = (): string | undefined => context.workspaceState.get<string>(DATA_FOLDER_KEY);
  // The PFX password from Secret Storage (Azurite: Set Certificate Password), kept per certificate
  // file; a change applies like a settings change.
  const certificate = (): string | undefined => configuredCertificate(context.globalStorageUri.fsPath, dataFolder());
  const password = new CertificatePassword(context.secrets, () => watcher.refresh(), certificate);
  const settings = () => readSettings(context.globalStorageUri.fsPath, dataFolder(), { pwdFor: (cert) => password.passwordFor(cert) });
  const log = channelLog(channel);
  // The engine runs in a child process, which loads dist/engine.js through a V8 code cache in global
  // storage (later windows skip compiling azurite).
  const engineFiles = {
    processPath: context.asAbsolutePath('dist/engineProcess.js'),
    enginePath: context.asAbsolutePath('dist/engine.js'),
    checksumWorkerPath: context.asAbsolutePath('dist/checksumWorker.js'),
    codeCacheDir: path.join(context.globalStorageUri.fsPath, CODE_CACHE_FOLDER),
  };
  const emulator = new Emulator(settings(), log, engineFiles);
  // Resolves when no Reset, Import or Export is under way: what a stop or restart for a settings
  // change waits for (the data commands are made below; this runs only once activate() has returned).
  const dataIdle = (): Promise<void> => snapshots.idle();
  const target = new DataTarget(emulator, log, dataIdle);
  // azurite.accounts: keys in Secret Storage, given to the engine's process only.
  const accounts = new Accounts(context.secrets, emulator, log);
  // Warm before the click: once activation is done, the engine loads in its own process (nothing
  // is shown, no port is bound). The service items appear when it has loaded, so that a click on
  // one only builds and starts the server (StatusBar, REVEAL_WAIT_MS).
  // Not while attached (azurite.attach): the local engine would load for nothing, since no local start runs.
  const warmedUp = readExtensionSettings().engineWarmUp && target.attached() === undefined ? warmUpAfterActivation(emulator, context, log) : undefined;
  const statusBar = new StatusBar(emulator, warningThreshold, target, warmedUp);
  const memoryPanel = new MemoryPanel(emulator, warningThreshold, () => target.attached()?.label);
  // Raise Limit's write, applied at once by the settings watcher once it exists (made below).
  let writeLimitWhole = writeLimit;
  const memoryAlerts = new MemoryAlerts(emulator, warningThreshold, (mb) => writeLimitWhole(mb));
  const connectionEnv = new ConnectionEnvironment(emulator, log);
  const terminal = new TerminalEnvironment(context.environmentVariableCollection, emulator, connectionEnv, () => readExtensionSettings().terminalEnvironment);
  // The settings watcher's (made below, once what it needs exists); before it, no limit change waits.
  let limitSettled = (): Promise<void> => Promise.resolve();
  const reload = async (): Promise<readonly Failure[]> => {
    // A certificate set since: its stored password is read first, so that a start does not take the
    // PFX for one without a password. Only then does the reload wait; otherwise it applies at once
    // (the settings watcher looks for restarts right after calling it, against the settings applied).
    const late = !password.loaded();
    if (late) await password.load();
    const applied = emulator.updateSettings(settings());
    statusBar.refresh();
    terminal.refresh();
    // The watcher looked before these settings applied: it looks again.
    if (late) watcher.lookForRestarts();
    return applied;
  };
  const deps = {
    emulator,
    reloadSettings: () => void reload(),
    showMemoryPanel: () => memoryPanel.show(),
    setCertificatePassword: (given: unknown, options: unknown): Promise<boolean> => setCertificatePasswordAndRestart(given, options, {
      password,
      // A relative azurite.cert resolves against the folder a start uses: in a multi-root workspace,
      // asked as a start asks it (and applied, as for a Clean).
      chooseFolder: async () => {
        const raw = azuriteConfig().get<unknown>('cert');
        if (typeof raw !== 'string' || raw.trim() === '' || !locationNeedsFolder(raw, locationContext(context.globalStorageUri.fsPath, dataFolder()))) return true;
        const before = dataFolder();
        if (!(await ensureDataFolderChosen(context.workspaceState))) return false;
        if (dataFolder() !== before) await reload();
        return true;
      },
      notifyDeps: deps,
    }),
    accounts: async () => {
      // The keys, not the engine's round trip: the copied string only needs them.
      await accounts.known;
      return emulator.accounts();
    },
    accountsSource: () => accounts.source,
    attached: () => target.attached(),
    prepareStart: async () => {
      await password.ready;
      await accounts.ready;
      // A memory limit still being typed is not read (and applied live) by the start's reload.
      await limitSettled();
      const go = await ensureDataFolderChosen(context.workspaceState);
      if (go) {
        await reload();
        locationNotice.check();
      }
      return go;
    },
    dataIdle: () => dataIdle(),
    cancelWaitingData: (reason: string) => snapshots.cancelWaiting(reason),
    prepareClean: async () => {
      const before = dataFolder();
      const go = await ensureDataFolderChosen(context.workspaceState);
      if (go && dataFolder() !== before) await reload();
      return go;
    },
  };
  // Data the Azurite extension wrote where it took azurite.location literally (~, ${workspaceFolder}).
  const locationNotice = new LocationNotice(() => locationContext(context.globalStorageUri.fsPath, dataFolder()), deps);
  registerCommands(context, deps);
  // Test data: export, import, reset, and azurite.seed loaded at each start (through dist/data.js, loaded on first use).
  const snapshots = new SnapshotCommands({ emulator, target, extensionPath: context.extensionPath, log, dataFolder, storagePath: (context.storageUri ?? context.globalStorageUri).fsPath });
  emulator.setAfterStart((kind, inMemory, signal) => snapshots.seedAfterStart(kind, inMemory, signal));
  const argsOf = (a: unknown): SnapshotCommandArgs => (typeof a === 'object' && a !== null ? a as SnapshotCommandArgs : {});
  context.subscriptions.push(
    snapshots,
    vscode.commands.registerCommand(COMMANDS.exportSnapshot, (a: unknown) => snapshots.exportSnapshot(argsOf(a))),
    vscode.commands.registerCommand(COMMANDS.importSnapshot, (a: unknown) => snapshots.importSnapshot(argsOf(a))),
    vscode.commands.registerCommand(COMMANDS.reset, (a: unknown) => snapshots.reset(argsOf(a))),
  );
  // The Storage view: the data target's containers, blobs, queues and tables (dist/data.js on first expand).
  const storageView = new StorageView({ emulator, target, extensionPath: context.extensionPath, log });
  context.subscriptions.push(storageView, accounts.onDidChange(() => storageView.invalidate()), snapshots.onDidChangeAttachedData(() => storageView.invalidate()));
  // What a restart for a settings change waits for: no Reset, Import or Export under way.
  const watcher = new SettingsWatcher(emulator, reload, deps, dataIdle);
  limitSettled = () => watcher.limitSettled();
  writeLimitWhole = (mb) => watcher.writeLimitWhole(() => writeLimit(mb));
  const debugEnabled = () => readExtensionSettings().debugEnvironment;
  // Setting errors already there when the window opens that no status bar item shows (they stop no
  // start, and the defaults apply meanwhile): said once now, as a change to one of them would be.
  void password.ready.then(async () => {
    const problems = await reload();
    const present = settings().errors.filter((e) => e.services.length === 0).map((e) => failure('setting', e.message, { setting: e.key }));
    for (const problem of [...present, ...problems]) showOutcome(problem, deps);
  });
  // Services on an address other machines reach: said once per service and address ("Don't Show Again" per workspace).
  const exposure = new ExposureAlerts(deps, dataIdle, context.workspaceState);
  context.subscriptions.push(
    target, accounts, statusBar, connectionEnv, terminal, watcher, memoryPanel, memoryAlerts, password,
    exposure, watchPasswordSetting(password, context.globalState),
    DebugEnvironment.register(connectionEnv, debugEnabled, log, emulator),
    FunctionsStorage.register(new FunctionsStorage(emulator, connectionEnv, debugEnabled, deps, log, () => target.attached())),
    AzuriteTaskProvider.register(emulator, deps, (kinds, signal) => snapshots.reset({ skipConfirmation: true }, kinds, signal), () => target.attached()),
  );
  stopOnDeactivate = () => emulator.dispose();
  context.subscriptions.push(
    emulator.onDidFindUnfinishedSave((u) => void notify('warning', unfinishedSaveMessage(u))),
    // As a failure: Open Settings when the reason names a setting (the heap limit after an out-of-memory).
    emulator.onDidLoseEngine((loss) => showOutcome(failure('engine', loss.message, { setting: loss.setting }), deps)),
    // Disk mode: Open Settings opens azurite.location, the data folder the message is about.
    emulator.onDidLoseService((loss) => showOutcome(loss.failure, deps)),
  );
  context.subscriptions.push(warnWhenAzuriteArrives(channel));
  const autoStarted = autoStart(emulator, deps, (line) => log.info(line));
  // An Import, Reset or seed that this workspace's last window did not finish (it closed or reloaded under it).
  const stopLooking = new AbortController();
  context.subscriptions.push({ dispose: () => stopLooking.abort() });
  const interruptedAtActivation = snapshots.reportInterrupted(undefined, stopLooking.signal).catch((err: unknown) => {
    log.error(`Looking for data operations a closed window did not finish failed: ${(err as Error).message}`);
    return [];
  });
  // The extension's code cache holds what activation compiled: written once the warm-up has settled
  // (the extension host is idle then; the engine loads in its own process), or at once without it.
  void (warmedUp ?? Promise.resolve()).then(() => codeCache?.save());
  const activationMs = Math.round((performance.now() - started) * 10) / 10;
  // The time of this call, as before the entry point; loading the code comes before it (docs/ARCHITECTURE.md, "Activation").
  channel.info(`Activated in ${activationMs} ms${codeCache === undefined ? '' : ` (after loading the extension's code in ${codeCache.loadMs.toFixed(1)} ms)`}`);
  const api: ExtensionApi = { passive: false };
  if (context.extensionMode !== vscode.ExtensionMode.Test) return api;
  return {
    ...api,
    emulator,
    statusItems: () => statusBar.snapshot(),
    statusItemsShownBy: () => statusBar.revealedBy,
    terminalVariables: (folder) => terminal.values(folder),
    terminalDescription: (folder) => terminal.description(folder),
    terminalVariablesPersist: () => context.environmentVariableCollection.persistent,
    rescanLocalSettings: () => connectionEnv.rescan(),
    notifications: () => recordedNotifications(),
    notificationActions: (message) => recordedActions(message),
    progressShown: () => recordedProgress(),
    memoryPanelOpen: () => memoryPanel.isOpen,
    memoryPanelHtml: () => memoryPanel.html,
    memoryPanelRenders: () => memoryPanel.renderState,
    dataFolder,
    chooseDataFolder: (folder) => context.workspaceState.update(DATA_FOLDER_KEY, folder),
    dataFolderQuestions: dataFolderQuestionState,
    engineCodeCache: () => ({ state: emulator.engineLoadResult()?.codeCache, file: emulator.engineLoadResult()?.codeCacheFile }),
    settled: async () => { await autoStarted; await watcher.settled(); },
    dataIdle,
    dataOperations: () => snapshots.operations,
    interruptedOperations: async () => { await interruptedAtActivation; return snapshots.reportInterrupted(0); },
    settleInterrupted: (op, choice, args) => snapshots.settleInterrupted(op, choice, args),
    operationsStorage: () => (context.storageUri ?? context.globalStorageUri).fsPath,
    bindToLoopback: (kind) => bindToLoopback(kind, deps, dataIdle),
    answerExposure: (choice, services, host) => exposure.answer(choice, services, host),
    usePort: (kind, port) => usePortNow(kind, port, deps),
    raiseLimitTo: (mb) => writeLimitWhole(mb),
    useLocation: (folder) => useLocation(folder, deps),
    storedCertificatePassword: async (cert) => {
      const value = await context.secrets.get(cert === undefined ? PASSWORD_SECRET_KEY : passwordSecretKey(cert));
      return value === REMOVED_MARK ? undefined : value;
    },
    movePasswordToSecretStorage: () => movePasswordToSecretStorage(password),
    secretStorage: context.secrets,
    storageTree: (depth) => storageView.snapshot(depth),
    storageNode: (id) => storageView.node(id),
    storageDrop: (id, transfer) => storageView.handleDrop(storageView.node(id), transfer, new vscode.CancellationTokenSource().token),
    storedAccountKey: (name) => context.secrets.get(accountKeySecret(name)),
    accountsReady: () => accounts.ready,
    activationMs,
  };
}

/**
 * Starts the engine's warm-up {@link WARM_UP_DELAY_MS} after activation returns, on the engine's
 * thread. Resolves when it has finished or failed (a failure is logged: the next start tries again),
 * or when the extension is disposed first; never rejects.
 */
function warmUpAfterActivation(emulator: Emulator, context: vscode.ExtensionContext, log: { error(line: string): void }): Promise<void> {
  return new Promise<void>((resolve) => {
    const warm = setTimeout(() => {
      emulator.warmUp()
        .catch((err: Error) => log.error(`Engine warm-up failed (a start will try again): ${err.message}`))
        .finally(resolve);
    }, WARM_UP_DELAY_MS);
    context.subscriptions.push({ dispose: () => { clearTimeout(warm); resolve(); } });
  });
}

/**
 * Says, once per window, what happens when the Azurite extension is installed or enabled while this
 * extension runs (`vscode.extensions.onDidChange`): it cannot register the command ids this
 * extension holds, the services here keep running, and after a reload this extension stays passive
 * ({@link stayPassive}). Offers **Reload Window** and **Show Azurite Extension**.
 */
function warnWhenAzuriteArrives(channel: vscode.LogOutputChannel): vscode.Disposable {
  let warned = false;
  return vscode.extensions.onDidChange(() => {
    if (warned || vscode.extensions.getExtension(AZURITE_EXTENSION_ID) === undefined) return;
    warned = true;
    const message = 'The Azurite extension was just installed or enabled. It registers the same commands (azurite.start …) and uses the same ports as Storage Emulators, so it cannot run beside it in this window: Storage Emulators keeps running here. After a reload, Storage Emulators stays inactive and the Azurite extension runs. Disable the one you do not want.';
    channel.warn(message);
    void notify('warning', message, 'Reload Window', 'Show Azurite Extension').then((choice) => {
      if (choice === 'Reload Window') void vscode.commands.executeCommand('workbench.action.reloadWindow');
      else if (choice) void vscode.commands.executeCommand('workbench.extensions.search', `@id:${AZURITE_EXTENSION_ID}`);
    });
  });
}

/** Explains why (in each window it opens in), registers nothing: both extensions would claim the same command ids and ports. */
function stayPassive(channel: vscode.LogOutputChannel, terminalVariables: vscode.EnvironmentVariableCollection): { passive: true } {
  // Nothing of ours runs: terminals must not get a connection string to it (./ui/terminalEnvironment.ts).
  terminalVariables.persistent = false;
  terminalVariables.clear();
  // The Storage view and the commands only we have would show with nothing behind them.
  void vscode.commands.executeCommand('setContext', PASSIVE_CONTEXT_KEY, true);
  const message = 'The Azurite extension is installed and enabled. It registers the same commands (azurite.start …) and uses the same ports as Storage Emulators, so Storage Emulators stays inactive. Disable the Azurite extension and reload the window to use Storage Emulators.';
  channel.warn(message);
  void vscode.window.showWarningMessage(message, 'Show Azurite Extension').then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.extensions.search', `@id:${AZURITE_EXTENSION_ID}`);
  });
  return { passive: true };
}

/**
 * Stops every service; resolves when ports are free and every service's metadata is on disk
 * (Emulator.dispose). Never rejects. VS Code waits for it at most 5 s (extHostExtensionService
 * `terminate`: `Promise.race([timeout(5000), deactivateAll])`); a save cut short is reported at the
 * next start (src/emulator/shutdownMarker.ts).
 */
export function deactivate(): Promise<void> | undefined {
  const stop = stopOnDeactivate;
  stopOnDeactivate = undefined;
  if (stop === undefined) return undefined;
  shutdown = stop().catch((err: unknown) => console.error('[Azurite] shutdown failed:', err));
  return shutdown;
}
