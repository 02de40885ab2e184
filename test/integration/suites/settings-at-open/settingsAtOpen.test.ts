/**
 * Run with user settings that hold errors no status bar item shows (runIntegration --suite
 * settings-at-open): azurite.apiVersionCheck "Strict" and azurite.engine.heapLimit 100. They stop no
 * start, so nothing else would say them; the window says each once when it opens.
 */
import * as assert from 'node:assert/strict';
import { api, waitFor } from '../../helpers';

describe('setting errors already there when the window opens', () => {
  it('are said once each in a notification', async () => {
    const a = await api();
    const said = await waitFor('both notifications', () => {
      const shown = a.notifications().filter((n) => n.startsWith('azurite.apiVersionCheck') || n.startsWith('azurite.engine.heapLimit'));
      return shown.length === 2 ? shown : undefined;
    });
    assert.match(said.find((n) => n.startsWith('azurite.apiVersionCheck')) ?? '', /"Strict".*"acceptNewer" is the default and is in force until then/);
    assert.match(said.find((n) => n.startsWith('azurite.engine.heapLimit')) ?? '', /100.*128 to 65536/);
    await a.settled();
    assert.equal(a.notifications().filter((n) => n.startsWith('azurite.')).length, 2, 'once each');
  });
});
