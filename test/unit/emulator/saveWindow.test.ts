/**
 * Disk mode's save window as the adapter takes it (src/emulator/azurite.ts createService): a value
 * that is not a number of ms ≥ 0 is refused, since setTimeout treats NaN as 1 ms and the engine
 * would then save its databases after nearly every write.
 */
import * as assert from 'node:assert/strict';
import { engineFiles } from '../helpers/emulatorFixture';

type CreateService = (options: Record<string, unknown>) => unknown;

describe('Save window option (real engine bundle)', () => {
  it('refuses NaN, a negative or an infinite saveWindowMs, and takes undefined, 0 and 1000', () => {
    const { createService } = require(engineFiles().enginePath) as { createService: CreateService };
    const base = { kind: 'table', host: '127.0.0.1', port: 0, inMemory: false, location: '/nonexistent', loose: false };
    for (const bad of [NaN, -1, Infinity]) {
      assert.throws(() => createService({ ...base, saveWindowMs: bad }), /saveWindowMs must be a number of ms ≥ 0/, String(bad));
    }
    for (const good of [undefined, 0, 1000]) assert.doesNotThrow(() => createService({ ...base, saveWindowMs: good }), String(good));
  });
});
