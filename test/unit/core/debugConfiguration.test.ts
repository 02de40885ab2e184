/**
 * core/debugConfiguration.ts: telling F5 without a launch.json from a configuration.
 */
import * as assert from 'node:assert/strict';
import { isEmptyDebugConfiguration } from '../../../src/core/debugConfiguration';

describe('core/debugConfiguration', () => {
  it('takes {} and { noDebug } (F5 / Ctrl+F5 with no launch.json) as empty, and anything with a key as a configuration', () => {
    assert.deepEqual([{}, { noDebug: true }, { type: undefined }].map(isEmptyDebugConfiguration), [true, true, true]);
    assert.deepEqual([{ type: 'java' }, { name: 'Launch' }, { request: 'launch' }, { __azuriteStorageSeen: true }].map(isEmptyDebugConfiguration), [false, false, false, false]);
  });
});
