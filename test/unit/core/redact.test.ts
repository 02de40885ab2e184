import * as assert from 'node:assert/strict';
import { redactCredentials } from '../../../src/core/redact';

describe('redactCredentials', () => {
  it('keeps only the scheme of authorization headers in azurite\'s logged request headers, and hides SAS signatures', () => {
    const line = 'BlobStorageContextMiddleware: RequestHeaders:{"host":"127.0.0.1:10000","authorization":"Bearer eyJ0.eyJ1.sig","x-ms-copy-source-authorization":"Bearer abc","Proxy-Authorization":"Basic dXNlcjpwdw==","x-ms-version":"2025-01-05"}';
    assert.equal(redactCredentials(line), 'BlobStorageContextMiddleware: RequestHeaders:{"host":"127.0.0.1:10000","authorization":"Bearer ***","x-ms-copy-source-authorization":"Bearer ***","Proxy-Authorization":"Basic ***","x-ms-version":"2025-01-05"}');
    assert.equal(redactCredentials('"authorization":"SharedKey devstoreaccount1:c2lnbmF0dXJl"'), '"authorization":"SharedKey ***"');
    assert.equal(redactCredentials('"authorization":"eyJ0.bare.token"'), '"authorization":"***"');
    assert.equal(redactCredentials('RequestURL=http://127.0.0.1:10000/devstoreaccount1/c/b?sv=2025-01-05&sig=abc%2Bdef&se=2026'), 'RequestURL=http://127.0.0.1:10000/devstoreaccount1/c/b?sv=2025-01-05&sig=***&se=2026');
    assert.equal(redactCredentials('BlobSASAuthenticator:validate() Retrieved signature from URL parameter sig: abc+def='), 'BlobSASAuthenticator:validate() Retrieved signature from URL parameter sig: ***');
    assert.equal(redactCredentials('QueueSASAuthenticator:validate() Calculated signature is: abc+def='), 'QueueSASAuthenticator:validate() Calculated signature is: ***');
    assert.equal(redactCredentials('BlobSharedKeyAuthenticator:validate() Calculated authentication header based on key1: SharedKey devstoreaccount1:c2ln+bmF0dXJl='), 'BlobSharedKeyAuthenticator:validate() Calculated authentication header based on key1: SharedKey devstoreaccount1:***');
    assert.equal(redactCredentials('nothing to hide'), 'nothing to hide');
  });
});
