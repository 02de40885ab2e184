/**
 * Nothing lost on stop: disk mode, the real engine (out/engine-bundle.js), real SDK
 * clients, no mocks. A stop saves every service's LokiJS metadata before it resolves, even when the
 * log throws (a disposed output channel) or another service's save fails; an unfinished save is
 * reported at the next start.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { clients, engineFiles, inParallel, startAll, tempDir } from '../helpers/emulatorFixture';
import { Emulator, type EmulatorLog, type EngineLoss } from '../../../src/emulator/emulator';
import { parseSettings } from '../../../src/core/settings';
import { markerFileName, type UnfinishedSave } from '../../../src/emulator/shutdownMarker';
import { DATA_FILES } from '../../../src/core/dataFiles';
import type { LifecycleBounds } from '../../../src/core/bounds';
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import * as net from 'node:net';
import { ContainerSASPermissions } from '@azure/storage-blob';

/** True when 127.0.0.1:`port` accepts a TCP connection now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** Polls `check` every 10 ms until it resolves true. @throws after `timeoutMs` */
async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const BLOBS = 300;
const MESSAGES = 100;
const ENTITIES = 300;

/** A log like a VS Code output channel that gets disposed: every call after the first throws. */
class ClosingLog implements EmulatorLog {
  calls = 0;
  readonly lines: string[] = [];
  private write(line: string): void {
    if (this.calls++ > 0) throw new Error('Channel has been closed');
    this.lines.push(line);
  }
  info(line: string): void { this.write(line); }
  error(line: string): void { this.write(line); }
  access(line: string): void { this.write(line); }
  debug(line: string): void { this.write(line); }
}

/** A log that keeps every line. */
class KeepLog implements EmulatorLog {
  readonly lines: string[] = [];
  info(line: string): void { this.lines.push(line); }
  error(line: string): void { this.lines.push(`error: ${line}`); }
  access(): void { /* not needed */ }
  debug(): void { /* not needed */ }
}

function diskEmulator(location: string, log: EmulatorLog, bounds?: Partial<LifecycleBounds>): Emulator {
  const parsed = parseSettings(
    { blobPort: 0, queuePort: 0, tablePort: 0, location, silent: true },
    { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: path.join(os.tmpdir(), 'emu-global'), rootHasAzuriteData: false },
  );
  return new Emulator(parsed, log, engineFiles(), bounds);
}


/** Writes BLOBS blobs, MESSAGES messages and ENTITIES entities with the SDKs. */
async function writeAll(emulator: Emulator): Promise<void> {
  const c = clients(emulator);
  const container = c.blob().getContainerClient('kept');
  await container.create();
  const queue = c.queue().getQueueClient('kept');
  await queue.create();
  const table = c.table('kept');
  await table.createTable();
  await Promise.all([
    inParallel(BLOBS, 8, (i) => container.getBlockBlobClient(`b${i}`).uploadData(Buffer.from(`blob ${i}`))),
    inParallel(MESSAGES, 8, (i) => queue.sendMessage(`message ${i}`)),
    inParallel(ENTITIES, 8, (i) => table.createEntity({ partitionKey: 'p', rowKey: `r${i}`, n: i })),
  ]);
}

/** Counts what a running emulator serves; a missing container/queue/table counts 0. */
async function countAll(emulator: Emulator): Promise<{ blobs: number; messages: number; entities: number }> {
  const c = clients(emulator);
  const zeroIfMissing = (err: { statusCode?: number }): number => {
    if (err.statusCode === 404) return 0;
    throw err;
  };
  const blobs = await (async () => {
    let n = 0;
    for await (const item of c.blob().getContainerClient('kept').listBlobsFlat()) if (item) n++;
    return n;
  })().catch(zeroIfMissing);
  const messages = await c.queue().getQueueClient('kept').getProperties().then((p) => p.approximateMessagesCount ?? 0, zeroIfMissing);
  const entities = await (async () => {
    let n = 0;
    for await (const item of c.table('kept').listEntities()) if (item) n++;
    return n;
  })().catch(zeroIfMissing);
  return { blobs, messages, entities };
}

