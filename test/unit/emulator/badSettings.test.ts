/**
 * Bad setting values over the real Emulator (the bundled engine in its own process): for each value, all
 * three services are started; the ones it stops fail with a message naming the setting, end closed,
 * and hold no port. The ones it does not touch start. Refused before anything starts, or (the folder,
 * the certificate, the host) at the step that checks it.
 */
import * as assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseSettings, type RawSettings } from '../../../src/core/settings';
import { SERVICE_KINDS, type ServiceKind } from '../../../src/core/services';
import type { Emulator } from '../../../src/emulator/emulator';
import { isPortFree } from '../../../src/emulator/ports';
import { makeEmulator, tempDir } from '../helpers/emulatorFixture';

/**
 * Three ports free now on 127.0.0.1, all different: each listener stays open until all three are
 * read (ports read one after another from listeners already closed can repeat).
 */
async function freePorts(): Promise<Ports> {
  const servers = SERVICE_KINDS.map(() => net.createServer());
  try {
    await Promise.all(servers.map((s) => new Promise<void>((resolve, reject) => { s.once('error', reject); s.listen(0, '127.0.0.1', () => resolve()); })));
    const [blob, queue, table] = servers.map((s) => (s.address() as net.AddressInfo).port) as [number, number, number];
    return { blob, queue, table };
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => (s.listening ? s.close(() => resolve()) : resolve()))));
  }
}

type Ports = Record<ServiceKind, number>;
interface Case {
  readonly name: string;
  /** Settings on top of in-memory mode and three free ports. */
  readonly raw: (ports: Ports, dir: string) => RawSettings;
  /** The services it stops. */
  readonly refused: readonly ServiceKind[];
  /** The setting every refused service's message names (and a second one, for contradictions). */
  readonly names: readonly string[];
}

const ALL = SERVICE_KINDS;
const disk = (location: unknown): RawSettings => ({ inMemoryPersistence: false, location });

const CASES: readonly Case[] = [
  { name: 'blobPort 70000', raw: () => ({ blobPort: 70000 }), refused: ['blob'], names: ['azurite.blobPort'] },
  { name: 'queuePort -1', raw: () => ({ queuePort: -1 }), refused: ['queue'], names: ['azurite.queuePort'] },
  { name: 'tablePort 1.5', raw: () => ({ tablePort: 1.5 }), refused: ['table'], names: ['azurite.tablePort'] },
  { name: 'blobPort "1e4" (a string that is not digits)', raw: () => ({ blobPort: '1e4' }), refused: ['blob'], names: ['azurite.blobPort'] },
  { name: 'blobHost ""', raw: () => ({ blobHost: '' }), refused: ['blob'], names: ['azurite.blobHost'] },
  { name: 'queueHost "a b"', raw: () => ({ queueHost: 'a b' }), refused: ['queue'], names: ['azurite.queueHost'] },
  { name: 'tableHost 42', raw: () => ({ tableHost: 42 }), refused: ['table'], names: ['azurite.tableHost'] },
  { name: 'blobHost 203.0.113.7 (not this machine)', raw: () => ({ blobHost: '203.0.113.7' }), refused: ['blob'], names: ['azurite.blobHost'] },
  { name: 'blobKeepAliveTimeout -5', raw: () => ({ blobKeepAliveTimeout: -5 }), refused: ['blob'], names: ['azurite.blobKeepAliveTimeout'] },
  { name: 'queueKeepAliveTimeout "x"', raw: () => ({ queueKeepAliveTimeout: 'x' }), refused: ['queue'], names: ['azurite.queueKeepAliveTimeout'] },
  { name: 'tablePort = blobPort', raw: (p) => ({ tablePort: p.blob }), refused: ['blob', 'table'], names: ['azurite.tablePort', 'azurite.blobPort'] },
  { name: 'queuePort = blobPort, queueHost 0.0.0.0', raw: (p) => ({ queuePort: p.blob, queueHost: '0.0.0.0' }), refused: ['blob', 'queue'], names: ['azurite.queuePort', 'azurite.blobPort'] },
  { name: 'inMemoryPersistence "yes"', raw: () => ({ inMemoryPersistence: 'yes' }), refused: ALL, names: ['azurite.inMemoryPersistence'] },
  { name: 'loose 1', raw: () => ({ loose: 1 }), refused: ALL, names: ['azurite.loose'] },
  { name: 'skipApiVersionCheck "true"', raw: () => ({ skipApiVersionCheck: 'true' }), refused: ALL, names: ['azurite.skipApiVersionCheck'] },
  { name: 'disableProductStyleUrl "no"', raw: () => ({ disableProductStyleUrl: 'no' }), refused: ALL, names: ['azurite.disableProductStyleUrl'] },
  { name: 'extentMemoryLimit 0 (in memory)', raw: () => ({ extentMemoryLimit: 0 }), refused: ['blob', 'queue'], names: ['azurite.extentMemoryLimit'] },
  { name: 'location 5', raw: () => disk(5), refused: ALL, names: ['azurite.location'] },
  { name: 'location ${workspaceFolder}/x with no folder', raw: () => disk('${workspaceFolder}/x'), refused: ALL, names: ['azurite.location'] },
  { name: 'location /proc/forbidden/x', raw: () => disk('/proc/forbidden/x'), refused: ALL, names: ['azurite.location'] },
  { name: 'location below a file', raw: (_p, dir) => disk(path.join(dir, 'file', 'data')), refused: ALL, names: ['azurite.location'] },
  { name: 'location /sys/azurite (read-only)', raw: () => disk('/sys/azurite'), refused: ALL, names: ['azurite.location'] },
  { name: 'cert and key missing files', raw: () => ({ cert: '/nonexistent/c.pem', key: '/nonexistent/k.pem' }), refused: ALL, names: ['azurite.cert'] },
  { name: 'key without cert', raw: () => ({ key: '/k.pem' }), refused: ALL, names: ['azurite.key'] },
  { name: 'pwd without cert', raw: () => ({ pwd: 'hunter2' }), refused: ALL, names: ['azurite.pwd'] },
  { name: 'cert x.pfx without a password', raw: () => ({ cert: '/c/x.pfx' }), refused: ALL, names: ['azurite.cert'] },
  { name: 'oauth "basic" without HTTPS', raw: () => ({ oauth: 'basic' }), refused: ALL, names: ['azurite.oauth'] },
];

