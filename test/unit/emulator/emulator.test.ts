/**
 * The emulator against the real azurite engine, with real Azure SDK clients. No mocks.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { BlobServiceClient, RestError } from '@azure/storage-blob';
import { TableServiceClient } from '@azure/data-tables';
import { QueueServiceClient } from '@azure/storage-queue';
import { clients, disposeAfterEach, makeEmulator, startAll, tempDir } from '../helpers/emulatorFixture';
import { isPortFree, probePortHolder } from '../../../src/emulator/ports';
import type { Emulator, EngineLoss } from '../../../src/emulator/emulator';
import type { EngineHost } from '../../../src/emulator/engineHost';
import { parseSettings } from '../../../src/core/settings';
import { failure } from '../../../src/core/outcome';

/** Resolves when something can listen on host:port again (the port is free), rejects if not. */
function canListen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}

const LOCATION = { workspaceFolder: undefined, homeDir: '/tmp', globalStoragePath: '/tmp', rootHasAzuriteData: false };
const portsOf = (e: Emulator) => ({ blobPort: e.options.services.blob.port, queuePort: e.options.services.queue.port, tablePort: e.options.services.table.port });

describe('Emulator (real azurite engine, real SDK clients)', () => {
  const track = disposeAfterEach();

  it('runs blob, queue and table in memory on free ports and serves the SDKs', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator);
    const ports = (['blob', 'queue', 'table'] as const).map((k) => emulator.endpoint(k)!.port);
    assert.equal(new Set(ports).size, 3);
    assert.ok(ports.every((p) => p > 0));
    const c = clients(emulator);

    const container = c.blob().getContainerClient('c-one');
    await container.create();
    const body = Buffer.from('hello blob');
    await container.getBlockBlobClient('a.txt').uploadData(body);
    assert.deepEqual(await container.getBlockBlobClient('a.txt').downloadToBuffer(), body);

    const queue = c.queue().getQueueClient('queue-one');
    await queue.create();
    await queue.sendMessage('hello queue');
    const received = await queue.receiveMessages();
    assert.equal(received.receivedMessageItems.length, 1);
    assert.equal(received.receivedMessageItems[0]!.messageText, 'hello queue');
    await queue.deleteMessage(received.receivedMessageItems[0]!.messageId, received.receivedMessageItems[0]!.popReceipt);
    assert.equal((await queue.peekMessages()).peekedMessageItems.length, 0);

    const table = c.table('tableone');
    await table.createTable();
    await table.createEntity({ partitionKey: 'p', rowKey: 'r1', n: 1 });
    await table.createEntity({ partitionKey: 'p', rowKey: 'r2', n: 2 });
    const rows = [];
    for await (const e of table.listEntities<{ n: number }>({ queryOptions: { filter: "n gt 1" } })) rows.push(e);
    assert.deepEqual(rows.map((r) => r.rowKey), ['r2']);
  });

  it('refuses the write that would pass a 1 MB limit with 409 MemoryExtentStoreAtSizeLimit; the meter equals the bytes stored', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, extentMemoryLimit: 1 }));
    await startAll(emulator, ['blob']);
    const container = clients(emulator).blob().getContainerClient('limit');
    await container.create();
    const blobs = [0, 1, 2].map((i) => Buffer.alloc(300 * 1024, i + 1));
    for (const [i, b] of blobs.entries()) await container.getBlockBlobClient(`b${i}`).uploadData(b);

    await assert.rejects(container.getBlockBlobClient('b3').uploadData(Buffer.alloc(300 * 1024, 9)), (err: unknown) => {
      assert.ok(err instanceof RestError, String(err));
      assert.equal(err.statusCode, 409);
      assert.equal(err.code, 'MemoryExtentStoreAtSizeLimit');
      return true;
    });
    const report = (await emulator.memoryReportNow());
    assert.equal(report.usedBytes, 3 * 300 * 1024);
    assert.equal(report.blobBytes, 3 * 300 * 1024);
    assert.equal(report.queueBytes, 0);
    assert.equal(report.limitBytes, 1024 * 1024);
    assert.equal(report.isDefaultLimit, false);
    // The service stays up and earlier data is intact.
    assert.equal(emulator.status('blob').status, 'running');
    for (const [i, b] of blobs.entries()) assert.deepEqual(await container.getBlockBlobClient(`b${i}`).downloadToBuffer(), b);
  });

  it('counts queue message text against the same limit, and reports a memory event after writes', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator, ['queue']);
    assert.equal((await emulator.memoryReportNow()).isDefaultLimit, true);
    const event = new Promise<number>((resolve) => emulator.onDidChangeMemory((r) => resolve(r.queueBytes)));
    const queue = clients(emulator).queue().getQueueClient('queue-meter');
    await queue.create();
    await queue.sendMessage('x'.repeat(1000));
    assert.equal(await event, 1000);
    assert.equal((await emulator.memoryReportNow()).usedBytes, 1000);
  });

  it('frees the port and the in-memory data on stop', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator, ['blob']);
    const port = emulator.endpoint('blob')!.port;
    const container = clients(emulator).blob().getContainerClient('gone');
    await container.create();
    await container.getBlockBlobClient('x').uploadData(Buffer.alloc(4096));
    assert.equal((await emulator.memoryReportNow()).usedBytes, 4096);
    assert.equal(await canListen(port), false);
    assert.deepEqual(await emulator.stop('blob'), { ok: true });
    assert.equal(await canListen(port), true);
    assert.equal((await emulator.memoryReportNow()).usedBytes, 0);
  });

  it('refuses starts and cleans once dispose() has begun, and starts no engine process after it', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator, ['blob']);
    const disposing = emulator.dispose();
    const during = await emulator.start('queue');
    await disposing;
    const outcomes = [during, await emulator.start('blob'), await emulator.clean('table')];
    for (const o of outcomes) {
      assert.equal(o.ok, false);
      assert.equal(!o.ok && o.reason, 'state');
      assert.match(!o.ok ? o.message : '', /^(Queue|Blob|Table) was not (started|cleaned): the emulator is shutting down/);
    }
    assert.equal(emulator.enginePid, undefined);
  });

  it('refuses a clean queued just before dispose() began: nothing is deleted while the window closes', async () => {
    const dir = tempDir();
    const { emulator } = track(makeEmulator({ location: dir }));
    await startAll(emulator, ['blob']);
    await clients(emulator).blob().getContainerClient('kept').create();
    const cleaning = emulator.clean('blob');
    const disposing = emulator.dispose();
    const outcome = await cleaning;
    await disposing;
    assert.match(!outcome.ok ? outcome.message : '', /^Blob was not cleaned: the emulator is shutting down/);
    const { emulator: next } = track(makeEmulator({ location: dir }));
    await startAll(next, ['blob']);
    assert.equal(await clients(next).blob().getContainerClient('kept').exists(), true);
  });

  it('a start waiting for the engine\'s load when dispose() begins goes no further: nothing listens, no data file is made, no seed runs', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const dir = tempDir();
    const { emulator } = track(makeEmulator({ location: dir }));
    const states: string[] = [];
    emulator.onDidChangeState(({ kind, state }) => states.push(`${kind} ${state.status}`));
    let seeded = false;
    emulator.setAfterStart(async () => { seeded = true; return { ok: true }; });
    let settled = false;
    const starting = emulator.start('blob').finally(() => { settled = true; });
    const { disposing, stillWaiting } = await disposeWhileLoading(emulator, () => settled);
    assert.equal(stillWaiting, true, 'the start was waiting for the load when dispose() began');
    const outcome = await starting;
    await disposing;
    assert.ok(!outcome.ok && outcome.reason === 'state', JSON.stringify(outcome));
    assert.match(outcome.message, /^Blob was not started: the emulator is shutting down/);
    assert.deepEqual(states, [], 'the service never began its start');
    assert.equal(seeded, false);
    assert.deepEqual(fs.readdirSync(dir), [], 'no database was loaded or saved');
  });

  it('a stop, clean and dispose() abort the hook after a start under way (a seed loading) instead of waiting for it to end, also when asked before the hook began or while the start waits its turn; a restart does not', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    /** A hook that runs until its signal aborts (a seed too large to finish in the test), then reports the cancel. */
    const entered: { kind: string; signal: AbortSignal }[] = [];
    emulator.setAfterStart((kind, _inMemory, signal) => new Promise((resolve) => {
      entered.push({ kind, signal });
      if (signal.aborted) resolve(failure('cancelled', 'Cancelled.'));
      signal.addEventListener('abort', () => resolve(failure('cancelled', 'Cancelled.')), { once: true });
    }));
    const hooks = (kind: string) => entered.filter((e) => e.kind === kind);
    const waitEntered = async (kind: string, count: number): Promise<void> => {
      for (let i = 0; i < 500 && hooks(kind).length < count; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(hooks(kind).length, count, `the hook of ${kind}'s start #${count} ran`);
    };
    const cancelled = failure('cancelled', 'Cancelled.');

    const blob = emulator.start('blob');
    await waitEntered('blob', 1);
    assert.deepEqual(await emulator.stop('blob'), { ok: true });
    assert.deepEqual(await blob, cancelled);
    assert.equal(emulator.status('blob').status, 'closed');
    // A Stop clicked while the service shows starting (before its hook began).
    const starting = new Promise<void>((resolve) => {
      const sub = emulator.onDidChangeState(({ kind, state }) => { if (kind === 'blob' && state.status === 'starting') { sub.dispose(); resolve(); } });
    });
    const again = emulator.start('blob');
    await starting;
    const stopped = emulator.stop('blob');
    assert.deepEqual(await again, cancelled);
    assert.ok(hooks('blob')[1]!.signal.aborted, 'the hook got an aborted signal');
    assert.deepEqual(await stopped, { ok: true });
    // A Stop asked for while a start still waits its turn (behind a stop): that start's hook is aborted at once.
    const third = emulator.start('blob');
    await waitEntered('blob', 3);
    const stopThird = emulator.stop('blob');
    const queued = emulator.start('blob');
    const stopQueued = emulator.stop('blob');
    assert.deepEqual(await third, cancelled);
    assert.deepEqual(await queued, cancelled);
    assert.ok(hooks('blob')[3]!.signal.aborted, 'the queued start\'s hook got an aborted signal');
    assert.deepEqual(await stopThird, { ok: true });
    assert.deepEqual(await stopQueued, { ok: true });
    assert.equal(emulator.status('blob').status, 'closed');

    const table = emulator.start('table');
    await waitEntered('table', 1);
    // A clean of the running service: the start's hook is cut short, and the clean's own start runs it again.
    const cleaned = emulator.clean('table');
    assert.deepEqual(await table, cancelled);
    await waitEntered('table', 2);

    const queue = emulator.start('queue');
    await waitEntered('queue', 1);
    // A restart (a settings change) waits for the hook: on disk its start seeds only an empty service.
    const restarted = emulator.restart('queue');
    assert.equal(hooks('queue')[0]!.signal.aborted, false);
    await emulator.dispose();
    assert.deepEqual(await queue, cancelled);
    const afterDispose = await restarted;
    assert.ok(!afterDispose.ok && afterDispose.reason === 'state', JSON.stringify(afterDispose));
    assert.deepEqual(await cleaned, cancelled);
    assert.deepEqual(emulator.runningKinds(), []);
  });

  it('a stop asked while a restart or a clean still stops the service cuts the seed of the start that follows short', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    let first = true;
    /** The first start's hook (after `first` is set) ends at once; later ones run until their signal aborts (a seed too large to finish here). */
    emulator.setAfterStart((_kind, _inMemory, signal) => new Promise((resolve) => {
      if (first) { first = false; resolve({ ok: true }); return; }
      if (signal.aborted) resolve(failure('cancelled', 'Cancelled.'));
      signal.addEventListener('abort', () => resolve(failure('cancelled', 'Cancelled.')), { once: true });
    }));
    const bounded = <T>(p: Promise<T>, what: string): Promise<T> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} waited for the whole seed`)), 20_000); });
      return Promise.race([p, late]).finally(() => clearTimeout(timer));
    };
    const cancelled = failure('cancelled', 'Cancelled.');
    for (const op of ['restart', 'clean'] as const) {
      first = true;
      await startAll(emulator, ['queue']);
      const restarting = emulator[op]('queue');
      const stopped = emulator.stop('queue');
      assert.deepEqual(await bounded(restarting, `the ${op}`), cancelled);
      assert.deepEqual(await bounded(stopped, `the stop after the ${op}`), { ok: true });
      assert.equal(emulator.status('queue').status, 'closed');
    }
  });

  it('says what a clean deletes and keeps when a running service\'s memory mode or folder changed since it started (a restart put off)', async () => {
    const context = { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: os.tmpdir(), rootHasAzuriteData: false };
    const a = tempDir('clean-a-');
    const b = tempDir('clean-b-');
    const raw = { blobPort: 0, queuePort: 0, tablePort: 0 };
    const { emulator } = track(makeEmulator({ ...raw, inMemoryPersistence: true }));
    await startAll(emulator, ['blob']);
    assert.equal(emulator.cleanTarget('blob'), 'all Blob data held in memory');
    // Turned to disk while Blob runs in memory (the restart question answered Later).
    await emulator.updateSettings(parseSettings({ ...raw, location: a }, context));
    assert.equal(emulator.cleanTarget('blob'), `all Blob data held in memory, where it runs now, and __azurite_db_blob__.json, __azurite_db_blob_extent__.json, __blobstorage__ in ${a}, where it starts again (azurite.inMemoryPersistence changed since it started)`);
    assert.equal(emulator.cleanTarget('queue'), `__azurite_db_queue__.json, __azurite_db_queue_extent__.json, __queuestorage__ in ${a}`, 'a stopped service: what the settings in force name');
    assert.ok((await emulator.stop('blob')).ok);
    await startAll(emulator, ['blob']);
    await emulator.updateSettings(parseSettings({ ...raw, location: b }, context));
    assert.equal(emulator.cleanTarget('blob'), `__azurite_db_blob__.json, __azurite_db_blob_extent__.json, __blobstorage__ in ${b}, where it starts again (azurite.location changed since it started); its data in ${a} is kept`);
    await emulator.updateSettings(parseSettings({ ...raw, location: a, inMemoryPersistence: true }, context));
    assert.equal(emulator.cleanTarget('blob'), `nothing on disk: Blob starts again in memory (azurite.inMemoryPersistence changed since it started); its data in ${a} is kept`);
  });

  it('a clean of a running service counts as a start under way (it starts the service again); one of a stopped service does not', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator, ['blob', 'queue']);
    assert.ok((await emulator.stop('queue')).ok);
    const seen: string[][] = [];
    emulator.onDidChangeStartsUnderWay(() => seen.push(emulator.startsUnderWay()));
    // Seen while the clean is in its steps (the service closed between its stop and its start).
    const closedDuring: string[][] = [];
    const sub = emulator.onDidChangeState(({ kind, state }) => { if (kind === 'blob' && state.status === 'closed') closedDuring.push(emulator.startsUnderWay()); });
    assert.deepEqual(await emulator.clean('blob'), { ok: true });
    sub.dispose();
    assert.ok(closedDuring.length > 0 && closedDuring.every((s) => s.includes('blob')), `stopped by the clean, and counted as starting meanwhile: ${JSON.stringify(closedDuring)}`);
    assert.deepEqual(seen.at(-1), [], 'not once the clean is done');
    assert.equal(emulator.status('blob').status, 'running');
    seen.length = 0;
    assert.deepEqual(await emulator.clean('queue'), { ok: true });
    assert.ok(seen.every((s) => !s.includes('queue')), JSON.stringify(seen));
    assert.equal(emulator.status('queue').status, 'closed');
  });

  it('a clean waiting for the engine\'s load when dispose() begins deletes nothing', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const dir = tempDir();
    const first = track(makeEmulator({ location: dir }));
    await startAll(first.emulator, ['blob']);
    await clients(first.emulator).blob().getContainerClient('kept').create();
    await first.emulator.dispose();

    const { emulator } = track(makeEmulator({ location: dir }));
    let settled = false;
    const cleaning = emulator.clean('blob').finally(() => { settled = true; });
    const { disposing, stillWaiting } = await disposeWhileLoading(emulator, () => settled);
    assert.equal(stillWaiting, true, 'the clean was waiting for the load when dispose() began');
    const outcome = await cleaning;
    await disposing;
    assert.ok(!outcome.ok && outcome.reason === 'state', JSON.stringify(outcome));
    assert.match(outcome.message, /^Blob was not cleaned: the emulator is shutting down/);

    const { emulator: next } = track(makeEmulator({ location: dir }));
    await startAll(next, ['blob']);
    assert.equal(await clients(next).blob().getContainerClient('kept').exists(), true);
  });

  it('a start whose checks are under way when dispose() begins does not listen', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await emulator.warmUp();
    const states: string[] = [];
    let disposing: Promise<void> | undefined;
    emulator.onDidChangeState(({ kind, state }) => {
      states.push(`${kind} ${state.status}`);
      // Sent as the service shows starting: before its checks and its listen.
      if (kind === 'blob' && state.status === 'starting') disposing ??= emulator.dispose();
    });
    const outcome = await emulator.start('blob');
    await disposing;
    assert.ok(!outcome.ok && outcome.reason === 'state', JSON.stringify(outcome));
    assert.match(outcome.message, /^Blob was not started: the emulator is shutting down/);
    assert.deepEqual(states, ['blob starting', 'blob closed']);
  });

  it('a start whose service listens after dispose() began runs no seed, and answers that it was cut short', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    let seeded = false;
    emulator.setAfterStart(async () => { seeded = true; return { ok: true }; });
    let disposing: Promise<void> | undefined;
    emulator.onDidChangeState(({ kind, state }) => {
      if (kind === 'blob' && state.status === 'running') disposing ??= emulator.dispose();
    });
    const outcome = await emulator.start('blob');
    await disposing;
    assert.ok(!outcome.ok && outcome.reason === 'state', JSON.stringify(outcome));
    assert.match(outcome.message, /^Blob's start was cut short: the emulator is shutting down/);
    assert.equal(seeded, false);
    assert.equal(emulator.status('blob').status, 'closed');
  });

  it('azurite.engine.heapLimit changed while a service runs: the engine keeps its limit while any service uses it, and the first start once none does (also two at once) brings up a process with the new limit', async () => {
    const context = { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: os.tmpdir(), rootHasAzuriteData: false };
    const raw = { inMemoryPersistence: true, blobPort: 0, queuePort: 0, tablePort: 0 };
    const { emulator, log } = track(makeEmulator({ ...raw, 'engine.heapLimit': 512 }));
    /** The --max-old-space-size the engine's process was started with (its command line). */
    const heapFlag = (pid: number): string | undefined => /--max-old-space-size=(\d+)/.exec(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1];
    await startAll(emulator, ['blob']);
    const first = emulator.enginePid!;
    assert.equal(heapFlag(first), '512');
    await emulator.updateSettings(parseSettings({ ...raw, 'engine.heapLimit': 256 }, context));
    assert.ok(log.of('info').some((l) => l.includes('keeps its limit of 512 MB while a service runs in it')), log.of('info').join('\n'));
    // A start beside a running service keeps the process (and Blob's data in it).
    await startAll(emulator, ['queue']);
    assert.equal(emulator.enginePid, first);
    assert.ok((await emulator.stop('queue')).ok);
    assert.ok((await emulator.stop('blob')).ok);
    assert.equal(emulator.enginePid, first, 'an idle engine is replaced at the next start, not before');
    // Two starts at once (Start All): the first ends the idle process, and both run in the new one.
    const outcomes = await Promise.all([emulator.start('table'), emulator.start('blob')]);
    assert.deepEqual(outcomes, [{ ok: true }, { ok: true }]);
    const second = emulator.enginePid!;
    assert.notEqual(second, first);
    assert.equal(heapFlag(second), '256');
    await clients(emulator).blob().getContainerClient('served').create();
    await clients(emulator).table('served').createTable();
    assert.equal(fs.existsSync(`/proc/${first}`) && !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${first}/status`, 'utf8')), false, 'the old process has ended');
    assert.ok(log.of('info').some((l) => l.includes('runs with 512 MB: starting a new one')));
    assert.equal(emulator.status('table').status, 'running');
  });

  it('a setting error leaves the running service as it is (a restart would only stop it), says so, and a fix to the value it runs with needs no restart', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator, ['blob', 'queue']);
    const context = { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: os.tmpdir(), rootHasAzuriteData: false };
    const problems = await emulator.updateSettings(parseSettings({ inMemoryPersistence: true, blobPort: 100005, queuePort: 0, tablePort: 0 }, context));
    assert.deepEqual(emulator.servicesNeedingRestart(), []);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.reason, 'setting');
    assert.equal(problems[0]!.setting, 'azurite.blobPort');
    assert.match(problems[0]!.message, / Blob keeps running with the settings it started with until this is fixed\.$/);
    await emulator.updateSettings(parseSettings({ inMemoryPersistence: true, blobPort: 0, queuePort: 0, tablePort: 0 }, context));
    assert.deepEqual(emulator.servicesNeedingRestart(), [], 'fixed to the value it started with');
    assert.equal(emulator.status('blob').status, 'running');
  });

  it('a running disk-mode service keeps its data folder, for its size and tooltip too, until its restart', async () => {
    const [first, second] = [tempDir(), tempDir()];
    const { emulator } = track(makeEmulator({ location: first }));
    await startAll(emulator, ['blob']);
    const { containerClient } = await clients(emulator).blob().createContainer('sized');
    await containerClient.getBlockBlobClient('b').uploadData(Buffer.alloc(64 * 1024, 1));
    await emulator.updateSettings(parseSettings({ location: second, blobPort: 0, queuePort: 0, tablePort: 0 }, { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: os.tmpdir(), rootHasAzuriteData: false }));
    assert.deepEqual(emulator.servicesNeedingRestart(), ['blob'], 'the change waits for a restart');
    assert.equal(emulator.dataLocation('blob'), first);
    assert.equal(emulator.dataLocation('queue'), second, 'a stopped service would start in the new folder');
    assert.ok(await emulator.diskUsageBytes('blob') >= 64 * 1024, 'measured where its data is');
    // What a listener of the restart's `running` event reads (the status bar measures the folder then).
    const atRunning: string[] = [];
    const sub = emulator.onDidChangeState(({ kind, state }) => { if (kind === 'blob' && state.status === 'running') atRunning.push(emulator.dataLocation('blob')); });
    await emulator.restart('blob');
    sub.dispose();
    assert.deepEqual(atRunning, [second]);
    assert.equal(emulator.dataLocation('blob'), second);
    assert.ok(await emulator.diskUsageBytes('blob') < 64 * 1024);
  });

  it('keeps disk data across stop and start, and clean deletes it', async () => {
    const dir = tempDir();
    const { emulator } = track(makeEmulator({ location: dir }));
    await startAll(emulator);
    let c = clients(emulator);
    await c.blob().getContainerClient('keep').create();
    await c.blob().getContainerClient('keep').getBlockBlobClient('k').uploadData(Buffer.from('kept'));
    await c.queue().getQueueClient('keepq').create();
    await c.queue().getQueueClient('keepq').sendMessage('kept message');
    await c.table('keept').createTable();
    await c.table('keept').createEntity({ partitionKey: 'p', rowKey: 'r', v: 'kept' });
    await emulator.stopAll();
    assert.ok(fs.existsSync(path.join(dir, '__azurite_db_blob__.json')));
    assert.ok(fs.existsSync(path.join(dir, '__azurite_db_table__.json')));

    await startAll(emulator);
    c = clients(emulator);
    assert.equal((await c.blob().getContainerClient('keep').getBlockBlobClient('k').downloadToBuffer()).toString(), 'kept');
    assert.equal((await c.queue().getQueueClient('keepq').peekMessages()).peekedMessageItems[0]!.messageText, 'kept message');
    assert.equal((await c.table('keept').getEntity<{ v: string }>('p', 'r')).v, 'kept');

    // Clean on a running service: stopped, cleaned, started again, empty.
    assert.deepEqual(await emulator.clean('blob'), { ok: true });
    assert.equal(emulator.status('blob').status, 'running');
    c = clients(emulator);
    assert.equal(await c.blob().getContainerClient('keep').exists(), false);
    assert.deepEqual(fs.readdirSync(path.join(dir, '__blobstorage__')), []);
  });

  it('reports a port that is taken, naming the service, the port and the setting', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const { emulator } = track(makeEmulator({ inMemoryPersistence: true, blobPort: port }));
      const outcome = await emulator.start('blob');
      assert.equal(outcome.ok, false);
      const message = (outcome as { message: string }).message;
      assert.match(message, new RegExp(`^Blob service could not start: port ${port} on 127\\.0\\.0\\.1 is already in use by another program\\. Use port \\d+ \\(free now\\)`));
      const conflict = (outcome as { conflict?: { holder: string; freePort?: number } }).conflict;
      assert.equal(conflict?.holder, 'other');
      assert.ok(conflict?.freePort !== undefined && conflict.freePort > port);
      assert.deepEqual(emulator.status('blob'), { status: 'closed', error: message });
      // One failing service never stops the others.
      assert.deepEqual(await emulator.start('queue'), { ok: true });
    } finally {
      holder.close();
    }
  });

  it('tells a port held by another Azurite from one held by another program, and offers the next free port', async () => {
    const first = track(makeEmulator({ inMemoryPersistence: true })).emulator;
    await startAll(first, ['queue']);
    const port = first.endpoint('queue')!.port;
    const second = track(makeEmulator({ inMemoryPersistence: true, queuePort: port })).emulator;
    const outcome = await second.start('queue');
    assert.equal(outcome.ok, false);
    const failed = outcome as { message: string; conflict?: { holder: string; server?: string; freePort?: number } };
    assert.equal(failed.conflict?.holder, 'azurite');
    assert.match(failed.conflict?.server ?? '', /^Azurite-Queue\/3\./);
    assert.match(failed.message, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use by another Azurite \\(Azurite-Queue/`));
    assert.ok(await isPortFree('127.0.0.1', failed.conflict!.freePort!));
  });

  it('a start refused after it was asked for (azurite.attach set while the engine loads) does not listen', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    const started = emulator.start('blob');
    // Asked at once: the start is then loading the engine (its state still closed).
    assert.deepEqual(emulator.startsUnderWay(), ['blob']);
    emulator.setStartBlocker(() => failure('state', 'attached'));
    assert.deepEqual(await started, failure('state', 'attached'));
    assert.equal(emulator.status('blob').status, 'closed');
    assert.equal(emulator.endpoint('blob'), undefined);
  });

  it('remembers another Azurite found serving a service on its port for the connection string, and forgets it when a probe finds nothing, the port changes, or its own service runs there', async () => {
    const first = track(makeEmulator({ inMemoryPersistence: true })).emulator;
    await startAll(first);
    const [blobPort, queuePort, tablePort] = (['blob', 'queue', 'table'] as const).map((k) => first.endpoint(k)!.port);
    const second = track(makeEmulator({ inMemoryPersistence: true, blobPort, queuePort, tablePort })).emulator;
    const changes: string[] = [];
    second.onDidChangeServedElsewhere((k) => changes.push(k));

    // Not while a start is refused (attached to an Azurite elsewhere).
    second.setStartBlocker(() => failure('state', 'attached'));
    assert.match(await second.servedElsewhere('blob') ?? '', new RegExp(`^127\\.0\\.0\\.1:${blobPort} already answers as Azurite-Blob/`));
    assert.deepEqual(second.servedElsewhereKinds(), []);
    second.setStartBlocker(undefined);

    for (const kind of ['blob', 'queue', 'table'] as const) assert.notEqual(await second.servedElsewhere(kind), undefined, kind);
    assert.deepEqual(second.servedElsewhereKinds(), ['blob', 'queue', 'table']);
    assert.deepEqual(changes, ['blob', 'queue', 'table']);
    const cs = second.connectionString();
    assert.equal(cs, first.connectionString(), 'the other Azurite\'s endpoints, with the development account');
    await BlobServiceClient.fromConnectionString(cs).getContainerClient('from-second').create();
    assert.equal(await BlobServiceClient.fromConnectionString(first.connectionString()).getContainerClient('from-second').exists(), true);
    await second.servedElsewhere('blob');
    assert.deepEqual(changes, ['blob', 'queue', 'table'], 'found again: no change');

    assert.deepEqual(await first.stop('queue'), { ok: true });
    assert.equal(await second.servedElsewhere('queue'), undefined);
    assert.deepEqual(second.servedElsewhereKinds(), ['blob', 'table'], 'a probe that finds nothing forgets it');

    await second.updateSettings(parseSettings({ inMemoryPersistence: true, blobPort, queuePort, tablePort: 0 }, LOCATION));
    assert.deepEqual(second.servedElsewhereKinds(), ['blob'], 'another port: what was found on the old one is forgotten');

    assert.deepEqual(await first.stop('blob'), { ok: true });
    assert.deepEqual(second.servedElsewhereKinds(), ['blob'], 'nothing watches the other Azurite: kept until a probe or a start');
    assert.deepEqual(await second.start('blob'), { ok: true });
    assert.equal(second.endpoint('blob')?.port, blobPort);
    assert.deepEqual(second.servedElsewhereKinds(), [], 'its own Blob runs there now');
    assert.deepEqual(changes, ['blob', 'queue', 'table', 'queue', 'table', 'blob']);
  });

  it('names another Azurite found for a "::" host at the loopback it answered on (127.0.0.1), not [::1]', async () => {
    const first = track(makeEmulator({ inMemoryPersistence: true })).emulator;
    await startAll(first, ['blob']);
    const blobPort = first.endpoint('blob')!.port;
    const second = track(makeEmulator({ inMemoryPersistence: true, blobHost: '::', blobPort })).emulator;
    assert.equal(await second.servedElsewhere('blob'), `127.0.0.1:${blobPort} already answers as ${(await probePortHolder('127.0.0.1', blobPort)).server}`);
    assert.deepEqual(second.clientAddress('blob'), { host: '127.0.0.1', port: blobPort, https: false });
    const blob = BlobServiceClient.fromConnectionString(second.connectionString());
    await blob.getContainerClient('reached').create();
    assert.equal(await BlobServiceClient.fromConnectionString(first.connectionString()).getContainerClient('reached').exists(), true);
  });

  it('refuses to start on invalid settings or an unwritable location, without starting half-way', async () => {
    const { emulator } = track(makeEmulator({ blobPort: 70000, inMemoryPersistence: true }));
    const bad = await emulator.start('blob');
    assert.equal(bad.ok, false);
    assert.match((bad as { message: string }).message, /azurite\.blobPort is 70000; use a whole number from 0 to 65535/);
    assert.equal(emulator.status('blob').status, 'closed');

    const file = path.join(tempDir(), 'a-file');
    fs.writeFileSync(file, 'not a folder');
    const { emulator: e2 } = track(makeEmulator({ location: path.join(file, 'data') }));
    const outcome = await e2.start('table');
    assert.equal(outcome.ok, false);
    assert.match((outcome as { message: string }).message, /azurite\.location resolves to .*a-file.*cannot be created or written \(ENOTDIR/);
    assert.equal(e2.status('table').status, 'closed');
  });

  it('gives every emulator its own memory store: cleaning one keeps the other\'s data', async () => {
    const a = track(makeEmulator({ inMemoryPersistence: true })).emulator;
    const b = track(makeEmulator({ inMemoryPersistence: true })).emulator;
    await startAll(a, ['blob']);
    await startAll(b, ['blob']);
    for (const e of [a, b]) {
      const container = clients(e).blob().getContainerClient('own');
      await container.create();
      await container.getBlockBlobClient('x').uploadData(Buffer.from('mine'));
    }
    assert.deepEqual(await a.clean('blob'), { ok: true });
    assert.equal((await a.memoryReportNow()).usedBytes, 0);
    assert.equal((await b.memoryReportNow()).usedBytes, 4);
    assert.equal((await clients(b).blob().getContainerClient('own').getBlockBlobClient('x').downloadToBuffer()).toString(), 'mine');
  });

  it('names the damaged data file and the way out when a database file does not parse', async () => {
    const location = tempDir();
    fs.writeFileSync(path.join(location, '__azurite_db_table__.json'), '<<<<<<< HEAD\n{}');
    const { emulator } = track(makeEmulator({ inMemoryPersistence: false, location }));
    const outcome = await emulator.start('table');
    assert.equal(outcome.ok, false);
    if (!outcome.ok) {
      assert.match(outcome.message, /^Table service could not start: its data in ".+" cannot be read \(Unexpected token .+\): __azurite_db_table__\.json there is damaged\. Restore it .+ or run "Azurite: Clean Table Service" to start empty/);
    }
    assert.equal(emulator.status('table').status, 'closed');
  });

  it('writes nothing to disk in memory mode, even with azurite.location set', async () => {
    const location = path.join(tempDir(), 'never-created');
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, location }));
    await startAll(emulator);
    const c = clients(emulator);
    await c.blob().getContainerClient('mem').create();
    await c.queue().getQueueClient('mem-queue').create();
    await c.table('memtable').createTable();
    await emulator.stopAll();
    assert.equal(fs.existsSync(location), false);
  });

  it('names every service with a port in its connection string: running ones where they listen, stopped ones at their configured port', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, queuePort: 47_001, tablePort: 0 }));
    assert.deepEqual(emulator.addressedKinds(), ['queue'], 'nothing runs: only the port that is known');
    await startAll(emulator, ['blob']);
    const blobPort = emulator.endpoint('blob')!.port;
    const cs = emulator.connectionString();
    assert.match(cs, new RegExp(`;BlobEndpoint=http://127\\.0\\.0\\.1:${blobPort}/devstoreaccount1;QueueEndpoint=http://127\\.0\\.0\\.1:47001/devstoreaccount1;$`));
    // A client of the stopped Queue service is refused here, not sent to a cloud address built from the account name.
    const queue = QueueServiceClient.fromConnectionString(cs, { retryOptions: { maxTries: 1 } });
    assert.equal(queue.url, 'http://127.0.0.1:47001/devstoreaccount1');
    await assert.rejects(queue.getProperties(), (err: { code?: string }) => err.code === 'ECONNREFUSED');
    const none = track(makeEmulator({ inMemoryPersistence: true }));
    assert.deepEqual(none.emulator.addressedKinds(), ['blob', 'queue', 'table'], 'every port 0, nothing running: all three, as before');
  });

  it('leaves disk-mode data in azurite.location alone when an in-memory service there stops', async () => {
    const location = tempDir();
    const disk = track(makeEmulator({ inMemoryPersistence: false, location }));
    await startAll(disk.emulator);
    const c = clients(disk.emulator);
    await c.blob().getContainerClient('on-disk').create();
    await c.queue().getQueueClient('on-disk-queue').create();
    await c.table('ondisk').createTable();
    await disk.emulator.stopAll();
    const files = fs.readdirSync(location).filter((f) => f.startsWith('__azurite_db_')).sort();
    assert.equal(files.length, 5, files.join(', '));

    // A quick test in memory mode with the same location: started and stopped.
    const memory = track(makeEmulator({ inMemoryPersistence: true, location }));
    await startAll(memory.emulator);
    await memory.emulator.stopAll();
    assert.deepEqual(fs.readdirSync(location).filter((f) => f.startsWith('__azurite_db_')).sort(), files);

    const again = track(makeEmulator({ inMemoryPersistence: false, location }));
    await startAll(again.emulator);
    const d = clients(again.emulator);
    assert.equal(await d.blob().getContainerClient('on-disk').exists(), true);
    assert.equal(await d.queue().getQueueClient('on-disk-queue').exists(), true);
    const tables: string[] = [];
    for await (const t of TableServiceClient.fromConnectionString(d.connectionString, { allowInsecureConnection: true }).listTables()) tables.push(t.name!);
    assert.deepEqual(tables, ['ondisk']);
  });

  it('routes azurite\'s debug log to the log when azurite.debug is on, and stops when it is off', async () => {
    const { emulator, log } = track(makeEmulator({ inMemoryPersistence: true, silent: true, debug: true }));
    await startAll(emulator, ['blob']);
    await clients(emulator).blob().getContainerClient('debug-on').create();
    assert.ok(log.of('debug').length > 0, 'no debug lines');
    // A bearer token (azurite.oauth) and a SAS signature in a request never reach the log.
    const port = emulator.endpoint('blob')!.port;
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/devstoreaccount1/debug-on?restype=container&sig=SECRET-SIGNATURE', headers: { authorization: 'Bearer SECRET.TOKEN.VALUE', 'x-ms-version': '2025-01-05' } }, (res) => { res.resume(); res.on('end', resolve); });
      req.on('error', reject);
      req.end();
    });
    await emulator.memoryReportNow();
    const debugLines = log.of('debug');
    assert.ok(debugLines.some((l) => l.includes('"authorization":"Bearer ***"')), debugLines.join('\n'));
    assert.ok(!debugLines.some((l) => l.includes('SECRET')), debugLines.filter((l) => l.includes('SECRET')).join('\n'));
    await emulator.stop('blob');

    const quiet = track(makeEmulator({ inMemoryPersistence: true, silent: true }));
    await startAll(quiet.emulator, ['blob']);
    await clients(quiet.emulator).blob().getContainerClient('debug-off').create();
    assert.deepEqual(quiet.log.of('debug'), []);
  });

  it('says, once per change, when a changed azurite.engine.heapLimit applies: once no service runs, or at the next start', async () => {
    const { emulator, log } = track(makeEmulator({ inMemoryPersistence: true, 'engine.heapLimit': 512 }));
    await startAll(emulator, ['blob']);
    const heapLine = () => log.of('info').filter((l) => l.startsWith('azurite.engine.heapLimit'));
    await emulator.updateSettings(parseSettings({ ...portsOf(emulator), inMemoryPersistence: true, 'engine.heapLimit': 640 }, LOCATION));
    assert.deepEqual(heapLine(), ['azurite.engine.heapLimit is now 640 MB. The emulator engine\'s process, already running, keeps its limit of 512 MB while a service runs in it: the first start once every service has stopped brings up a new process with the new limit (so does a window reload).']);
    await emulator.updateSettings(parseSettings({ ...portsOf(emulator), inMemoryPersistence: true, 'engine.heapLimit': 640, silent: true }, LOCATION));
    assert.equal(heapLine().length, 1, 'said once per change');
    assert.ok((await emulator.stop('blob')).ok);
    await emulator.updateSettings(parseSettings({ ...portsOf(emulator), inMemoryPersistence: true, 'engine.heapLimit': 768, silent: true }, LOCATION));
    assert.equal(heapLine()[1], 'azurite.engine.heapLimit is now 768 MB. The emulator engine\'s process, already running, keeps its limit of 512 MB until the next start, which brings up a new process with the new limit.');
  });

  it('says when a service finished a start begun before a settings change (it runs with the older settings)', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    const stale: string[] = [];
    emulator.onDidStartWithStaleSettings((kind) => stale.push(kind));
    await startAll(emulator, ['queue']);
    assert.deepEqual(stale, [], 'no change, no event');
    // The change lands while Blob starts: after it read its options, before it listens.
    const changedDuringStart = new Promise<void>((resolve) => {
      const sub = emulator.onDidChangeState(({ kind, state }) => {
        if (kind !== 'blob' || state.status !== 'starting') return;
        sub.dispose();
        void emulator.updateSettings(parseSettings({ ...portsOf(emulator), inMemoryPersistence: true, loose: true }, LOCATION)).then(() => resolve());
      });
    });
    assert.deepEqual(await emulator.start('blob'), { ok: true });
    await changedDuringStart;
    assert.deepEqual(stale, ['blob']);
    assert.deepEqual(emulator.servicesNeedingRestart(), ['blob', 'queue'], 'queue ran before the change, blob started with the older settings');
    assert.deepEqual(await emulator.restart('blob'), { ok: true });
    assert.deepEqual(emulator.servicesNeedingRestart(), ['queue']);
    assert.deepEqual(stale, ['blob'], 'a start with the settings in force fires nothing');
  });

  it('a restart queued behind a Stop leaves the service stopped (a settings change does not undo a Stop)', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator, ['blob']);
    const stopping = emulator.stop('blob');
    const restarting = emulator.restart('blob');
    assert.deepEqual(await Promise.all([stopping, restarting]), [{ ok: true }, { ok: true }]);
    assert.equal(emulator.status('blob').status, 'closed');
  });

  it('a start after a stop that ran past its bound waits for that stop to end (its dropping of in-memory data does not land after the start)', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const bounds = { stopMs: 300 };
    const { emulator, log } = track(makeEmulator({ inMemoryPersistence: true }, undefined, bounds));
    await startAll(emulator, ['blob']);
    const container = clients(emulator).blob().getContainerClient('late');
    await container.create();
    await container.getBlockBlobClient('before').uploadData(Buffer.alloc(64 * 1024, 1));
    // The engine's process held off the CPU: the stop cannot finish within its bound.
    const pid = emulator.enginePid!;
    process.kill(pid, 'SIGSTOP');
    try {
      const stopped = await emulator.stop('blob');
      assert.ok(!stopped.ok && stopped.reason === 'timeout', JSON.stringify(stopped));
      assert.equal(emulator.mayHoldPort('blob'), true, 'a probe of its port must not take it for another Azurite');
      // The bounds are read at each step: the wait for the late stop may now last as long as it takes.
      bounds.stopMs = 30_000;
      const starting = emulator.start('blob');
      await pollUntil('the start to wait for the late stop', () => log.of('info').some((l) => /^Blob: waiting for its previous stop/.test(l)));
      process.kill(pid, 'SIGCONT');
      assert.deepEqual(await starting, { ok: true });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    assert.equal(emulator.mayHoldPort('blob'), false);
    // The late stop has ended before the start went on: the old service's content is gone from the store.
    assert.equal((await emulator.memoryReportNow()).blobBytes, 0);
    const again = clients(emulator).blob().getContainerClient('late');
    await again.create();
    await again.getBlockBlobClient('after').uploadData(Buffer.alloc(1024, 2));
    assert.equal((await emulator.memoryReportNow()).blobBytes, 1024);
  });

  it('an in-memory start whose engine does not answer the memory limit fails within its bound (reason timeout, naming the setting), and a dispose behind it still ends the engine', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }, undefined, { listenMs: 500 }));
    await emulator.warmUp();
    const pid = emulator.enginePid!;
    // The engine's process held off the CPU: it answers no request.
    process.kill(pid, 'SIGSTOP');
    try {
      const started = await emulator.start('blob');
      assert.ok(!started.ok && started.reason === 'timeout' && started.setting === 'azurite.extentMemoryLimit', JSON.stringify(started));
      assert.match(started.message, /^Blob service could not start: the emulator engine did not answer within 500 ms when asked to apply azurite\.extentMemoryLimit/);
      assert.equal(emulator.status('blob').status, 'closed');
      // Nothing waits behind the failed start: the shutdown ends the stalled engine.
      await emulator.dispose();
      await pollUntil('the engine\'s process to end', () => { try { process.kill(pid, 0); return false; } catch { return true; } });
    } finally {
      try { process.kill(pid, 'SIGCONT'); } catch { /* ended */ }
    }
  });

  it('a settings change and new accounts, which a start waits for, end within the bound when the engine does not answer', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    // The bound also covers the start's listen: 2 s, so that a loaded machine's listen keeps within it.
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }, undefined, { listenMs: 2_000 }));
    await startAll(emulator, ['table']);
    const pid = emulator.enginePid!;
    process.kill(pid, 'SIGSTOP');
    try {
      const problems = await emulator.updateSettings(parseSettings({ ...portsOf(emulator), inMemoryPersistence: true, apiVersionCheck: 'strict' }, LOCATION));
      assert.deepEqual(problems.map((p) => [p.reason, p.setting]), [['timeout', 'azurite.apiVersionCheck']]);
      assert.match(problems[0]!.message, /did not answer within 2 s/);
      await assert.rejects(emulator.setAccounts([{ name: 'stalled1', key: Buffer.alloc(64, 1).toString('base64') }]), /did not answer within 2 s/);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });

  it('a start whose engine process ends meanwhile fails as an engine failure, naming the reason', async function () {
    if (process.platform === 'win32') this.skip(); // SIGKILL by pid
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await emulator.warmUp();
    const pid = emulator.enginePid!;
    // The engine held off the CPU, so that the start is surely under way in it when it is killed.
    process.kill(pid, 'SIGSTOP');
    const sub = emulator.onDidChangeState(({ kind, state }) => { if (kind === 'table' && state.status === 'starting') process.kill(pid, 'SIGKILL'); });
    try {
      const started = await emulator.start('table');
      assert.ok(!started.ok && started.reason === 'engine', JSON.stringify(started));
      assert.match(started.message, /it was ended by SIGKILL/);
    } finally {
      sub.dispose();
    }
  });

  it('a start whose engine is lost once the service listens, before the start has ended, fails with the loss (no success with an empty address, no seed)', async () => {
    const { emulator, log } = track(makeEmulator({ inMemoryPersistence: true }));
    let seeded = false;
    emulator.setAfterStart(async () => { seeded = true; return { ok: true }; });
    // The host's own report of a lost engine (as when a load runs past its bound: the process is
    // ended, and what ran in it is reported gone), made as the service shows running, so that it
    // surely comes before the start's last steps.
    const host = (emulator as unknown as { host: EngineHost }).host;
    let ending: Promise<void> | undefined;
    const sub = emulator.onDidChangeState(({ kind, state }) => {
      if (kind === 'blob' && state.status === 'running') ending ??= host.terminate('it was ended for this test');
    });
    try {
      const started = await emulator.start('blob');
      assert.ok(!started.ok && started.reason === 'engine', JSON.stringify(started));
      assert.equal(started.message, 'The emulator engine stopped: it was ended for this test. Blob is stopped. In-memory data of Blob is gone. Start a service to bring a new engine up.');
    } finally {
      sub.dispose();
      await ending;
    }
    assert.equal(seeded, false);
    assert.equal(emulator.status('blob').status, 'closed');
    assert.deepEqual(log.of('info').filter((l) => l.startsWith('Blob: listening')), []);
  });

  it('an engine out of memory past azurite.engine.heapLimit: the loss and a start it left unanswered name the setting, for Open Settings', async () => {
    // A listen bound no out-of-memory can outlast: the start must fail on the engine's end.
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, 'engine.heapLimit': 128 }, undefined, { listenMs: 120_000 }));
    await startAll(emulator, ['blob']);
    const lost = new Promise<EngineLoss>((resolve) => emulator.onDidLoseEngine(resolve));
    // The engine answers, then fills its heap without a pause: the start sent after is never answered.
    await (emulator as unknown as { host: EngineHost }).host.exhaustHeapForTest();
    const started = await emulator.start('table');
    assert.ok(!started.ok, JSON.stringify(started));
    assert.deepEqual([started.reason, started.setting], ['engine', 'azurite.engine.heapLimit']);
    assert.equal(started.message, 'Table service could not start: the emulator engine stopped: it ran out of memory (azurite.engine.heapLimit is 128 MB)');
    const loss = await lost;
    assert.deepEqual([loss.stopped, loss.setting], [['blob'], 'azurite.engine.heapLimit']);
    assert.match(loss.message, /^The emulator engine stopped: it ran out of memory \(azurite\.engine\.heapLimit is 128 MB\)\. Blob is stopped\./);
  });

  it('Emulator takes the engine load bound from its bounds: a load past it fails the start as an engine failure', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }, undefined, { engineLoadMs: 1 }));
    const started = await emulator.start('table');
    assert.ok(!started.ok && started.reason === 'engine', JSON.stringify(started));
    assert.match(started.message, /did not load within 1 ms/);
    // The failure stays on the service's state, which its status bar item shows (red, with the reason).
    assert.deepEqual(emulator.status('table'), { status: 'closed', error: started.message });
    const cleaned = await emulator.clean('queue');
    assert.ok(!cleaned.ok && cleaned.reason === 'engine', JSON.stringify(cleaned));
    assert.deepEqual(emulator.status('queue'), { status: 'closed', error: cleaned.message });
  });

  it('an engine that ends with no service running (killed after its warm-up) is logged, not announced; the next start brings a new engine up', async function () {
    if (process.platform === 'win32') this.skip(); // SIGKILL by pid
    const { emulator, log } = track(makeEmulator({ inMemoryPersistence: true }));
    await emulator.warmUp();
    const pid = emulator.enginePid!;
    const losses: unknown[] = [];
    const sub = emulator.onDidLoseEngine((loss) => losses.push(loss));
    try {
      process.kill(pid, 'SIGKILL');
      await pollUntil('the engine\'s end to be logged', () => log.of('error').some((l) => /^The emulator engine stopped: it was ended by SIGKILL\./.test(l)));
    } finally {
      sub.dispose();
    }
    assert.deepEqual(losses, [], 'nothing ran in it: no notification');
    await startAll(emulator, ['blob']);
    assert.notEqual(emulator.enginePid, pid);
    await clients(emulator).blob().getContainerClient('after').create();
  });

  it('writes access lines unless silent', async () => {
    const loud = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(loud.emulator, ['table']);
    await clients(loud.emulator).table('loud').createTable();
    // A round trip to the engine's worker: the access lines of every request it answered arrived first.
    await loud.emulator.memoryReportNow();
    assert.ok(loud.log.of('access').some((l) => l.includes('POST') || l.includes('Tables')), loud.log.of('access').join('\n'));
    // A SAS's signature in a request's URL reads *** (the channel is written to VS Code's log files).
    const port = loud.emulator.endpoint('table')!.port;
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/devstoreaccount1/Tables?sv=2025-01-05&sig=SECRET-SIGNATURE' }, (res) => { res.resume(); res.on('end', resolve); });
      req.on('error', reject);
      req.end();
    });
    await loud.emulator.memoryReportNow();
    assert.ok(loud.log.of('access').some((l) => l.includes('sig=***')), loud.log.of('access').join('\n'));
    assert.ok(!loud.log.of('access').some((l) => l.includes('SECRET')));

    const quiet = track(makeEmulator({ inMemoryPersistence: true, silent: true }));
    await startAll(quiet.emulator, ['table']);
    await clients(quiet.emulator).table('quiet').createTable();
    await quiet.emulator.memoryReportNow();
    assert.deepEqual(quiet.log.of('access'), []);

    // Turned off while running: said, and applied from the next start.
    await quiet.emulator.updateSettings(parseSettings({ ...portsOf(quiet.emulator), inMemoryPersistence: true, silent: false }, LOCATION));
    assert.ok(quiet.log.of('info').includes('Access log: Table started with azurite.silent on and log requests from their next start.'));
    await quiet.emulator.restart('table');
    await clients(quiet.emulator).table('loudnow').createTable();
    await quiet.emulator.memoryReportNow();
    assert.ok(quiet.log.of('access').length > 0);
  });
});

/**
 * For a start or clean just asked of `emulator`, whose engine has not loaded: finds its engine
 * process as the operation forks it (in the same turn of the event loop, so its load cannot have
 * been answered yet), holds it off the CPU (SIGSTOP), begins dispose(), lets a turn of the event
 * loop pass, and lets the engine go on (SIGCONT).
 * @param settled whether the operation has resolved
 * @returns the dispose under way, and whether the operation was still unresolved after that turn
 *   (waiting for the load: the engine could not answer it)
 * @throws Error when no engine process is forked within the microtasks that follow the call
 */
async function disposeWhileLoading(emulator: Emulator, settled: () => boolean): Promise<{ disposing: Promise<void>; stillWaiting: boolean }> {
  for (let i = 0; i < 100 && emulator.enginePid === undefined; i++) await Promise.resolve();
  const pid = emulator.enginePid;
  if (pid === undefined) throw new Error('no engine process was forked');
  process.kill(pid, 'SIGSTOP');
  try {
    const disposing = emulator.dispose();
    await new Promise((resolve) => setImmediate(resolve));
    return { disposing, stillWaiting: !settled() };
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

/** Polls `check` every 10 ms until it holds; fails after 10 s with `what`. */
async function pollUntil(what: string, check: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
