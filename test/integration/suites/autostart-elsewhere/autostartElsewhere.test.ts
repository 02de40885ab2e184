/**
 * Run in a multi-root workspace, disk mode, no data folder chosen, with user settings
 * azurite.autoStart ["table"] and the table port already answered by an Azurite
 * (runIntegration --suite autostart-elsewhere --multi-root --hold-port-as-azurite azurite.tablePort).
 */
import * as assert from 'node:assert/strict';
import { api, waitFor } from '../../helpers';

describe('azurite.autoStart in a multi-root workspace, every service it names served by another Azurite', () => {
  it('asks no data folder question, starts nothing, and gives terminals that Azurite', async () => {
    const a = await api();
    await a.settled();
    assert.deepEqual(a.dataFolderQuestions(), { shown: 0, open: false }, 'nothing is left to start, so no folder is asked for');
    assert.deepEqual(a.emulator.status('table'), { status: 'closed' });
    assert.deepEqual(a.emulator.servedElsewhereKinds(), ['table']);
    await waitFor('the variables in terminals', () => a.terminalVariables().AzureWebJobsStorage);
    assert.match(a.terminalVariables().AzureWebJobsStorage ?? '', new RegExp(`TableEndpoint=http://127\\.0\\.0\\.1:${process.env.AZURITE_TEST_HELD_PORT}/devstoreaccount1;`));
  });
});
