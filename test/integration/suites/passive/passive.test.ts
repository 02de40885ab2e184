/**
 * Run with a stand-in for the Azurite extension installed (runIntegration --suite passive
 * --install-folder test/fixtures/azurite-extension-stub).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID, waitFor } from '../../helpers';

describe('beside the Azurite extension', () => {
  it('stays passive: no commands registered, no services, no crash', async () => {
    assert.ok(vscode.extensions.getExtension('Azurite.azurite'), 'the stand-in is installed');
    const ours = vscode.extensions.getExtension<{ passive: boolean }>(EXTENSION_ID)!;
    await waitFor('our extension to activate', () => ours.isActive);
    assert.deepEqual(ours.exports, { passive: true });
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['azurite.start_blob', 'azurite.copyConnectionString', 'azurite.showMemoryUsage']) {
      assert.ok(!commands.includes(id), `${id} must not be registered`);
    }
  });
});
