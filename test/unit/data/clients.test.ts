/**
 * The data layer's SDK clients give up on an Azurite that is down after REQUEST_TRIES tries with
 * short waits, not the SDKs' half a minute: a server that accepts each connection and closes it
 * at once counts the tries of each client.
 */
import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import * as net from 'node:net';
import { REQUEST_TRIES, storageClients } from '../../../src/data/clients';
import { DEV_ACCOUNT } from '../../../src/core/connectionString';

describe('Data layer clients (real Azure SDKs)', function () {
  this.timeout(20_000);
  let server: net.Server;
  let connections = 0;
  let base = '';

  before(async () => {
    server = net.createServer((socket) => { connections++; socket.destroy(); });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/${DEV_ACCOUNT.name}`;
  });
  after(() => server.close());
  beforeEach(() => { connections = 0; });

  const clients = () => storageClients({ accountName: DEV_ACCOUNT.name, accountKey: DEV_ACCOUNT.key, blob: base, queue: base, table: base });

  it(`Blob: ${REQUEST_TRIES} tries, then the error`, async () => {
    await assert.rejects(clients().blob!.getProperties());
    assert.equal(connections, REQUEST_TRIES);
  });

  it(`Queue: ${REQUEST_TRIES} tries, then the error`, async () => {
    await assert.rejects(clients().queue!.getProperties());
    assert.equal(connections, REQUEST_TRIES);
  });

  it(`Table (service and entity clients): ${REQUEST_TRIES} tries each, then the error`, async () => {
    await assert.rejects(clients().table!.getProperties());
    assert.equal(connections, REQUEST_TRIES);
    connections = 0;
    await assert.rejects(clients().tableClient('t')!.getEntity('p', 'r'));
    assert.equal(connections, REQUEST_TRIES);
  });
});
