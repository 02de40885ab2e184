/**
 * Run with user settings azurite.autoStart "all" and a table port already answered by an Azurite
 * (runIntegration --suite autostart --hold-port-as-azurite azurite.tablePort).
 */
import * as assert from 'node:assert/strict';
import { api } from '../../helpers';

describe('azurite.autoStart "all"', () => {
  it('starts blob and queue when the workspace opens, and skips the table port another Azurite serves', async () => {
    const a = await api();
    await a.settled();
    assert.equal(a.emulator.status('blob').status, 'running');
    assert.equal(a.emulator.status('queue').status, 'running');
    assert.deepEqual(a.emulator.status('table'), { status: 'closed' }, 'skipped quietly, not failed');
    assert.equal(String(a.emulator.options.services.table.port), process.env.AZURITE_TEST_HELD_PORT);
  });
});
