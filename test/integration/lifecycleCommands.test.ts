/**
 * What other extensions and tasks rely on, in a real VS Code: `azurite.start_*` on a running service
 * and `azurite.close_*` on a stopped one resolve `[{ ok: true }]` and show nothing (Azure Functions
 * asked Azurite for this), concurrent starts make one server, and today's SDKs are served with the
 * default `azurite.apiVersionCheck`, which applies live.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { BlobServiceClient, RestError } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import type { Outcome } from '../../src/emulator/serviceManager';
import { api, configure, reset, waitFor } from './helpers';

describe('Lifecycle commands and API versions, as other extensions use them', function () {
  before(reset);
  afterEach(async () => {
    await vscode.workspace.getConfiguration('azurite').update('apiVersionCheck', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.workspace.getConfiguration('azurite').update('skipApiVersionCheck', undefined, vscode.ConfigurationTarget.Workspace);
    await reset();
  });

  it('a status bar item shows its start at once, also while the start waits before it listens (here: for the engine)', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const a = await api();
    await a.emulator.warmUp();
    const pid = a.emulator.enginePid!;
    // The engine's process held off the CPU: the start waits for its memory check, still `closed`.
    process.kill(pid, 'SIGSTOP');
    let started: Promise<unknown> | undefined;
    try {
      started = a.emulator.start('queue');
      await waitFor('Queue\'s start under way', () => (a.emulator.startsUnderWay().includes('queue') ? true : undefined));
      assert.equal(a.emulator.status('queue').status, 'closed', 'the premise: the start has not begun to listen');
      await waitFor('the queue item to show the start', () => (a.statusItems().queue.text === '$(loading~spin) Queue' ? true : undefined));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    assert.deepEqual(await started, { ok: true });
    await waitFor('the queue item to show it running', () => (/^\$\(check\) Queue :\d+$/.test(a.statusItems().queue.text) ? true : undefined));
  });

  it('azurite.start_blob twice, and three times at once, runs one server and shows no notification', async () => {
    const a = await api();
    const shown = a.notifications().length;
    const lines: string[] = [];
    const sub = a.emulator.onDidChangeState(({ kind, state }) => { if (kind === 'blob') lines.push(state.status); });
    try {
      assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob'), [{ ok: true }]);
      const port = a.emulator.endpoint('blob')!.port;
      assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob'), [{ ok: true }]);
      const again = await Promise.all([1, 2, 3].map(() => vscode.commands.executeCommand<Outcome[]>('azurite.start_blob')));
      assert.deepEqual(again, [[{ ok: true }], [{ ok: true }], [{ ok: true }]]);
      assert.equal(a.emulator.endpoint('blob')!.port, port);
      assert.deepEqual(lines, ['starting', 'running']);
      assert.deepEqual(a.notifications().slice(shown), []);
    } finally {
      sub.dispose();
    }
  });

  it('concurrent azurite.start_queue calls on a stopped service share one start', async () => {
    const a = await api();
    const lines: string[] = [];
    const sub = a.emulator.onDidChangeState(({ kind, state }) => { if (kind === 'queue') lines.push(state.status); });
    try {
      const outcomes = await Promise.all([1, 2].map(() => vscode.commands.executeCommand<Outcome[]>('azurite.start_queue')));
      assert.deepEqual(outcomes, [[{ ok: true }], [{ ok: true }]]);
      assert.deepEqual(lines, ['starting', 'running']);
    } finally {
      sub.dispose();
    }
  });

  it('azurite.close_table and azurite.close on stopped services resolve ok and show nothing', async () => {
    const a = await api();
    const shown = a.notifications().length;
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.close_table'), [{ ok: true }]);
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.close'), [{ ok: true }, { ok: true }, { ok: true }]);
    assert.deepEqual(a.notifications().slice(shown), []);
  });

  it('azurite.clean queues every service\'s clean at once: what waits for the services\' lifecycle (a Reset, Import or Export) waits for all of them', async () => {
    const a = await api();
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start'), [{ ok: true }, { ok: true }, { ok: true }]);
    const cs = a.emulator.connectionString();
    await QueueServiceClient.fromConnectionString(cs).getQueueClient('before-clean').create();
    const blobStopping = new Promise<void>((resolve) => {
      const sub = a.emulator.onDidChangeState(({ kind, state }) => { if (kind === 'blob' && state.status !== 'running') { sub.dispose(); resolve(); } });
    });
    const cleaned = vscode.commands.executeCommand<Outcome[]>('azurite.clean', { skipConfirmation: true });
    await blobStopping;
    // Blob's clean is under way: Queue's must be queued already, so this waits for it too.
    await a.emulator.lifecycleSettled(['queue', 'table']);
    assert.equal(await QueueServiceClient.fromConnectionString(a.emulator.connectionString()).getQueueClient('before-clean').exists(), false, 'Queue was cleaned before the wait ended');
    assert.deepEqual(await cleaned, [{ ok: true }, { ok: true }, { ok: true }]);
  });

  it('serves today\'s @azure/storage-blob with the default setting; strict, set live, refuses it on the same port; the tooltip names the newest API version', async () => {
    const a = await api();
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob'), [{ ok: true }]);
    const port = a.emulator.endpoint('blob')!.port;
    const container = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('today');
    await container.create();
    await container.getBlockBlobClient('b.txt').upload('hello', 5);
    const newest = a.emulator.newestApiVersion('blob');
    assert.match(newest ?? '', /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(a.statusItems().blob.tooltip.includes(`API versions: up to ${newest!.replace(/-/g, '\\-')}`), a.statusItems().blob.tooltip);

    await configure({ apiVersionCheck: 'strict' });
    await assert.rejects(container.getBlockBlobClient('b.txt').downloadToBuffer(), (err: RestError) => err.statusCode === 400);
    await configure({ apiVersionCheck: 'acceptNewer' });
    assert.equal((await container.getBlockBlobClient('b.txt').downloadToBuffer()).toString(), 'hello');
    assert.equal(a.emulator.endpoint('blob')!.port, port);
  });

  it('vscode-azurestorage\'s fix still works: skipApiVersionCheck written, then azurite.close + azurite.start', async () => {
    const a = await api();
    await configure({ apiVersionCheck: 'strict' });
    await vscode.workspace.getConfiguration('azurite').update('skipApiVersionCheck', true, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('azurite.close');
    const started = await vscode.commands.executeCommand<Outcome[]>('azurite.start');
    assert.ok(started.every((o) => o.ok), JSON.stringify(started));
    await waitFor('skipApiVersionCheck to reach the emulator', () => a.emulator.options.apiVersionCheck === 'off');
    const container = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('skipped');
    await container.create();
    assert.ok(await container.exists());
  });
});
