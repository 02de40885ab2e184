/** hosts.ts: which listen addresses only this machine reaches, which collide, and the exposure notice. */
import * as assert from 'node:assert/strict';
import { describeListenHost, exposureNotice, hostsOverlap, isLoopbackHost, isWildcardHost, reachableUrls, reachesListener } from '../../../src/core/hosts';

describe('core/hosts', () => {
  // Node binds each of these as a loopback address (inet_aton's short, octal and hex forms of IPv4 included).
  const loopback = ['127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST', 'api.localhost', ' 127.0.0.1 ',
    '127.1', '0177.0.0.1', '0x7f.0.0.1', '2130706433', '0::1', '0000:0000:0000:0000:0000:0000:0000:0001', '::ffff:7f00:1'];
  const exposed = ['0.0.0.0', '::', '[::]', '192.168.1.5', '10.0.0.2', '128.0.0.1', '127.0.0.256', '1.127.0.0', 'myhost', 'azurite.local', '::2', 'fe80::1', '', '0', '::0', '::ffff:10.0.0.2', '999.1.1.1'];

  it(`takes ${loopback.length} loopback spellings as this machine only`, () => {
    assert.deepEqual(loopback.filter((h) => !isLoopbackHost(h)), []);
  });

  it(`takes ${exposed.length} other addresses as reachable from other machines`, () => {
    assert.deepEqual(exposed.filter((h) => isLoopbackHost(h)), []);
  });

  it('knows the wildcards and says "all interfaces" for them', () => {
    assert.deepEqual(['0.0.0.0', '::', '[::]', '', '0', '::0', '0:0:0:0:0:0:0:0'].map(isWildcardHost), [true, true, true, true, true, true, true]);
    assert.equal(hostsOverlap('0', '127.0.0.1'), true, '0 is 0.0.0.0 to the system');
    assert.equal(hostsOverlap('0', '::1'), false);
    assert.equal(hostsOverlap('127.1', '127.0.0.1'), true);
    assert.deepEqual(['127.0.0.1', '192.168.1.5'].map(isWildcardHost), [false, false]);
    assert.equal(describeListenHost('0.0.0.0'), 'all interfaces (0.0.0.0)');
    assert.equal(describeListenHost('192.168.1.5'), '192.168.1.5');
  });

  it('finds overlapping hosts: equal, a wildcard beside an address it takes in, localhost beside what it resolves to', () => {
    const pairs: [string, string, boolean][] = [
      ['127.0.0.1', '127.0.0.1', true], ['0.0.0.0', '127.0.0.1', true], ['192.168.1.5', '::', true], ['localhost', '127.0.0.1', true],
      ['LocalHost', 'localhost', true], ['[::1]', '::1', true], ['127.0.0.1', '192.168.1.5', false], ['127.0.0.1', '127.0.0.2', false],
      ['localhost', '::1', true], ['localhost', '::ffff:127.0.0.1', true], ['[::ffff:127.0.0.1]', '127.0.0.1', true], ['0.0.0.0', '::ffff:10.0.0.2', true], ['api.localhost', '127.0.0.1', true], ['', '::1', true], ['::', '127.0.0.1', true], ['0.0.0.0', 'localhost', true],
      // Both listen on one port (measured with Node): 0.0.0.0 takes no IPv6 address; localhost is 127.0.0.1 or ::1 only.
      ['0.0.0.0', '::1', false], ['[fe80::1]', '0.0.0.0', false], ['localhost', '127.0.0.2', false],
    ];
    assert.deepEqual(pairs.map(([a, b]) => hostsOverlap(a, b)), pairs.map((p) => p[2]));
  });

  it('lists the URLs other machines use: one per address on a wildcard, the address itself otherwise', () => {
    // 0.0.0.0 takes IPv4 connections only (Node); :: takes both.
    assert.deepEqual(reachableUrls('0.0.0.0', 10000, false, ['192.168.1.5', 'fd00::5'], 'devstoreaccount1'),
      ['http://192.168.1.5:10000/devstoreaccount1']);
    assert.deepEqual(reachableUrls('[::]', 10000, false, ['192.168.1.5', 'fd00::5'], 'devstoreaccount1'),
      ['http://192.168.1.5:10000/devstoreaccount1', 'http://[fd00::5]:10000/devstoreaccount1']);
    assert.deepEqual(reachableUrls('10.0.0.2', 10001, true, ['192.168.1.5'], 'devstoreaccount1'), ['https://10.0.0.2:10001/devstoreaccount1']);
  });

  it('says who can reach the service, that the key is public, and which setting keeps it local', () => {
    assert.equal(exposureNotice([{ kind: 'blob', port: 10000 }], '0.0.0.0'),
      'Azurite Blob listens on all interfaces (0.0.0.0), port 10000: other machines on your network can reach it, and its account key is the public development key, so anyone who reaches it can read, change and delete its data. azurite.blobHost is "0.0.0.0"; 127.0.0.1 keeps it on this machine.');
    // Services that started together: one notice naming each, its port and its setting.
    assert.equal(exposureNotice([{ kind: 'blob', port: 10000 }, { kind: 'queue', port: 10001 }, { kind: 'table', port: 10002 }], '192.168.1.5'),
      'Azurite Blob, Queue, and Table listen on 192.168.1.5, ports 10000, 10001, and 10002: other machines on your network can reach them, and their account key is the public development key, so anyone who reaches them can read, change and delete their data. azurite.blobHost, azurite.queueHost, and azurite.tableHost are "192.168.1.5"; 127.0.0.1 keeps them on this machine.');
    assert.match(exposureNotice([{ kind: 'queue', port: 1 }, { kind: 'table', port: 2 }], '0.0.0.0'), /^Azurite Queue and Table listen on all interfaces \(0\.0\.0\.0\), ports 1 and 2: /);
  });

  it('reachesListener: a URL reaches our listener on its address, on loopback or this machine\'s addresses for a wildcard, never by another host name', () => {
    const own = ['127.0.0.1', '192.168.1.5', '::1', 'fe80::1'];
    const reaches = (host: string, listen: string): boolean => reachesListener(host, listen, own);
    // A listener on one address: that address, and localhost beside a loopback one.
    assert.deepEqual(['127.0.0.1', 'localhost', '192.168.1.5', 'azurite'].map((h) => reaches(h, '127.0.0.1')), [true, true, false, false]);
    // 0.0.0.0: loopback and this machine's IPv4 addresses; not another machine, a name, or IPv6.
    assert.deepEqual(['127.0.0.1', 'localhost', '192.168.1.5', '203.0.113.9', 'azurite', '[::1]', 'fe80::1'].map((h) => reaches(h, '0.0.0.0')),
      [true, true, true, false, false, false, false]);
    // The IPv4 wildcard however it is written (`0`, as Node binds 0.0.0.0): still no IPv6.
    assert.deepEqual(['127.0.0.1', '[::1]'].map((h) => reaches(h, '0')), [true, false]);
    // '::': IPv6 and IPv4 alike.
    assert.deepEqual(['[::1]', '127.0.0.1', 'fe80::1', '192.168.1.5', '10.0.0.7'].map((h) => reaches(h, '::')), [true, true, true, true, false]);
    // A wildcard in the URL (Azurite prints http://0.0.0.0:10000) connects to this machine; so does an
    // IPv4-mapped loopback, however the URL parser writes it.
    assert.deepEqual([['0.0.0.0', '0.0.0.0'], ['0.0.0.0', '127.0.0.1'], ['[::]', '::'], ['[::ffff:7f00:1]', '127.0.0.1'], ['[::ffff:7f00:1]', '0.0.0.0']].map(([h, l]) => reaches(h!, l!)),
      [true, true, true, true, true]);
    assert.equal(reaches(new URL('http://[::ffff:127.0.0.1]:10000').hostname, '127.0.0.1'), true);
  });
});
