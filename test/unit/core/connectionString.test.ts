/**
 * connectionString.ts: the development account's connection string and endpoint URLs.
 */
import * as assert from 'node:assert/strict';
import {
  connectableHost,
  connectionString,
  DEV_ACCOUNT_KEY,
  DEV_ACCOUNT_NAME,
  endpointUrl,
} from '../../../src/core/connectionString';

/** The well-known key, written out so a typo in the source fails here. */
const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

describe('core/connectionString', () => {
  it('uses the well-known development account', () => {
    assert.equal(DEV_ACCOUNT_NAME, 'devstoreaccount1');
    assert.equal(DEV_ACCOUNT_KEY, KEY);
  });

  describe('connectionString', () => {
    it('names only blob when only blob is given', () => {
      assert.equal(
        connectionString({ blob: { host: '127.0.0.1', port: 10000, https: false } }),
        `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;`,
      );
    });

    it('names all three in blob, queue, table order whatever the input order', () => {
      assert.equal(
        connectionString({
          table: { host: '127.0.0.1', port: 10002, https: false },
          queue: { host: '127.0.0.1', port: 10001, https: false },
          blob: { host: '127.0.0.1', port: 10000, https: false },
        }),
        `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};` +
          'BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;' +
          'QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;' +
          'TableEndpoint=http://127.0.0.1:10002/devstoreaccount1;',
      );
    });

    it('names queue and table without blob', () => {
      assert.equal(
        connectionString({ queue: { host: 'localhost', port: 20001, https: false }, table: { host: 'localhost', port: 20002, https: false } }),
        `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};` +
          'QueueEndpoint=http://localhost:20001/devstoreaccount1;TableEndpoint=http://localhost:20002/devstoreaccount1;',
      );
    });

    it('connects to 127.0.0.1 for a service listening on 0.0.0.0', () => {
      assert.equal(
        connectionString({ blob: { host: '0.0.0.0', port: 10000, https: false } }),
        `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;`,
      );
    });

    it('brackets IPv6 hosts', () => {
      assert.equal(
        connectionString({ blob: { host: '::1', port: 10000, https: false }, queue: { host: '::', port: 10001, https: false } }),
        `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};` +
          'BlobEndpoint=http://[::1]:10000/devstoreaccount1;QueueEndpoint=http://[::1]:10001/devstoreaccount1;',
      );
    });

    it('uses https when the services do', () => {
      assert.equal(
        connectionString({ blob: { host: '127.0.0.1', port: 10000, https: true }, table: { host: '127.0.0.1', port: 10002, https: true } }),
        `DefaultEndpointsProtocol=https;AccountName=devstoreaccount1;AccountKey=${KEY};` +
          'BlobEndpoint=https://127.0.0.1:10000/devstoreaccount1;TableEndpoint=https://127.0.0.1:10002/devstoreaccount1;',
      );
    });

    it('keeps each endpoint its own scheme when mixed, with https as the default protocol', () => {
      assert.equal(
        connectionString({ blob: { host: '127.0.0.1', port: 10000, https: true }, queue: { host: '127.0.0.1', port: 10001, https: false } }),
        `DefaultEndpointsProtocol=https;AccountName=devstoreaccount1;AccountKey=${KEY};` +
          'BlobEndpoint=https://127.0.0.1:10000/devstoreaccount1;QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;',
      );
    });
  });

  describe('endpointUrl', () => {
    it('is path-style with the account name', () => {
      assert.equal(endpointUrl({ host: '127.0.0.1', port: 10000, https: false }), 'http://127.0.0.1:10000/devstoreaccount1');
      assert.equal(endpointUrl({ host: 'localhost', port: 443, https: true }), 'https://localhost:443/devstoreaccount1');
      assert.equal(endpointUrl({ host: '0.0.0.0', port: 54321, https: false }), 'http://127.0.0.1:54321/devstoreaccount1');
      assert.equal(endpointUrl({ host: 'fe80::1', port: 10000, https: false }), 'http://[fe80::1]:10000/devstoreaccount1');
    });
  });

  describe('connectableHost', () => {
    const cases: Array<[string, string]> = [
      ['0.0.0.0', '127.0.0.1'],
      ['', '127.0.0.1'],
      ['::', '[::1]'],
      ['[::]', '[::1]'],
      ['0:0:0:0:0:0:0:0', '[::1]'],
      ['[0:0:0:0:0:0:0:0]', '[::1]'],
      ['::1', '[::1]'],
      ['[::1]', '[::1]'],
      ['fe80::1', '[fe80::1]'],
      ['127.0.0.1', '127.0.0.1'],
      ['192.168.1.20', '192.168.1.20'],
      ['localhost', 'localhost'],
    ];
    for (const [host, expected] of cases) {
      it(`${JSON.stringify(host)} → ${JSON.stringify(expected)}`, () => {
        assert.equal(connectableHost(host), expected);
      });
    }
  });
});
