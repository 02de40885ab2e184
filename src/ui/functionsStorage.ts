/**
 * Azure Functions projects whose local.settings.json points `AzureWebJobsStorage` at the
 * development storage get Blob, Queue and Table started before their debug session (as their
 * `func: host start` task run on its own starts: VS Code tells of a task only once its process
 * runs, so that host may find them still starting) — so the Functions host finds storage, and the Azure Functions
 * extension's pre-debug check (it pings the Blob endpoint of local.settings.json's
 * `AzureWebJobsStorage`, port 10000 for `UseDevelopmentStorage=true`, and otherwise offers to
 * install the Azurite extension) finds it running.
 *
 * Hooks, earliest first:
 * - `resolveDebugConfiguration` for the debug types the Azure Functions extension checks
 *   (node, python, debugpy, java, ballerina, PowerShell …). VS Code calls providers of one type in
 *   registration order, so this runs before the Functions check only when this extension activated
 *   first (hence the `workspaceContains:…local.settings.json` activation events).
 * - `resolveDebugConfiguration` for every type (`'*'`): VS Code calls `'*'` providers after the
 *   type's own, but before the preLaunchTask — so the func host always finds storage.
 * - `tasks.onDidStartTask` of a `func: host start` task run on its own (no debugger).
 * Starting is idempotent (a running service resolves `{ ok: true }`), so the hooks may overlap.
 * A service whose port the same service of another Azurite answers on (another window's, the CLI,
 * a container) is not started: that one serves the session (Emulator.servedElsewhere).
 * A question a launch raised and the user dismissed (the multi-root data folder) is not asked again
 * by these hooks until the last debug session has ended: not by the second debug hook (the first
 * marks the configuration, as VS Code hands each provider's result to the next; the mark is taken
 * off before the launch), nor by the `func: host start` the launch starts before its session (its
 * preLaunchTask, or the one `${command:azureFunctions.pickProcess}` starts while VS Code substitutes
 * the variables: the .NET template names no preLaunchTask), nor by the sessions a debugger starts
 * itself (js-debug's child session for the launched process, which waits for its configuration to
 * resolve), nor by a restart or another launch meanwhile. A `func: host start` run on its own after
 * such a launch (its preLaunchTask failed, say, so no session came of it) asks.
 * A child session a debugger starts itself (js-debug's `__pendingTargetId`: a process the program
 * spawned) starts nothing: its launch saw to the storage, and a service the user stopped since
 * (to try a retry path, say) stays stopped.
 * Off with `azurite.debugEnvironment: false`.
 */
import * as vscode from 'vscode';
import { isEmptyDebugConfiguration, startsTaskBeforeSession } from '../core/debugConfiguration';
import { SERVICE_KINDS, serviceName } from '../core/services';
import type { Emulator, EmulatorLog } from '../emulator/emulator';
import { CANCELLED, type Outcome } from '../core/outcome';
import type { ConnectionEnvironment } from './connectionEnvironment';
import { notify, showOutcome, type NotifyDeps } from './notify';
import { servesDevelopmentStorage, type AttachTarget } from '../core/attach';
import { COMMANDS } from '../core/commandIds';

/** Debug types the Azure Functions extension registers its pre-debug check for (vscode-azurefunctions src/extension.ts), plus coreclr and go. */
export const FUNCTIONS_DEBUG_TYPES = ['node', 'python', 'debugpy', 'java', 'ballerina', 'PowerShell', 'coreclr', 'go'] as const;

/** The Azure Functions extension's host task: `func: host start` (its hostStartTaskNameRegExp). */
export const FUNC_HOST_TASK = /func:\s*host start/i;

/** The property that marks a launch configuration whose storage was already seen to; never reaches the debugger. */
export const STORAGE_SEEN = '__azuriteStorageSeen';

/** True for the Functions host task (by name, or a `func` task whose command is `host start`). */
export function isFuncHostTask(task: vscode.Task): boolean {
  const d = task.definition as { type?: unknown; command?: unknown };
  return FUNC_HOST_TASK.test(task.name) || (d.type === 'func' && typeof d.command === 'string' && /^host start\b/.test(d.command));
}

/** Starts the storage services for Functions projects that use the development storage. */
export class FunctionsStorage implements vscode.DebugConfigurationProvider {
  constructor(
    private readonly emulator: Emulator,
    private readonly environment: ConnectionEnvironment,
    private readonly enabled: () => boolean,
    private readonly deps: NotifyDeps,
    private readonly log: EmulatorLog,
    /** The Azurite this window is attached to (`azurite.attach`), if any: then nothing local starts. */
    private readonly attached: () => AttachTarget | undefined,
  ) {}

