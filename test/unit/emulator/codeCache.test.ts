/**
 * CodeCachedModule: a CommonJS file loaded through a V8 code cache behaves as if required, and the
 * cache is written, used by the next process, refused when corrupt and replaced when the file
 * changes. "Used" is only checked in a fresh process: V8 keeps compiled scripts in the process.
 * The last test loads the real engine bundle (out/engine-bundle.js) this way and serves SDK uploads.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CodeCachedModule, STALE_OTHER_FLAGS_MS, STALE_TEMP_MS } from '../../../src/emulator/codeCache';
import { tempDir } from '../helpers/emulatorFixture';

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const compiledModule = path.join(repoRoot, 'out', 'src', 'emulator', 'codeCache.js');

interface ChildResult { state: string; value: unknown; lines: string[]; files: string[] }

/** Loads `file` with a CodeCachedModule in a new Node process, calls `expr` on its exports, saves. */
function loadInChild(file: string, cacheDir: string, expr = 'm.answer()', flags: readonly string[] = []): ChildResult {
  const script = `
    const { CodeCachedModule } = require(${JSON.stringify(compiledModule)});
    const lines = [];
    // Keyed by the process's V8 flags, as the engine's process keys its cache.
    const c = new CodeCachedModule(${JSON.stringify(file)}, ${JSON.stringify(cacheDir)}, { info: (l) => lines.push(l) }, undefined, [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '));
    const m = c.load();
    Promise.resolve(${expr}).then(async (value) => {
      await c.save();
      const fs = require('node:fs');
      const files = fs.existsSync(${JSON.stringify(cacheDir)}) ? fs.readdirSync(${JSON.stringify(cacheDir)}).sort() : [];
      process.stdout.write(JSON.stringify({ state: c.state, value, lines, files }));
      process.exit(0);
    }, (err) => { console.error(err); process.exit(1); });`;
  return JSON.parse(execFileSync(process.execPath, [...flags, '-e', script], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 })) as ChildResult;
}

