/**
 * A service that starts on an address other machines can reach (anything but loopback: 0.0.0.0, a LAN
 * address, a host name) is said so once for that address (not again at each restart), because the development account's key is public:
 * anyone who reaches the port can read and change the data. The notification offers "Bind to
 * 127.0.0.1", which writes `azurite.<kind>Host` where the user set it and restarts the service (after
 * asking, when the restart would drop in-memory data, and after a Reset, Import or Export under way).
 */
import * as vscode from 'vscode';
import { azuriteConfig, readExtensionSettings, settingTargetOf } from '../config';
import { exposureNotice, isLoopbackHost } from '../core/hosts';
import type { Outcome } from '../core/outcome';
import type { ServiceKind } from '../core/services';
import { notify, showOutcome, updateSetting, type NotifyDeps } from './notify';

/** The action on the notification. */
export const BIND_TO_LOOPBACK = 'Bind to 127.0.0.1';

/**
 * Notifies when a service starts on a non-loopback address, once for that service and address:
 * the restarts of a Clean, a Reset or a settings change on the same address say nothing more (its
 * status bar item stays yellow). A start on loopback, or its host setting set back to loopback,
 * ends it: a later start on such an address notifies again.
 */
export class ExposureAlerts implements vscode.Disposable {
  private readonly subscriptions: { dispose(): void }[];
  /** Per service, the non-loopback host it was last said to listen on. */
  private readonly notified = new Map<ServiceKind, string>();

  /** @param dataIdle resolves when no Reset, Import or Export is under way (see {@link bindToLoopback}) */
  constructor(private readonly deps: NotifyDeps, private readonly dataIdle: () => Promise<void>) {
    // Set back to loopback, even while stopped: a later start on another address warns again.
    const hostSetting = vscode.workspace.onDidChangeConfiguration((e) => {
      for (const kind of [...this.notified.keys()]) {
        if (e.affectsConfiguration(`azurite.${kind}Host`) && isLoopbackHost(azuriteConfig().get<string>(`${kind}Host`) ?? '127.0.0.1')) this.notified.delete(kind);
      }
    });
    const states = deps.emulator.onDidChangeState(({ kind, state }) => {
      if (state.status !== 'running') return;
      if (isLoopbackHost(state.endpoint.host)) {
        this.notified.delete(kind);
        return;
      }
      if (this.notified.get(kind) === state.endpoint.host) return;
      this.notified.set(kind, state.endpoint.host);
      void notify('warning', exposureNotice(kind, state.endpoint.host, state.endpoint.port), BIND_TO_LOOPBACK).then(async (choice) => {
        if (choice === BIND_TO_LOOPBACK) showOutcome(await bindToLoopback(kind, this.deps, this.dataIdle), this.deps);
      });
    });
    this.subscriptions = [hostSetting, states];
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
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
