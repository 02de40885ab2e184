/**
 * Test data commands: `Azurite: Export Snapshot…`, `Azurite: Import Snapshot…`, `Azurite: Reset`,
 * and `azurite.seed` loaded at each start. The work is done by the data layer (src/data/snapshot.ts,
 * loaded from dist/data.js on first use) through the Azure SDKs against the running services; this
 * file asks, confirms, shows progress with counts and lets the user cancel.
 *
 * Commands take an optional argument object for tests, keybindings and other extensions: `{
 * folder?: string, skipConfirmation?: boolean }` (`folder` resolved as `azurite.seed` is: `~`,
 * `${workspaceFolder}`, relative to the workspace folder; export and import ask for one without
 * it). Each resolves to an Outcome and never rejects.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { azuriteConfig, namedWorkspaceFolders, workspaceFolderPath } from '../config';
import { CANCELLED, failure, type Failure, type Outcome } from '../core/outcome';
import { resolveLocation } from '../core/settings';
import { SERVICE_KINDS, serviceName, type ServiceKind } from '../core/services';
import { serviceCommand } from '../core/commandIds';
import { endpointPort } from '../core/attach';
import { probePortHolder } from '../emulator/ports';
import { DEV_ACCOUNT_NAME, type ClientAddress, type StorageAccount } from '../core/connectionString';
import { resetFailureText, type AccountFailure } from '../core/resetMessage';
import type { Emulator } from '../emulator/emulator';
import type { DataCounts, StorageClients } from '../data/index';
import { dataLayer, type DataLayer } from './dataLayer';
import { notify, showOutcome } from './notify';
import { withDelayedProgress } from './progress';
import type { DataTarget } from './dataTarget';
import { attachAccountHint, describeRestError } from '../core/restErrors';
import { beginOperation, interruptedMessage, takeInterrupted, type InterruptedOperation, type OperationJournal, type OperationRun, type OperationStart } from './operationJournal';

/** Arguments the commands accept (all optional). */
export interface SnapshotCommandArgs {
  /** The snapshot folder, resolved as `azurite.seed` is (`~`, `${workspaceFolder}`, relative to the workspace folder); export and import ask for one when absent. */
  readonly folder?: string;
  /** Skip the confirmations (tests, tasks). */
  readonly skipConfirmation?: boolean;
}

/** What the commands need from the extension. */
export interface SnapshotDeps {
  readonly emulator: Emulator;
  /** Whose data export and import work on: the local emulator or the attached Azurite. */
  readonly target: DataTarget;
  readonly extensionPath: string;
  readonly log: { info(line: string): void; error(line: string): void };
  /** The folder chosen for data in a multi-root workspace, if any (relative paths are taken from it). */
  readonly dataFolder: () => string | undefined;
  /**
   * Where Import, Reset and the seed keep their journal, and an Import the copy of what it replaces
   * (src/ui/operationJournal.ts): the workspace's storage folder, or the global one in a window
   * without a folder.
   */
  readonly storagePath: string;
}

/**
 * The `azurite.seed` folder, resolved like `azurite.location` (VS Code's variables, `~`, relative to
 * the workspace folder: in a multi-root workspace the one chosen for data), or undefined when the
 * setting is empty.
 * @param chosenFolder the folder chosen for data in a multi-root workspace (config.ts DATA_FOLDER_KEY)
 * @returns `{ fix }` when the value cannot be resolved (core/settings.ts resolveLocation: an unknown
 *   variable or folder name, no folder open for `${workspaceFolder}`)
 */
export function seedFolder(chosenFolder?: string): string | { fix: string } | undefined {
  const raw = azuriteConfig().get<unknown>('seed');
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  return resolveUserFolder(raw, chosenFolder);
}

/**
 * A folder the user names (`azurite.seed`, the `folder` argument of Export and Import) resolved as
 * `azurite.seed` is: `~`, `${workspaceFolder}` and VS Code's other path variables expanded, a
 * relative path taken from the workspace folder (in a multi-root workspace, the one chosen for
 * data). A keybinding's or another extension's arguments reach the command with no variable
 * expanded: taken as they are, `${workspaceFolder}/x` was a folder of that name under the
 * extension host's working directory.
 * @returns the absolute path, or `{ fix }` (core/settings.ts resolveLocation)
 */
function resolveUserFolder(raw: string, chosenFolder?: string): string | { fix: string } {
  return resolveLocation(raw, { workspaceFolder: workspaceFolderPath(chosenFolder), workspaceFolders: namedWorkspaceFolders(), homeDir: os.homedir(), globalStoragePath: os.tmpdir(), rootHasAzuriteData: false, relativeNeedsFolder: true });
}

/** How messages name the operation a journal tells of. */
function operationName(journal: OperationJournal): string {
  return journal.operation === 'seed' ? 'seed' : journal.operation === 'import' ? 'Import' : 'Reset';
}

/** Test data commands and the seed; see the file comment. */
export class SnapshotCommands implements vscode.Disposable {
  private readonly dataChanged = new vscode.EventEmitter<void>();
  /**
   * Fires after an operation on an attached Azurite (azurite.attach) has ended, whatever its outcome:
   * it may have changed data there (an Import; an Export receives queue messages), and that Azurite
   * reports no changes, as the local engine does.
   */
  readonly onDidChangeAttachedData: vscode.Event<void> = this.dataChanged.event;

  constructor(private readonly deps: SnapshotDeps) {}

  /** The data operations under way (Reset, Import, Export). */
  private readonly busy = new Set<Promise<unknown>>();
  /** The last data operation asked for (never rejects): the next one runs once it has ended. */
  private last: Promise<unknown> = Promise.resolve();

