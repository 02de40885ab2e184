/**
 * Snapshots, seeds and reset against the real engine (in its own process) with the newest Azure SDKs:
 * export → import → export is byte-identical; a seed folder reads back item by item; reset keeps
 * ports and clients' connections; an import that hits the memory limit leaves the data it found.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { BlobServiceClient, newPipeline as newBlobPipeline, StorageSharedKeyCredential as BlobSharedKeyCredential } from '@azure/storage-blob';
import { newPipeline, QueueServiceClient, StorageSharedKeyCredential, type DequeuedMessageItem, type QueueClient, type RequestPolicyFactory } from '@azure/storage-queue';
import { AzureNamedKeyCredential, generateTableSas, TableServiceClient } from '@azure/data-tables';
import { DEV_ACCOUNT_KEY, DEV_ACCOUNT_NAME } from '../../../src/core/connectionString';
import { clients as sdkClients, disposeAfterEach, makeEmulator, startAll, tempDir } from '../helpers/emulatorFixture';
import { emulatorEndpoints, storageClients, type StorageClients } from '../../../src/data/clients';
import { describeCounts, exportSnapshot, importConflicts, importSnapshot, loadSeed, readSnapshot, resetAccount, snapshotCounts, swapIn, SwapRollbackError, transactionBatches } from '../../../src/data/snapshot';
import { SnapshotFormatError } from '../../../src/core/snapshotFormat';
import type { Emulator } from '../../../src/emulator/emulator';
import { SERVICE_KINDS, type ServiceKind } from '../../../src/core/services';

/** Every file under `dir` (relative path → bytes), to compare two snapshot folders. */
function filesOf(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (sub: string): void => {
    for (const d of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = sub === '' ? d.name : `${sub}/${d.name}`;
      if (d.isDirectory()) walk(rel);
      else out.set(rel, fs.readFileSync(path.join(dir, rel)));
    }
  };
  walk('');
  return out;
}

function dataClients(emulator: Emulator): StorageClients {
  const addresses: Partial<Record<ServiceKind, ReturnType<Emulator['clientAddress']>>> = {};
  for (const kind of emulator.runningKinds()) addresses[kind] = emulator.clientAddress(kind);
  return storageClients(emulatorEndpoints(addresses));
}

/** Writes a varied account: every blob type, properties, metadata, odd names; > 32 messages; every EDM type. */
async function writeVariedData(emulator: Emulator): Promise<void> {
  const c = sdkClients(emulator);
  const blob = c.blob();
  const docs = blob.getContainerClient('docs');
  await docs.create({ metadata: { owner: 'tests' }, access: 'blob' });
  await docs.getBlockBlobClient('readme.txt').uploadData(Buffer.from('hello\n'), { blobHTTPHeaders: { blobContentType: 'text/plain; charset=utf-8', blobCacheControl: 'no-cache' }, metadata: { source: 'unit' } });
  await docs.getBlockBlobClient('folder with space/ünïcode ✓.json').uploadData(Buffer.from('{"a":1}'), { blobHTTPHeaders: { blobContentType: 'application/json', blobContentEncoding: 'identity', blobContentLanguage: 'en-GB', blobContentDisposition: 'attachment; filename="u.json"' } });
  await docs.getBlockBlobClient('empty').uploadData(Buffer.alloc(0));
  await docs.getBlockBlobClient('a').uploadData(Buffer.from('a blob named like a folder'));
  await docs.getBlockBlobClient('a/b').uploadData(Buffer.from('inside a'));
  await docs.getBlockBlobClient('colon:name').uploadData(Buffer.from([0, 1, 2, 255]));
  // A last segment of 250 bytes: a file name that leaves no room for a temporary file's longer name.
  await docs.getBlockBlobClient(`long/${'n'.repeat(250)}`).uploadData(Buffer.from('long name'));
  const append = docs.getAppendBlobClient('log.txt');
  await append.create({ blobHTTPHeaders: { blobContentType: 'text/plain' } });
  await append.appendBlock('line 1\n', 7);
  await append.appendBlock('line 2\n', 7);
  const page = docs.getPageBlobClient('disk.vhd');
  await page.create(2048);
  await page.uploadPages(Buffer.alloc(512, 7), 1024, 512);
  await blob.getContainerClient('empty-container').create();

  const queue = c.queue().getQueueClient('jobs');
  await queue.create({ metadata: { kind: 'work' } });
  for (let i = 0; i < 40; i++) await queue.sendMessage(`job ${i}`);
  await c.queue().getQueueClient('empty-queue').create();

  const tables = TableServiceClient.fromConnectionString(c.connectionString, { allowInsecureConnection: true });
  await tables.createTable('people');
  const people = c.table('people');
  await people.createEntity({ partitionKey: 'p', rowKey: '1', name: 'Ada', age: 36, score: 0.5, admin: true, born: new Date('1815-12-10T00:00:00.000Z'), big: BigInt('9007199254740993'), avatar: new Uint8Array([1, 2, 3]), id: { value: '2b5e4c0e-6a0b-4a4e-9c43-3d0f4b9c9e1a', type: 'Guid' }, exact: { value: '5', type: 'Double' } });
  await people.createEntity({ partitionKey: 'p', rowKey: '2', name: 'Grace' });
  await people.createEntity({ partitionKey: 'q ü', rowKey: 'x', note: '' });
}

