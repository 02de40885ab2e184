/**
 * The API-version seam (src/engine/apiVersionPolicy.ts, applied by esbuild.mjs) in the bundled
 * engine, driven by raw HTTP requests so that no SDK decides which x-ms-version is sent: Blob,
 * Queue and Table each serve a newer well-formed version under acceptNewer, answer azurite's own 400
 * under strict, refuse a malformed version except under off, and take a policy change at once,
 * on the same port, with their in-memory data intact.
 */
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  AccountSASPermissions, AccountSASResourceTypes, AccountSASServices, BlobServiceClient, StorageSharedKeyCredential,
  generateAccountSASQueryParameters,
} from '@azure/storage-blob';
import { parseSettings, type RawSettings } from '../../../src/core/settings';
import type { ServiceKind } from '../../../src/core/services';
import type { Emulator } from '../../../src/emulator/emulator';
import { bundledEngine, disposeAfterEach, engineFiles, makeEmulator, startAll } from '../helpers/emulatorFixture';

const ACCOUNT = 'devstoreaccount1';
const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const NEWER = '2099-01-01';
const MALFORMED = '2026-13-45';

/** An account SAS for list/read on every service: it signs no header, so x-ms-version is ours to set. */
function accountSas(): string {
  return generateAccountSASQueryParameters({
    expiresOn: new Date(Date.now() + 3_600_000),
    permissions: AccountSASPermissions.parse('rl'),
    services: AccountSASServices.parse('bqt').toString(),
    resourceTypes: AccountSASResourceTypes.parse('sco').toString(),
    version: '2025-01-05',
  }, new StorageSharedKeyCredential(ACCOUNT, KEY)).toString();
}

/** A read request per service that needs nothing to exist: list containers, list queues, query tables. */
function listUrl(emulator: Emulator, kind: ServiceKind, sas: string): string {
  const base = `${emulator.endpoint(kind)!.url}/${ACCOUNT}`;
  return kind === 'table' ? `${base}/Tables?${sas}` : `${base}?comp=list&${sas}`;
}

async function send(url: string, version: string | undefined): Promise<{ status: number; errorCode: string | null; body: string }> {
  const headers: Record<string, string> = { accept: 'application/json;odata=nometadata' };
  if (version !== undefined) headers['x-ms-version'] = version;
  const res = await fetch(url, { headers });
  return { status: res.status, errorCode: res.headers.get('x-ms-error-code'), body: await res.text() };
}

const settings = (raw: RawSettings) => parseSettings({ blobPort: 0, queuePort: 0, tablePort: 0, inMemoryPersistence: true, ...raw },
  { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: path.join(os.tmpdir(), 'emu-global'), rootHasAzuriteData: false });

describe('engine seam: API-version policy (raw requests, bundled engine)', function () {
  this.timeout(60_000);
  const track = disposeAfterEach();
  const sas = accountSas();
  const kinds: ServiceKind[] = ['blob', 'queue', 'table'];

  it('acceptNewer (the default) serves a newer well-formed version on Blob, Queue and Table, and logs it once per service', async () => {
    const { emulator, log } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator);
    for (const kind of kinds) {
      for (let i = 0; i < 3; i++) {
        const res = await send(listUrl(emulator, kind, sas), NEWER);
        assert.equal(res.status, 200, `${kind}: ${res.status} ${res.errorCode} ${res.body.slice(0, 300)}`);
      }
    }
    const lines = log.of('info').filter((l) => l.includes(NEWER));
    assert.equal(lines.length, 3, lines.join('\n'));
    for (const [i, name] of ['Blob', 'Queue', 'Table'].entries()) {
      assert.match(lines[i]!, new RegExp(`^${name}: a client asked for API version ${NEWER}, newer than the newest this engine knows; serving it as \\d{4}-\\d{2}-\\d{2} \\(azurite.apiVersionCheck: acceptNewer\\)\\.$`));
    }
  });

  it('acceptNewer refuses a malformed version with azurite\'s own 400, and serves known versions and requests without one', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator);
    for (const kind of kinds) {
      const bad = await send(listUrl(emulator, kind, sas), MALFORMED);
      assert.equal(bad.status, 400, kind);
      assert.equal(bad.errorCode, 'InvalidHeaderValue', kind);
      assert.match(bad.body, new RegExp(`The API version ${MALFORMED} is not supported by Azurite`), kind);
      assert.equal((await send(listUrl(emulator, kind, sas), '2025-01-05')).status, 200, kind);
      assert.equal((await send(listUrl(emulator, kind, sas), undefined)).status, 200, kind);
    }
  });

  it('strict, set live, answers a newer version (today\'s SDK among them) with azurite\'s 400; acceptNewer and off apply at once, on the same port, keeping in-memory data', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator);
    // Written by today's SDK under the default, which strict would refuse.
    const container = BlobServiceClient.fromConnectionString(emulator.connectionString()).getContainerClient('kept');
    await container.create();
    await container.getBlockBlobClient('b').upload('data', 4);
    const ports = kinds.map((k) => emulator.endpoint(k)!.port);
    await emulator.updateSettings(settings({ apiVersionCheck: 'strict' }));
    await assert.rejects(container.getBlockBlobClient('b').downloadToBuffer(), (err: { statusCode?: number }) => err.statusCode === 400);
    for (const kind of kinds) {
      const res = await send(listUrl(emulator, kind, sas), NEWER);
      assert.equal(res.status, 400, kind);
      assert.equal(res.errorCode, 'InvalidHeaderValue', kind);
    }
    assert.deepEqual(await emulator.updateSettings(settings({ apiVersionCheck: 'acceptNewer' })), []);
    assert.deepEqual(emulator.servicesNeedingRestart(), []);
    for (const kind of kinds) assert.equal((await send(listUrl(emulator, kind, sas), NEWER)).status, 200, kind);
    for (const kind of kinds) assert.equal((await send(listUrl(emulator, kind, sas), MALFORMED)).status, 400, kind);
    await emulator.updateSettings(settings({ apiVersionCheck: 'off' }));
    for (const kind of kinds) assert.equal((await send(listUrl(emulator, kind, sas), MALFORMED)).status, 200, kind);
    assert.deepEqual(kinds.map((k) => emulator.endpoint(k)!.port), ports);
    assert.equal((await container.getBlockBlobClient('b').downloadToBuffer()).toString(), 'data');
  });

  it('azurite.skipApiVersionCheck: true wins over apiVersionCheck strict (as other extensions write it), live', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, apiVersionCheck: 'strict' }));
    await startAll(emulator, ['queue']);
    assert.equal((await send(listUrl(emulator, 'queue', sas), MALFORMED)).status, 400);
    await emulator.updateSettings(settings({ apiVersionCheck: 'strict', skipApiVersionCheck: true }));
    assert.equal((await send(listUrl(emulator, 'queue', sas), MALFORMED)).status, 200);
    assert.equal((await send(listUrl(emulator, 'queue', sas), NEWER)).status, 200);
  });

  it('names, for the tooltips, the newest version each service of the bundled azurite knows', () => {
    const engine = bundledEngine() as unknown as { Emulator: new (...args: unknown[]) => Emulator };
    const bundled = new engine.Emulator(settings({}), { info() {}, error() {}, access() {}, debug() {} }, engineFiles());
    for (const kind of kinds) {
      const known = (require(`azurite/dist/src/${kind}/utils/constants`) as { ValidAPIVersions: string[] }).ValidAPIVersions;
      assert.equal(bundled.newestApiVersion(kind), [...known].sort().at(-1), kind);
    }
  });
});
