/**
 * The "Azurite" log output channel, as the emulator's {@link EmulatorLog}.
 */
import * as vscode from 'vscode';
import type { EmulatorLog } from '../emulator/emulator';

/**
 * Adapts a LogOutputChannel. Access lines (one per request) and azurite's debug lines are written at
 * info level, so they show at the channel's default level once `azurite.silent` is off or
 * `azurite.debug` is on (those settings, not the channel level, decide whether they are produced).
 */
export function channelLog(channel: vscode.LogOutputChannel): EmulatorLog {
  return {
    info: (line) => channel.info(line),
    error: (line) => channel.error(line),
    access: (line) => channel.info(`[access] ${line}`),
    debug: (line) => channel.info(`[debug] ${line}`),
  };
}
