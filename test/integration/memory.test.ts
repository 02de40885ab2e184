/**
 * The memory meter in depth, in a real VS Code: threshold and limit notifications, live limit
 * changes, reclaim, the usage view, disk mode. Notifications are read back through the extension's
 * record of what it showed (the VS Code API cannot list notifications).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { BlobServiceClient, RestError } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { PANEL_TICK_MS } from '../../src/ui/memoryPanel';
import { api, configure, reset, waitFor } from './helpers';

const KiB = 1024;

async function blobContainer(name: string) {
  const a = await api();
  const container = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient(name);
  await container.create();
  return container;
}

describe('Memory meter in depth', () => {
  before(reset);
  afterEach(reset);

  it('crossing the warning threshold in a burst of 50 writes shows exactly one notification; the limit hit one more', async () => {
    const a = await api();
    await configure({ extentMemoryLimit: 1 });
    await vscode.commands.executeCommand('azurite.start_blob');
    const container = await blobContainer('threshold');
    const before = a.notifications().length;
    for (let i = 0; i < 50; i++) await container.getBlockBlobClient(`b${i}`).uploadData(Buffer.alloc(20 * KiB, i));
    await waitFor('the meter to show 1,000 KiB in use', () => a.statusItems().memory.text === '$(database) 1 MB / 1 MB');
    assert.equal(a.statusItems().memory.backgroundColor, 'statusBarItem.errorBackground', '97.7% ≥ 95%');
    const threshold = a.notifications().slice(before).filter((m) => m.includes('of its limit'));
    assert.equal(threshold.length, 1, threshold.join('\n'));
    assert.match(threshold[0]!, /^Azurite in-memory storage is at \d+(\.\d)?% of its limit/);

    // A burst of refused writes: one notification naming the service, the bytes asked for, the limit.
    const refused = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => container.getBlockBlobClient(`over${i}`).uploadData(Buffer.alloc(100 * KiB))));
    assert.ok(refused.every((r) => r.status === 'rejected' && (r.reason as RestError).statusCode === 409));
    const hits = await waitFor('the limit notification', () => {
      const h = a.notifications().slice(before).filter((m) => m.includes('refused'));
      return h.length > 0 ? h : undefined;
    });
    assert.deepEqual(hits, ['Blob write of 100 KB refused: the in-memory limit of 1 MB would be exceeded (1,024,000 of 1,048,576 bytes in use, 102,400 asked for). Clients get HTTP 409 MemoryExtentStoreAtSizeLimit until memory is freed or the limit raised; stored data is intact.']);
    assert.equal(a.emulator.status('blob').status, 'running');
    assert.deepEqual(await container.getBlockBlobClient('b7').downloadToBuffer(), Buffer.alloc(20 * KiB, 7));
  });

  it('a warning threshold lowered below what is in use warns at once, without waiting for another write', async () => {
    const a = await api();
    const shownBefore = a.notifications().length;
    await configure({ extentMemoryLimit: 1 });
    await vscode.commands.executeCommand('azurite.start_blob');
    const container = await blobContainer('lowered');
    await container.getBlockBlobClient('b').uploadData(Buffer.alloc(600 * KiB));
    // The meter's (throttled) event delivered: nothing more comes while no client writes.
    await waitFor('the meter to show the upload', () => a.statusItems().memory.text === '$(database) 0.6 MB / 1 MB' || undefined);
    assert.deepEqual(a.notifications().slice(shownBefore).filter((m) => m.includes('of its limit')), [], '58.6% is below the default threshold');
    const before = a.notifications().length;
    const settings = vscode.workspace.getConfiguration('azurite');
    try {
      await settings.update('memory.warningThreshold', 50, vscode.ConfigurationTarget.Workspace);
      const said = await waitFor('the threshold warning', () => a.notifications().slice(before).find((m) => m.includes('of its limit')));
      assert.match(said, /^Azurite in-memory storage is at 58\.6% of its limit/);
    } finally {
      await settings.update('memory.warningThreshold', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('applies a raised limit live, refuses one below use with a message, and keeps the data', async () => {
    const a = await api();
    await configure({ extentMemoryLimit: 1 });
    // Queue stopped: the limit hit's notification then offers no Clean Queue.
    await vscode.commands.executeCommand('azurite.close_queue');
    await vscode.commands.executeCommand('azurite.start_blob');
    const port = a.emulator.endpoint('blob')!.port;
    const container = await blobContainer('live-limit');
    await container.getBlockBlobClient('big').uploadData(Buffer.alloc(900 * KiB, 1));
    const shown = a.notifications().length;
    await assert.rejects(container.getBlockBlobClient('more').uploadData(Buffer.alloc(200 * KiB)));
    const hit = await waitFor('the limit hit notification', () => a.notifications().slice(shown).find((m) => m.startsWith('Blob write of ')));
    // Queue is stopped: a Clean of it would free none of this memory.
    assert.deepEqual(a.notificationActions(hit), ['Raise Limit', 'Clean Blob', 'Show Memory Usage']);
    await configure({ extentMemoryLimit: 2 });
    await container.getBlockBlobClient('more').uploadData(Buffer.alloc(200 * KiB));
    assert.equal(a.emulator.endpoint('blob')!.port, port, 'no restart');
    await waitFor('the meter to show the 2 MB limit', () => a.statusItems().memory.text.endsWith('/ 2 MB'));

    const before = a.notifications().length;
    await vscode.workspace.getConfiguration('azurite').update('extentMemoryLimit', 0.5, vscode.ConfigurationTarget.Workspace);
    const refusal = await waitFor('the refusal message', () => a.notifications().slice(before).find((m) => m.startsWith('azurite.extentMemoryLimit asks for 0.5 MB, but ')));
    assert.match(refusal, /1\.1 MB \([\d,]+ bytes\) of blob and queue data is in memory, so the limit stays at 2 MB/);
    assert.equal(vscode.workspace.getConfiguration('azurite').get('extentMemoryLimit'), 0.5, 'the setting stays as typed');
    assert.ok(a.statusItems().memory.text.endsWith('/ 2 MB'), 'the item shows the limit in force');
    assert.deepEqual(await container.getBlockBlobClient('big').downloadToBuffer(), Buffer.alloc(900 * KiB, 1));
  });

  it('a limit written in steps (the Settings editor writes at each pause in typing) applies once, the last value: a partial one is neither applied nor refused', async () => {
    const a = await api();
    await configure({ extentMemoryLimit: 4 });
    await vscode.commands.executeCommand('azurite.start_blob');
    const container = await blobContainer('typed');
    await container.getBlockBlobClient('b').uploadData(Buffer.alloc(2048 * KiB));
    const before = a.notifications().length;
    const config = vscode.workspace.getConfiguration('azurite');
    // As typed with pauses: "1", then "15". 1 MB is below the 2 MB in use, which the engine refuses.
    await config.update('extentMemoryLimit', 1, vscode.ConfigurationTarget.Workspace);
    await config.update('extentMemoryLimit', 15, vscode.ConfigurationTarget.Workspace);
    await a.settled();
    assert.equal(a.emulator.memoryReport().limitBytes, 15 * 1024 * KiB);
    assert.deepEqual(a.notifications().slice(before), [], 'no refusal of the partial value');

    // A start meanwhile (a preLaunchTask, a click) reads the settings once the value has stayed
    // unchanged, not the partial one: "3", then "30".
    await config.update('extentMemoryLimit', 3, vscode.ConfigurationTarget.Workspace);
    const started = Promise.resolve(vscode.commands.executeCommand('azurite.start_queue'));
    await config.update('extentMemoryLimit', 30, vscode.ConfigurationTarget.Workspace);
    assert.deepEqual(await started, [{ ok: true }]);
    assert.equal(a.emulator.memoryReport().limitBytes, 30 * 1024 * KiB, 'the last value, not the partial one');
  });

  it('Raise Limit applies the limit at once while data is held (a value written whole, not typed), and the refused write then goes through', async () => {
    const a = await api();
    await configure({ extentMemoryLimit: 4 });
    await vscode.commands.executeCommand('azurite.start_blob');
    const container = await blobContainer('raised');
    await container.getBlockBlobClient('held').uploadData(Buffer.alloc(3 * 1024 * KiB));
    await assert.rejects(container.getBlockBlobClient('more').uploadData(Buffer.alloc(2 * 1024 * KiB)), (err: RestError) => err.statusCode === 409);
    assert.equal(await a.raiseLimitTo(8), true);
    // In force when the write resolves: not after the 1.5 s that a typed value waits for.
    assert.equal(a.emulator.options.extentMemoryLimitBytes, 8 * 1024 * KiB);
    await a.settled();
    assert.equal(a.emulator.memoryReport().limitBytes, 8 * 1024 * KiB);
    await container.getBlockBlobClient('more').uploadData(Buffer.alloc(2 * 1024 * KiB));

    // Refused under the raised limit, and after a restart: each said, however soon after the last.
    const refusedSaid = async (what: string, blobs: typeof container, name: string): Promise<void> => {
      const before = a.notifications().length;
      await assert.rejects(blobs.getBlockBlobClient(name).uploadData(Buffer.alloc(4 * 1024 * KiB)), (err: RestError) => err.statusCode === 409);
      await waitFor(what, () => a.notifications().slice(before).some((m) => m.startsWith('Blob write of 4 MB refused')));
    };
    await refusedSaid('the refusal under the raised limit said', container, 'past-raised');
    await vscode.commands.executeCommand('azurite.close_blob');
    await vscode.commands.executeCommand('azurite.start_blob');
    const again = await blobContainer('raised');
    await again.getBlockBlobClient('held').uploadData(Buffer.alloc(5 * 1024 * KiB));
    await refusedSaid('the refusal after a restart said', again, 'past-restarted');
  });

  it('Raise Limit writes the limit where it is set: the user settings, which later edits there then change, or the workspace', async () => {
    const a = await api();
    const config = () => vscode.workspace.getConfiguration('azurite');
    const where = () => { const i = config().inspect<number | null>('extentMemoryLimit'); return [i?.globalValue, i?.workspaceValue]; };
    const limitInForce = (mb: number) => waitFor(`a limit of ${mb} MB in the emulator`, () => a.emulator.options.extentMemoryLimitBytes === mb * 1024 * KiB);
    try {
      // Set in the user settings only (reset() leaves null in the workspace's).
      await config().update('extentMemoryLimit', undefined, vscode.ConfigurationTarget.Workspace);
      await config().update('extentMemoryLimit', 1, vscode.ConfigurationTarget.Global);
      await limitInForce(1);
      assert.equal(await a.raiseLimitTo(3), true);
      assert.deepEqual(where(), [3, undefined]);
      await limitInForce(3);
      // The user's next edit is the one in force: no workspace value overrides it.
      await config().update('extentMemoryLimit', 5, vscode.ConfigurationTarget.Global);
      await limitInForce(5);

      // Set in the workspace: written there, the user's value left as it is.
      await configure({ extentMemoryLimit: 2 });
      assert.equal(await a.raiseLimitTo(4), true);
      assert.deepEqual(where(), [5, 4]);
      await limitInForce(4);

      // Set nowhere: the workspace, as for other fixes while a folder is open.
      await config().update('extentMemoryLimit', undefined, vscode.ConfigurationTarget.Workspace);
      await config().update('extentMemoryLimit', undefined, vscode.ConfigurationTarget.Global);
      assert.equal(await a.raiseLimitTo(6), true);
      assert.deepEqual(where(), [undefined, 6]);
      await limitInForce(6);
    } finally {
      await config().update('extentMemoryLimit', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('reclaims 10 MiB of deleted blobs now; the meter then drops to 0 B', async () => {
    const a = await api();
    // Nothing runs in memory yet: nothing to reclaim, and it says so.
    assert.equal(await vscode.commands.executeCommand<number>('azurite.reclaimMemory'), 0);
    assert.ok(a.notifications().includes('Azurite: nothing to reclaim: neither Blob nor Queue runs in memory (azurite.inMemoryPersistence).'));
    await vscode.commands.executeCommand('azurite.start_blob');
    const container = await blobContainer('reclaim');
    for (let i = 0; i < 10; i++) await container.getBlockBlobClient(`b${i}`).uploadData(Buffer.alloc(1024 * KiB, i));
    for (let i = 0; i < 10; i++) await container.getBlockBlobClient(`b${i}`).delete();
    await waitFor('the meter to show 10 MB', () => a.statusItems().memory.text.startsWith('$(database) 10 MB /'));
    const freed = await vscode.commands.executeCommand<number>('azurite.reclaimMemory');
    assert.equal(freed, 10 * 1024 * KiB);
    await waitFor('the meter to drop to 0 B', () => a.statusItems().memory.text.startsWith('$(database) 0 B /'));
  });

  it('opens the memory usage view, which renders only while it is visible and tells what the running services use', async () => {
    const a = await api();
    await vscode.commands.executeCommand('azurite.start_queue');
    const report = await vscode.commands.executeCommand<{ usedBytes: number }>('azurite.showMemoryUsage');
    assert.equal(report.usedBytes, 0);
    assert.equal(a.memoryPanelOpen(), true);
    await waitFor('the page', () => a.memoryPanelHtml()?.includes('In-memory extents'));
    // Queue runs in memory; the setting turned off waits for the user's Restart Now: the limit still applies.
    await configure({ inMemoryPersistence: false });
    assert.equal(a.emulator.isRunningInMemory('queue'), true);
    const before = a.memoryPanelHtml();
    const rendered = await waitFor('a render after the change', () => { const html = a.memoryPanelHtml(); return html !== before ? html : undefined; });
    assert.ok(!rendered.includes('the memory limit does not apply'), 'the note of disk mode, while Queue holds its data in memory');
    // Hidden behind an editor: no render (each asks the engine to serialize its documents), whatever happens.
    const doc = await vscode.workspace.openTextDocument({ content: 'over the view' });
    await vscode.window.showTextDocument(doc, vscode.ViewColumn.Active);
    // A render that began while the view showed sets the page when it ends, which may be after the
    // tab is hidden: first the extension sees the view hidden, and no render is under way.
    await waitFor('the view hidden, with no render under way', () => { const r = a.memoryPanelRenders(); return !r.visible && !r.rendering; });
    const hidden = a.memoryPanelHtml();
    const rendersBefore = a.memoryPanelRenders().count;
    const queue = QueueServiceClient.fromConnectionString(a.emulator.connectionString()).getQueueClient('hidden');
    await queue.create();
    await queue.sendMessage('x'.repeat(10 * KiB));
    // An absence cannot be polled for: this waits out two of the view's refresh ticks.
    await new Promise((resolve) => setTimeout(resolve, 2.5 * PANEL_TICK_MS));
    assert.equal(a.memoryPanelHtml(), hidden, 'rendered while hidden');
    assert.equal(a.memoryPanelRenders().count, rendersBefore, 'rendered while hidden');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await waitFor('a render once shown again', () => a.memoryPanelHtml() !== hidden);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await waitFor('the view to close', () => !a.memoryPanelOpen());
  });

  it('hides the meter in disk mode; the service tooltip says where the data is and, while it runs, its size on disk', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: false });
    await vscode.commands.executeCommand('azurite.start_blob');
    const container = await blobContainer('ondisk');
    await container.getBlockBlobClient('x').uploadData(Buffer.alloc(64 * KiB));
    await vscode.commands.executeCommand('azurite.close_blob');
    await vscode.commands.executeCommand('azurite.start_blob');
    assert.equal(a.statusItems().memory.visible, false);
    // Measured at each start: after the restart it includes the 64 KiB extent and the Loki files.
    await waitFor('an on-disk size of at least 64 KB in the tooltip', () => {
      const m = /\((\d+(\.\d)?) KB on disk\)/.exec(a.statusItems().blob.tooltip);
      return m !== null && Number(m[1]) >= 64;
    });
    // Stopped, then cleaned: no size from before is shown.
    await vscode.commands.executeCommand('azurite.close_blob');
    assert.doesNotMatch(a.statusItems().blob.tooltip, /on disk\)/);
    await vscode.commands.executeCommand('azurite.clean_blob', { skipConfirmation: true });
    assert.doesNotMatch(a.statusItems().blob.tooltip, /on disk\)/);
    // Started again on the cleaned folder: the size from before the clean is not shown meanwhile.
    await vscode.commands.executeCommand('azurite.start_blob');
    const shown = /\((\d+(\.\d)?) KB on disk\)/.exec(a.statusItems().blob.tooltip);
    assert.ok(shown === null || Number(shown[1]) < 64, a.statusItems().blob.tooltip);
  });
});
