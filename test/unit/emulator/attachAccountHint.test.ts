// What an Azurite answers a request for an account it does not serve, or signed with another key,
// as each SDK reports it, and the hint an attached Azurite's errors get for it (src/core/restErrors.ts).
import * as assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { TableClient, TableServiceClient } from '@azure/data-tables';
import { attachAccountHint, describeRestError } from '../../../src/core/restErrors';
import { disposeAfterEach, makeEmulator, startAll } from '../helpers/emulatorFixture';
describe('attachAccountHint (real azurite engine, real SDK clients)', () => {
  const track = disposeAfterEach();
  const DEV_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tp/K1SZFPTOtr/KBHBeksoGMGw==';

  it('names the account for what each service answers an account it does not serve, and the key for a wrong key; nothing for other errors', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator);
    const port = (k: 'blob' | 'queue' | 'table'): number => emulator.endpoint(k)!.port;
    const listings = (account: string, key: string): (() => Promise<unknown>)[] => {
      const cs = `DefaultEndpointsProtocol=http;AccountName=${account};AccountKey=${key};BlobEndpoint=http://127.0.0.1:${port('blob')}/${account};QueueEndpoint=http://127.0.0.1:${port('queue')}/${account};TableEndpoint=http://127.0.0.1:${port('table')}/${account};`;
      return [
        () => BlobServiceClient.fromConnectionString(cs).listContainers().next(),
        () => QueueServiceClient.fromConnectionString(cs).listQueues().next(),
        () => TableServiceClient.fromConnectionString(cs, { allowInsecureConnection: true }).listTables().next(),
      ];
    };
    const hintOf = async (list: () => Promise<unknown>, accountName: string): Promise<string> => {
      const err = await list().then(() => assert.fail('the listing was answered'), (e: unknown) => e);
      return attachAccountHint(err, { label: '127.0.0.1:10000', accountName });
    };
    for (const list of listings('nosuch', DEV_KEY)) {
      assert.equal(await hintOf(list, 'nosuch'), ' Does the Azurite at 127.0.0.1:10000 serve account nosuch? One started with AZURITE_ACCOUNTS serves only the accounts named there: give azurite.attach one of them (AccountName and AccountKey).');
    }
    for (const list of listings('devstoreaccount1', Buffer.from('another key').toString('base64'))) {
      assert.equal(await hintOf(list, 'devstoreaccount1'), ' The Azurite at 127.0.0.1:10000 refused the key of account devstoreaccount1: give azurite.attach the AccountKey that Azurite has for it.');
    }
    // What each service's error says for a person: the service's own message, never the SDK's
    // "Unexpected status code: 404" (Queue) or an XML declaration (Table).
    const said = await Promise.all([...listings('nosuch', DEV_KEY), ...listings('devstoreaccount1', Buffer.from('another key').toString('base64'))]
      .map((list) => list().then(() => assert.fail('the listing was answered'), (e: unknown) => describeRestError(e))));
    assert.deepEqual(said.slice(0, 3), Array(3).fill('The specified resource does not exist.'));
    // (Azurite's Blob service writes this one without the space after the first full stop.)
    for (const text of said.slice(3)) assert.match(text, /^Server failed to authenticate the request\. ?Make sure the value of the Authorization header is formed correctly including the signature\.$/);
    const queueGone = await QueueServiceClient.fromConnectionString(emulator.connectionString()).getQueueClient('gone').delete().catch((e: unknown) => e);
    assert.equal(describeRestError(queueGone), 'The specified queue does not exist.');
    // A container that is not there is not the account's fault.
    const missing = await BlobServiceClient.fromConnectionString(emulator.connectionString()).getContainerClient('missing').getProperties().catch((e: unknown) => e);
    assert.equal(attachAccountHint(missing, { label: 'x', accountName: 'devstoreaccount1' }), '');
    // Nor a table or an entity that is not there (the Table service's JSON error, whose code the SDK does not lift).
    const tables = TableClient.fromConnectionString(emulator.connectionString(), 'missing', { allowInsecureConnection: true });
    for (const attempt of [() => tables.getEntity('p', 'r'), () => tables.listEntities().next(), () => tables.deleteEntity('p', 'r')]) {
      const err = await attempt().then(() => assert.fail('answered'), (e: unknown) => e);
      assert.equal((err as { statusCode?: number }).statusCode, 404);
      assert.equal(attachAccountHint(err, { label: 'x', accountName: 'devstoreaccount1' }), '', describeRestError(err));
    }
  });
});
