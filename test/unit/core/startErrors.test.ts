/**
 * startErrors.ts: listen and data-folder errors → messages naming the service, setting, value and fix.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeLocationError, describeStartError } from '../../../src/core/startErrors';

describe('core/startErrors', () => {
  describe('describeStartError', () => {
    it('EADDRINUSE: names the port, host and the port setting', () => {
      assert.equal(
        describeStartError({ kind: 'blob', host: '127.0.0.1', port: 10000 }, { code: 'EADDRINUSE', message: 'listen EADDRINUSE: address already in use 127.0.0.1:10000' }),
        'Blob service could not start: port 10000 on 127.0.0.1 is already in use. Stop the program that holds it, or set azurite.blobPort to a free port (0 picks one).',
      );
    });

    it('EACCES below 1024: says the port needs to be 1024 or higher', () => {
      assert.equal(
        describeStartError({ kind: 'queue', host: '0.0.0.0', port: 80 }, { code: 'EACCES', message: 'listen EACCES: permission denied 0.0.0.0:80' }),
        'Queue service could not start: listening on 0.0.0.0:80 is not permitted for this user (ports below 1024 are privileged). Set azurite.queuePort to 1024 or higher.',
      );
    });

    it('EACCES from 1024 up (a port range Windows reserves for Hyper-V, WSL 2, Docker): says how to list reserved ranges, not "1024 or higher"', () => {
      const message = describeStartError({ kind: 'table', host: '127.0.0.1', port: 10002 }, { code: 'EACCES', message: 'listen EACCES: permission denied 127.0.0.1:10002' });
      assert.match(message, /^Table service could not start: listening on 127\.0\.0\.1:10002 is not permitted: the port is reserved/);
      assert.match(message, /netsh interface ipv4 show excludedportrange protocol=tcp/);
      assert.match(message, /Set azurite\.tablePort to a port outside them \(0 picks a free one\)\.$/);
      assert.doesNotMatch(message, /1024 or higher/);
    });

    it('EAI_AGAIN: says the name could not be looked up, not that it is not this machine\'s', () => {
      assert.equal(
        describeStartError({ kind: 'blob', host: 'devbox.lan', port: 10000 }, { code: 'EAI_AGAIN', message: 'getaddrinfo EAI_AGAIN devbox.lan' }),
        'Blob service could not start: the name "devbox.lan" in azurite.blobHost could not be looked up (the name server did not answer). Check the network, or use 127.0.0.1 (this machine only) or 0.0.0.0 (all interfaces).',
      );
    });

    for (const code of ['EADDRNOTAVAIL', 'ENOTFOUND']) {
      it(`${code}: names the host setting and value and suggests 127.0.0.1 / 0.0.0.0`, () => {
        assert.equal(
          describeStartError({ kind: 'table', host: '10.9.9.9', port: 10002 }, { code, message: `listen ${code}` }),
          'Table service could not start: azurite.tableHost is "10.9.9.9", which is not an address of this machine. Use 127.0.0.1 (this machine only) or 0.0.0.0 (all interfaces).',
        );
      });
    }

    it('a data file that does not parse (disk mode): names the files, the folder, and Restore or Clean', () => {
      assert.equal(
        describeStartError({ kind: 'blob', host: '127.0.0.1', port: 10000, inMemory: false, location: '/ws/.azurite' }, { name: 'SyntaxError', message: 'Unexpected end of JSON input' }),
        'Blob service could not start: its data in "/ws/.azurite" cannot be read (Unexpected end of JSON input): __azurite_db_blob__.json or __azurite_db_blob_extent__.json there is damaged. Restore it (from version control or a backup), or run "Azurite: Clean Blob Service" to start empty: that deletes Blob\'s data.',
      );
      // In memory there is no file to blame.
      assert.equal(describeStartError({ kind: 'blob', host: '127.0.0.1', port: 10000, inMemory: true }, { name: 'SyntaxError', message: 'x' }), 'Blob service could not start: x');
    });

    it('other codes: passes the error message through', () => {
      assert.equal(
        describeStartError({ kind: 'blob', host: '127.0.0.1', port: 10000 }, { code: 'ENOSPC', message: 'no space left on device' }),
        'Blob service could not start: no space left on device',
      );
      assert.equal(
        describeStartError({ kind: 'queue', host: '127.0.0.1', port: 10001 }, new Error('database is locked')),
        'Queue service could not start: database is locked',
      );
    });

    it('works with a real EADDRINUSE error from Node', async () => {
      const net = await import('node:net');
      const holder = net.createServer();
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      const port = (holder.address() as import('node:net').AddressInfo).port;
      try {
        const err = await new Promise<NodeJS.ErrnoException>((resolve) => {
          const second = net.createServer();
          second.once('error', resolve);
          second.listen(port, '127.0.0.1');
        });
        assert.equal(
          describeStartError({ kind: 'blob', host: '127.0.0.1', port }, err),
          `Blob service could not start: port ${port} on 127.0.0.1 is already in use. Stop the program that holds it, or set azurite.blobPort to a free port (0 picks one).`,
        );
      } finally {
        await new Promise<void>((resolve) => holder.close(() => resolve()));
      }
    });
  });

  describe('describeLocationError', () => {
    it('names the setting, the resolved folder, the code and message, and both fixes', () => {
      assert.equal(
        describeLocationError('/readonly/.azurite', { code: 'EROFS', message: 'read-only file system' }),
        'azurite.location resolves to "/readonly/.azurite", which cannot be created or written (EROFS: read-only file system). Set azurite.location to a folder you can write to, or turn on azurite.inMemoryPersistence.',
      );
    });

    it('leaves the code out when there is none (or it is not a string)', () => {
      assert.equal(
        describeLocationError('/data', { message: 'disk quota exceeded' }),
        'azurite.location resolves to "/data", which cannot be created or written (disk quota exceeded). Set azurite.location to a folder you can write to, or turn on azurite.inMemoryPersistence.',
      );
      assert.equal(
        describeLocationError('/data', { code: 28, message: 'disk quota exceeded' }),
        'azurite.location resolves to "/data", which cannot be created or written (disk quota exceeded). Set azurite.location to a folder you can write to, or turn on azurite.inMemoryPersistence.',
      );
    });

    it("does not repeat the code when Node's message already starts with it (a real fs error)", () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'startErrors-'));
      try {
        const file = path.join(dir, 'file');
        fs.writeFileSync(file, '');
        const target = path.join(file, '.azurite');
        let err: NodeJS.ErrnoException | undefined;
        try {
          fs.mkdirSync(target, { recursive: true });
        } catch (e) {
          err = e as NodeJS.ErrnoException;
        }
        assert.ok(err !== undefined, 'mkdir under a file should fail');
        assert.equal(err.code, 'ENOTDIR');
        const message = describeLocationError(target, err);
        assert.equal(message.split('ENOTDIR').length - 1, 1, message);
        assert.ok(message.startsWith(`azurite.location resolves to ${JSON.stringify(target)}, which cannot be created or written (ENOTDIR: not a directory`), message);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
