/**
 * The `azurite` task type: `{ "type": "azurite", "services": ["blob", "queue"] }` starts those
 * services (all three when `services` is left out) and completes once each one's port accepts a
 * TCP connection — usable as a launch configuration's `preLaunchTask` and in a test task's
 * `dependsOn`. `action` is `"start"` (the default) or `"reset"`: start the services if needed, then
 * empty them and load `azurite.seed` without a restart (what a test task runs first).
 *
 * A TaskProvider (provideTasks offers `azurite: start` and one per service; resolveTask runs the
 * ones users write in tasks.json) with a CustomExecution: a Pseudoterminal that prints one line per
 * step and closes with exit code 0, or 1 with the error message when a start fails, 2 when the task
 * definition is invalid. The extension activates on `onTaskType:azurite`, so the task works in a
 * window that has just opened. While `azurite.attach` is set, a start task starts nothing local: it
 * waits for the attached Azurite's endpoints to accept a connection (0), or says which does not (1);
 * with `services` left out it waits for the endpoints `azurite.attach` names.
 * Ending the task (Terminate Task, closing its terminal) begins nothing more: no start once the
 * data-folder question is answered, no reset still waiting for an Import, no more of a reset's seed.
 * A start's seed goes on: the start is the service's, shared with other callers.
 */
import * as vscode from 'vscode';
import { endpointUrl } from '../core/connectionString';
import { waitForPort } from '../emulator/ports';
import { isServiceKind, SERVICE_KINDS, serviceName, type ServiceKind } from '../core/services';
import type { Emulator } from '../emulator/emulator';
import type { NotifyDeps } from './notify';
import type { Outcome } from '../core/outcome';
import { endpointPort, type AttachTarget } from '../core/attach';

/** The task type (package.json `taskDefinitions`). */
export const AZURITE_TASK_TYPE = 'azurite';
/** Actions the task knows. */
export const TASK_ACTIONS = ['start', 'reset'] as const;
/** What a task does. */
export type TaskAction = (typeof TASK_ACTIONS)[number];

/** An `azurite` task's definition, as written in tasks.json. */
export interface AzuriteTaskDefinition extends vscode.TaskDefinition {
  readonly type: typeof AZURITE_TASK_TYPE;
  /** Services to start; all three when absent. */
  readonly services?: unknown;
  /** What to do; `"start"` when absent. */
  readonly action?: unknown;
}

/**
 * Empties the given running services and loads the seed; resolves to the outcome, never rejects.
 * `signal` aborts when the task is ended: a reset not yet begun does not run, a seed being loaded
 * stops (the services are left empty), an emptying under way goes on to its end.
 */
export type ResetRunner = (kinds: readonly ServiceKind[], signal: AbortSignal) => Promise<Outcome>;

/** How long a started service's port may take to accept a connection (ms). */
export const PROBE_TIMEOUT_MS = 10_000;

/**
 * Validates a definition.
 * @returns the services in status-bar order, or `{ error }` naming the field, the value and the fix
 */
export function parseTaskDefinition(d: AzuriteTaskDefinition): { kinds: ServiceKind[]; action: TaskAction } | { error: string } {
  if (d.action !== undefined && !(TASK_ACTIONS as readonly unknown[]).includes(d.action)) {
    return { error: `"action" is ${JSON.stringify(d.action)}; use ${TASK_ACTIONS.map((a) => `"${a}"`).join(' or ')} (or leave it out).` };
  }
  const action = (d.action ?? 'start') as TaskAction;
  if (d.services === undefined) return { kinds: [...SERVICE_KINDS], action };
  if (!Array.isArray(d.services) || d.services.length === 0 || !d.services.every(isServiceKind)) {
    return { error: `"services" is ${JSON.stringify(d.services)}; use a list of "blob", "queue", "table" (or leave it out for all three).` };
  }
  const services = d.services as ServiceKind[];
  return { kinds: SERVICE_KINDS.filter((k) => services.includes(k)), action };
}

