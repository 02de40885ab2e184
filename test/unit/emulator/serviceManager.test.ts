/**
 * ServiceManager (src/emulator/serviceManager.ts): one service's lifecycle and its typed failures,
 * over a real engine host (the bundled engine in its own process). No mocks of the engine.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { isPortFree } from '../../../src/emulator/ports';
import * as path from 'node:path';
import type { ServiceState } from '../../../src/core/lifecycle';
import { failure } from '../../../src/core/outcome';
import type { ServiceKind } from '../../../src/core/services';
import { EngineHost, type HostServiceOptions } from '../../../src/emulator/engineHost';
import { explainConflict, ServiceManager, writableFolderProblem } from '../../../src/emulator/serviceManager';
import { LIFECYCLE_BOUNDS } from '../../../src/core/bounds';
import { engineFiles, tempDir } from '../helpers/emulatorFixture';

function options(kind: ServiceKind, extra: Partial<HostServiceOptions> = {}): HostServiceOptions {
  return {
    kind, host: '127.0.0.1', port: 0, inMemory: true, location: '/nonexistent', loose: false, accessLog: undefined,
    keepAliveSec: 5, https: undefined, oauth: undefined, disableProductStyleUrl: false, ...extra,
  };
}


/**
 * Registers hooks (in the calling describe) for one real engine host, loaded before the tests, and
 * returns a maker of ServiceManagers over it that are stopped and disposed after each test.
 */
function realEngineHost(): { manager: (kind: ServiceKind, context?: ConstructorParameters<typeof ServiceManager>[2]) => ServiceManager } {
  let host: EngineHost;
  const managers: ServiceManager[] = [];
  before(async () => {
    host = new EngineHost({ ...engineFiles(), codeCacheDir: undefined, heapLimitMb: () => 512, log: { info() {}, error() {} } },
      { extentLimitBytes: undefined, apiVersionCheck: 'acceptNewer' });
    await host.load();
  });
  afterEach(async () => { for (const m of managers.splice(0)) { await m.stop(); m.dispose(); } });
  after(async () => { await host.terminate(); host.dispose(); });
  return {
    manager: (kind, context = {}) => {
      const m = new ServiceManager(kind, (o) => host.createService(o), context);
      managers.push(m);
      return m;
    },
  };
}

/**
 * Runs `test` against a real engine host whose thread is kept busy until it runs out of memory
 * (its test hook), so that nothing sent to it finishes: a step that hangs, on the real engine.
 * Resolves once the engine has exited.
 */
async function withBusyEngine(test: (host: EngineHost) => Promise<void>): Promise<void> {
  const busy = new EngineHost({ ...engineFiles(), codeCacheDir: undefined, heapLimitMb: () => 512, log: { info() {}, error() {} } },
    { extentLimitBytes: undefined, apiVersionCheck: 'acceptNewer' });
  try {
    await busy.load();
    const exited = new Promise<void>((resolve) => { busy.onDidExit(() => resolve()); });
    await busy.exhaustHeapForTest();
    await test(busy);
    await exited;
  } finally {
    await busy.terminate();
    busy.dispose();
  }
}

