/**
 * Integrated terminals get the running emulator's connection string as
 * `AZURE_STORAGE_CONNECTION_STRING` (read by the Azure SDKs and the az CLI) and `AzureWebJobsStorage`
 * (read by Azure Functions), through VS Code's environmentVariableCollection — new terminals see
 * the values, and VS Code offers to relaunch open ones when they change. Off with
 * `azurite.terminalEnvironment: false`; cleared while no service runs.
 */
import * as vscode from 'vscode';
import { SERVICE_KINDS } from '../core/services';
import type { Emulator } from '../emulator/emulator';

/** The variables set, in this order. */
export const TERMINAL_VARIABLES = ['AZURE_STORAGE_CONNECTION_STRING', 'AzureWebJobsStorage'] as const;

/** Keeps the extension's environment variable collection in step with the emulator. */
export class TerminalEnvironment implements vscode.Disposable {
  private readonly subscription: { dispose(): void };

  constructor(
    private readonly collection: vscode.GlobalEnvironmentVariableCollection,
    private readonly emulator: Emulator,
    private readonly enabled: () => boolean,
  ) {
    collection.description = 'Connection string of the running Azurite emulator (Storage Emulators)';
    this.subscription = emulator.onDidChangeState(() => this.refresh());
    this.refresh();
  }

  /** Sets or clears the variables from the current state and settings. */
  refresh(): void {
    const running = SERVICE_KINDS.some((k) => this.emulator.endpoint(k) !== undefined);
    if (!this.enabled() || !running) {
      this.collection.clear();
      return;
    }
    const value = this.emulator.connectionString();
    for (const name of TERMINAL_VARIABLES) this.collection.replace(name, value);
  }

  /** The values now set (undefined when not set). */
  values(): Record<string, string | undefined> {
    return Object.fromEntries(TERMINAL_VARIABLES.map((n) => [n, this.collection.get(n)?.value]));
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
