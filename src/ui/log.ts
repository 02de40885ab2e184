/**
 * The "Azurite" log output channel, as the emulator's {@link EmulatorLog}.
 */
import * as vscode from 'vscode';
import type { EmulatorLog } from '../emulator/emulator';

/**
 * Adapts a LogOutputChannel. Access lines (one per request) and azurite's debug lines are written at
 * info level, so they show at the channel's default level once `azurite.silent` is off or
 * `azurite.debug` is on (those settings, not the channel level, decide whether they are produced).
 *
 * Never throws. VS Code disposes `context.subscriptions` right after calling `deactivate()`, without
 * waiting for its promise (extHostExtensionService `_deactivate`), so a shutdown still running logs
 * to a disposed channel, whose methods throw `Error: Channel has been closed`. Such lines go to
 * `console` instead (the extension host's log), as `[Azurite] line`.
 */
export function channelLog(channel: vscode.LogOutputChannel): EmulatorLog {
  const safe = (write: (line: string) => void, fallback: (line: string) => void) => (line: string): void => {
    try {
      write(line);
    } catch {
      try { fallback(`[Azurite] ${line}`); } catch { /* nowhere left to write */ }
    }
  };
  return {
    info: safe((line) => channel.info(line), console.log),
    error: safe((line) => channel.error(line), console.error),
    access: safe((line) => channel.info(`[access] ${line}`), () => undefined),
    debug: safe((line) => channel.info(`[debug] ${line}`), () => undefined),
  };
}