describe('ServiceManager (real engine host)', function () {
  this.timeout(60_000);
  const { manager } = realEngineHost();

  it('starts (closed → starting → running), stops (→ closing → closed) and frees the port', async () => {
    const m = manager('blob');
    const seen: ServiceState['status'][] = [];
    m.onDidChangeState((s) => seen.push(s.status));
    assert.deepEqual(await m.start(options('blob')), { ok: true });
    const state = m.state;
    assert.equal(state.status, 'running');
    const port = state.status === 'running' ? state.endpoint.port : 0;
    assert.ok(port > 0);
    assert.deepEqual(await m.stop(), { ok: true });
    assert.deepEqual(seen, ['starting', 'running', 'closing', 'closed']);
    assert.ok(await isPortFree('127.0.0.1', port));
  });

  it('refuses a start blocked by settings: reason "setting", the first key, every message; nothing listens', async () => {
    const m = manager('queue');
    const outcome = await m.start(options('queue'), [
      { key: 'azurite.queuePort', message: 'azurite.queuePort is 70000; use 0–65535.' },
      { key: 'azurite.loose', message: 'azurite.loose is "yes"; use true or false.' },
    ]);
    assert.deepEqual(outcome, failure('setting', 'azurite.queuePort is 70000; use 0–65535. azurite.loose is "yes"; use true or false.', { setting: 'azurite.queuePort' }));
    assert.deepEqual(m.state, { status: 'closed', error: outcome.ok ? '' : outcome.message });
  });

  it('returns the failure a start check gives, and keeps it on the state', async () => {
    const m = manager('blob');
    const refused = failure('memoryLimit', 'azurite.extentMemoryLimit asks for 1 MB …', { setting: 'azurite.extentMemoryLimit' });
    assert.deepEqual(await m.start(options('blob'), [], async () => refused), refused);
    assert.deepEqual(m.state, { status: 'closed', error: refused.message });
  });

  it('a start check that throws (the engine ended while it was asked) resolves to an engine failure, kept on the state: start() never rejects', async () => {
    const m = manager('blob');
    const outcome = await m.start(options('blob'), [], async () => { throw new Error('the emulator engine ended (exit code 1)'); });
    assert.deepEqual(outcome, failure('engine', 'Blob service could not start: the emulator engine ended (exit code 1)'));
    assert.deepEqual(m.state, { status: 'closed', error: 'Blob service could not start: the emulator engine ended (exit code 1)' });
  });

  it('names azurite.location when the data folder cannot be made (a file stands in its way)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'file');
    fs.writeFileSync(file, 'x');
    const m = manager('table');
    const outcome = await m.start(options('table', { inMemory: false, location: path.join(file, 'data') }));
    assert.equal(outcome.ok, false);
    if (!outcome.ok) {
      assert.equal(outcome.reason, 'location');
      assert.equal(outcome.setting, 'azurite.location');
      assert.match(outcome.message, /^azurite\.location resolves to /);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('names azurite.cert when the certificate file is missing, before anything is created', async () => {
    const m = manager('blob');
    const outcome = await m.start(options('blob', { https: { cert: '/nonexistent/cert.pem', key: '/nonexistent/key.pem' } }));
    assert.equal(outcome.ok, false);
    if (!outcome.ok) {
      assert.equal(outcome.reason, 'certificate');
      assert.equal(outcome.setting, 'azurite.cert');
    }
    assert.equal(m.state.status, 'closed');
  });

  it('reports a taken port as reason "port" with who holds it and a free port to use', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const m = manager('queue');
      const outcome = await m.start(options('queue', { port }));
      assert.equal(outcome.ok, false);
      if (!outcome.ok) {
        assert.equal(outcome.reason, 'port');
        assert.equal(outcome.setting, 'azurite.queuePort');
        assert.equal(outcome.conflict?.holder, 'other');
        assert.equal(outcome.conflict?.port, port);
        assert.ok(outcome.conflict?.freePort !== undefined && outcome.conflict.freePort > port);
      }
    } finally {
      holder.close();
    }
  });

  it('refuses a start while running and a clean while running, as reason "state"', async () => {
    const m = manager('blob');
    await m.start(options('blob'));
    const again = await m.start(options('blob'));
    assert.equal(again.ok, false);
    if (!again.ok) assert.equal(again.reason, 'state');
    const clean = await m.clean(options('blob'));
    assert.equal(clean.ok, false);
    if (!clean.ok) assert.deepEqual([clean.reason, clean.message], ['state', 'Cannot clean the Blob service: it is running.']);
  });

  it('shares a stop under way, and cleans a stopped service', async () => {
    const m = manager('queue');
    await m.start(options('queue'));
    const [a, b] = await Promise.all([m.stop(), m.stop()]);
    assert.deepEqual([a, b], [{ ok: true }, { ok: true }]);
    assert.deepEqual(await m.clean(options('queue')), { ok: true });
    assert.deepEqual(m.state, { status: 'closed' });
  });

  it('engineLost closes a running service with the message; on a stopped one it changes nothing', async () => {
    const running = manager('table');
    await running.start(options('table'));
    running.engineLost('The emulator engine stopped: test.');
    assert.deepEqual(running.state, { status: 'closed', error: 'The emulator engine stopped: test.' });
    const stopped = manager('blob');
    stopped.engineLost('The emulator engine stopped: test.');
    assert.deepEqual(stopped.state, { status: 'closed' });
  });
});

