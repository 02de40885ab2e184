/**
 * ServiceManager (src/emulator/serviceManager.ts): one service's lifecycle and its typed failures,
 * over a real engine host (the bundled engine in its worker thread). No mocks of the engine.
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
import { ServiceManager } from '../../../src/emulator/serviceManager';
import { engineFiles, tempDir } from '../helpers/emulatorFixture';

function options(kind: ServiceKind, extra: Partial<HostServiceOptions> = {}): HostServiceOptions {
  return {
    kind, host: '127.0.0.1', port: 0, inMemory: true, location: '/nonexistent', loose: false, accessLog: undefined,
    keepAliveSec: 5, https: undefined, oauth: undefined, disableProductStyleUrl: false, ...extra,
  };
}


describe('ServiceManager (real engine host)', function () {
  this.timeout(60_000);
  let host: EngineHost;
  const managers: ServiceManager[] = [];
  const manager = (kind: ServiceKind): ServiceManager => {
    const m = new ServiceManager(kind, (o) => host.createService(o));
    managers.push(m);
    return m;
  };

  before(async () => {
    host = new EngineHost({ ...engineFiles(), codeCacheDir: undefined, heapLimitMb: () => 512, log: { info() {}, error() {} } },
      { extentLimitBytes: undefined, apiVersionCheck: 'acceptNewer' });
    await host.load();
  });
  afterEach(async () => {
    for (const m of managers.splice(0)) { await m.stop(); m.dispose(); }
  });
  after(async () => {
    await host.terminate();
    host.dispose();
  });

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
