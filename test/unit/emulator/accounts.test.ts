/**
 * Custom accounts in the real engine with the newest SDKs: set before the engine starts (the
 * engine process's AZURITE_ACCOUNTS at start) and while services run (read again at once, no restart), the
 * development account kept, and the extension host's own environment untouched.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { TableClient } from '@azure/data-tables';
import { generateAccountKey } from '../../../src/core/accounts';
import { disposeAfterEach, makeEmulator, startAll } from '../helpers/emulatorFixture';

describe('Custom accounts (real engine, real SDKs)', function () {
  this.timeout(60_000);
  const track = disposeAfterEach();

  it('serves accounts set before the engine starts, besides the development account', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    const tenant = { name: 'tenant1', key: generateAccountKey() };
    await emulator.setAccounts([tenant]);
    await startAll(emulator);
    assert.equal(process.env['AZURITE_ACCOUNTS'], undefined, 'the host\'s environment is untouched');
    if (process.platform === 'linux') {
      // Every user of the machine can read a process's command line; the keys are not on it.
      const cmdline = fs.readFileSync(`/proc/${emulator.enginePid}/cmdline`, 'utf8');
      assert.match(cmdline, /engine-?process/i);
      assert.ok(!cmdline.includes(tenant.key) && !cmdline.includes('tenant1'), 'no account on the engine\'s command line');
    }
    const cs = emulator.connectionString(tenant);
    assert.match(cs, /AccountName=tenant1;.*BlobEndpoint=http:\/\/127\.0\.0\.1:\d+\/tenant1;/);
    await BlobServiceClient.fromConnectionString(cs).getContainerClient('mine').create();
    await QueueServiceClient.fromConnectionString(cs).getQueueClient('mine').create();
    await TableClient.fromConnectionString(cs, 'mine', { allowInsecureConnection: true }).createTable();
    const dev = BlobServiceClient.fromConnectionString(emulator.connectionString());
    await dev.getContainerClient('dev').create();
    const names = async (client: BlobServiceClient) => { const out: string[] = []; for await (const c of client.listContainers()) out.push(c.name); return out; };
    assert.deepEqual(await names(BlobServiceClient.fromConnectionString(cs)), ['mine'], 'each account has its own containers');
    assert.deepEqual(await names(dev), ['dev']);
    assert.deepEqual(emulator.accounts().map((a) => a.name), ['devstoreaccount1', 'tenant1']);
  });

  it('takes a change while services run, without a restart, and refuses a wrong key', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator, ['blob']);
    const port = emulator.endpoint('blob')!.port;
    const tenant = { name: 'tenant2', key: generateAccountKey() };
    const client = BlobServiceClient.fromConnectionString(emulator.connectionString(tenant));
    await assert.rejects(client.getContainerClient('late').create(), (err: { statusCode?: number }) => err.statusCode === 403 || err.statusCode === 404);
    await emulator.setAccounts([tenant]);
    await client.getContainerClient('late').create();
    assert.equal(emulator.endpoint('blob')!.port, port, 'no restart');
    const wrong = BlobServiceClient.fromConnectionString(emulator.connectionString({ name: 'tenant2', key: generateAccountKey() }));
    await assert.rejects(wrong.getContainerClient('other').create(), (err: { statusCode?: number }) => err.statusCode === 403);
    await emulator.setAccounts([]);
    await assert.rejects(client.getContainerClient('gone').create(), (err: { statusCode?: number }) => err.statusCode === 403 || err.statusCode === 404);
    await BlobServiceClient.fromConnectionString(emulator.connectionString()).getContainerClient('dev').create();
  });

  it('accepts requests signed with an account\'s second key (AZURITE_ACCOUNTS name:key1:key2), as Azurite does', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    const tenant = { name: 'tenant3', key: generateAccountKey(), secondaryKey: generateAccountKey() };
    await emulator.setAccounts([tenant]);
    await startAll(emulator, ['blob', 'queue']);
    const second = { name: tenant.name, key: tenant.secondaryKey };
    await BlobServiceClient.fromConnectionString(emulator.connectionString(second)).getContainerClient('rotated').create();
    await QueueServiceClient.fromConnectionString(emulator.connectionString(second)).getQueueClient('rotated').create();
    const names: string[] = [];
    for await (const c of BlobServiceClient.fromConnectionString(emulator.connectionString(tenant)).listContainers()) names.push(c.name);
    assert.deepEqual(names, ['rotated'], 'the first key sees what the second made');
  });
});
