import * as assert from 'node:assert/strict';
import { DEFAULT_PORTS, isServiceKind, parseAutoStart, serviceName } from '../../../src/core/services';

describe('core/services', () => {
  it('names services and keeps Azurite\'s default ports', () => {
    assert.deepEqual(DEFAULT_PORTS, { blob: 10000, queue: 10001, table: 10002 });
    assert.equal(serviceName('queue'), 'Queue');
    assert.equal(isServiceKind('table'), true);
    assert.equal(isServiceKind('file'), false);
  });

  it('parses azurite.autoStart: "none", "all", a list (in service order), or an error naming the setting', () => {
    assert.deepEqual(parseAutoStart(undefined), []);
    assert.deepEqual(parseAutoStart('none'), []);
    assert.deepEqual(parseAutoStart('all'), ['blob', 'queue', 'table']);
    assert.deepEqual(parseAutoStart(['table', 'blob']), ['blob', 'table']);
    assert.deepEqual(parseAutoStart([]), []);
    assert.deepEqual(parseAutoStart('blob'), { error: 'azurite.autoStart is "blob"; use "none", "all", or a list such as ["blob", "queue"].' });
    assert.deepEqual(parseAutoStart(['blob', 'files']), { error: 'azurite.autoStart is ["blob","files"]; use "none", "all", or a list such as ["blob", "queue"].' });
  });
});