describe('ServiceManager: the data folder check (no recursive mkdir)', function () {
  this.timeout(30_000);
  const dirs: string[] = [];
  afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

  it('creates every missing level below the nearest existing folder, one at a time', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const target = path.join(dir, 'a', 'b', 'c');
    assert.equal(await writableFolderProblem(target), undefined);
    assert.ok(fs.statSync(target).isDirectory());
    assert.deepEqual(fs.readdirSync(target), [], 'the write probe is removed');
    assert.equal(await writableFolderProblem(target), undefined, 'an existing folder is fine');
  });

  it('fails with ENOTDIR when a file stands where a folder should be, creating nothing', async () => {
    const dir = tempDir();
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'file'), 'x');
    const err = await writableFolderProblem(path.join(dir, 'file', 'data', 'more'));
    assert.equal(err?.code, 'ENOTDIR');
    assert.match(err!.message, /"[^"]*file" is a file, not a folder/);
    assert.deepEqual(fs.readdirSync(dir), ['file']);
  });

  it('fails in a folder nobody may write to (/sys: EPERM even for root; EACCES otherwise)', async () => {
    const err = await writableFolderProblem('/sys/azurite-test-data');
    assert.ok(err !== undefined && ['EPERM', 'EACCES', 'EROFS'].includes(String(err.code)), String(err?.code));
    assert.equal(fs.existsSync('/sys/azurite-test-data'), false);
  });

  it('fails in a read-only folder (mode 0555) for a user it binds; root may write anyway', async function () {
    const dir = tempDir();
    dirs.push(dir);
    fs.chmodSync(dir, 0o555);
    const err = await writableFolderProblem(path.join(dir, 'data'));
    fs.chmodSync(dir, 0o755);
    if (process.getuid?.() === 0) assert.equal(err, undefined, 'root writes through 0555');
    else assert.equal(err?.code, 'EACCES');
  });

  it('ends at once on /proc/forbidden/x, where fs.mkdir({ recursive: true }) never returns', async () => {
    const began = performance.now();
    const err = await writableFolderProblem('/proc/forbidden/x');
    const elapsed = performance.now() - began;
    assert.ok(err !== undefined && ['ENOENT', 'EACCES', 'EPERM'].includes(String(err.code)), String(err?.code));
    assert.ok(elapsed < LIFECYCLE_BOUNDS.folderMs, `took ${elapsed} ms`);
  });
});