describe('Snapshots, seeds and reset (real engine, real SDKs)', function () {
  this.timeout(120_000);
  const track = disposeAfterEach();

  async function running(raw: Record<string, unknown> = { inMemoryPersistence: true }): Promise<Emulator> {
    const { emulator } = track(makeEmulator(raw));
    await startAll(emulator);
    return emulator;
  }

  it('export → reset → import → export gives the same bytes, and every item reads back', async () => {
    const emulator = await running();
    await writeVariedData(emulator);
    const data = dataClients(emulator);
    const first = tempDir('snap-a-');
    const reported: { done: number; total: number }[] = [];
    let grows = true;
    const counts = await exportSnapshot(data, first, { progress: ({ done, total, totalGrows }) => { reported.push({ done, total }); grows &&= totalGrows === true; } });
    // Each container's, queue's and table's items are counted when the export reaches it: no share of the whole.
    assert.equal(grows, true, 'every step says its total may grow');
    assert.deepEqual({ ...counts, bytes: undefined }, { containers: 2, blobs: 9, bytes: undefined, queues: 2, messages: 40, tables: 1, entities: 3 });
    // Progress counts blobs, messages and entities, and never passes its total.
    assert.deepEqual(reported.filter((p) => p.done > p.total), []);
    assert.deepEqual(reported.at(-1), { done: 9 + 40 + 3, total: 9 + 40 + 3 });
    assert.equal(fs.readFileSync(path.join(first, 'blob', 'docs', 'readme.txt'), 'utf8'), 'hello\n');
    assert.equal(fs.readFileSync(path.join(first, 'queue', 'jobs.jsonl'), 'utf8').split('\n')[0], '{"text":"job 0"}');
    // The export made the messages visible again.
    assert.equal((await sdkClients(emulator).queue().getQueueClient('jobs').getProperties()).approximateMessagesCount, 40);

    await resetAccount(data, undefined);
    assert.deepEqual(await listNames(emulator), { containers: [], queues: [], tables: [] });
    const snapshot = await readSnapshot(first);
    await importSnapshot(data, snapshot, tempDir('scratch-'));
    const second = tempDir('snap-b-');
    await exportSnapshot(data, second);
    assert.deepEqual(filesOf(second), filesOf(first));

    const docs = sdkClients(emulator).blob().getContainerClient('docs');
    const props = await docs.getBlockBlobClient('folder with space/ünïcode ✓.json').getProperties();
    assert.equal(props.contentType, 'application/json');
    assert.equal(props.contentLanguage, 'en-GB');
    assert.equal(props.contentDisposition, 'attachment; filename="u.json"');
    assert.deepEqual((await docs.getBlockBlobClient('readme.txt').getProperties()).metadata, { source: 'unit' });
    assert.equal((await docs.getProperties()).blobPublicAccess, 'blob');
    assert.deepEqual(await docs.getBlobClient('colon:name').downloadToBuffer(), Buffer.from([0, 1, 2, 255]));
    assert.equal((await docs.getBlobClient('log.txt').getProperties()).blobType, 'AppendBlob');
    const vhd = await docs.getBlobClient('disk.vhd').downloadToBuffer();
    assert.deepEqual(vhd, Buffer.concat([Buffer.alloc(1024), Buffer.alloc(512, 7), Buffer.alloc(512)]));
    const ada = await sdkClients(emulator).table('people').getEntity<Record<string, unknown>>('p', '1');
    assert.equal(ada.big, BigInt('9007199254740993'));
    assert.deepEqual(ada.born, new Date('1815-12-10T00:00:00.000Z'));
    assert.deepEqual(Buffer.from(ada.avatar as Uint8Array), Buffer.from([1, 2, 3]));
    assert.equal(ada.age, 36);
  });

  it('exports the special containers $web and $root so that the snapshot imports again', async () => {
    const emulator = await running();
    const blob = sdkClients(emulator).blob();
    await blob.getContainerClient('$web').create();
    await blob.getContainerClient('$web').getBlockBlobClient('index.html').uploadData(Buffer.from('<h1>site</h1>'), { blobHTTPHeaders: { blobContentType: 'text/html' } });
    await blob.getContainerClient('$root').create();
    await blob.getContainerClient('$root').getBlockBlobClient('robots.txt').uploadData(Buffer.from('User-agent: *'));
    const data = dataClients(emulator);
    const folder = tempDir('snap-web-');
    await exportSnapshot(data, folder);
    await resetAccount(data, undefined);
    await importSnapshot(data, await readSnapshot(folder), tempDir('scratch-'));
    const site = await blob.getContainerClient('$web').getBlobClient('index.html');
    assert.equal((await site.downloadToBuffer()).toString(), '<h1>site</h1>');
    assert.equal((await site.getProperties()).contentType, 'text/html');
    assert.equal((await blob.getContainerClient('$root').getBlobClient('robots.txt').downloadToBuffer()).toString(), 'User-agent: *');
    // Other names that begin with $ are not Azure's, and stay refused.
    fs.mkdirSync(path.join(folder, 'blob', '$other'));
    await assert.rejects(readSnapshot(folder), /"\$other" is not a container name/);
  });

  it('refuses to export a table whose entity has a property of its own named "partitionKey", which the SDK reads as the key', async () => {
    const emulator = await running();
    const keys = sdkClients(emulator).table('keys');
    await keys.createTable();
    await keys.createEntity({ partitionKey: 'p', rowKey: 'fine', name: 'kept' });
    // The SDK renames such a property on the way out, so only a client writing the REST API's JSON
    // itself makes one: POST the entity with a SAS.
    const sas = generateTableSas('keys', new AzureNamedKeyCredential(DEV_ACCOUNT_NAME, DEV_ACCOUNT_KEY), { permissions: { add: true }, expiresOn: new Date(Date.now() + 3_600_000) });
    const url = new URL(`${keys.url}/keys?${sas}`); // TableClient.url is the account's endpoint
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json;odata=nometadata', 'x-ms-version': '2019-02-02', prefer: 'return-no-content' } }, (res) => { res.resume(); resolve(res.statusCode); });
      req.once('error', reject);
      req.end(JSON.stringify({ PartitionKey: 'p', RowKey: 'odd', partitionKey: 'not the key' }));
    });
    assert.equal(status, 204);
    await assert.rejects(exportSnapshot(dataClients(emulator), tempDir('snap-keys-')), /table keys has an entity with a property of its own named "partitionKey"/);
  });

  it('refuses to export a property named "odata.…" (Azurite stores it, a snapshot could not load it); an Import over its table stops before it changes anything', async () => {
    const emulator = await running();
    const odd = sdkClients(emulator).table('odd');
    await odd.createTable();
    await odd.createEntity({ partitionKey: 'p', rowKey: '1', 'odata.source': 'x', name: 'precious' });
    const data = dataClients(emulator);
    await assert.rejects(exportSnapshot(data, tempDir('snap-odata-')), /^Error: table odd, entity PartitionKey "p", RowKey "1": property "odata\.source" has a name the OData format keeps for itself/);
    // An Import that replaces the table: its copy of the table cannot be made, so nothing changes.
    const snap = tempDir('snap-odata-in-');
    fs.mkdirSync(path.join(snap, 'table'));
    fs.writeFileSync(path.join(snap, 'table', 'odd.jsonl'), '{"PartitionKey":"p","RowKey":"2"}\n');
    const snapshot = await readSnapshot(snap);
    await assert.rejects(importSnapshot(data, snapshot, tempDir('scratch-'), { confirmed: await importConflicts(data, snapshot) }),
      /^Error: Import stopped before it changed anything: the copy of what it replaces could not be made: table odd, entity PartitionKey "p", RowKey "1": property "odata\.source"/);
    assert.equal((await odd.getEntity('p', '1')).name, 'precious');
    await assert.rejects(odd.getEntity('p', '2'), { statusCode: 404 });
  });

  it('leaves out a container, queue or table that a client deletes after the export listed them, before their own listing', async () => {
    const emulator = await running();
    const c = sdkClients(emulator);
    for (const name of ['kept', 'gone']) {
      await c.blob().getContainerClient(name).create();
      await c.blob().getContainerClient(name).getBlockBlobClient('a.txt').uploadData(Buffer.from(name));
      await c.queue().getQueueClient(name).create();
      await c.queue().getQueueClient(name).sendMessage(name);
      await c.table(`${name}t`).createTable();
      await c.table(`${name}t`).createEntity({ partitionKey: 'p', rowKey: name });
    }
    const data = dataClients(emulator);
    // The real clients, each listing of containers, queues and tables followed by the client's
    // delete of "gone" before the export reads it: containers once all are listed (the export lists
    // them all first), queues and tables just before that one is yielded (they are read as listed).
    const bound = <T extends object>(target: T, name: string, wrap: (list: AsyncIterable<{ name?: string }>) => AsyncIterable<{ name?: string }>): T =>
      new Proxy(target, { get: (t, p) => {
        const v = Reflect.get(t, p) as unknown;
        if (p === name) return (...args: unknown[]) => wrap((v as (...a: unknown[]) => AsyncIterable<{ name?: string }>).apply(t, args));
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      } });
    async function* thenDelete(list: AsyncIterable<{ name?: string }>): AsyncIterable<{ name?: string }> {
      for await (const item of list) yield item;
      await c.blob().getContainerClient('gone').delete();
    }
    const deleteBefore = (remove: () => Promise<unknown>, name: string) => async function* (list: AsyncIterable<{ name?: string }>): AsyncIterable<{ name?: string }> {
      for await (const item of list) {
        if (item.name === name) await remove();
        yield item;
      }
    };
    const racing = {
      ...data,
      blob: bound(data.blob!, 'listContainers', thenDelete),
      queue: bound(data.queue!, 'listQueues', deleteBefore(() => c.queue().getQueueClient('gone').delete(), 'gone')),
      table: bound(data.table!, 'listTables', deleteBefore(() => c.table('gonet').deleteTable(), 'gonet')),
    } as typeof data;
    const folder = tempDir('snap-deleted-');
    const counts = await exportSnapshot(racing, folder);
    assert.deepEqual({ containers: counts.containers, queues: counts.queues, tables: counts.tables }, { containers: 1, queues: 1, tables: 1 });
    const snapshot = await readSnapshot(folder);
    assert.deepEqual([snapshot.containers.map((x) => x.name), snapshot.queues.map((x) => x.name), snapshot.tables.map((x) => x.name)], [['kept'], ['kept'], ['keptt']]);

    // A container deleted once its blobs are listed, before the first download: the export stops, naming it.
    const blobs = data.blob!;
    const midway = {
      ...data,
      blob: new Proxy(blobs, { get: (t, p) => {
        if (p !== 'getContainerClient') { const v = Reflect.get(t, p) as unknown; return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v; }
        return (name: string) => {
          const container = t.getContainerClient(name);
          if (name !== 'kept') return container;
          return new Proxy(container, { get: (ct, cp) => {
            const v = Reflect.get(ct, cp) as unknown;
            if (cp !== 'getBlobClient') return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(ct) : v;
            return (blobName: string) => {
              const blob = ct.getBlobClient(blobName);
              return new Proxy(blob, { get: (bt, bp) => {
                const bv = Reflect.get(bt, bp) as unknown;
                if (bp !== 'download') return typeof bv === 'function' ? (bv as (...a: unknown[]) => unknown).bind(bt) : bv;
                return async (...args: unknown[]) => { await c.blob().getContainerClient('kept').deleteIfExists(); return (bv as (...a: unknown[]) => unknown).apply(bt, args); };
              } });
            };
          } });
        };
      } }),
    } as typeof data;
    await assert.rejects(exportSnapshot(midway, folder), /^Error: container kept was deleted while the export read its blobs; nothing was written: export again$/);
    assert.deepEqual((await readSnapshot(folder)).containers.map((x) => x.name), ['kept'], 'the folder as it was');
  });

  it('refuses to export a container whose name begins with "$" but is not one of Azure\'s ($root, $web, $logs), which Azurite takes', async () => {
    const emulator = await running();
    await sdkClients(emulator).blob().getContainerClient('$foo').create();
    await assert.rejects(exportSnapshot(dataClients(emulator), tempDir('snap-dollar-')), /^Error: container \$foo has a name Azure does not allow/);
  });

  it('refuses a seed file whose name holds a character Azurite could store but never list again, naming it', async () => {
    const seed = tempDir('seed-ctl-');
    fs.mkdirSync(path.join(seed, 'blob', 'docs'), { recursive: true });
    fs.writeFileSync(path.join(seed, 'blob', 'docs', 'ok.txt'), 'fine');
    fs.writeFileSync(path.join(seed, 'blob', 'docs', 'bell\x07.txt'), 'not fine');
    await assert.rejects(readSnapshot(seed), (err: Error) => {
      assert.ok(err instanceof SnapshotFormatError, String(err));
      assert.match(err.message, /blob "bell\\u0007\.txt" holds U\+0007, which Azurite stores but cannot write back .*: no client could list its container after it/);
      return true;
    });
  });

  it('loads a hand-made seed folder (files without descriptions), and names the file and line of a bad one', async () => {
    const emulator = await running();
    const seed = tempDir('seed-');
    fs.mkdirSync(path.join(seed, 'blob', 'images', 'icons'), { recursive: true });
    fs.writeFileSync(path.join(seed, 'blob', 'images', 'icons', 'dot.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    fs.writeFileSync(path.join(seed, 'blob', 'images', 'notes.md'), '# notes\n');
    fs.mkdirSync(path.join(seed, 'queue'));
    fs.writeFileSync(path.join(seed, 'queue', 'orders.jsonl'), '{"text":"first"}\n{"text":"second"}\n');
    fs.mkdirSync(path.join(seed, 'table'));
    fs.writeFileSync(path.join(seed, 'table', 'Customers.jsonl'), '{"PartitionKey":"eu","RowKey":"1","Name":"Ada","Since@odata.type":"Edm.DateTime","Since":"2020-01-01T00:00:00.000Z"}\n');
    const snapshot = await readSnapshot(seed);
    assert.deepEqual(snapshotCounts(snapshot), { containers: 1, blobs: 2, bytes: 12, queues: 1, messages: 2, tables: 1, entities: 1 });
    await resetAccount(dataClients(emulator), snapshot);

    const c = sdkClients(emulator);
    const images = c.blob().getContainerClient('images');
    assert.equal((await images.getBlobClient('icons/dot.png').getProperties()).contentType, 'image/png');
    assert.equal((await images.getBlobClient('notes.md').downloadToBuffer()).toString(), '# notes\n');
    assert.equal((await images.getBlobClient('notes.md').getProperties()).contentType, 'text/markdown');
    const peeked = await c.queue().getQueueClient('orders').peekMessages({ numberOfMessages: 32 });
    assert.deepEqual(peeked.peekedMessageItems.map((m) => m.messageText), ['first', 'second']);
    const ada = await c.table('Customers').getEntity<Record<string, unknown>>('eu', '1');
    assert.equal(ada.Name, 'Ada');
    assert.deepEqual(ada.Since, new Date('2020-01-01T00:00:00.000Z'));

    fs.writeFileSync(path.join(seed, 'queue', 'orders.jsonl'), '{"text":"first"}\n{"text":2}\n');
    await assert.rejects(readSnapshot(seed), (err: unknown) => err instanceof SnapshotFormatError && err.message === 'queue/orders.jsonl:2: a message needs a string "text"');
    fs.writeFileSync(path.join(seed, 'queue', 'orders.jsonl'), '');
    fs.writeFileSync(path.join(seed, 'blob', 'images.blobs.jsonl'), '{"name":"gone.txt"}\n');
    await assert.rejects(readSnapshot(seed), /^SnapshotFormatError: blob\/images\.blobs\.jsonl:1: no file blob\/images\/gone\.txt for blob "gone\.txt"/);
    // A page blob's size is checked before anything is written, not halfway through a load.
    fs.writeFileSync(path.join(seed, 'blob', 'images', 'disk.vhd'), Buffer.alloc(100));
    fs.writeFileSync(path.join(seed, 'blob', 'images.blobs.jsonl'), '{"name":"disk.vhd","type":"PageBlob"}\n');
    await assert.rejects(readSnapshot(seed), /^SnapshotFormatError: blob\/images\.blobs\.jsonl:1: page blob "disk\.vhd": blob\/images\/disk\.vhd is 100 bytes, and a page blob's size is a multiple of 512/);
    fs.rmSync(path.join(seed, 'blob', 'images', 'disk.vhd'));
    // Content is read only from inside the folder: not through a symbolic link that leads out of it.
    const outside = tempDir('outside-');
    fs.writeFileSync(path.join(outside, 'secret'), 'not for the emulator');
    fs.symlinkSync(outside, path.join(seed, 'blob', 'images', 'linked'));
    fs.writeFileSync(path.join(seed, 'blob', 'images.blobs.jsonl'), '{"name":"linked/secret"}\n');
    await assert.rejects(readSnapshot(seed), /^SnapshotFormatError: blob\/images\.blobs\.jsonl:1: blob\/images\/linked\/secret for blob "linked\/secret" leads through a symbolic link out of the snapshot folder's blob\//);
    fs.symlinkSync(path.join(outside, 'secret'), path.join(seed, 'blob', 'images', 'secret'));
    fs.writeFileSync(path.join(seed, 'blob', 'images.blobs.jsonl'), '{"name":"secret"}\n');
    await assert.rejects(readSnapshot(seed), /leads through a symbolic link out of the snapshot folder's blob\//);
    fs.rmSync(path.join(seed, 'blob', 'images', 'linked'));
    fs.rmSync(path.join(seed, 'blob', 'images', 'secret'));
    fs.rmSync(outside, { recursive: true, force: true });
    fs.rmSync(path.join(seed, 'blob', 'images.blobs.jsonl'));
    fs.mkdirSync(path.join(seed, 'blob', 'Bad_Name'));
    await assert.rejects(readSnapshot(seed), /blob\/Bad_Name: "Bad_Name" is not a container name/);
  });

  it('a snapshot kept in git: .gitkeep, .gitignore and .gitattributes in blob/, queue/ and table/ are ignored and kept by an export; inside a container they are blobs', async () => {
    const emulator = await running();
    const folder = tempDir('git-snap-');
    for (const [k, name] of [['blob', '.gitkeep'], ['queue', '.gitignore'], ['table', '.gitattributes']] as const) {
      fs.mkdirSync(path.join(folder, k), { recursive: true });
      fs.writeFileSync(path.join(folder, k, name), `${k}\n`);
    }
    fs.mkdirSync(path.join(folder, 'blob', 'docs'));
    fs.writeFileSync(path.join(folder, 'blob', 'docs', '.gitkeep'), '');
    const snapshot = await readSnapshot(folder);
    assert.deepEqual(snapshotCounts(snapshot), { containers: 1, blobs: 1, bytes: 0, queues: 0, messages: 0, tables: 0, entities: 0 });
    const data = dataClients(emulator);
    await importSnapshot(data, snapshot, tempDir('scratch-'));
    assert.deepEqual(await blobNamesOf(emulator, 'docs'), ['.gitkeep'], 'a blob like any other in a container');
    await exportSnapshot(data, folder);
    for (const [k, name] of [['blob', '.gitkeep'], ['queue', '.gitignore'], ['table', '.gitattributes']] as const) {
      assert.equal(fs.readFileSync(path.join(folder, k, name), 'utf8'), `${k}\n`, `${k}/${name} kept by the export`);
    }
  });

  it('refuses two table files whose names differ only in case, naming both: the service\'s table names ignore case', async () => {
    const seed = tempDir('seed-case-');
    fs.mkdirSync(path.join(seed, 'table'));
    fs.writeFileSync(path.join(seed, 'table', 'Customers.jsonl'), '{"PartitionKey":"eu","RowKey":"1"}\n');
    fs.writeFileSync(path.join(seed, 'table', 'customers.jsonl'), '{"PartitionKey":"eu","RowKey":"2"}\n');
    await assert.rejects(readSnapshot(seed), (err: unknown) => err instanceof SnapshotFormatError &&
      err.message === 'table/customers.jsonl: table/Customers.jsonl and table/customers.jsonl are one table, since table names ignore case: put its entities into one file');
  });

  it('refuses a file in UTF-16 (what PowerShell 5\'s ">" writes), saying to save it as UTF-8', async () => {
    const utf16 = (text: string, bigEndian: boolean): Buffer => {
      const le = Buffer.from(`\uFEFF${text}`, 'utf16le');
      return bigEndian ? le.swap16() : le;
    };
    const cases: Array<['table' | 'queue' | 'blob', string, boolean]> = [['table', 'people.jsonl', false], ['queue', 'jobs.jsonl', true], ['queue', 'jobs.queue.json', false], ['blob', 'docs.blobs.jsonl', false], ['blob', 'docs.container.json', true]];
    for (const [service, name, bigEndian] of cases) {
      const seed = tempDir('seed-utf16-');
      fs.mkdirSync(path.join(seed, service));
      const text = { table: '{"PartitionKey":"p","RowKey":"1"}\n', queue: '{"text":"x"}\n', blob: '{"name":"a.txt"}\n' }[service]!;
      fs.writeFileSync(path.join(seed, service, name), utf16(text, bigEndian));
      await assert.rejects(readSnapshot(seed), (err: unknown) => err instanceof SnapshotFormatError &&
        err.message.startsWith(`${service}/${name}: the file is UTF-16 (it begins with a UTF-16 byte order mark, as PowerShell 5's ">" writes); save it as UTF-8`), `${service}/${name}`);
    }
  });

  it('refuses a file in another encoding than UTF-8 (Windows-1252, what PowerShell 5.1\'s Set-Content writes), naming its line, instead of reading U+FFFD', async () => {
    const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');
    const cases: Array<['table' | 'queue' | 'blob', string, string, number]> = [
      ['queue', 'orders.jsonl', '{"text":"plain"}\n{"text":"Gr\u00fcn"}\n', 2],
      ['table', 'people.jsonl', '{"PartitionKey":"p","RowKey":"1","Name":"M\u00fcller"}\r\n', 1],
      ['queue', 'orders.queue.json', '{\n  "metadata": { "owner": "J\u00fcrgen" }\n}\n', 2],
      ['blob', 'docs.container.json', '{ "metadata": { "owner": "\u00e9" } }', 1],
    ];
    for (const [service, name, text, line] of cases) {
      const seed = tempDir('seed-latin1-');
      fs.mkdirSync(path.join(seed, service));
      fs.writeFileSync(path.join(seed, service, name), latin1(text));
      await assert.rejects(readSnapshot(seed), (err: unknown) => err instanceof SnapshotFormatError &&
        err.message.startsWith(`${service}/${name}:${line}: this line is not UTF-8 (the file was saved in another encoding, such as Windows-1252`), `${service}/${name}`);
    }
    // UTF-8 as it should be: a byte order mark, CRLF and a lone CR, and a U+FFFD of its own.
    const seed = tempDir('seed-utf8-');
    fs.mkdirSync(path.join(seed, 'queue'));
    fs.writeFileSync(path.join(seed, 'queue', 'orders.jsonl'), '\uFEFF{"text":"Gr\u00fcn"}\r\n{"text":"\uFFFD"}\r{"text":"last"}');
    assert.deepEqual((await readSnapshot(seed)).queues[0]!.messages.map((m) => m.text), ['Gr\u00fcn', '\uFFFD', 'last']);
    // The line named counts lone CRs as line ends, as the parser does.
    fs.writeFileSync(path.join(seed, 'queue', 'orders.jsonl'), Buffer.concat([Buffer.from('{"text":"a"}\r\n{"text":"b"}\r{"text":"'), latin1('\u00e9"}\n')]));
    await assert.rejects(readSnapshot(seed), /^SnapshotFormatError: queue\/orders\.jsonl:3: this line is not UTF-8/);
    // Old Mac line ends only: one piece of very many lines.
    fs.writeFileSync(path.join(seed, 'queue', 'orders.jsonl'), Array.from({ length: 150_000 }, (_, i) => `{"text":"${i}"}`).join('\r'));
    assert.equal((await readSnapshot(seed)).queues[0]!.messages.length, 150_000);
  });

  it('says that a symbolic link to a seed file or container folder is not followed, instead of calling it the wrong kind of file', async function () {
    if (process.platform === 'win32') this.skip(); // symbolic links need privileges there
    const shared = tempDir('shared-');
    fs.writeFileSync(path.join(shared, 'Customers.jsonl'), '{"PartitionKey":"p","RowKey":"1"}\n');
    fs.mkdirSync(path.join(shared, 'assets'));
    for (const [service, name, target] of [['table', 'Customers.jsonl', 'Customers.jsonl'], ['queue', 'orders.jsonl', 'Customers.jsonl'], ['blob', 'images', 'assets']] as const) {
      const seed = tempDir('seed-link-');
      fs.mkdirSync(path.join(seed, service));
      fs.symlinkSync(path.join(shared, target), path.join(seed, service, name));
      await assert.rejects(readSnapshot(seed), (err: unknown) => err instanceof SnapshotFormatError &&
        err.message === `${service}/${name}: is a symbolic link, which is not followed here: put the file or folder itself into the snapshot folder (docs/SNAPSHOT.md)`, service);
    }
  });

  it('stops reading once its signal aborts, before it begins or while it reads (readLines ends part-way through a file: work.test.ts)', async () => {
    const seed = tempDir('seed-abort-');
    fs.mkdirSync(path.join(seed, 'queue'));
    // About 4 MiB: its read takes many turns of the event loop.
    fs.writeFileSync(path.join(seed, 'queue', 'orders.jsonl'), Array.from({ length: 200_000 }, (_, i) => `{"text":"order ${i}"}\n`).join(''));
    const isAbort = (err: unknown): boolean => err instanceof Error && err.name === 'AbortError';
    await assert.rejects(readSnapshot(seed, ['queue'], AbortSignal.abort()), isAbort, 'aborted before it began');
    const abort = new AbortController();
    const reading = readSnapshot(seed, ['queue'], abort.signal);
    setImmediate(() => abort.abort());
    await assert.rejects(reading, isAbort, 'aborted while the file is read');
    assert.equal((await readSnapshot(seed, ['queue'])).queues[0]!.messages.length, 200_000, 'without a signal, the whole file');
  });

  it('resets while a client holds its connection: same ports, the client goes on working, the seed is back', async () => {
    const emulator = await running();
    const ports = SERVICE_KINDS.map((k) => emulator.endpoint(k)!.port);
    const seed = tempDir('seed-');
    fs.mkdirSync(path.join(seed, 'blob', 'fixtures'), { recursive: true });
    fs.writeFileSync(path.join(seed, 'blob', 'fixtures', 'one.txt'), 'one');
    fs.writeFileSync(path.join(seed, 'blob', 'fixtures.container.json'), '{ "publicAccess": "container" }\n');
    const snapshot = await readSnapshot(seed);
    const data = dataClients(emulator);
    await resetAccount(data, snapshot);

    // A client on one keep-alive connection: anonymous reads of the seed's public container.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const listUrl = `${emulator.connectionString().match(/BlobEndpoint=([^;]+)/)![1]}/fixtures?restype=container&comp=list`;
    const get = (url: string): Promise<{ status: number | undefined; body: string; socket: unknown }> => new Promise((resolve, reject) => {
      const req = http.get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => { body += d; });
        res.on('end', () => resolve({ status: res.statusCode, body, socket: req.socket }));
      });
      req.on('error', reject);
    });
    const before = await get(listUrl);
    assert.equal(before.status, 200);
    const fixtures = sdkClients(emulator).blob().getContainerClient('fixtures');
    await fixtures.getBlockBlobClient('written-by-test.txt').uploadData(Buffer.from('test data'));
    await sdkClients(emulator).queue().getQueueClient('scratch').create();
    assert.match((await get(listUrl)).body, /written-by-test\.txt/);

    await resetAccount(data, snapshot);
    assert.deepEqual(SERVICE_KINDS.map((k) => emulator.endpoint(k)!.port), ports, 'no restart');
    const names: string[] = [];
    for await (const b of fixtures.listBlobsFlat()) names.push(b.name);
    assert.deepEqual(names, ['one.txt'], 'the test\'s blob is gone, the seed is back');
    assert.equal((await fixtures.getBlobClient('one.txt').downloadToBuffer()).toString(), 'one');
    assert.deepEqual((await listNames(emulator)).queues, []);
    const after = await get(listUrl);
    assert.equal(after.status, 200);
    assert.equal(after.socket, before.socket, 'the same connection, kept open across the reset');
    assert.doesNotMatch(after.body, /written-by-test/);
    agent.destroy();
  });

  it('an import that hits the memory limit stops with the reason and leaves the data it found', async () => {
    const emulator = await running({ inMemoryPersistence: true, extentMemoryLimit: 1 });
    const c = sdkClients(emulator);
    const keep = c.blob().getContainerClient('keep');
    await keep.create();
    const original = Buffer.alloc(300 * 1024, 1);
    await keep.getBlockBlobClient('original.bin').uploadData(original);

    const snap = tempDir('too-big-');
    fs.mkdirSync(path.join(snap, 'blob', 'keep'), { recursive: true });
    fs.mkdirSync(path.join(snap, 'blob', 'added'), { recursive: true });
    fs.writeFileSync(path.join(snap, 'blob', 'added', 'small.txt'), 'small');
    for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(snap, 'blob', 'keep', `big${i}.bin`), Buffer.alloc(300 * 1024, 2));
    const snapshot = await readSnapshot(snap);

    const messages: string[] = [];
    let phases = 0;
    await assert.rejects(importSnapshot(dataClients(emulator), snapshot, tempDir('scratch-'), { concurrency: 1, reclaim: () => emulator.reclaimMemory(), progress: (p) => { messages.push(`${p.done}/${p.total} ${p.message}`); if (p.phase === true) phases++; } }),
      /^Error: Import stopped: blob keep\/big3\.bin: Cannot add an extent chunk to the in-memory store\. Size limit of 1048576 bytes will be exceeded; the data found before was restored\.$/);
    const names: string[] = [];
    for await (const b of keep.listBlobsFlat()) names.push(b.name);
    assert.deepEqual(names, ['original.bin']);
    assert.deepEqual(await keep.getBlobClient('original.bin').downloadToBuffer(), original);
    assert.deepEqual((await listNames(emulator)).containers, ['keep'], 'nothing of the snapshot is left');
    // The copy of what the import replaces is kept first, reported without the import's counts.
    assert.equal(messages[0], '0/0 Keeping a copy of what the import replaces: 1 / 1 items');
    assert.match(messages[1]!, /^1\/5 Importing blob /);
    assert.equal(messages.at(-1), '0/0 Import stopped: restoring the data it replaced…', 'the rollback is said while it runs');
    assert.equal(phases, 1, 'as a new phase, which a throttled notification shows at once');
  });

  it('an import replaces only what the user agreed to: an item a client made since stops it before it changes anything', async () => {
    const emulator = await running({ inMemoryPersistence: true });
    const c = sdkClients(emulator);
    await c.blob().getContainerClient('asked').create();
    const snap = tempDir('confirmed-');
    for (const name of ['asked', 'uploads']) {
      fs.mkdirSync(path.join(snap, 'blob', name), { recursive: true });
      fs.writeFileSync(path.join(snap, 'blob', name, 'from-snapshot.txt'), name);
    }
    const snapshot = await readSnapshot(snap);
    const data = dataClients(emulator);
    const confirmed = await importConflicts(data, snapshot);
    assert.deepEqual(confirmed.containers, ['asked']);
    // While the question was open, an app's CreateIfNotExists made the other container.
    const uploads = c.blob().getContainerClient('uploads');
    await uploads.create();
    await uploads.getBlockBlobClient('app.txt').uploadData(Buffer.from('the app\'s'));
    await assert.rejects(importSnapshot(data, snapshot, tempDir('scratch-'), { confirmed }),
      /^Error: Import stopped before it changed anything: container uploads was made since you confirmed what it replaces; import again to be asked about it$/);
    assert.equal((await uploads.getBlobClient('app.txt').downloadToBuffer()).toString(), 'the app\'s');
    assert.equal(await c.blob().getContainerClient('asked').getBlobClient('from-snapshot.txt').exists(), false, 'nothing imported');
    // Asked again, with both: it replaces both.
    await importSnapshot(data, snapshot, tempDir('scratch-'), { confirmed: await importConflicts(data, snapshot) });
    assert.equal(await uploads.getBlobClient('app.txt').exists(), false);
  });

  it('an import says when it is about to change data: after the copy of what it replaces is made, before anything is deleted', async () => {
    const emulator = await running({ inMemoryPersistence: true });
    const c = sdkClients(emulator);
    await c.blob().getContainerClient('kept').create();
    await c.blob().getContainerClient('kept').getBlockBlobClient('before.txt').uploadData(Buffer.from('before'));
    const snap = tempDir('changing-');
    fs.mkdirSync(path.join(snap, 'blob', 'kept'), { recursive: true });
    fs.writeFileSync(path.join(snap, 'blob', 'kept', 'after.txt'), 'after');
    const seen: { backup: string; copy: string; stillThere: boolean }[] = [];
    await importSnapshot(dataClients(emulator), await readSnapshot(snap), tempDir('scratch-'), {
      changing: async (backup) => {
        seen.push({ backup, copy: fs.readFileSync(path.join(backup, 'blob', 'kept', 'before.txt'), 'utf8'), stillThere: await c.blob().getContainerClient('kept').getBlobClient('before.txt').exists() });
      },
    });
    assert.equal(seen.length, 1);
    assert.deepEqual({ copy: seen[0]!.copy, stillThere: seen[0]!.stillThere }, { copy: 'before', stillThere: true });
    assert.equal(fs.existsSync(seen[0]!.backup), false, 'the copy is removed once the import ends');
    assert.equal(await c.blob().getContainerClient('kept').getBlobClient('after.txt').exists(), true);
    // A hook that rejects stops the import before it changes anything.
    fs.writeFileSync(path.join(snap, 'blob', 'kept', 'after.txt'), 'after, again');
    await assert.rejects(importSnapshot(dataClients(emulator), await readSnapshot(snap), tempDir('scratch-'), { changing: () => Promise.reject(new Error('no journal')) }), /no journal/);
    assert.equal((await c.blob().getContainerClient('kept').getBlobClient('after.txt').downloadToBuffer()).toString(), 'after');
  });

  it('an import cancelled half-way rejects with the AbortError (a cancel, not a failure) and leaves the data it found', async () => {
    const emulator = await running();
    const keep = sdkClients(emulator).blob().getContainerClient('keep');
    await keep.create();
    await keep.getBlockBlobClient('original.txt').uploadData(Buffer.from('original'));
    const snap = tempDir('cancelled-');
    fs.mkdirSync(path.join(snap, 'blob', 'keep'), { recursive: true });
    for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(snap, 'blob', 'keep', `b${i}.txt`), `blob ${i}`);
    const abort = new AbortController();
    let loaded = 0;
    const progress = (): void => { if (++loaded === 10) abort.abort(); };
    await assert.rejects(importSnapshot(dataClients(emulator), await readSnapshot(snap), tempDir('scratch-'), { signal: abort.signal, progress, concurrency: 2 }), { name: 'AbortError', undone: true });
    const names: string[] = [];
    for await (const b of keep.listBlobsFlat()) names.push(b.name);
    assert.deepEqual(names, ['original.txt']);
  });

  it('an export removes the staging folders of exports whose process ended under them, and leaves live and other machines\' ones', async () => {
    const emulator = await running();
    const folder = tempDir('export-abandoned-');
    const staging = (name: string, owner?: object): string => {
      const dir = path.join(folder, name);
      fs.mkdirSync(path.join(dir, 'blob'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'blob', 'x.bin'), 'content of a half-written export');
      if (owner !== undefined) fs.writeFileSync(path.join(dir, 'owner.json'), JSON.stringify(owner));
      return dir;
    };
    const ended = spawnSync(process.execPath, ['-e', '']).pid; // a process that has exited
    staging('.export-aaaaaa', { pid: ended, host: os.hostname() }); // a window reloaded mid-export
    staging('.export-bbbbbb', { pid: process.pid, host: os.hostname() }); // an export under way
    staging('.export-cccccc', { pid: ended, host: 'another-machine' }); // a shared folder: not ours to judge
    const old = staging('.export-dddddd'); // no owner (an earlier version's), two days old
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    fs.utimesSync(old, twoDaysAgo, twoDaysAgo);
    staging('.export-eeeeee'); // no owner, new
    await exportSnapshot(dataClients(emulator), folder);
    assert.deepEqual(fs.readdirSync(folder).filter((n) => n.startsWith('.export-')).sort(), ['.export-bbbbbb', '.export-cccccc', '.export-eeeeee']);
  });

  it('an export cancelled in its last step leaves the folder as it was and rejects with the AbortError', async () => {
    const emulator = await running();
    const people = sdkClients(emulator).table('people');
    await people.createTable();
    for (let i = 0; i < 3; i++) await people.createEntity({ partitionKey: 'p', rowKey: `r${i}` });
    const folder = tempDir('export-cancel-');
    fs.mkdirSync(path.join(folder, 'table'));
    fs.writeFileSync(path.join(folder, 'table', 'before.jsonl'), '{"PartitionKey":"p","RowKey":"before"}\n');
    const abort = new AbortController();
    const progress = (p: { message: string }): void => { if (p.message === 'Exporting table people: 3 entities') abort.abort(); };
    await assert.rejects(exportSnapshot(dataClients(emulator), folder, { signal: abort.signal, progress }), { name: 'AbortError' });
    assert.deepEqual(fs.readdirSync(path.join(folder, 'table')), ['before.jsonl']);
    assert.deepEqual(fs.readdirSync(folder), ['table'], 'no staging folder left');
  });

  it('an import cancelled as its copy of what it replaces ends changes nothing: no message twice, no failed restore', async () => {
    const emulator = await running();
    const c = sdkClients(emulator);
    const orders = c.queue().getQueueClient('orders');
    await orders.create();
    for (let i = 0; i < 5; i++) await orders.sendMessage(`old ${i}`);
    const people = c.table('people');
    await people.createTable();
    for (let i = 0; i < 3; i++) await people.createEntity({ partitionKey: 'p', rowKey: `old${i}` });
    const snap = tempDir('cancel-at-backup-');
    fs.mkdirSync(path.join(snap, 'queue'));
    fs.mkdirSync(path.join(snap, 'table'));
    fs.writeFileSync(path.join(snap, 'queue', 'orders.jsonl'), '{"text":"new 0"}\n{"text":"new 1"}\n');
    fs.writeFileSync(path.join(snap, 'table', 'people.jsonl'), '{"PartitionKey":"p","RowKey":"new0"}\n');
    const abort = new AbortController();
    // The copy's last step (the table's entities listed): what is left of it (writing its files)
    // finishes whatever the signal says.
    const progress = (p: { message: string }): void => { if (/Keeping a copy of what the import replaces: 8 \/ 8 items/.test(p.message)) abort.abort(); };
    const cancelled = await importSnapshot(dataClients(emulator), await readSnapshot(snap), tempDir('scratch-'), { signal: abort.signal, progress }).then(() => undefined, (e: unknown) => e as { name?: string; undone?: boolean });
    assert.equal(cancelled?.name, 'AbortError');
    assert.equal(cancelled?.undone, undefined, 'nothing had changed: nothing to say was put back');
    assert.equal(abort.signal.aborted, true);
    const texts = (await orders.peekMessages({ numberOfMessages: 32 })).peekedMessageItems.map((m) => m.messageText);
    assert.deepEqual(texts, ['old 0', 'old 1', 'old 2', 'old 3', 'old 4']);
    const rows: string[] = [];
    for await (const e of people.listEntities()) rows.push(e.rowKey!);
    assert.deepEqual(rows, ['old0', 'old1', 'old2']);
  });

  it('loads a page blob over 2 GiB (a sparse file, more than fs.readFile reads) a piece at a time, and an append blob', async () => {
    const emulator = await running();
    const seed = tempDir('big-page-');
    fs.mkdirSync(path.join(seed, 'blob', 'disks'), { recursive: true });
    const vhd = path.join(seed, 'blob', 'disks', 'os.vhd');
    const size = 2 * 1024 ** 3 + 4 * 1024 * 1024; // over the 2 GiB that fs.readFile reads
    fs.writeFileSync(vhd, '');
    fs.truncateSync(vhd, size);
    const fd = fs.openSync(vhd, 'r+');
    fs.writeSync(fd, Buffer.alloc(512, 9), 0, 512, size - 512);
    fs.closeSync(fd);
    fs.writeFileSync(path.join(seed, 'blob', 'disks', 'log.txt'), 'x'.repeat(5 * 1024 * 1024));
    fs.writeFileSync(path.join(seed, 'blob', 'disks.blobs.jsonl'), '{"name":"os.vhd","type":"PageBlob"}\n{"name":"log.txt","type":"AppendBlob"}\n');
    await resetAccount(dataClients(emulator), await readSnapshot(seed));
    const disks = sdkClients(emulator).blob().getContainerClient('disks');
    const page = disks.getPageBlobClient('os.vhd');
    assert.equal((await page.getProperties()).contentLength, size);
    const ranges = await page.getPageRanges();
    assert.deepEqual(ranges.pageRange?.map((r) => r.offset), [size - 4 * 1024 * 1024], 'only the last 4 MiB piece holds data');
    assert.deepEqual(await page.downloadToBuffer(size - 512, 512), Buffer.alloc(512, 9));
    const append = disks.getAppendBlobClient('log.txt');
    assert.equal((await append.getProperties()).blobCommittedBlockCount, 2, 'two blocks of at most 4 MiB');
    assert.equal((await append.downloadToBuffer()).toString(), 'x'.repeat(5 * 1024 * 1024));
    fs.rmSync(seed, { recursive: true, force: true });
  });

  it('reads a .jsonl file larger than the longest string V8 makes (512 MiB) a line at a time', async () => {
    const folder = tempDir('big-jsonl-');
    fs.mkdirSync(path.join(folder, 'queue'));
    const file = path.join(folder, 'queue', 'big.jsonl');
    // 8,800 lines of 64,000 bytes (JSON allows the spaces), 563,200,000 bytes in all.
    const line = Buffer.from(`{"text":"m"}${' '.repeat(64_000 - 13)}\n`);
    const fd = fs.openSync(file, 'w');
    for (let i = 0; i < 8_800; i++) fs.writeSync(fd, line);
    fs.closeSync(fd);
    assert.ok(fs.statSync(file).size > 512 * 1024 * 1024);
    const snapshot = await readSnapshot(folder, ['queue']);
    assert.equal(snapshot.queues[0]!.messages.length, 8_800);
    assert.equal(snapshot.queues[0]!.messages[8_799]!.text, 'm');
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('a reset deletes containers that apps hold leases on, and containers with leased blobs', async () => {
    const emulator = await running();
    const blob = sdkClients(emulator).blob();
    const leased = blob.getContainerClient('leased');
    await leased.create();
    await leased.getBlobLeaseClient().acquireLease(-1);
    const holder = blob.getContainerClient('holder');
    await holder.create();
    await holder.getBlockBlobClient('lock').uploadData(Buffer.from('x'));
    await holder.getBlockBlobClient('lock').getBlobLeaseClient().acquireLease(60);
    await assert.rejects(leased.delete(), { statusCode: 412 }, 'Azurite refuses to delete a leased container without its lease id');
    await resetAccount(dataClients(emulator), undefined);
    assert.deepEqual(await listNames(emulator), { containers: [], queues: [], tables: [] });
  });

  it('a reset that cannot delete an item names it, deletes everything else, and says the seed was not loaded', async () => {
    const emulator = await running();
    await writeVariedData(emulator);
    const data = dataClients(emulator);
    const blob = data.blob!;
    await blob.getContainerClient('stuck').create();
    // The engine refuses this one container's delete for real: its client signs with a wrong key (403).
    const wrongKey = new BlobSharedKeyCredential(DEV_ACCOUNT_NAME, Buffer.from('not the account key').toString('base64'));
    const refusing = new Proxy(blob, {
      get: (target, key, receiver) => key === 'getContainerClient'
        ? (name: string) => (name === 'stuck' ? new BlobServiceClient(blob.url, newBlobPipeline(wrongKey, { retryOptions: { maxTries: 1 } })).getContainerClient(name) : target.getContainerClient(name))
        : Reflect.get(target, key, receiver) as unknown,
    });
    const seed = tempDir('seed-stuck-');
    fs.mkdirSync(path.join(seed, 'queue'));
    fs.writeFileSync(path.join(seed, 'queue', 'seeded.jsonl'), '{"text":"from the seed"}\n');
    await assert.rejects(resetAccount({ ...data, blob: refusing }, await readSnapshot(seed)), (err: Error) => {
      assert.match(err.message, /^could not delete container stuck \(.*\); everything else was deleted, and the seed was not loaded$/s);
      return true;
    });
    assert.deepEqual(await listNames(emulator), { containers: ['stuck'], queues: [], tables: [] }, 'all but the refused container is gone, and no seed');
  });

  it('a reset cancelled while the seed loads leaves every service empty, not the old data or half the seed', async () => {
    const emulator = await running();
    await writeVariedData(emulator);
    const seed = tempDir('seed-cancel-');
    fs.mkdirSync(path.join(seed, 'blob', 'files'), { recursive: true });
    for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(seed, 'blob', 'files', `f${i}.txt`), `file ${i}`);
    fs.mkdirSync(path.join(seed, 'queue'));
    fs.writeFileSync(path.join(seed, 'queue', 'orders.jsonl'), '{"text":"first"}\n');
    const snapshot = await readSnapshot(seed);
    const abort = new AbortController();
    let loaded = 0;
    const progress = (): void => { if (++loaded === 10) abort.abort(); };
    await assert.rejects(resetAccount(dataClients(emulator), snapshot, { signal: abort.signal, progress, concurrency: 2 }), { name: 'AbortError' });
    assert.ok(loaded >= 10 && loaded < 60, `the cancel came while the seed loaded (${loaded} blobs)`);
    assert.deepEqual(await listNames(emulator), { containers: [], queues: [], tables: [] });
  });

  it('a seed at start keeps what a client made since the port opened, and deletes only its own items when it stops half-way', async () => {
    const emulator = await running({ inMemoryPersistence: true, extentMemoryLimit: 1 });
    // An app that retries its connection made its container as soon as the port answered.
    await sdkClients(emulator).blob().getContainerClient('app').create();
    const seed = tooBigSeed();
    await assert.rejects(loadSeed(dataClients(emulator), await readSnapshot(seed), { concurrency: 1, reclaim: () => emulator.reclaimMemory() }),
      /^Error: Loading the seed stopped: blob big\/big3\.bin: Cannot add an extent chunk to the in-memory store\. Size limit of 1048576 bytes will be exceeded; what it had loaded was deleted again\.$/);
    assert.deepEqual(await listNames(emulator), { containers: ['app'], queues: [], tables: [] });
    fs.rmSync(path.join(seed, 'blob', 'big'), { recursive: true });
    fs.mkdirSync(path.join(seed, 'blob', 'small'));
    fs.writeFileSync(path.join(seed, 'blob', 'small', 'a.txt'), 'a');
    const counts = await loadSeed(dataClients(emulator), await readSnapshot(seed));
    assert.equal(counts.blobs, 1);
    assert.deepEqual(await listNames(emulator), { containers: ['app', 'small'], queues: [], tables: [] });

    // The app made a queue and a table the seed has too (Azure's Create Queue and the SDK's
    // createTable do not fail for those): the seed stops at the queue, adds no message to it, and
    // deletes the container it made, not the app's queue and table.
    const sdk = sdkClients(emulator);
    await sdk.queue().getQueueClient('jobs').create();
    await sdk.table('Users').createTable();
    await sdk.table('Users').createEntity({ partitionKey: 'u', rowKey: '1', name: 'app' });
    const both = tempDir('seed-shared-');
    fs.mkdirSync(path.join(both, 'blob', 'seeded'), { recursive: true });
    fs.writeFileSync(path.join(both, 'blob', 'seeded', 'seed.txt'), 'seed');
    fs.mkdirSync(path.join(both, 'queue'));
    fs.writeFileSync(path.join(both, 'queue', 'jobs.jsonl'), '{"text":"seed message"}\n');
    fs.mkdirSync(path.join(both, 'table'));
    fs.writeFileSync(path.join(both, 'table', 'Users.jsonl'), '{"PartitionKey":"u","RowKey":"1","name":"seed"}\n');
    await assert.rejects(loadSeed(dataClients(emulator), await readSnapshot(both)), /^Error: Loading the seed stopped: queue jobs: it exists already \(made by a client meanwhile\), and is left as it is; what it had loaded was deleted again\.$/);
    assert.deepEqual(await listNames(emulator), { containers: ['app', 'small'], queues: ['jobs'], tables: ['Users'] });
    assert.equal((await sdk.queue().getQueueClient('jobs').getProperties()).approximateMessagesCount, 0, 'the app\'s queue got no seed message');
    // A table alone: the same.
    fs.rmSync(path.join(both, 'queue'), { recursive: true });
    await assert.rejects(loadSeed(dataClients(emulator), await readSnapshot(both)), /^Error: Loading the seed stopped: table Users: it exists already/);
    assert.equal((await sdk.table('Users').getEntity<{ name: string }>('u', '1')).name, 'app');
  });

  it('a seed refused part-way names the item: the queue, the message and its file', async () => {
    const emulator = await running();
    const seed = tempDir('seed-big-message-');
    fs.mkdirSync(path.join(seed, 'queue'));
    fs.writeFileSync(path.join(seed, 'queue', 'work.jsonl'), `{"text":"fine"}\n${JSON.stringify({ text: 'x'.repeat(70 * 1024) })}\n`);
    await assert.rejects(loadSeed(dataClients(emulator), await readSnapshot(seed)),
      /^Error: Loading the seed stopped: queue work, message 2 of queue\/work\.jsonl: .+; what it had loaded was deleted again\.$/);
    assert.deepEqual(await listNames(emulator), { containers: [], queues: [], tables: [] });
  });

  it('a reset whose seed hits the memory limit says so and leaves the services empty', async () => {
    const emulator = await running({ inMemoryPersistence: true, extentMemoryLimit: 1 });
    await sdkClients(emulator).blob().getContainerClient('old').create();
    const seed = tooBigSeed();
    const snapshot = await readSnapshot(seed);
    await assert.rejects(resetAccount(dataClients(emulator), snapshot, { concurrency: 1, reclaim: () => emulator.reclaimMemory() }),
      /^Error: Loading the seed stopped: blob big\/big3\.bin: Cannot add an extent chunk to the in-memory store\. Size limit of 1048576 bytes will be exceeded; the services were left empty\.$/);
    assert.deepEqual(await listNames(emulator), { containers: [], queues: [], tables: [] });
  });

  it('loads a partition whose 100 entities are more than a transaction may carry (4 MiB)', async () => {
    const emulator = await running();
    const seed = tempDir('big-partition-');
    fs.mkdirSync(path.join(seed, 'table'));
    // 45,000 characters each, in two properties (a string property holds at most 32 K characters).
    const lines = Array.from({ length: 100 }, (_, i) => JSON.stringify({ PartitionKey: 'p', RowKey: String(i).padStart(3, '0'), A: 'x'.repeat(22_500), B: 'y'.repeat(22_500) }));
    fs.writeFileSync(path.join(seed, 'table', 'Big.jsonl'), `${lines.join('\n')}\n`);
    const snapshot = await readSnapshot(seed);
    assert.deepEqual(transactionBatches(snapshot.tables[0]!.entities).map((b) => b.length), [68, 32]);
    await resetAccount(dataClients(emulator), snapshot);
    let n = 0;
    for await (const e of sdkClients(emulator).table('Big').listEntities<{ A: string; B: string }>()) n += e.A.length + e.B.length === 45_000 ? 1 : 0;
    assert.equal(n, 100);
  });

  // Our engine's seam reads such transactions (test/unit/engine/tableBatchText.test.ts), so the round
  // trip here passes either way; the batches asserted are what an attached Azurite without the seam needs.
  it('exports and loads back entities holding U+2028 and U+2029 beside others of their partition (a transaction with them fails in Azurite)', async () => {
    const emulator = await running();
    const notes = sdkClients(emulator).table('notes');
    await notes.createTable();
    // Text pasted from a word processor or a web page; the keys and a name may carry them too.
    await notes.createEntity({ partitionKey: 'p', rowKey: '1', text: 'first line\u2028second line' });
    await notes.createEntity({ partitionKey: 'p', rowKey: '2', text: 'plain' });
    await notes.createEntity({ partitionKey: 'p', rowKey: '3\u2029', ['para\u2029name']: 'x' });
    await notes.createEntity({ partitionKey: 'p', rowKey: '4', text: 'plain too' });
    const folder = tempDir('export-');
    await exportSnapshot(dataClients(emulator), folder);
    const snapshot = await readSnapshot(folder);
    assert.deepEqual(transactionBatches(snapshot.tables[0]!.entities).map((b) => b.map((e) => e.rowKey)), [['1'], ['2', '4'], ['3\u2029']]);
    await resetAccount(dataClients(emulator), snapshot);
    const back: Record<string, unknown>[] = [];
    for await (const e of notes.listEntities<Record<string, unknown>>()) back.push({ rowKey: e.rowKey, text: e.text, para: e['para\u2029name'] });
    assert.deepEqual(back, [
      { rowKey: '1', text: 'first line\u2028second line', para: undefined },
      { rowKey: '2', text: 'plain', para: undefined },
      { rowKey: '3\u2029', text: undefined, para: 'x' },
      { rowKey: '4', text: 'plain too', para: undefined },
    ]);
  });

  it('an export that meets a blob in the Archive tier names it and says how to make it readable', async () => {
    const emulator = await running();
    const cold = sdkClients(emulator).blob().getContainerClient('cold');
    await cold.create();
    await cold.getBlockBlobClient('a.txt').uploadData(Buffer.from('a'));
    await cold.getBlockBlobClient('old/report.txt').uploadData(Buffer.from('kept'));
    await cold.getBlobClient('old/report.txt').setAccessTier('Archive');
    await assert.rejects(exportSnapshot(dataClients(emulator), tempDir('export-')),
      { message: 'blob cold/old/report.txt is in the Archive tier, whose content cannot be read: set its tier to Hot or Cool with a client (Azurite does so at once), then try again' });
    await cold.getBlobClient('old/report.txt').setAccessTier('Hot');
    const folder = tempDir('export-');
    await exportSnapshot(dataClients(emulator), folder);
    assert.equal(fs.readFileSync(path.join(folder, 'blob', 'cold', 'old', 'report.txt'), 'utf8'), 'kept');
  });

  it('exports a whole number outside Int32 that a client stored unannotated so that it loads again', async () => {
    const emulator = await running();
    const events = sdkClients(emulator).table('events');
    await events.createTable();
    await events.createEntity({ partitionKey: 'p', rowKey: '1', at: 1_700_000_000_000, n: 7 });
    const folder = tempDir('export-');
    await exportSnapshot(dataClients(emulator), folder);
    const line = fs.readFileSync(path.join(folder, 'table', 'events.jsonl'), 'utf8');
    assert.match(line, /"at@odata\.type":"Edm\.Double","at":1700000000000/);
    assert.match(line, /"n":7/);
    const snapshot = await readSnapshot(folder);
    await resetAccount(dataClients(emulator), snapshot);
    const back = await events.getEntity<{ at: number; n: number }>('p', '1');
    assert.equal(back.at, 1_700_000_000_000);
    assert.equal(back.n, 7);
  });

  it('exports a whole-number Edm.Double as a Double, so it loads back as one', async () => {
    const emulator = await running();
    const events = sdkClients(emulator).table('doubles');
    await events.createTable();
    await events.createEntity({ partitionKey: 'p', rowKey: '1', whole: { value: '5', type: 'Double' }, huge: { value: '1e21', type: 'Double' }, half: 0.5, n: 7 });
    const folder = tempDir('export-');
    await exportSnapshot(dataClients(emulator), folder);
    const line = fs.readFileSync(path.join(folder, 'table', 'doubles.jsonl'), 'utf8');
    assert.match(line, /"whole@odata\.type":"Edm\.Double","whole":5[,}]/);
    assert.match(line, /"huge@odata\.type":"Edm\.Double","huge":1e\+21[,}]/);
    assert.match(line, /"half":0\.5[,}]/);
    assert.match(line, /"n":7[,}]/);
    await resetAccount(dataClients(emulator), await readSnapshot(folder));
    // Our client: a plain SDK client calls a whole-number Double an Int32 (it sees only `5`), whereas
    // the engine prints a stored Int32 as `5` and a stored Double as `5.0`, which ours tells apart.
    const back = await dataClients(emulator).tableClient('doubles')!.getEntity<Record<string, { type: string }>>('p', '1', { disableTypeConversion: true });
    assert.deepEqual([back.whole?.type, back.huge?.type, back.half?.type, back.n?.type], ['Double', 'Double', 'Double', 'Int32']);
  });

  it('refuses to export an entity whose Edm.Binary value is no base64 (the service stores it unchecked), naming it, and writes nothing', async () => {
    const emulator = await running();
    const odd = sdkClients(emulator).table('odd');
    await odd.createTable();
    await odd.createEntity({ partitionKey: 'p', rowKey: '1', data: { value: 'abc', type: 'Binary' } });
    // The engine took it: the value reads back as it was sent.
    const stored = await dataClients(emulator).tableClient('odd')!.getEntity<Record<string, { value: string; type: string }>>('p', '1', { disableTypeConversion: true });
    assert.deepEqual({ ...stored.data }, { value: 'abc', type: 'Binary' });
    const folder = tempDir('export-odd-');
    await assert.rejects(exportSnapshot(dataClients(emulator), folder),
      /^Error: table odd, entity PartitionKey "p", RowKey "1": property "data" holds "abc" as Edm\.Binary, but Edm\.Binary needs a base64 string, so a snapshot with it would not load/);
    assert.deepEqual(fs.readdirSync(folder), [], 'no file written');
  });

  it('an import over a table whose entity the export refuses stops before it changes anything, instead of failing its restore', async () => {
    // The memory limit stops the import at its blobs: it would have to restore the table from its copy.
    const emulator = await running({ inMemoryPersistence: true, extentMemoryLimit: 1 });
    const odd = sdkClients(emulator).table('odd');
    await odd.createTable();
    await odd.createEntity({ partitionKey: 'p', rowKey: '1', id: { value: 'not a guid', type: 'Guid' } });
    await odd.createEntity({ partitionKey: 'p', rowKey: '2', name: 'kept' });
    const snap = tempDir('import-odd-');
    fs.mkdirSync(path.join(snap, 'table'), { recursive: true });
    fs.writeFileSync(path.join(snap, 'table', 'odd.jsonl'), '{"PartitionKey":"p","RowKey":"3","name":"new"}\n');
    fs.mkdirSync(path.join(snap, 'blob', 'big'), { recursive: true });
    for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(snap, 'blob', 'big', `big${i}.bin`), Buffer.alloc(300 * 1024, 2));
    await assert.rejects(importSnapshot(dataClients(emulator), await readSnapshot(snap), tempDir('scratch-'), { reclaim: () => emulator.reclaimMemory() }),
      /^Error: Import stopped before it changed anything: the copy of what it replaces could not be made: table odd, entity PartitionKey "p", RowKey "1": property "id" holds "not a guid" as Edm\.Guid, but Edm\.Guid needs a GUID string/);
    const rows: string[] = [];
    for await (const e of odd.listEntities()) rows.push(e.rowKey!);
    assert.deepEqual(rows, ['1', '2']);
    assert.deepEqual((await listNames(emulator)).containers, []);
  });

  it('keeps a message\'s carriage returns, tabs and literal character references through export, the import\'s copy of what it replaces, and import', async () => {
    const emulator = await running({ inMemoryPersistence: true });
    // The service writes a CR as `&#xD;` and a literal "&#xD;" as `&amp;#xD;`; the SDK decodes neither reference.
    const texts = ['a\r\nb', 'tab\there', '&#xD;', '&amp;', 'cr\ronly &#13; &#x9; &#10;', '\r\n\r\n', '<x a="&#xD;">&lt;\r</x>'];
    const queue = sdkClients(emulator).queue().getQueueClient('chars');
    await queue.create();
    for (const text of texts) await queue.sendMessage(text);
    const data = dataClients(emulator);
    const textsIn = (folder: string): string[] => fs.readFileSync(path.join(folder, 'queue', 'chars.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { text: string }).text);
    const first = tempDir('snap-chars-');
    await exportSnapshot(data, first);
    assert.deepEqual(textsIn(first), texts);

    // Imported over the queue: the copy it keeps of the queue it replaces is an export too.
    const snapshot = await readSnapshot(first);
    const copies: string[][] = [];
    await importSnapshot(data, snapshot, tempDir('scratch-'), { confirmed: await importConflicts(data, snapshot), changing: (backup) => { copies.push(textsIn(backup)); return Promise.resolve(); } });
    assert.deepEqual(copies, [texts]);
    // What the engine holds, as it writes it (read past the SDK's parser): the import sent each text as it was.
    const bodies: string[] = [];
    const capture: RequestPolicyFactory = {
      create: (next) => ({
        sendRequest: async (request) => {
          const response = await next.sendRequest(request);
          if (response.bodyAsText) bodies.push(response.bodyAsText);
          return response;
        },
      }),
    };
    const pipeline = newPipeline(new StorageSharedKeyCredential(DEV_ACCOUNT_NAME, DEV_ACCOUNT_KEY));
    pipeline.factories.unshift(capture);
    await new QueueServiceClient(data.endpoints.queue!, pipeline).getQueueClient('chars').peekMessages({ numberOfMessages: 32 });
    assert.deepEqual([...bodies.join('').matchAll(/<MessageText>([^<]*)<\/MessageText>/g)].map((m) => m[1]),
      ['a&#xD;\nb', 'tab\there', '&amp;#xD;', '&amp;amp;', 'cr&#xD;only &amp;#13; &amp;#x9; &amp;#10;', '&#xD;\n&#xD;\n', '&lt;x a="&amp;#xD;"&gt;&amp;lt;&#xD;&lt;/x&gt;']);
    const second = tempDir('snap-chars-');
    await exportSnapshot(data, second);
    assert.deepEqual(filesOf(second), filesOf(first));
  });

  it('exports and imports blobs named with carriage returns under their true names, beside one literally named "&#xD;"', async () => {
    const emulator = await running({ inMemoryPersistence: true });
    const docs = sdkClients(emulator).blob().getContainerClient('docs');
    await docs.create();
    // The service lists a CR as `&#xD;` and a literal "&#xD;" as `&amp;#xD;`; the SDK decodes neither reference.
    const contents: Record<string, string> = { 'x\ry': 'a carriage return', 'x&#xD;y': 'a literal reference', 'crlf\r\n.txt': 'CRLF', 'dir\r/inner.txt': 'in a folder named with a CR', '&#13;\r': 'both', 'tab\tand\nlf': 'tab and LF' };
    for (const [name, text] of Object.entries(contents)) await docs.getBlockBlobClient(name).uploadData(Buffer.from(text));
    const data = dataClients(emulator);
    const blobsIn = async (folder: string): Promise<Record<string, string>> =>
      Object.fromEntries((await readSnapshot(folder)).containers[0]!.blobs.map((b) => [b.entry.name, fs.readFileSync(b.file, 'utf8')]));
    const first = tempDir('snap-cr-');
    const counts = await exportSnapshot(data, first);
    assert.equal(counts.blobs, 6);
    assert.equal(counts.unreadBlobs, undefined);
    assert.deepEqual(await blobsIn(first), contents);

    await resetAccount(data, undefined);
    await importSnapshot(data, await readSnapshot(first), tempDir('scratch-'));
    for (const [name, text] of Object.entries(contents)) assert.equal((await docs.getBlobClient(name).downloadToBuffer()).toString(), text, JSON.stringify(name));
    assert.equal((await blobNamesOf(emulator, 'docs')).length, 6);
    const second = tempDir('snap-cr-');
    await exportSnapshot(data, second);
    assert.deepEqual(filesOf(second), filesOf(first));
  });

  it('an export names a blob it could not read under the name the listing gave, rather than counting it as deleted', async () => {
    const emulator = await running({ inMemoryPersistence: true });
    const docs = sdkClients(emulator).blob().getContainerClient('docs');
    await docs.create();
    await docs.getBlockBlobClient('x\ry').uploadData(Buffer.from('a carriage return'));
    await docs.getBlockBlobClient('plain').uploadData(Buffer.from('plain'));
    // A blob client without the data clients' listing policy reads "x\ry" as "x&#xD;y", a name no blob has.
    const data = dataClients(emulator);
    const plain = new BlobServiceClient(data.endpoints.blob!, new BlobSharedKeyCredential(data.endpoints.accountName, data.endpoints.accountKey));
    const counts = await exportSnapshot({ ...data, blob: plain }, tempDir('export-'));
    assert.equal(counts.blobs, 1);
    assert.deepEqual(counts.unreadBlobs, ['docs/x&#xD;y']);
    assert.equal(describeCounts(counts, ['blob']),
      '1 container (1 blob, 0.0 KB); 1 blob left out: "docs/x&#xD;y" was listed, but no blob of that name was there when read (deleted meanwhile, or a name the listing could not carry)');
    assert.equal(describeCounts(counts, ['queue']), '0 queues (0 messages)');
  });

  it('an export of a container Azurite cannot list (a blob named with a control character) fails naming the container and why', async () => {
    const emulator = await running({ inMemoryPersistence: true });
    const ctl = sdkClients(emulator).blob().getContainerClient('ctl');
    await ctl.create();
    // Put Blob takes the name; Azurite's XML writer then refuses it in every listing (HTTP 500).
    await ctl.getBlockBlobClient('a\x01b').uploadData(Buffer.from('x'));
    await assert.rejects(exportSnapshot(dataClients(emulator), tempDir('export-')), (err: Error & { statusCode?: number }) => {
      assert.match(err.message, /^Azurite could not list the blobs of container ctl \(500 Internal Server Error\)\. One known cause: a blob whose name holds a character XML cannot carry/);
      assert.equal(err.statusCode, 500);
      return true;
    });
  });

  it('an export of a queue whose message Azurite cannot write (a control character) fails naming the queue and why, instead of leaving the messages from it on out', async () => {
    const emulator = await running({ inMemoryPersistence: true });
    const queue = sdkClients(emulator).queue().getQueueClient('ctl');
    await queue.create();
    // 40 first: the export has read a batch when it meets the failing message.
    for (let i = 0; i < 40; i++) await queue.sendMessage(`job ${i}`);
    // Send Message takes it; Azurite's XML writer then refuses it in every answer that holds it (HTTP 500).
    await queue.sendMessage('a\x01b');
    await assert.rejects(exportSnapshot(dataClients(emulator), tempDir('export-')), (err: Error & { statusCode?: number }) => {
      assert.match(err.message, /^Azurite could not read the messages of queue ctl \(500 Internal Server Error\)\. One known cause: a message that holds a character XML cannot carry/);
      assert.equal(err.statusCode, 500);
      return true;
    });
  });

  it('exports queue messages without copying their content, all visible again', async () => {
    const emulator = await running({ inMemoryPersistence: true });
    const queue = sdkClients(emulator).queue().getQueueClient('jobs');
    await queue.create();
    for (let i = 0; i < 40; i++) await queue.sendMessage(`${i}:`.padEnd(10_000, 'x'));
    const before = (await emulator.memoryReportNow()).usedBytes;
    const counts = await exportSnapshot(dataClients(emulator), tempDir('export-'));
    assert.equal(counts.messages, 40);
    assert.equal((await emulator.memoryReportNow()).usedBytes, before, 'no second copy of any message');
    const seen = (await receiveAll(queue)).map((m) => m.messageText);
    assert.equal(seen.length, 40, 'every message visible again');
    assert.ok(seen.every((t) => t.length === 10_000));
  });

  it('exports a queue that takes longer to read than its messages stay hidden: each message once, all visible again', async () => {
    const emulator = await running({ inMemoryPersistence: true });
    const queue = sdkClients(emulator).queue().getQueueClient('slow');
    await queue.create();
    for (let i = 0; i < 40; i++) await queue.sendMessage(`m${i}`);
    const folder = tempDir('export-');
    let blocked = false;
    const counts = await exportSnapshot(dataClients(emulator), folder, {
      queueVisibilitySeconds: 1,
      progress: (p) => {
        // A slow reader: after the first 32 messages, more than their 1 s of hiding passes before
        // the next receive (blocking this thread; the engine's clock runs on in its own process).
        if (!blocked && p.message.startsWith('Exporting queue')) {
          blocked = true;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_500);
        }
      },
    });
    assert.ok(blocked);
    assert.equal(counts.messages, 40);
    const lines = fs.readFileSync(path.join(folder, 'queue', 'slow.jsonl'), 'utf8').trim().split('\n');
    assert.deepEqual(lines.map((l) => (JSON.parse(l) as { text: string }).text).sort(), Array.from({ length: 40 }, (_, i) => `m${i}`).sort());
    const dequeued = (await receiveAll(queue)).map((m) => m.dequeueCount);
    assert.equal(dequeued.length, 40, 'every message visible again');
    // Received once by the export (kept hidden, not received again) and once here.
    assert.deepEqual([...new Set(dequeued)], [2]);
  });

  it('seeded messages never expire (Azure\'s default would drop them after 7 days)', async () => {
    const emulator = await running();
    const seed = tempDir('seed-ttl-');
    fs.mkdirSync(path.join(seed, 'queue'));
    fs.writeFileSync(path.join(seed, 'queue', 'jobs.jsonl'), '{"text":"one"}\n{"text":"two"}\n');
    await loadSeed(dataClients(emulator), await readSnapshot(seed));
    const peeked = await sdkClients(emulator).queue().getQueueClient('jobs').peekMessages({ numberOfMessages: 2 });
    assert.deepEqual(peeked.peekedMessageItems.map((m) => [m.messageText, m.expiresOn.getUTCFullYear()]), [['one', 9999], ['two', 9999]]);
  });

  it('an export leaves out a blob that a client deletes after the listing, and counts what it wrote', async () => {
    const emulator = await running();
    const docs = sdkClients(emulator).blob().getContainerClient('docs');
    await docs.create();
    for (const name of ['a.txt', 'b.txt', 'c.txt']) await docs.getBlockBlobClient(name).uploadData(Buffer.from(name));
    // The delete lands between the listing and the download of b.txt.
    const deleting: RequestPolicyFactory = {
      create: (next) => ({
        sendRequest: async (request) => {
          if (request.method === 'GET' && request.url.includes('/docs/b.txt')) await docs.getBlobClient('b.txt').delete();
          return next.sendRequest(request);
        },
      }),
    };
    const data = dataClients(emulator);
    const pipeline = newBlobPipeline(new BlobSharedKeyCredential(data.endpoints.accountName, data.endpoints.accountKey));
    pipeline.factories.unshift(deleting);
    const folder = tempDir('export-');
    const counts = await exportSnapshot({ ...data, blob: new BlobServiceClient(data.endpoints.blob!, pipeline) }, folder);
    assert.equal(counts.blobs, 2);
    assert.equal(counts.bytes, 10);
    assert.deepEqual(fs.readdirSync(path.join(folder, 'blob', 'docs')).sort(), ['a.txt', 'c.txt']);
    const entries = path.join(folder, 'blob', 'docs.blobs.jsonl');
    assert.ok(!fs.existsSync(entries) || !fs.readFileSync(entries, 'utf8').includes('b.txt'), 'no entry for the deleted blob');
  });

  it('an export cancelled while a receive is under way leaves every message visible', async () => {
    const emulator = await running({ inMemoryPersistence: true });
    const plain = sdkClients(emulator).queue().getQueueClient('orders');
    await plain.create();
    for (let i = 0; i < 100; i++) await plain.sendMessage(`m${i}`);
    const abort = new AbortController();
    // The cancel arrives after the engine handled the second Get Messages (32 messages hidden)
    // but before the SDK delivered its answer: a request that carries the export's signal then
    // fails with an AbortError, as the SDK fails it when the signal fires during the response.
    let receives = 0;
    const cutOff: RequestPolicyFactory = {
      create: (next) => ({
        sendRequest: async (request) => {
          const response = await next.sendRequest(request);
          if (request.method === 'GET' && /\/orders\/messages(\?|$)/.test(request.url) && ++receives === 2) {
            abort.abort();
            if (request.abortSignal === abort.signal) throw Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' });
          }
          return response;
        },
      }),
    };
    const data = dataClients(emulator);
    const pipeline = newPipeline(new StorageSharedKeyCredential(data.endpoints.accountName, data.endpoints.accountKey));
    pipeline.factories.unshift(cutOff);
    const clients = { ...data, queue: new QueueServiceClient(data.endpoints.queue!, pipeline) };
    await assert.rejects(exportSnapshot(clients, tempDir('export-'), { signal: abort.signal }), { name: 'AbortError' });
    assert.equal(receives, 2);
    assert.equal((await receiveAll(plain)).length, 100, 'every message visible again');
  });

  /**
   * Exports a queue of two messages, the second with one second to live, while the export is held
   * 1.5 s right after it received both: the second runs out meanwhile. With `queueVisibilitySeconds`
   * 1 the export hides them again before its next receive (its re-hiding meets the expired one);
   * without, it shows them again at the end.
   */
  async function exportWithExpiry(queueVisibilitySeconds?: number): Promise<void> {
    const emulator = await running({ inMemoryPersistence: true });
    const queue = sdkClients(emulator).queue().getQueueClient('short');
    await queue.create();
    await queue.sendMessage('lasts');
    await queue.sendMessage('expires', { messageTimeToLive: 1 });
    const folder = tempDir('export-');
    let blocked = false;
    const counts = await exportSnapshot(dataClients(emulator), folder, {
      ...(queueVisibilitySeconds !== undefined ? { queueVisibilitySeconds } : {}),
      progress: (p) => {
        if (!blocked && p.message.startsWith('Exporting queue short')) {
          blocked = true;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_500);
        }
      },
    });
    assert.ok(blocked);
    assert.equal(counts.messages, 1);
    assert.equal(fs.readFileSync(path.join(folder, 'queue', 'short.jsonl'), 'utf8'), '{"text":"lasts"}\n');
    assert.deepEqual((await receiveAll(queue)).map((m) => m.messageText), ['lasts'], 'visible again');
  }

  it('an export leaves out a message whose time-to-live runs out while the export holds it', async () => {
    await exportWithExpiry();
  });

  it('an export leaves out a message whose time-to-live runs out before the export hides it again', async () => {
    await exportWithExpiry(1);
  });

  it('an export writes a message once when a consumer received it and let it go while the export read the queue', async () => {
    const emulator = await running({ inMemoryPersistence: true });
    const plain = sdkClients(emulator).queue().getQueueClient('shared');
    await plain.create();
    await plain.sendMessage('only');
    // Before the export hides the message again, a consumer receives it (its hiding has run out)
    // and makes it visible again: the export's pop receipt is stale, and it receives the message anew.
    let consumed = 0;
    const consumer: RequestPolicyFactory = {
      create: (next) => ({
        sendRequest: async (request) => {
          if (request.method === 'PUT' && /\/shared\/messages\/[^/?]+\?/.test(request.url) && consumed === 0) {
            consumed++;
            const m = (await plain.receiveMessages({ visibilityTimeout: 60 })).receivedMessageItems[0]!;
            assert.equal(m.messageText, 'only');
            await plain.updateMessage(m.messageId, m.popReceipt, undefined, 0);
          }
          return next.sendRequest(request);
        },
      }),
    };
    const data = dataClients(emulator);
    const pipeline = newPipeline(new StorageSharedKeyCredential(data.endpoints.accountName, data.endpoints.accountKey));
    pipeline.factories.unshift(consumer);
    const folder = tempDir('export-');
    let blocked = false;
    const counts = await exportSnapshot({ ...data, queue: new QueueServiceClient(data.endpoints.queue!, pipeline) }, folder, {
      queueVisibilitySeconds: 1,
      progress: (p) => {
        if (!blocked && p.message.startsWith('Exporting queue shared')) {
          blocked = true;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_500);
        }
      },
    });
    assert.equal(consumed, 1);
    assert.equal(counts.messages, 1);
    assert.equal(fs.readFileSync(path.join(folder, 'queue', 'shared.jsonl'), 'utf8'), '{"text":"only"}\n');
    assert.deepEqual((await receiveAll(plain)).map((m) => m.messageText), ['only'], 'visible again');
  });

  it('an import that stops restores a table that the snapshot names in another case', async () => {
    const emulator = await running({ inMemoryPersistence: true, extentMemoryLimit: 1 });
    const c = sdkClients(emulator);
    await c.table('customers').createTable();
    await c.table('customers').createEntity({ partitionKey: 'eu', rowKey: '1', Name: 'Ada' });

    const snap = tempDir('case-');
    fs.mkdirSync(path.join(snap, 'table'), { recursive: true });
    fs.writeFileSync(path.join(snap, 'table', 'Customers.jsonl'), '{"PartitionKey":"eu","RowKey":"2","Name":"Grace"}\n');
    fs.mkdirSync(path.join(snap, 'blob', 'big'), { recursive: true });
    for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(snap, 'blob', 'big', `big${i}.bin`), Buffer.alloc(300 * 1024, 2));
    const snapshot = await readSnapshot(snap);

    const messages: string[] = [];
    await assert.rejects(importSnapshot(dataClients(emulator), snapshot, tempDir('scratch-'), { concurrency: 1, reclaim: () => emulator.reclaimMemory(), progress: (p) => messages.push(`${p.done}/${p.total} ${p.message}`) }),
      /the data found before was restored\.$/);
    assert.deepEqual((await listNames(emulator)).tables, ['customers']);
    const names: string[] = [];
    for await (const e of c.table('customers').listEntities<{ Name: string }>()) names.push(e.Name);
    assert.deepEqual(names, ['Ada']);
  });
});

