/**
 * Notifications for failed lifecycle commands, with the action that fixes them: "Use Port N" for
 * a taken port (writes `azurite.<service>Port` and starts the service again), "Open Settings" for
 * a message that names a setting.
 */
import * as vscode from 'vscode';
import { azuriteConfig, settingsTarget } from '../config';
import { OPEN_SETTINGS } from '../core/commandIds';
import type { Emulator } from '../emulator/emulator';
import type { Outcome } from '../core/outcome';

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
 * fields call for: "Use Port N" for a taken port with a free one found, "Open Settings" when a
 * setting is at fault. Does not wait for the user.
 */
export function showOutcome(outcome: Outcome, deps: NotifyDeps): void {
  if (outcome.ok || outcome.reason === 'cancelled') return;
  const conflict = outcome.conflict;
  const usePort = conflict?.freePort !== undefined ? `Use Port ${conflict.freePort}` : undefined;
  const setting = outcome.setting;
  const actions = [...(usePort ? [usePort] : []), ...(setting ? ['Open Settings'] : [])];
  void notify('error', outcome.message, ...actions).then(async (choice) => {
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand(OPEN_SETTINGS, setting);
    } else if (choice !== undefined && choice === usePort && conflict?.freePort !== undefined) {
      await azuriteConfig().update(`${conflict.kind}Port`, conflict.freePort, settingsTarget());
      deps.reloadSettings();
      showOutcome(await deps.emulator.start(conflict.kind), deps);
    }
  });
}
