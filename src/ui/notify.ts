/**
 * Notifications for failed lifecycle commands, with the action that fixes them: "Use Port N" for
 * a taken port (writes `azurite.<service>Port` and starts the service again), "Open File" for a
 * malformed seed or snapshot file, "Open Settings" for a message that names a setting.
 */
import * as vscode from 'vscode';
import { azuriteConfig, settingsTarget } from '../config';
import { OPEN_SETTINGS } from '../core/commandIds';
import type { Emulator } from '../emulator/emulator';
import type { FileLocation, Outcome } from '../core/outcome';

/** What the actions need: the emulator, and a way to make it read the settings at once. */
export interface NotifyDeps {
  readonly emulator: Emulator;
  readonly reloadSettings: () => void;
  /** Asks what must be asked before a start (the data folder of a multi-root workspace); false = don't start. */
  readonly prepareStart: () => Promise<boolean>;
}

/** The last notifications this extension showed (newest last, at most 50): what tests read back. */
const recorded: string[] = [];

/** Notifications shown so far (copies; for the extension API and tests). */
export function recordedNotifications(): string[] {
  return [...recorded];
}

/**
 * Shows a notification and records it.
 * @returns the action the user picked, or undefined when dismissed
 */
export function notify(level: 'info' | 'warning' | 'error', message: string, ...actions: string[]): Thenable<string | undefined> {
  recorded.push(message);
  if (recorded.length > 50) recorded.shift();
  const show = level === 'error' ? vscode.window.showErrorMessage : level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  return show(message, ...actions);
}

/**
 * Shows a failed outcome (ok outcomes and cancellations show nothing), with the actions its typed
 * fields call for: "Use Port N" for a taken port with a free one found, "Open File" when a file
 * is at fault (a seed's, at a start), "Open Settings" when a setting is. Does not wait for the user.
 */
export function showOutcome(outcome: Outcome, deps: NotifyDeps): void {
  if (outcome.ok || outcome.reason === 'cancelled') return;
  const conflict = outcome.conflict;
  const usePort = conflict?.freePort !== undefined ? `Use Port ${conflict.freePort}` : undefined;
  const setting = outcome.setting;
  const file = outcome.file;
  const actions = [...(usePort ? [usePort] : []), ...(file ? [OPEN_FILE] : []), ...(setting ? ['Open Settings'] : [])];
  void notify('error', outcome.message, ...actions).then(async (choice) => {
    if (choice === OPEN_FILE && file !== undefined) {
      await openFileAt(file);
    } else if (choice === 'Open Settings') {
      await vscode.commands.executeCommand(OPEN_SETTINGS, setting);
    } else if (choice !== undefined && choice === usePort && conflict?.freePort !== undefined) {
      if (!(await writeSetting(`${conflict.kind}Port`, conflict.freePort))) return;
      deps.reloadSettings();
      showOutcome(await deps.emulator.start(conflict.kind), deps);
    }
  });
}

/**
 * Writes `azurite.<key>` where fixes go (config.ts settingsTarget); a failure is said in an error
 * notification with Open Settings instead of being lost. Resolves true when written.
 */
export async function writeSetting(key: string, value: unknown): Promise<boolean> {
  try {
    await azuriteConfig().update(key, value, settingsTarget());
    return true;
  } catch (err) {
    void notify('error', `azurite.${key} could not be set to ${JSON.stringify(value)}: ${(err as Error).message}`, 'Open Settings').then(async (choice) => {
      if (choice === 'Open Settings') await vscode.commands.executeCommand(OPEN_SETTINGS, `azurite.${key}`);
    });
    return false;
  }
}

/** The action that opens the file a failure names. */
export const OPEN_FILE = 'Open File';

/** Opens `file` in an editor with the cursor at its line. */
export async function openFileAt(file: FileLocation): Promise<void> {
  const line = Math.max(0, file.line - 1);
  await vscode.window.showTextDocument(vscode.Uri.file(file.path), { selection: new vscode.Range(line, 0, line, 0) });
}
