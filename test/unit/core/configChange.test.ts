import * as assert from 'node:assert/strict';
import { failureFixed, heldOptionKeys, needsRestart } from '../../../src/core/configChange';
import { parseSettings, type RawSettings } from '../../../src/core/settings';

const ctx = { workspaceFolder: '/ws', homeDir: '/home/u', globalStoragePath: '/gs', rootHasAzuriteData: false };
const opts = (raw: RawSettings) => parseSettings(raw, ctx).options;

describe('core/configChange needsRestart', () => {
  it('restarts only the service whose own host or port changed', () => {
    const before = opts({ blobPort: 10000 });
    const after = opts({ blobPort: 10010 });
    assert.equal(needsRestart('blob', before, after), true);
    assert.equal(needsRestart('queue', before, after), false);
    assert.equal(needsRestart('table', before, after), false);
  });

  it('restarts every service for a shared option (persistence, loose, location in disk mode)', () => {
    for (const [a, b] of [
      [{}, { inMemoryPersistence: true }],
      [{}, { loose: true }],
      [{ location: 'a' }, { location: 'b' }],
    ] as RawSettings[][]) {
      for (const kind of ['blob', 'queue', 'table'] as const) assert.equal(needsRestart(kind, opts(a!), opts(b!)), true, JSON.stringify([a, b, kind]));
    }
  });

  it('applies debug, silent and the memory limit live, and ignores the location in memory mode', () => {
    assert.equal(needsRestart('blob', opts({}), opts({ debug: true, silent: true })), false);
    assert.equal(needsRestart('blob', opts({ inMemoryPersistence: true }), opts({ inMemoryPersistence: true, extentMemoryLimit: 5 })), false);
    assert.equal(needsRestart('blob', opts({ inMemoryPersistence: true, location: 'a' }), opts({ inMemoryPersistence: true, location: 'b' })), false);
    assert.equal(needsRestart('blob', opts({ blobPort: 1 }), opts({ blobPort: 1 })), false);
  });

  it('restarts nothing for a value that is not valid and blocks no service (azurite.oauth "basi" while typing "basic"), until it is valid', () => {
    const https = { cert: '/certs/dev.pem', key: '/certs/dev-key.pem' };
    const basic = opts({ ...https, oauth: 'basic' });
    const typing = parseSettings({ ...https, oauth: 'basi' }, ctx);
    assert.equal(typing.options.oauth, undefined, 'OAuth off in the options while the value is not valid');
    assert.deepEqual([...heldOptionKeys(typing.errors)], ['oauth']);
    for (const kind of ['blob', 'queue', 'table'] as const) {
      assert.equal(needsRestart(kind, basic, typing.options, heldOptionKeys(typing.errors)), false, kind);
      assert.equal(needsRestart(kind, basic, typing.options), true, `${kind}: without the held keys, the fallback would restart it`);
    }
    // Cleared on purpose: a valid value, which restarts.
    const cleared = parseSettings({ ...https, oauth: '' }, ctx);
    assert.deepEqual([...heldOptionKeys(cleared.errors)], []);
    assert.equal(needsRestart('blob', basic, cleared.options, heldOptionKeys(cleared.errors)), true);
  });

  it('does not restart when the certificate password moves to Secret Storage, only when it changes', () => {
    const withHttps = (https: object) => ({ ...opts({}), https: { cert: '/certs/dev.pfx', ...https } });
    for (const kind of ['blob', 'queue', 'table'] as const) {
      assert.equal(needsRestart(kind, withHttps({ pwd: 'x' }), withHttps({ pwd: 'x', pwdFromSecretStorage: true })), false);
      assert.equal(needsRestart(kind, withHttps({ pwd: 'x' }), withHttps({ pwd: 'y', pwdFromSecretStorage: true })), true);
      assert.equal(needsRestart(kind, withHttps({ pwd: 'x' }), opts({})), true);
    }
  });

  it('applies the API-version policy live: azurite.apiVersionCheck and azurite.skipApiVersionCheck', () => {
    for (const kind of ['blob', 'queue', 'table'] as const) {
      assert.equal(needsRestart(kind, opts({}), opts({ skipApiVersionCheck: true })), false);
      assert.equal(needsRestart(kind, opts({}), opts({ apiVersionCheck: 'strict' })), false);
    }
  });
});

describe('core/configChange failureFixed (a restart its start\'s setting failed is tried again)', () => {
  it('counts a change of the limit a start was refused for, which a running service takes live', () => {
    const refused = opts({ inMemoryPersistence: true, extentMemoryLimit: 500 });
    assert.equal(failureFixed('blob', 'azurite.extentMemoryLimit', refused, opts({ inMemoryPersistence: true, extentMemoryLimit: 700 })), true);
    assert.equal(failureFixed('blob', 'azurite.extentMemoryLimit', refused, opts({ inMemoryPersistence: true })), true, 'unset: Azurite\'s default');
    assert.equal(failureFixed('blob', 'azurite.extentMemoryLimit', refused, opts({ inMemoryPersistence: true, extentMemoryLimit: 500, debug: true })), false);
    assert.equal(failureFixed('blob', 'azurite.engine.heapLimit', opts({ 'engine.heapLimit': 512 }), opts({ 'engine.heapLimit': 1024 })), true);
    assert.equal(failureFixed('blob', 'azurite.engine.heapLimit', opts({ 'engine.heapLimit': 512 }), opts({ 'engine.heapLimit': 512, silent: true })), false);
  });

  it('counts the service\'s own port for a port failure, and only it', () => {
    assert.equal(failureFixed('blob', 'azurite.blobPort', opts({ blobPort: 10000 }), opts({ blobPort: 10010 })), true);
    assert.equal(failureFixed('blob', 'azurite.blobPort', opts({ blobPort: 10000 }), opts({ blobPort: 10000, queuePort: 10011 })), false);
  });
});
