/**
 * What the Storage view asks of the engine, against the real engine in its own process with the newest
 * SDKs: Emulator.onDidChangeData after writes (not after reads or peeks; throttled under a burst,
 * the last change always reported) and Emulator.contentBytes per container and queue.
 */
import * as assert from 'node:assert/strict';
import { changesData } from '../../../src/emulator/azurite';
import { clients, disposeAfterEach, inParallel, makeEmulator, startAll, tempDir } from '../helpers/emulatorFixture';
import type { Emulator } from '../../../src/emulator/emulator';
import type { ServiceKind } from '../../../src/core/services';

/** Records onDidChangeData events with their times (ms, performance.now()). */
function record(emulator: Emulator): { events: { kind: ServiceKind; at: number }[]; next(kind: ServiceKind, timeoutMs?: number): Promise<number> } {
  const events: { kind: ServiceKind; at: number }[] = [];
  const waiters: { kind: ServiceKind; resolve(at: number): void }[] = [];
  emulator.onDidChangeData((kind) => {
    const at = performance.now();
    events.push({ kind, at });
    for (const w of waiters.splice(0)) {
      if (w.kind === kind) w.resolve(at);
      else waiters.push(w);
    }
  });
  return {
    events,
    next: (kind, timeoutMs = 5000) => new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${kind} change event within ${timeoutMs} ms`)), timeoutMs);
      waiters.push({ kind, resolve: (at) => { clearTimeout(timer); resolve(at); } });
    }),
  };
}

/**
 * Resolves once every change of the requests answered so far has been reported: the engine's
 * throttle holds no event back (a trailing one is sent first), whatever the scheduling delays.
 */
function allReported(emulator: Emulator): Promise<void> {
  return emulator.changesSentForTest();
}

describe('Engine data changes and content bytes (real engine, real SDKs)', function () {
  this.timeout(120_000);
  const track = disposeAfterEach();

  it('says which requests may change data', () => {
    assert.equal(changesData('PUT', '/devstoreaccount1/c/b'), true);
    assert.equal(changesData('DELETE', '/devstoreaccount1/c'), true);
    assert.equal(changesData('POST', '/devstoreaccount1/q/messages'), true);
    assert.equal(changesData('MERGE', "/devstoreaccount1/t(PartitionKey='p',RowKey='r')"), true);
    assert.equal(changesData('GET', '/devstoreaccount1/c/b'), false);
    assert.equal(changesData('HEAD', '/devstoreaccount1/c/b'), false);
    assert.equal(changesData('OPTIONS', '/devstoreaccount1/c/b'), false);
    assert.equal(changesData('GET', '/devstoreaccount1/q/messages?numofmessages=32'), true, 'Get Messages dequeues');
    assert.equal(changesData('GET', '/devstoreaccount1/q/messages?numofmessages=32&peekonly=true'), false);
    assert.equal(changesData('GET', '/devstoreaccount1/q/messages?peekonly=true'), false);
    assert.equal(changesData('GET', '/devstoreaccount1/q?comp=metadata'), false);
  });

  it('reports writes and dequeues per service, not reads or peeks', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator);
    const seen = record(emulator);
    const c = clients(emulator);
    const container = c.blob().getContainerClient('changes');

    let next = seen.next('blob');
    await container.create();
    await next;
    next = seen.next('blob');
    await container.getBlockBlobClient('a.txt').uploadData(Buffer.from('a'));
    await next;
    const queue = c.queue().getQueueClient('jobs');
    next = seen.next('queue');
    await queue.create();
    await queue.sendMessage('one');
    await next;
    const table = c.table('people');
    next = seen.next('table');
    await table.createTable();
    await next;

    // Reads and a peek: no event. Every event of the writes above first (a trailing one of the
    // throttle must not be mistaken for one); then a write afterwards proves events still flow.
    await allReported(emulator);
    const before = seen.events.length;
    await container.getBlobClient('a.txt').downloadToBuffer();
    await container.listBlobsFlat().byPage().next();
    await queue.peekMessages();
    await queue.getProperties();
    await table.listEntities().byPage().next();
    await allReported(emulator);
    assert.equal(seen.events.length, before, `reads gave events: ${JSON.stringify(seen.events.slice(before))}`);

    next = seen.next('queue');
    assert.equal((await queue.receiveMessages()).receivedMessageItems.length, 1);
    await next;
    // A consumer polling a queue with nothing visible (a Functions queue trigger): its Get Messages
    // return no message and change nothing, so they give no event.
    await allReported(emulator);
    const beforePolls = seen.events.length;
    for (let i = 0; i < 5; i++) assert.equal((await queue.receiveMessages({ numberOfMessages: 32 })).receivedMessageItems.length, 0);
    await allReported(emulator);
    assert.equal(seen.events.length, beforePolls, `polls of an empty queue gave events: ${JSON.stringify(seen.events.slice(beforePolls))}`);
    next = seen.next('blob');
    await container.getBlobClient('a.txt').delete();
    await next;
  });

  it('throttles a burst of writes and always reports the last', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator, ['blob']);
    const container = clients(emulator).blob().getContainerClient('burst');
    await container.create();
    const seen = record(emulator);
    const began = performance.now();
    await inParallel(200, 8, (i) => container.getBlockBlobClient(`b${i}`).uploadData(Buffer.from(String(i))));
    const lastWrite = performance.now();
    // The trailing event, which the throttle holds back up to 250 ms, has come once this resolves.
    await allReported(emulator);
    const blobEvents = seen.events.filter((e) => e.kind === 'blob');
    assert.ok(blobEvents.length >= 1, 'at least one event');
    assert.ok(blobEvents.at(-1)!.at >= lastWrite - 1, 'an event after the last write');
    const maxEvents = Math.ceil((lastWrite - began) / 250) + 2;
    assert.ok(blobEvents.length <= maxEvents, `${blobEvents.length} events for 200 writes over ${Math.round(lastWrite - began)} ms (at most ${maxEvents})`);
  });

  it('gives the content bytes per container and queue, a snapshot\'s shared chunks counted once', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator);
    const c = clients(emulator);
    const docs = c.blob().getContainerClient('docs');
    await docs.create();
    await c.blob().getContainerClient('empty').create();
    await docs.getBlockBlobClient('single').uploadData(Buffer.alloc(1000, 1));
    const staged = docs.getBlockBlobClient('staged');
    const ids = ['AAAA', 'AAAB'].map((s) => Buffer.from(s).toString('base64'));
    await staged.stageBlock(ids[0]!, Buffer.alloc(300, 2), 300);
    await staged.stageBlock(ids[1]!, Buffer.alloc(200, 3), 200);
    await staged.commitBlockList(ids);
    await docs.getBlockBlobClient('uncommitted').stageBlock(Buffer.from('AAAC').toString('base64'), Buffer.alloc(50, 4), 50);
    await docs.getBlockBlobClient('single').createSnapshot();
    const page = docs.getPageBlobClient('disk.vhd');
    await page.create(4096);
    await page.uploadPages(Buffer.alloc(1024, 5), 0, 1024);
    const queue = c.queue().getQueueClient('jobs');
    await queue.create();
    await queue.sendMessage('hello');
    await queue.sendMessage('world!');
    await c.queue().getQueueClient('idle').create();

    const blob = await emulator.contentBytes('blob');
    assert.ok(blob !== undefined);
    const byName = Object.fromEntries(blob.items.map((i) => [`${i.account}/${i.name}`, i.bytes]));
    assert.deepEqual(byName, { 'devstoreaccount1/docs': 1000 + 300 + 200 + 50 + 1024, 'devstoreaccount1/empty': 0 });
    // single, its snapshot, staged and disk.vhd; not `uncommitted`, which List Blobs does not show (its block's bytes count).
    assert.deepEqual(Object.fromEntries(blob.items.map((i) => [i.name, i.count])), { docs: 4, empty: 0 });
    assert.equal(blob.storeBytes, 1000 + 300 + 200 + 50 + 1024);
    const queues = await emulator.contentBytes('queue');
    const queueBytes = Object.fromEntries(queues!.items.map((i) => [i.name, i.bytes]));
    assert.equal(queueBytes['idle'], 0);
    assert.deepEqual(Object.fromEntries(queues!.items.map((i) => [i.name, i.count])), { jobs: 2, idle: 0 }, 'messages per queue, as Get Queue Metadata counts');
    assert.ok(queueBytes['jobs']! > 0, 'the messages\' bytes');
    assert.equal(queues!.storeBytes, queueBytes['jobs'], 'every queue byte in the store is a message\'s');

    // After a delete the record is gone; the store keeps the content until azurite's GC (or a reclaim).
    await docs.getBlobClient('single').delete({ deleteSnapshots: 'include' });
    const after = await emulator.contentBytes('blob');
    assert.equal(after!.items.find((i) => i.name === 'docs')!.bytes, 300 + 200 + 50 + 1024);
    await emulator.reclaimMemory();
    assert.equal((await emulator.contentBytes('blob'))!.storeBytes, 300 + 200 + 50 + 1024);
    assert.equal(await emulator.contentBytes('blob').then((b) => b?.items.length), 2);
  });

  it('gives content bytes on disk too (no store figure), and nothing for a stopped service', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: false, location: tempDir('content-disk-') }));
    await startAll(emulator, ['blob']);
    const docs = clients(emulator).blob().getContainerClient('docs');
    await docs.create();
    await docs.getBlockBlobClient('a').uploadData(Buffer.alloc(777));
    const figures = await emulator.contentBytes('blob');
    assert.deepEqual(figures, { items: [{ account: 'devstoreaccount1', name: 'docs', bytes: 777, count: 1 }], storeBytes: undefined });
    assert.equal(await emulator.contentBytes('queue'), undefined);
  });
});