describe('Emulator: bad setting values name their setting, and nothing starts half-way (real engine)', function () {
  this.timeout(120_000);
  let emulator: Emulator;
  let dir: string;

  before(() => {
    dir = tempDir('bad-settings-');
    fs.writeFileSync(path.join(dir, 'file'), 'x');
    emulator = makeEmulator({ inMemoryPersistence: true }).emulator;
  });
  after(async () => {
    await emulator.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a port that another of our services runs on now (it was started on port 0), naming both settings', async () => {
    const ctx = { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: path.join(dir, 'global'), rootHasAzuriteData: false };
    await emulator.updateSettings(parseSettings({ inMemoryPersistence: true, blobPort: 0, queuePort: 0, tablePort: 0 }, ctx));
    try {
      assert.deepEqual(await emulator.start('blob'), { ok: true });
      const taken = emulator.endpoint('blob')!.port;
      await emulator.updateSettings(parseSettings({ inMemoryPersistence: true, blobPort: 0, queuePort: 0, tablePort: taken }, ctx));
      const outcome = await emulator.start('table');
      assert.equal(outcome.ok, false);
      if (!outcome.ok) {
        assert.equal(outcome.reason, 'setting');
        assert.equal(outcome.setting, 'azurite.tablePort');
        assert.equal(outcome.message, `azurite.tablePort is ${taken}, the port the Blob service runs on now (azurite.blobPort is 0, and it picked this free port). Set azurite.tablePort to another port (0 picks a free one).`);
      }
      assert.equal(emulator.status('table').status, 'closed');
      assert.equal(emulator.endpoint('blob')!.port, taken, 'Blob keeps running');
    } finally {
      await emulator.stopAll();
    }
  });

  it('drops the error of a start a setting refused once the settings change (the status bar shows the settings\' errors as they are now)', async () => {
    const ctx = { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: path.join(dir, 'global'), rootHasAzuriteData: false };
    await emulator.updateSettings(parseSettings({ inMemoryPersistence: true, blobPort: 70000, queuePort: 0, tablePort: 0 }, ctx));
    assert.equal((await emulator.start('blob')).ok, false);
    const refused = emulator.status('blob');
    assert.match(refused.status === 'closed' ? refused.error ?? '' : '', /^azurite\.blobPort is 70000/);
    await emulator.updateSettings(parseSettings({ inMemoryPersistence: true, blobPort: 0, queuePort: 0, tablePort: 0 }, ctx));
    assert.deepEqual(emulator.status('blob'), { status: 'closed' });
    assert.deepEqual(emulator.settingErrors('blob'), []);
  });

  it('refuses to clean while azurite.location is invalid, leaving the default folder (which other windows share) as it was', async () => {
    const ctx = { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: path.join(dir, 'global'), rootHasAzuriteData: false };
    // Data in the default folder of a window with no workspace folder.
    await emulator.updateSettings(parseSettings({ inMemoryPersistence: false, blobPort: 0, queuePort: 0, tablePort: 0 }, ctx));
    const shared = emulator.options.location;
    assert.ok((await emulator.start('blob')).ok);
    await BlobServiceClient.fromConnectionString(emulator.connectionString()).getContainerClient('shared').create();
    await emulator.stopAll();
    await emulator.updateSettings(parseSettings({ inMemoryPersistence: false, location: '${workspaceFolder}/data', blobPort: 0, queuePort: 0, tablePort: 0 }, ctx));
    assert.equal(emulator.options.location, shared, 'the folder in force falls back to the default one');
    const refused = await emulator.clean('blob');
    assert.ok(!refused.ok && refused.reason === 'setting' && refused.setting === 'azurite.location', JSON.stringify(refused));
    assert.match(refused.message, /^Blob data was not cleaned: azurite\.location /);
    assert.deepEqual(emulator.cleanRefusal('blob'), refused);
    await emulator.updateSettings(parseSettings({ inMemoryPersistence: false, blobPort: 0, queuePort: 0, tablePort: 0 }, ctx));
    assert.equal(emulator.cleanRefusal('blob'), undefined);
    assert.ok((await emulator.start('blob')).ok);
    try {
      assert.equal(await BlobServiceClient.fromConnectionString(emulator.connectionString()).getContainerClient('shared').exists(), true, 'the data is still there');
    } finally {
      await emulator.stopAll();
    }
  });

  it(`has at least 20 cases (${CASES.length})`, () => {
    assert.ok(CASES.length >= 20);
  });

  for (const c of CASES) {
    it(`${c.name}: refuses ${c.refused.join(', ')}, naming ${c.names.join(' and ')}`, async () => {
      const ports = await freePorts();
      const raw = { inMemoryPersistence: true, blobPort: ports.blob, queuePort: ports.queue, tablePort: ports.table, ...c.raw(ports, dir) };
      await emulator.updateSettings(parseSettings(raw, { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: path.join(dir, 'global'), rootHasAzuriteData: false }));
      const outcomes = await Promise.all(ALL.map((k) => emulator.start(k)));
      try {
        const failed = ALL.filter((_k, i) => !outcomes[i]!.ok);
        assert.deepEqual(failed, [...c.refused], outcomes.map((o) => (o.ok ? 'ok' : o.message)).join(' | '));
        for (const kind of c.refused) {
          const o = outcomes[ALL.indexOf(kind)]!;
          if (o.ok) continue;
          for (const key of c.names) assert.ok(o.message.includes(key), `${kind}: ${o.message}`);
          assert.equal(c.names.includes(o.setting ?? ''), true, `${kind}: setting ${o.setting}`);
          assert.equal(emulator.status(kind).status, 'closed');
          // Nothing of a refused service listens: not on its configured port (when it is one).
          const port = typeof raw[`${kind}Port`] === 'number' ? raw[`${kind}Port`] as number : undefined;
          const shared = c.refused.filter((k) => raw[`${k}Port`] === port).length > 1;
          if (port !== undefined && Number.isInteger(port) && port > 0 && port <= 65535 && !shared) assert.equal(await isPortFree('127.0.0.1', port), true, `${kind} port ${port}`);
        }
        for (const kind of ALL.filter((k) => !c.refused.includes(k))) assert.equal(emulator.status(kind).status, 'running');
      } finally {
        await emulator.stopAll();
      }
      // Every port we handed out is free again.
      const free = await Promise.all(ALL.map((k) => isPortFree('127.0.0.1', ports[k])));
      assert.deepEqual(free, [true, true, true]);
    });
  }
});