  /** Registers the debug providers and the task listener; one disposable for all. */
  static register(storage: FunctionsStorage): vscode.Disposable {
    const types: readonly string[] = [...FUNCTIONS_DEBUG_TYPES, '*'];
    return vscode.Disposable.from(
      ...types.map((t) => vscode.debug.registerDebugConfigurationProvider(t, storage)),
      vscode.tasks.onDidStartTask((e) => {
        if (isFuncHostTask(e.execution.task) && !storage.coversTask()) void storage.ensure(folderOf(e.execution.task), `task "${e.execution.task.name}"`);
      }),
      vscode.tasks.onDidEndTaskProcess((e) => {
        // A task failing before the launch's `func: host start` started (a build it depends on): the
        // launch is over, and a later run of that task is one of its own.
        if (e.exitCode !== 0 && storage.dismissal?.preLaunchTask === true && storage.liveSessions.size === 0) storage.dismissal = { preLaunchTask: false };
      }),
      vscode.debug.onDidStartDebugSession((s) => storage.liveSessions.add(s.id)),
      vscode.debug.onDidTerminateDebugSession((s) => {
        storage.liveSessions.delete(s.id);
        if (storage.liveSessions.size === 0) storage.dismissal = undefined;
      }),
    );
  }

  /**
   * True when a `func: host start` task that starts now belongs to a launch whose question was
   * dismissed: while its debug sessions run, or as the first such task after it when it starts one
   * before its session (a preLaunchTask, that task or one it depends on, or the one
   * `${command:azureFunctions.pickProcess}` starts) and no task has failed since. Any other start
   * is a run of its own, which ends the dismissal and asks.
   */
  private coversTask(): boolean {
    if (this.dismissal === undefined) return false;
    if (this.liveSessions.size > 0) return true;
    if (this.dismissal.preLaunchTask) {
      this.dismissal = { preLaunchTask: false };
      return true;
    }
    this.dismissal = undefined;
    return false;
  }