describe('CodeCachedModule (V8 code cache for the engine bundle)', function () {
  this.timeout(120_000);
  let dir: string;
  let file: string;
  let cacheDir: string;

  beforeEach(() => {
    dir = tempDir('code-cache-');
    cacheDir = path.join(dir, 'cache');
    fs.writeFileSync(path.join(dir, 'helper.js'), 'module.exports = (x) => x * 2;\n');
    file = path.join(dir, 'bundle.js');
    fs.writeFileSync(file, [
      "const path = require('node:path');",
      "const double = require('./helper.js');",
      'exports.answer = () => ({ doubled: double(21), dir: __dirname, base: path.basename(__filename), self: this === exports });',
      '',
    ].join('\n'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs the file as CommonJS: relative and builtin requires, __dirname, __filename, this === exports', () => {
    const cached = new CodeCachedModule<{ answer(): unknown }>(file, cacheDir);
    const exports = cached.load();
    assert.deepEqual(exports.answer(), { doubled: 42, dir, base: 'bundle.js', self: true });
    assert.equal(cached.load(), exports, 'a second load returns the same exports');
    assert.equal(cached.state, 'missing');
  });

  it('gives the file a `module` whose require loads relative to it (the composition root loads dist/data.js that way), and names the cache in its lines', () => {
    fs.writeFileSync(file, "exports.answer = () => module.require('./helper.js')(4);\n");
    const lines: string[] = [];
    const cached = new CodeCachedModule<{ answer(): number }>(file, cacheDir, { info: (l) => lines.push(l) }, 'Extension code cache');
    assert.equal(cached.load().answer(), 8);
    assert.deepEqual(lines, ['Extension code cache: none yet, saved once this load has run']);
  });

  it('saves after the first load, and the next process uses the cache', () => {
    const first = loadInChild(file, cacheDir);
    assert.equal(first.state, 'missing');
    assert.equal(first.files.length, 1);
    assert.match(first.files[0], /^bundle-[0-9a-f]{8}-[0-9a-f]{16}\.cache$/);
    assert.ok(first.lines.some((l) => l.startsWith('Engine code cache saved')), first.lines.join('\n'));
    const second = loadInChild(file, cacheDir);
    assert.equal(second.state, 'used');
    assert.deepEqual(second.value, first.value);
    assert.deepEqual(second.files, first.files, 'nothing is written when the cache was used');
    assert.ok(!second.lines.some((l) => l.startsWith('Engine code cache saved')));
  });

  it('keeps a cache per set of V8 flags (windows whose engines run with different heap limits use their own), and removes one of other flags only once it is old', () => {
    const small = ['--max-old-space-size=512'];
    const large = ['--max-old-space-size=640'];
    assert.equal(loadInChild(file, cacheDir, undefined, small).state, 'missing');
    assert.equal(loadInChild(file, cacheDir, undefined, large).state, 'missing', 'V8 refuses a cache made under another heap limit, so it is not offered');
    assert.equal(loadInChild(file, cacheDir, undefined, small).state, 'used', 'the other window\'s save left this one\'s cache');
    assert.equal(loadInChild(file, cacheDir, undefined, large).state, 'used');
    const caches = fs.readdirSync(cacheDir).filter((f) => f.endsWith('.cache'));
    assert.equal(caches.length, 2);
    // One of other flags written long ago goes at the next save; an earlier version's name at once.
    const old = (Date.now() - STALE_OTHER_FLAGS_MS - 60_000) / 1000;
    for (const f of caches) fs.utimesSync(path.join(cacheDir, f), old, old);
    fs.writeFileSync(path.join(cacheDir, 'bundle-0123456789abcdef.cache'), 'an earlier version\'s name');
    fs.appendFileSync(file, 'exports.extra = 1;\n');
    const after = loadInChild(file, cacheDir, undefined, small);
    assert.equal(after.state, 'missing');
    assert.equal(after.files.filter((f) => f.endsWith('.cache')).length, 1, after.files.join(', '));
  });

  it('a corrupt cache is refused, the file still loads, and the cache is written again', () => {
    loadInChild(file, cacheDir);
    const cacheFile = path.join(cacheDir, fs.readdirSync(cacheDir)[0]);
    fs.writeFileSync(cacheFile, Buffer.alloc(4096, 7));
    const refused = loadInChild(file, cacheDir);
    assert.equal(refused.state, 'damaged');
    assert.deepEqual((refused.value as { doubled: number }).doubled, 42);
    assert.equal(loadInChild(file, cacheDir).state, 'used');
  });

  it('a cache whose header is intact but whose body was damaged on disk is not given to V8 (which would crash the process), and is written again', () => {
    // A larger bundle, so that the damage lands in code V8 deserializes.
    fs.writeFileSync(file, Array.from({ length: 200 }, (_, i) => `exports.f${i} = (x) => [x, ${i}, 'text ${i}'].map((v) => String(v).repeat(2));\n`).join('') + 'exports.answer = () => exports.f7(3);\n');
    const first = loadInChild(file, cacheDir);
    assert.equal(first.state, 'missing');
    const cacheFile = path.join(cacheDir, first.files[0]);
    const content = fs.readFileSync(cacheFile);
    // What a file keeps after a power loss on some file systems: its length, zeros for data not flushed.
    content.fill(0, Math.floor(content.length / 2));
    fs.writeFileSync(cacheFile, content);
    const damaged = loadInChild(file, cacheDir);
    assert.equal(damaged.state, 'damaged');
    assert.deepEqual(damaged.value, ['33', '77', 'text 7text 7']);
    assert.ok(damaged.lines.some((l) => l.includes('damaged')), damaged.lines.join('\n'));
    assert.equal(loadInChild(file, cacheDir).state, 'used');
  });

  it('a save that fails leaves no temporary file behind (on a full disk it would hold the space user data needs)', async () => {
    const lines: string[] = [];
    const c = new CodeCachedModule<{ answer(): unknown }>(file, cacheDir, { info: (l) => lines.push(l) });
    c.load();
    // The rename fails: a folder stands where the cache file goes.
    fs.mkdirSync(path.join(c.loadedFile!, 'in-the-way'), { recursive: true });
    await c.save();
    assert.ok(lines.some((l) => l.startsWith('Engine code cache not saved')), lines.join('\n'));
    assert.deepEqual(fs.readdirSync(cacheDir).filter((f) => f.endsWith('.tmp')), []);
  });

  it("a changed file gets a new cache; the old one and an abandoned .tmp are deleted, another window's save in progress is not", () => {
    const before = loadInChild(file, cacheDir).files;
    const inProgress = 'bundle-0123456789abcdef.cache.4242.tmp';
    fs.writeFileSync(path.join(cacheDir, inProgress), 'partial');
    const abandoned = 'bundle-0123456789abcdef.cache.4343.tmp';
    fs.writeFileSync(path.join(cacheDir, abandoned), 'partial');
    const old = (Date.now() - STALE_TEMP_MS - 60_000) / 1000;
    fs.utimesSync(path.join(cacheDir, abandoned), old, old);
    fs.appendFileSync(file, 'exports.extra = 1;\n');
    const after = loadInChild(file, cacheDir);
    assert.equal(after.state, 'missing');
    const caches = after.files.filter((f) => f.endsWith('.cache'));
    assert.equal(caches.length, 1);
    assert.notDeepEqual(caches, before);
    assert.ok(after.files.includes(inProgress), after.files.join(', '));
    assert.ok(!after.files.includes(abandoned), `a .tmp older than STALE_TEMP_MS is removed: ${after.files.join(', ')}`);
  });

  it('a file rebuilt between load and save gets no cache: the compiled source is not filed under the new build\'s key', async () => {
    const lines: string[] = [];
    const c = new CodeCachedModule<{ answer(): unknown }>(file, cacheDir, { info: (l) => lines.push(l) });
    c.load();
    // A watch build rewrites the file: same length (V8's own check), new content and mtime.
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace('21', '42'));
    const later = (Date.now() + 5000) / 1000;
    fs.utimesSync(file, later, later);
    await c.save();
    assert.deepEqual(fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : [], []);
    assert.match(lines.at(-1) ?? '', /not saved: .*bundle\.js changed after it was loaded/);
  });

  it('a cache folder that cannot be made is logged, not thrown', async () => {
    fs.writeFileSync(path.join(dir, 'not-a-folder'), '');
    const lines: string[] = [];
    const cached = new CodeCachedModule<{ answer(): unknown }>(file, path.join(dir, 'not-a-folder', 'cache'), { info: (l) => lines.push(l) });
    cached.load();
    await cached.save();
    assert.ok(lines.some((l) => l.startsWith('Engine code cache not saved:')), lines.join('\n'));
  });

  it('loads the real engine bundle through the cache, twice, and serves SDK uploads both times', function () {
    execFileSync(process.execPath, [path.join(repoRoot, 'esbuild.mjs'), '--engine-bundle'], { cwd: repoRoot, stdio: 'pipe' });
    const bundle = path.join(repoRoot, 'out', 'engine-bundle.js');
    const upload = `(async () => {
      const { BlobServiceClient } = require('@azure/storage-blob');
      const service = m.createService({ kind: 'blob', host: '127.0.0.1', port: 0, inMemory: true, location: '/nonexistent',
        loose: false, apiVersionPolicy: m.createApiVersionPolicy('acceptNewer', () => undefined), accessLog: undefined, memoryStore: new m.MeteredChunkStore(undefined),
        keepAliveSec: 5, https: undefined, oauth: undefined, disableProductStyleUrl: false });
      const endpoint = await service.start();
      const base = endpoint.url + '/devstoreaccount1';
      const key = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
      const container = BlobServiceClient.fromConnectionString('DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=' + key + ';BlobEndpoint=' + base + ';').getContainerClient('cached');
      await container.create();
      const blob = container.getBlockBlobClient('b');
      await blob.upload(Buffer.from('code cache'), 10);
      const text = (await blob.downloadToBuffer()).toString();
      await service.stop();
      return text;
    })()`;
    const first = loadInChild(bundle, cacheDir, upload);
    assert.equal(first.state, 'missing');
    assert.equal(first.value, 'code cache');
    assert.equal(first.files.length, 1);
    assert.ok(fs.statSync(path.join(cacheDir, first.files[0])).size > 1_000_000, 'the cache holds the compiled engine');
    const second = loadInChild(bundle, cacheDir, upload);
    assert.equal(second.state, 'used');
    assert.equal(second.value, 'code cache');
  });
});