/** Provides and runs `azurite` tasks. */
export class AzuriteTaskProvider implements vscode.TaskProvider {
  constructor(private readonly emulator: Emulator, private readonly deps: NotifyDeps, private readonly reset: ResetRunner, private readonly attached: () => AttachTarget | undefined) {}

  /**
   * Registers the provider; the disposable unregisters.
   * @param reset empties the given running services and loads the seed (SnapshotCommands.reset, no confirmation)
   * @param attached the Azurite this window is attached to (`azurite.attach`), if any: a start task
   *   then waits for its endpoints instead of starting the local emulator
   */
  static register(emulator: Emulator, deps: NotifyDeps, reset: ResetRunner, attached: () => AttachTarget | undefined): vscode.Disposable {
    return vscode.tasks.registerTaskProvider(AZURITE_TASK_TYPE, new AzuriteTaskProvider(emulator, deps, reset, attached));
  }

  /**
   * The tasks listed under "Run Task": start all, start each service, and reset; once per workspace
   * folder (one emulator serves them all). VS Code looks a launch's `preLaunchTask` and a task's
   * `dependsOn` up among the tasks of the launch's own folder: tasks of the workspace scope would be
   * found in the first folder only ("Could not find the task 'azurite: start'" in the others).
   */
  provideTasks(): vscode.Task[] {
    const scopes: (vscode.WorkspaceFolder | vscode.TaskScope)[] = vscode.workspace.workspaceFolders?.slice() ?? [vscode.TaskScope.Workspace];
    if (scopes.length === 0) scopes.push(vscode.TaskScope.Workspace);
    return scopes.flatMap((scope) => [
      this.task({ type: AZURITE_TASK_TYPE }, scope, 'start'),
      ...SERVICE_KINDS.map((k) => this.task({ type: AZURITE_TASK_TYPE, services: [k] }, scope, `start ${k}`)),
      this.task({ type: AZURITE_TASK_TYPE, action: 'reset' }, scope, 'reset'),
    ]);
  }

  /** A task of type `azurite` from tasks.json, made runnable with its definition; undefined for any other type. */
  resolveTask(task: vscode.Task): vscode.Task | undefined {
    if (task.definition.type !== AZURITE_TASK_TYPE) return undefined;
    return this.task(task.definition as AzuriteTaskDefinition, task.scope ?? vscode.TaskScope.Workspace, task.name);
  }

  private task(definition: AzuriteTaskDefinition, scope: vscode.WorkspaceFolder | vscode.TaskScope, name: string): vscode.Task {
    // No problem matchers, said as such ([]): without it "Run Task" first asks which matcher to scan the output with.
    const task = new vscode.Task(definition, scope, name, AZURITE_TASK_TYPE,
      // The definition as VS Code resolved it (`${config:…}`, `${input:…}` substituted) when given.
      new vscode.CustomExecution(async (resolved) => new StartTerminal(this.emulator, this.deps, (resolved ?? definition) as AzuriteTaskDefinition, this.reset, this.attached)), []);
    task.detail = definition.action === 'reset'
      ? 'Empty the storage emulator and load azurite.seed (starting it first if needed)'
      : 'Start the storage emulator and wait until its ports answer';
    task.isBackground = false;
    task.presentationOptions = { reveal: vscode.TaskRevealKind.Silent };
    return task;
  }
}

/** The task's terminal: starts, probes, reports, closes with the exit code. */
class StartTerminal implements vscode.Pseudoterminal {
  private readonly writer = new vscode.EventEmitter<string>();
  private readonly closer = new vscode.EventEmitter<number>();
  readonly onDidWrite = this.writer.event;
  readonly onDidClose = this.closer.event;
  private closed = false;
  /** Aborted when the user ends the task before its run has ended. */
  private readonly ended = new AbortController();

  constructor(
    private readonly emulator: Emulator,
    private readonly deps: NotifyDeps,
    private readonly definition: AzuriteTaskDefinition,
    private readonly reset: ResetRunner,
    private readonly attached: () => AttachTarget | undefined,
  ) {}

