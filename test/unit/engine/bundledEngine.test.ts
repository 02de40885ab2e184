/**
 * The engine as the extension bundles it (esbuild.mjs: applicationinsights stub + the CRC64 seam),
 * built into out/engine-bundle.js by `node esbuild.mjs --engine-bundle` before these tests, and
 * driven by the real Azure SDK: block, append and page uploads with and without Content-MD5 / a
 * client CRC64 succeed, return azurite's own CRC64 values and the content's MD5, and read back
 * byte-identical, with the checksums of large bodies on the checksum thread and on the serving thread.
 * With the lokiBatches patch in its LokiJS, blobs and messages deleted one at a time among many
 * leave the rest as they were, and a reclaim frees exactly the deleted content.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { BlobServiceClient, RestError, type ContainerClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { parseSettings } from '../../../src/core/settings';
import type * as EmulatorModule from '../../../src/emulator/emulator';
import type * as AzuriteModule from '../../../src/emulator/azurite';
import type * as SeamModule from '../../../src/engine/azuriteChecksums';
import { MemoryLog } from '../helpers/emulatorFixture';

type EngineBundle = typeof EmulatorModule & typeof AzuriteModule & {
  seam: typeof SeamModule;
  /** azurite's common/utils/utils.js as bundled (with the seam applied). */
  azuriteCommonUtils: Record<string, unknown>;
  /** LokiJS as bundled (with the seam applied). */
  Loki: { Collection: { prototype: object } };
};

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const bundlePath = path.join(repoRoot, 'out', 'engine-bundle.js');
/** azurite's own, unbundled CRC64 (node_modules): the reference for every value below. */
const azuriteUtils = require('azurite/dist/src/common/utils/utils') as { getCRC64FromString(b: Uint8Array): Uint8Array };
const b64 = (bytes: Uint8Array | undefined): string | undefined => bytes === undefined ? undefined : Buffer.from(bytes).toString('base64');
const blockId = (n: number): string => Buffer.from(`block-${String(n).padStart(6, '0')}`).toString('base64');

/**
 * Our Emulator on the bundle (ports chosen by the OS) with `kinds` started.
 * @param o.thread whether large bodies are hashed on the checksum thread (else on the serving thread)
 * @throws Error with the start's message when a service does not start
 */
async function startBundled(engine: EngineBundle, o: { inMemory: boolean; location: string; thread: boolean; kinds: readonly ('blob' | 'queue')[] }): Promise<EmulatorModule.Emulator> {
  const settings = parseSettings(
    { blobPort: 0, queuePort: 0, tablePort: 0, inMemoryPersistence: o.inMemory, location: o.location },
    { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: o.location, rootHasAzuriteData: false },
  );
  const emulator = new engine.Emulator(settings, new MemoryLog(), {
    processPath: path.join(repoRoot, 'out', 'engine-process.js'),
    enginePath: bundlePath,
    checksumWorkerPath: o.thread ? path.join(repoRoot, 'out', 'checksum-worker.js') : undefined,
  });
  for (const kind of o.kinds) {
    const outcome = await emulator.start(kind);
    if (!outcome.ok) throw new Error(outcome.message);
  }
  return emulator;
}

