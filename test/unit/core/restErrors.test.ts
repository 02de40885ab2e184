import * as assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { TableServiceClient } from '@azure/data-tables';
import { attachAccountHint, describeRestError, restErrorMessage } from '../../../src/core/restErrors';
import { disposeAfterEach, makeEmulator, startAll } from '../helpers/emulatorFixture';

describe('restErrorMessage', () => {
  it('takes the message out of a table error\'s OData JSON body (what @azure/data-tables keeps as its message), first line only', () => {
    const body = JSON.stringify({ 'odata.error': { code: 'TableNotFound', message: { lang: 'en-US', value: 'The table specified does not exist.\nRequestId:b5eb\nTime:2026-11-26T20:59:12.713Z' } } });
    assert.equal(restErrorMessage(body), 'The table specified does not exist.');
  });

  it('gives the first line of any other message, and a JSON message without an OData error as it is', () => {
    assert.equal(restErrorMessage('The specified container does not exist.\nRequestId:1\nTime:2'), 'The specified container does not exist.');
    assert.equal(restErrorMessage('{"unexpected":true}'), '{"unexpected":true}');
    assert.equal(restErrorMessage('{not json'), '{not json');
  });
});

describe('describeRestError', () => {
  it('says what to do for each kind of certificate a client refuses, and nothing more for other errors', () => {
    assert.match(describeRestError({ message: 'self-signed certificate', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), /^self-signed certificate: VS Code does not trust .*NODE_EXTRA_CA_CERTS/);
    assert.match(describeRestError({ message: "Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list: ", code: 'ERR_TLS_CERT_ALTNAME_INVALID' }), /: the HTTPS certificate that Azurite serves does not name the host it is reached at\. Make one that names it/);
    assert.match(describeRestError({ message: 'certificate has expired', code: 'CERT_HAS_EXPIRED' }), /^certificate has expired: .*outside its validity period; make a new one\.$/);
    assert.equal(describeRestError(new Error('The specified container does not exist.\nRequestId:1')), 'The specified container does not exist.');
  });
});

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
    // A container that is not there is not the account's fault.
    const missing = await BlobServiceClient.fromConnectionString(emulator.connectionString()).getContainerClient('missing').getProperties().catch((e: unknown) => e);
    assert.equal(attachAccountHint(missing, { label: 'x', accountName: 'devstoreaccount1' }), '');
  });
});