  open(): void {
    // Whatever fails, the task ends (a preLaunchTask that never ended would hold the debug session).
    void this.run().catch((err: unknown) => {
      this.line(`azurite task failed: ${err instanceof Error ? err.message : String(err)}`);
      return 1;
    }).then((code) => this.finish(code));
  }

  close(): void {
    // Ended by the user before the run ended: nothing more is begun (no start after the data-folder
    // question, no reset not yet begun, no more of a seed); what is under way ends, writing nothing.
    if (this.closed) return;
    this.closed = true;
    this.ended.abort();
    this.writer.dispose();
    this.closer.dispose();
  }

  private line(text: string): void {
    if (!this.closed) this.writer.fire(`${text}\r\n`);
  }

  private finish(code: number): void {
    if (this.closed) return;
    this.closed = true;
    this.closer.fire(code);
    this.writer.dispose();
    this.closer.dispose();
  }

  private async run(): Promise<number> {
    const parsed = parseTaskDefinition(this.definition);
    if ('error' in parsed) {
      this.line(`azurite task: ${parsed.error}`);
      return 2;
    }
    const names = parsed.kinds.map(serviceName).join(', ');
    const target = this.attached();
    if (target !== undefined) {
      // Left out, `services` means what the attached Azurite serves (a Blob-only container with a
      // preLaunchTask of "azurite: start"); named ones must each have an endpoint there.
      if (parsed.action === 'start') return this.awaitAttached(target, this.definition.services === undefined ? parsed.kinds.filter((k) => target[k] !== undefined) : parsed.kinds);
      // As Azurite: Reset says: an Azurite elsewhere may be shared, and a local start is refused.
      this.line(`Azurite: reset not run: this window is attached to the Azurite at ${target.label} (azurite.attach), which may be shared; Reset works on the local emulator. Delete its data from the Storage view, or clear azurite.attach.`);
      return 1;
    }
    // As autostart and the Functions pre-start: a start task gives way to the same service of another
    // Azurite already answering on its port (another window's, the CLI, a container), which serves
    // the workspace; starting ours would only fail on the taken port. The Emulator remembers it, so
    // the debug session after this preLaunchTask, and terminals, get its address
    // (Emulator.servedElsewhereKinds). A reset does not: it is ours.
    let toStart = parsed.kinds;
    if (parsed.action === 'start') {
      const elsewhere = await Promise.all(parsed.kinds.map((k) => this.emulator.servedElsewhere(k)));
      if (this.closed) return 1;
      parsed.kinds.forEach((k, i) => { if (elsewhere[i] !== undefined) this.line(`${serviceName(k)}: ${elsewhere[i]}; not started here.`); });
      toStart = parsed.kinds.filter((_, i) => elsewhere[i] === undefined);
      if (toStart.length === 0) {
        this.line(`Azurite: ${names} ready (served by another Azurite).`);
        return 0;
      }
    }
    this.line(`Starting ${toStart.map(serviceName).join(', ')} …`);
    // Nothing is asked when every service named runs (a preLaunchTask before each F5).
    const running = (k: ServiceKind): boolean => this.emulator.status(k).status === 'running';
    if (!toStart.every(running) && !(await this.deps.prepareStart())) {
      this.line('Cancelled: no folder was chosen for the emulator data.');
      return 1;
    }
    if (this.closed) return 1;
    // Attached while the data-folder question was open: waited for there instead, as above.
    const attachedNow = this.attached();
    if (attachedNow !== undefined && parsed.action === 'start') {
      this.line(`This window was attached to the Azurite at ${attachedNow.label} (azurite.attach) meanwhile: nothing local starts.`);
      return this.awaitAttached(attachedNow, this.definition.services === undefined ? parsed.kinds.filter((k) => attachedNow[k] !== undefined) : parsed.kinds);
    }
    const failedKinds: ServiceKind[] = [];
    await Promise.all(toStart.map(async (kind) => {
      const stopsBefore = this.emulator.stopsAsked(kind);
      // A start task gives way to another Azurite that began serving the port while the question
      // was open, or took it during the start (a reset does not: it is ours).
      const started = parsed.action === 'start' ? await this.emulator.startUnlessServed(kind) : { outcome: await this.emulator.start(kind) };
      if (this.closed) return;
      if ('servedElsewhere' in started) {
        this.line(`${serviceName(kind)}: ${started.servedElsewhere}; not started here.`);
        return;
      }
      const outcome = started.outcome;
      // A Stop or Clean asked for meanwhile cut the seed short too, and the service is about to
      // stop (its stop is queued behind the start, so it still reads as running): not started.
      if (this.emulator.stopsAsked(kind) !== stopsBefore) {
        failedKinds.push(kind);
        this.line(`${serviceName(kind)}: stopped while it started.`);
        return;
      }
      // A seed cancelled (its notification's Cancel) leaves the service running without it: started.
      const seedCancelled = !outcome.ok && outcome.reason === 'cancelled' && this.emulator.status(kind).status === 'running';
      if (seedCancelled) this.line(`${serviceName(kind)}: its seed was cancelled; the service runs without it.`);
      else if (!outcome.ok) {
        failedKinds.push(kind);
        this.line(`${serviceName(kind)}: ${outcome.message}`);
        return;
      }
      const address = this.emulator.clientAddress(kind);
      try {
        await waitForPort(address.host, address.port, PROBE_TIMEOUT_MS, this.ended.signal);
        this.line(`${serviceName(kind)}: answering at ${endpointUrl(address)}`);
      } catch (err) {
        failedKinds.push(kind);
        this.line(`${serviceName(kind)}: started, but ${(err as Error).message}`);
      }
    }));
    if (this.closed) return 1;
    const failed = failedKinds.length > 0;
    if (!failed && parsed.action === 'reset') {
      this.line(`Resetting ${names} …`);
      const outcome = await this.reset(parsed.kinds, this.ended.signal);
      if (this.closed) return 1;
      if (!outcome.ok) {
        this.line(`Azurite: reset failed: ${outcome.message}`);
        return 1;
      }
      this.line(`Azurite: ${names} reset.`);
      return 0;
    }
    this.line(failed ? `Azurite: not every service started: ${SERVICE_KINDS.filter((k) => failedKinds.includes(k)).map(serviceName).join(', ')} did not (see above).` : `Azurite: ${names} ready.`);
    return failed ? 1 : 0;
  }