  /**
   * Runs a data operation once the ones asked for before it have ended (one at a time: a Reset
   * during an Import, a task's reset say, would delete what the Import writes, and two Imports
   * would back up and roll back each other's items) and the local services' starts (their seed
   * included), stops and restarts under way have finished. Counts it as under way for {@link idle}.
   * @param name how the user knows it ("Export"), for the notice of {@link cancelWaiting}
   * @param signal once aborted, the waits end and the operation does not run (resolves to the
   *   cancelled outcome at once, and no longer counts as under way)
   */
  private held(name: string, operation: () => Promise<Outcome>, signal?: AbortSignal): Promise<Outcome> {
    const before = this.last;
    const others = this.busy.size > 0;
    // Why cancelWaiting() cancelled it, if it did.
    let dropped: string | undefined;
    const own = new AbortController();
    const cancel = (reason: string): void => { dropped = reason; own.abort(); };
    // An abort ends the waits at once (and their progress notifications with them).
    const aborted = new Promise<void>((resolve) => {
      own.signal.addEventListener('abort', () => resolve(), { once: true });
      if (signal?.aborted === true) resolve();
      else signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    const untilAborted = (wait: Promise<unknown>): Promise<unknown> => Promise.race([wait, aborted]);
    const isAborted = (): boolean => signal?.aborted === true || own.signal.aborted;
    const run = (async () => {
      if (others) await withDelayedProgress('Waiting for the Reset, Import or Export under way', false, () => untilAborted(before));
      // Cancellable by a Stop of a starting service only while it waits for the starts (not for
      // another operation: it then waits for that Stop too, and runs on what is left).
      this.waiting.add(cancel);
      try {
        if (!isAborted() && this.deps.target.isLocal()) {
          await withDelayedProgress('Waiting for the services to finish starting or stopping', false, () => untilAborted(this.deps.emulator.lifecycleSettled(SERVICE_KINDS)));
        }
      } finally {
        this.waiting.delete(cancel);
      }
      if (dropped !== undefined) {
        void notify('info', `Azurite: the ${name} asked for was not run: ${dropped}. Run it again once the services run.`);
        return CANCELLED;
      }
      // Nor once the window closes: the services stop under it, and what it did could not be undone.
      if (isAborted() || this.deps.emulator.shuttingDown) return CANCELLED;
      return operation();
    })();
    this.busy.add(run);
    // An attached Azurite sends no change events (the local engine does): the Storage view is told.
    void run.finally(() => { if (!this.deps.target.isLocal()) this.dataChanged.fire(); });
    // The next one waits for this one and for those before it: one ended early by an abort does
    // not let the next begin beside the one it waited for.
    this.last = Promise.allSettled([before, run]).then(() => undefined);
    void run.finally(() => this.busy.delete(run));
    return run;
  }

  dispose(): void {
    this.dataChanged.dispose();
  }

  /** How to cancel each operation still waiting to begin ({@link held}). */
  private readonly waiting = new Set<(reason: string) => void>();

  /**
   * Cancels the Reset, Import and Export operations waiting for the services' starts to end, each
   * saying so in a notification with `reason` ("Blob was stopped while it started"): what a Stop or
   * Clean of a service still starting does, since it cuts its seed short and then waits for the
   * operations, which wait for the start; once run, they would work on a service the user is
   * stopping. Operations under way, and those still waiting for another one, are not touched.
   */
  cancelWaiting(reason: string): void {
    for (const cancel of [...this.waiting]) cancel(reason);
  }

  /** How many Reset, Import and Export operations are under way or waiting for one before them. */
  get operations(): number {
    return this.busy.size;
  }

  /**
   * Resolves when no Reset, Import or Export is under way (those begun meanwhile included): what a
   * restart for a settings change waits for, so that it does not stop a service under one. Never rejects.
   */
  async idle(): Promise<void> {
    while (this.busy.size > 0) await Promise.allSettled([...this.busy]);
  }

  private data(): DataLayer {
    return dataLayer(this.deps.extensionPath);
  }

  /**
   * The SDK clients of one account of the local emulator (default the development account) for the
   * given running services.
   */
  private clients(kinds: readonly ServiceKind[], account?: StorageAccount): StorageClients {
    const addresses: Partial<Record<ServiceKind, ClientAddress>> = {};
    for (const kind of kinds) addresses[kind] = this.deps.emulator.clientAddress(kind);
    const data = this.data();
    return data.storageClients(data.emulatorEndpoints(addresses, account, this.deps.emulator.trustedCertificates(kinds)));
  }

  /** The SDK clients of the data target (attached, or the local running services). */
  private targetClients(kinds: readonly ServiceKind[]): StorageClients {
    const endpoints = this.deps.target.endpoints(kinds);
    if (endpoints === undefined) throw new Error('no service to work on');
    return this.data().storageClients(endpoints);
  }

  /** Whether `kinds` are this window's own services, each kept in memory: their data goes with the window. */
  private inMemory(kinds: readonly ServiceKind[]): boolean {
    return this.deps.target.isLocal() && kinds.every((k) => this.deps.emulator.isRunningInMemory(k));
  }

  /**
   * Runs `work` with a journal (src/ui/operationJournal.ts) that lets the next window say so if this
   * one closes or reloads before it ends. The journal is removed when the work ends, unless it
   * failed while the extension shuts down: the services stopping under it (a window that closes
   * stops them) make it fail, and it could not undo what it did either. A journal that cannot be
   * begun or removed (a full disk, a virus scanner holding it) is logged and does not fail the
   * work (`work` then gets no run); one that an Import cannot update before its first change
   * stops that Import before it changes anything (its copy would be unknown to the next window).
   */
  private async journaled<T>(start: OperationStart, work: (run: OperationRun | undefined) => Promise<T>): Promise<T> {
    const location = this.localDataFolder(start.kinds);
    const run = await beginOperation(this.deps.storagePath, { ...start, ...(location !== undefined ? { location } : {}) }).catch((err: unknown) => {
      this.deps.log.error(`No journal kept for this ${start.operation} (the next window cannot tell if it is cut short): ${(err as Error).message}`);
      return undefined;
    });
    const end = (): Promise<void> | undefined => run?.end().catch((err: unknown) => this.deps.log.error(`The journal in ${run.scratch} could not be removed (the next window reports the ${start.operation} as unfinished): ${(err as Error).message}`));
    let result: T;
    try {
      result = await work(run);
    } catch (err) {
      // Cut short by the window closing, an operation may have left something half done: the
      // journal stays for the next window. A seed aborted then has deleted what it loaded first.
      const undone = start.operation === 'seed' && err instanceof Error && err.name === 'AbortError';
      if (!this.deps.emulator.shuttingDown || undone) await end();
      throw err;
    }
    await end();
    return result;
  }

  /** Frees deleted content at once; only the local engine can (undefined while attached). */
  private reclaim(): (() => Promise<unknown>) | undefined {
    return this.deps.target.isLocal() ? () => this.deps.emulator.reclaimMemory().catch(() => 0) : undefined;
  }

  /**
   * Of `kinds`, those an attached Azurite serves: an endpoint `azurite.attach` names where nothing
   * listens (`UseDevelopmentStorage=true` names all three, a Blob-only container serves one) is left
   * out, with a note for the message, instead of failing the whole Export or Import after the SDK's
   * retries. Every kind is kept for the local emulator (its running services answer), and while a
   * proxy is set (the environment's or VS Code's `http.proxy`), which the probe does not go through.
   * @returns the kinds to work on, those left out, and the note ('' when none is left out)
   */
  private async answering(kinds: readonly ServiceKind[], verb: string): Promise<{ kinds: ServiceKind[]; leftOut: ServiceKind[]; note: string }> {
    const attached = this.deps.target.attached();
    // Through a proxy the SDK's clients reach what a direct probe may not: every kind is kept then.
    const proxied = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((v) => (process.env[v] ?? '') !== '') || (vscode.workspace.getConfiguration('http').get<string>('proxy') ?? '') !== '';
    if (attached === undefined || proxied) return { kinds: [...kinds], leftOut: [], note: '' };
    const silent: { kind: ServiceKind; where: string }[] = [];
    await Promise.all(kinds.map(async (kind) => {
      const url = new URL(attached[kind]!);
      const holder = await probePortHolder(url.hostname, endpointPort(url), 2000);
      if (holder.kind === 'none') silent.push({ kind, where: url.host });
    }));
    silent.sort((a, b) => SERVICE_KINDS.indexOf(a.kind) - SERVICE_KINDS.indexOf(b.kind));
    const note = silent.length === 0 ? '' : ` Not ${verb}: ${silent.map((s) => `${s.kind}/ (nothing answers at ${s.where}, which azurite.attach names for ${serviceName(s.kind)})`).join(', ')}.`;
    return { kinds: kinds.filter((k) => !silent.some((s) => s.kind === k)), leftOut: silent.map((s) => s.kind), note };
  }

  /**
   * The `folder` argument resolved ({@link resolveUserFolder}), undefined when absent (the command
   * asks), or a failure, shown, when it cannot be resolved or is not a string.
   */
  private folderArgument(command: 'Export' | 'Import', args: SnapshotCommandArgs): string | undefined | Outcome {
    const raw: unknown = args.folder;
    if (raw === undefined) return undefined;
    if (typeof raw !== 'string' || raw.trim() === '') return this.show(failure('data', `${command} failed: its folder argument must be a path (an absolute one, or relative to the workspace folder), not ${JSON.stringify(raw)}.`));
    const resolved = resolveUserFolder(raw, this.deps.dataFolder());
    return typeof resolved === 'string' ? resolved : this.show(failure('data', `${command} failed: its folder argument "${raw}" cannot be used: ${resolved.fix}`));
  }

  /**
   * The data folder `kinds` of this window's own services keep their data in, on disk (they share
   * one: azurite.location); undefined when attached or when one keeps it in memory.
   */
  private localDataFolder(kinds: readonly ServiceKind[]): string | undefined {
    if (!this.deps.target.isLocal() || kinds.length === 0 || kinds.some((k) => this.deps.emulator.isRunningInMemory(k))) return undefined;
    return this.deps.emulator.dataLocation(kinds[0]!);
  }

  /**
   * The refusal of an interrupted operation's action when the local services it worked on keep
   * their data elsewhere now: another folder (azurite.location, the folder chosen for data in a
   * multi-root workspace) or memory would get what was meant for that data. Undefined when the
   * journal names no folder (in memory, attached, or of an earlier version) or the same one. A
   * service not running counts with the settings a start would use.
   */
  private otherData(journal: OperationJournal, choice: string): Failure | undefined {
    if (journal.location === undefined) return undefined;
    const { emulator } = this.deps;
    const running = journal.kinds.every((k) => emulator.status(k).status === 'running');
    const here = running ? this.localDataFolder(journal.kinds) : emulator.options.inMemoryPersistence ? undefined : emulator.options.location;
    if (here === journal.location) return undefined;
    const names = journal.kinds.map(serviceName).join(', ');
    const keep = journal.kinds.length === 1 ? 'keeps its data' : 'keep their data';
    return failure('setting', `Azurite: ${choice} did nothing: that ${operationName(journal)} worked on the data in ${journal.location}, and ${names} ${keep} ${here === undefined ? 'in memory now (azurite.inMemoryPersistence)' : `in ${here} now (azurite.location, or the folder chosen for data)`}. Point ${journal.kinds.length === 1 ? 'it' : 'them'} back at that folder to work on it.`, { setting: here === undefined ? 'azurite.inMemoryPersistence' : 'azurite.location' });
  }

  /**
   * A failure, shown, when the data target is no longer `before` (DataTarget.identity): an
   * `azurite.attach` changed while a dialog was open (in another window, by Settings Sync, a
   * `git pull` of .vscode/settings.json). The command would otherwise read or write an Azurite the
   * user did not choose (a shared one, say); nothing was done yet.
   */
  private targetMoved(command: 'Export' | 'Import', before: string): Outcome | undefined {
    if (this.deps.target.identity() === before) return undefined;
    const now = this.deps.target.attached();
    return this.show(failure('state', `${command} stopped: azurite.attach changed while it waited (it now ${now === undefined ? 'names no other Azurite: the local emulator is the target' : `points at the Azurite at ${now.label}`}). Nothing was ${command === 'Export' ? 'exported' : 'imported'}; run it again to use that target.`, { setting: 'azurite.attach' }));
  }

  /** Where the data is, for messages: "the running Blob, Queue" or "the Azurite at host:port". */
  private where(kinds: readonly ServiceKind[]): string {
    const t = this.deps.target.attached();
    return t !== undefined ? `the Azurite at ${t.label}` : `the running ${kinds.map(serviceName).join(', ')}`;
  }

  /**
   * `azurite.seed` at a start (Emulator.setAfterStart): in memory mode the seed is loaded at every
   * start; on disk only into a service that holds no container, queue or table. Nothing else is
   * deleted (what a client made since the port opened stays); a seed that stops loading half-way
   * is deleted again.
   * The seed's read and its load are cancellable (their progress notifications' Cancel), and `signal` (a stop or clean of
   * the service, or the window closing; not a restart for a settings change) cuts it short too:
   * what it loaded is deleted again and the outcome is `cancelled`.
   * @returns ok when there is no seed or it loaded; a `data` failure naming the file and line, or a
   *   `setting` failure when the folder is missing
   */
  async seedAfterStart(kind: ServiceKind, inMemory: boolean, signal?: AbortSignal): Promise<Outcome> {
    const folder = seedFolder(this.deps.dataFolder());
    if (folder === undefined) return { ok: true };
    if (typeof folder !== 'string') return failure('setting', `azurite.seed: ${folder.fix}`, { setting: 'azurite.seed' });
    const unusable = seedFolderProblem(folder);
    if (unusable !== undefined) return unusable;
    // Set once the load begins: a cut-short before it (the read) has nothing to delete again.
    let loading = false;
    try {
      const data = this.data();
      const clients = this.clients([kind]);
      // A function, not a field read: the signal aborts across the awaits below.
      const cut = (): boolean => signal?.aborted === true;
      if (cut()) return this.seedCutShort(kind, folder);
      if (!inMemory && !(await data.isServiceEmpty(clients, kind))) {
        this.deps.log.info(`${serviceName(kind)}: seed not loaded, the service holds data (on disk, a seed is loaded only into an empty service).`);
        return { ok: true };
      }
      // Cancellable as the load is: a stop of the service need not wait for a large seed's read.
      const snapshot = await withDelayedProgress('Reading the seed', true, (options) => data.readSnapshot(folder, [kind], options.signal), signal);
      if (cut()) return this.seedCutShort(kind, folder);
      loading = true;
      // The service was empty (a fresh in-memory one, or checked above); a client may have made
      // something since its port opened, which stays. A seed that stops half-way is deleted again.
      const counts = await this.journaled({ operation: 'seed', folder, kinds: [kind], where: this.where([kind]), inMemory },
        // In memory, what a seed stopped half-way (at the memory limit, say) deleted again is freed at
        // once, as Reset and Import free it; not when a stop cut it short (the stop frees it, and a
        // reclaim would wait for a pause in clients' requests).
        () => withDelayedProgress(`Loading the seed into ${serviceName(kind)}`, true, (options) => data.loadSeed(clients, snapshot, { ...options, ...(inMemory ? { reclaim: async () => { if (signal?.aborted !== true) await this.reclaim()?.(); } } : {}) }), signal));
      this.deps.log.info(`${serviceName(kind)}: seed loaded from ${folder}: ${data.describeCounts(counts, [kind])}.`);
      return { ok: true };
    } catch (err) {
      if (err instanceof Error && err.name === 'AbortError') return this.seedCutShort(kind, folder, loading);
      return this.dataFailure(`The seed was not loaded into ${serviceName(kind)}`, folder, err, true);
    }
  }

  /** Logs that the seed of `kind` was cut short (a Cancel, a stop, the window closing) and returns CANCELLED. */
  private seedCutShort(kind: ServiceKind, folder: string, begun = false): Outcome {
    this.deps.log.info(`${serviceName(kind)}: seed from ${folder} not loaded: cut short${begun ? ', what it had loaded was deleted again' : ''}.`);
    return CANCELLED;
  }

  /** `Azurite: Export Snapshot…`: the running services' data into a folder. */
  exportSnapshot(args: SnapshotCommandArgs = {}): Promise<Outcome> {
    return this.held('Export', () => this.exportNow(args));
  }

  private async exportNow(args: SnapshotCommandArgs): Promise<Outcome> {
    const asked = this.deps.target.kinds();
    if (asked.length === 0) return this.nothingRuns('export');
    // The Azurite the command began on: azurite.attach may change while a dialog is open.
    const target = this.deps.target.identity();
    const given = this.folderArgument('Export', args);
    if (typeof given === 'object') return given;
    const folder = given ?? (await this.pickFolder('Export Here', 'Choose the folder for the snapshot (its blob/, queue/ and table/ are replaced)'));
    if (folder === undefined) return CANCELLED;
    // A service may have stopped while the dialog was open.
    const { kinds, note: silent } = await this.answering(this.deps.target.kinds().filter((k) => asked.includes(k)), 'exported');
    const moved = this.targetMoved('Export', target);
    if (moved !== undefined) return moved;
    if (kinds.length === 0) return silent !== '' ? this.show(failure('state', `Export failed: nothing to export.${silent}`, { setting: 'azurite.attach' })) : this.nothingRuns('export');
    const replaced = kinds.filter((k) => fs.existsSync(path.join(folder, k)));
    if (replaced.length > 0 && args.skipConfirmation !== true) {
      const choice = await vscode.window.showWarningMessage(`Replace the snapshot in ${folder}?`,
        { modal: true, detail: `Its ${replaced.map((k) => `${k}/`).join(', ')} will be replaced by the data of ${this.where(kinds)}. Other files stay.` }, 'Replace');
      if (choice !== 'Replace') return CANCELLED;
      const movedNow = this.targetMoved('Export', target);
      if (movedNow !== undefined) return movedNow;
    }
    try {
      // Inside: dist/data.js missing or broken (a damaged install) is a failure to show, not a rejection.
      const data = this.data();
      const counts = await withDelayedProgress('Exporting a snapshot', true, (options) => data.exportSnapshot(this.targetClients(kinds), folder, options));
      // Blobs left out under a name no blob had (DataCounts.unreadBlobs) make it a warning.
      // A snapshot holds the development account only (docs/SNAPSHOT.md); a Reset empties every account.
      const others = this.deps.target.isLocal() ? this.deps.emulator.accounts().slice(1).map((a) => a.name) : [];
      const leftOut = others.length > 0 ? ` The other accounts (${others.join(', ')}, azurite.accounts) are not in a snapshot.` : '';
      // A service that is not running keeps its folder from before: an Import would load it with the new data.
      const older = SERVICE_KINDS.filter((k) => !kinds.includes(k) && fs.existsSync(path.join(folder, k)));
      const kept = older.length > 0 ? ` Its ${older.map((k) => `${k}/`).join(', ')} ${older.length === 1 ? 'is' : 'are'} from before (${older.map(serviceName).join(', ')} ${this.deps.target.isLocal() ? 'not running' : 'not exported'}).` : '';
      const from = this.deps.target.isLocal() ? '' : ` from ${this.where(kinds)}`;
      void notify(counts.unreadBlobs !== undefined && counts.unreadBlobs.length > 0 || older.length > 0 || silent !== '' ? 'warning' : 'info', `Snapshot exported to ${folder}${from}: ${data.describeCounts(counts, kinds)}.${silent}${kept}${leftOut}`);
      return { ok: true };
    } catch (err) {
      return this.show(this.dataFailure('Export failed', folder, err));
    }
  }

  /**
   * `Azurite: Import Snapshot…`: a snapshot folder into the running services, replacing items of the same names.
   * @param only the services to import into, of those running (Import Again: those of the Import cut short); all when undefined
   */
  importSnapshot(args: SnapshotCommandArgs = {}, only?: readonly ServiceKind[]): Promise<Outcome> {
    return this.held('Import', () => this.importNow(args, only));
  }

  private async importNow(args: SnapshotCommandArgs, only: readonly ServiceKind[] | undefined): Promise<Outcome> {
    const asked = this.deps.target.kinds().filter((k) => only === undefined || only.includes(k));
    if (asked.length === 0) return this.nothingRuns('import');
    // The Azurite the command began on: azurite.attach may change while a dialog is open.
    const target = this.deps.target.identity();
    const given = this.folderArgument('Import', args);
    if (typeof given === 'object') return given;
    const folder = given ?? (await this.pickFolder('Import', 'Choose a snapshot folder (with blob/, queue/, table/)'));
    if (folder === undefined) return CANCELLED;
    // A folder one level off (its blob/ chosen), moved or mistyped would import nothing and say
    // "imported": refused, naming what a snapshot folder holds.
    const notSnapshot = notASnapshotFolder(folder);
    if (notSnapshot !== undefined) return this.show(failure('data', `Import failed: ${notSnapshot}`));
    // A service may have stopped while the dialog was open.
    const { kinds, leftOut, note: silent } = await this.answering(this.deps.target.kinds().filter((k) => asked.includes(k)), 'imported');
    const moved = this.targetMoved('Import', target);
    if (moved !== undefined) return moved;
    if (kinds.length === 0) return silent !== '' ? this.show(failure('state', `Import failed: nothing to import into.${silent}`, { setting: 'azurite.attach' })) : this.nothingRuns('import');
    // Where the clients made next write, as the journal names it for the next window.
    const where = this.where(kinds);
    const inMemory = this.inMemory(kinds);
    try {
      const data = this.data();
      const clients = this.targetClients(kinds);
      // Reading a large snapshot and listing what it would replace can take seconds: shown, and
      // cancellable.
      const { snapshot, conflicts } = await withDelayedProgress('Reading the snapshot', true, async (options) => {
        const read = await data.readSnapshot(folder, kinds, options.signal);
        return { snapshot: read, conflicts: await data.importConflicts(clients, read, options.signal) };
      });
      const names = [...conflicts.containers.map((n) => `container ${n}`), ...conflicts.queues.map((n) => `queue ${n}`), ...conflicts.tables.map((n) => `table ${n}`)];
      if (names.length > 0 && args.skipConfirmation !== true) {
        const shown = names.length > 12 ? [...names.slice(0, 12), `… and ${names.length - 12} more`] : names;
        const choice = await vscode.window.showWarningMessage(`Replace ${names.length} item${names.length === 1 ? '' : 's'} with the snapshot's?`,
          { modal: true, detail: `These exist in ${where} and will be replaced:\n${shown.join('\n')}\nEverything else stays.` }, 'Replace');
        if (choice !== 'Replace') return CANCELLED;
      }
      // The clients write where the command began, not where azurite.attach now points.
      const movedNow = this.targetMoved('Import', target);
      if (movedNow !== undefined) return movedNow;
      // What the user was asked about is all it may replace (a client may make more meanwhile).
      const confirmed = args.skipConfirmation !== true ? { confirmed: conflicts } : {};
      const counts = await this.journaled({ operation: 'import', folder, kinds, where, inMemory }, (run) =>
        withDelayedProgress('Importing a snapshot', true, (options) => data.importSnapshot(clients, snapshot, run?.scratch ?? os.tmpdir(), { ...options, ...confirmed, reclaim: this.reclaim(), ...(run ? { changing: (backup: string) => run.changing(backup).catch((err: unknown) => {
          throw new Error(`the journal in ${run.scratch} that lets the next window tell an Import cut short could not be written (${(err as Error).message}); nothing was changed`);
        }) } : {}) })));
      // Parts of the snapshot for services that do not run were not read: say so, not nothing.
      const skipped = SERVICE_KINDS.filter((k) => !kinds.includes(k) && hasEntries(path.join(folder, k)));
      const why = (k: ServiceKind): string => only !== undefined && !only.includes(k) ? 'not part of the Import cut short'
        : this.deps.target.attached() !== undefined ? 'azurite.attach gives no endpoint for it' : 'the service is not running';
      const skippedElsewhere = skipped.filter((k) => !leftOut.includes(k));
      const notImported = skippedElsewhere.length === 0 ? '' : ` Not imported: ${skippedElsewhere.map((k) => `${k}/ (${why(k)})`).join(', ')}.`;
      const into = this.deps.target.isLocal() ? '' : ` into ${where}`;
      void notify(silent !== '' ? 'warning' : 'info', `Snapshot imported from ${folder}${into}: ${data.describeCounts(counts, kinds)}.${notImported}${silent}`);
      return { ok: true };
    } catch (err) {
      // Cancelled once it had changed data: its rollback ran, perhaps for a while; say how it ended.
      if ((err as { undone?: unknown } | undefined)?.undone === true) {
        void notify('info', `Import cancelled: what it had replaced or loaded in ${where} was put back as it was.`);
        return CANCELLED;
      }
      return this.show(this.dataFailure('Import failed', folder, err));
    }
  }

  /**
   * `Azurite: Reset`: empties the running services of every account (the development account and
   * `azurite.accounts`) and loads `azurite.seed` into the development account, without a restart
   * (ports and clients' connections stay).
   * @param kinds the services to reset (default: every running one)
   * @param signal aborts the reset (an `azurite` task ended by the user): before it begins (while it
   *   waits for another data operation) or while the seed is read, nothing is deleted; while the
   *   seed loads, as Cancel does (the services are left empty); while the services are emptied, not
   *   at all
   * @returns the outcome; the cancelled outcome after an abort
   */
  reset(args: SnapshotCommandArgs = {}, kinds?: readonly ServiceKind[], signal?: AbortSignal): Promise<Outcome> {
    return this.held('Reset', () => this.resetNow(args, kinds, signal), signal);
  }

  private async resetNow(args: SnapshotCommandArgs, kinds: readonly ServiceKind[] | undefined, signal: AbortSignal | undefined): Promise<Outcome> {
    const attached = this.deps.target.attached();
    if (attached !== undefined) {
      return this.show(failure('state', `Reset works on the local emulator; this window is attached to the Azurite at ${attached.label} (azurite.attach), which may be shared. Delete its data from the Storage view, or clear azurite.attach.`, { setting: 'azurite.attach' }));
    }
    const running = this.deps.emulator.runningKinds().filter((k) => kinds === undefined || kinds.includes(k));
    if (running.length === 0) return this.nothingRuns('reset');
    const folder = seedFolder(this.deps.dataFolder());
    if (folder !== undefined && typeof folder !== 'string') return this.show(failure('setting', `azurite.seed: ${folder.fix}`, { setting: 'azurite.seed' }));
    // Checked before anything is deleted: the confirmation promises the seed.
    const unusable = folder !== undefined ? seedFolderProblem(folder) : undefined;
    if (unusable !== undefined) return this.show(unusable);
    if (args.skipConfirmation !== true) {
      const choice = await vscode.window.showWarningMessage(`Reset ${running.map(serviceName).join(', ')}?`,
        { modal: true, detail: `Every container, queue and table${this.deps.emulator.accounts().length > 1 ? ' of every account' : ''} is deleted${folder !== undefined ? `, then the seed in ${folder} is loaded` : ''}. The services keep running on their ports.` }, 'Reset');
      if (choice !== 'Reset') return CANCELLED;
    }
    // Accounts whose emptying left an item (named whether the Reset then fails or is cancelled).
    const left: AccountFailure[] = [];
    const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
    // False while the seed is read: a cancel then leaves every service as it was.
    let emptying = false;
    try {
      const data = this.data();
      const seed = folder !== undefined ? await withDelayedProgress('Reading the seed', true, (options) => data.readSnapshot(folder, running, options.signal), signal) : undefined;
      // Ended (its task) while the read's last steps ran, which look at the signal no more: still
      // before anything is deleted.
      signal?.throwIfAborted();
      // Every account of the engine is emptied; the seed goes into the development account.
      const [development, ...others] = this.deps.emulator.accounts();
      const developmentName = development?.name ?? DEV_ACCOUNT_NAME;
      // Only loading the seed can be cancelled (the data layer then deletes it again); emptying cannot.
      const counts = await this.journaled({ operation: 'reset', folder: folder ?? '', kinds: running, where: this.where(running), inMemory: this.inMemory(running) }, () => withDelayedProgress('Resetting', seed !== undefined, async (options) => {
        // Nor while the journal was written.
        signal?.throwIfAborted();
        emptying = true;
        // An account whose emptying leaves an item does not stop the others; each is named after.
        for (const account of others) {
          await data.resetAccount(this.clients(running, account), undefined, { ...options, reclaim: this.reclaim() })
            .catch((err: unknown) => { left.push({ account: account.name, message: messageOf(err) }); });
        }
        let loaded: DataCounts;
        try {
          loaded = await data.resetAccount(this.clients(running), seed, { ...options, reclaim: this.reclaim() });
        } catch (err) {
          // The other accounts' failures are named too, not dropped for the development account's.
          if (left.length === 0 || (err instanceof Error && err.name === 'AbortError')) throw err;
          throw new Error(resetFailureText([...left, { account: developmentName, message: messageOf(err) }]), { cause: err });
        }
        if (left.length > 0) throw new Error(resetFailureText(left, seed !== undefined ? developmentName : undefined));
        return loaded;
      }, signal));
      this.deps.log.info(`Reset ${running.map(serviceName).join(', ')}${seed !== undefined ? `; seed loaded: ${data.describeCounts(counts, running)}` : ''}.`);
      return { ok: true };
    } catch (err) {
      if (err instanceof Error && err.name === 'AbortError' && !emptying) {
        const message = `Reset cancelled while reading the seed in ${folder ?? ''}: nothing was deleted.`;
        this.deps.log.info(message);
        void notify('info', message);
        return CANCELLED;
      }
      if (err instanceof Error && err.name === 'AbortError') {
        const notEmptied = left.length > 0 ? ` Not emptied: ${resetFailureText(left)}` : '';
        const message = `Reset cancelled while loading the seed: ${running.map(serviceName).join(', ')} ${running.length === 1 ? 'is' : 'are'} empty; the seed in ${folder ?? ''} was not loaded.${notEmptied}`;
        this.deps.log.info(message);
        void notify('info', message);
        return CANCELLED;
      }
      return this.show(this.dataFailure('Reset failed', folder ?? '', err, true));
    }
  }

  /**
   * Says, in one notification each, which Imports, Resets and seeds loaded at a start did not finish
   * because their window closed or reloaded under them (src/ui/operationJournal.ts), with what
   * settles each: Import Again (and Restore Replaced Items from an Import's copy), Reset Again, or
   * Reset for a seed. Operations that another window (a process still running) runs are looked at
   * again every 2 s for up to `waitMs`. Never rejects.
   * @param waitMs how long to wait for the process of an operation under way to end (ms; default
   *   20 s: a reload's old extension host ends within it)
   * @param signal ends the looking (the extension deactivates)
   * @returns the interrupted operations found (each is found once)
   */
  async reportInterrupted(waitMs = 20_000, signal?: AbortSignal): Promise<InterruptedOperation[]> {
    const found: InterruptedOperation[] = [];
    const deadline = Date.now() + waitMs;
    while (signal?.aborted !== true) {
      const { interrupted, running } = await takeInterrupted(this.deps.storagePath);
      for (const i of interrupted) {
        found.push(i);
        void this.showInterrupted(i);
      }
      if (running === 0 || Date.now() >= deadline) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        signal?.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
      });
    }
    return found;
  }

