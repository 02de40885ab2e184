/**
 * `azurite.attach` in the real VS Code: a second Azurite (the azurite CLI from node_modules, started
 * by the test) is attached; the status bar shows it, the local emulator does not start, and Export,
 * Import, the Storage view and Copy Connection String work on it.
 */
import * as assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BlobServiceClient } from '@azure/storage-blob';
import { TableServiceClient } from '@azure/data-tables';
import { DATA_FILES } from '../../src/core/dataFiles';
import { DEV_ACCOUNT_KEY } from '../../src/core/connectionString';
import { PROGRESS_DELAY_MS } from '../../src/ui/progress';
import { api, configure, freePorts, manyBlobsSnapshot, reset, runTask, startOtherAzurite, waitFor, withEngineHeld } from './helpers';

describe('Attach to an Azurite that runs elsewhere (azurite.attach)', function () {
  this.timeout(120_000);
  let other: childProcess.ChildProcess | undefined;
  let connectionString: string;
  let blobPort: number;

  before(async () => {
    await reset();
    const ports = await freePorts(3);
    blobPort = ports[0]!;
    other = await startOtherAzurite([ports[0]!, ports[1]!, ports[2]!]);
    connectionString = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${DEV_ACCOUNT_KEY};` +
      `BlobEndpoint=http://127.0.0.1:${ports[0]}/devstoreaccount1;QueueEndpoint=http://127.0.0.1:${ports[1]}/devstoreaccount1;TableEndpoint=http://127.0.0.1:${ports[2]}/devstoreaccount1;`;
  });

  after(async () => {
    await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
    other?.kill();
    await reset();
  });

  it('says when a local service could not stop cleanly as the window attached: its final save failed', async () => {
    const a = await api();
    const location = fs.mkdtempSync(path.join(os.tmpdir(), 'attach-save-'));
    const azurite = () => vscode.workspace.getConfiguration('azurite');
    try {
      await configure({ inMemoryPersistence: false });
      await azurite().update('location', location, vscode.ConfigurationTarget.Workspace);
      await waitFor('the location', () => a.emulator.options.location === location);
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_table'), [{ ok: true }]);
      await TableServiceClient.fromConnectionString(a.emulator.connectionString(), { allowInsecureConnection: true }).createTable('unsaved');
      // A folder where LokiJS writes its temporary file: every save of the table metadata fails.
      fs.mkdirSync(path.join(location, `${DATA_FILES.table.db}~`));
      const shown = a.notifications().length;
      await configure({ attach: connectionString });
      await waitFor('the local Table to stop', () => a.emulator.status('table').status === 'closed');
      await waitFor('the failed stop said', () => a.notifications().slice(shown).some((n) => n.startsWith('Table service did not stop cleanly')) || undefined);
    } finally {
      await azurite().update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      await azurite().update('location', undefined, vscode.ConfigurationTarget.Workspace);
      await configure({ inMemoryPersistence: true });
      await waitFor('detached', () => !a.statusItems().attach.visible);
      fs.rmSync(location, { recursive: true, force: true });
    }
  });

  it('shows the attached Azurite instead of the local items, stops and refuses the local emulator, and exports and imports its data', async () => {
    const a = await api();
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_queue'), [{ ok: true }]);
    const shown = a.notifications().length;
    await configure({ attach: connectionString });
    const label = `127.0.0.1:${blobPort}, 127.0.0.1:${blobPort === 0 ? 0 : connectionString.match(/QueueEndpoint=http:\/\/127\.0\.0\.1:(\d+)/)![1]}, 127.0.0.1:${connectionString.match(/TableEndpoint=http:\/\/127\.0\.0\.1:(\d+)/)![1]}`;
    await waitFor('the attached item', () => a.statusItems().attach.visible && a.statusItems().attach.text === `$(plug) Azurite: ${label}`);
    await waitFor('the local queue service to stop', () => a.emulator.status('queue').status === 'closed');
    await waitFor('the notice of the data lost', () => a.notifications().slice(shown).some((n) => /^Attached to the Azurite at 127\.0\.0\.1:\d+.*: the local services stopped, and the in-memory data of Queue is gone\.$/.test(n)) || undefined);
    const items = a.statusItems();
    assert.equal(items.blob.visible, false);
    assert.equal(items.memory.visible, false);
    assert.match(items.attach.tooltip, new RegExp(`Blob: \`http://127\\.0\\.0\\.1:${blobPort}/devstoreaccount1\``));

    const [refused] = await vscode.commands.executeCommand<{ ok: boolean; reason?: string; message?: string }[]>('azurite.start_blob');
    assert.equal(refused!.ok, false);
    assert.equal(refused!.reason, 'state');
    assert.match(refused!.message!, /^Attached to the Azurite at 127\.0\.0\.1:\d+.*Clear azurite\.attach to run the local emulator\.$/);
    assert.equal(a.emulator.status('blob').status, 'closed');

    const remote = BlobServiceClient.fromConnectionString(connectionString).getContainerClient('remote-data');
    await remote.create();
    await remote.getBlockBlobClient('x.txt').uploadData(Buffer.from('from the other Azurite'));
    // Listed before the Import below: its containers show without a Refresh once it has run.
    await vscode.commands.executeCommand('azurite.storage.refresh');
    assert.deepEqual((await a.storageTree())[0]!.children?.map((c) => c.label), ['remote-data']);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'attach-export-'));
    try {
      assert.deepEqual(await vscode.commands.executeCommand('azurite.exportSnapshot', { folder: out, skipConfirmation: true }), { ok: true });
      assert.equal(fs.readFileSync(path.join(out, 'blob', 'remote-data', 'x.txt'), 'utf8'), 'from the other Azurite');

      fs.renameSync(path.join(out, 'blob', 'remote-data'), path.join(out, 'blob', 'imported'));
      fs.renameSync(path.join(out, 'blob', 'remote-data.blobs.jsonl'), path.join(out, 'blob', 'imported.blobs.jsonl'));
      assert.deepEqual(await vscode.commands.executeCommand('azurite.importSnapshot', { folder: out, skipConfirmation: true }), { ok: true });
      const imported = BlobServiceClient.fromConnectionString(connectionString).getContainerClient('imported');
      assert.equal((await imported.getBlobClient('x.txt').downloadToBuffer()).toString(), 'from the other Azurite');
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }

    // The Storage view browses the attached Azurite. It sends no change events: the view reloads
    // after an Import or Export of this window, and on Refresh.
    const tree = await a.storageTree();
    assert.deepEqual(tree.map((n) => n.label), ['Blob Containers', 'Queues', 'Tables']);
    assert.deepEqual(tree[0]!.children?.map((c) => c.label), ['imported', 'remote-data']);
    assert.deepEqual(tree[0]!.children?.[1]?.children?.map((c) => c.label), ['x.txt']);
    assert.equal(tree[0]!.children?.[1]?.description, undefined, 'no engine figures for an Azurite elsewhere');
    // An open blob follows a rewrite once Refresh is run (the attached Azurite reports no changes).
    await vscode.commands.executeCommand('azurite.storage.open', a.storageNode(`devstoreaccount1/blob/remote-data/x.txt`));
    await waitFor('the blob editor', () => (vscode.window.activeTextEditor?.document.getText() === 'from the other Azurite' ? true : undefined));
    await remote.getBlockBlobClient('x.txt').uploadData(Buffer.from('rewritten elsewhere'));
    await vscode.commands.executeCommand('azurite.storage.refresh');
    await waitFor('the open blob to reload', () => (vscode.window.activeTextEditor?.document.getText() === 'rewritten elsewhere' ? true : undefined));
    // An upload from the view that replaces it reloads it without a Refresh.
    const uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attach-upload-'));
    fs.writeFileSync(path.join(uploadDir, 'x.txt'), 'uploaded from the view');
    await vscode.commands.executeCommand('azurite.storage.upload', a.storageNode('devstoreaccount1/blob/remote-data'), { files: [path.join(uploadDir, 'x.txt')], skipConfirmation: true });
    fs.rmSync(uploadDir, { recursive: true, force: true });
    await waitFor('the open blob to reload after the upload', () => (vscode.window.activeTextEditor?.document.getText() === 'uploaded from the view' ? true : undefined));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    const copied = await vscode.commands.executeCommand<string>('azurite.copyConnectionString');
    assert.match(copied, new RegExp(`BlobEndpoint=http://127\\.0\\.0\\.1:${blobPort}/devstoreaccount1`), 'the attached Azurite\'s connection string');
    // Its one account by name, as a caller naming accounts asks; another account is unknown there.
    assert.equal(await vscode.commands.executeCommand('azurite.copyConnectionString', { account: 'devstoreaccount1' }), copied);
    assert.equal(await vscode.commands.executeCommand('azurite.copyConnectionString', { account: 'tenant1' }), undefined);
    assert.ok(a.notifications().some((n) => n.startsWith('Azurite: no account tenant1. This window is attached to the Azurite at ')), 'says why');
    const endpoints = await vscode.commands.executeCommand<string>('azurite.copyEndpoints');
    assert.equal(endpoints, connectionString.split(';').filter((p) => /Endpoint=http/.test(p)).map((p) => p.split('=')[1]).join('\n'), 'the attached Azurite\'s endpoint URLs');

    const resetOutcome = await vscode.commands.executeCommand<{ ok: boolean; reason?: string }>('azurite.reset', { skipConfirmation: true });
    assert.equal(resetOutcome.ok, false, 'reset never empties an attached, maybe shared, Azurite');
    assert.equal(await remote.exists(), true);
    // Clean works on the local emulator's data, not what the window shows: refused, saying so.
    const shownBeforeClean = a.notifications().length;
    const cleaned = await vscode.commands.executeCommand<{ ok: boolean; message?: string }[]>('azurite.clean', { skipConfirmation: true });
    assert.deepEqual(cleaned.map((o) => o.ok), [false, false, false]);
    assert.match(cleaned[0]!.message ?? '', /^Clean deletes the local emulator's data; this window is attached to the Azurite at /);
    assert.equal(a.notifications().slice(shownBeforeClean).filter((n) => n.includes('Clean deletes the local emulator')).length, 1, 'one notification');
    assert.equal(await vscode.commands.executeCommand('azurite.reclaimMemory'), 0);
    assert.ok(a.notifications().some((n) => n.startsWith('Azurite: nothing to reclaim here')));
    assert.equal(await remote.exists(), true);
    // The memory page says whose figures it shows: the local emulator's, not the attached Azurite's.
    await vscode.commands.executeCommand('azurite.showMemoryUsage');
    await waitFor('the memory page to name the attached Azurite', () => a.memoryPanelHtml()?.includes('<p class="note" id="attached">This window is attached to the Azurite at '));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');

    await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
    await waitFor('the local items to come back', () => a.statusItems().blob.visible && !a.statusItems().attach.visible);
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
  });

  it('Load more… in the Storage view shows a folder that comes again on the next page once', async () => {
    const a = await api();
    await configure({ attach: connectionString });
    await waitFor('the attached item', () => a.statusItems().attach.visible || undefined);
    const paged = BlobServiceClient.fromConnectionString(connectionString).getContainerClient('paged');
    await paged.create();
    const names = [...Array.from({ length: 199 }, (_, i) => `b${String(i).padStart(3, '0')}`), 'zz/1', 'zzz'];
    for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map((n) => paged.getBlockBlobClient(n).uploadData(Buffer.from(n))));
    await vscode.commands.executeCommand('azurite.storage.refresh');
    const containerId = 'devstoreaccount1/blob/paged';
    const children = async (): Promise<string[]> => (await a.storageTree(3))[0]!.children!.find((c) => c.id === containerId)!.children!.map((c) => c.id);
    const first = await children();
    assert.equal(first.length, 201);
    assert.equal(first[0], `${containerId}/zz/`, 'the first page ends with the folder (folders first)');
    // Azurite ended the page after the folder's last blob; one added under it since sorts after that.
    await paged.getBlockBlobClient('zz/2').uploadData(Buffer.from('zz/2'));
    await vscode.commands.executeCommand('azurite.storage.loadMore', a.storageNode(`${containerId}\u0000more`));
    const all = await children();
    assert.deepEqual(all.filter((id) => id === `${containerId}/zz/`), [`${containerId}/zz/`], 'the folder once');
    assert.equal(all.length, 201);
    assert.equal(all.at(-1), `${containerId}/zzz`);
    await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('an upload during a reload of the Storage view shows the new blob, although the reload\'s page was read before it', async () => {
    const a = await api();
    // A proxy in front of the other Azurite's Blob endpoint that can hold back the answer of the
    // container's next List Blobs (read by Azurite at once, so it lacks what comes after it).
    let holdNext = false;
    let held: { release(): void } | undefined;
    const proxy = http.createServer((req, res) => {
      const listing = req.method === 'GET' && /^\/devstoreaccount1\/reloaded\?/.test(req.url ?? '') && /comp=list/.test(req.url ?? '');
      const upstream = http.request({ host: '127.0.0.1', port: blobPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        const pass = (): void => { res.writeHead(answer.statusCode ?? 500, answer.headers); answer.pipe(res); };
        if (listing && holdNext) {
          holdNext = false;
          let passed = false;
          held = { release: () => { if (!passed) { passed = true; pass(); } } };
        } else pass();
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyPort = (proxy.address() as net.AddressInfo).port;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emu-reload-'));
    try {
      await configure({ attach: connectionString.replace(`BlobEndpoint=http://127.0.0.1:${blobPort}/`, `BlobEndpoint=http://127.0.0.1:${proxyPort}/`) });
      await waitFor('the attached item', () => a.statusItems().attach.visible || undefined);
      const container = BlobServiceClient.fromConnectionString(connectionString).getContainerClient('reloaded');
      await container.create();
      await container.getBlockBlobClient('first.txt').uploadData(Buffer.from('first'));
      const containerId = 'devstoreaccount1/blob/reloaded';
      const blobsShown = async (): Promise<string[]> => (await a.storageTree(3))[0]!.children!.find((c) => c.id === containerId)?.children?.map((c) => c.id) ?? [];
      await vscode.commands.executeCommand('azurite.storage.refresh');
      assert.deepEqual(await blobsShown(), [`${containerId}/first.txt`]);

      holdNext = true;
      await vscode.commands.executeCommand('azurite.storage.refresh');
      const reloading = blobsShown();
      await waitFor('the reload\'s List Blobs to be held', () => held !== undefined || undefined);
      fs.writeFileSync(path.join(dir, 'new.txt'), 'new');
      const transfer = new vscode.DataTransfer();
      transfer.set('text/uri-list', new vscode.DataTransferItem(vscode.Uri.file(path.join(dir, 'new.txt')).toString()));
      await a.storageDrop(containerId, transfer);
      held!.release();
      await reloading;
      await waitFor('the new blob in the view', async () => (await blobsShown()).includes(`${containerId}/new.txt`) || undefined, 10_000);
    } finally {
      held?.release();
      await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an azurite start task waits for the attached Azurite instead of failing (with services left out, for the ones it names), and says which service it does not name', async () => {
    const a = await api();
    await configure({ attach: connectionString });
    await waitFor('the local services to stop', () => (['blob', 'queue', 'table'] as const).every((k) => a.emulator.status(k).status === 'closed') || undefined);
    const tasks = await vscode.tasks.fetchTasks({ type: 'azurite' });
    assert.equal(await runTask(tasks.find((t) => t.name === 'start')!), 0, 'a shared preLaunchTask works for whoever is attached');
    assert.deepEqual(['blob', 'queue', 'table'].map((k) => a.emulator.status(k as 'blob').status), ['closed', 'closed', 'closed'], 'nothing local started');
    // Attached to a Blob endpoint only: a task that needs Table ends with 1.
    await configure({ attach: connectionString.split(';').filter((p) => !/^(Queue|Table)Endpoint=/.test(p)).join(';') });
    await waitFor('the Blob-only attach', () => a.statusItems().attach.text === `$(plug) Azurite: 127.0.0.1:${blobPort}` || undefined);
    assert.equal(await runTask(tasks.find((t) => t.name === 'start blob')!), 0);
    assert.equal(await runTask(tasks.find((t) => t.name === 'start table')!), 1);
    // "services" left out: the endpoints the attach names (a preLaunchTask shared with a Blob-only container).
    assert.equal(await runTask(tasks.find((t) => t.name === 'start')!), 0);
    // A reset task does not touch an Azurite that may be shared, and starts nothing local.
    const shown = a.notifications().length;
    assert.equal(await runTask(tasks.find((t) => t.name === 'reset')!), 1);
    assert.deepEqual(['blob', 'queue', 'table'].map((k) => a.emulator.status(k as 'blob').status), ['closed', 'closed', 'closed']);
    assert.deepEqual(a.notifications().slice(shown), []);
    await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('attaching while an import loads the local Blob stops it only once the import is done, which completes', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const a = await api();
    await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
    await waitFor('detached', () => a.statusItems().attach.visible === false || undefined);
    const snapshot = manyBlobsSnapshot(1500);
    try {
      await configure({ inMemoryPersistence: true });
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      const blobs = BlobServiceClient.fromConnectionString(a.emulator.connectionString());
      let outcome: unknown;
      const importing = Promise.resolve(vscode.commands.executeCommand('azurite.importSnapshot', { folder: snapshot, skipConfirmation: true })).then((o) => { outcome = o; });
      await waitFor('the import to be loading blobs', async () => (await blobs.getContainerClient('many').exists()) || undefined, 30_000);
      assert.equal(outcome, undefined, 'the import is still loading blobs (else the test proves nothing: make it larger)');
      const progressBefore = a.progressShown().length;
      const stopWait = (t: string): boolean => t.endsWith('the local services stop once the Reset, Import or Export under way is done');
      // The engine held off the CPU (SIGSTOP) until the wait's progress shows: the import then
      // surely runs on for longer than the progress delay, however the machine schedules it.
      const pid = a.emulator.enginePid!;
      const attachedAt = performance.now();
      process.kill(pid, 'SIGSTOP');
      try {
        await vscode.workspace.getConfiguration('azurite').update('attach', connectionString, vscode.ConfigurationTarget.Workspace);
        await waitFor('the attached item', () => a.statusItems().attach.visible || undefined);
        assert.equal(outcome, undefined, 'the import still runs as the setting takes effect');
        assert.equal(a.emulator.status('blob').status, 'running', 'Blob runs on while the import loads it');
        // A wait of over a second says what it waits for.
        const shownAt = await waitFor('the wait\'s progress', () => (a.progressShown().slice(progressBefore).some(stopWait) ? performance.now() : undefined), 30_000);
        assert.ok(shownAt - attachedAt >= PROGRESS_DELAY_MS, `no progress before the delay: it showed ${Math.round(shownAt - attachedAt)} ms after the setting`);
        assert.equal(outcome, undefined, 'the import still runs');
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      await importing;
      assert.deepEqual(outcome, { ok: true });
      assert.equal(a.progressShown().slice(progressBefore).filter(stopWait).length, 1, 'said once');
      await waitFor('the local Blob to stop once the import is done', () => a.emulator.status('blob').status === 'closed' || undefined, 30_000);
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(snapshot, { recursive: true, force: true });
    }
  });

  it('an Import whose azurite.attach changes before it writes stops and says so: neither Azurite gets the snapshot', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const a = await api();
    const azurite = () => vscode.workspace.getConfiguration('azurite');
    await azurite().update('attach', undefined, vscode.ConfigurationTarget.Workspace);
    await waitFor('detached', () => a.statusItems().attach.visible === false || undefined);
    const snapshot = fs.mkdtempSync(path.join(os.tmpdir(), 'import-moved-'));
    fs.mkdirSync(path.join(snapshot, 'blob', 'moved-target'), { recursive: true });
    fs.writeFileSync(path.join(snapshot, 'blob', 'moved-target', 'a.txt'), 'a');
    try {
      await configure({ inMemoryPersistence: true });
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      const local = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('moved-target');
      const progressBefore = a.progressShown().length;
      let importing: Thenable<{ ok: boolean; message?: string }> | undefined;
      // The local Blob held: the import waits in its listing of what it would replace there.
      await withEngineHeld(a.emulator.enginePid!, async () => {
        importing = vscode.commands.executeCommand('azurite.importSnapshot', { folder: snapshot, skipConfirmation: true });
        await waitFor('the import reading', () => a.progressShown().slice(progressBefore).includes('Azurite: Reading the snapshot') || undefined, 30_000);
        await azurite().update('attach', connectionString, vscode.ConfigurationTarget.Workspace);
        await waitFor('the attached item', () => a.statusItems().attach.visible || undefined);
        // Before the resume (the local Blob stops once the import ends): nothing written there yet.
      });
      const outcome = await importing!;
      assert.equal(outcome.ok, false);
      assert.match(outcome.message ?? '', /^Import stopped: azurite\.attach changed while it waited \(it now points at the Azurite at 127\.0\.0\.1:\d+.*\)\. Nothing was imported; run it again to use that target\.$/);
      assert.equal(await BlobServiceClient.fromConnectionString(connectionString).getContainerClient('moved-target').exists(), false, 'not in the attached Azurite');
      if (a.emulator.status('blob').status === 'running') assert.equal(await local.exists(), false, 'not in the local Blob');
    } finally {
      await azurite().update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(snapshot, { recursive: true, force: true });
    }
  });

  it('attached to an Azurite that serves Blob only (UseDevelopmentStorage=true names all three), Export and Import work on Blob and name what nothing answers for', async () => {
    const a = await api();
    const [queuePort, tablePort] = await freePorts(2);
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'attach-blob-only-'));
    const blobOnly = connectionString.replace(/QueueEndpoint=http:\/\/127\.0\.0\.1:\d+/, `QueueEndpoint=http://127.0.0.1:${queuePort}`).replace(/TableEndpoint=http:\/\/127\.0\.0\.1:\d+/, `TableEndpoint=http://127.0.0.1:${tablePort}`);
    try {
      await configure({ attach: blobOnly });
      await waitFor('the attached item', () => a.statusItems().attach.visible || undefined);
      await BlobServiceClient.fromConnectionString(connectionString).getContainerClient('blob-only').createIfNotExists();
      const shown = a.notifications().length;
      assert.deepEqual(await vscode.commands.executeCommand('azurite.exportSnapshot', { folder, skipConfirmation: true }), { ok: true });
      const said = a.notifications().slice(shown).find((n) => n.startsWith(`Snapshot exported to ${folder}`));
      assert.match(said ?? '', new RegExp(`Not exported: queue/ \\(nothing answers at 127\\.0\\.0\\.1:${queuePort}, which azurite\\.attach names for Queue\\), table/ \\(nothing answers at 127\\.0\\.0\\.1:${tablePort}, which azurite\\.attach names for Table\\)\\.`));
      assert.ok(fs.existsSync(path.join(folder, 'blob', 'blob-only')), 'Blob exported');
      assert.deepEqual(await vscode.commands.executeCommand('azurite.importSnapshot', { folder, skipConfirmation: true }), { ok: true });
      assert.match(a.notifications().at(-1) ?? '', /^Snapshot imported from .* Not imported: queue\/ \(nothing answers at/);
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('says that the attached Azurite may not serve the account it was given, or has another key, when it answers 404 or 403', async () => {
    const a = await api();
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'attach-account-'));
    try {
      for (const [attach, said] of [
        [connectionString.replace(/devstoreaccount1/g, 'nosuch'), /Does the Azurite at 127\.0\.0\.1:\d+.* serve account nosuch\? One started with AZURITE_ACCOUNTS serves only the accounts named there/],
        [connectionString.replace(DEV_ACCOUNT_KEY, Buffer.from('another key').toString('base64')), /The Azurite at 127\.0\.0\.1:\d+.* refused the key of account devstoreaccount1: give azurite\.attach the AccountKey that Azurite has for it\.$/],
      ] as const) {
        await configure({ attach });
        await vscode.commands.executeCommand('azurite.storage.refresh');
        const tree = await waitFor('the three services\' error notes', async () => {
          const t = await a.storageTree(2);
          return t.length === 3 && t.every((n) => n.children?.length === 1 && said.test(n.children[0]!.label)) ? t : undefined;
        });
        assert.equal(tree.length, 3);
        const exported = await vscode.commands.executeCommand<{ ok: boolean; message?: string }>('azurite.exportSnapshot', { folder, skipConfirmation: true });
        assert.equal(exported.ok, false);
        assert.match(exported.message ?? '', said);
      }
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('an azurite.attach that names this window\'s own running Blob is refused: the local Blob keeps running with its data, and it applies once that Blob stops', async () => {
    const a = await api();
    await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
    await waitFor('detached', () => a.statusItems().attach.visible === false || undefined);
    await configure({ inMemoryPersistence: true });
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    const container = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('own');
    await container.create();
    const port = a.emulator.endpoint('blob')!.port;
    const shown = a.notifications().length;
    try {
      await vscode.workspace.getConfiguration('azurite').update('attach', { blob: `http://127.0.0.1:${port}` }, vscode.ConfigurationTarget.Workspace);
      const said = await waitFor('the notification', () => a.notifications().slice(shown).find((n) => n.startsWith('azurite.attach')));
      assert.match(said, new RegExp(`^azurite\\.attach names 127\\.0\\.0\\.1:${port}, where this window's own Blob service runs`));
      await a.settled();
      assert.equal(a.statusItems().attach.visible, false);
      assert.equal(a.emulator.status('blob').status, 'running', 'the local Blob was not stopped');
      assert.equal(await container.exists(), true, 'its in-memory data is still there');
      // A Clean (a stop, then a start) or a restart is not the local Blob stopping: still refused.
      assert.deepEqual(await vscode.commands.executeCommand('azurite.clean_blob', { skipConfirmation: true }), [{ ok: true }]);
      await a.settled();
      assert.equal(a.statusItems().attach.visible, false, 'still refused after a Clean');
      assert.equal(a.emulator.status('blob').status, 'running');
      // The local Blob stopped: the setting applies, without being set again.
      await vscode.commands.executeCommand('azurite.close_blob');
      await waitFor('the attached item once the local Blob stopped', () => a.statusItems().attach.visible || undefined);
      // Another machine on the same port is not this window's Blob, even with Blob on every address.
      await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('azurite.close_blob');
      await configure({ blobHost: '0.0.0.0' });
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      assert.equal(a.emulator.endpoint('blob')?.host, '0.0.0.0');
      const ownPort = a.emulator.endpoint('blob')!.port;
      const before = a.notifications().length;
      await vscode.workspace.getConfiguration('azurite').update('attach', { blob: `http://203.0.113.9:${ownPort}` }, vscode.ConfigurationTarget.Workspace);
      await waitFor('the attached item', () => a.statusItems().attach.visible || undefined);
      assert.deepEqual(a.notifications().slice(before).filter((n) => n.startsWith('azurite.attach')), []);
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('azurite.close_blob');
      await vscode.workspace.getConfiguration('azurite').update('blobHost', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('an azurite.attach that names the port a local Blob is still starting on is refused too, and applies once it stops', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const a = await api();
    const attach = vscode.workspace.getConfiguration('azurite');
    const [port] = await freePorts(1);
    await configure({ inMemoryPersistence: true, blobPort: port });
    // The engine loaded (its process known), then Blob stopped again.
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    await vscode.commands.executeCommand('azurite.close_blob');
    const shown = a.notifications().length;
    try {
      let starting: Thenable<unknown> | undefined;
      await withEngineHeld(a.emulator.enginePid!, async () => {
        starting = vscode.commands.executeCommand('azurite.start_blob');
        // Its start under way (its checks or its listen: it waits for the engine either way).
        await waitFor('Blob\'s start under way', () => a.emulator.startsUnderWay().includes('blob') || undefined);
        await attach.update('attach', { blob: `http://127.0.0.1:${port}` }, vscode.ConfigurationTarget.Workspace);
        const said = await waitFor('the refusal', () => a.notifications().slice(shown).find((n) => n.startsWith('azurite.attach')));
        assert.match(said, new RegExp(`^azurite\\.attach names 127\\.0\\.0\\.1:${port}, where this window's own Blob service runs`));
      });
      assert.deepEqual(await starting, [{ ok: true }], 'the start went on');
      await a.settled();
      assert.equal(a.statusItems().attach.visible, false);
      await vscode.commands.executeCommand('azurite.close_blob');
      await waitFor('the attached item once the local Blob stopped', () => a.statusItems().attach.visible || undefined);
    } finally {
      await attach.update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      await reset();
    }
  });

  it('a refused azurite.attach applies once a restart that fails leaves the local Blob stopped', async () => {
    const a = await api();
    const attach = vscode.workspace.getConfiguration('azurite');
    const holder = net.createServer();
    const [held] = await freePorts(1);
    await new Promise<void>((resolve) => holder.listen(held, '127.0.0.1', resolve));
    try {
      await configure({ inMemoryPersistence: true, restartOnConfigChange: true });
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      const port = a.emulator.endpoint('blob')!.port;
      const shown = a.notifications().length;
      await attach.update('attach', { blob: `http://127.0.0.1:${port}` }, vscode.ConfigurationTarget.Workspace);
      await waitFor('the refusal', () => a.notifications().slice(shown).find((n) => n.startsWith('azurite.attach')));
      // The restart for a port another program holds: its stop, then a start that fails.
      await configure({ blobPort: held });
      await waitFor('Blob stopped by the failed restart', () => (a.emulator.status('blob').status === 'closed' && a.emulator.startsUnderWay().length === 0) || undefined);
      await waitFor('the attached item once the local Blob stopped', () => a.statusItems().attach.visible || undefined);
    } finally {
      await attach.update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      holder.close();
      await reset();
    }
  });

  it('a blob editor left open when the window attaches does not show the attached Azurite\'s blob of the same name', async () => {
    const a = await api();
    const attach = vscode.workspace.getConfiguration('azurite');
    await attach.update('attach', undefined, vscode.ConfigurationTarget.Workspace);
    await waitFor('detached', () => a.statusItems().attach.visible === false || undefined);
    await configure({ inMemoryPersistence: true });
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    const same = 'same-name';
    await BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient(same).createIfNotExists();
    await BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient(same).getBlockBlobClient('a.txt').upload('local', 5);
    const elsewhere = BlobServiceClient.fromConnectionString(connectionString).getContainerClient(same);
    await elsewhere.createIfNotExists();
    await elsewhere.getBlockBlobClient('a.txt').upload('elsewhere', 9);
    try {
      const id = `devstoreaccount1/blob/${same}/a.txt`;
      await waitFor('the local blob in the tree', async () => { await a.storageTree(); return a.storageNode(id) !== undefined ? true : undefined; });
      await vscode.commands.executeCommand('azurite.storage.open', a.storageNode(id));
      const doc = await waitFor('the local blob\'s editor', () => (vscode.window.activeTextEditor?.document.getText() === 'local' ? vscode.window.activeTextEditor.document : undefined));
      await attach.update('attach', connectionString, vscode.ConfigurationTarget.Workspace);
      await waitFor('the attached item', () => a.statusItems().attach.visible || undefined);
      // Read again (as VS Code does on the change event attaching fires): refused, naming both.
      await assert.rejects(Promise.resolve(vscode.workspace.fs.readFile(doc.uri)), /This blob was opened from the local emulator; the Storage view now works on the Azurite at 127\.0\.0\.1:/);
      assert.notEqual(doc.getText(), 'elsewhere');
      assert.equal(doc.uri.authority, 'local');
      // The attached Azurite's blob opens under its own URI.
      await waitFor('the attached blob in the tree', async () => { await a.storageTree(); return a.storageNode(id) !== undefined ? true : undefined; });
      await vscode.commands.executeCommand('azurite.storage.open', a.storageNode(id));
      const there = await waitFor('the attached blob\'s editor', () => (vscode.window.activeTextEditor?.document.getText() === 'elsewhere' ? vscode.window.activeTextEditor.document : undefined));
      assert.equal(there.uri.authority, `127.0.0.1:${blobPort}`);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await attach.update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      await elsewhere.deleteIfExists();
      await reset();
    }
  });

  it('an azurite.attach that cannot be read is said in a notification, once per value, not only in the log', async () => {
    const a = await api();
    const shown = a.notifications().length;
    try {
      await vscode.workspace.getConfiguration('azurite').update('attach', 'BlobEndpoint=http://127.0.0.1:1/x', vscode.ConfigurationTarget.Workspace);
      const said = await waitFor('the notification', () => a.notifications().slice(shown).find((n) => n.startsWith('azurite.attach')));
      assert.equal(said, 'azurite.attach: the connection string needs AccountName and AccountKey (or UseDevelopmentStorage=true). Until it is fixed, the local emulator is used.');
      assert.equal(a.statusItems().attach.visible, false);
      await a.settled();
      assert.equal(a.notifications().slice(shown).filter((n) => n.startsWith('azurite.attach')).length, 1);
      // One Azurite would misread (a dotted host name taken for a production-style URL): attached, with a warning.
      await vscode.workspace.getConfiguration('azurite').update('attach', 'UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://docker.local', vscode.ConfigurationTarget.Workspace);
      const warned = await waitFor('the warning', () => a.notifications().slice(shown).find((n) => n.startsWith('azurite.attach: Azurite takes a host name with a dot, such as docker.local')));
      assert.deepEqual(a.notificationActions(warned), ['Open Settings']);
      assert.equal(a.statusItems().attach.visible, true);
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('a debug session of a project whose local.settings.json uses UseDevelopmentStorage=true, while attached elsewhere, is warned once that the value does not reach the attached Azurite', async () => {
    const a = await api();
    const folder = vscode.workspace.workspaceFolders![0]!;
    const dir = fs.mkdtempSync(path.join(folder.uri.fsPath, '.functions-attached-'));
    const program = path.join(dir, 'exit.js');
    fs.writeFileSync(program, 'process.exit(0);\n');
    fs.writeFileSync(path.join(dir, 'local.settings.json'), JSON.stringify({ IsEncrypted: false, Values: { FUNCTIONS_WORKER_RUNTIME: 'node', AzureWebJobsStorage: 'UseDevelopmentStorage=true' } }));
    const shown = a.notifications().length;
    const debugOnce = async (name: string) => {
      const ended = new Promise<void>((resolve) => {
        const sub = vscode.debug.onDidTerminateDebugSession((s) => { if (s.name === name) { sub.dispose(); resolve(); } });
      });
      assert.equal(await vscode.debug.startDebugging(folder, { type: 'node', request: 'launch', name, program, runtimeExecutable: process.execPath, console: 'internalConsole' }), true);
      await ended;
    };
    try {
      await a.rescanLocalSettings();
      await configure({ attach: connectionString });
      await waitFor('the attached item', () => a.statusItems().attach.visible);
      await debugOnce('functions attached 1');
      const warning = await waitFor('the warning', () => a.notifications().slice(shown).find((n) => n.startsWith('A local.settings.json points AzureWebJobsStorage at the local emulator')));
      assert.match(warning, new RegExp(`attached to the Azurite at 127\\.0\\.0\\.1:${blobPort}, `));
      assert.deepEqual(a.notificationActions(warning), ['Copy Connection String']);
      assert.equal(a.emulator.status('blob').status, 'closed', 'nothing local started');
      await debugOnce('functions attached 2');
      await a.settled();
      assert.equal(a.notifications().slice(shown).filter((n) => n === warning).length, 1, 'said once per attach value');
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(dir, { recursive: true, force: true });
      await a.rescanLocalSettings();
    }
  });
});
