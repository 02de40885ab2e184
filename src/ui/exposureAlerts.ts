/**
 * A service that starts on an address other machines can reach (anything but loopback: 0.0.0.0, a LAN
 * address, a host name) is said so once for that address (not again at each restart), because the
 * development account's key is public: anyone who reaches the port can read and change the data.
 * Services that start together (an autostart of all three) are named in one notification. It
 * offers "Bind to 127.0.0.1", which writes `azurite.<kind>Host` where the user set it and restarts
 * the service (after asking, when the restart would drop in-memory data, and after a Reset, Import
 * or Export under way), and "Don't Show Again", which this workspace remembers for those services
 * on that address (their status bar items stay yellow).
 */
import * as vscode from 'vscode';
import { azuriteConfig, readExtensionSettings, settingTargetOf } from '../config';
import { exposureNotice, isLoopbackHost, type ExposedService } from '../core/hosts';
import type { Outcome } from '../core/outcome';
import { SERVICE_KINDS, type ServiceKind } from '../core/services';
import { notify, showOutcome, updateSetting, type NotifyDeps } from './notify';

/** The action on the notification that binds the services it names to loopback. */
export const BIND_TO_LOOPBACK = 'Bind to 127.0.0.1';
/** The action on the notification after which this workspace no longer shows it for those services on that address. */
export const DONT_SHOW_AGAIN = 'Don\'t Show Again';
/** workspaceState key: the services and addresses whose notice was answered "Don't Show Again" (`"<kind> <host>"` strings). */
export const EXPOSURE_ACCEPTED_KEY = 'azurite.exposureAccepted';

/**
 * Notifies when services start on a non-loopback address, once for each service and address:
 * the restarts of a Clean, a Reset or a settings change on the same address say nothing more (the
 * status bar item stays yellow). A start on loopback, or the host setting set back to loopback,
 * ends it: a later start on such an address notifies again, unless this workspace answered
 * "Don't Show Again" for that service and address. The notice waits until every start under way
 * listens (not for seeds), so that the services an autostart starts together share one.
 */
export class ExposureAlerts implements vscode.Disposable {
  private readonly subscriptions: { dispose(): void }[];
  /** Per service, the non-loopback host it was last said (or meant) to listen on. */
  private readonly notified = new Map<ServiceKind, string>();
  /** Services that started on a non-loopback host and wait for the others' starts to end. */
  private readonly pending = new Map<ServiceKind, ExposedService & { readonly host: string }>();

  /**
   * @param dataIdle resolves when no Reset, Import or Export is under way (see {@link bindToLoopback})
   * @param state where "Don't Show Again" is remembered (the workspace's state)
   */
  constructor(private readonly deps: NotifyDeps, private readonly dataIdle: () => Promise<void>, private readonly state: vscode.Memento) {
    // Set back to loopback, even while stopped: a later start on another address warns again.
    const hostSetting = vscode.workspace.onDidChangeConfiguration((e) => {
      for (const kind of [...this.notified.keys()]) {
        if (e.affectsConfiguration(`azurite.${kind}Host`) && isLoopbackHost(azuriteConfig().get<string>(`${kind}Host`) ?? '127.0.0.1')) this.notified.delete(kind);
      }
    });
    const states = deps.emulator.onDidChangeState(({ kind, state }) => {
      if (state.status === 'running') {
        const { host, port } = state.endpoint;
        if (isLoopbackHost(host)) {
          this.notified.delete(kind);
        } else if (this.notified.get(kind) !== host) {
          this.notified.set(kind, host);
          if (!this.accepted().includes(acceptedKey(kind, host))) this.pending.set(kind, { kind, port, host });
        }
      }
      this.showWhenStartsEnd();
    });
    const starts = deps.emulator.onDidChangeStartsUnderWay(() => this.showWhenStartsEnd());
    this.subscriptions = [hostSetting, states, starts];
  }

