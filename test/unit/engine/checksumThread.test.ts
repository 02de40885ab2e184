/**
 * The checksum thread (src/engine/checksumThread.ts) as the engine's process runs it
 * (out/checksum-worker.js): the digests equal MD5 and azurite's own CRC-64 of the same bytes, for
 * any chunking and for many jobs at once; a dropped job answers nothing and the next ones are
 * unaffected; a job whose thread ended fails. Through the engine and the SDKs: test/unit/engine/bundledEngine.test.ts.
 */
import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { checksumBacklogBytes, computeTransactionalChecksums, OFFLOAD_MIN_BYTES, offloadChecksums } from '../../../src/engine/azuriteChecksums';
import { CHECKSUM_BACKLOG_BYTES, CHECKSUM_BATCH_BYTES, ChecksumThread, type ChecksumJob } from '../../../src/engine/checksumThread';
import { engineFiles } from '../helpers/emulatorFixture';

/** azurite's own, unbundled CRC64 (node_modules): the reference. */
const azuriteUtils = require('azurite/dist/src/common/utils/utils') as { getCRC64FromString(b: Uint8Array): Uint8Array };
const hex = (b: Uint8Array | undefined): string | undefined => b === undefined ? undefined : Buffer.from(b).toString('hex');
/** The job begin() opened; fails the test when the thread could not be started. */
function opened(job: ChecksumJob | undefined): ChecksumJob {
  assert.ok(job, 'the checksum thread could not be started');
  return job;
}

