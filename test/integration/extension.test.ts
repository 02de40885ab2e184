/**
 * The extension inside a real VS Code extension host (code-server here; VS Code desktop via
 * @vscode/test-electron elsewhere): commands through executeCommand, settings through the
 * configuration API, status items read back through the extension's API, real SDK clients.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BlobServiceClient, RestError } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { TableClient, TableServiceClient } from '@azure/data-tables';
import type { Outcome } from '../../src/emulator/serviceManager';
import { api, configure, reset, waitFor } from './helpers';

const packageJson = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { commands: { command: string }[] };
};

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

describe('Storage Emulators in a real VS Code', function () {
  before(async () => {
    await reset();
  });
  afterEach(async () => {
    await reset();
  });

  it('activates on startup with a status item per service and no memory meter yet', async () => {
    const ext = vscode.extensions.getExtension('storage-emulators.storage-emulators')!;
    await waitFor('activation on startup', () => ext.isActive);
    const a = await api();
    assert.ok(a.activationMs >= 0 && a.activationMs < 5000, `activationMs ${a.activationMs}`);
    console.log(`integration: activate() took ${a.activationMs} ms`);
    // The service items appear once the warm-up has loaded the engine: a click on one only listens.
    const items = await waitFor('the service items', () => {
      const now = a.statusItems();
      return now.blob.visible ? now : undefined;
    });
    // Shown by the warm-up's end; or, when the warm-up takes longer than REVEAL_WAIT_MS (a machine
    // busy with other work), by that bound, and the warm-up still ends.
    const shownBy = a.statusItemsShownBy();
    assert.ok(shownBy === 'warm-up' || shownBy === 'timeout', `shown by ${shownBy}`);
    if (shownBy === 'warm-up') assert.ok(a.emulator.engineLoadResult() !== undefined, 'the items showed before the engine had loaded');
    else await waitFor('the slow warm-up to load the engine', () => a.emulator.engineLoadResult(), 20_000);
    for (const [kind, name] of [['blob', 'Blob'], ['queue', 'Queue'], ['table', 'Table']] as const) {
      assert.equal(items[kind].visible, true);
      assert.match(items[kind].text, new RegExp(`^\\$\\(debug-start\\) ${name}$`));
      assert.equal(items[kind].command, `azurite.start_${kind}`);
    }
    assert.equal(items.memory.visible, false);
  });

  it('loads the engine through a V8 code cache in global storage, written after a start', async () => {
    const a = await api();
    const outcome = await vscode.commands.executeCommand<Outcome[]>('azurite.start_queue');
    assert.deepEqual(outcome, [{ ok: true }]);
    const cache = a.engineCodeCache();
    assert.ok(cache.state === 'missing' || cache.state === 'used', `state ${cache.state}`);
    const file = cache.file ?? '';
    assert.match(file, /storage-emulators\.storage-emulators[/\\]code-cache[/\\]engine-[0-9a-f]{8}-[0-9a-f]{16}\.cache$/);
    await waitFor('the code cache file', () => fs.existsSync(file) && fs.statSync(file).size > 1_000_000);
  });

  it('loads its own composition root (dist/main.js) through a V8 code cache beside the engine\'s, written once activation has settled', async () => {
    const dir = path.dirname((await api()).engineCodeCache().file ?? '');
    const mainCache = () => (fs.existsSync(dir) ? fs.readdirSync(dir) : []).find((f) => /^main-[0-9a-f]{8}-[0-9a-f]{16}\.cache$/.test(f));
    const file = await waitFor('the extension\'s code cache file', () => mainCache());
    // It holds what activation compiled, not only the module's top level: far more than the 3 KB entry point.
    assert.ok(fs.statSync(path.join(dir, file)).size > 20_000, `${file}: ${fs.statSync(path.join(dir, file)).size} bytes`);
  });

  it('registers every contributed command', async () => {
    const all = new Set(await vscode.commands.getCommands(true));
    const contributed = packageJson.contributes.commands.map((c) => c.command);
    assert.ok(contributed.length >= 14);
    for (const id of contributed) assert.ok(all.has(id), `${id} is not registered`);
  });

  it('starts all services from the palette command; SDK clients use them; the items show ports', async () => {
    const a = await api();
    const outcomes = await vscode.commands.executeCommand<Outcome[]>('azurite.start');
    assert.deepEqual(outcomes, [{ ok: true }, { ok: true }, { ok: true }]);
    const items = a.statusItems();
    for (const kind of ['blob', 'queue', 'table'] as const) {
      const port = a.emulator.endpoint(kind)!.port;
      assert.ok(items[kind].text.endsWith(`:${port}`), items[kind].text);
      assert.equal(items[kind].command, `azurite.close_${kind}`);
      assert.match(items[kind].tooltip, /command:azurite\.close_/);
      assert.match(items[kind].tooltip, /command:azurite\.copyConnectionString/);
    }
    const cs = await vscode.commands.executeCommand<string>('azurite.copyConnectionString');
    assert.match(cs, /^DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;/);
    const container = BlobServiceClient.fromConnectionString(cs).getContainerClient('vscode');
    await container.create();
    await container.getBlockBlobClient('hello.txt').uploadData(Buffer.from('from vscode'));
    assert.equal((await container.getBlockBlobClient('hello.txt').downloadToBuffer()).toString(), 'from vscode');
    const queue = QueueServiceClient.fromConnectionString(cs).getQueueClient('vscode-queue');
    await queue.create();
    await queue.sendMessage('m');
    const table = TableClient.fromConnectionString(cs, 'vscodetable', { allowInsecureConnection: true });
    await table.createTable();
    await table.createEntity({ partitionKey: 'p', rowKey: 'r' });

    // The memory meter shows blob + queue bytes against the limit.
    const meter = await waitFor('the memory meter to count the blob and the message (12 bytes)', () => {
      const m = a.statusItems().memory;
      return m.visible && /^\$\(database\) 12 B \/ /.test(m.text) ? m : undefined;
    });
    assert.match(meter.tooltip, /Blob content: 11 B/);
    const report = await vscode.commands.executeCommand<{ blobBytes: number; queueBytes: number }>('azurite.showMemoryUsage');
    assert.equal(report.blobBytes, 11);
    assert.equal(report.queueBytes, 1);
  });

  it('refuses the write past azurite.extentMemoryLimit with 409 and the meter reads 0.9 MB / 1 MB', async () => {
    const a = await api();
    await configure({ extentMemoryLimit: 1 });
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    const container = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('limit');
    await container.create();
    for (let i = 0; i < 3; i++) await container.getBlockBlobClient(`b${i}`).uploadData(Buffer.alloc(300 * 1024, i));
    await assert.rejects(container.getBlockBlobClient('b3').uploadData(Buffer.alloc(300 * 1024)), (err: unknown) =>
      err instanceof RestError && err.statusCode === 409 && err.code === 'MemoryExtentStoreAtSizeLimit');
    const meter = await waitFor('the meter to show 0.9 MB / 1 MB', () => {
      const m = a.statusItems().memory;
      return m.text === '$(database) 0.9 MB / 1 MB' ? m : undefined;
    });
    assert.match(meter.tooltip, /921,600 bytes/);
    assert.match(meter.tooltip, /Table entities and metadata .* not counted/);
    assert.equal(a.emulator.status('blob').status, 'running');
  });

  it('shows a bad setting on the item and refuses to start, naming the setting and the fix', async () => {
    const a = await api();
    await vscode.workspace.getConfiguration('azurite').update('blobPort', 70000, vscode.ConfigurationTarget.Workspace);
    await waitFor('the blob item to show the setting error', () => a.statusItems().blob.backgroundColor === 'statusBarItem.errorBackground');
    const [outcome] = await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob');
    assert.equal(outcome!.ok, false);
    assert.match((outcome as { message: string }).message, /azurite\.blobPort is 70000; use a whole number from 0 to 65535/);
    const item = a.statusItems().blob;
    assert.match(item.text, /^\$\(error\) Blob$/);
    assert.match(item.tooltip, /azurite\\\.blobPort is 70000/);
    assert.equal(a.emulator.status('blob').status, 'closed');
  });

  it('cleans a running service on confirmation and restarts it empty', async () => {
    const a = await api();
    await vscode.commands.executeCommand('azurite.start_blob');
    const cs = a.emulator.connectionString();
    await BlobServiceClient.fromConnectionString(cs).getContainerClient('to-clean').create();
    const outcomes = await vscode.commands.executeCommand<Outcome[]>('azurite.clean_blob', { skipConfirmation: true });
    assert.deepEqual(outcomes, [{ ok: true }]);
    assert.equal(a.emulator.status('blob').status, 'running');
    const fresh = BlobServiceClient.fromConnectionString(a.emulator.connectionString());
    assert.equal(await fresh.getContainerClient('to-clean').exists(), false);
  });

  it('stops every service with azurite.close and frees the ports', async () => {
    const a = await api();
    await vscode.commands.executeCommand('azurite.start');
    const ports = (['blob', 'queue', 'table'] as const).map((k) => a.emulator.endpoint(k)!.port);
    for (const p of ports) assert.equal(await canListen(p), false);
    await vscode.commands.executeCommand('azurite.close');
    for (const p of ports) assert.equal(await canListen(p), true, `port ${p} still taken`);
    assert.match(a.statusItems().blob.text, /^\$\(debug-start\) Blob$/);
    assert.equal(a.statusItems().memory.visible, false);
  });

  it('stores data under .azurite in the workspace folder in disk mode, and keeps it across restarts', async () => {
    const a = await api();
    const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    await configure({ inMemoryPersistence: false });
    assert.equal(a.emulator.options.location, path.join(workspace, '.azurite'));
    await vscode.commands.executeCommand('azurite.start_table');
    const cs = a.emulator.connectionString();
    await TableClient.fromConnectionString(cs, 'disktable', { allowInsecureConnection: true }).createTable();
    await vscode.commands.executeCommand('azurite.close_table');
    assert.ok(fs.readFileSync(path.join(workspace, '.azurite', '__azurite_db_table__.json'), 'utf8').includes('disktable'));
    await vscode.commands.executeCommand('azurite.start_table');
    const names: string[] = [];
    const service = TableServiceClient.fromConnectionString(a.emulator.connectionString(), { allowInsecureConnection: true });
    for await (const t of service.listTables()) names.push(t.name!);
    assert.deepEqual(names, ['disktable']);
    await vscode.commands.executeCommand('azurite.clean_table', { skipConfirmation: true });
  });
});