/** Receives every visible message of `queue` (hiding each for 60 s), in the order the service gives them. */
async function receiveAll(queue: QueueClient): Promise<DequeuedMessageItem[]> {
  const all: DequeuedMessageItem[] = [];
  for (;;) {
    const got = await queue.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 60 });
    if (got.receivedMessageItems.length === 0) return all;
    all.push(...got.receivedMessageItems);
  }
}

/** A seed folder of 5 blobs of 300 KiB in container "big": past a 1 MiB limit at its fourth blob. */
function tooBigSeed(): string {
  const seed = tempDir('seed-too-big-');
  fs.mkdirSync(path.join(seed, 'blob', 'big'), { recursive: true });
  for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(seed, 'blob', 'big', `big${i}.bin`), Buffer.alloc(300 * 1024, 2));
  return seed;
}

async function listNames(emulator: Emulator): Promise<{ containers: string[]; queues: string[]; tables: string[] }> {
  const c = sdkClients(emulator);
  const containers: string[] = [];
  for await (const x of c.blob().listContainers()) containers.push(x.name);
  const queues: string[] = [];
  for await (const x of QueueServiceClient.fromConnectionString(c.connectionString).listQueues()) queues.push(x.name);
  const tables: string[] = [];
  for await (const x of TableServiceClient.fromConnectionString(c.connectionString, { allowInsecureConnection: true }).listTables()) tables.push(x.name!);
  return { containers, queues, tables };
}

