/**
 * Integrated terminals get the running emulator's connection string as
 * `AZURE_STORAGE_CONNECTION_STRING` (read by the Azure SDKs and the az CLI) and `AzureWebJobsStorage`
 * (read by Azure Functions), through VS Code's environmentVariableCollection — new terminals see
 * the values, and VS Code offers to relaunch open ones when they change. `AzureWebJobsStorage` is
 * left out while a local.settings.json in the workspace sets its own (see connectionEnvironment.ts);
 * the collection's description says what was set and why. Off with
 * `azurite.terminalEnvironment: false`; cleared while no service runs. Not persistent: VS Code would
 * otherwise restore the values in the next window, before anything runs there (terminals restored
 * at startup, `runOn: folderOpen` tasks), and keep them for good once this extension stays passive.
 */
import * as vscode from 'vscode';
import { CONNECTION_VARIABLES } from '../core/localSettings';
import type { Emulator } from '../emulator/emulator';
import type { ConnectionEnvironment } from './connectionEnvironment';

/** The variables set, in this order. */
export const TERMINAL_VARIABLES = CONNECTION_VARIABLES;

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
    this.subscriptions = [emulator.onDidChangeState(() => this.refresh()), environment.onDidChange(() => this.refresh())];
    this.refresh();
  }

  /** Sets or clears the variables from the current state, settings and local.settings.json files. */
  refresh(): void {
    const current = this.enabled() ? this.environment.current() : undefined;
    if (current === undefined) {
      this.collection.clear();
      return;
    }
    this.collection.description = `${current.description} (Storage Emulators)`;
    for (const name of TERMINAL_VARIABLES) {
      const value = current.variables[name];
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
