/**
 * The Azurite extension installed while this extension runs. Runs next to last (files run in name
 * order): the stand-in it installs stays installed for the rest of the run, which only
 * zz-deactivate.test.ts follows.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, waitFor } from './helpers';

/** @vscode/vsce's packaging API (the package ships no type declarations). */
interface Vsce {
  createVSIX(options: { cwd: string; packagePath: string; dependencies: boolean; allowMissingRepository: boolean; skipLicense: boolean }): Promise<unknown>;
}

const AZURITE_ID = 'Azurite.azurite';
const STUB = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'azurite-extension-stub');

describe('the Azurite extension installed while this one runs', () => {
  it('says so once, with Reload Window and Show Azurite Extension, and the services keep running', async function () {
    this.timeout(120_000);
    const a = await api();
    assert.equal(vscode.extensions.getExtension(AZURITE_ID), undefined, 'the Azurite extension is not installed before the test');
    await vscode.commands.executeCommand('azurite.start_blob');
    const endpoint = a.emulator.endpoint('blob');
    assert.ok(endpoint, 'Blob runs');

    // The stand-in (same id as the Azurite extension, no code of Azurite's) packaged as a .vsix and
    // installed the way "Extensions: Install from VSIX…" installs one.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'azurite-stub-vsix-'));
    try {
      fs.cpSync(STUB, path.join(dir, 'stub'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'stub', 'README.md'), 'Stand-in for the Azurite extension in a test.\n');
      const vsix = path.join(dir, 'azurite-stub.vsix');
      const vsce = require('@vscode/vsce') as Vsce;
      await vsce.createVSIX({ cwd: path.join(dir, 'stub'), packagePath: vsix, dependencies: false, allowMissingRepository: true, skipLicense: true });
      await vscode.commands.executeCommand('workbench.extensions.installExtension', vscode.Uri.file(vsix));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await waitFor('the Azurite extension to be known to this extension host', () => vscode.extensions.getExtension(AZURITE_ID), 60_000);

    const warning = await waitFor('the warning', () => a.notifications().find((n) => n.startsWith('The Azurite extension was just installed or enabled.')));
    assert.match(warning, /Storage Emulators keeps running here\. After a reload, Storage Emulators stays inactive/);
    assert.deepEqual(a.notificationActions(warning), ['Reload Window', 'Show Azurite Extension']);
    assert.deepEqual(a.emulator.endpoint('blob'), endpoint, 'Blob still runs where it did');
    assert.equal(a.notifications().filter((n) => n === warning).length, 1, 'said once');
    await vscode.commands.executeCommand('azurite.close_blob');
  });
});