/** The names of the blobs in `container`, in listing order. */
async function blobNamesOf(emulator: Emulator, container: string): Promise<string[]> {
  const names: string[] = [];
  for await (const b of sdkClients(emulator).blob().getContainerClient(container).listBlobsFlat()) names.push(b.name);
  return names;
}

describe('swapIn: an export replaces the services\' folders all or nothing', () => {
  /** An export folder whose blob/, queue/ and table/ each hold `which.txt` = "old", and a staging folder with the new ones. */
  function folders(withOld: boolean): { folder: string; staging: string } {
    const folder = tempDir('swap-');
    const staging = fs.mkdtempSync(path.join(folder, '.export-'));
    for (const kind of SERVICE_KINDS) {
      if (withOld) {
        fs.mkdirSync(path.join(folder, kind));
        fs.writeFileSync(path.join(folder, kind, 'which.txt'), 'old');
      }
      fs.mkdirSync(path.join(staging, kind));
      fs.writeFileSync(path.join(staging, kind, 'which.txt'), 'new');
    }
    return { folder, staging };
  }
  const which = (dir: string, kind: string): string | undefined => {
    const file = path.join(dir, kind, 'which.txt');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  };
  /** fs.promises.rename, except for the moves `fails` picks. */
  const failing = (fails: (from: string, to: string) => boolean) => async (from: string, to: string): Promise<void> => {
    if (fails(from, to)) throw Object.assign(new Error(`EPERM: operation not permitted, rename '${from}' -> '${to}'`), { code: 'EPERM' });
    await fs.promises.rename(from, to);
  };

  it('moves every service\'s new folder in and the old ones aside', async () => {
    const { folder, staging } = folders(true);
    await swapIn(folder, staging, SERVICE_KINDS);
    for (const kind of SERVICE_KINDS) {
      assert.equal(which(folder, kind), 'new');
      assert.equal(which(staging, `${kind}.old`), 'old');
    }
  });

  it('a move that fails puts back the folders already moved: the previous export of every service', async () => {
    const { folder, staging } = folders(true);
    const newQueue = path.join(staging, 'queue');
    await assert.rejects(swapIn(folder, staging, SERVICE_KINDS, failing((from) => from === newQueue)), { code: 'EPERM' });
    for (const kind of SERVICE_KINDS) {
      assert.equal(which(folder, kind), 'old', `${kind}/ is the previous export's`);
      assert.equal(which(staging, kind), 'new');
    }
  });

  it('without a previous export, a failed move leaves none of the new folders', async () => {
    const { folder, staging } = folders(false);
    const intoTable = path.join(folder, 'table');
    await assert.rejects(swapIn(folder, staging, SERVICE_KINDS, failing((_from, to) => to === intoTable)), { code: 'EPERM' });
    for (const kind of SERVICE_KINDS) assert.equal(fs.existsSync(path.join(folder, kind)), false, `${kind}/ is not there`);
  });

  it('a rollback that cannot put a folder back says where the previous one is', async () => {
    const { folder, staging } = folders(true);
    const newQueue = path.join(staging, 'queue');
    const blobBack = path.join(folder, 'blob');
    const blobOld = path.join(staging, 'blob.old');
    await assert.rejects(
      swapIn(folder, staging, SERVICE_KINDS, failing((from, to) => from === newQueue || (from === blobOld && to === blobBack))),
      (err: Error) => err instanceof SwapRollbackError && err.message.startsWith('EPERM')
        && err.message.endsWith(`the previous export could not be put back in full (the previous blob/ is ${blobOld}): move the folders by hand`),
    );
    assert.equal(which(staging, 'blob.old'), 'old', 'the previous blob/ is where the message says');
    assert.equal(which(folder, 'queue'), 'old');
  });

  it('a rollback that cannot move a new folder back out says which folder holds the new export', async () => {
    const { folder, staging } = folders(false);
    const intoTable = path.join(folder, 'table');
    const blobIn = path.join(folder, 'blob');
    await assert.rejects(
      swapIn(folder, staging, SERVICE_KINDS, failing((from, to) => to === intoTable || from === blobIn)),
      (err: Error) => err instanceof SwapRollbackError && err.message.endsWith(`(${blobIn} holds the new export): move the folders by hand`),
    );
    assert.equal(which(folder, 'blob'), 'new');
    assert.equal(fs.existsSync(path.join(folder, 'queue')), false, 'queue/ went back');
  });
});

describe('describeCounts', () => {
  const counts = { containers: 2, blobs: 1200, bytes: 3 * 1024 * 1024, queues: 1, messages: 40, tables: 1, entities: 1 };
  it('gives each service\'s counts in order, only for the services asked for', () => {
    assert.equal(describeCounts(counts), '2 containers (1,200 blobs, 3.0 MB), 1 queue (40 messages), 1 table (1 entity)');
    assert.equal(describeCounts(counts, ['queue']), '1 queue (40 messages)');
    assert.equal(describeCounts(counts, ['table', 'blob']), '2 containers (1,200 blobs, 3.0 MB), 1 table (1 entity)');
    assert.equal(describeCounts({ ...counts, bytes: 512 }, ['blob']), '2 containers (1,200 blobs, 0.5 KB)');
  });
});
