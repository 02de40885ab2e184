/**
 * Azurite closing a service by itself: its GC closes the Blob or Queue server after a "critical
 * error" (a data folder whose metadata it cannot read). Real engine (in its own process, and the
 * bundle in this one), real SDK clients, and a real cause: a committed block whose extent
 * reference is missing from the saved metadata, which azurite's GC trips over when it walks the
 * referenced extents, on its first sweep right after the start.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { DATA_FILES } from '../../../src/core/dataFiles';
import type { ServiceLoss } from '../../../src/emulator/emulator';
import type { SelfClosure } from '../../../src/emulator/azurite';
import type * as Adapter from '../../../src/emulator/azurite';
import { markerFileName } from '../../../src/emulator/shutdownMarker';
import { EngineHost, type HostServiceOptions } from '../../../src/emulator/engineHost';
import { ServiceManager } from '../../../src/emulator/serviceManager';
import type { Failure } from '../../../src/core/outcome';
import { clients, disposeAfterEach, engineFiles, makeEmulator, tempDir } from '../helpers/emulatorFixture';

const DEV_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const GC_ERROR = "Cannot read properties of null (reading 'id')";

/** Polls `check` every 20 ms until it returns a value; fails after `ms` naming `what`. */
async function until<T>(what: string, check: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (let value = check(); ; value = check()) {
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Writes a block blob `broken` (staged and committed) and a single-put blob `kept` to container
 * `data` of `blobs`, and returns a function that, once the service is stopped, takes the extent
 * reference out of `broken`'s committed block in the saved metadata (the file's text before is kept
 * and returned, to put back later).
 */
async function writeThenBreak(blobs: BlobServiceClient, location: string): Promise<() => string> {
  const container = blobs.getContainerClient('data');
  await container.create();
  const block = Buffer.from('block-0').toString('base64');
  await container.getBlockBlobClient('broken').stageBlock(block, Buffer.from('hello'), 5);
  await container.getBlockBlobClient('broken').commitBlockList([block]);
  await container.getBlockBlobClient('kept').upload('kept content', 12);
  return () => {
    const file = path.join(location, DATA_FILES.blob.db);
    const before = fs.readFileSync(file, 'utf8');
    const db = JSON.parse(before) as { collections: { name: string; data: { name: string; committedBlocksInOrder?: { persistency: unknown }[] }[] }[] };
    const records = db.collections.find((c) => c.name === '$BLOBS_COLLECTION$')!.data;
    const broken = records.find((r) => r.name === 'broken')!;
    assert.equal(broken.committedBlocksInOrder?.length, 1, 'the committed block is in the saved metadata');
    for (const b of broken.committedBlocksInOrder!) b.persistency = null;
    fs.writeFileSync(file, JSON.stringify(db));
    return before;
  };
}

describe('Azurite closing a service by itself (its GC\'s critical error; real engine, real SDK)', function () {
  this.timeout(120_000);
  const track = disposeAfterEach();

  it('the Blob service shows closed with the GC error and what to do, its port is free and its data saved; Queue in the same engine goes on; a start on repaired data serves it', async () => {
    const location = tempDir('self-close-');
    const { emulator, log } = track(makeEmulator({ location }));
    assert.ok((await emulator.start('blob')).ok);
    const breakIt = await writeThenBreak(clients(emulator).blob(), location);
    assert.ok((await emulator.stop('blob')).ok);
    const intact = breakIt();

    assert.ok((await emulator.start('queue')).ok);
    const queue = clients(emulator).queue().getQueueClient('beside');
    await queue.create();
    const losses: ServiceLoss[] = [];
    emulator.onDidLoseService((l) => losses.push(l));
    let port: number | undefined;
    emulator.onDidChangeState(({ kind, state }) => { if (kind === 'blob' && state.status === 'running') port = state.endpoint.port; });
    const started = await emulator.start('blob');
    // Azurite closes the server about 100 ms after it listens. While the start's last steps run, the
    // start's outcome reports it; after them, onDidLoseService does. One of the two, never both.
    const failed = started.ok ? (await until('the Blob service\'s loss', () => losses[0]))!.failure : started;
    assert.equal(losses.length, started.ok ? 1 : 0);
    if (started.ok) assert.equal(losses[0]!.kind, 'blob');

    assert.equal(failed.reason, 'engine');
    assert.equal(failed.setting, 'azurite.location');
    assert.equal(failed.message,
      `Azurite closed the Blob service: its garbage collection of unused content failed (${GC_ERROR}). Its data on disk was saved as Azurite had it. `
      + `Azurite names as causes data files written by another version of Azurite, file permissions, and corrupted metadata files in ${JSON.stringify(location)} (azurite.location). `
      + 'Start Blob to try again; if it closes again, point azurite.location at another folder, or run Azurite: Clean Blob Service to start from empty data (it deletes the data).');
    const state = emulator.status('blob');
    assert.deepEqual(state, { status: 'closed', error: failed.message });
    assert.deepEqual(emulator.runningKinds(), ['queue']);
    assert.ok(log.of('error').includes(failed.message), 'the message is in the log');
    // The port is free: nothing of the closed server answers.
    assert.ok(port !== undefined);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/devstoreaccount1?comp=list`));
    // The stop's save began and ended (no unfinished-save marker), and the data files are whole.
    assert.equal(fs.existsSync(path.join(location, markerFileName('blob'))), false);
    assert.match(fs.readFileSync(path.join(location, DATA_FILES.blob.db), 'utf8'), /"kept"/);
    // The engine and its other service go on.
    await queue.sendMessage('still served');
    assert.equal((await queue.peekMessages()).peekedMessageItems[0]?.messageText, 'still served');

    // With the metadata repaired, a start serves the data written before.
    fs.writeFileSync(path.join(location, DATA_FILES.blob.db), intact);
    assert.ok((await emulator.start('blob')).ok);
    const kept = await clients(emulator).blob().getContainerClient('data').getBlobClient('kept').downloadToBuffer();
    assert.equal(kept.toString(), 'kept content');
    assert.equal(emulator.status('blob').status, 'running');
  });

  it('the adapter: azurite\'s own close becomes a stop of ours (port free, data saved), is reported once with the GC error, and a stop after it resolves', async () => {
    const engine = require(engineFiles().enginePath) as typeof Adapter & { createApiVersionPolicy: (mode: string, onNewer: () => void) => unknown };
    const location = tempDir('self-close-adapter-');
    const options: Adapter.EngineServiceOptions = {
      kind: 'blob', host: '127.0.0.1', port: 0, inMemory: false, location, loose: false, keepAliveSec: 5,
      https: undefined, oauth: undefined, disableProductStyleUrl: false, accessLog: undefined, memoryStore: undefined,
      apiVersionPolicy: engine.createApiVersionPolicy('acceptNewer', () => undefined) as Adapter.EngineServiceOptions['apiVersionPolicy'],
    };
    const writer = engine.createService(options);
    const { port } = await writer.start();
    const blobs = new BlobServiceClient(`http://127.0.0.1:${port}/devstoreaccount1`, new (await import('@azure/storage-blob')).StorageSharedKeyCredential('devstoreaccount1', DEV_KEY));
    const breakIt = await writeThenBreak(blobs, location);
    await writer.stop();
    breakIt();

    const closures: SelfClosure[] = [];
    let closed!: () => void;
    const reported = new Promise<void>((resolve) => { closed = resolve; });
    const service = engine.createService({ ...options, onClosedItself: (c) => { closures.push(c); closed(); } });
    const endpoint = await service.start();
    await reported;
    assert.deepEqual(closures, [{ gcError: GC_ERROR, saveError: undefined }]);
    await assert.rejects(fetch(`http://127.0.0.1:${endpoint.port}/devstoreaccount1?comp=list`));
    // Before, azurite's close left the server Closed and a stop of ours then threw "Cannot close server in status Closed".
    await service.stop();
    assert.equal(fs.existsSync(path.join(location, markerFileName('blob'))), false);
    assert.equal(closures.length, 1);
  });

  it('a closure reported before the start\'s answer was taken (both handled in one turn) still closes the service', async () => {
    const location = tempDir('self-close-early-');
    const { emulator } = track(makeEmulator({ location }));
    assert.ok((await emulator.start('blob')).ok);
    const breakIt = await writeThenBreak(clients(emulator).blob(), location);
    await emulator.dispose();
    breakIt();

    const host = new EngineHost({ ...engineFiles(), codeCacheDir: undefined, heapLimitMb: () => 512, log: { info() {}, error() {} } },
      { extentLimitBytes: undefined, apiVersionCheck: 'acceptNewer' });
    try {
      // The real engine service, whose start is answered to the manager only after the closure was
      // reported to it: the order the two can have when the engine's messages arrive together.
      const manager = new ServiceManager('blob', (o: HostServiceOptions) => {
        let reported!: () => void;
        const closure = new Promise<void>((resolve) => { reported = resolve; });
        const handle = host.createService({ ...o, onClosedItself: (c) => { o.onClosedItself?.(c); reported(); } });
        return { ...handle, start: async () => { const endpoint = await handle.start(); await closure; return endpoint; } };
      }, { onClosedItself: (f) => failures.push(f) });
      const failures: Failure[] = [];
      const options: HostServiceOptions = {
        kind: 'blob', host: '127.0.0.1', port: 0, inMemory: false, location, loose: false, accessLog: undefined,
        keepAliveSec: 5, https: undefined, oauth: undefined, disableProductStyleUrl: false,
      };
      assert.deepEqual(await manager.start(options), { ok: true });
      assert.equal(manager.state.status, 'closed');
      assert.equal(failures.length, 1);
      assert.match(failures[0]!.message, /^Azurite closed the Blob service: its garbage collection of unused content failed/);
      assert.deepEqual(manager.state, { status: 'closed', error: failures[0]!.message });
      manager.dispose();
    } finally {
      await host.terminate();
      host.dispose();
    }
  });
});
