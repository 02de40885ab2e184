/**
 * The Storage view in the real VS Code: its items after SDK writes (refreshed by the engine's change
 * events, no Refresh), in-memory bytes per container and queue, paging, opening a blob and an
 * entity, save, upload, and delete.
 */
import * as assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { TableClient } from '@azure/data-tables';
import { api, configure, reset, waitFor } from './helpers';
import type { StorageTreeSnapshot } from '../../src/ui/storageView';

/** The node with this id in a snapshot, searched depth-first. */
function find(tree: readonly StorageTreeSnapshot[] | undefined, id: string): StorageTreeSnapshot | undefined {
  for (const node of tree ?? []) {
    if (node.id === id) return node;
    const inner = find(node.children, id);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

const ACCOUNT = 'devstoreaccount1';

describe('Storage view', () => {
  before(async () => {
    await reset();
  });
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await reset();
  });

  it('is empty while nothing runs, then shows what SDK clients write, with bytes per container and queue', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    assert.deepEqual(await a.storageTree(), [], 'nothing runs: the welcome view shows');
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start'), [{ ok: true }, { ok: true }, { ok: true }]);
    const tree = await waitFor('three services', async () => {
      const t = await a.storageTree();
      return t.length === 3 ? t : undefined;
    });
    assert.deepEqual(tree.map((n) => n.label), ['Blob Containers', 'Queues', 'Tables']);

    const cs = a.emulator.connectionString();
    const docs = BlobServiceClient.fromConnectionString(cs).getContainerClient('docs');
    await docs.create();
    await docs.getBlockBlobClient('readme.txt').uploadData(Buffer.from('hello storage view\n'), { blobHTTPHeaders: { blobContentType: 'text/plain' } });
    await docs.getBlockBlobClient('img/pixel.bin').uploadData(Buffer.alloc(3000, 1));
    const jobs = QueueServiceClient.fromConnectionString(cs).getQueueClient('jobs');
    await jobs.create();
    await jobs.sendMessage('first job');
    await jobs.sendMessage('second job');
    const people = TableClient.fromConnectionString(cs, 'people', { allowInsecureConnection: true });
    await people.createTable();
    // An Int64 property reaches the view as a bigint, which JSON.stringify refuses.
    await people.createEntity({ partitionKey: 'p', rowKey: '1', name: 'Ada', born: { value: '9007199254740993', type: 'Int64' } });

    // No Refresh: the engine's change events mark the listings stale.
    const after = await waitFor('the written items', async () => {
      const t = await a.storageTree();
      return find(t, `${ACCOUNT}/blob/docs/img/pixel.bin`) !== undefined && find(t, `${ACCOUNT}/table/people/p\u00001`) !== undefined ? t : undefined;
    });
    // The engine's figures are read at most every 2 s while clients write: they follow within that.
    const figures = await waitFor('the container\'s and the queue\'s figures', async () => {
      const t = await a.storageTree();
      const c = find(t, `${ACCOUNT}/blob/docs`);
      const q = find(t, `${ACCOUNT}/queue/jobs`);
      return c !== undefined && q !== undefined && c.description === '2.9 KB' && /^2 messages · \d+ B$/.test(q.description ?? '') ? { c, q } : undefined;
    });
    assert.equal(figures.c.contextValue, 'azurite.container');
    const readme = find(after, `${ACCOUNT}/blob/docs/readme.txt`)!;
    assert.match(readme.description ?? '', /^19 B · text\/plain · /);
    assert.equal(find(after, `${ACCOUNT}/blob/docs/img/`)?.label, 'img');
    assert.deepEqual(figures.q.children?.map((m) => m.label), ['first job', 'second job']);
    assert.equal((await jobs.peekMessages()).peekedMessageItems[0]?.dequeueCount, 0, 'the view only peeks');
    assert.equal(find(after, `${ACCOUNT}/table/people/p\u00001`)?.label, 'p · 1');

    // A delete by another client disappears too.
    await docs.getBlobClient('img/pixel.bin').delete();
    await waitFor('the deleted blob gone', async () => (find(await a.storageTree(), `${ACCOUNT}/blob/docs/img/`) === undefined ? true : undefined));
  });

  it('opens a blob read-only and an entity as JSON, saves and uploads a blob, and deletes', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start');
    const cs = a.emulator.connectionString();
    const docs = BlobServiceClient.fromConnectionString(cs).getContainerClient('docs');
    await docs.create();
    await docs.getBlockBlobClient('notes/today.md').uploadData(Buffer.from('# Today\n'), { blobHTTPHeaders: { blobContentType: 'text/markdown' } });
    const people = TableClient.fromConnectionString(cs, 'people', { allowInsecureConnection: true });
    await people.createTable();
    // An Int64 property reaches the view as a bigint, which JSON.stringify refuses; a Binary as a
    // Uint8Array and a Guid as { value, type }, which it garbles.
    await people.createEntity({
      partitionKey: 'p', rowKey: '1', name: 'Ada', born: { value: '9007199254740993', type: 'Int64' },
      id: { value: 'c9da6455-213d-42c9-9a79-3e9149a57833', type: 'Guid' }, avatar: new Uint8Array([1, 2, 3]),
      // Properties of its own named like the SDK's { value, type }: the entity stays an entity.
      type: 'order', value: 42,
      // .NET's seven digits of fractions (a JavaScript Date keeps three), and a Double JSON has no number for.
      seen: { value: '2024-01-02T03:04:05.1234567Z', type: 'DateTime' }, score: { value: 'NaN', type: 'Double' },
    });
    const blobId = `${ACCOUNT}/blob/docs/notes/today.md`;
    await waitFor('the blob in the tree', async () => find(await a.storageTree(), blobId));

    await vscode.commands.executeCommand('azurite.storage.open', a.storageNode(blobId));
    const editor = await waitFor('the blob editor', () => vscode.window.activeTextEditor);
    assert.equal(editor.document.uri.scheme, 'azurite-blob');
    assert.equal(editor.document.getText(), '# Today\n');
    assert.equal(editor.document.languageId, 'markdown');
    // Read-only: the file system is registered as such, so VS Code offers no save.
    assert.equal(vscode.workspace.fs.isWritableFileSystem('azurite-blob'), false);
    await assert.rejects(Promise.resolve(vscode.workspace.fs.writeFile(editor.document.uri, Buffer.from('x'))));
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    // A change by a client reaches the open document (the file system's change event).
    await docs.getBlockBlobClient('notes/today.md').uploadData(Buffer.from('# Today, changed\n'));
    await vscode.commands.executeCommand('azurite.storage.open', a.storageNode(blobId));
    await waitFor('the new content', () => (vscode.window.activeTextEditor?.document.getText() === '# Today, changed\n' ? true : undefined));
    // VS Code watches a blob outside the workspace only while its editor shows: one changed while its
    // tab was hidden behind another (the view has seen the change) shows the change once shown again.
    const blobDoc = vscode.window.activeTextEditor!.document;
    await vscode.window.showTextDocument(blobDoc, { preview: false });
    const otherFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'storage-view-tab-')), 'other.txt');
    fs.writeFileSync(otherFile, 'another tab');
    await vscode.window.showTextDocument(vscode.Uri.file(otherFile), { preview: false });
    await docs.getBlockBlobClient('notes/today.md').uploadData(Buffer.from('# Today, changed while hidden\n'));
    await waitFor('the change in the tree', async () => (find(await a.storageTree(), blobId)?.description?.startsWith('30 B') ? true : undefined));
    await vscode.window.showTextDocument(blobDoc, { preview: false });
    await waitFor('the hidden blob\'s new content', () => (blobDoc.getText() === '# Today, changed while hidden\n' ? true : undefined));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(path.dirname(otherFile), { recursive: true, force: true });

    await vscode.commands.executeCommand('azurite.storage.open', a.storageNode(`${ACCOUNT}/table/people/p\u00001`));
    const entity = await waitFor('the entity JSON', () => (vscode.window.activeTextEditor?.document.uri.scheme === 'azurite-item' ? vscode.window.activeTextEditor.document : undefined));
    assert.equal((JSON.parse(entity.getText()) as { name: string }).name, 'Ada');
    assert.equal((JSON.parse(entity.getText()) as { born: string }).born, '9007199254740993');
    assert.equal((JSON.parse(entity.getText()) as { id: string }).id, 'c9da6455-213d-42c9-9a79-3e9149a57833');
    assert.equal((JSON.parse(entity.getText()) as { avatar: string }).avatar, 'AQID');
    assert.deepEqual([(JSON.parse(entity.getText()) as { type: string }).type, (JSON.parse(entity.getText()) as { value: number }).value], ['order', 42]);
    // The Table service's JSON: what JSON cannot tell apart says its type, and keeps every digit.
    const document = JSON.parse(entity.getText()) as Record<string, unknown>;
    assert.deepEqual([document.seen, document['seen@odata.type'], document.score, document['score@odata.type'], document['born@odata.type']],
      ['2024-01-02T03:04:05.1234567Z', 'Edm.DateTime', 'NaN', 'Edm.Double', 'Edm.Int64']);
    assert.deepEqual(Object.keys(document).slice(0, 3), ['PartitionKey', 'RowKey', 'Timestamp']);
    assert.equal(find(await a.storageTree(), `${ACCOUNT}/table/people/p\u00001`)?.description,
      'name: Ada, born: 9007199254740993, id: c9da6455-213d-42c9-9a79-3e9149a57833, avatar: AQID');
    await vscode.commands.executeCommand('azurite.storage.open', a.storageNode(`${ACCOUNT}/table/people`));
    const page = await waitFor('the table\'s page as JSON', () => (vscode.window.activeTextEditor?.document.uri.path.endsWith('/people.json') ? vscode.window.activeTextEditor.document : undefined));
    assert.deepEqual((JSON.parse(page.getText()) as { RowKey: string }[]).map((e) => e.RowKey), ['1']);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-view-'));
    try {
      const saved = await vscode.commands.executeCommand<string>('azurite.storage.save', a.storageNode(blobId), { file: path.join(dir, 'today.md') });
      assert.equal(fs.readFileSync(saved, 'utf8'), '# Today, changed while hidden\n');
      fs.writeFileSync(path.join(dir, 'data.json'), '{"a":1}');
      const uploaded = await vscode.commands.executeCommand<string[]>('azurite.storage.upload', a.storageNode(`${ACCOUNT}/blob/docs/notes/`), { files: [path.join(dir, 'data.json')] });
      assert.deepEqual(uploaded, ['notes/data.json']);
      assert.equal((await docs.getBlobClient('notes/data.json').getProperties()).contentType, 'application/json');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }

    // Delete two selected blobs at once, then the container.
    await waitFor('the uploaded blob in the tree', async () => find(await a.storageTree(), `${ACCOUNT}/blob/docs/notes/data.json`));
    const selected = [a.storageNode(blobId), a.storageNode(`${ACCOUNT}/blob/docs/notes/data.json`)];
    assert.equal(await vscode.commands.executeCommand('azurite.storage.delete', selected[0], selected, { skipConfirmation: true }), 2);
    assert.deepEqual(await waitFor('an empty container', async () => {
      const docsNode = find(await a.storageTree(), `${ACCOUNT}/blob/docs`);
      return docsNode?.children?.length === 0 ? docsNode.children : undefined;
    }), []);
    // A container selected with a blob in it: the blob goes with the container, not in a delete of its own that fails.
    await docs.getBlockBlobClient('left.txt').uploadData(Buffer.from('left'));
    await waitFor('the blob left in the tree', async () => find(await a.storageTree(), `${ACCOUNT}/blob/docs/left.txt`));
    const shown = a.notifications().length;
    const both = [a.storageNode(`${ACCOUNT}/blob/docs`), a.storageNode(`${ACCOUNT}/blob/docs/left.txt`)];
    assert.equal(await vscode.commands.executeCommand('azurite.storage.delete', both[1], both, { skipConfirmation: true }), 1);
    assert.deepEqual(a.notifications().slice(shown), []);
    assert.equal(await docs.exists(), false);
  });

  it('Upload Files… skips the files whose blob exists when told to, and replaces them when told to', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_blob');
    const box = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('box');
    await box.create();
    await box.getBlockBlobClient('kept.txt').uploadData(Buffer.from('already there'));
    await waitFor('the container', async () => find(await a.storageTree(), `${ACCOUNT}/blob/box`));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-skip-'));
    try {
      fs.writeFileSync(path.join(dir, 'kept.txt'), 'from the disk');
      fs.writeFileSync(path.join(dir, 'new.txt'), 'new');
      const files = [path.join(dir, 'kept.txt'), path.join(dir, 'new.txt')];
      const skipped = await vscode.commands.executeCommand<string[]>('azurite.storage.upload', a.storageNode(`${ACCOUNT}/blob/box`), { files, existing: 'skip' });
      assert.deepEqual(skipped, ['new.txt']);
      assert.equal((await box.getBlobClient('kept.txt').downloadToBuffer()).toString(), 'already there');
      assert.equal((await box.getBlobClient('new.txt').downloadToBuffer()).toString(), 'new');

      fs.writeFileSync(path.join(dir, 'new.txt'), 'newer');
      const replaced = await vscode.commands.executeCommand<string[]>('azurite.storage.upload', a.storageNode(`${ACCOUNT}/blob/box`), { files, existing: 'replace' });
      assert.deepEqual(replaced, ['kept.txt', 'new.txt']);
      assert.equal((await box.getBlobClient('kept.txt').downloadToBuffer()).toString(), 'from the disk');
      assert.equal((await box.getBlobClient('new.txt').downloadToBuffer()).toString(), 'newer');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Upload refuses a file whose name Azurite would store but could not list again (a control character), uploading nothing', async function () {
    if (process.platform === 'win32') this.skip(); // no such file name there
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_blob');
    const box = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('unlistable');
    await box.createIfNotExists();
    await waitFor('the container', async () => find(await a.storageTree(), `${ACCOUNT}/blob/unlistable`));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-unlistable-'));
    try {
      fs.writeFileSync(path.join(dir, 'fine.txt'), 'fine');
      fs.writeFileSync(path.join(dir, 'bad\u0001name.txt'), 'bad');
      const shown = a.notifications().length;
      const uploaded = await vscode.commands.executeCommand<string[]>('azurite.storage.upload', a.storageNode(`${ACCOUNT}/blob/unlistable`), { files: [path.join(dir, 'fine.txt'), path.join(dir, 'bad\u0001name.txt')], existing: 'replace' });
      assert.deepEqual(uploaded, []);
      assert.ok(a.notifications().slice(shown).includes('Azurite: nothing was uploaded: blob "bad\\u0001name.txt" holds U+0001, which Azurite stores but cannot write back (XML 1.0 has no such character): no client could list its container after it. Rename that file first.'), a.notifications().slice(shown).join('\n'));
      // The container still lists.
      const names: string[] = [];
      for await (const b of box.listBlobsFlat()) names.push(b.name);
      assert.deepEqual(names, []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Save Blob As… with several blobs selected saves each into one folder, skipping or replacing files that exist as told, and refuses two of one file name', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_blob');
    const box = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('saves');
    await box.create();
    for (const [name, text] of [['one.txt', '1'], ['a/two.txt', '2'], ['b/two.txt', 'other 2'], ['b/three.txt', '3']]) await box.getBlockBlobClient(name!).uploadData(Buffer.from(text!));
    await waitFor('the blobs in the tree', async () => {
      const tree = await a.storageTree(4);
      return ['one.txt', 'a/two.txt', 'b/two.txt', 'b/three.txt'].every((n) => find(tree, `${ACCOUNT}/blob/saves/${n}`) !== undefined) || undefined;
    });
    const node = (name: string) => a.storageNode(`${ACCOUNT}/blob/saves/${name}`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-save-many-'));
    try {
      const selected = [node('one.txt'), node('a/two.txt'), node('b/three.txt')];
      assert.deepEqual(await vscode.commands.executeCommand('azurite.storage.save', selected[0], selected, { folder: dir }), ['one.txt', 'two.txt', 'three.txt'].map((f) => path.join(dir, f)));
      assert.deepEqual(['one.txt', 'two.txt', 'three.txt'].map((f) => fs.readFileSync(path.join(dir, f), 'utf8')), ['1', '2', '3']);
      // A file that exists is kept when told to skip, replaced when told to replace.
      fs.writeFileSync(path.join(dir, 'two.txt'), 'mine');
      fs.rmSync(path.join(dir, 'three.txt'));
      assert.deepEqual(await vscode.commands.executeCommand('azurite.storage.save', selected[0], selected.slice(1), { folder: dir, existing: 'skip' }), [path.join(dir, 'three.txt')]);
      assert.equal(fs.readFileSync(path.join(dir, 'two.txt'), 'utf8'), 'mine');
      assert.deepEqual(await vscode.commands.executeCommand('azurite.storage.save', selected[1], selected.slice(1), { folder: dir, existing: 'replace' }), ['two.txt', 'three.txt'].map((f) => path.join(dir, f)));
      assert.equal(fs.readFileSync(path.join(dir, 'two.txt'), 'utf8'), '2');
      // Two blobs that would be one file: nothing saved, and the error says which name.
      const shown = a.notifications().length;
      const clash = [node('a/two.txt'), node('b/two.txt')];
      assert.deepEqual(await vscode.commands.executeCommand('azurite.storage.save', clash[0], clash, { folder: dir, existing: 'replace' }), []);
      assert.deepEqual(a.notifications().slice(shown), [`Azurite: nothing was saved: two of the blobs would both become file "two.txt" in ${dir}. Save them one at a time.`]);
      assert.equal(fs.readFileSync(path.join(dir, 'two.txt'), 'utf8'), '2');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uploads files and folders dropped on a folder, and opens an image in VS Code\'s image preview', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_blob');
    const pics = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('pics');
    await pics.create();
    await pics.getBlockBlobClient('old/keep.txt').uploadData(Buffer.from('x'));
    await waitFor('the folder', async () => find(await a.storageTree(), `${ACCOUNT}/blob/pics/old/`));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-drop-'));
    try {
      // A 1×1 PNG.
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
      fs.writeFileSync(path.join(dir, 'dot.png'), png);
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'dropped');
      fs.mkdirSync(path.join(dir, 'album', 'inner'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'album', 'inner', 'deep.txt'), 'in a dropped folder');
      const transfer = new vscode.DataTransfer();
      const dropped = ['dot.png', 'notes.txt', 'album'].map((f) => vscode.Uri.file(path.join(dir, f)).toString());
      transfer.set('text/uri-list', new vscode.DataTransferItem(dropped.join('\r\n')));
      await a.storageDrop(`${ACCOUNT}/blob/pics/old/`, transfer);
      assert.equal((await pics.getBlobClient('old/dot.png').getProperties()).contentType, 'image/png');
      assert.equal((await pics.getBlobClient('old/notes.txt').downloadToBuffer()).toString(), 'dropped');
      assert.equal((await pics.getBlobClient('old/album/inner/deep.txt').downloadToBuffer()).toString(), 'in a dropped folder', 'a folder brings its files');

      // Two files of one name from different folders: nothing is uploaded, and the message says why.
      fs.mkdirSync(path.join(dir, 'other'));
      fs.writeFileSync(path.join(dir, 'other', 'notes.txt'), 'the other notes');
      const before = a.notifications().length;
      const clash = new vscode.DataTransfer();
      clash.set('text/uri-list', new vscode.DataTransferItem([path.join(dir, 'notes.txt'), path.join(dir, 'other', 'notes.txt')].map((f) => vscode.Uri.file(f).toString()).join('\r\n')));
      await a.storageDrop(`${ACCOUNT}/blob/pics/old/`, clash);
      assert.deepEqual(a.notifications().slice(before), ['Azurite: nothing was uploaded: two of the files would both become blob "old/notes.txt" in container pics. Upload them one at a time, or as the folders that hold them.']);
      assert.equal((await pics.getBlobClient('old/notes.txt').downloadToBuffer()).toString(), 'dropped');

      // The view's own blobs dragged onto a folder (VS Code gives their azurite-blob: URIs): not read
      // back and uploaded again, which would make an append blob a block blob, its metadata lost.
      const log = pics.getAppendBlobClient('log.txt');
      await log.create({ metadata: { kept: 'yes' } });
      await log.appendBlock('line\n', 5);
      const own = new vscode.DataTransfer();
      own.set('application/vnd.code.tree.azurite.storage', new vscode.DataTransferItem([{ id: `${ACCOUNT}/blob/pics/log.txt` }]));
      own.set('text/uri-list', new vscode.DataTransferItem(vscode.Uri.from({ scheme: 'azurite-blob', path: `/${ACCOUNT}/pics/log.txt` }).toString()));
      const beforeOwn = a.notifications().length;
      await a.storageDrop(`${ACCOUNT}/blob/pics/old/`, own);
      assert.deepEqual(a.notifications().slice(beforeOwn), ['Azurite: blobs cannot be moved or copied within the Storage view; nothing was uploaded. Drop files from the Explorer or the desktop to upload them.']);
      assert.equal(await pics.getBlobClient('old/log.txt').exists(), false, 'no copy');
      const props = await log.getProperties();
      assert.equal(props.blobType, 'AppendBlob');
      assert.deepEqual(props.metadata, { kept: 'yes' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const dotId = `${ACCOUNT}/blob/pics/old/dot.png`;
    await waitFor('the dropped image in the tree', async () => find(await a.storageTree(), dotId));
    await vscode.commands.executeCommand('azurite.storage.open', a.storageNode(dotId));
    const tab = await waitFor('the image preview', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputCustom ? input : undefined;
    });
    assert.equal(tab.viewType, 'imagePreview.previewEditor');
    assert.equal(tab.uri.scheme, 'azurite-blob');
  });

  it('uploads a folder dropped from a file system other than the local disk (a remote window\'s Explorer), and says when a drop cannot be read', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_blob');
    const remote = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('remote');
    await remote.create();
    await waitFor('the container', async () => find(await a.storageTree(), `${ACCOUNT}/blob/remote`));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-drop-remote-'));
    // A file system under another scheme, as vscode-remote: is in a remote window: the local disk behind it.
    const disk = (uri: vscode.Uri): string => path.join(dir, ...uri.path.split('/').filter(Boolean));
    const provider: vscode.FileSystemProvider = {
      onDidChangeFile: new vscode.EventEmitter<vscode.FileChangeEvent[]>().event,
      watch: () => new vscode.Disposable(() => undefined),
      stat: (uri) => {
        if (!fs.existsSync(disk(uri))) throw vscode.FileSystemError.FileNotFound(uri);
        const s = fs.statSync(disk(uri));
        return { type: s.isDirectory() ? vscode.FileType.Directory : vscode.FileType.File, ctime: s.ctimeMs, mtime: s.mtimeMs, size: s.size };
      },
      readDirectory: (uri) => fs.readdirSync(disk(uri), { withFileTypes: true }).map((e) => [e.name, e.isDirectory() ? vscode.FileType.Directory : vscode.FileType.File]),
      readFile: (uri) => fs.readFileSync(disk(uri)),
      createDirectory: () => undefined, writeFile: () => undefined, delete: () => undefined, rename: () => undefined,
    };
    const registration = vscode.workspace.registerFileSystemProvider('storage-test-remote', provider, { isReadonly: true });
    try {
      fs.mkdirSync(path.join(dir, 'project', 'src'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'project', 'readme.md'), '# remote');
      fs.writeFileSync(path.join(dir, 'project', 'src', 'main.ts'), 'export {};');
      const transfer = new vscode.DataTransfer();
      transfer.set('text/uri-list', new vscode.DataTransferItem('storage-test-remote:/project'));
      await a.storageDrop(`${ACCOUNT}/blob/remote`, transfer);
      assert.equal((await remote.getBlobClient('project/readme.md').downloadToBuffer()).toString(), '# remote');
      assert.equal((await remote.getBlobClient('project/src/main.ts').downloadToBuffer()).toString(), 'export {};');

      const before = a.notifications().length;
      const missing = new vscode.DataTransfer();
      missing.set('text/uri-list', new vscode.DataTransferItem('storage-test-remote:/no-such-folder'));
      await a.storageDrop(`${ACCOUNT}/blob/remote`, missing);
      const shown = a.notifications().slice(before);
      assert.equal(shown.length, 1, shown.join('\n'));
      assert.match(shown[0]!, /^Azurite: the dropped files could not be read, nothing was uploaded: .*no-such-folder/);

      // Files dropped from the desktop into a remote window: file: URIs of the desktop's disk, which
      // this side does not have, and the files' content in the transfer, which is uploaded.
      const desktop = new vscode.DataTransfer();
      desktop.set('text/uri-list', new vscode.DataTransferItem(vscode.Uri.file(path.join(dir, 'on-the-desktop', 'photo.txt')).toString()));
      const content = Buffer.from('dropped from the desktop');
      desktop.set('files', new (class extends vscode.DataTransferItem {
        override asFile(): vscode.DataTransferFile {
          return { name: 'photo.txt', uri: undefined, data: async () => new Uint8Array(content) };
        }
      })(''));
      const beforeDesktop = a.notifications().length;
      await a.storageDrop(`${ACCOUNT}/blob/remote`, desktop);
      assert.deepEqual(a.notifications().slice(beforeDesktop).filter((m) => m.includes('could not be read')), []);
      assert.equal((await remote.getBlobClient('photo.txt').downloadToBuffer()).toString(), 'dropped from the desktop');
    } finally {
      registration.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says that messages a consumer holds are not visible now, instead of "the first 1 of about 3"', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_queue');
    const work = QueueServiceClient.fromConnectionString(a.emulator.connectionString()).getQueueClient('held');
    await work.create();
    for (const text of ['one', 'two', 'three']) await work.sendMessage(text);
    await work.receiveMessages({ numberOfMessages: 2, visibilityTimeout: 300 });
    const queue = await waitFor('the queue with one visible message', async () => {
      const q = find(await a.storageTree(), `${ACCOUNT}/queue/held`);
      return q?.children?.length === 2 ? q : undefined;
    });
    assert.deepEqual(queue.children!.map((c) => c.label), ['three', 'About 2 more messages not visible now (received by a consumer, or sent with a delay)']);
    await vscode.commands.executeCommand('azurite.close_queue');
  });

  it('shows a blob named like a folder ("marker/") inside that folder as an item of its own', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_blob');
    const marked = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('marked');
    await marked.create();
    await marked.getBlockBlobClient('logs/').uploadData(Buffer.alloc(0));
    await marked.getBlockBlobClient('logs/today.txt').uploadData(Buffer.from('x'));
    const folder = await waitFor('the folder with its children', async () => {
      const f = find(await a.storageTree(4), `${ACCOUNT}/blob/marked/logs/`);
      return f?.children?.length === 2 ? f : undefined;
    });
    const ids = folder.children!.map((c) => c.id);
    assert.equal(new Set([folder.id, ...ids]).size, 3, `ids of their own: ${JSON.stringify([folder.id, ...ids])}`);
    assert.deepEqual(folder.children!.map((c) => c.label).sort(), ['logs/', 'today.txt']);
  });

  it('shows, opens and deletes a blob named with a carriage return, beside one literally named "&#xD;"', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_blob');
    const cr = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('crnames');
    await cr.create();
    // The service lists a CR as `&#xD;` and a literal "&#xD;" as `&amp;#xD;`; the SDK decodes neither reference.
    await cr.getBlockBlobClient('x\ry.txt').uploadData(Buffer.from('a carriage return'));
    await cr.getBlockBlobClient('x&#xD;y.txt').uploadData(Buffer.from('a literal reference'));
    const crId = `${ACCOUNT}/blob/crnames/x\ry.txt`;
    const literalId = `${ACCOUNT}/blob/crnames/x&#xD;y.txt`;
    const container = await waitFor('both blobs in the tree', async () => {
      const c = find(await a.storageTree(), `${ACCOUNT}/blob/crnames`);
      return c?.children?.length === 2 ? c : undefined;
    });
    assert.deepEqual(container.children!.map((c) => [c.id, c.label]), [[crId, 'x␍y.txt'], [literalId, 'x&#xD;y.txt']]);

    await vscode.commands.executeCommand('azurite.storage.open', a.storageNode(crId));
    const editor = await waitFor('the blob editor', () => (vscode.window.activeTextEditor?.document.uri.scheme === 'azurite-blob' ? vscode.window.activeTextEditor : undefined));
    assert.equal(editor.document.getText(), 'a carriage return');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');

    assert.equal(await vscode.commands.executeCommand('azurite.storage.delete', a.storageNode(crId), undefined, { skipConfirmation: true }), 1);
    assert.equal(await cr.getBlobClient('x\ry.txt').exists(), false);
    assert.equal((await cr.getBlobClient('x&#xD;y.txt').downloadToBuffer()).toString(), 'a literal reference');
    await waitFor('only the literal name left in the tree', async () => {
      const c = find(await a.storageTree(), `${ACCOUNT}/blob/crnames`);
      return c?.children?.length === 1 && c.children[0]!.id === literalId ? true : undefined;
    });
  });

  it('a delete or an Open whose service stopped after the item was shown says why in a notification, and the view reloads', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_blob');
    await BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('gone-soon').create();
    await waitFor('the container in the view', async () => find(await a.storageTree(2), `${ACCOUNT}/blob/gone-soon`));
    const node = a.storageNode(`${ACCOUNT}/blob/gone-soon`);
    await vscode.commands.executeCommand('azurite.close_blob');
    const shown = a.notifications().length;
    assert.equal(await vscode.commands.executeCommand('azurite.storage.delete', node, undefined, { skipConfirmation: true }), 0);
    assert.deepEqual(a.notifications().slice(shown), ['Azurite: a delete failed: No running service serves account devstoreaccount1.']);
    assert.equal(find(await a.storageTree(2), `${ACCOUNT}/blob/gone-soon`), undefined);

    // Open on a table (its entities as JSON) says why too, instead of VS Code's "command failed".
    await vscode.commands.executeCommand('azurite.start_table');
    await TableClient.fromConnectionString(a.emulator.connectionString(), 'gonesoon', { allowInsecureConnection: true }).createTable();
    await waitFor('the table in the view', async () => find(await a.storageTree(2), `${ACCOUNT}/table/gonesoon`));
    const table = a.storageNode(`${ACCOUNT}/table/gonesoon`);
    await vscode.commands.executeCommand('azurite.close_table');
    const before = a.notifications().length;
    await vscode.commands.executeCommand('azurite.storage.open', table);
    assert.deepEqual(a.notifications().slice(before), ['Azurite: table gonesoon could not be read: No running service serves account devstoreaccount1.']);
  });

  it('a service that takes connections but never answers (its Azurite paused) gets an error note in 30 s, not a view that never loads', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    this.timeout(120_000);
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_table');
    await TableClient.fromConnectionString(a.emulator.connectionString(), 'paused', { allowInsecureConnection: true }).createTable();
    await waitFor('the table in the view', async () => find(await a.storageTree(2), `${ACCOUNT}/table/paused`));
    const pid = a.emulator.enginePid!;
    process.kill(pid, 'SIGSTOP');
    try {
      await vscode.commands.executeCommand('azurite.storage.refresh');
      const tree = await a.storageTree(2);
      assert.equal(find(tree, `${ACCOUNT}/table/error`)?.label, 'the Table service did not answer within 30 s (is that Azurite paused, or busy?); Refresh to try again');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await vscode.commands.executeCommand('azurite.storage.refresh');
    assert.ok(find(await a.storageTree(2), `${ACCOUNT}/table/paused`), 'listed again once it answers');
    await vscode.commands.executeCommand('azurite.close_table');
  });

  it('shows a top-level blob named "…more" beside the Load more… of its container, each with an id of its own', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_blob');
    const odd = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('odd');
    await odd.create();
    // "…more" (U+2026) first in order, then 250 names that sort after it: a first page and a Load more….
    const names = ['\u2026more', ...Array.from({ length: 250 }, (_, i) => `\u3053${String(i).padStart(3, '0')}`)];
    for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map((n) => odd.getBlockBlobClient(n).uploadData(Buffer.from('x'))));
    const containerId = `${ACCOUNT}/blob/odd`;
    const first = await waitFor('the first page', async () => {
      const c = find(await a.storageTree(), containerId);
      return c?.children?.length === 201 ? c.children : undefined;
    });
    assert.equal(first[0]!.label, '\u2026more');
    assert.equal(first[200]!.label, 'Load more…');
    assert.equal(new Set(first.map((c) => c.id)).size, 201, 'no id twice (VS Code refuses a tree that has one)');
  });

  it('pages a large container: the first page, then Load more…', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_blob');
    const big = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('big');
    await big.create();
    const names = Array.from({ length: 450 }, (_, i) => `b${String(i).padStart(4, '0')}`);
    for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map((n) => big.getBlockBlobClient(n).uploadData(Buffer.from(n))));
    const containerId = `${ACCOUNT}/blob/big`;
    const first = await waitFor('the first page', async () => {
      const c = find(await a.storageTree(), containerId);
      return c?.children?.length === 201 ? c.children : undefined;
    });
    assert.equal(first[200]!.label, 'Load more…');
    // A double click runs the command twice: the page is added once.
    const more = a.storageNode(`${containerId}\u0000more`);
    await Promise.all([vscode.commands.executeCommand('azurite.storage.loadMore', more), vscode.commands.executeCommand('azurite.storage.loadMore', more)]);
    const second = find(await a.storageTree(), containerId)!.children!;
    assert.equal(second.length, 401);
    assert.equal(new Set(second.map((c) => c.id)).size, 401, 'no item twice');
    assert.equal(second[399]!.label, 'b0399');
    // A change keeps what was loaded: the listing reloads as many items as it showed.
    await big.getBlockBlobClient('b0000').delete();
    await waitFor('the reloaded listing', async () => {
      const c = find(await a.storageTree(), containerId)!.children!;
      return c[0]!.label === 'b0001' && c.length === 401 ? true : undefined;
    });
  });

  it('reloads a table shown past 1,000 entities in full (Query Entities returns at most 1,000 per request)', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: true });
    await vscode.commands.executeCommand('azurite.start_table');
    const table = TableClient.fromConnectionString(a.emulator.connectionString(), 'many', { allowInsecureConnection: true });
    await table.createTable();
    const rows = Array.from({ length: 1050 }, (_, i) => `r${String(i).padStart(4, '0')}`);
    for (let i = 0; i < rows.length; i += 100) {
      await table.submitTransaction(rows.slice(i, i + 100).map((rowKey) => ['create', { partitionKey: 'p', rowKey }] as const));
    }
    const tableId = `${ACCOUNT}/table/many`;
    const entities = async (): Promise<StorageTreeSnapshot[]> => find(await a.storageTree(), tableId)?.children ?? [];
    await waitFor('the first page', async () => (await entities()).length === 201 || undefined);
    for (let shown = 200; shown < rows.length; shown += 200) {
      assert.equal((await entities()).length, shown + 1);
      await vscode.commands.executeCommand('azurite.storage.loadMore', a.storageNode(`${tableId}\u0000more`));
    }
    assert.equal((await entities()).length, 1050, 'every entity, no Load more… left');
    // A reload in between (Refresh here; in use, a change report that comes late) keeps it whole.
    await vscode.commands.executeCommand('azurite.storage.refresh');
    assert.equal((await entities()).length, 1050, 'reloaded in full');
    // A write reloads as many entities as were shown, past the 1,000 of one request, and the
    // listing, complete before, shows the new last one rather than a Load more… for it.
    await table.createEntity({ partitionKey: 'p', rowKey: 'r9999' });
    const reloaded = await waitFor('the reloaded table', async () => {
      const e = await entities();
      return e.some((n) => n.label.includes('r9999')) ? e : undefined;
    }, 20_000);
    assert.equal(reloaded.length, 1051);
    assert.ok(!reloaded.some((n) => n.label === 'Load more…'));
  });

  it('over HTTPS with a self-signed certificate, lists and exports what SDK clients wrote (VS Code trusts the certificate the engine serves)', async function () {
    const a = await api();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'view-https-'));
    const cert = path.join(dir, 'dev.pem');
    const key = path.join(dir, 'dev-key.pem');
    const made = childProcess.spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert,
      '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { encoding: 'utf8' });
    assert.equal(made.status, 0, `openssl (the test needs its CLI): ${made.error?.message ?? made.stderr}`);
    const config = vscode.workspace.getConfiguration('azurite');
    try {
      await config.update('cert', cert, vscode.ConfigurationTarget.Workspace);
      await config.update('key', key, vscode.ConfigurationTarget.Workspace);
      await waitFor('the certificate in the options', () => a.emulator.options.https !== undefined || undefined);
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      const cs = a.emulator.connectionString();
      assert.match(cs, /^DefaultEndpointsProtocol=https;/);
      const secure = BlobServiceClient.fromConnectionString(cs, { retryOptions: { maxTries: 1 }, tlsOptions: { ca: fs.readFileSync(cert, 'utf8') } } as object);
      await secure.getContainerClient('over-tls').create();
      await secure.getContainerClient('over-tls').getBlockBlobClient('a.txt').uploadData(Buffer.from('a'));
      const shown = await waitFor('the container in the view', async () => {
        const t = await a.storageTree(3);
        const blob = t.find((n) => n.label === 'Blob Containers');
        return blob?.children?.some((c) => c.label === 'over-tls') ? blob.children : undefined;
      });
      assert.deepEqual(shown.find((c) => c.label === 'over-tls')?.children?.map((b) => b.label), ['a.txt']);
      const out = path.join(dir, 'export');
      assert.deepEqual(await vscode.commands.executeCommand('azurite.exportSnapshot', { folder: out, skipConfirmation: true }), { ok: true });
      assert.equal(fs.readFileSync(path.join(out, 'blob', 'over-tls', 'a.txt'), 'utf8'), 'a');
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      await config.update('cert', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('key', undefined, vscode.ConfigurationTarget.Workspace);
      await waitFor('the certificate gone from the options', () => a.emulator.options.https === undefined || undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