  /**
   * While `azurite.attach` is set nothing local starts (as autostart and the Functions pre-start
   * give way): the task waits until the attached Azurite's endpoints of `kinds` accept a connection,
   * so that a shared `preLaunchTask` works for whoever is attached.
   * @returns 0 when each answers; 1 when one is not in the setting or does not answer
   */
  private async awaitAttached(target: AttachTarget, kinds: readonly ServiceKind[]): Promise<number> {
    this.line(`This window is attached to the Azurite at ${target.label} (azurite.attach): nothing local starts; waiting for its ${kinds.map(serviceName).join(', ')} …`);
    let failed = false;
    await Promise.all(kinds.map(async (kind) => {
      const endpoint = target[kind];
      if (endpoint === undefined) {
        failed = true;
        this.line(`${serviceName(kind)}: azurite.attach names no ${serviceName(kind)} endpoint.`);
        return;
      }
      const url = new URL(endpoint);
      try {
        await waitForPort(url.hostname, endpointPort(url), PROBE_TIMEOUT_MS, this.ended.signal);
        this.line(`${serviceName(kind)}: answering at ${endpoint}`);
      } catch (err) {
        failed = true;
        this.line(`${serviceName(kind)}: ${(err as Error).message} (is the Azurite at ${target.label} running?)`);
      }
    }));
    if (this.closed) return 1;
    this.line(failed ? 'Azurite: not every attached service answers.' : `Azurite: the attached ${kinds.map(serviceName).join(', ')} answer${kinds.length === 1 ? 's' : ''}.`);
    return failed ? 1 : 0;
  }
}