describe('Bundled engine (out/engine-bundle.js): the CRC64 seam under real SDK uploads', function () {
  this.timeout(120_000);
  let engine: EngineBundle;

  before(function () {
    execFileSync(process.execPath, [path.join(repoRoot, 'esbuild.mjs'), '--engine-bundle'], { cwd: repoRoot, stdio: 'pipe' });
    engine = require(bundlePath) as EngineBundle;
  });

  it('replaces azurite\'s three CRC64 exports in the bundle with src/engine/azuriteChecksums.ts, and nothing else', () => {
    const utils = engine.azuriteCommonUtils;
    assert.equal(utils.computeTransactionalChecksums, engine.seam.computeTransactionalChecksums);
    assert.equal(utils.getCRC64FromString, engine.seam.getCRC64FromString);
    assert.equal(utils.getCRC64FromStream, engine.seam.getCRC64FromStream);
    // Its other exports are azurite's own.
    assert.equal(typeof utils.getMD5FromString, 'function');
    assert.equal(typeof utils.newEtag, 'function');
  });

  // The engine's process hashes bodies of 1 MiB or more on its checksum thread; `serving thread`
  // is azurite's own way, which the engine takes without one.
  for (const { inMemory, thread } of [{ inMemory: true, thread: true }, { inMemory: false, thread: true }, { inMemory: true, thread: false }]) {
    describe(`${inMemory ? 'in memory' : 'on disk'}, checksums of large bodies on the ${thread ? 'checksum thread' : 'serving thread'}`, () => {
      let emulator: EmulatorModule.Emulator;
      let container: ContainerClient;
      let location: string;

      before(async () => {
        location = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-bundle-'));
        emulator = await startBundled(engine, { inMemory, location, thread, kinds: ['blob'] });
        container = BlobServiceClient.fromConnectionString(emulator.connectionString()).getContainerClient(`crc-${inMemory ? 'mem' : 'disk'}-${thread ? 'thread' : 'inline'}`);
        await container.create();
      });
      after(async () => {
        await emulator?.dispose();
        fs.rmSync(location, { recursive: true, force: true });
      });

      it('stageBlock without Content-MD5 returns azurite\'s CRC64; with Content-MD5, none; both read back byte-identical', async () => {
        const blob = container.getBlockBlobClient('blocks.bin');
        const sizes = [4 * 1024 * 1024 + 13, 1, 1_048_575, 8 * 1024 * 1024];
        const blocks = sizes.map((n) => crypto.randomBytes(n));
        const ids: string[] = [];
        for (const [i, data] of blocks.entries()) {
          const withMd5 = i % 2 === 1;
          const md5 = crypto.createHash('md5').update(data).digest();
          const res = await blob.stageBlock(blockId(i), data, data.length, withMd5 ? { transactionalContentMD5: md5 } : {});
          if (withMd5) {
            assert.equal(res.xMsContentCrc64, undefined, `block ${i} (Content-MD5 sent): no CRC64 expected`);
          } else {
            assert.equal(b64(res.xMsContentCrc64), b64(azuriteUtils.getCRC64FromString(data)), `block ${i}: CRC64 as azurite computes it`);
          }
          ids.push(blockId(i));
        }
        await blob.commitBlockList(ids);
        const back = await blob.downloadToBuffer();
        assert.ok(back.equals(Buffer.concat(blocks)), 'downloaded bytes differ from the staged blocks');
      });

      it('Put Blob answers the content\'s MD5 (1 KiB and 3 MiB bodies); a wrong Content-MD5 on a 2 MiB block is refused (400 Md5Mismatch)', async () => {
        for (const size of [1024, 3 * 1024 * 1024 + 5]) {
          const data = crypto.randomBytes(size);
          const res = await container.getBlockBlobClient(`put-${size}.bin`).upload(data, data.length);
          assert.equal(b64(res.contentMD5), crypto.createHash('md5').update(data).digest('base64'), `MD5 of ${size} bytes`);
        }
        const block = crypto.randomBytes(2 * 1024 * 1024);
        const wrong = crypto.createHash('md5').update('something else').digest();
        await assert.rejects(container.getBlockBlobClient('md5.bin').stageBlock(blockId(0), block, block.length, { transactionalContentMD5: wrong }),
          (e: unknown) => e instanceof RestError && e.statusCode === 400 && e.code === 'Md5Mismatch');
      });

      it('a large block whose client goes away halfway is forgotten; the next blocks get their CRC64 as before', async () => {
        const blob = container.getBlockBlobClient('aborted.bin');
        const abort = new AbortController();
        let sent = 0;
        const half = new Readable({
          read() {
            if (sent >= 2 * 1024 * 1024) return; // stalls halfway through the declared 4 MiB
            sent += 256 * 1024;
            this.push(crypto.randomBytes(256 * 1024));
            if (sent >= 2 * 1024 * 1024) setImmediate(() => abort.abort());
          },
        });
        await assert.rejects(blob.stageBlock(blockId(0), () => half, 4 * 1024 * 1024, { abortSignal: abort.signal }));
        for (let i = 1; i <= 2; i++) {
          const data = crypto.randomBytes(3 * 1024 * 1024);
          const res = await blob.stageBlock(blockId(i), data, data.length);
          assert.equal(b64(res.xMsContentCrc64), b64(azuriteUtils.getCRC64FromString(data)), `block ${i}`);
        }
      });

      it('accepts a client CRC64 that matches and refuses one that does not (400 Crc64Mismatch)', async () => {
        const blob = container.getBlockBlobClient('client-crc.bin');
        const data = crypto.randomBytes(3 * 1024 * 1024 + 7);
        const crc = azuriteUtils.getCRC64FromString(data);
        const ok = await blob.stageBlock(blockId(0), data, data.length, { transactionalContentCrc64: crc });
        assert.equal(b64(ok.xMsContentCrc64), b64(crc));
        const wrong = Uint8Array.from(crc);
        wrong[0] = wrong[0]! ^ 1;
        await assert.rejects(blob.stageBlock(blockId(1), data, data.length, { transactionalContentCrc64: wrong }),
          (err: unknown) => err instanceof RestError && err.statusCode === 400 && (err.details as { errorCode?: string })?.errorCode === 'Crc64Mismatch');
        await blob.commitBlockList([blockId(0)]);
        assert.ok((await blob.downloadToBuffer()).equals(data));
      });

      it('uploadData in 4 MiB blocks (the SDK\'s stageBlock path) reads back byte-identical', async () => {
        const blob = container.getBlockBlobClient('upload-data.bin');
        const data = crypto.randomBytes(17 * 1024 * 1024 + 3);
        await blob.uploadData(data, { blockSize: 4 * 1024 * 1024, concurrency: 4, maxSingleShotSize: 1024 * 1024 });
        assert.ok((await blob.downloadToBuffer()).equals(data));
      });

      it('Append Block and Put Page (always CRC64) return azurite\'s CRC64 and read back byte-identical', async () => {
        const append = container.getAppendBlobClient('append.bin');
        await append.create();
        const parts = [crypto.randomBytes(1_000_003), crypto.randomBytes(17)];
        for (const part of parts) {
          const res = await append.appendBlock(part, part.length);
          assert.equal(b64(res.xMsContentCrc64), b64(azuriteUtils.getCRC64FromString(part)));
        }
        assert.ok((await append.downloadToBuffer()).equals(Buffer.concat(parts)));

        const page = container.getPageBlobClient('page.bin');
        const pageData = crypto.randomBytes(512 * 2049);
        await page.create(pageData.length);
        const res = await page.uploadPages(pageData, 0, pageData.length);
        assert.equal(b64(res.xMsContentCrc64), b64(azuriteUtils.getCRC64FromString(pageData)));
        assert.ok((await page.downloadToBuffer()).equals(pageData));
      });
    });
  }

  describe('lokiBatches: deletes one at a time among many, in memory', () => {
    let emulator: EmulatorModule.Emulator;
    let location: string;

    before(async () => {
      location = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-bundle-loki-'));
      emulator = await startBundled(engine, { inMemory: true, location, thread: true, kinds: ['blob', 'queue'] });
    });
    after(async () => {
      await emulator?.dispose();
      fs.rmSync(location, { recursive: true, force: true });
    });

    it('bundles LokiJS with the patch applied', () => {
      assert.equal((engine.Loki.Collection.prototype as { __keepsIndexesOnSmallBatches?: true }).__keepsIndexesOnSmallBatches, true);
    });

    it('Delete Blob of half of 300 blobs leaves the other half readable, and a reclaim frees exactly the deleted content', async () => {
      const container = BlobServiceClient.fromConnectionString(emulator.connectionString()).getContainerClient('loki-batches');
      await container.create();
      const body = (i: number): Buffer => Buffer.alloc(1000, i % 251);
      const names = Array.from({ length: 300 }, (_, i) => `blob-${String(i).padStart(3, '0')}`);
      for (let at = 0; at < names.length; at += 16) {
        await Promise.all(names.slice(at, at + 16).map((n, j) => container.getBlockBlobClient(n).upload(body(at + j), 1000)));
      }
      const before = (await emulator.memoryReportNow()).usedBytes;
      for (const n of names.filter((_, i) => i % 2 === 0)) await container.getBlockBlobClient(n).delete();
      const listed: string[] = [];
      for await (const b of container.listBlobsFlat()) listed.push(b.name);
      assert.deepEqual(listed, names.filter((_, i) => i % 2 === 1));
      for (const i of [1, 151, 299]) assert.ok((await container.getBlockBlobClient(names[i]!).downloadToBuffer()).equals(body(i)), `blob ${i}`);
      await assert.rejects(container.getBlockBlobClient(names[150]!).download(), (e: unknown) => e instanceof RestError && e.statusCode === 404);
      assert.equal(await emulator.reclaimMemory(), 150 * 1000);
      assert.equal((await emulator.memoryReportNow()).usedBytes, before - 150 * 1000);
    });

    it('receive + delete of 100 of 200 messages, one at a time, hands them out in order and leaves the other 100', async () => {
      const queue = QueueServiceClient.fromConnectionString(emulator.connectionString()).getQueueClient('loki-batches');
      await queue.create();
      for (let i = 0; i < 200; i++) await queue.sendMessage(`message ${i}`);
      for (let i = 0; i < 100; i++) {
        const [m] = (await queue.receiveMessages()).receivedMessageItems;
        assert.equal(m?.messageText, `message ${i}`);
        await queue.deleteMessage(m.messageId, m.popReceipt);
      }
      assert.equal((await queue.getProperties()).approximateMessagesCount, 100);
      assert.equal((await queue.peekMessages()).peekedMessageItems[0]?.messageText, 'message 100');
    });
  });
});

