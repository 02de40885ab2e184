/**
 * Run with user settings azurite.autoStart "all" and a table port already answered by an Azurite
 * (runIntegration --suite autostart --hold-port-as-azurite azurite.tablePort), and with a cloud
 * account's AZURE_STORAGE_CONNECTION_STRING in the environment VS Code starts with.
 */
import * as assert from 'node:assert/strict';
import { api, waitFor } from '../../helpers';

describe('azurite.autoStart "all"', () => {
  it('starts blob and queue when the workspace opens, and skips the table port another Azurite serves', async () => {
    const a = await api();
    await a.settled();
    assert.equal(a.emulator.status('blob').status, 'running');
    assert.equal(a.emulator.status('queue').status, 'running');
    assert.deepEqual(a.emulator.status('table'), { status: 'closed' }, 'skipped quietly, not failed');
    assert.equal(String(a.emulator.options.services.table.port), process.env.AZURITE_TEST_HELD_PORT);
  });

  it('leaves the AZURE_STORAGE_CONNECTION_STRING of the environment VS Code started with to terminals; sets AzureWebJobsStorage', async () => {
    const a = await api();
    await a.settled();
    assert.match(process.env.AZURE_STORAGE_CONNECTION_STRING ?? '', /AccountName=prodaccount;/, 'the harness exports a cloud account');
    // Terminals get nothing until the first search for local.settings.json files has ended.
    await waitFor('the variables in terminals', () => a.terminalVariables().AzureWebJobsStorage);
    assert.deepEqual(a.terminalVariables(), { AZURE_STORAGE_CONNECTION_STRING: undefined, AzureWebJobsStorage: a.emulator.connectionString() });
    assert.equal(a.terminalDescription(), 'AzureWebJobsStorage for the running Azurite Blob, Queue and Table served by another Azurite; AZURE_STORAGE_CONNECTION_STRING not set: the environment VS Code was started with sets its own (Storage Emulators)');
  });
});