  /**
   * VS Code's first pass over a launch (this provider is registered for the Functions debug types
   * and for '*'): before the session starts, starts what the folder's local.settings.json needs
   * ({@link ensure}), once per launch (the configuration comes back marked as seen). Never blocks
   * or cancels the launch: failures are shown and logged, and a dismissed question is remembered
   * so the launch's own task and child sessions do not ask again.
   * @returns the configuration, marked as seen (undefined is never returned)
   */
  async resolveDebugConfiguration(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration> {
    // F5 with no launch.json: the debugger's own provider (called after ours when it activated
    // later) makes the configuration, and some know the case only by an object with no keys. Left
    // as it is; the '*' pass, after every provider of the type, sees the one they made.
    if (isEmptyDebugConfiguration(config)) return config;
    if (config[STORAGE_SEEN] === true) return config; // the type's hook ran; this is the '*' one
    const seen = { ...config, [STORAGE_SEEN]: true };
    // With no session running this is a new launch (one that never got a session, its preLaunchTask
    // failed say, leaves no dismissal behind); with one running, a debugger's child session, a
    // restart or another launch while debugging.
    if (this.liveSessions.size === 0) this.dismissal = undefined;
    if (this.dismissal !== undefined) return seen;
    // A session the debugger starts itself for a process its launch runs (js-debug's child session
    // for a process the program spawns, or a worker restarted) belongs to a launch that saw to its
    // storage: a service the user stopped since stays stopped.
    if (this.liveSessions.size > 0 && config.__pendingTargetId !== undefined) return seen;
    const outcomes = await this.ensure(folder, `debug session "${String(config.name)}"`);
    if (outcomes.some((o) => !o.ok && o.reason === 'cancelled')) {
      this.dismissal = { preLaunchTask: startsTaskBeforeSession(config) };
    }
    return seen; // never blocks debugging
  }

  /**
   * Set when the question a debug launch raised was dismissed (`preLaunchTask`: the launch starts a
   * task before its session, a preLaunchTask or the one `${command:azureFunctions.pickProcess}`
   * starts, and its `func: host start` has not started yet); cleared when the last debug session
   * ends, by the next launch while none runs, and by a `func: host start` run of its own.
   */
  private dismissal: { preLaunchTask: boolean } | undefined;

  /** The ids of the debug sessions running now (VS Code's activeDebugSession is only the focused one). */
  private readonly liveSessions = new Set<string>();

  /** VS Code's last pass over a launch: takes the seen mark off, so the debugger never gets it. */
  resolveDebugConfigurationWithSubstitutedVariables(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration {
    if (!(STORAGE_SEEN in config)) return config;
    const rest: vscode.DebugConfiguration = { ...config };
    delete rest[STORAGE_SEEN];
    return rest;
  }

  /**
   * Starts Blob, Queue and Table when a local.settings.json (in `folder`, or anywhere when none)
   * points AzureWebJobsStorage at the development storage, unless the window is attached to an
   * Azurite elsewhere (that one serves it; the local emulator would refuse; when that Azurite is not
   * where `UseDevelopmentStorage=true` points, a warning says so once per attach value). Resolves when they
   * run or failed (failures are shown and logged); never rejects.
   * @returns the outcomes, [CANCELLED] when the question a start asks first was dismissed, or []
   *   when nothing needed starting
   */
  async ensure(folder: vscode.WorkspaceFolder | undefined, why: string): Promise<Outcome[]> {
    try {
      return await this.ensureOrThrow(folder, why);
    } catch (err) {
      // Never in the way of debugging: what failed is logged, and the session goes on.
      this.log.error(`Could not start the emulator for ${why}: ${(err as Error).message}`);
      return [];
    }
  }

  /** The attached Azurite (its label) already warned about in this window: said once per attach value. */
  private warnedAttached: string | undefined;

  private warnDevelopmentStorageMissesAttached(attached: AttachTarget): void {
    if (this.warnedAttached === attached.label) return;
    this.warnedAttached = attached.label;
    const message = developmentStorageMissesAttachedMessage(attached.label);
    this.log.error(message);
    void notify('warning', message, 'Copy Connection String').then((choice) => {
      if (choice) void vscode.commands.executeCommand(COMMANDS.copyConnectionString);
    });
  }

  private async ensureOrThrow(folder: vscode.WorkspaceFolder | undefined, why: string): Promise<Outcome[]> {
    if (!this.enabled()) return [];
    await this.environment.ready();
    if (!this.environment.needsDevelopmentStorage(folder)) return [];
    const attached = this.attached();
    if (attached !== undefined) {
      this.log.info(`Not starting the local emulator for ${why}: this window is attached to the Azurite at ${attached.label} (azurite.attach).`);
      const ports = Object.fromEntries(SERVICE_KINDS.map((k) => [k, this.emulator.clientAddress(k).port]));
      if (!servesDevelopmentStorage(attached, ports)) this.warnDevelopmentStorageMissesAttached(attached);
      return [];
    }
    // Another Azurite serving a service on its port (another window's, the CLI, a container) serves
    // the debug session too: starting ours would only fail on the taken port, at every F5. A service
    // of ours that is starting is waited for (start() shares a start under way); one stopping is
    // started again after.
    const notRunning = SERVICE_KINDS.filter((k) => this.emulator.status(k).status !== 'running');
    const elsewhere = await Promise.all(notRunning.map((k) => this.emulator.servedElsewhere(k)));
    elsewhere.forEach((e, i) => { if (e !== undefined) this.log.info(`Not starting ${serviceName(notRunning[i]!)} for ${why}: ${e}.`); });
    const kinds = notRunning.filter((_, i) => elsewhere[i] === undefined);
    // A service of ours that runs may still be loading azurite.seed inside its start: waited for (a
    // start of a running service shares the one under way, or resolves at once).
    const running = SERVICE_KINDS.filter((k) => this.emulator.status(k).status === 'running');
    await Promise.all(running.map((k) => this.emulator.start(k)));
    if (kinds.length === 0) return [];
    if (!(await this.deps.prepareStart())) return [CANCELLED];
    // Attached while the data-folder question was open: nothing local starts (as autoStart).
    const attachedNow = this.attached();
    if (attachedNow !== undefined) {
      this.log.info(`Not starting the local emulator for ${why}: this window was attached to the Azurite at ${attachedNow.label} (azurite.attach) while it asked.`);
      return [];
    }
    this.log.info(`Starting ${kinds.join(', ')} for ${why}: local.settings.json uses the development storage.`);
    // Probed again, as autoStart does: the data-folder question may have stayed open while another
    // window or the Azurite CLI began serving a port.
    const started = await Promise.all(kinds.map((k) => this.emulator.startUnlessServed(k)));
    const outcomes: Outcome[] = [];
    started.forEach((s, i) => {
      if ('servedElsewhere' in s) this.log.info(`Not starting ${serviceName(kinds[i]!)} for ${why}: ${s.servedElsewhere}.`);
      else outcomes.push(s.outcome);
    });
    outcomes.forEach((o) => showOutcome(o, this.deps));
    return outcomes;
  }
}

/**
 * Text of the warning that a local.settings.json's value for the local emulator
 * (`UseDevelopmentStorage=true`, or endpoints on the `azurite.*Port` ports) does not reach the Azurite
 * this window is attached to (at `label`).
 */
export function developmentStorageMissesAttachedMessage(label: string): string {
  return `A local.settings.json points AzureWebJobsStorage at the local emulator (UseDevelopmentStorage=true, which means 127.0.0.1:10000–10002, or this machine's azurite.*Port endpoints), but this window is attached to the Azurite at ${label} (azurite.attach), which that value does not reach. Set AzureWebJobsStorage to the attached Azurite's connection string: Copy Connection String gives it.`;
}

function folderOf(task: vscode.Task): vscode.WorkspaceFolder | undefined {
  return typeof task.scope === 'object' ? task.scope : undefined;
}
