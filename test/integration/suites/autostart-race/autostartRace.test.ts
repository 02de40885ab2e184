/**
 * Run in a multi-root workspace, disk mode, no data folder chosen, with user settings
 * azurite.autoStart ["table"] and azurite.tablePort a port nothing holds when the window opens
 * (runIntegration --suite autostart-race --multi-root, the port in AZURITE_TEST_RACE_PORT).
 * Another Azurite begins serving that port while autoStart's data folder question is open.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import { once } from 'node:events';
import * as vscode from 'vscode';
import { api, waitFor } from '../../helpers';

describe('azurite.autoStart when another Azurite begins serving the port while the data folder question is open', function () {
  this.timeout(120_000);
  let other: http.Server | undefined;
  after(async () => { other?.close(); });

  it('skips the service (probed again before the start) instead of failing on the taken port, and gives terminals that Azurite', async () => {
    const a = await api();
    const port = Number(process.env.AZURITE_TEST_RACE_PORT);
    assert.ok(port > 0, 'AZURITE_TEST_RACE_PORT is set');
    await waitFor('the data folder question', () => a.dataFolderQuestions().open || undefined, 40_000).catch((err: Error) => {
      // What the window was doing instead, for a failure to say.
      const config = vscode.workspace.getConfiguration('azurite');
      throw new Error(`${err.message}; questions ${JSON.stringify(a.dataFolderQuestions())}, table ${JSON.stringify(a.emulator.status('table'))}, autoStart ${JSON.stringify(config.get('autoStart'))}, notifications ${JSON.stringify(a.notifications())}`);
    });
    // Another window, or the Azurite CLI, starts answering as the Table service of an Azurite.
    other = http.createServer((_req, res) => { res.writeHead(403, { Server: 'Azurite-Table/3.37.0' }); res.end(); });
    other.listen(port, '127.0.0.1');
    await once(other, 'listening');
    const shown = a.notifications().length;
    // The question counts as open from the call that shows it: accepted again until it has closed.
    await waitFor('the question answered', async () => {
      if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      return !a.dataFolderQuestions().open;
    }, 30_000);
    await a.settled();
    await waitFor('the autoStart skip', () => a.emulator.servedElsewhereKinds().includes('table'), 20_000);
    assert.deepEqual(a.emulator.status('table'), { status: 'closed' }, 'never started: no port error');
    assert.deepEqual(a.notifications().slice(shown), []);
    await waitFor('the variables in terminals', () => a.terminalVariables().AzureWebJobsStorage);
    assert.match(a.terminalVariables().AzureWebJobsStorage ?? '', new RegExp(`TableEndpoint=http://127\\.0\\.0\\.1:${port}/devstoreaccount1;`));
  });
});
