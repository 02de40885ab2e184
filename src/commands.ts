/**
 * Command ids and their registration. Ids are the Azurite extension's (`azurite.start`,
 * `azurite.start_blob`, … from azurite's package.json contributions) so keybindings, tasks and other
 * extensions that call them keep working; new commands are camelCase.
 *
 * Every command resolves (never rejects) so callers such as `vscode.commands.executeCommand` and
 * status bar clicks get a result: lifecycle commands resolve to the {@link Outcome}s they produced,
 * one per service. Start and close are idempotent, since other extensions call them without
 * checking first (docs/ARCHITECTURE.md, "Invariants"). On a service already in that state they resolve
 * `{ ok: true }` and show nothing; during a start, another start shares its outcome.
 */
import * as vscode from 'vscode';
import { COMMANDS, serviceCommand } from './core/commandIds';
import { attachConnectionString, type AttachTarget } from './core/attach';
import { endpointUrl, type StorageAccount } from './core/connectionString';
import { formatBytes, formatUsage, type MemoryReport } from './core/memory';
import { SERVICE_KINDS, serviceName, type ServiceKind } from './core/services';
import { azuriteConfig } from './config';
import type { Outcome } from './emulator/serviceManager';
import { ReclaimBusyError, type Emulator } from './emulator/emulator';
import { CANCELLED, failure } from './core/outcome';
import { notify, showOutcome, type NotifyDeps } from './ui/notify';
import { withDelayedProgress } from './ui/progress';

/** Options a caller may pass to `azurite.clean*`. */
export interface CleanArgs {
  /** Skip the confirmation dialog (for scripts and other extensions that already asked). */
  readonly skipConfirmation?: boolean;
}

export { COMMANDS, serviceCommand } from './core/commandIds';

/** What commands need from the rest of the extension. */
export interface CommandDeps extends NotifyDeps {
  /** Opens the memory usage view. */
  readonly showMemoryPanel: () => void;
  /**
   * `Azurite: Set Certificate Password` (./ui/certificatePassword.ts); a string argument is stored
   * without asking, and `('', { everyFile: true })` removes the password kept for every file too.
   */
  readonly setCertificatePassword: (given: unknown, options: unknown) => Promise<boolean>;
  /**
   * The local engine's accounts, the development account first (./ui/accounts.ts), once the
   * accounts of the current `azurite.accounts` are known (keys read from Secret Storage).
   */
  readonly accounts: () => Promise<readonly StorageAccount[]>;
  /** Where the accounts besides the development one come from, as a user names it (`azurite.accounts`, or the AZURITE_ACCOUNTS variable); read after {@link accounts}. */
  readonly accountsSource: () => string;
  /** The attached Azurite while `azurite.attach` is set (./ui/dataTarget.ts). */
  readonly attached: () => AttachTarget | undefined;
  /**
   * Asks which workspace folder keeps the data when a start would (a multi-root workspace, disk
   * mode, none chosen), and reads the settings again only when the answer changed the folder.
   * @returns false when the question was dismissed
   */
  readonly prepareClean: () => Promise<boolean>;
  /** Resolves when no Reset, Import or Export is under way: what a Clean or Close waits for, so that it does not restart or stop a service under one. Never rejects. */
  readonly dataIdle: () => Promise<void>;
  /** Cancels the Reset, Import and Export operations waiting for the services' starts to end, each saying `reason` (./ui/snapshotCommands.ts cancelWaiting). */
  readonly cancelWaitingData: (reason: string) => void;
}

/** What a caller may pass to `azurite.copyConnectionString`. */
export interface CopyConnectionStringArgs {
  /** The account (default: ask when there are several, else the development account). */
  readonly account?: string;
}

