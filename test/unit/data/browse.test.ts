/**
 * What the Storage view reads and changes (src/data/browse.ts), against the real engine with the
 * newest Azure SDKs: pages and continuations, virtual folders, peek that leaves messages in place,
 * deleting one message without losing the others, uploads with a content type, entity pages.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { clients as sdkClients, disposeAfterEach, inParallel, makeEmulator, startAll, tempDir } from '../helpers/emulatorFixture';
import { emulatorEndpoints, storageClients, type StorageClients } from '../../../src/data/clients';
import {
  blobExists, deleteItem, deleteItems, existingBlobs, listBlobs, listContainers, listEntities, listQueues, listTables, peekMessages, readBlob, saveBlob, statBlob, uploadBlob, uploadBlobs,
  type BlobInfo, type FolderInfo,
} from '../../../src/data/browse';
import { ContainerSASPermissions } from '@azure/storage-blob';
import { exportSnapshot } from '../../../src/data/snapshot';
import type { Emulator } from '../../../src/emulator/emulator';
import type { ServiceKind } from '../../../src/core/services';
import { describeRestError } from '../../../src/core/restErrors';

function dataClients(emulator: Emulator): StorageClients {
  const addresses: Partial<Record<ServiceKind, ReturnType<Emulator['clientAddress']>>> = {};
  for (const kind of emulator.runningKinds()) addresses[kind] = emulator.clientAddress(kind);
  return storageClients(emulatorEndpoints(addresses));
}

describe('Storage view data (real engine, real SDKs)', function () {
  this.timeout(120_000);
  const track = disposeAfterEach();

  async function running(): Promise<Emulator> {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator);
    return emulator;
  }

  it('every listing ends when its signal aborts, though the service never answers (its process held with SIGSTOP)', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const emulator = await running();
    const c = sdkClients(emulator);
    await c.blob().getContainerClient('docs').create();
    await c.queue().getQueueClient('jobs').create();
    await c.table('people').createTable();
    const data = dataClients(emulator);
    const pid = emulator.enginePid!;
    process.kill(pid, 'SIGSTOP');
    try {
      const listings: [string, (signal: AbortSignal) => Promise<unknown>][] = [
        ['containers', (signal) => listContainers(data, undefined, 10, signal)],
        ['blobs', (signal) => listBlobs(data, 'docs', '', undefined, 10, signal)],
        ['queues', (signal) => listQueues(data, undefined, 10, signal)],
        ['messages', (signal) => peekMessages(data, 'jobs', signal)],
        ['tables', (signal) => listTables(data, undefined, 10, signal)],
        ['entities', (signal) => listEntities(data, 'people', undefined, 10, signal)],
      ];
      for (const [what, list] of listings) {
        const signal = AbortSignal.timeout(300);
        await assert.rejects(list(signal), (err: unknown) => signal.aborted && err instanceof Error, what);
      }
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    assert.deepEqual((await listQueues(data)).items.map((q) => q.name), ['jobs'], 'answers again once it runs');
  });

  it('deletes end when their signal aborts, though the service never answers (its process held with SIGSTOP): cancelled, nothing counted as failed', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const emulator = await running();
    const c = sdkClients(emulator);
    await c.blob().getContainerClient('docs').create();
    await c.blob().getContainerClient('docs').getBlockBlobClient('a.txt').uploadData(Buffer.from('a'));
    const jobs = c.queue().getQueueClient('jobs');
    await jobs.create();
    const sent = await jobs.sendMessage('hello');
    await c.table('people').createTable();
    await c.table('people').createEntity({ partitionKey: 'p', rowKey: 'r' });
    const data = dataClients(emulator);
    const refs = [
      { kind: 'blob', container: 'docs', name: 'a.txt' },
      { kind: 'message', queue: 'jobs', messageId: sent.messageId },
      { kind: 'entity', table: 'people', partitionKey: 'p', rowKey: 'r' },
      { kind: 'queue', name: 'jobs' },
    ] as const;
    const pid = emulator.enginePid!;
    process.kill(pid, 'SIGSTOP');
    try {
      for (const ref of refs) {
        const signal = AbortSignal.timeout(300);
        const result = await deleteItems(data, [ref], { signal });
        assert.deepEqual({ ...result, kind: ref.kind }, { deleted: 0, failures: [], cancelled: true, kind: ref.kind });
      }
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    // Requests the engine had received before it was held are served once it runs (a cancel does
    // not take back what was sent); it answers again.
    await listQueues(data);
  });

  it('lists blobs by virtual folder, in pages, with size, content type and last modified', async () => {
    const emulator = await running();
    const docs = sdkClients(emulator).blob().getContainerClient('docs');
    await docs.create();
    await docs.getBlockBlobClient('readme.txt').uploadData(Buffer.from('hello\n'), { blobHTTPHeaders: { blobContentType: 'text/plain' } });
    await docs.getBlockBlobClient('img/logo.png').uploadData(Buffer.from([0x89, 0x50]));
    await docs.getBlockBlobClient('img/icons/a.svg').uploadData(Buffer.from('<svg/>'));
    await inParallel(25, 8, (i) => docs.getBlockBlobClient(`many/${String(i).padStart(3, '0')}`).uploadData(Buffer.from(String(i))));
    const data = dataClients(emulator);

    const top = await listBlobs(data, 'docs', '');
    assert.deepEqual(top.items.map((i) => `${i.kind}:${i.name}`), ['folder:img/', 'folder:many/', 'blob:readme.txt']);
    assert.equal(top.continuation, undefined);
    const readme = top.items[2] as BlobInfo;
    assert.equal(readme.size, 6);
    assert.equal(readme.contentType, 'text/plain');
    assert.ok(readme.lastModified instanceof Date);
    assert.equal(readme.blobType, 'BlockBlob');

    const img = await listBlobs(data, 'docs', 'img/');
    assert.deepEqual(img.items.map((i) => `${i.kind}:${i.name}`), ['folder:img/icons/', 'blob:img/logo.png']);

    // 25 blobs in pages of 10: 10, 10, 5, each page continuing the last.
    const names: string[] = [];
    let continuation: string | undefined;
    let pages = 0;
    do {
      const page = await listBlobs(data, 'docs', 'many/', continuation, 10);
      names.push(...page.items.map((i: BlobInfo | FolderInfo) => i.name));
      continuation = page.continuation;
      pages++;
    } while (continuation !== undefined);
    assert.equal(pages, 3);
    assert.deepEqual(names, Array.from({ length: 25 }, (_, i) => `many/${String(i).padStart(3, '0')}`));

    const containers = await listContainers(data);
    assert.deepEqual(containers.items.map((c) => c.name), ['docs']);
    assert.deepEqual((await readBlob(data, 'docs', 'readme.txt')).content, Buffer.from('hello\n'));
    assert.equal((await statBlob(data, 'docs', 'img/logo.png')).size, 2);
    const file = path.join(tempDir('save-'), 'readme.txt');
    await saveBlob(data, 'docs', 'readme.txt', file);
    assert.equal(fs.readFileSync(file, 'utf8'), 'hello\n');
    await assert.rejects(statBlob(data, 'docs', 'missing'), (err: { statusCode?: number }) => err.statusCode === 404);
  });

  it('can list a folder on two pages, when a blob is added under it between them (what Load more… drops)', async () => {
    const emulator = await running();
    const docs = sdkClients(emulator).blob().getContainerClient('docs');
    await docs.create();
    for (const name of ['a', 'b', 'logs/1', 'logs/2', 'z']) await docs.getBlockBlobClient(name).uploadData(Buffer.from(name));
    const data = dataClients(emulator);
    const first = await listBlobs(data, 'docs', '', undefined, 3);
    assert.deepEqual(first.items.map((i) => i.name), ['logs/', 'a', 'b']);
    await docs.getBlockBlobClient('logs/3').uploadData(Buffer.from('3'));
    const second = await listBlobs(data, 'docs', '', first.continuation, 3);
    assert.deepEqual(second.items.map((i) => i.name), ['logs/', 'z']);
  });

  it('lists blobs named with carriage returns under their true names beside one literally named "&#xD;", in pages of one, and reads and deletes each', async () => {
    const emulator = await running();
    const docs = sdkClients(emulator).blob().getContainerClient('docs');
    await docs.create();
    // The service lists a CR as `&#xD;` and a literal "&#xD;" as `&amp;#xD;`; the SDK decodes neither reference.
    const names = ['a', 'dir\r/inner.txt', 'x\ry', 'x\rz', 'x&#xD;y', 'z'];
    for (const name of names) await docs.getBlockBlobClient(name).uploadData(Buffer.from(`content of ${name}`));
    const data = dataClients(emulator);
    const shown = (items: (BlobInfo | FolderInfo)[]): string[] => items.map((i) => `${i.kind}:${i.name}`);

    assert.deepEqual(shown((await listBlobs(data, 'docs', '')).items), ['folder:dir\r/', 'blob:a', 'blob:x\ry', 'blob:x\rz', 'blob:x&#xD;y', 'blob:z']);
    assert.deepEqual(shown((await listBlobs(data, 'docs', 'dir\r/')).items), ['blob:dir\r/inner.txt']);
    // A page that ends with a name holding a CR continues after that name, not after its literal spelling.
    const paged: string[] = [];
    let continuation: string | undefined;
    do {
      const page = await listBlobs(data, 'docs', '', continuation, 1);
      paged.push(...shown(page.items));
      continuation = page.continuation;
    } while (continuation !== undefined);
    assert.deepEqual(paged, ['blob:a', 'folder:dir\r/', 'blob:x\ry', 'blob:x\rz', 'blob:x&#xD;y', 'blob:z']);

    for (const name of ['x\ry', 'x&#xD;y', 'dir\r/inner.txt']) {
      assert.equal((await readBlob(data, 'docs', name)).content.toString(), `content of ${name}`);
      assert.equal((await statBlob(data, 'docs', name)).size, `content of ${name}`.length);
    }
    await deleteItem(data, { kind: 'blob', container: 'docs', name: 'x\ry' });
    await deleteItem(data, { kind: 'blob', container: 'docs', name: 'dir\r/inner.txt' });
    assert.deepEqual(shown((await listBlobs(data, 'docs', '')).items), ['blob:a', 'blob:x\rz', 'blob:x&#xD;y', 'blob:z']);
    assert.equal((await readBlob(data, 'docs', 'x&#xD;y')).content.toString(), 'content of x&#xD;y');
  });

  it('says why a container that holds a blob named with a control character cannot be listed', async () => {
    const emulator = await running();
    const ctl = sdkClients(emulator).blob().getContainerClient('ctl');
    await ctl.create();
    await ctl.getBlockBlobClient('a\x01b').uploadData(Buffer.from('x'));
    await assert.rejects(listBlobs(dataClients(emulator), 'ctl', ''), /^Error: Azurite could not list the blobs of container ctl \(500 Internal Server Error\)\. One known cause: a blob whose name holds a character XML cannot carry/);
  });

  it('says why a queue that holds a message with a control character cannot be peeked', async () => {
    const emulator = await running();
    const queue = sdkClients(emulator).queue().getQueueClient('ctl');
    await queue.create();
    await queue.sendMessage('a\x01b');
    await assert.rejects(peekMessages(dataClients(emulator), 'ctl'), /^Error: Azurite could not read the messages of queue ctl \(500 Internal Server Error\)\. One known cause: a message that holds a character XML cannot carry/);
  });

  it('uploads files and bytes with a content type from the name, including an empty file', async () => {
    const emulator = await running();
    await sdkClients(emulator).blob().getContainerClient('uploads').create();
    const data = dataClients(emulator);
    const dir = tempDir('upload-');
    fs.writeFileSync(path.join(dir, 'data.json'), '{"a":1}');
    fs.writeFileSync(path.join(dir, 'empty.txt'), '');
    await uploadBlob(data, 'uploads', 'in/data.json', path.join(dir, 'data.json'));
    await uploadBlob(data, 'uploads', 'in/empty.txt', path.join(dir, 'empty.txt'));
    await uploadBlob(data, 'uploads', 'raw', new Uint8Array([1, 2, 3]));
    assert.equal((await statBlob(data, 'uploads', 'in/data.json')).contentType, 'application/json');
    assert.equal((await statBlob(data, 'uploads', 'in/empty.txt')).size, 0);
    assert.deepEqual((await readBlob(data, 'uploads', 'raw')).content, Buffer.from([1, 2, 3]));
    assert.equal(await blobExists(data, 'uploads', 'raw'), true);
    await deleteItem(data, { kind: 'blob', container: 'uploads', name: 'raw' });
    assert.equal(await blobExists(data, 'uploads', 'raw'), false);
    await deleteItem(data, { kind: 'container', name: 'uploads' });
    assert.deepEqual((await listContainers(data)).items, []);
  });

  it('checks which blobs of an upload exist, counting each check as progress; a cancel ends the checks', async () => {
    const emulator = await running();
    const uploads = sdkClients(emulator).blob().getContainerClient('uploads');
    await uploads.create();
    await inParallel(10, 5, (i) => uploads.getBlockBlobClient(`in/${i * 4}`).uploadData(Buffer.from('x')));
    const data = dataClients(emulator);
    const names = Array.from({ length: 40 }, (_, i) => `in/${39 - i}`);
    const steps: number[] = [];
    const existing = await existingBlobs(data, 'uploads', names, { progress: (p) => { assert.equal(p.total, 40); steps.push(p.done); } });
    assert.deepEqual(existing, names.filter((n) => Number(n.slice(3)) % 4 === 0), 'in the order given');
    assert.deepEqual(steps, Array.from({ length: 40 }, (_, i) => i + 1));
    const cancel = new AbortController();
    let checked = 0;
    await assert.rejects(existingBlobs(data, 'uploads', names, { signal: cancel.signal, progress: () => { if (++checked === 5) cancel.abort(); } }), { name: 'AbortError' });
    assert.ok(checked < 40, `stopped after ${checked} checks`);
  });

  it('uploads several blobs past one that fails, naming it; reads content given as a function at most four at a time', async () => {
    const emulator = await running();
    const container = sdkClients(emulator).blob().getContainerClient('many');
    await container.create();
    await container.getBlockBlobClient('b').upload('made by a client', 16);
    const data = dataClients(emulator);
    let reading = 0;
    let most = 0;
    const lazy = (text: string) => async (): Promise<Uint8Array> => {
      most = Math.max(most, ++reading);
      await new Promise((resolve) => setImmediate(resolve));
      reading--;
      return Buffer.from(text);
    };
    const items = [
      { blob: 'a', content: lazy('a') }, { blob: 'b', content: lazy('b'), onlyIfNew: true },
      ...Array.from({ length: 10 }, (_, i) => ({ blob: `n${i}`, content: lazy(`n${i}`) })),
    ];
    const result = await uploadBlobs(data, 'many', items);
    assert.equal(result.uploaded, 11);
    assert.deepEqual(result.failures.map((f) => f.blob), ['b']);
    assert.match(result.failures[0]!.message, /already exists/i);
    assert.equal((await readBlob(data, 'many', 'b')).content.toString(), 'made by a client', 'not replaced');
    assert.equal((await readBlob(data, 'many', 'n9')).content.toString(), 'n9');
    assert.ok(most <= 4, `${most} read at once`);
    // The container gone: every upload would fail the same way, so the first failure ends them.
    let read = 0;
    const counted = async (): Promise<Uint8Array> => { read++; return Buffer.from('x'); };
    await assert.rejects(uploadBlobs(data, 'gone-container', Array.from({ length: 40 }, (_, i) => ({ blob: `g${i}`, content: counted }))), (err: { statusCode?: number }) => err.statusCode === 404);
    assert.ok(read <= 8, `${read} of 40 read before the uploads stopped`);
  });

  it('a cancelled file upload leaves the file closed', async () => {
    const emulator = await running();
    await sdkClients(emulator).blob().getContainerClient('cancelled').create();
    const dir = tempDir('upload-cancel-');
    const file = path.join(dir, 'big.bin');
    fs.writeFileSync(file, Buffer.alloc(64 * 1024 * 1024, 7));
    const openInDir = () => fs.readdirSync('/proc/self/fd').filter((fd) => {
      try { return path.dirname(fs.readlinkSync(`/proc/self/fd/${fd}`)) === dir; } catch { return false; }
    });
    const abort = new AbortController();
    const uploading = uploadBlob(dataClients(emulator), 'cancelled', 'big.bin', file, abort.signal);
    await pollUntil('the file open for reading', () => openInDir().length > 0);
    abort.abort();
    await assert.rejects(uploading, (err: Error) => err.name === 'AbortError');
    await pollUntil('the file closed', () => openInDir().length === 0);
  });

  it('says what a HEAD request\'s error was, though its answer has no body (a wrong account key)', async () => {
    const emulator = await running();
    await sdkClients(emulator).blob().getContainerClient('head').create();
    const wrongKey = storageClients({ ...emulatorEndpoints({ blob: emulator.clientAddress('blob') }), accountKey: Buffer.from('not the key').toString('base64') });
    const err = await statBlob(wrongKey, 'head', 'x').then(() => undefined, (e: unknown) => e);
    assert.equal((err as { statusCode?: number }).statusCode, 403);
    assert.equal((err as Error).message, '', 'the premise: the SDK has no message for it');
    assert.equal(describeRestError(err), 'AuthorizationFailure: Forbidden');
  });

  it('peeks a base64 message (as Azure Functions writes them) with the text it stands for, and a plain one as it is', async () => {
    const emulator = await running();
    const queue = sdkClients(emulator).queue().getQueueClient('functions');
    await queue.create();
    await queue.sendMessage(Buffer.from('{"orderId":42}').toString('base64'));
    await queue.sendMessage('plain text');
    const [encoded, plain] = (await peekMessages(dataClients(emulator), 'functions')).messages;
    assert.equal(encoded!.text, 'eyJvcmRlcklkIjo0Mn0=');
    assert.equal(encoded!.decodedText, '{"orderId":42}');
    assert.equal(plain!.text, 'plain text');
    assert.equal('decodedText' in plain!, false);
  });

  it('peeks a message with carriage returns, a tab and literal character references as it was sent', async () => {
    const emulator = await running();
    const queue = sdkClients(emulator).queue().getQueueClient('chars');
    await queue.create();
    const texts = ['a\r\nb', 'tab\there', '&#xD;', '&amp;', '&#13;\r'];
    for (const text of texts) await queue.sendMessage(text);
    assert.deepEqual((await peekMessages(dataClients(emulator), 'chars')).messages.map((m) => m.text), texts);
  });

  it('peeks messages without dequeuing, and deletes one message receiving only the ones ahead of it, which are visible again at once', async () => {
    const emulator = await running();
    const queue = sdkClients(emulator).queue().getQueueClient('jobs');
    await queue.create();
    const sent = [];
    for (let i = 0; i < 40; i++) sent.push(await queue.sendMessage(`job ${i}`));
    const data = dataClients(emulator);

    const peek = await peekMessages(data, 'jobs');
    assert.equal(peek.messages.length, 32);
    assert.equal(peek.approximateCount, 40);
    assert.equal(peek.messages[0]!.text, 'job 0');
    assert.equal(peek.messages[0]!.dequeueCount, 0);
    assert.equal((await peekMessages(data, 'jobs')).messages[0]!.dequeueCount, 0, 'a peek does not dequeue');

    // Only the 20 messages ahead of the 21st are received on the way: the ones behind it keep their
    // dequeue count and place; the ones ahead come back at once, counted once more, behind them.
    await deleteItem(data, { kind: 'message', queue: 'jobs', messageId: sent[20]!.messageId });
    const after = (await peekMessages(data, 'jobs')).messages;
    assert.deepEqual(after.map((m) => m.text), [...Array.from({ length: 19 }, (_, i) => `job ${21 + i}`), ...Array.from({ length: 13 }, (_, i) => `job ${i}`)]);
    assert.deepEqual(after.map((m) => m.dequeueCount), [...Array<number>(19).fill(0), ...Array<number>(13).fill(1)]);
    await assert.rejects(deleteItem(data, { kind: 'message', queue: 'jobs', messageId: sent[20]!.messageId }), /not among the queue's first 32 visible messages/);
    const left = (await queue.receiveMessages({ numberOfMessages: 32 })).receivedMessageItems.length
      + (await queue.receiveMessages({ numberOfMessages: 32 })).receivedMessageItems.length;
    assert.equal(left, 39, 'every other message is visible again at once');

    assert.deepEqual((await listQueues(data)).items.map((q) => q.name), ['jobs']);
    await deleteItem(data, { kind: 'queue', name: 'jobs' });
    assert.deepEqual((await listQueues(data)).items, []);
  });

  it('deletes several messages of one queue at once, and of two queues, leaving the others visible', async () => {
    const emulator = await running();
    const queues = sdkClients(emulator).queue();
    const sent: Record<string, { messageId: string }[]> = { 'queue-a': [], 'queue-b': [] };
    for (const name of ['queue-a', 'queue-b'] as const) {
      await queues.getQueueClient(name).create();
      for (let i = 0; i < 40; i++) sent[name]!.push(await queues.getQueueClient(name).sendMessage(`${name} ${i}`));
    }
    const refs = [0, 1, 2, 25].flatMap((i) => (['queue-a', 'queue-b'] as const).map((q) => ({ kind: 'message' as const, queue: q, messageId: sent[q]![i]!.messageId })));
    const result = await deleteItems(dataClients(emulator), [...refs, { kind: 'message', queue: 'queue-a', messageId: 'no-such-id' }]);
    assert.equal(result.deleted, 8);
    assert.deepEqual(result.failures.map((f) => f.message), ["Message no-such-id is not among the queue's first 32 visible messages: another client received or deleted it."]);
    for (const name of ['queue-a', 'queue-b']) {
      const q = queues.getQueueClient(name);
      const texts = [...(await q.receiveMessages({ numberOfMessages: 32 })).receivedMessageItems, ...(await q.receiveMessages({ numberOfMessages: 32 })).receivedMessageItems].map((m) => m.messageText).sort();
      assert.equal(texts.length, 36, `every other message of ${name} is visible again at once`);
      assert.ok(!texts.includes(`${name} 0`) && !texts.includes(`${name} 25`));
    }
  });

  it('lists tables and entities in pages, and deletes an entity and a table', async () => {
    const emulator = await running();
    const c = sdkClients(emulator);
    const people = c.table('people');
    await people.createTable();
    await inParallel(12, 6, (i) => people.createEntity({ partitionKey: 'p', rowKey: String(i).padStart(2, '0'), n: i }));
    const data = dataClients(emulator);
    assert.deepEqual((await listTables(data)).items.map((t) => t.name), ['people']);
    const first = await listEntities(data, 'people', undefined, 5);
    assert.equal(first.items.length, 5);
    assert.ok(first.continuation !== undefined);
    const second = await listEntities(data, 'people', first.continuation, 100);
    assert.deepEqual([...first.items, ...second.items].map((e) => e.rowKey), Array.from({ length: 12 }, (_, i) => String(i).padStart(2, '0')));
    assert.equal(second.continuation, undefined);
    // As the service typed it (the view writes it with entityDocument).
    assert.deepEqual(first.items[1]!['n'], { value: '1', type: 'Int32' });
    await deleteItem(data, { kind: 'entity', table: 'people', partitionKey: 'p', rowKey: '00' });
    assert.equal((await listEntities(data, 'people')).items.length, 11);
    // A table error says what azurite said, not the JSON body the table SDK keeps as its message.
    const again = await deleteItems(data, [{ kind: 'entity', table: 'people', partitionKey: 'p', rowKey: '00' }]);
    assert.deepEqual(again.failures.map((f) => f.message), ['The specified resource does not exist.']);
    await deleteItem(data, { kind: 'table', name: 'people' });
    assert.deepEqual((await listTables(data)).items, []);
  });

  it('lists and exports every entity past a page that ends inside PartitionKey "" (Azurite leaves that key out of the continuation)', async () => {
    const emulator = await running();
    const table = sdkClients(emulator).table('emptypk');
    await table.createTable();
    // 1,005 entities in partition "" (more than the 1,000 of a full page), then 3 in partition "z".
    const rows = Array.from({ length: 1005 }, (_, i) => ({ partitionKey: '', rowKey: String(i).padStart(4, '0') }));
    for (let i = 0; i < rows.length; i += 100) await table.submitTransaction(rows.slice(i, i + 100).map((e) => ['create', e] as const));
    await inParallel(3, 3, (i) => table.createEntity({ partitionKey: 'z', rowKey: String(i) }));
    const data = dataClients(emulator);
    const seen: string[] = [];
    let continuation: string | undefined;
    let pages = 0;
    do {
      const page = await listEntities(data, 'emptypk', continuation, 200);
      seen.push(...page.items.map((e) => `${e.partitionKey}/${e.rowKey}`));
      continuation = page.continuation;
      pages++;
    } while (continuation !== undefined && pages < 10);
    assert.equal(pages, 6, 'five pages of 200 and one of 8');
    assert.deepEqual(seen, [...rows.map((e) => `/${e.rowKey}`), 'z/0', 'z/1', 'z/2']);

    const folder = tempDir('export-emptypk-');
    const counts = await exportSnapshot(data, folder);
    assert.equal(counts.entities, 1008);
    assert.equal(fs.readFileSync(path.join(folder, 'table', 'emptypk.jsonl'), 'utf8').trim().split('\n').length, 1008);
  });

  it('a cancelled download (Save Blob As…, Export) leaves no file open, and the file it would replace as it was', async () => {
    const emulator = await running();
    const big = sdkClients(emulator).blob().getContainerClient('big');
    await big.create();
    await big.getBlockBlobClient('big.bin').uploadData(Buffer.alloc(64 * 1024 * 1024, 1));
    const dir = tempDir('save-');
    const file = path.join(dir, 'big.bin');
    fs.writeFileSync(file, 'the file the user had');
    const part = () => fs.readdirSync(dir).find((n) => n !== 'big.bin');
    const openInDir = () => fs.readdirSync('/proc/self/fd').filter((fd) => {
      try { return path.dirname(fs.readlinkSync(`/proc/self/fd/${fd}`)) === dir; } catch { return false; }
    });
    const abort = new AbortController();
    const saving = saveBlob(dataClients(emulator), 'big', 'big.bin', file, abort.signal);
    await pollUntil('the first bytes on disk', () => { const p = part(); return p !== undefined && fs.statSync(path.join(dir, p)).size > 0; });
    abort.abort();
    await assert.rejects(saving, (err: Error) => err.name === 'AbortError');
    await pollUntil('the file closed', () => openInDir().length === 0);
    assert.deepEqual(fs.readdirSync(dir), ['big.bin'], 'the partial download is removed');
    assert.equal(fs.readFileSync(file, 'utf8'), 'the file the user had');

    await saveBlob(dataClients(emulator), 'big', 'big.bin', file);
    assert.equal(fs.statSync(file).size, 64 * 1024 * 1024);
    assert.deepEqual(fs.readdirSync(dir), ['big.bin']);
  });

  it('refuses a blob whose name has a ".." segment, which the SDK would turn into another blob\'s URL; export names it', async () => {
    const emulator = await running();
    const container = sdkClients(emulator).blob().getContainerClient('dots');
    await container.create();
    await container.getBlockBlobClient('b').uploadData(Buffer.from('the other blob'));
    // Only a client that sends the path as it is (curl --path-as-is) makes such a blob.
    const sas = new URL(await container.generateSasUrl({ permissions: ContainerSASPermissions.parse('racwdl'), expiresOn: new Date(Date.now() + 3_600_000) }));
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = http.request({ host: sas.hostname, port: sas.port, method: 'PUT', path: `${sas.pathname}/a/../b${sas.search}`, headers: { 'x-ms-blob-type': 'BlockBlob', 'x-ms-version': '2021-08-06' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end('dots');
    });
    assert.equal(status, 201);
    const names: string[] = [];
    for await (const b of container.listBlobsFlat()) names.push(b.name);
    assert.deepEqual(names.sort(), ['a/../b', 'b']);

    const clients = dataClients(emulator);
    const refused = /^Error: The blob "a\/\.\.\/b" cannot be reached through the Azure SDK: its URL would drop the "\.\." segment and name another blob\.$/;
    await assert.rejects(deleteItem(clients, { kind: 'blob', container: 'dots', name: 'a/../b' }), refused);
    await assert.rejects(readBlob(clients, 'dots', 'a/../b'), refused);
    assert.equal((await container.getBlobClient('b').downloadToBuffer()).toString(), 'the other blob', 'the other blob untouched');
    await assert.rejects(exportSnapshot(clients, tempDir('export-')), /in container dots the blob "a\/\.\.\/b" cannot be reached through the Azure SDK/);
  });

  it('an upload marked only-if-new leaves a blob that exists as it was (409), from bytes and from a file', async () => {
    const emulator = await running();
    const container = sdkClients(emulator).blob().getContainerClient('new-only');
    await container.create();
    await container.getBlockBlobClient('made-meanwhile.txt').uploadData(Buffer.from('by another client'));
    const clients = dataClients(emulator);
    const file = path.join(tempDir('upload-'), 'local.txt');
    fs.writeFileSync(file, 'from the user');
    for (const content of [Buffer.from('from the user'), file]) {
      const { uploaded, failures } = await uploadBlobs(clients, 'new-only', [{ blob: 'made-meanwhile.txt', content, onlyIfNew: true }]);
      assert.equal(uploaded, 0);
      assert.match(failures[0]?.message ?? '', /already exists/i);
      assert.equal((await container.getBlobClient('made-meanwhile.txt').downloadToBuffer()).toString(), 'by another client');
    }
    await uploadBlobs(clients, 'new-only', [{ blob: 'fresh.txt', content: file, onlyIfNew: true }]);
    assert.equal((await container.getBlobClient('fresh.txt').downloadToBuffer()).toString(), 'from the user');
  });
});

/** Polls `check` every 2 ms until it holds; fails after 10 s with `what`. */
async function pollUntil(what: string, check: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