  /**
   * Runs what a button of the notification runs: "Bind to 127.0.0.1" binds each service in turn
   * (each outcome shown as a failure would be), "Don't Show Again" remembers the services on `host`
   * in this workspace; anything else (dismissed) does nothing.
   * @returns the outcomes of the binds (empty for another choice)
   */
  async answer(choice: string | undefined, services: readonly ExposedService[], host: string): Promise<Outcome[]> {
    if (choice === DONT_SHOW_AGAIN) {
      const keys = services.map((s) => acceptedKey(s.kind, host));
      await this.state.update(EXPOSURE_ACCEPTED_KEY, [...new Set([...this.accepted(), ...keys])]);
      return [];
    }
    if (choice !== BIND_TO_LOOPBACK) return [];
    const outcomes: Outcome[] = [];
    for (const { kind } of services) {
      const outcome = await bindToLoopback(kind, this.deps, this.dataIdle);
      showOutcome(outcome, this.deps);
      outcomes.push(outcome);
    }
    return outcomes;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }

  /** What "Don't Show Again" has remembered in this workspace. */
  private accepted(): readonly string[] {
    const value = this.state.get<unknown>(EXPOSURE_ACCEPTED_KEY);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  }

  /**
   * Shows the pending notices once every start under way listens (or has ended): not after a seed,
   * during which the service already takes connections from other machines.
   */
  private showWhenStartsEnd(): void {
    const { emulator } = this.deps;
    if (this.pending.size > 0 && emulator.startsUnderWay().every((k) => emulator.status(k).status === 'running')) this.showPending();
  }

  /** One notification per address for the pending services still running there, in service order. */
  private showPending(): void {
    const byHost = new Map<string, ExposedService[]>();
    for (const kind of SERVICE_KINDS) {
      const started = this.pending.get(kind);
      if (started === undefined) continue;
      const now = this.deps.emulator.status(kind);
      // Stopped meanwhile, or restarted elsewhere: the notice would be about what no longer is, and
      // a later start on that address says it.
      if (now.status !== 'running' || now.endpoint.host !== started.host) {
        if (this.notified.get(kind) === started.host) this.notified.delete(kind);
        continue;
      }
      byHost.set(started.host, [...(byHost.get(started.host) ?? []), { kind, port: now.endpoint.port }]);
    }
    this.pending.clear();
    for (const [host, services] of byHost) {
      void notify('warning', exposureNotice(services, host), BIND_TO_LOOPBACK, DONT_SHOW_AGAIN).then((choice) => this.answer(choice, services, host));
    }
  }
}

/** A service and address as {@link EXPOSURE_ACCEPTED_KEY} holds them. */
function acceptedKey(kind: ServiceKind, host: string): string {
  return `${kind} ${host}`;
}

/**
 * Sets `azurite.<kind>Host` to 127.0.0.1 in the most specific place it is set (workspace folder,
 * workspace, user settings) and restarts the service if it runs with its data on disk (the settings
 * watcher may already have: a restart under way is shared, one already done is not repeated). A
 * service that holds in-memory data is left to the settings watcher, which asks before a restart
 * drops that data (unless `azurite.restartOnConfigChange`). The restart waits, as the settings
 * watcher's does, until no Reset, Import or Export is under way: stopping the service under one
 * would break it and its rollback.
 * @param dataIdle resolves when no Reset, Import or Export is under way
 * @returns `{ ok: true }`, the restart's outcome, or a `setting` failure when the setting cannot be written
 */
export async function bindToLoopback(kind: ServiceKind, deps: NotifyDeps, dataIdle: () => Promise<void>): Promise<Outcome> {
  const key = `${kind}Host`;
  const written = await updateSetting(key, '127.0.0.1', settingTargetOf(key));
  if (!written.ok) return written;
  deps.reloadSettings();
  const { emulator } = deps;
  const leftToWatcher = (): boolean => emulator.isRunningInMemory(kind) && !readExtensionSettings().restartOnConfigChange;
  if (leftToWatcher()) return { ok: true };
  await dataIdle();
  // Asked again: the settings may have changed while a data operation ran.
  if (leftToWatcher()) return { ok: true };
  if (emulator.servicesNeedingRestart().includes(kind)) return emulator.restart(kind);
  return { ok: true };
}
