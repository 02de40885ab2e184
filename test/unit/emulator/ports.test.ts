/** Port probing against real servers on loopback: an Azurite, a plain HTTP server, nothing. */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import { findFreePort, isPortFree, probePortHolder, servedElsewhere, waitForPort } from '../../../src/emulator/ports';
import { parseSettings } from '../../../src/core/settings';
import { disposeAfterEach, makeEmulator, startAll } from '../helpers/emulatorFixture';

async function listen(handler: http.RequestListener): Promise<http.Server> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}
const portOf = (s: net.Server) => (s.address() as net.AddressInfo).port;

describe('emulator/ports', () => {
  const track = disposeAfterEach();

  it('tells a real Azurite by its Server header, another HTTP server, and a closed port', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator, ['table']);
    const azurite = await probePortHolder('127.0.0.1', emulator.endpoint('table')!.port);
    assert.equal(azurite.kind, 'azurite');
    assert.match(azurite.server!, /^Azurite-Table\/3\./);

    const plain = await listen((_req, res) => { res.setHeader('Server', 'nginx'); res.end(); });
    const port = portOf(plain);
    try {
      assert.deepEqual(await probePortHolder('127.0.0.1', port), { kind: 'other', server: 'nginx', protocol: 'http', address: '127.0.0.1' });
    } finally {
      await new Promise((r) => plain.close(r));
    }
    // 0.0.0.0 is probed on loopback.
    assert.deepEqual(await probePortHolder('0.0.0.0', port), { kind: 'none' });
  });

  it('probes "::" on both loopbacks (a holder on 127.0.0.1 takes the port from a start there), and 0.0.0.0 on 127.0.0.1 alone (one on ::1 leaves it free)', async () => {
    const v4 = await listen((_req, res) => { res.setHeader('Server', 'Azurite-Blob/3.35.0'); res.end(); });
    try {
      assert.deepEqual(await probePortHolder('::', portOf(v4)), { kind: 'azurite', server: 'Azurite-Blob/3.35.0', protocol: 'http', address: '127.0.0.1' });
      assert.equal(await isPortFree('::', portOf(v4)), false, 'the premise: a start on :: cannot have the port');
      // Clients reach it where it answered: [::1], the wildcard's own client address, would be refused.
      assert.deepEqual(await servedElsewhere({ host: '::', port: portOf(v4) }, 'blob'),
        { description: `127.0.0.1:${portOf(v4)} already answers as Azurite-Blob/3.35.0`, https: false, host: '127.0.0.1' });
    } finally {
      await new Promise((r) => v4.close(r));
    }
    const v6 = http.createServer((_req, res) => { res.setHeader('Server', 'nginx'); res.end(); });
    const listening = await new Promise<boolean>((resolve) => {
      v6.once('error', () => resolve(false));
      v6.listen(0, '::1', () => resolve(true));
    });
    if (!listening) return; // no IPv6 loopback on this machine: the IPv4 half above is the test
    try {
      assert.deepEqual(await probePortHolder('::', portOf(v6)), { kind: 'other', server: 'nginx', protocol: 'http', address: '::1' });
      assert.equal(await isPortFree('0.0.0.0', portOf(v6)), true, 'the premise: 0.0.0.0 shares the port with ::1');
      assert.deepEqual(await probePortHolder('0.0.0.0', portOf(v6)), { kind: 'none' });
    } finally {
      await new Promise((r) => v6.close(r));
    }
  });

  it('waitForPort resolves once a port accepts connections, names it after its timeout, and stops at once when its signal aborts', async () => {
    const port = (await findFreePort('127.0.0.1', 20_000 + Math.floor(Math.random() * 20_000)))!;
    const late = net.createServer();
    const waiting = waitForPort('127.0.0.1', port, 10_000);
    // A poll, not a sleep: the wait has tried (and been refused) at least once before the port opens.
    await new Promise((r) => setTimeout(r, 120));
    await new Promise<void>((r) => late.listen(port, '127.0.0.1', r));
    try {
      await waiting;
    } finally {
      late.close();
    }
    await assert.rejects(waitForPort('127.0.0.1', port, 100), new RegExp(`nothing answers on 127\\.0\\.0\\.1:${port} after 100 ms`));
    const ended = new AbortController();
    const began = Date.now();
    const aborted = waitForPort('127.0.0.1', port, 10_000, ended.signal);
    setImmediate(() => ended.abort(new Error('task ended')));
    await assert.rejects(aborted, /task ended/);
    assert.ok(Date.now() - began < 2000, `ended ${Date.now() - began} ms after it began, not at its 10 s timeout`);
  });

  it('calls a listener that never answers "other" after the timeout', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      assert.deepEqual(await probePortHolder('127.0.0.1', portOf(silent), 200), { kind: 'other' });
    } finally {
      silent.close();
    }
  });

  it('a start refused for a taken port keeps its error until a setting it starts with changes (the status bar item stops showing it)', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const { emulator } = track(makeEmulator({ inMemoryPersistence: true, blobPort: port }));
      const refused = await emulator.start('blob');
      assert.ok(!refused.ok && refused.reason === 'port', JSON.stringify(refused));
      const errorOf = (): string | undefined => { const st = emulator.status('blob'); return st.status === 'closed' ? st.error : undefined; };
      assert.ok(errorOf() !== undefined);
      const settingsWith = (raw: Record<string, unknown>) => parseSettings({ queuePort: 0, tablePort: 0, inMemoryPersistence: true, ...raw }, { workspaceFolder: undefined, homeDir: '/tmp', globalStoragePath: '/tmp', rootHasAzuriteData: false });
      await emulator.updateSettings(settingsWith({ blobPort: port, silent: true }));
      assert.ok(errorOf() !== undefined, 'a setting Blob does not start with: the error stays');
      await emulator.updateSettings(settingsWith({ blobPort: 0, silent: true }));
      assert.equal(errorOf(), undefined, 'azurite.blobPort changed: the error of the port taken goes');
    } finally {
      taken.close();
    }
  });

  it('a start that lost its port to another Azurite shows that Azurite once a probe finds it, not the port error', async () => {
    // Another Azurite's Blob service (its Server header), which began listening as ours started.
    const other = http.createServer((_req, res) => { res.writeHead(403, { Server: 'Azurite-Blob/3.37.0' }); res.end(); });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as net.AddressInfo).port;
    try {
      const { emulator } = track(makeEmulator({ inMemoryPersistence: true, blobPort: port }));
      const refused = await emulator.start('blob');
      assert.ok(!refused.ok && refused.reason === 'port' && refused.conflict?.holder === 'azurite', JSON.stringify(refused));
      const before = emulator.status('blob');
      assert.ok(before.status === 'closed' && before.error !== undefined, JSON.stringify(before));
      assert.match((await emulator.servedElsewhere('blob'))!, new RegExp(`127\\.0\\.0\\.1:${port} already answers as Azurite-Blob/3\\.37\\.0`));
      assert.deepEqual(emulator.status('blob'), { status: 'closed' });
      assert.deepEqual(emulator.servedElsewhereKinds(), ['blob']);
    } finally {
      other.close();
    }
  });

  it('finds the next free port, skipping taken and excluded ones', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const port = portOf(taken);
      assert.equal(await isPortFree('127.0.0.1', port), false);
      const free = await findFreePort('127.0.0.1', port, 50, new Set([port + 1]));
      assert.ok(free !== undefined && free > port + 1, String(free));
      assert.equal(await isPortFree('127.0.0.1', free!), true);
      assert.equal(await findFreePort('127.0.0.1', port, 1), undefined);
    } finally {
      taken.close();
    }
  });
});