  private async showInterrupted(op: InterruptedOperation): Promise<void> {
    const { journal, copy } = op;
    const message = interruptedMessage(journal, copy);
    this.deps.log.info(message);
    const actions = journal.operation === 'import' ? [IMPORT_AGAIN, ...(copy !== undefined ? [RESTORE_REPLACED] : [])] : [journal.operation === 'reset' ? RESET_AGAIN : RESET];
    const choice = await notify('warning', message, ...actions);
    if (choice !== undefined) await this.settleInterrupted(op, choice);
  }

  /**
   * Runs an action of an interrupted operation's notification: Import Again, Restore Replaced
   * Items, Reset Again or Reset. The local services it worked on that do not run are started first
   * (as their start commands do: asking for the data folder, errors shown), since a window opened
   * after a reload runs nothing unless `azurite.autoStart` says so.
   * @param choice one of {@link IMPORT_AGAIN}, {@link RESTORE_REPLACED}, {@link RESET_AGAIN}, {@link RESET}
   * @param args passed to the Import or Reset (tests: `skipConfirmation`)
   * @returns the outcome of the Import or Reset, or of what stopped it first (shown); never rejects
   */
  async settleInterrupted({ journal, copy }: InterruptedOperation, choice: string, args: SnapshotCommandArgs = {}): Promise<Outcome> {
    // What it worked on: another target since (azurite.attach set or cleared) would get data that is not its own.
    const now = this.where(journal.kinds);
    if (now !== journal.where) {
      return this.show(failure('setting', `Azurite: ${choice} did nothing: that ${operationName(journal)} worked on ${journal.where}, and this window works on ${now} now (azurite.attach). Set azurite.attach back to work on it.`, { setting: 'azurite.attach' }));
    }
    if (this.deps.target.isLocal()) {
      // Checked before the starts (which would load a seed into the other data) and after them (a
      // start may ask which workspace folder keeps the data).
      const elsewhere = this.otherData(journal, choice);
      if (elsewhere !== undefined) return this.show(elsewhere);
      const running = this.deps.emulator.runningKinds();
      const stopped = journal.kinds.filter((k) => !running.includes(k));
      for (const kind of stopped) {
        const [started] = (await vscode.commands.executeCommand<Outcome[] | undefined>(serviceCommand('start', kind))) ?? [CANCELLED];
        if (started !== undefined && !started.ok) return started;
      }
      const elsewhereNow = this.otherData(journal, choice);
      if (elsewhereNow !== undefined) return this.show(elsewhereNow);
    }
    // A seed's Reset loads the seed it names, not another set since.
    if (journal.operation === 'seed' || (journal.operation === 'reset' && journal.folder !== '')) {
      const seed = seedFolder(this.deps.dataFolder());
      const now = typeof seed === 'string' ? seed : undefined;
      if (now !== journal.folder) {
        return this.show(failure('setting', `Azurite: ${choice} did nothing: that ${operationName(journal)} loaded the seed in ${journal.folder}, and azurite.seed ${now === undefined ? 'names none now' : `names ${now} now`}. Set it back to finish it, or run Azurite: Reset to load the seed set now.`, { setting: 'azurite.seed' }));
      }
    }
    // Into the services it worked on only: others running now (an autostart of all three) would
    // get the rest of the snapshot, which that Import never meant to load.
    if (choice === IMPORT_AGAIN) return this.importSnapshot({ ...args, folder: journal.folder }, journal.kinds);
    if (choice === RESTORE_REPLACED && copy !== undefined) return this.importSnapshot({ ...args, folder: copy }, journal.kinds);
    return this.reset(args, journal.kinds);
  }

