/**
 * Warm before the click (runs first in the window: file order): after activation, with no start
 * asked for, the engine loads in its own process, binds no port and shows nothing.
 */
import * as assert from 'node:assert/strict';
import { api, waitFor } from './helpers';

describe('Engine warm-up after activation', function () {
  it('loads the engine in its own process without a start: no service runs, no notification, the items unchanged', async () => {
    const a = await api();
    const loaded = await waitFor('the warm-up to load the engine', () => a.emulator.engineLoadResult(), 20_000);
    assert.ok(loaded.loadMs >= 0);
    assert.equal(a.emulator.engineRunning, true);
    assert.deepEqual(a.emulator.runningKinds(), []);
    assert.deepEqual(a.notifications(), []);
    for (const kind of ['blob', 'queue', 'table'] as const) assert.match(a.statusItems()[kind].text, /^\$\(debug-start\) /);
  });
});
