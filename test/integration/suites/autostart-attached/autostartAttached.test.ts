/**
 * Run with user settings azurite.autoStart "all" and azurite.attach set
 * (runIntegration --suite autostart-attached): the window works with the attached Azurite, so
 * autoStart starts nothing and says nothing.
 */
import * as assert from 'node:assert/strict';
import { api } from '../../helpers';

describe('azurite.autoStart "all" while azurite.attach is set', () => {
  it('starts no local service and shows no notification', async () => {
    const a = await api();
    await a.settled();
    for (const kind of ['blob', 'queue', 'table'] as const) assert.deepEqual(a.emulator.status(kind), { status: 'closed' }, kind);
    assert.deepEqual(a.notifications(), []);
  });
});