  /**
   * A failure for a data error: a snapshot file's problem keeps its file and line (and names
   * `azurite.seed` when `folder` is the seed's); others their message.
   */
  private dataFailure(what: string, folder: string, err: unknown, isSeed = false): Outcome {
    if (err instanceof Error && err.name === 'AbortError') return CANCELLED;
    const formatError = err instanceof Error && err.name === 'SnapshotFormatError' ? (err as Error & { file: string; line: number }) : undefined;
    if (formatError !== undefined) {
      const at = path.join(folder, ...formatError.file.split('/'));
      return failure('data', `${what}: ${at}${formatError.line > 0 ? `:${formatError.line}` : ''}: ${formatError.message.replace(/^[^:]+(:\d+)?: /, '')}`, { ...(isSeed ? { setting: 'azurite.seed' } : {}), file: { path: at, line: formatError.line } });
    }
    const message = (err as Error).message ?? String(err);
    // An Azurite that is not ours refuses the SDKs' newest API version unless told not to check it.
    const attached = this.deps.target.attached();
    const hint = attached === undefined ? ''
      : /API version .* is not supported/i.test(message) ? ' Start that Azurite with --skipApiVersionCheck: the Azure SDKs send a newer API version than it knows.'
        : attachAccountHint(err, attached);
    return failure('data', `${what}: ${describeRestError(err)}${hint}`);
  }

