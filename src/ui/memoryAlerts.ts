/**
 * Tells the user when in-memory storage gets tight: once when use crosses
 * `azurite.memory.warningThreshold` upward (not once per write; re-armed when it has fallen 5
 * points below, core/memory.ts ThresholdWarning), and
 * once per burst of a service's writes refused at the limit (HTTP 409 `MemoryExtentStoreAtSizeLimit`), naming
 * the service, the bytes asked for and the limit. Both offer Raise Limit, Clean Blob and Clean Queue
 * (each only while that service holds data in memory) and Show Memory Usage.
 */
import * as vscode from 'vscode';
import { ThresholdWarning, formatBytes, formatUsage, groupDigits, limitInputError, percentUsed, proposedLimitMb, type MemoryReport } from '../core/memory';
import { COMMANDS, serviceCommand } from '../core/commandIds';
import { EXTENT_SERVICE_KINDS, serviceName } from '../core/services';
import type { Emulator } from '../emulator/emulator';
import { systemMemoryBytes } from '../emulator/systemMemory';
import { settingTargetOf, settingsTarget } from '../config';
import { notify, showOutcome, updateSetting } from './notify';


/** Watches the emulator's memory and limit events. */
export class MemoryAlerts implements vscode.Disposable {
  private readonly warning = new ThresholdWarning();
  private readonly subscriptions: { dispose(): void }[];

  /**
   * @param warningThreshold percent, read at each event and when the setting changes (live setting)
   * @param write what Raise Limit writes the new limit (MB) with; resolves to true when written
   */
  constructor(private readonly emulator: Emulator, private readonly warningThreshold: () => number, private readonly write: (mb: number) => Promise<boolean> = writeLimit) {
    this.subscriptions = [
      emulator.onDidChangeMemory((report) => this.checkThreshold(report)),
      // A threshold lowered below use warns now (the status bar item turns yellow at once), not at
      // the next write, which an idle emulator may never get.
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('azurite.memory.warningThreshold') && emulator.isMemoryInUse()) this.checkThreshold(emulator.memoryReport());
      }),
      emulator.onDidHitLimit((hit) => {
        const n = groupDigits;
        this.offer('error', hit.requestedBytes, `${serviceName(hit.kind)} write of ${formatBytes(hit.requestedBytes)} refused: the in-memory limit of ${formatBytes(hit.limitBytes)} would be exceeded (${n(hit.usedBytes)} of ${n(hit.limitBytes)} bytes in use, ${n(hit.requestedBytes)} asked for). Clients get HTTP 409 MemoryExtentStoreAtSizeLimit until memory is freed or the limit raised; stored data is intact.`);
      }),
    ];
  }

  private checkThreshold(report: MemoryReport): void {
    if (this.warning.update(percentUsed(report), this.warningThreshold())) {
      this.offer('warning', 0, `Azurite in-memory storage is at ${percentUsed(report)}% of its limit (${formatUsage(report)}; blob ${formatBytes(report.blobBytes)}, queue ${formatBytes(report.queueBytes)}). Writes past the limit will fail with HTTP 409.`);
    }
  }

  /** @param refusedBytes the size of the write refused at the limit, in bytes (0 for the threshold warning): Raise Limit proposes a limit that holds it */
  private offer(level: 'warning' | 'error', refusedBytes: number, message: string): void {
    // Clean only what holds data in memory: a Clean of a service on disk (or stopped) frees none of it.
    const cleans = EXTENT_SERVICE_KINDS.filter((k) => this.emulator.isRunningInMemory(k)).map((k) => `Clean ${serviceName(k)}` as const);
    void notify(level, message, 'Raise Limit', ...cleans, 'Show Memory Usage').then(async (choice) => {
      switch (choice) {
        case 'Raise Limit': await raiseLimit(this.emulator, this.write, refusedBytes); break;
        case 'Clean Blob': await vscode.commands.executeCommand(serviceCommand('clean', 'blob')); break;
        case 'Clean Queue': await vscode.commands.executeCommand(serviceCommand('clean', 'queue')); break;
        case 'Show Memory Usage': await vscode.commands.executeCommand(COMMANDS.showMemoryUsage); break;
      }
    });
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}

/**
 * Asks for a new `azurite.extentMemoryLimit` (MB), proposing twice the limit in force (at most 75%
 * of the memory the engine may use), or the least that also holds a refused write of
 * `refusedBytes` (core/memory.ts proposedLimitMb), and writes it
 * with `write` ({@link writeLimit} unless given). A value at or below the bytes in use now is
 * refused in the input box (the engine would keep the old limit).
 * @param refusedBytes the size of the write refused at the limit, in bytes; 0 for none
 */
export async function raiseLimit(emulator: Emulator, write: (mb: number) => Promise<boolean> = writeLimit, refusedBytes = 0): Promise<void> {
  const report = emulator.memoryReport();
  const value = await vscode.window.showInputBox({
    title: 'Azurite: in-memory limit (azurite.extentMemoryLimit)',
    prompt: `Limit for blob and queue content, in MB (1 MB = 1,048,576 bytes). Now ${formatBytes(report.limitBytes)}.`,
    value: String(proposedLimitMb(report.limitBytes, report.usedBytes, refusedBytes, systemMemoryBytes())),
    validateInput: (v) => limitInputError(v, emulator.memoryReport().usedBytes),
  });
  if (value === undefined) return;
  await write(Number(value));
}

/**
 * Writes `azurite.extentMemoryLimit` where the limit in force is set (workspace folder, workspace
 * or user settings), so that a limit kept in the user settings stays the one the user edits: a
 * value written to the workspace would override every later edit there. Set nowhere, it goes where
 * fixes go (the workspace when a folder is open, else the user settings). A setting that cannot be
 * written (a settings.json VS Code cannot parse) is said in an error notification with Open Settings.
 * @param mb the new limit, in MB (1 MB = 1,048,576 bytes)
 * @returns true when written
 */
export async function writeLimit(mb: number): Promise<boolean> {
  const key = 'extentMemoryLimit';
  const outcome = await updateSetting(key, mb, settingTargetOf(key, settingsTarget()));
  showOutcome(outcome);
  return outcome.ok;
}
