/**
 * Composition root: builds the emulator, the status bar and the commands, wires settings changes,
 * and pushes every disposable into `context.subscriptions`. No logic lives here.
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { affectsEmulator, readSettings } from './config';
import { Emulator } from './emulator/emulator';
import { channelLog } from './ui/log';
import { StatusBar } from './ui/statusBar';
import type { StatusItemKey } from './ui/statusBar';
import type { StatusItemSnapshot } from './ui/statusItem';

/**
 * What `activate()` returns (`vscode.extensions.getExtension(id).exports`): for other extensions
 * and for the integration tests, which cannot otherwise read status bar items.
 */
export interface ExtensionApi {
  readonly emulator: Emulator;
  /** What each status bar item shows now. */
  statusItems(): Record<StatusItemKey, StatusItemSnapshot>;
  /** Wall time of activate(), in ms. */
  readonly activationMs: number;
}

let stopOnDeactivate: (() => Promise<void>) | undefined;

/** Activation (`onStartupFinished`). */
export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const started = performance.now();
  const channel = vscode.window.createOutputChannel('Azurite', { log: true });
  const settings = () => readSettings(context.globalStorageUri.fsPath);
  const emulator = new Emulator(settings(), channelLog(channel));
  const statusBar = new StatusBar(emulator);
  registerCommands(context, { emulator });

  const reload = (): void => {
    emulator.updateSettings(settings());
    statusBar.refresh();
  };
  context.subscriptions.push(
    channel,
    statusBar,
    vscode.workspace.onDidChangeConfiguration((e) => { if (affectsEmulator(e)) reload(); }),
    vscode.workspace.onDidChangeWorkspaceFolders(reload),
  );
  stopOnDeactivate = () => emulator.dispose();

  const activationMs = Math.round((performance.now() - started) * 10) / 10;
  channel.info(`Activated in ${activationMs} ms`);
  return { emulator, statusItems: () => statusBar.snapshot(), activationMs };
}

/** Stops every service; resolves when ports are free and disk data is saved. */
export function deactivate(): Promise<void> | undefined {
  const stop = stopOnDeactivate;
  stopOnDeactivate = undefined;
  return stop?.();
}