describe('The engine seam\'s build guards (esbuild.mjs against the installed azurite and LokiJS)', function () {
  this.timeout(120_000);
  const seamError = /azurite-seam (\w+): (.*)/;

  /**
   * Runs a copy of esbuild.mjs, with `edit` applied to its text, as `--engine-bundle` into a temp
   * file. The copy sits next to the original, since the script finds the repository from its own path.
   * @returns the first `azurite-seam` error the build printed, or undefined when it built
   */
  function buildWith(edit: (script: string) => string): { patch: string; text: string } | undefined {
    const original = fs.readFileSync(path.join(repoRoot, 'esbuild.mjs'), 'utf8');
    const edited = edit(original);
    assert.notEqual(edited, original, 'the edit changed nothing in esbuild.mjs');
    const copy = path.join(repoRoot, `.esbuild-seam-test-${process.pid}.mjs`);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'emu-seam-'));
    fs.writeFileSync(copy, edited);
    try {
      execFileSync(process.execPath, [copy, '--engine-bundle', `--outfile=${path.join(out, 'bundle.js')}`], { cwd: repoRoot, stdio: 'pipe' });
      return undefined;
    } catch (err) {
      const output = String((err as { stderr?: Buffer }).stderr ?? '');
      const m = seamError.exec(output);
      assert.ok(m, `the build failed without a seam error:\n${output}`);
      return { patch: m[1]!, text: m[2]! };
    } finally {
      fs.rmSync(copy, { force: true });
      fs.rmSync(out, { recursive: true, force: true });
    }
  }

  it('builds as shipped', () => {
    assert.equal(buildWith((s) => s.replace('const engineSeam =', 'const engineSeam  =')), undefined);
  });

  it('fails, naming the patch and both versions, when the installed package is not the version a patch was verified against', () => {
    const failed = buildWith((s) => s.replace("verified: '1.5.12'", "verified: '1.5.11'"));
    assert.equal(failed?.patch, 'lokiBatches');
    assert.match(failed.text, /^lokijs 1\.5\.12 is installed, the patch was verified against 1\.5\.11; re-verify it/);
  });

  it('fails, naming the patch, the file and the text, when a patched azurite file no longer has the text the patch relies on', () => {
    const failed = buildWith((s) => s.replace("expect: ['class CRC64Hash',", "expect: ['class CRC64Hash', 'a line azurite never had',"));
    assert.equal(failed?.patch, 'crc64');
    assert.match(failed.text, /common\/utils\/utils\.js changed \(no a line azurite never had\); re-verify the patch/);
  });

  it('fails, naming the patch and the file, when a file a patch names is not bundled (azurite renamed or moved it)', () => {
    const failed = buildWith((s) => s.replace("files: ['common/persistence/LokiExtentMetadataStore.js'],", "files: ['common/persistence/LokiExtentMetadataStore.js', 'common/persistence/Renamed.js'],"));
    assert.equal(failed?.patch, 'extentProtection');
    assert.match(failed.text, /^azurite is bundled but azurite's common\/persistence\/Renamed\.js is not; re-verify the patch/);
  });
});
