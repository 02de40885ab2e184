import * as assert from 'node:assert/strict';
import { decideApiVersion, isWellFormedApiVersion, newestApiVersion } from '../../../src/core/apiVersions';

const known = ['2026-06-06', '2026-04-06', '2025-01-05'];
const newest = '2026-06-06';

describe('core/apiVersions', () => {
  it('takes only real calendar dates YYYY-MM-DD as well-formed versions', () => {
    for (const v of ['2026-10-06', '2099-01-01', '2024-02-29']) assert.equal(isWellFormedApiVersion(v), true, v);
    for (const v of ['2026-13-01', '2026-02-30', '2023-02-29', '2026-10-6', '26-10-06', '2026-10-06-preview', ' 2026-10-06', 'yesterday', '']) {
      assert.equal(isWellFormedApiVersion(v), false, v);
    }
  });

  it('finds the newest version whatever the order', () => {
    assert.equal(newestApiVersion(['2025-01-05', '2026-06-06', '2026-04-06']), '2026-06-06');
    assert.throws(() => newestApiVersion([]), /no API versions/);
  });

  it('acceptNewer: known versions and no header go to azurite; a well-formed newer version is served as newer; the rest go to azurite (its 400)', () => {
    assert.equal(decideApiVersion('acceptNewer', '2026-04-06', known, newest), 'azurite');
    assert.equal(decideApiVersion('acceptNewer', undefined, known, newest), 'azurite');
    assert.equal(decideApiVersion('acceptNewer', '2026-10-06', known, newest), 'newer');
    assert.equal(decideApiVersion('acceptNewer', '2099-01-01', known, newest), 'newer');
    // Older than the newest but unknown: not newer, so azurite refuses it as before.
    assert.equal(decideApiVersion('acceptNewer', '2026-05-01', known, newest), 'azurite');
    assert.equal(decideApiVersion('acceptNewer', '2099-02-30', known, newest), 'azurite');
    assert.equal(decideApiVersion('acceptNewer', 'latest', known, newest), 'azurite');
  });

  it('strict leaves every request to azurite; off skips the check for every request', () => {
    for (const v of ['2026-04-06', '2099-01-01', 'latest', undefined]) {
      assert.equal(decideApiVersion('strict', v, known, newest), 'azurite');
      assert.equal(decideApiVersion('off', v, known, newest), 'skip');
    }
  });
});
