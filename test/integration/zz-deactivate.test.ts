/**
 * deactivate() — runs last (files run in name order): it stops the extension's services for good.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BlobServiceClient } from '@azure/storage-blob';
import { api, configure } from './helpers';

describe('deactivate()', () => {
  it('stops every service: ports free, disk data saved, the engine\'s process gone', async () => {
    const a = await api();
    const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    await configure({ inMemoryPersistence: false, blobPort: 0, queuePort: 0, tablePort: 0 });
    await vscode.commands.executeCommand('azurite.start');
    const ports = (['blob', 'queue', 'table'] as const).map((k) => a.emulator.endpoint(k)!.port);
    await BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('saved-on-deactivate').create();
    const enginePid = a.emulator.enginePid;
    assert.ok(enginePid !== undefined && enginePid !== process.pid, 'the engine runs in a process of its own');

    // The extension host loaded dist/extension.js (the entry point, which hands deactivate() to
    // dist/main.js) with Node's require: the same module instance.
    const main = path.join(vscode.extensions.getExtension('storage-emulators.storage-emulators')!.extensionPath, 'dist', 'extension.js');
    const extension = require(main) as { deactivate(): Promise<void> | undefined };
    const stopping = extension.deactivate();
    assert.ok(stopping instanceof Promise, 'deactivate() returns the promise that stops the services');
    await stopping;

    for (const port of ports) {
      const free = await new Promise<boolean>((resolve) => {
        const s = net.createServer();
        s.once('error', () => resolve(false));
        s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
      });
      assert.ok(free, `port ${port} is still taken after deactivate()`);
    }
    const db = fs.readFileSync(path.join(workspace, '.azurite', '__azurite_db_blob__.json'), 'utf8');
    assert.ok(db.includes('saved-on-deactivate'), 'the container was saved to disk');
    assert.throws(() => process.kill(enginePid, 0), /ESRCH/, 'the engine\'s process has exited: nothing is left running');
    // A data operation asked for now (a task's reset as the window closes) does not begin: the
    // services are gone, and it could neither finish nor undo what it did.
    assert.deepEqual(await vscode.commands.executeCommand('azurite.reset', { skipConfirmation: true }), { ok: false, reason: 'cancelled', message: 'Cancelled.' });
  });
});
