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
 * services an `azurite` preLaunchTask just started are the ones injected.
 */
import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { addEnvironment } from '../core/debugConfiguration';
import { dotenvKeys, envFilePaths } from '../core/localSettings';
import type { EmulatorLog } from '../emulator/emulator';
import type { ConnectionEnvironment } from './connectionEnvironment';

/** The `'*'` debug configuration provider that injects the variables. */
export class DebugEnvironment implements vscode.DebugConfigurationProvider {
  constructor(
    private readonly environment: ConnectionEnvironment,
    private readonly enabled: () => boolean,
    private readonly log: EmulatorLog,
  ) {}

  /** Registers for every debug type; the disposable unregisters. */
  static register(environment: ConnectionEnvironment, enabled: () => boolean, log: EmulatorLog): vscode.Disposable {
    return vscode.debug.registerDebugConfigurationProvider('*', new DebugEnvironment(environment, enabled, log));
  }

  /**
   * VS Code's last pass over every launch ('*'): adds the connection variables the terminals get
   * (./connectionEnvironment.ts) to the configuration's `env`, except those it sets itself or its
   * `envFile` defines, and logs what was added. Only the local.settings.json files of the launch's
   * workspace folder are weighed (in a multi-root workspace each folder is its own project). With `azurite.debugEnvironment` off, or nothing to
   * add, the configuration is returned as it came.
   */
  async resolveDebugConfigurationWithSubstitutedVariables(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration> {
    if (!this.enabled()) return config;
    await this.environment.ready();
    // Only the launch's own workspace folder's local.settings.json files decide (a multi-root
    // workspace's other projects have their own); with no folder, every file does.
    const current = this.environment.current(folder);
    if (current === undefined) return config;
    const added = addEnvironment(config, current.variables, await this.envFileKeys(folder, config));
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
