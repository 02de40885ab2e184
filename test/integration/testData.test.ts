/**
 * Test data in the real VS Code: `azurite.seed` at start, `Azurite: Reset` (command and task),
 * `Azurite: Export Snapshot…` and `Azurite: Import Snapshot…`, with real SDK clients.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { TableClient } from '@azure/data-tables';
import { api, configure, manyBlobsSnapshot, reset, waitFor, runTask, withEngineHeld } from './helpers';
import { PROGRESS_DELAY_MS } from '../../src/ui/progress';
import { OPERATIONS_FOLDER } from '../../src/ui/operationJournal';

/** How many progress notifications titled `Azurite: <title>` have shown so far. */
function progressCount(a: Awaited<ReturnType<typeof api>>, title: string): number {
  return a.progressShown().filter((t) => t === `Azurite: ${title}`).length;
}

async function blobNames(cs: string, container: string): Promise<string[]> {
  const names: string[] = [];
  for await (const b of BlobServiceClient.fromConnectionString(cs).getContainerClient(container).listBlobsFlat()) names.push(b.name);
  return names;
}

describe('Test data: seed, reset, export and import', () => {
  let seed: string;
  before(async () => {
    await reset();
  });
  beforeEach(() => {
    seed = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-'));
    fs.mkdirSync(path.join(seed, 'blob', 'fixtures', 'nested'), { recursive: true });
    fs.writeFileSync(path.join(seed, 'blob', 'fixtures', 'nested', 'hello.txt'), 'hello from the seed');
    fs.mkdirSync(path.join(seed, 'queue'));
    fs.writeFileSync(path.join(seed, 'queue', 'work.jsonl'), '{"text":"seeded job"}\n');
    fs.mkdirSync(path.join(seed, 'table'));
    fs.writeFileSync(path.join(seed, 'table', 'Users.jsonl'), '{"PartitionKey":"u","RowKey":"1","Name":"Ada"}\n');
  });
  afterEach(async () => {
    await vscode.workspace.getConfiguration('azurite').update('seed', undefined, vscode.ConfigurationTarget.Workspace);
    await reset();
    fs.rmSync(seed, { recursive: true, force: true });
  });

  it('loads azurite.seed at each start in memory mode; Reset empties and reseeds without a restart', async () => {
    const a = await api();
    await configure({ seed });
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start'), [{ ok: true }, { ok: true }, { ok: true }]);
    const cs = a.emulator.connectionString();
    assert.deepEqual(await blobNames(cs, 'fixtures'), ['nested/hello.txt'], 'the seed is there once start resolves');
    const peeked = await QueueServiceClient.fromConnectionString(cs).getQueueClient('work').peekMessages();
    assert.equal(peeked.peekedMessageItems[0]?.messageText, 'seeded job');
    assert.equal((await TableClient.fromConnectionString(cs, 'Users', { allowInsecureConnection: true }).getEntity<{ Name: string }>('u', '1')).Name, 'Ada');

    const ports = (['blob', 'queue', 'table'] as const).map((k) => a.emulator.endpoint(k)!.port);
    const fixtures = BlobServiceClient.fromConnectionString(cs).getContainerClient('fixtures');
    await fixtures.getBlockBlobClient('written-by-a-test.txt').uploadData(Buffer.from('x'));
    await BlobServiceClient.fromConnectionString(cs).getContainerClient('scratch').create();
    assert.deepEqual(await vscode.commands.executeCommand('azurite.reset', { skipConfirmation: true }), { ok: true });
    assert.deepEqual((['blob', 'queue', 'table'] as const).map((k) => a.emulator.endpoint(k)!.port), ports, 'same ports: nothing restarted');
    assert.deepEqual(await blobNames(cs, 'fixtures'), ['nested/hello.txt']);
    assert.equal(await BlobServiceClient.fromConnectionString(cs).getContainerClient('scratch').exists(), false);

    // The reset task (what a test task runs first).
    await fixtures.getBlockBlobClient('again.txt').uploadData(Buffer.from('y'));
    const tasks = await vscode.tasks.fetchTasks({ type: 'azurite' });
    const resetTask = tasks.find((t) => t.name === 'reset');
    assert.ok(resetTask, `no reset task among ${tasks.map((t) => t.name).join(', ')}`);
    assert.equal(await runTask(resetTask), 0);
    assert.deepEqual(await blobNames(cs, 'fixtures'), ['nested/hello.txt']);

    // A seed folder that is gone: Reset says so and deletes nothing (its confirmation promises the seed).
    const missing = path.join(seed, 'gone');
    await configure({ seed: missing });
    const refused = await vscode.commands.executeCommand<{ ok: boolean; reason?: string; setting?: string; message?: string }>('azurite.reset', { skipConfirmation: true });
    assert.equal(refused.ok, false);
    assert.equal(refused.reason, 'setting');
    assert.equal(refused.setting, 'azurite.seed');
    assert.match(refused.message!, /which does not exist/);
    assert.deepEqual(a.notificationActions(refused.message!), ['Open Settings'], 'the notification opens the setting');
    assert.deepEqual(await blobNames(cs, 'fixtures'), ['nested/hello.txt'], 'nothing deleted');

    // A seed set one level off (its blob/ folder): Reset refuses too, instead of emptying every
    // service and loading nothing.
    await configure({ seed: path.join(seed, 'blob') });
    const offByOne = await vscode.commands.executeCommand<{ ok: boolean; reason?: string; setting?: string; message?: string }>('azurite.reset', { skipConfirmation: true });
    assert.deepEqual(offByOne, { ok: false, reason: 'setting', setting: 'azurite.seed',
      message: `azurite.seed: ${path.join(seed, 'blob')} is not a snapshot folder: it holds none of blob/, queue/ and table/ (docs: Seed folders and snapshots). It is a snapshot's blob/ folder: choose ${seed}.` });
    assert.deepEqual(await blobNames(cs, 'fixtures'), ['nested/hello.txt'], 'nothing deleted');
  });

  it('Close during a start\'s seed cuts the seed short (what it loaded is deleted) instead of waiting for it to load in full', async () => {
    const a = await api();
    const messages = 150_000;
    fs.writeFileSync(path.join(seed, 'queue', 'orders.jsonl'), Array.from({ length: messages }, (_, i) => `{"text":"order ${i}"}\n`).join(''));
    await configure({ seed });
    const shown = a.notifications().length;
    const starting = vscode.commands.executeCommand<{ ok: boolean; reason?: string }[]>('azurite.start_queue');
    const orders = () => QueueServiceClient.fromConnectionString(a.emulator.connectionString()).getQueueClient('orders');
    await waitFor('the seed loading', async () => ((await orders().getProperties().catch(() => undefined))?.approximateMessagesCount ?? 0) > 0, 60_000);
    assert.deepEqual(await vscode.commands.executeCommand('azurite.close_queue'), [{ ok: true }]);
    const [started] = await starting;
    assert.deepEqual(started, { ok: false, reason: 'cancelled', message: 'Cancelled.' }, 'the seed was cut short, not loaded in full');
    assert.equal(a.emulator.status('queue').status, 'closed');
    assert.deepEqual(a.notifications().slice(shown), [], 'nothing to report: the user asked for the stop');
  });

  it('Close during a start\'s seed cuts it short even while an Export waits for that start, which is then not run and says so (the Close had waited for the Export, which waited for the whole seed)', async () => {
    const a = await api();
    fs.writeFileSync(path.join(seed, 'queue', 'orders.jsonl'), Array.from({ length: 150_000 }, (_, i) => `{"text":"order ${i}"}\n`).join(''));
    await configure({ seed });
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'export-behind-seed-'));
    try {
      const starting = vscode.commands.executeCommand<{ ok: boolean; reason?: string }[]>('azurite.start_queue');
      const orders = () => QueueServiceClient.fromConnectionString(a.emulator.connectionString()).getQueueClient('orders');
      await waitFor('the seed loading', async () => ((await orders().getProperties().catch(() => undefined))?.approximateMessagesCount ?? 0) > 0, 60_000);
      // Asked for now, it waits for the start (its seed included) before it begins.
      const shown = a.notifications().length;
      const exporting = vscode.commands.executeCommand<{ ok: boolean }>('azurite.exportSnapshot', { folder: out, skipConfirmation: true });
      assert.deepEqual(await vscode.commands.executeCommand('azurite.close_queue'), [{ ok: true }]);
      const [started] = await starting;
      assert.deepEqual(started, { ok: false, reason: 'cancelled', message: 'Cancelled.' }, 'the seed was cut short, not loaded in full');
      assert.equal(a.emulator.status('queue').status, 'closed');
      // Not run on the service being stopped (an export of what the cut-short seed left), and said so.
      assert.deepEqual(await exporting, { ok: false, reason: 'cancelled', message: 'Cancelled.' });
      assert.equal(fs.existsSync(path.join(out, 'queue')), false, 'nothing exported');
      assert.ok(a.notifications().slice(shown).includes('Azurite: the Export asked for was not run: Queue was stopped while it started. Run it again once the services run.'), a.notifications().slice(shown).join('\n'));
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it('a start task whose service is stopped during its seed ends with 1, not "ready" (the stop cut the seed short too)', async () => {
    const a = await api();
    fs.writeFileSync(path.join(seed, 'queue', 'orders.jsonl'), Array.from({ length: 150_000 }, (_, i) => `{"text":"order ${i}"}\n`).join(''));
    await configure({ seed });
    const startQueue = (await vscode.tasks.fetchTasks({ type: 'azurite' })).find((t) => t.name === 'start queue');
    assert.ok(startQueue);
    const ended = runTask(startQueue);
    const orders = () => QueueServiceClient.fromConnectionString(a.emulator.connectionString()).getQueueClient('orders');
    await waitFor('the seed loading', async () => ((await orders().getProperties().catch(() => undefined))?.approximateMessagesCount ?? 0) > 0, 60_000);
    assert.deepEqual(await vscode.commands.executeCommand('azurite.close_queue'), [{ ok: true }]);
    assert.equal(await ended, 1, 'a preLaunchTask that says ready would start the debug session without Queue');
  });

  it('on disk, loads the seed only into an empty service', async () => {
    const a = await api();
    const location = fs.mkdtempSync(path.join(os.tmpdir(), 'disk-data-'));
    try {
      await configure({ seed, inMemoryPersistence: false, location });
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      const cs = a.emulator.connectionString();
      const fixtures = BlobServiceClient.fromConnectionString(cs).getContainerClient('fixtures');
      assert.deepEqual(await blobNames(cs, 'fixtures'), ['nested/hello.txt']);
      await fixtures.getBlobClient('nested/hello.txt').delete();
      await fixtures.getBlockBlobClient('mine.txt').uploadData(Buffer.from('kept'));
      assert.deepEqual(await vscode.commands.executeCommand('azurite.close_blob'), [{ ok: true }]);
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      assert.deepEqual(await blobNames(a.emulator.connectionString(), 'fixtures'), ['mine.txt'], 'the data on disk, without the seed again');
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      fs.rmSync(location, { recursive: true, force: true });
    }
  });

  it('on disk, a seed the service refuses half-way is deleted again, so a corrected seed loads at the next start', async () => {
    const a = await api();
    const location = fs.mkdtempSync(path.join(os.tmpdir(), 'disk-data-'));
    try {
      // A queue message over the service's 64 KiB limit, after one it accepts.
      fs.writeFileSync(path.join(seed, 'queue', 'work.jsonl'), `{"text":"first"}\n{"text":"${'x'.repeat(70 * 1024)}"}\n`);
      await configure({ seed, inMemoryPersistence: false, location });
      const [outcome] = await vscode.commands.executeCommand<{ ok: boolean; reason?: string; message?: string }[]>('azurite.start_queue');
      assert.equal(outcome!.ok, false);
      assert.equal(outcome!.reason, 'data');
      assert.match(outcome!.message!, /^The seed was not loaded into Queue: Loading the seed stopped: .*; what it had loaded was deleted again/);
      const queues = QueueServiceClient.fromConnectionString(a.emulator.connectionString());
      const names: string[] = [];
      for await (const q of queues.listQueues()) names.push(q.name);
      assert.deepEqual(names, [], 'nothing of the seed is left');
      fs.writeFileSync(path.join(seed, 'queue', 'work.jsonl'), '{"text":"first"}\n');
      assert.deepEqual(await vscode.commands.executeCommand('azurite.close_queue'), [{ ok: true }]);
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_queue'), [{ ok: true }]);
      const peeked = await QueueServiceClient.fromConnectionString(a.emulator.connectionString()).getQueueClient('work').peekMessages();
      assert.deepEqual(peeked.peekedMessageItems.map((m) => m.messageText), ['first']);
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      fs.rmSync(location, { recursive: true, force: true });
    }
  });

  it('in memory, a seed refused at azurite.extentMemoryLimit half-way is deleted again and its memory freed at once', async () => {
    const a = await api();
    for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(seed, 'blob', 'fixtures', `big${i}.bin`), Buffer.alloc(400 * 1024, i));
    await configure({ seed, inMemoryPersistence: true, extentMemoryLimit: 1 });
    const [outcome] = await vscode.commands.executeCommand<{ ok: boolean; message?: string }[]>('azurite.start_blob');
    assert.equal(outcome!.ok, false);
    assert.match(outcome!.message!, /^The seed was not loaded into Blob: Loading the seed stopped: .*; what it had loaded was deleted again/);
    assert.equal(a.emulator.memoryReport().usedBytes, 0, 'nothing of the seed is held (not until the GC, minutes later)');
  });

  it('a malformed seed fails the start with the file and line, and the service still runs', async () => {
    const a = await api();
    fs.writeFileSync(path.join(seed, 'table', 'Users.jsonl'), '{"PartitionKey":"u","RowKey":"1"}\n{"PartitionKey":"u","RowKey":2}\n');
    await configure({ seed });
    const [outcome] = await vscode.commands.executeCommand<{ ok: boolean; reason?: string; message?: string }[]>('azurite.start_table');
    assert.equal(outcome!.ok, false);
    assert.equal(outcome!.reason, 'data');
    assert.match(outcome!.message!, /^The seed was not loaded into Table: .*Users\.jsonl:2: an entity needs string "PartitionKey" and "RowKey"/);
    await waitFor('the failure notification', () => a.notifications().some((n) => n.includes('Users.jsonl:2')));
    assert.deepEqual(a.notificationActions(outcome!.message!), ['Open File', 'Open Settings'], 'the seed\'s file, and its setting');
    assert.equal(a.emulator.status('table').status, 'running');
    // The same file imported as a snapshot: its file, and no azurite.seed (the snapshot is not the seed).
    const imported = await vscode.commands.executeCommand<{ ok: boolean; message?: string }>('azurite.importSnapshot', { folder: seed, skipConfirmation: true });
    assert.match(imported.message!, /^Import failed: .*Users\.jsonl:2: /);
    assert.deepEqual(a.notificationActions(imported.message!), ['Open File']);
  });

  it('runs Reset, Import and Export one at a time, and a Clean waits for them: each asked for during an Import runs after it', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    // A backstop only: about 3 s here; each wait below has its own bound.
    this.timeout(180_000);
    const a = await api();
    // Small: the engine held off the CPU keeps each Import under way as long as the test needs, and
    // the container it makes is what tells whether the Reset or Clean ran after it.
    const snapshot = manyBlobsSnapshot(20);
    const progressOf = (title: string): number => progressCount(a, title);
    try {
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      const pid = a.emulator.enginePid!;
      /**
       * Starts an Import with the engine held off the CPU (SIGSTOP), so that it cannot end, then
       * `other`; resumes the engine once the progress titled `waiting` shows (`other` waits for the
       * Import: it never reached the engine). Resolves to both outcomes.
       */
      const beside = async (other: () => Thenable<unknown>, waiting: string): Promise<[unknown, unknown]> => {
        const waits = progressOf(waiting);
        const resets = progressOf('Resetting');
        return withEngineHeld(pid, async (resume) => {
          const imported = vscode.commands.executeCommand('azurite.importSnapshot', { folder: snapshot, skipConfirmation: true });
          const done = other();
          await waitFor(`"${waiting}"`, () => progressOf(waiting) > waits || undefined, 30_000);
          assert.equal(progressOf('Resetting'), resets, 'nothing began beside the Import');
          resume();
          return [await imported, await done];
        });
      };
      const many = (): Promise<boolean> => BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('many').exists();
      // A Reset (as a task's reset before a test run) during an Import.
      assert.deepEqual(await beside(() => vscode.commands.executeCommand('azurite.reset', { skipConfirmation: true }), 'Waiting for the Reset, Import or Export under way'), [{ ok: true }, { ok: true }]);
      assert.equal(await many(), false, 'the Reset ran once the Import had ended');
      // A Clean during an Import: the service restarts empty once the Import has ended.
      assert.deepEqual(await beside(() => vscode.commands.executeCommand('azurite.clean_blob', { skipConfirmation: true }), 'Blob clean once the Reset, Import or Export under way is done'), [{ ok: true }, [{ ok: true }]]);
      assert.equal(await many(), false, 'the Clean ran once the Import had ended');
      // Closing a stopped service during an Import has nothing to wait for: it resolves at once, with no progress.
      const stopWaits = progressOf('Queue stop once the Reset, Import or Export under way is done');
      await withEngineHeld(pid, async (resume) => {
        const imported = vscode.commands.executeCommand('azurite.importSnapshot', { folder: snapshot, skipConfirmation: true });
        const closed = vscode.commands.executeCommand('azurite.close_queue');
        const held = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 10_000));
        assert.deepEqual(await Promise.race([closed, held]), [{ ok: true }]);
        assert.equal(progressOf('Queue stop once the Reset, Import or Export under way is done'), stopWaits);
        resume();
        assert.deepEqual(await imported, { ok: true });
      });
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      fs.rmSync(snapshot, { recursive: true, force: true });
    }
  });

  it('an Import shows progress while it reads the snapshot and lists what it would replace, before it asks', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    this.timeout(120_000);
    const a = await api();
    const snapshot = manyBlobsSnapshot(5);
    try {
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      const pid = a.emulator.enginePid!;
      const shown = progressCount(a, 'Reading the snapshot');
      // The engine held off the CPU: listing what the import would replace takes as long as the test needs.
      await withEngineHeld(pid, async (resume) => {
        const imported = vscode.commands.executeCommand('azurite.importSnapshot', { folder: snapshot, skipConfirmation: true });
        await waitFor('"Reading the snapshot"', () => progressCount(a, 'Reading the snapshot') > shown || undefined, 30_000);
        resume();
        assert.deepEqual(await imported, { ok: true });
      });
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      fs.rmSync(snapshot, { recursive: true, force: true });
    }
  });

  it('an azurite reset task ended while it waits for an Import does not reset once the Import has ended', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const a = await api();
    const snapshot = manyBlobsSnapshot(1500);
    try {
      // All three, which the reset task starts: with the engine held, it finds them running.
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start'), [{ ok: true }, { ok: true }, { ok: true }]);
      const resetTask = (await vscode.tasks.fetchTasks({ type: 'azurite' })).find((t) => t.definition.action === 'reset')!;
      const pid = a.emulator.enginePid!;
      const waits = progressCount(a, 'Waiting for the Reset, Import or Export under way');
      const resets = progressCount(a, 'Resetting');
      const ended = new Promise<void>((resolve) => {
        const sub = vscode.tasks.onDidEndTask((e) => { if (e.execution.task.name === resetTask.name) { sub.dispose(); resolve(); } });
      });
      let imported: Thenable<unknown>;
      // The engine held off the CPU (SIGSTOP) whenever the Import must not end. The task's start
      // steps need the engine, so it runs again until the task's reset waits behind the Import.
      process.kill(pid, 'SIGSTOP');
      try {
        imported = vscode.commands.executeCommand('azurite.importSnapshot', { folder: snapshot, skipConfirmation: true });
        await waitFor('the Import to be under way', () => a.dataOperations() === 1 || undefined);
        const execution = await vscode.tasks.executeTask(resetTask);
        process.kill(pid, 'SIGCONT');
        await waitFor('the task to ask for its reset', () => a.dataOperations() === 2 || undefined, 30_000);
        process.kill(pid, 'SIGSTOP');
        await waitFor('the reset to wait for the Import', () => progressCount(a, 'Waiting for the Reset, Import or Export under way') > waits || undefined, 30_000);
        execution.terminate();
        await ended;
        // Its wait ended with the task: only the Import is under way.
        await waitFor('the ended reset to leave the queue', () => a.dataOperations() === 1 || undefined);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      assert.deepEqual(await imported, { ok: true });
      // The reset, had it run, would begin as soon as the Import ends: wait until the data layer is idle.
      await a.dataIdle();
      assert.equal(progressCount(a, 'Resetting'), resets, 'no reset began');
      assert.equal((await blobNames(a.emulator.connectionString(), 'many')).length, 1500, 'what the Import wrote stays');
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      fs.rmSync(snapshot, { recursive: true, force: true });
    }
  });

  it('a restart for a settings change waits for an import under way, which completes', async () => {
    const a = await api();
    const location = fs.mkdtempSync(path.join(os.tmpdir(), 'import-restart-'));
    const snapshot = manyBlobsSnapshot(1500);
    try {
      await configure({ inMemoryPersistence: false, location });
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      const blobs = BlobServiceClient.fromConnectionString(a.emulator.connectionString());
      let outcome: unknown;
      const importing = Promise.resolve(vscode.commands.executeCommand('azurite.importSnapshot', { folder: snapshot, skipConfirmation: true })).then((o) => { outcome = o; });
      await waitFor('the import to be loading blobs', async () => (await blobs.getContainerClient('many').exists()) || undefined, 30_000);
      assert.equal(outcome, undefined, 'still importing');
      // A setting Blob reads at start: on disk it restarts without asking, once the import is done.
      await vscode.workspace.getConfiguration('azurite').update('loose', true, vscode.ConfigurationTarget.Workspace);
      await waitFor('the emulator to read azurite.loose', () => a.emulator.options.loose || undefined);
      assert.equal(outcome, undefined, 'the import still runs as the restart is asked for');
      assert.deepEqual(a.emulator.servicesNeedingRestart(), ['blob']);
      const progressBefore = a.progressShown().length;
      const askedAt = performance.now();
      await importing;
      const waited = performance.now() - askedAt;
      assert.deepEqual(outcome, { ok: true });
      // A wait of clearly more than the progress delay says what it waits for.
      const waitProgress = a.progressShown().slice(progressBefore).filter((t) => t === 'Azurite: Blob restart for the settings change once the Reset, Import or Export under way is done');
      if (waited > PROGRESS_DELAY_MS + 1000) assert.equal(waitProgress.length, 1, `the import ran ${Math.round(waited)} ms after the change, without the wait's progress`);
      await waitFor('Blob restarted with loose on', () => (a.emulator.status('blob').status === 'running' && a.emulator.servicesNeedingRestart().length === 0) || undefined, 30_000);
      const names = await blobNames(a.emulator.connectionString(), 'many');
      assert.equal(names.length, 1500);
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      fs.rmSync(location, { recursive: true, force: true });
      fs.rmSync(snapshot, { recursive: true, force: true });
    }
  });

  it('exports the running data to a folder and imports it back, replacing items of the same name', async () => {
    const a = await api();
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start'), [{ ok: true }, { ok: true }, { ok: true }]);
    const cs = a.emulator.connectionString();
    const docs = BlobServiceClient.fromConnectionString(cs).getContainerClient('docs');
    await docs.create();
    await docs.getBlockBlobClient('a.json').uploadData(Buffer.from('{"v":1}'), { blobHTTPHeaders: { blobContentType: 'application/json' } });
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'export-'));
    try {
      assert.deepEqual(await vscode.commands.executeCommand('azurite.exportSnapshot', { folder: out, skipConfirmation: true }), { ok: true });
      // The notification gives each service's counts, in order.
      const folderText = out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const blobCounts = String.raw`\d+ containers? \(\d+ blobs?, \d+\.\d (?:KB|MB)\)`;
      const queueCounts = String.raw`\d+ queues? \(\d+ messages?\)`;
      const tableCounts = String.raw`\d+ tables? \(\d+ (?:entity|entities)\)`;
      const exported = new RegExp(`^Snapshot exported to ${folderText}: ${blobCounts}, ${queueCounts}, ${tableCounts}\\.$`);
      assert.ok(a.notifications().some((n) => exported.test(n)), `notifications: ${a.notifications().join(' | ')}`);
      assert.equal(fs.readFileSync(path.join(out, 'blob', 'docs', 'a.json'), 'utf8'), '{"v":1}');
      assert.equal(fs.readFileSync(path.join(out, 'blob', 'docs.blobs.jsonl'), 'utf8'), '{"name":"a.json","contentType":"application/json"}\n');

      await docs.getBlockBlobClient('a.json').uploadData(Buffer.from('{"v":2}'));
      await docs.getBlockBlobClient('b.json').uploadData(Buffer.from('{}'));
      assert.deepEqual(await vscode.commands.executeCommand('azurite.importSnapshot', { folder: out, skipConfirmation: true }), { ok: true });
      assert.deepEqual(await blobNames(cs, 'docs'), ['a.json'], 'the container was replaced by the snapshot\'s');
      assert.equal((await docs.getBlobClient('a.json').downloadToBuffer()).toString(), '{"v":1}');
      await waitFor('the import notification', () => a.notifications().some((n) => n.startsWith(`Snapshot imported from ${out}`)));
      // With Queue stopped, its part of the snapshot is not imported, and the notification says so.
      fs.mkdirSync(path.join(out, 'queue'), { recursive: true });
      fs.writeFileSync(path.join(out, 'queue', 'jobs.jsonl'), '{"text":"a job"}\n');
      assert.deepEqual(await vscode.commands.executeCommand('azurite.close_queue'), [{ ok: true }]);
      assert.deepEqual(await vscode.commands.executeCommand('azurite.importSnapshot', { folder: out, skipConfirmation: true }), { ok: true });
      const importedWithoutQueue = new RegExp(`^Snapshot imported from ${folderText}: ${blobCounts}, ${tableCounts}\\. Not imported: queue/ \\(the service is not running\\)\\.$`);
      await waitFor('the notification with Blob\'s and Table\'s counts, naming queue/', () => a.notifications().some((n) => importedWithoutQueue.test(n)));
      // An Export with Queue stopped leaves its queue/ from before, and says so.
      assert.deepEqual(await vscode.commands.executeCommand('azurite.exportSnapshot', { folder: out, skipConfirmation: true }), { ok: true });
      const exportedWithoutQueue = new RegExp(`^Snapshot exported to ${folderText}: ${blobCounts}, ${tableCounts}\\. Its queue/ is from before \\(Queue not running\\)\\.$`);
      await waitFor('the export notification naming the older queue/', () => a.notifications().some((n) => exportedWithoutQueue.test(n)));
      assert.equal(fs.readFileSync(path.join(out, 'queue', 'jobs.jsonl'), 'utf8'), '{"text":"a job"}\n');
      // Each Import kept its journal and its copy in a folder of its own, removed as it ended.
      assert.deepEqual(fs.readdirSync(path.join(a.operationsStorage(), OPERATIONS_FOLDER)), []);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it('refuses to import a folder that is not a snapshot (missing, or a snapshot\'s blob/ chosen), instead of importing nothing and saying it did', async () => {
    const a = await api();
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'not-a-snapshot-'));
    try {
      fs.mkdirSync(path.join(out, 'blob', 'docs'), { recursive: true });
      fs.writeFileSync(path.join(out, 'blob', 'docs', 'a.txt'), 'a');
      const missing = path.join(out, 'moved-away');
      const gone = await vscode.commands.executeCommand<{ ok: boolean; message?: string }>('azurite.importSnapshot', { folder: missing, skipConfirmation: true });
      assert.deepEqual(gone, { ok: false, reason: 'data', message: `Import failed: ${missing} does not exist.` });
      const level = await vscode.commands.executeCommand<{ ok: boolean; message?: string }>('azurite.importSnapshot', { folder: path.join(out, 'blob'), skipConfirmation: true });
      assert.equal(level.ok, false);
      assert.equal(level.message, `Import failed: ${path.join(out, 'blob')} is not a snapshot folder: it holds none of blob/, queue/ and table/ (docs: Seed folders and snapshots). It is a snapshot's blob/ folder: choose ${out}.`);
      assert.ok(a.notifications().includes(level.message!), 'shown, not only returned');
      assert.ok(!a.notifications().some((n) => n.startsWith(`Snapshot imported from ${out}`)), 'nothing said to be imported');
      // The folder that holds blob/ imports.
      assert.deepEqual(await vscode.commands.executeCommand('azurite.importSnapshot', { folder: out, skipConfirmation: true }), { ok: true });
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it('a folder argument is resolved as azurite.seed is (keybinding arguments reach the command with ${workspaceFolder} unexpanded)', async () => {
    const a = await api();
    a.chooseDataFolder(undefined);
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    await BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('argued').createIfNotExists();
    const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const [byVariable, byRelative] = [path.join(root, 'snap-by-variable'), path.join(root, 'snap-relative')];
    try {
      assert.deepEqual(await vscode.commands.executeCommand('azurite.exportSnapshot', { folder: '${workspaceFolder}/snap-by-variable', skipConfirmation: true }), { ok: true });
      assert.ok(fs.existsSync(path.join(byVariable, 'blob', 'argued')), 'exported under the workspace folder');
      assert.deepEqual(await vscode.commands.executeCommand('azurite.exportSnapshot', { folder: 'snap-relative', skipConfirmation: true }), { ok: true });
      assert.ok(fs.existsSync(path.join(byRelative, 'blob', 'argued')), 'relative to the workspace folder');
      assert.deepEqual(await vscode.commands.executeCommand('azurite.importSnapshot', { folder: '${workspaceFolder}/snap-by-variable', skipConfirmation: true }), { ok: true });
      const unknown = await vscode.commands.executeCommand<{ ok: boolean; message?: string }>('azurite.importSnapshot', { folder: '${config:nope}/x', skipConfirmation: true });
      assert.equal(unknown.ok, false);
      assert.match(unknown.message ?? '', /^Import failed: its folder argument "\$\{config:nope\}\/x" cannot be used: /);
      const notText = await vscode.commands.executeCommand<{ ok: boolean; message?: string }>('azurite.exportSnapshot', { folder: 5, skipConfirmation: true });
      assert.equal(notText.message, 'Export failed: its folder argument must be a path (an absolute one, or relative to the workspace folder), not 5.');
    } finally {
      for (const f of [byVariable, byRelative]) fs.rmSync(f, { recursive: true, force: true });
    }
  });

  it('an Import whose window closed under it is reported once, with the copy of what it replaced (src/ui/operationJournal.ts)', async () => {
    const a = await api();
    // What a window that closed half-way through an Import leaves: its journal, its process gone.
    const exited = spawnSync(process.execPath, ['-e', '0']);
    const scratch = path.join(a.operationsStorage(), OPERATIONS_FOLDER, 'import-closed');
    const copy = path.join(scratch, 'azurite-import-backup-1');
    fs.mkdirSync(path.join(copy, 'blob', 'orders'), { recursive: true });
    fs.writeFileSync(path.join(copy, 'blob', 'orders', 'o1.json'), '{}');
    const startedAt = new Date(Date.now() - 60_000).toISOString();
    fs.writeFileSync(path.join(scratch, 'journal.json'), JSON.stringify({ version: 1, operation: 'import', kinds: ['blob'], folder: '/snapshots/orders', where: 'the running Blob', inMemory: false, startedAt, pid: exited.pid, phase: 'changing', backup: copy }));
    try {
      const found = await a.interruptedOperations();
      assert.deepEqual(found.map((i) => [i.journal.folder, i.copy]), [['/snapshots/orders', copy]]);
      const said = await waitFor('the notification', () => a.notifications().find((n) => n.startsWith('The Import of /snapshots/orders into the running Blob, begun ')));
      assert.match(said, /did not finish: its window closed or reloaded\. Part of the snapshot may be loaded and items it replaces may be missing: import it again to finish it, or restore the items it replaced from their copy in .*azurite-import-backup-1 \(a snapshot folder, kept 30 days\)\.$/);
      assert.equal(fs.existsSync(path.join(scratch, 'journal.json')), false);
      assert.ok(fs.existsSync(path.join(copy, 'blob', 'orders', 'o1.json')), 'the copy stays');
      assert.deepEqual(await a.interruptedOperations(), [], 'said once');
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('Import Again and Reset on an interrupted operation\'s notification start the services it worked on first (a window opened after a reload runs nothing)', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: false });
    a.chooseDataFolder(undefined);
    const snapshot = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-emulators-import-again-'));
    fs.mkdirSync(path.join(snapshot, 'blob', 'orders'), { recursive: true });
    fs.writeFileSync(path.join(snapshot, 'blob', 'orders', 'o1.json'), '{"id":1}');
    // The snapshot has a queue too, which the Import cut short (into Blob only) never loaded.
    fs.mkdirSync(path.join(snapshot, 'queue'));
    fs.writeFileSync(path.join(snapshot, 'queue', 'again.jsonl'), '{"text":"not for this import"}\n');
    const journal = { version: 1 as const, operation: 'import' as const, kinds: ['blob' as const], folder: snapshot, where: 'the running Blob', inMemory: false, startedAt: new Date().toISOString(), pid: 1, phase: 'changing' as const };
    try {
      assert.deepEqual(a.emulator.runningKinds(), []);
      // Queue runs now too (an autostart of all three in the new window): it gets nothing.
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_queue'), [{ ok: true }]);
      const shown = a.notifications().length;
      assert.deepEqual(await a.settleInterrupted({ journal, copy: undefined }, 'Import Again', { skipConfirmation: true }), { ok: true });
      assert.deepEqual(a.emulator.runningKinds(), ['blob', 'queue']);
      const blobs = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('orders');
      assert.equal((await blobs.getBlockBlobClient('o1.json').downloadToBuffer()).toString(), '{"id":1}');
      assert.equal(await QueueServiceClient.fromConnectionString(a.emulator.connectionString()).getQueueClient('again').exists(), false, 'Queue not imported into');
      assert.ok(a.notifications().slice(shown).some((n) => n.startsWith(`Snapshot imported from ${snapshot}: `) && n.endsWith('Not imported: queue/ (not part of the Import cut short).')), a.notifications().slice(shown).join('\n'));
      // A Reset of a seed's services (the seed azurite.seed names): started too, then emptied and seeded.
      await BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('left-over').create();
      await vscode.commands.executeCommand('azurite.close');
      await configure({ seed: snapshot });
      assert.deepEqual(await a.settleInterrupted({ journal: { ...journal, operation: 'seed', kinds: ['blob', 'queue'], where: 'the running Blob, Queue' }, copy: undefined }, 'Reset', { skipConfirmation: true }), { ok: true });
      assert.deepEqual(a.emulator.runningKinds(), ['blob', 'queue']);
      const afterReset = BlobServiceClient.fromConnectionString(a.emulator.connectionString());
      assert.equal(await afterReset.getContainerClient('left-over').exists(), false, 'emptied');
      assert.equal(await afterReset.getContainerClient('orders').exists(), true, 'the seed loaded');
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('seed', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('azurite.clean', { skipConfirmation: true });
      fs.rmSync(snapshot, { recursive: true, force: true });
    }
  });
  it('the actions of an interrupted operation refuse to work on other data than it did: another data folder, or another seed', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: false });
    a.chooseDataFolder(undefined);
    const snapshot = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-emulators-other-folder-'));
    fs.mkdirSync(path.join(snapshot, 'blob', 'orders'), { recursive: true });
    fs.writeFileSync(path.join(snapshot, 'blob', 'orders', 'o1.json'), '{"id":1}');
    const elsewhere = path.join(os.tmpdir(), 'storage-emulators-data-of-another-folder');
    const journal = { version: 1 as const, operation: 'import' as const, kinds: ['blob' as const], folder: snapshot, where: 'the running Blob', inMemory: false, location: elsewhere, startedAt: new Date().toISOString(), pid: 1, phase: 'changing' as const };
    try {
      // Cut short while Blob kept its data in another folder (another workspace folder chosen then, say).
      const moved = await a.settleInterrupted({ journal, copy: snapshot }, 'Restore Replaced Items', { skipConfirmation: true });
      assert.equal(moved.ok, false);
      assert.equal((moved as { message: string }).message, `Azurite: Restore Replaced Items did nothing: that Import worked on the data in ${elsewhere}, and Blob keeps its data in ${a.emulator.dataLocation('blob')} now (azurite.location, or the folder chosen for data). Point it back at that folder to work on it.`);
      assert.equal(a.emulator.status('blob').status, 'closed', 'not even started: a start would load a seed into the other data');
      // The folder it worked on: it runs.
      assert.deepEqual(await a.settleInterrupted({ journal: { ...journal, location: a.emulator.dataLocation('blob') }, copy: snapshot }, 'Restore Replaced Items', { skipConfirmation: true }), { ok: true });
      // A seed's Reset loads the seed it names: not another one set since (none, here).
      const seeded = await a.settleInterrupted({ journal: { ...journal, operation: 'seed', location: a.emulator.dataLocation('blob') }, copy: undefined }, 'Reset', { skipConfirmation: true });
      assert.equal((seeded as { message?: string }).message, `Azurite: Reset did nothing: that seed loaded the seed in ${snapshot}, and azurite.seed names none now. Set it back to finish it, or run Azurite: Reset to load the seed set now.`);
    } finally {
      await vscode.commands.executeCommand('azurite.clean', { skipConfirmation: true });
      fs.rmSync(snapshot, { recursive: true, force: true });
    }
  });
});
