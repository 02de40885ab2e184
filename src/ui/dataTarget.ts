/**
 * Whose data the Storage view, Export and Import work on: the local emulator's running services,
 * or, while `azurite.attach` is set, an Azurite that runs elsewhere (src/core/attach.ts). While
 * attached the local emulator does not start (Emulator.setStartBlocker) and, if it ran, is stopped,
 * so nothing runs unseen behind the attached item.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { ATTACH_SETTING, endpointPort, parseAttach, type AttachTarget } from '../core/attach';
import { OPEN_SETTINGS } from '../core/commandIds';
import { DEV_ACCOUNT, endpointUrl, type StorageAccount } from '../core/connectionString';
import { failure } from '../core/outcome';
import { reachesListener } from '../core/hosts';
import { SERVICE_KINDS, serviceName, type ServiceKind } from '../core/services';
import type { Emulator } from '../emulator/emulator';
import type { StorageEndpoints } from '../data/clients';
import { notify, showOutcome } from './notify';
import { withDelayedProgress } from './progress';

/** See the file comment. */
export class DataTarget implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the target changes: `azurite.attach` set or cleared, a local service started or stopped. */
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [];
  private parsed: AttachTarget | { error: string } | undefined;

  /**
   * @param dataIdle resolves when no Reset, Import or Export is under way: attaching stops the local
   *   services only then, since stopping one under a data operation would break it and its rollback
   */
  constructor(
    private readonly emulator: Emulator,
    private readonly log: { info(line: string): void; error(line: string): void },
    private readonly dataIdle: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.parsed = parseAttach(vscode.workspace.getConfiguration().get(ATTACH_SETTING));
    emulator.setStartBlocker(() => {
      const t = this.attached();
      return t === undefined ? undefined
        : failure('state', `Attached to the Azurite at ${t.label} (${ATTACH_SETTING}): it is started and stopped where it runs. Clear ${ATTACH_SETTING} to run the local emulator.`, { setting: ATTACH_SETTING });
    });
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(ATTACH_SETTING)) void this.reread();
      }),
    );
    // An attach refused for naming a local service applies once the local services have stopped:
    // not during a restart or a Clean (its stop, then its start), nor service by service. Looked at
    // when a state changes and when a start ends (one that failed ends after its `closed`).
    const stoppedForGood = (): boolean => this.refusedOwn && SERVICE_KINDS.every((k) => emulator.status(k).status === 'closed') && emulator.startsUnderWay().length === 0;
    const sub = emulator.onDidChangeState(() => {
      if (stoppedForGood()) void this.reread();
      else this.changed.fire();
    });
    const starts = emulator.onDidChangeStartsUnderWay(() => {
      if (stoppedForGood()) void this.reread();
    });
    // A service's certificate, read once it listens: its clients trust it from now on.
    const trust = emulator.onDidTrustCertificate(() => this.changed.fire());
    this.subscriptions.push({ dispose: () => sub.dispose() }, { dispose: () => starts.dispose() }, { dispose: () => trust.dispose() });
    this.report();
  }

  /** The attached Azurite, or undefined (not set, or set wrongly: see {@link attachError}). */
  attached(): AttachTarget | undefined {
    return this.parsed !== undefined && !('error' in this.parsed) ? this.parsed : undefined;
  }

  /** What is wrong with `azurite.attach`, when something is. */
  attachError(): string | undefined {
    return this.parsed !== undefined && 'error' in this.parsed ? this.parsed.error : undefined;
  }

  /** The services there is data to work on: the attached ones, or the local running ones. */
  kinds(): ServiceKind[] {
    const t = this.attached();
    return t !== undefined ? SERVICE_KINDS.filter((k) => t[k] !== undefined) : this.emulator.runningKinds();
  }

  /**
   * What the target is, as a string that changes whenever `azurite.attach` comes to name another
   * Azurite (or none: "local"): what a command that asked something re-checks before it acts, since
   * the setting may change while a dialog is open (another window, Settings Sync, a `git pull`).
   */
  identity(): string {
    const t = this.attached();
    return t === undefined ? 'local' : JSON.stringify([...SERVICE_KINDS.map((k) => t[k] ?? null), t.accountName]);
  }

  /** True while working on the local emulator (not attached). */
  isLocal(): boolean {
    return this.attached() === undefined;
  }

  /**
   * The accounts there is data in: the attached Azurite's one, or every account of the local engine
   * (the development account first, then `azurite.accounts`).
   */
  accounts(): StorageAccount[] {
    const t = this.attached();
    return t !== undefined ? [{ name: t.accountName, key: t.accountKey }] : this.emulator.accounts();
  }

  /**
   * The endpoints and key for the data layer (src/data/clients.ts), limited to `kinds` (default all
   * of {@link kinds}); undefined when there is nothing to work on.
   * @param accountName one of {@link accounts} (default the first: the development account, or the attached one)
   */
  endpoints(kinds: readonly ServiceKind[] = this.kinds(), accountName?: string): StorageEndpoints | undefined {
    const use = this.kinds().filter((k) => kinds.includes(k));
    if (use.length === 0) return undefined;
    const t = this.attached();
    if (t !== undefined) {
      if (accountName !== undefined && accountName !== t.accountName) return undefined;
      return { accountName: t.accountName, accountKey: t.accountKey, blob: use.includes('blob') ? t.blob : undefined, queue: use.includes('queue') ? t.queue : undefined, table: use.includes('table') ? t.table : undefined };
    }
    const account = accountName === undefined ? DEV_ACCOUNT : this.emulator.accounts().find((a) => a.name === accountName);
    if (account === undefined) return undefined;
    const url = (k: ServiceKind): string | undefined => (use.includes(k) ? endpointUrl(this.emulator.clientAddress(k), account.name) : undefined);
    const ca = this.emulator.trustedCertificates(use);
    return { accountName: account.name, accountKey: account.key, blob: url('blob'), queue: url('queue'), table: url('table'), ...(Object.keys(ca).length > 0 ? { ca } : {}) };
  }

  private async reread(): Promise<void> {
    const was = this.attached();
    this.parsed = this.refuseOwn(parseAttach(vscode.workspace.getConfiguration().get(ATTACH_SETTING)));
    this.report();
    const now = this.attached();
    // Terminals and debug sessions get nothing while attached (as with the local services stopped):
    // not the address of another Azurite a start here once gave way to.
    if (now !== undefined) this.emulator.forgetServedElsewhere();
    // Starting ones too (a start still loading the engine shows closed): stopAll() waits for their
    // start, which the start blocker may no longer stop.
    if (now !== undefined && was === undefined && (SERVICE_KINDS.some((k) => this.emulator.status(k).status !== 'closed') || this.emulator.startsUnderWay().length > 0)) {
      // The Storage view and the commands work on the attached Azurite from now on; a Reset, Import
      // or Export under way on the local services (with its own clients) ends first.
      this.changed.fire();
      await withDelayedProgress(`Attached to ${now.label}: the local services stop once the Reset, Import or Export under way is done`, false, this.dataIdle);
      // The setting may have changed again meanwhile.
      const still = this.attached();
      if (still === undefined) {
        this.changed.fire();
        return;
      }
      this.log.info(`Attached to ${still.label}: stopping the local services.`);
      const inMemory = SERVICE_KINDS.filter((k) => this.emulator.isRunningInMemory(k));
      const stopped = await this.emulator.stopAll();
      // A stop that failed (its final save) is said as a clicked one is: the item that would show it is hidden while attached.
      for (const outcome of stopped) showOutcome(outcome);
      // Said where it is seen: the stop was the setting's doing, not a click on a service.
      if (inMemory.length > 0) {
        void notify('warning', `Attached to the Azurite at ${still.label}: the local services stopped, and the in-memory data of ${inMemory.map(serviceName).join(' and ')} is gone.`);
      }
    }
    this.changed.fire();
  }

  /** Set while the setting is refused by {@link refuseOwn}: it is read again once every local service has stopped. */
  private refusedOwn = false;

  /**
   * An attach that names a service this window runs (`UseDevelopmentStorage=true` pasted while the
   * local Blob listens on 10000) becomes an error: attaching stops the local services, which would
   * leave nothing where it points, and in-memory data would be gone. A service still starting (or
   * stopping, or cleaning) counts with the address it is configured for, unless that is any free
   * port. Once every local service has stopped (none starting, restarting or cleaning), the setting
   * applies.
   */
  private refuseOwn(parsed: AttachTarget | { error: string } | undefined): AttachTarget | { error: string } | undefined {
    this.refusedOwn = false;
    if (parsed === undefined || 'error' in parsed) return parsed;
    const underWay = this.emulator.startsUnderWay();
    for (const kind of SERVICE_KINDS) {
      const configured = this.emulator.options.services[kind];
      const busy = underWay.includes(kind) || this.emulator.status(kind).status !== 'closed';
      const own = this.emulator.endpoint(kind) ?? (busy && configured.port !== 0 ? configured : undefined);
      const named = parsed[kind];
      if (own === undefined || named === undefined) continue;
      const url = new URL(named);
      if (endpointPort(url) === own.port && reachesListener(url.hostname, own.host, Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address)))) {
        this.refusedOwn = true;
        return { error: `${ATTACH_SETTING} names ${url.host}, where this window's own ${serviceName(kind)} service runs: attaching would stop it and leave nothing there. Clear ${ATTACH_SETTING} to go on with the local emulator, or stop the local services: it applies once they have stopped.` };
      }
    }
    return parsed;
  }

  /** The attach error last shown in a notification (not shown again until the setting changes to another). */
  private shownError: string | undefined;
  /** The attach notice ({@link AttachTarget.notice}) last shown, likewise. */
  private shownNotice: string | undefined;

  private report(): void {
    const error = this.attachError();
    if (error !== undefined) {
      this.log.error(error);
      // Not attached: everything works on the local emulator, which the user did not mean. Say so where it is seen.
      if (error !== this.shownError) {
        void notify('error', `${error} Until it is fixed, the local emulator is used.`, 'Open Settings').then((choice) => {
          if (choice === 'Open Settings') void vscode.commands.executeCommand(OPEN_SETTINGS, ATTACH_SETTING);
        });
      }
    }
    this.shownError = error;
    const t = this.attached();
    if (t !== undefined) this.log.info(`Attached to the Azurite at ${t.label} (account ${t.accountName}).`);
    // What may keep it from working (a dotted host name): a warning, once per text.
    const notice = t?.notice;
    if (notice !== undefined && notice !== this.shownNotice) {
      this.log.info(notice);
      void notify('warning', notice, 'Open Settings').then((choice) => {
        if (choice === 'Open Settings') void vscode.commands.executeCommand(OPEN_SETTINGS, ATTACH_SETTING);
      });
    }
    this.shownNotice = notice;
  }

  dispose(): void {
    this.emulator.setStartBlocker(undefined);
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
  }
}