  /** Shows a failure (with "Open File" when it names a file, "Open Settings" when a setting) and returns it. */
  private show(outcome: Outcome): Outcome {
    showOutcome(outcome);
    return outcome;
  }

  private nothingRuns(verb: string): Outcome {
    const error = this.deps.target.attachError();
    if (error !== undefined) return this.show(failure('setting', error, { setting: 'azurite.attach' }));
    return this.show(failure('state', `Nothing to ${verb}: no storage service runs. Start Blob, Queue or Table first (Azurite: Start).`));
  }

  private async pickFolder(openLabel: string, title: string): Promise<string | undefined> {
    const seed = seedFolder(this.deps.dataFolder());
    const base = typeof seed === 'string' ? seed : workspaceFolderPath(this.deps.dataFolder());
    const picked = await vscode.window.showOpenDialog({
      canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel, title,
      ...(base !== undefined ? { defaultUri: vscode.Uri.file(base) } : {}),
    });
    return picked?.[0]?.fsPath;
  }
}

/** The actions of an interrupted operation's notification. */
export const IMPORT_AGAIN = 'Import Again';
export const RESTORE_REPLACED = 'Restore Replaced Items';
export const RESET_AGAIN = 'Reset Again';
export const RESET = 'Reset';

/** True when `dir` is a folder with something in it. */
function hasEntries(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

/**
 * Why `folder` cannot be imported as a snapshot: it does not exist, is not a folder, or holds none
 * of `blob/`, `queue/` and `table/` (docs/SNAPSHOT.md; Export writes each service's folder, even
 * empty). Undefined when it holds at least one of them.
 */
export function notASnapshotFolder(folder: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(folder);
  } catch {
    return `${folder} does not exist.`;
  }
  if (!stat.isDirectory()) return `${folder} is not a folder.`;
  const holds = SERVICE_KINDS.filter((k) => fs.statSync(path.join(folder, k), { throwIfNoEntry: false })?.isDirectory() === true);
  if (holds.length > 0) return undefined;
  const inside = SERVICE_KINDS.includes(path.basename(folder) as ServiceKind) ? ` It is a snapshot's ${path.basename(folder)}/ folder: choose ${path.dirname(folder)}.` : '';
  return `${folder} is not a snapshot folder: it holds none of blob/, queue/ and table/ (docs: Seed folders and snapshots).${inside}`;
}

/**
 * Why the seed folder `folder` (absolute) cannot be loaded, as a `setting` failure for
 * `azurite.seed`, or undefined when it can: it does not exist, or it is not a snapshot folder
 * ({@link notASnapshotFolder}: a folder one level off would load nothing, and a Reset would then
 * leave every service empty while saying the seed was loaded).
 */
function seedFolderProblem(folder: string): Failure | undefined {
  if (!fs.existsSync(folder)) return failure('setting', `azurite.seed is ${folder}, which does not exist: create it (docs: Seed folders and snapshots) or clear the setting.`, { setting: 'azurite.seed' });
  const problem = notASnapshotFolder(folder);
  return problem !== undefined ? failure('setting', `azurite.seed: ${problem}`, { setting: 'azurite.seed' }) : undefined;
}
