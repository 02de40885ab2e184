/** ownPorts.ts: the ports one of our services must not be offered, and a start on a port another of ours holds. */
import * as assert from 'node:assert/strict';
import { ownPortConflict, portsOfOthers } from '../../../src/core/ownPorts';

describe('core/ownPorts', () => {
  const configured = { blob: 10000, queue: 0, table: 10002 };

  it('reserves the other services\' configured ports (not 0) and the ports they run on, never the asking service\'s own', () => {
    assert.deepEqual([...portsOfOthers('blob', configured, { queue: { host: '127.0.0.1', port: 41234 } })].sort(), [10002, 41234]);
    assert.deepEqual([...portsOfOthers('queue', configured, {})].sort(), [10000, 10002]);
    assert.deepEqual([...portsOfOthers('table', configured, { table: { host: '127.0.0.1', port: 10002 } })].sort(), [10000]);
  });

  it('refuses a start on the port another of ours runs on, naming the setting and why the port is taken', () => {
    const picked = ownPortConflict('table', { host: '127.0.0.1', port: 41234 }, configured, { queue: { host: '127.0.0.1', port: 41234 } });
    assert.deepEqual(picked, {
      ok: false, reason: 'setting', setting: 'azurite.tablePort',
      message: 'azurite.tablePort is 41234, the port the Queue service runs on now (azurite.queuePort is 0, and it picked this free port). Set azurite.tablePort to another port (0 picks a free one).',
    });
    const older = ownPortConflict('queue', { host: '127.0.0.1', port: 9999 }, configured, { blob: { host: '0.0.0.0', port: 9999 } });
    assert.match(older?.message ?? '', /azurite\.queuePort is 9999, the port the Blob service runs on now \(azurite\.blobPort is 10000; it runs with its earlier settings until it restarts\)/);
    const same = ownPortConflict('queue', { host: '127.0.0.1', port: 10000 }, configured, { blob: { host: '127.0.0.1', port: 10000 } });
    assert.match(same?.message ?? '', /^azurite\.queuePort is 10000, the port the Blob service runs on now\. Set/);
  });

  it('lets a start go on: port 0, a port none of ours runs on, another address, or its own old address', () => {
    const running = { blob: { host: '127.0.0.1', port: 10000 } };
    assert.equal(ownPortConflict('queue', { host: '127.0.0.1', port: 0 }, configured, running), undefined);
    assert.equal(ownPortConflict('queue', { host: '127.0.0.1', port: 10001 }, configured, running), undefined);
    assert.equal(ownPortConflict('queue', { host: '127.0.0.2', port: 10000 }, configured, running), undefined);
    assert.equal(ownPortConflict('blob', { host: '127.0.0.1', port: 10000 }, configured, running), undefined);
  });
});