describe('Checksum thread', function () {
  this.timeout(60_000);
  let thread: ChecksumThread;
  before(() => { thread = new ChecksumThread(path.resolve(engineFiles().checksumWorkerPath!)); });
  after(() => thread.close());

  it('gives MD5 and azurite\'s CRC-64 of the bytes, whatever the chunking (0 B to 9 MiB, chunks of 1 B to 5 MiB)', async () => {
    for (const [size, chunk] of [[0, 1], [1, 1], [1000, 7], [CHECKSUM_BATCH_BYTES, 65536], [CHECKSUM_BATCH_BYTES + 1, 65536], [4 * 1024 * 1024 + 13, 65536], [9 * 1024 * 1024, 5 * 1024 * 1024]] as const) {
      const data = crypto.randomBytes(size);
      const job = opened(thread.begin(true, true));
      for (let at = 0; at < size; at += chunk) job.update(data.subarray(at, at + chunk));
      const d = await job.digest();
      assert.equal(hex(d.md5), crypto.createHash('md5').update(data).digest('hex'), `MD5 of ${size} B in chunks of ${chunk}`);
      assert.equal(hex(d.crc64), hex(azuriteUtils.getCRC64FromString(data)), `CRC-64 of ${size} B in chunks of ${chunk}`);
    }
  });

  it('computes only what is asked, for 32 jobs at once; a chunk reused by the caller after update() does not change the digest', async () => {
    const inputs = Array.from({ length: 32 }, (_, i) => crypto.randomBytes(300_000 + i * 1000));
    const results = await Promise.all(inputs.map(async (data, i) => {
      const job = opened(thread.begin(i % 2 === 0, i % 2 === 1));
      const scratch = Buffer.alloc(100_000);
      for (let at = 0; at < data.length; at += scratch.length) {
        const n = data.copy(scratch, 0, at, at + scratch.length);
        job.update(scratch.subarray(0, n));
        scratch.fill(0); // the caller reuses its buffer at once
      }
      return job.digest();
    }));
    results.forEach((d, i) => {
      if (i % 2 === 0) {
        assert.equal(hex(d.md5), crypto.createHash('md5').update(inputs[i]!).digest('hex'));
        assert.equal(d.crc64, undefined);
      } else {
        assert.equal(d.md5, undefined);
        assert.equal(hex(d.crc64), hex(azuriteUtils.getCRC64FromString(inputs[i]!)));
      }
    });
  });

  it('fails a job whose thread ended while it was open, instead of waiting for good; the next job gets a new thread', async () => {
    const own = new ChecksumThread(path.resolve(engineFiles().checksumWorkerPath!));
    try {
      const job = opened(own.begin(true, false));
      job.update(crypto.randomBytes(CHECKSUM_BATCH_BYTES + 10)); // one batch sent: the job is open on the thread
      // The thread ends under the job (as a crash of it would).
      const worker = (own as unknown as { worker: import('node:worker_threads').Worker }).worker;
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      await worker.terminate();
      await exited;
      job.update(crypto.randomBytes(CHECKSUM_BATCH_BYTES));
      // Bounded: a digest that is never answered fails here instead of hanging (the thread is unref'd).
      let bound: NodeJS.Timeout | undefined;
      const noAnswer = new Promise<never>((_, reject) => { bound = setTimeout(() => reject(new Error('no answer within 5 s')), 5_000); });
      await assert.rejects(Promise.race([job.digest(), noAnswer]).finally(() => clearTimeout(bound)), /^Error: the checksum thread ended$/);
      const data = crypto.randomBytes(CHECKSUM_BATCH_BYTES + 1);
      const next = opened(own.begin(true, false));
      next.update(data);
      assert.equal(hex((await next.digest()).md5), crypto.createHash('md5').update(data).digest('hex'));
    } finally {
      await own.close();
    }
  });

  it('forgets a dropped job; the jobs after it are answered as usual', async () => {
    const dropped = opened(thread.begin(true, false));
    dropped.update(crypto.randomBytes(CHECKSUM_BATCH_BYTES + 10));
    dropped.drop();
    const data = crypto.randomBytes(2 * CHECKSUM_BATCH_BYTES);
    const job = opened(thread.begin(true, false));
    job.update(data);
    assert.equal(hex((await job.digest()).md5), crypto.createHash('md5').update(data).digest('hex'));
  });

  it('a thread that fails before it ever answers (its entry file missing) fails its job, and gives no job after: bodies are hashed on the serving thread', async () => {
    const missing = path.join(path.dirname(path.resolve(engineFiles().checksumWorkerPath!)), 'no-such-checksum-worker.js');
    const said: string[] = [];
    const broken = new ChecksumThread(missing, (line) => said.push(line));
    try {
      const job = opened(broken.begin(true, true));
      job.update(crypto.randomBytes(CHECKSUM_BATCH_BYTES + 10));
      await assert.rejects(job.digest(), /^Error: the checksum thread failed: /);
      assert.equal(broken.begin(true, true), undefined, 'no second thread from a file that cannot run');
      // Said once, for the output channel: the upload's 500 says nothing of why.
      assert.equal(said.length, 1, said.join('\n'));
      assert.match(said[0]!, /^The checksum thread of large uploads failed \(.*\); 1 upload\(s\) of 1 MiB or more that it was hashing failed with HTTP 500 and may be retried\. Such uploads are hashed on the serving thread from now on\.$/);
    } finally {
      await broken.close();
    }
  });

  it('a body given all at once (a memory-mode extent) waits for the thread: the bytes it holds unhashed stay near the 8 MiB bound', async () => {
    offloadChecksums(path.resolve(engineFiles().checksumWorkerPath!));
    try {
      const data = crypto.randomBytes(64 * 1024 * 1024);
      // As azurite's MemoryExtentStore.readExtent: every chunk pushed before anything reads.
      const body = new Readable({ read() { /* all pushed below */ } });
      for (let at = 0; at < data.length; at += 1024 * 1024) body.push(data.subarray(at, at + 1024 * 1024));
      body.push(null);
      let most = 0;
      body.on('data', () => { most = Math.max(most, checksumBacklogBytes()); });
      const d = await computeTransactionalChecksums(body, {}, { md5: true, crc64: true });
      assert.equal(hex(d.md5), crypto.createHash('md5').update(data).digest('hex'));
      assert.equal(hex(d.crc64), hex(azuriteUtils.getCRC64FromString(data)));
      assert.ok(most <= CHECKSUM_BACKLOG_BYTES + 1024 * 1024, `at most the bound and one chunk held unhashed, not ${most} bytes`);
      assert.equal(checksumBacklogBytes(), 0);
    } finally {
      offloadChecksums(undefined);
    }
  });

  it('a thread that cannot be started gives no job (no exception in the request\'s stream); the body is hashed on the serving thread', async () => {
    // `new Worker` throws at once for a path that is neither absolute nor ./-relative, as it does
    // with ERR_WORKER_INIT_FAILED when the system refuses a thread: the same synchronous throw.
    const unstartable = new ChecksumThread('checksumWorker.js');
    try {
      assert.equal(unstartable.begin(true, true), undefined);
      offloadChecksums('checksumWorker.js');
      const data = crypto.randomBytes(OFFLOAD_MIN_BYTES * 2 + 5);
      const chunks = Array.from({ length: Math.ceil(data.length / 65_536) }, (_, i) => data.subarray(i * 65_536, (i + 1) * 65_536));
      const d = await computeTransactionalChecksums(Readable.from(chunks), {}, { md5: true, crc64: true });
      assert.equal(hex(d.md5), crypto.createHash('md5').update(data).digest('hex'));
      assert.equal(hex(d.crc64), hex(azuriteUtils.getCRC64FromString(data)));
    } finally {
      offloadChecksums(undefined);
      await unstartable.close();
    }
  });
});
