/**
 * Debug sessions of any debugger (node, python/debugpy, coreclr, java, go …) get the same
 * connection variables as terminals (see connectionEnvironment.ts) while a service runs, or another
 * Azurite was found serving it on its configured port (an `azurite` preLaunchTask that gave way to
 * it) — unless the launch configuration sets the variable itself, in its `env` object or in the
 * file named by its `envFile`: theirs is kept. Off with `azurite.debugEnvironment: false`.
 *
 * Registered for every debug type (`'*'`) through `resolveDebugConfigurationWithSubstitutedVariables`,
 * which VS Code calls after the `preLaunchTask` has run (VS Code 1.139 debugService: resolve →
 * substitute variables → preLaunchTask → resolve with substituted variables → launch), so ports of
 * services an `azurite` preLaunchTask just started are the ones injected. That holds for a new
 * launch only: VS Code's Restart of a session reuses its resolved configuration (and, when
 * launch.json changed, resolves it before the preLaunchTask runs again), so a restarted session
 * keeps the variables of its first launch.
 */
import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { addEnvironment } from '../core/debugConfiguration';
import { dotenvKeys, envFilePaths } from '../core/localSettings';
import { serviceName } from '../core/services';
import type { Emulator, EmulatorLog } from '../emulator/emulator';
import type { ConnectionEnvironment } from './connectionEnvironment';
import { withDelayedProgress } from './progress';

/** The `'*'` debug configuration provider that injects the variables. */
export class DebugEnvironment implements vscode.DebugConfigurationProvider {
  /**
   * @param services the emulator: the starts under way (Emulator.startsUnderWay), and a wait for
   *   them, seed included (Emulator.lifecycleSettled, which never rejects)
   */
  constructor(
    private readonly environment: ConnectionEnvironment,
    private readonly enabled: () => boolean,
    private readonly log: EmulatorLog,
    private readonly services: Pick<Emulator, 'startsUnderWay' | 'lifecycleSettled'>,
  ) {}

  /**
   * Registers for every debug type; the disposable unregisters.
   * @param services the emulator, as for the constructor
   */
  static register(environment: ConnectionEnvironment, enabled: () => boolean, log: EmulatorLog, services: Pick<Emulator, 'startsUnderWay' | 'lifecycleSettled'>): vscode.Disposable {
    return vscode.debug.registerDebugConfigurationProvider('*', new DebugEnvironment(environment, enabled, log, services));
  }

  /**
   * VS Code's last pass over every launch ('*'): adds the connection variables the terminals get
   * (./connectionEnvironment.ts) to the configuration's `env`, except those it sets itself or its
   * `envFile` defines, and logs what was added. Only the local.settings.json files of the launch's
   * workspace folder are weighed (in a multi-root workspace each folder is its own project). A
   * launch waits first for the services starting (progress after a second). An attach, a debugger's
   * child session, `azurite.debugEnvironment` off, or nothing to add: the configuration is
   * returned as it came.
   */
  async resolveDebugConfigurationWithSubstitutedVariables(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration> {
    if (!this.enabled()) return config;
    // Nothing for an attach (its program runs already: `env` reaches nothing, and the log would say
    // what did not happen), nor for a child session a debugger starts for a process its program
    // spawns (js-debug's `__pendingTargetId`, one per process), which inherits its parent's.
    const launches = config.request !== 'attach' && config.__pendingTargetId === undefined;
    if (!launches) return config;
    await this.environment.ready();
    // A session launched while a service starts (F5 right after a click, the autostart, a restart
    // for a settings change) gets it once it runs, seed loaded, not a configuration without it.
    const starting = this.services.startsUnderWay();
    if (starting.length > 0) {
      // Cancel launches it at once, with what runs by then (a large seed can take minutes).
      await withDelayedProgress(`The debug session "${String(config.name)}" waits for ${starting.map(serviceName).join(', ')} to start (Cancel launches it now)`, true,
        (o) => new Promise<void>((resolve) => {
          o.signal?.addEventListener('abort', () => resolve(), { once: true });
          void this.services.lifecycleSettled(starting).then(resolve);
        }));
    }
    // Only the launch's own workspace folder's local.settings.json files decide (a multi-root
    // workspace's other projects have their own); with no folder, every file does.
    const current = this.environment.current(folder);
    if (current === undefined) return config;
    const added = addEnvironment(config, current.variables, await this.envFileKeys(folder, config), process.platform, process.env);
    if (added.length > 0) this.log.info(`Debug session "${String(config.name)}": set ${added.join(', ')} (${current.description}).`);
    return config;
  }

  /** Variable names the configuration's `envFile` (one file or a list) defines; a file that can't be read defines none. */
  private async envFileKeys(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<Set<string>> {
    const keys = new Set<string>();
    for (const file of envFilePaths(config.envFile, folder?.uri.fsPath)) {
      const text = await fs.readFile(file, 'utf8').catch(() => '');
      for (const key of dotenvKeys(text)) keys.add(key);
    }
    return keys;
  }
}
