/**
 * Integrated terminals get the running emulator's connection string as
 * `AZURE_STORAGE_CONNECTION_STRING` (read by the Azure SDKs and the az CLI) and `AzureWebJobsStorage`
 * (read by Azure Functions), through VS Code's environmentVariableCollection — new terminals see
 * the values, and VS Code offers to relaunch open ones when they change. `AzureWebJobsStorage` is
 * left out while a local.settings.json in the workspace sets its own (see connectionEnvironment.ts);
 * the collection's description says what was set and why. Off with
 * `azurite.terminalEnvironment: false`; cleared while no service runs, here or in another Azurite
 * found serving it on its configured port (Emulator.servedElsewhereKinds). A variable the user sets in
 * `terminal.integrated.env.<platform>` is left to that value: VS Code applies an extension's
 * collection after that setting, so setting it here would override the user's. Not persistent: VS Code would
 * otherwise restore the values in the next window, before anything runs there (terminals restored
 * at startup, `runOn: folderOpen` tasks), and keep them for good once this extension stays passive.
 */
import * as vscode from 'vscode';
import { hasVariableName } from '../core/debugConfiguration';
import { CONNECTION_VARIABLES } from '../core/localSettings';
import type { Emulator } from '../emulator/emulator';
import type { ConnectionEnvironment } from './connectionEnvironment';

/** The variables set, in this order. */
export const TERMINAL_VARIABLES = CONNECTION_VARIABLES;

/** VS Code's setting of the variables its terminals get, per platform (`.linux`, `.osx`, `.windows`). */
const TERMINAL_ENV_SECTION = 'terminal.integrated.env';

/** The key of this platform under `terminal.integrated.env`. */
function terminalPlatform(): 'windows' | 'osx' | 'linux' {
  return process.platform === 'win32' ? 'windows' : process.platform === 'darwin' ? 'osx' : 'linux';
}

/** Keeps the extension's environment variable collection in step with the emulator and the local.settings.json files. */
export class TerminalEnvironment implements vscode.Disposable {
  private readonly subscriptions: { dispose(): void }[];

  constructor(
    private readonly collection: vscode.GlobalEnvironmentVariableCollection,
    emulator: Emulator,
    private readonly environment: ConnectionEnvironment,
    private readonly enabled: () => boolean,
  ) {
    collection.persistent = false;
    this.subscriptions = [
      emulator.onDidChangeState(() => this.refresh()),
      // Another Azurite found serving a service, or that finding forgotten.
      emulator.onDidChangeServedElsewhere(() => this.refresh()),
      environment.onDidChange(() => this.refresh()),
      vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration(TERMINAL_ENV_SECTION)) this.refresh(); }),
    ];
    this.refresh();
  }

  /** Sets or clears the variables from the current state, settings and local.settings.json files. */
  refresh(): void {
    const current = this.enabled() ? this.environment.current() : undefined;
    if (current === undefined) {
      this.collection.clear();
      return;
    }
    const platform = terminalPlatform();
    const users = vscode.workspace.getConfiguration(TERMINAL_ENV_SECTION).get<Record<string, unknown>>(platform) ?? {};
    // Any entry of theirs wins: a value, "" or null (which removes the variable from terminals).
    const theirs = TERMINAL_VARIABLES.filter((name) => current.variables[name] !== undefined && hasVariableName(Object.keys(users), name, platform === 'windows' ? 'win32' : 'linux'));
    this.collection.description = `${[current.description, ...theirs.map((name) => `${name} not set in terminals: ${TERMINAL_ENV_SECTION}.${platform} sets its own`)].join('; ')} (Storage Emulators)`;
    for (const name of TERMINAL_VARIABLES) {
      const value = theirs.includes(name) ? undefined : current.variables[name];
      if (value === undefined) this.collection.delete(name);
      else if (this.collection.get(name)?.value !== value) this.collection.replace(name, value);
    }
  }

  /** The values now set (undefined when not set). */
  values(): Record<string, string | undefined> {
    return Object.fromEntries(TERMINAL_VARIABLES.map((n) => [n, this.collection.get(n)?.value]));
  }

  /** What the collection's description says now (what was injected and why). */
  description(): string | undefined {
    const d = this.collection.description;
    return typeof d === 'string' ? d : d?.value;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
