/**
 * Notifications for failed lifecycle commands, with the action that fixes them: "Use Port N" for
 * a taken port (writes `azurite.<service>Port` and starts the service again), "Open File" for a
 * malformed seed or snapshot file, "Open Settings" for a message that names a setting.
 */
import * as vscode from 'vscode';
import { azuriteConfig, settingsTarget } from '../config';
import { COMMANDS, OPEN_SETTINGS } from '../core/commandIds';
import type { Emulator } from '../emulator/emulator';
import { failure, type FileLocation, type Outcome } from '../core/outcome';
import { plainNotificationText } from '../core/notificationText';
import type { ServiceKind } from '../core/services';

/** What the actions need: the emulator, and a way to make it read the settings at once. */
export interface NotifyDeps {
  readonly emulator: Emulator;
  readonly reloadSettings: () => void;
  /** Asks what must be asked before a start (the data folder of a multi-root workspace); false = don't start. */
  readonly prepareStart: () => Promise<boolean>;
}

/**
 * The most notifications (and progress titles, ./progress.ts) kept for tests. Tests read what is new
 * by index from a length taken before, so the list must hold every one shown in a test run: a
 * capped list that has dropped its oldest stays the same length and hides the new ones.
 */
export const RECORDED_MAX = 1000;

/** The last notifications this extension showed (newest last, at most {@link RECORDED_MAX}): what tests read back. */
const recorded: string[] = [];
/** The actions (buttons) each notification in {@link recorded} offered, at the same index. */
const recordedButtons: (readonly string[])[] = [];

/** Notifications shown so far (copies; for the extension API and tests). */
export function recordedNotifications(): string[] {
  return [...recorded];
}

/** The actions offered by the newest notification shown with exactly `message`, or undefined when none was. */
export function recordedActions(message: string): readonly string[] | undefined {
  const i = recorded.lastIndexOf(message);
  return i < 0 ? undefined : recordedButtons[i];
}

/**
 * Shows a notification and records it. Markdown links in `text` show as plain text (core/notificationText.ts).
 * @returns the action the user picked, or undefined when dismissed
 */
export function notify(level: 'info' | 'warning' | 'error', text: string, ...actions: string[]): Thenable<string | undefined> {
  // Names from storage (a blob's) and servers' error texts are shown as they are, never as links.
  const message = plainNotificationText(text);
  recorded.push(message);
  recordedButtons.push(actions);
  if (recorded.length > RECORDED_MAX) { recorded.shift(); recordedButtons.shift(); }
  const show = level === 'error' ? vscode.window.showErrorMessage : level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  return show(message, ...actions);
}

/**
 * Shows a failed outcome (ok outcomes, cancellations and what was refused because the emulator is
 * shutting down show nothing), with the actions its typed
 * fields call for: "Use Port N" for a taken port with a free one found, "Open File" when a file
 * is at fault (a seed's, at a start), "Set Certificate Password" when the password in Secret
 * Storage is, "Open Settings" when a setting is. Does not wait for the user.
 * @param deps what "Use Port N" needs; without them it is not offered
 */
export function showOutcome(outcome: Outcome, deps?: NotifyDeps): void {
  if (outcome.ok || outcome.reason === 'cancelled') return;
  // A start refused because the extension is shutting down (an extension host restart, an update,
  // a window closing) is nothing to tell the user about; a failed stop still is.
  if (outcome.reason === 'state' && deps?.emulator.shuttingDown === true) return;
  const conflict = outcome.conflict;
  const usePort = deps !== undefined && conflict?.freePort !== undefined ? `Use Port ${conflict.freePort}` : undefined;
  const setting = outcome.setting;
  const file = outcome.file;
  const secret = outcome.secret === 'certificatePassword' ? SET_CERTIFICATE_PASSWORD : undefined;
  const actions = [...(usePort ? [usePort] : []), ...(file ? [OPEN_FILE] : []), ...(secret ? [secret] : []), ...(setting ? ['Open Settings'] : [])];
  void notify('error', outcome.message, ...actions).then(async (choice) => {
    if (choice !== undefined && choice === secret) {
      await vscode.commands.executeCommand(COMMANDS.setCertificatePassword);
    } else if (choice === OPEN_FILE && file !== undefined) {
      await openFileAt(file);
    } else if (choice === 'Open Settings') {
      await vscode.commands.executeCommand(OPEN_SETTINGS, setting);
    } else if (choice !== undefined && choice === usePort && conflict?.freePort !== undefined && deps !== undefined) {
      const outcome = await usePortNow(conflict.kind, conflict.freePort, deps);
      if (outcome !== undefined) showOutcome(outcome, deps);
    }
  });
}

/**
 * "Use Port N" of a port conflict: asks what a start asks first (the data folder of a multi-root
 * workspace), writes `azurite.<kind>Port` = `port`, then starts `kind` again. When `port` has
 * become the port of another of our services since it was offered (the three starts of "Azurite:
 * Start" search at once and may offer the same one; the other's "Use Port" came first), nothing is
 * written, and the start runs again on the port configured, so its failure offers another port.
 * @returns the start's outcome, for the caller to show; undefined when the setting could not be
 *   written (an error notification said why) or the start was called off
 */
export async function usePortNow(kind: ServiceKind, port: number, deps: NotifyDeps): Promise<Outcome | undefined> {
  // Asked first: a dismissed question leaves the settings as they were.
  if (!(await deps.prepareStart())) return undefined;
  if (!deps.emulator.isPortOfOtherService(kind, port)) {
    if (!(await writeSetting(`${kind}Port`, port))) return undefined;
    deps.reloadSettings();
  }
  return deps.emulator.start(kind);
}

/**
 * Writes `azurite.<key>` in `target`.
 * @returns `{ ok: true }`, or a `setting` failure naming the key, the value and why VS Code could
 *   not write it (a settings.json it cannot parse)
 */
export async function updateSetting(key: string, value: unknown, target: vscode.ConfigurationTarget): Promise<Outcome> {
  try {
    await azuriteConfig().update(key, value, target);
    return { ok: true };
  } catch (err) {
    const shown = typeof value === 'string' ? value : JSON.stringify(value);
    return failure('setting', `azurite.${key} could not be set to ${shown}: ${(err as Error).message}`, { setting: `azurite.${key}` });
  }
}

/**
 * Writes `azurite.<key>` where fixes go (config.ts settingsTarget); a failure is shown
 * ({@link showOutcome}: Open Settings) instead of being lost. Resolves true when written.
 */
export async function writeSetting(key: string, value: unknown): Promise<boolean> {
  const outcome = await updateSetting(key, value, settingsTarget());
  showOutcome(outcome);
  return outcome.ok;
}

/** The action that opens the file a failure names. */
export const OPEN_FILE = 'Open File';

/** The action of a failure whose certificate password in Secret Storage is wrong: runs `azurite.setCertificatePassword`. */
export const SET_CERTIFICATE_PASSWORD = 'Set Certificate Password';

/**
 * Opens `file` in an editor with the cursor at its line (1-based; 0 for none). Never rejects: a file
 * that cannot be opened (moved or deleted since) is said in an error notification.
 */
export async function openFileAt(file: FileLocation): Promise<void> {
  const line = Math.max(0, file.line - 1);
  try {
    await vscode.window.showTextDocument(vscode.Uri.file(file.path), { selection: new vscode.Range(line, 0, line, 0) });
  } catch (err) {
    // Moved or deleted since the notification was shown: the click says so rather than nothing.
    void notify('error', `Azurite: ${file.path} could not be opened: ${err instanceof Error ? err.message : String(err)}`);
  }
}