describe('ServiceManager: every step is bounded (real engine host)', function () {
  this.timeout(60_000);
  const { manager } = realEngineHost();

  it('a start on /proc/forbidden/x fails within the folder bound, naming azurite.location, and ends closed', async () => {
    const m = manager('blob');
    const began = performance.now();
    const outcome = await m.start(options('blob', { inMemory: false, location: '/proc/forbidden/x' }));
    const elapsed = performance.now() - began;
    assert.ok(elapsed < LIFECYCLE_BOUNDS.folderMs, `took ${elapsed} ms`);
    assert.equal(outcome.ok, false);
    if (!outcome.ok) {
      assert.equal(outcome.setting, 'azurite.location');
      assert.match(outcome.message, /^azurite\.location resolves to "\/proc\/forbidden\/x", which cannot be created or written/);
    }
    assert.equal(m.state.status, 'closed');
  });

  it('a listen past its bound fails as "timeout" naming the host setting; the late server is stopped, the port free', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const bounds = { listenMs: 1 };
    const m = manager('queue', { bounds });
    const outcome = await m.start(options('queue', { port }));
    assert.equal(outcome.ok, false);
    if (!outcome.ok) {
      assert.equal(outcome.reason, 'timeout');
      assert.equal(outcome.setting, 'azurite.queueHost');
      assert.match(outcome.message, new RegExp(`^Queue service could not start: listening on 127\\.0\\.0\\.1:${port} did not finish within 1 ms\\. Check azurite\\.queueHost`));
    }
    assert.equal(m.state.status, 'closed');
    // The engine's listen completes after the bound and is stopped; the next start waits for that
    // stop and gets the same port (EADDRINUSE if the late server still listened).
    bounds.listenMs = 10_000;
    assert.deepEqual(await m.start(options('queue', { port })), { ok: true });
    assert.deepEqual(await m.stop(), { ok: true });
    assert.ok(await isPortFree('127.0.0.1', port));
  });

  it('a start whose previous late start is still under way fails after its own bound, naming it, instead of waiting for good', async () => {
    // A start sent to the busy engine neither listens nor fails.
    await withBusyEngine(async (busy) => {
      const m = new ServiceManager('blob', (o) => busy.createService(o), { bounds: { listenMs: 50 } });
      const first = await m.start(options('blob'));
      assert.equal(!first.ok && first.reason, 'timeout');
      const second = await m.start(options('blob'));
      assert.equal(second.ok, false);
      if (!second.ok) {
        assert.equal(second.reason, 'timeout');
        assert.equal(second.message, 'Blob service could not start: its previous start did not finish in time and is still under way in the emulator engine (waited 50 ms more). Reload the window to end it.');
      }
      assert.equal(m.state.status, 'closed');
      m.dispose();
    });
  });

  it('a clean waits for a late start, and a start for a late clean, failing after the bound, naming it', async () => {
    // A late start loads the data and saves it again when it is undone: a clean meanwhile would find
    // its data back. A late clean still deletes: a start meanwhile would load what it deletes next.
    await withBusyEngine(async (busy) => {
      const blob = new ServiceManager('blob', (o) => busy.createService(o), { bounds: { listenMs: 50 } });
      const waitedFor: string[] = [];
      const table = new ServiceManager('table', (o) => busy.createService(o), { bounds: { cleanMs: 50, stopMs: 50 }, onWaitForLateStop: (what) => waitedFor.push(what) });
      assert.equal((await blob.start(options('blob'))).ok, false);
      assert.deepEqual(await blob.clean(options('blob')), failure('timeout',
        'Blob data could not be cleaned: its previous start did not finish in time and is still under way in the emulator engine (waited 50 ms more). Reload the window to end it.'));
      assert.equal(blob.mayHoldPort, true, 'a late start may still listen');
      const cleaned = await table.clean(options('table'));
      assert.equal(!cleaned.ok && cleaned.reason, 'timeout');
      // A late clean holds no port: a probe of it may find another Azurite there.
      assert.equal(table.mayHoldPort, false);
      assert.deepEqual(await table.start(options('table')), failure('timeout',
        'Table service could not start: its previous clean is still deleting its data in the emulator engine (waited 50 ms more). Reload the window to end it.'));
      assert.deepEqual(waitedFor, ['clean']);
      blob.dispose();
      table.dispose();
    });
  });

  it('never offers a port our other services are configured to use after a conflict', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const reserved = new Set([port + 1, port + 2]);
      const conflict = await explainConflict('blob', '127.0.0.1', port, reserved);
      assert.equal(conflict.holder, 'other');
      assert.ok(conflict.freePort !== undefined && conflict.freePort > port + 2, String(conflict.freePort));
      const m = manager('blob', { reservedPorts: () => reserved });
      const outcome = await m.start(options('blob', { port }));
      assert.equal(!outcome.ok && outcome.conflict?.freePort !== undefined && !reserved.has(outcome.conflict.freePort), true);
    } finally {
      holder.close();
    }
  });
});