describe('Shutdown saves everything (disk mode, real engine, real SDK clients)', function () {
  this.timeout(120_000);
  const made: Emulator[] = [];
  const folders: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((e) => e.dispose()));
    for (const f of folders.splice(0)) fs.rmSync(f, { recursive: true, force: true });
  });
  const emulatorOn = (location: string, log: EmulatorLog, bounds?: Partial<LifecycleBounds>): Emulator => {
    const e = diskEmulator(location, log, bounds);
    made.push(e);
    return e;
  };
  const folder = (): string => {
    const f = tempDir('emu-shutdown-');
    folders.push(f);
    return f;
  };

  it('dispose() saves blobs, messages and entities although the log throws from its second line on', async () => {
    const location = folder();
    const log = new ClosingLog();
    const first = emulatorOn(location, log);
    await startAll(first);
    await writeAll(first);
    assert.ok(log.calls > 1, 'the log has been "closed" (it threw) before the shutdown');
    // Right after the writes: well inside azurite's 5 s autosave interval.
    await first.dispose();
    // What is on disk the moment dispose() resolves (a VS Code extension host exits then): copied
    // synchronously, before any save still running in the background could finish.
    const snapshot = folder();
    fs.cpSync(location, snapshot, { recursive: true });
    for (const kind of ['blob', 'queue', 'table'] as const) {
      assert.ok(!fs.existsSync(path.join(snapshot, markerFileName(kind))), `no unfinished-save marker for ${kind}`);
    }

    const keep = new KeepLog();
    const second = emulatorOn(snapshot, keep);
    await startAll(second);
    assert.deepEqual(await countAll(second), { blobs: BLOBS, messages: MESSAGES, entities: ENTITIES });
    assert.ok(!keep.lines.some((l) => l.includes('did not finish saving')), keep.lines.join('\n'));
  });

  it("one service's failing save does not stop the others saving; the next start reports it", async () => {
    const location = folder();
    const first = emulatorOn(location, new ClosingLog());
    await startAll(first);
    await writeAll(first);
    // LokiJS writes `<db>~` and renames it over `<db>`: a folder in the way makes the blob save fail
    // (EISDIR), as a full or read-only disk would.
    const blocked = path.join(location, `${DATA_FILES.blob.db}~`);
    fs.mkdirSync(blocked);
    const outcomes = await first.stopAll();
    assert.equal(outcomes.length, 3);
    const [blob, queue, table] = outcomes;
    assert.equal(blob!.ok, false, 'the blob stop reports its failed save');
    assert.match((blob as { message: string }).message, /Blob service did not stop cleanly: .*EISDIR/);
    assert.deepEqual([queue!.ok, table!.ok], [true, true]);
    assert.ok(fs.existsSync(path.join(location, markerFileName('blob'))), 'the blob marker stays');
    assert.ok(!fs.existsSync(path.join(location, markerFileName('queue'))));
    assert.ok(!fs.existsSync(path.join(location, markerFileName('table'))));
    fs.rmdirSync(blocked);

    const keep = new KeepLog();
    const second = emulatorOn(location, keep);
    const found: UnfinishedSave[] = [];
    second.onDidFindUnfinishedSave((u) => found.push(u));
    await startAll(second);
    // Reported within the start (before a stop queued after it could write a marker of its own).
    assert.equal(found.length, 1);
    const counts = await countAll(second);
    assert.equal(counts.messages, MESSAGES);
    assert.equal(counts.entities, ENTITIES);
    assert.deepEqual(found.map((u) => [u.kind, u.location]), [['blob', location]]);
    assert.ok(keep.lines.some((l) => /^error: The last shutdown did not finish saving Blob metadata at .*; data written in the last seconds before it may be missing\.$/.test(l)), keep.lines.join('\n'));
    assert.ok(!fs.existsSync(path.join(location, markerFileName('blob'))), 'reported once: the marker is removed');
  });

  it('a SIGTERM to the engine\'s process from outside saves what was written before the process ends, and is named as the reason', async function () {
    // Windows has no signal a process can handle: a kill ends it at once.
    if (process.platform === 'win32') this.skip();
    const location = folder();
    const e = emulatorOn(location, new KeepLog());
    await startAll(e);
    const lost = new Promise<EngineLoss>((resolve) => {
      const sub = e.onDidLoseEngine((loss) => { sub.dispose(); resolve(loss); });
    });
    // Sent right after the last write, inside the 1 s save window: only a save on the signal keeps it.
    await writeAll(e);
    process.kill(e.enginePid!, 'SIGTERM');
    const loss = await lost;
    assert.equal(loss.reason, 'it was ended by SIGTERM');
    assert.deepEqual([...loss.stopped].sort(), ['blob', 'queue', 'table']);
    const again = emulatorOn(location, new KeepLog());
    await startAll(again);
    assert.deepEqual(await countAll(again), { blobs: BLOBS, messages: MESSAGES, entities: ENTITIES });
  });

  it('a restart (stop, then start on the same folder) keeps everything', async () => {
    const location = folder();
    const e = emulatorOn(location, new KeepLog());
    await startAll(e);
    await writeAll(e);
    for (const kind of ['blob', 'queue', 'table'] as const) {
      const outcome = await e.restart(kind);
      assert.ok(outcome.ok, JSON.stringify(outcome));
    }
    assert.deepEqual(await countAll(e), { blobs: BLOBS, messages: MESSAGES, entities: ENTITIES });
  });

  it('a stop lets a request in flight finish (its client gets the answer), then frees the port, and the write is kept', async () => {
    const location = folder();
    const e = emulatorOn(location, new KeepLog());
    await startAll(e, ['blob']);
    const container = clients(e).blob().getContainerClient('inflight');
    await container.create();
    const url = new URL(await container.generateSasUrl({ permissions: ContainerSASPermissions.parse('rcw'), expiresOn: new Date(Date.now() + 3_600_000) }));
    url.pathname += '/slow.bin';
    const body = Buffer.alloc(64 * 1024, 0x61);
    // An upload whose body arrives in two halves. "Expect: 100-continue" makes the server answer
    // "100 Continue" as it hands the request to azurite: from then on the request is in flight.
    const request = http.request(url, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob', 'x-ms-version': '2021-12-02', 'content-length': body.length, expect: '100-continue' } });
    const answer = new Promise<[number | undefined, string | undefined]>((resolve, reject) => {
      request.once('response', (res) => { res.resume(); res.once('end', () => resolve([res.statusCode, res.headers.connection])); });
      request.once('error', reject);
    });
    await new Promise<void>((resolve) => request.once('continue', () => resolve()));
    request.write(body.subarray(0, body.length / 2));
    const port = e.endpoint('blob')!.port;
    const stopping = e.stop('blob');
    // The stop has begun once the port takes no new connection; then the rest of the body follows.
    await waitUntil(async () => !(await accepts(port)), 10_000);
    request.end(body.subarray(body.length / 2));
    // Answered, and told to close its connection: a keep-alive client's next request does not
    // reach the closing server (it goes to a new connection, refused).
    assert.deepEqual(await answer, [201, 'close']);
    assert.deepEqual(await stopping, { ok: true });
    assert.deepEqual(await e.start('blob'), { ok: true });
    const kept = await clients(e).blob().getContainerClient('inflight').getBlobClient('slow.bin').downloadToBuffer();
    assert.ok(kept.equals(body), 'the upload answered 201 is kept');
  });

  it('a stop whose saves failed (a full disk) leaves no autosave behind to write old data over the next start\'s', async function () {
    this.timeout(60_000);
    const location = folder();
    const e = emulatorOn(location, new KeepLog());
    await startAll(e, ['blob']);
    const container = clients(e).blob().getContainerClient('kept');
    await container.create();
    await container.getBlockBlobClient('old.txt').uploadData(Buffer.from('old'));
    // LokiJS writes `<db>~` and renames it: folders in the way make both saves fail (EISDIR), as a
    // full disk would. Azurite's close stops at the extent database and never closes the other,
    // whose 5 s autosave then retries what it holds as unsaved.
    const blocked = [DATA_FILES.blob.db, DATA_FILES.blob.extentDb].map((f) => path.join(location, `${f}~`));
    for (const b of blocked) fs.mkdirSync(b);
    const failed = await e.stop('blob');
    assert.equal(failed.ok, false);
    for (const b of blocked) fs.rmdirSync(b);
    // Space again: the next start, a write, a clean stop.
    assert.deepEqual(await e.start('blob'), { ok: true });
    // (What the failed stop held is lost with its saves: the start read the file as it was.)
    const fresh = clients(e).blob().getContainerClient('fresh');
    await fresh.createIfNotExists();
    await fresh.getBlockBlobClient('new.txt').uploadData(Buffer.from('new'));
    assert.deepEqual(await e.stop('blob'), { ok: true });
    const db = path.join(location, DATA_FILES.blob.db);
    const saved = fs.readFileSync(db, 'utf8');
    assert.match(saved, /new\.txt/);
    // An autosave left behind would write within its 5 s period: watch the file for 7 s.
    const deadline = Date.now() + 7000;
    while (Date.now() < deadline) {
      assert.equal(fs.readFileSync(db, 'utf8'), saved, 'the database file was written after the stop');
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.deepEqual(await e.start('blob'), { ok: true });
    assert.ok(await clients(e).blob().getContainerClient('fresh').getBlobClient('new.txt').exists());
  });

  it('a start whose engine ends while it waits for another process\'s save runs in a new engine that is loaded as every start\'s is', async function () {
    if (process.platform === 'win32') this.skip(); // SIGKILL by pid
    const location = folder();
    const saver = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const marker = path.join(location, markerFileName('blob'));
    try {
      fs.writeFileSync(marker, JSON.stringify({ kind: 'blob', startedAtMs: Date.now(), pid: saver.pid }));
      const keep = new KeepLog();
      const e = emulatorOn(location, keep);
      const started = e.start('blob');
      await pollUntil('the start to say it waits', () => keep.lines.some((l) => /^Blob: waiting for the save of its data/.test(l)));
      const first = e.enginePid!;
      process.kill(first, 'SIGKILL');
      await pollUntil('the engine\'s loss to be noticed', () => e.engineLoadResult() === undefined);
      fs.rmSync(marker);
      const outcome = await started;
      assert.ok(outcome.ok, JSON.stringify(outcome));
      assert.notEqual(e.enginePid, first);
      assert.notEqual(e.engineLoadResult(), undefined, 'the new engine was loaded (its memory default, its heap cap)');
      await e.stopAll();
    } finally {
      saver.kill();
    }
  });

  it('a start or clean waits for a save of the same data that another process still writes (a reloaded window\'s engine), and past the bound refuses, naming it', async () => {
    const location = folder();
    const first = emulatorOn(location, new KeepLog());
    await startAll(first);
    await writeAll(first);
    await first.stopAll();
    // Another process's save under way, as its marker says (./shutdownMarker.ts): a live process's id, begun now.
    const saver = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const marker = path.join(location, markerFileName('blob'));
    const saving = (): void => fs.writeFileSync(marker, JSON.stringify({ kind: 'blob', startedAtMs: Date.now(), pid: saver.pid }));
    try {
      saving();
      const keep = new KeepLog();
      const second = emulatorOn(location, keep);
      const started = second.start('blob');
      await pollUntil('the start to say it waits', () => keep.lines.some((l) => new RegExp(`^Blob: waiting for the save of its data in .* that process ${saver.pid} began at`).test(l)));
      assert.equal(second.status('blob').status, 'starting', 'it waits before it loads the data');
      fs.rmSync(marker);
      const outcome = await started;
      assert.ok(outcome.ok, JSON.stringify(outcome));
      assert.ok(!keep.lines.some((l) => /did not finish saving/.test(l)), 'a save that ended is not reported as unfinished');
      let blobs = 0;
      for await (const item of clients(second).blob().getContainerClient('kept').listBlobsFlat()) if (item) blobs++;
      assert.equal(blobs, BLOBS);
      await second.stopAll();

      saving();
      const impatient = emulatorOn(location, new KeepLog(), { stopMs: 300 });
      for (const outcomeOf of [() => impatient.start('blob'), () => impatient.clean('blob')]) {
        const refused = await outcomeOf();
        assert.ok(!refused.ok && refused.reason === 'timeout', JSON.stringify(refused));
        assert.match(refused.message, new RegExp(`^Blob (service could not start|data could not be cleaned): process ${saver.pid} .* is still saving Blob data in ".*" after 300 ms more\\. `));
      }
      assert.ok(fs.existsSync(path.join(location, DATA_FILES.blob.db)), 'the refused clean deleted nothing');
      // A window that closes meanwhile ends the wait at once.
      const closingLog = new KeepLog();
      const closing = emulatorOn(location, closingLog);
      const closingStart = closing.start('blob');
      await pollUntil('the closing window\'s start to wait', () => closingLog.lines.some((l) => /^Blob: waiting for the save/.test(l)));
      await closing.dispose();
      const cut = await closingStart;
      assert.ok(!cut.ok && /shutting down/.test(cut.message), JSON.stringify(cut));
      // A Stop asked while the start waits ends the wait at once: the start is cancelled, and the
      // service is stopped, with no error to show.
      const stoppingLog = new KeepLog();
      const stopping = emulatorOn(location, stoppingLog, { stopMs: 30_000 });
      const stoppedStart = stopping.start('blob');
      await pollUntil('the start to wait', () => stoppingLog.lines.some((l) => /^Blob: waiting for the save/.test(l)));
      assert.deepEqual(await stopping.stop('blob'), { ok: true });
      const stoppedOutcome = await stoppedStart;
      assert.ok(!stoppedOutcome.ok && stoppedOutcome.reason === 'cancelled', JSON.stringify(stoppedOutcome));
      assert.match(stoppedOutcome.message, new RegExp(`^Blob was not started: a stop was asked for while it waited for process ${saver.pid} to finish saving its data\\.$`));
      assert.deepEqual(stopping.status('blob'), { status: 'closed' });
      await stopping.dispose();
      // A marker naming this window's own engine (its removal failed; a crashed engine's id reused) is not waited for.
      const own = emulatorOn(location, new KeepLog());
      await own.warmUp();
      fs.writeFileSync(marker, JSON.stringify({ kind: 'blob', startedAtMs: Date.now(), pid: own.enginePid }));
      assert.ok((await own.start('blob')).ok);
      await own.stopAll();
      saving();
      // A marker whose process has ended is not waited for: it is reported as an unfinished save.
      saver.kill();
      await new Promise((resolve) => saver.once('exit', resolve));
      const found: UnfinishedSave[] = [];
      const thirdLog = new KeepLog();
      const third = emulatorOn(location, thirdLog);
      third.onDidFindUnfinishedSave((u) => found.push(u));
      assert.ok((await third.start('blob')).ok);
      assert.deepEqual(found.map((u) => u.pid), [saver.pid]);
      assert.ok(!thirdLog.lines.some((l) => /waiting for the save/.test(l)), 'not held up by the ended process');
    } finally {
      saver.kill();
    }
  });
});

/** Polls `check` every 10 ms until it holds; fails after 10 s with `what`. */
async function pollUntil(what: string, check: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
