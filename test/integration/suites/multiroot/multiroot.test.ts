/**
 * Run in a multi-root workspace of two folders, first and second
 * (runIntegration --suite multiroot --multi-root), disk mode, no azurite.location.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Outcome } from '../../../../src/emulator/serviceManager';
import { api, waitFor } from '../../helpers';

describe('multi-root workspace', () => {
  it('asks once which folder keeps the data, then remembers it', async () => {
    const a = await api();
    assert.equal(vscode.workspace.workspaceFolders?.length, 2);
    const first = vscode.workspace.workspaceFolders![0]!.uri.fsPath;

    assert.equal(a.dataFolder(), undefined, 'nothing chosen yet');
    let outcome: Outcome[] | undefined;
    const starting = vscode.commands.executeCommand<Outcome[]>('azurite.start_blob').then((o) => (outcome = o));
    // The quick pick is open until answered: accept its first entry (the folder "first").
    await waitFor('the folder question to be answered and the blob service to start', async () => {
      if (outcome === undefined) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      return outcome;
    }, 20_000);
    await starting;
    assert.deepEqual(outcome, [{ ok: true }]);
    assert.equal(a.dataFolder(), first, 'the answer is remembered for this workspace');
    assert.equal(a.emulator.options.location, path.join(first, '.azurite'));
    assert.ok(fs.existsSync(path.join(first, '.azurite', '__azurite_db_blob__.json')));

    // Asked once: the next start does not wait for an answer.
    await vscode.commands.executeCommand('azurite.close_blob');
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_queue'), [{ ok: true }]);
    assert.equal(a.emulator.options.location, path.join(first, '.azurite'));
    await vscode.commands.executeCommand('azurite.close');
  });
});