/** Registers every command; disposables go into `context.subscriptions`. */
export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const { emulator } = deps;
  const showError = (outcome: Outcome): void => showOutcome(outcome, deps);
  const reg = (id: string, fn: (...args: unknown[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  };

  const run = async (verb: 'start' | 'close', kinds: readonly ServiceKind[]): Promise<Outcome[]> => {
    // Attached (azurite.attach), a start is refused at once: nothing to ask first. Nor is anything
    // asked when every service named runs (the Functions extension's start before each F5).
    const running = (k: ServiceKind): boolean => emulator.status(k).status === 'running';
    if (verb === 'start' && !kinds.every(running) && deps.attached() === undefined && !(await deps.prepareStart())) {
      return kinds.map((k): Outcome => (running(k) ? { ok: true } : CANCELLED));
    }
    // A stopped service's close resolves at once; one that runs or is starting waits for the data operation.
    const toStop = kinds.filter((k) => emulator.status(k).status !== 'closed');
    if (verb === 'close' && toStop.length > 0) {
      cutStartsShort(toStop, 'stopped');
      await waitForData(toStop, 'stop');
    }
    const outcomes = await Promise.all(kinds.map((k) => (verb === 'start' ? emulator.start(k) : emulator.stop(k))));
    outcomes.forEach(showError);
    return outcomes;
  };

  // A Close or Clean of a service still starting: its seed is cut short now, and the data operations
  // waiting for the starts to end (that one, seed included) are cancelled, not waited for;
  // else the Close would wait for them, they for the whole seed, and they would then run on a
  // service about to stop. Operations under way are waited for (below).
  const cutStartsShort = (kinds: readonly ServiceKind[], verb: string): void => {
    const starting = emulator.startsUnderWay().filter((k) => kinds.includes(k));
    emulator.cutSeedShort(kinds);
    if (starting.length > 0) deps.cancelWaitingData(`${starting.map(serviceName).join(', ')} ${starting.length === 1 ? 'was' : 'were'} ${verb} while ${starting.length === 1 ? 'it' : 'they'} started`);
  };

  // A Close or Clean under a Reset, Import or Export would fail it half-way (its rollback then
  // runs against a stopped service): it waits, saying so after a second.
  const waitForData = (kinds: readonly ServiceKind[], what: string): Promise<void> =>
    withDelayedProgress(`${kinds.map(serviceName).join(', ')} ${what} once the Reset, Import or Export under way is done`, false, deps.dataIdle);

  const clean = async (asked: readonly ServiceKind[], args: unknown): Promise<Outcome[]> => {
    const skip = typeof args === 'object' && args !== null && (args as CleanArgs).skipConfirmation === true;
    // As Reset: what the window shows is the attached Azurite's data, which Clean would not touch.
    const attached = deps.attached();
    if (attached !== undefined) {
      const refused = failure('state', `Clean deletes the local emulator's data; this window is attached to the Azurite at ${attached.label} (azurite.attach), whose data it would not touch. Delete that data from the Storage view, or clear azurite.attach to clean the local emulator.`, { setting: 'azurite.attach' });
      showError(refused);
      return asked.map(() => refused);
    }
    // As a start: in a multi-root workspace the folder that keeps the data is asked for first (the
    // folder in force otherwise would be a guess, and Clean deletes there).
    if (!(await deps.prepareClean())) return asked.map(() => CANCELLED);
    // Refused before the confirmation, which would otherwise name a folder that is not the one meant.
    // (One notification: every service's refusal names the same setting.)
    const refusals = asked.map((k) => emulator.cleanRefusal(k));
    const firstRefusal = refusals.find((r) => r !== undefined);
    if (firstRefusal !== undefined) showError(firstRefusal);
    const kinds = asked.filter((_, i) => refusals[i] === undefined);
    if (kinds.length === 0) return refusals as Outcome[];
    if (!skip) {
      const names = kinds.map(serviceName).join(', ');
      const detail = kinds.map((k) => `${serviceName(k)}: ${emulator.cleanTarget(k)}`).join('\n');
      const choice = await vscode.window.showWarningMessage(
        `Delete all ${names} data? This cannot be undone.`,
        { modal: true, detail: `This deletes:\n${detail}\nRunning services are restarted empty${hasSeed() ? ', then azurite.seed is loaded into them' : ''}.` },
        'Clean',
      );
      if (choice !== 'Clean') return asked.map(() => CANCELLED);
    }
    // As for a Close: a seed still loading is cut short now, not after a data operation waiting for it.
    cutStartsShort(kinds, 'cleaned');
    await waitForData(kinds, 'clean');
    // Every clean is queued at once: a Reset, Import or Export asked for meanwhile waits for all of
    // them (Emulator.lifecycleSettled), not only for the one under way.
    const outcomes = await Promise.all(asked.map((k, i) => refusals[i] ?? emulator.clean(k)));
    outcomes.forEach((o, i) => { if (refusals[i] === undefined) showError(o); });
    return outcomes;
  };

  // Idempotent (Emulator.start/stop): a running service's start, and a stopped service's close,
  // resolve `{ ok: true }` and show nothing.
  reg(COMMANDS.start, () => run('start', SERVICE_KINDS));
  reg(COMMANDS.close, () => run('close', SERVICE_KINDS));
  reg(COMMANDS.clean, (args) => clean(SERVICE_KINDS, args));
  for (const kind of SERVICE_KINDS) {
    reg(serviceCommand('start', kind), () => run('start', [kind]));
    reg(serviceCommand('close', kind), () => run('close', [kind]));
    reg(serviceCommand('clean', kind), (args) => clean([kind], args));
  }

  // Resolves to the string copied, or undefined when the pick was dismissed or the account is unknown.
  reg(COMMANDS.copyConnectionString, async (args) => {
    const attached = deps.attached();
    const asked = typeof args === 'object' && args !== null ? (args as CopyConnectionStringArgs).account : undefined;
    if (attached !== undefined) {
      // The attached Azurite's one account is all there is: another one asked for is unknown.
      if (asked !== undefined && asked !== attached.accountName) {
        void notify('error', `Azurite: no account ${asked}. This window is attached to the Azurite at ${attached.label} (azurite.attach), whose account is ${attached.accountName}.`);
        return undefined;
      }
      const value = attachConnectionString(attached);
      await vscode.env.clipboard.writeText(value);
      void vscode.window.showInformationMessage('Connection string of the attached Azurite (azurite.attach) copied to the clipboard.');
      return value;
    }
    // Right after activation or a change of azurite.accounts, the keys may still be read.
    const accounts = await deps.accounts();
    let account = accounts[0]!;
    if (asked !== undefined) {
      const found = accounts.find((a) => a.name === asked);
      if (found === undefined) {
        void notify('error', `Azurite: no account ${asked}. The accounts are ${accounts.map((a) => a.name).join(', ')} (${accounts.length > 1 ? deps.accountsSource() : 'azurite.accounts adds more'}).`);
        return undefined;
      }
      account = found;
    } else if (accounts.length > 1) {
      const pick = await vscode.window.showQuickPick(
        accounts.map((a, i) => ({ label: a.name, description: i === 0 ? 'the development account (UseDevelopmentStorage=true)' : deps.accountsSource(), account: a })),
        { title: 'Copy the connection string of which account?' },
      );
      if (pick === undefined) return undefined;
      account = pick.account;
    }
    const value = emulator.connectionString(account);
    await vscode.env.clipboard.writeText(value);
    void notify('info', `Connection string${accounts.length > 1 ? ` of ${account.name}` : ''} copied to the clipboard. ${addressedNote(emulator)}`);
    return value;
  });

  reg(COMMANDS.copyEndpoints, async () => {
    const attached = deps.attached();
    if (attached !== undefined) {
      const kinds = SERVICE_KINDS.filter((k) => attached[k] !== undefined);
      const urls = kinds.map((k) => attached[k]!).join('\n');
      await vscode.env.clipboard.writeText(urls);
      void vscode.window.showInformationMessage(`Endpoint URLs of the attached Azurite (azurite.attach) for ${kinds.map(serviceName).join(', ')} copied to the clipboard.`);
      return urls;
    }
    const value = emulator.addressedKinds().map((k) => endpointUrl(emulator.clientAddress(k))).join('\n');
    await vscode.env.clipboard.writeText(value);
    void notify('info', `Endpoint URLs copied to the clipboard. ${addressedNote(emulator)}`);
    return value;
  });

  reg(COMMANDS.showMemoryUsage, async (): Promise<MemoryReport> => {
    deps.showMemoryPanel();
    return emulator.memoryReportNow().catch(() => emulator.memoryReport());
  });

  reg(COMMANDS.setCertificatePassword, (given, options) => deps.setCertificatePassword(given, options));

  reg(COMMANDS.reclaimMemory, async (): Promise<number> => {
    const attached = deps.attached();
    if (attached !== undefined) {
      void notify('info', `Azurite: nothing to reclaim here: the local services are stopped while this window is attached to the Azurite at ${attached.label} (azurite.attach), whose memory is its own.`);
      return 0;
    }
    if (!emulator.isMemoryInUse()) {
      void notify('info', 'Azurite: nothing to reclaim: neither Blob nor Queue runs in memory (azurite.inMemoryPersistence).');
      return 0;
    }
    let freed: number;
    try {
      // It waits for a pause in requests, up to 10 s per service: over a second, a notification says so.
      freed = await withDelayedProgress('Reclaiming memory (once the services pause between requests)', false, () => emulator.reclaimMemory());
    } catch (err) {
      // Resolves either way (every command does): the bytes freed before the failure, if any.
      if (err instanceof ReclaimBusyError) {
        void notify('warning', err.message);
        return err.freedBytes;
      }
      void notify('error', `Azurite could not reclaim memory: ${(err as Error).message}`);
      return 0;
    }
    void notify('info', `Azurite reclaimed ${formatBytes(freed)} of deleted blob and queue data; in use now: ${formatUsage(emulator.memoryReport())}.`);
    return freed;
  });
}

/**
 * What a copied connection string or URL list names (Emulator.addressedKinds): "Blob runs; Queue
 * served by another Azurite at its configured port; Table at its configured port (not running).",
 * and why a service is left out (port 0).
 */
function addressedNote(emulator: Emulator): string {
  const kinds = emulator.addressedKinds();
  const elsewhere = new Set(emulator.servedElsewhereKinds());
  const running = kinds.filter((k) => emulator.endpoint(k) !== undefined);
  const served = kinds.filter((k) => emulator.endpoint(k) === undefined && elsewhere.has(k));
  const waiting = kinds.filter((k) => emulator.endpoint(k) === undefined && !elsewhere.has(k));
  const left = SERVICE_KINDS.filter((k) => !kinds.includes(k));
  const parts = [
    ...(running.length > 0 ? [`${running.map(serviceName).join(', ')} ${running.length === 1 ? 'runs' : 'run'}`] : []),
    ...(served.length > 0 ? [`${served.map(serviceName).join(', ')} served by another Azurite at ${served.length === 1 ? 'its' : 'their'} configured port${served.length === 1 ? '' : 's'}`] : []),
    ...(waiting.length > 0 ? [`${waiting.map(serviceName).join(', ')} at ${waiting.length === 1 ? 'its' : 'their'} configured port${waiting.length === 1 ? '' : 's'} (not running${waiting.some((k) => emulator.clientAddress(k).port === 0) ? '; port 0 is chosen at the start: start it first' : ''})`] : []),
    ...(left.length > 0 ? [`${left.map(serviceName).join(', ')} left out until ${left.length === 1 ? 'it runs' : 'they run'} (port 0: any free port)`] : []),
  ];
  return `${parts.join('; ')}.`;
}

/** True when `azurite.seed` names a folder (blank counts as unset, as for the seed itself). */
function hasSeed(): boolean {
  const seed = azuriteConfig().get<unknown>('seed');
  return typeof seed === 'string' && seed.trim() !== '';
}
