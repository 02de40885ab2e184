/**
 * In a real VS Code: a service on 0.0.0.0 is said to be reachable from the network (one
 * notification, a warning-coloured item) and "Bind to 127.0.0.1" moves it back, asking first when
 * the restart drops in-memory data, and on disk only once an import under way is done; a data folder on
 * which Node's recursive mkdir never returns fails within its bound naming azurite.location; the
 * PFX password goes to Secret Storage.
 */
import * as assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import * as vscode from 'vscode';
import { LIFECYCLE_BOUNDS } from '../../src/core/bounds';
import { exposureNotice } from '../../src/core/hosts';
import { PROGRESS_DELAY_MS } from '../../src/ui/progress';
import type { Outcome } from '../../src/emulator/serviceManager';
import { api, configure, manyBlobsSnapshot, reset, waitFor } from './helpers';

const config = () => vscode.workspace.getConfiguration('azurite');
const target = vscode.ConfigurationTarget.Workspace;

describe('Exposure, bounded starts and the certificate password', function () {
  this.timeout(60_000);
  before(reset);
  afterEach(async () => {
    for (const key of ['blobHost', 'cert', 'pwd', 'location']) await config().update(key, undefined, target);
    await reset();
  });

  it('a Blob on 0.0.0.0: one warning notification, a warning item, and Bind to 127.0.0.1 moves it back', async () => {
    const a = await api();
    await config().update('blobHost', '0.0.0.0', target);
    await waitFor('blobHost 0.0.0.0 to reach the emulator', () => a.emulator.options.services.blob.host === '0.0.0.0');
    const shown = a.notifications().length;
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob'), [{ ok: true }]);
    const port = a.emulator.endpoint('blob')!.port;
    const notice = exposureNotice('blob', '0.0.0.0', port);
    await waitFor('the exposure notification', () => a.notifications().slice(shown).includes(notice));
    const item = a.statusItems().blob;
    assert.equal(item.backgroundColor, 'statusBarItem.warningBackground');
    assert.ok(item.tooltip.includes('running on all interfaces \\(0\\.0\\.0\\.0\\), port '), item.tooltip);
    assert.ok(item.tooltip.includes('$(warning) Reachable from other machines on your network at '), item.tooltip);
    assert.equal(a.notifications().slice(shown).filter((n) => n === notice).length, 1);
    // Its restarts on the same address (a Clean, a stop and a start) say nothing more.
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.clean_blob', { skipConfirmation: true }), [{ ok: true }]);
    await vscode.commands.executeCommand('azurite.close_blob');
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob'), [{ ok: true }]);
    assert.equal(a.notifications().slice(shown).filter((n) => n.startsWith('Azurite Blob listens on')).length, 1, 'one notice for one address');
    // Set back to 127.0.0.1 while stopped, then to 0.0.0.0 again: the next start warns again.
    await vscode.commands.executeCommand('azurite.close_blob');
    await config().update('blobHost', '127.0.0.1', target);
    await waitFor('blobHost 127.0.0.1 to reach the emulator', () => a.emulator.options.services.blob.host === '127.0.0.1');
    await config().update('blobHost', '0.0.0.0', target);
    await waitFor('blobHost 0.0.0.0 to reach the emulator', () => a.emulator.options.services.blob.host === '0.0.0.0');
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob'), [{ ok: true }]);
    await waitFor('the second notice', () => a.notifications().slice(shown).filter((n) => n.startsWith('Azurite Blob listens on')).length === 2 || undefined);

    // What the notification's "Bind to 127.0.0.1" runs (a headless test cannot click it). Blob holds
    // in-memory data: the setting is written, and the restart that would drop the data is asked about.
    const container = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('kept');
    await container.create();
    await container.getBlockBlobClient('b').upload('kept', 4);
    assert.deepEqual(await a.bindToLoopback('blob'), { ok: true });
    assert.equal(config().inspect<string>('blobHost')?.workspaceValue, '127.0.0.1');
    await waitFor('the restart question', () => a.notifications().slice(shown).includes('Azurite settings changed for Blob. Restarting drops the in-memory data of Blob.'));
    await a.settled();
    assert.equal(a.emulator.endpoint('blob')?.host, '0.0.0.0', 'not restarted before the user says so');
    assert.equal(await container.getBlockBlobClient('b').exists(), true);
    // The user's go-ahead, as a setting: the restart follows without a question.
    await configure({ restartOnConfigChange: true });
    await waitFor('Blob running on 127.0.0.1', () => a.emulator.endpoint('blob')?.host === '127.0.0.1');
    await a.settled();
    assert.equal(a.statusItems().blob.backgroundColor, undefined);
    const exposureNotices = a.notifications().slice(shown).filter((n) => n.startsWith('Azurite Blob listens on'));
    assert.equal(exposureNotices.length, 2, 'the restart on 127.0.0.1 adds no notice');
  });

  it('Bind to 127.0.0.1 of a Blob on disk restarts it once an import under way is done, and the import completes', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    // A backstop only: about 16 s here (the 1500-blob import on disk), 60 s would be close on a 3x slower machine.
    this.timeout(180_000);
    const a = await api();
    const location = fs.mkdtempSync(path.join(os.tmpdir(), 'bind-import-'));
    const snapshot = manyBlobsSnapshot(1500);
    try {
      await configure({ inMemoryPersistence: false, location });
      await config().update('blobHost', '0.0.0.0', target);
      await waitFor('blobHost 0.0.0.0 to reach the emulator', () => a.emulator.options.services.blob.host === '0.0.0.0');
      assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob'), [{ ok: true }]);
      const blobs = BlobServiceClient.fromConnectionString(a.emulator.connectionString());
      let doneAt: number | undefined;
      const importing = Promise.resolve(vscode.commands.executeCommand('azurite.importSnapshot', { folder: snapshot, skipConfirmation: true }))
        .finally(() => { doneAt = performance.now(); });
      await waitFor('the import to be loading blobs', async () => (await blobs.getContainerClient('many').exists()) || undefined, 30_000);
      assert.equal(doneAt, undefined, 'the import is still loading blobs (else the test proves nothing: make it larger)');
      // What the notification's "Bind to 127.0.0.1" runs, while the import loads blobs. The engine
      // is held off the CPU (SIGSTOP) until the wait's progress shows: the import then surely runs
      // on for longer than the progress delay, however the machine schedules it.
      const progressBefore = a.progressShown().length;
      const restartWait = 'Azurite: Blob restart for the settings change once the Reset, Import or Export under way is done';
      const pid = a.emulator.enginePid!;
      const boundAt = performance.now();
      let binding: Promise<Outcome>;
      process.kill(pid, 'SIGSTOP');
      try {
        binding = a.bindToLoopback('blob');
        const shownAt = await waitFor('the wait\'s progress', () => (a.progressShown().slice(progressBefore).includes(restartWait) ? performance.now() : undefined), 30_000);
        assert.ok(shownAt - boundAt >= PROGRESS_DELAY_MS, `no progress before the delay: it showed ${Math.round(shownAt - boundAt)} ms after Bind`);
        assert.equal(doneAt, undefined, 'the import still runs');
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      const [imported, bound] = await Promise.all([importing, binding]);
      assert.deepEqual(imported, { ok: true });
      assert.deepEqual(bound, { ok: true });
      // The wait said what it waits for, once: the setting Bind writes queues the settings watcher's
      // restart, whose wait shows it; Bind's own wait shares that restart.
      const waits = a.progressShown().slice(progressBefore).filter((t) => t.endsWith('once the Reset, Import or Export under way is done'));
      assert.deepEqual(waits, [restartWait]);
      assert.equal(a.emulator.endpoint('blob')?.host, '127.0.0.1');
      let count = 0;
      for await (const page of BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('many').listBlobsFlat().byPage()) count += page.segment.blobItems.length;
      assert.equal(count, 1500);
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      fs.rmSync(location, { recursive: true, force: true });
      fs.rmSync(snapshot, { recursive: true, force: true });
    }
  });

  it('azurite.location /proc/forbidden/x fails within the folder bound, naming azurite.location', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: false });
    await config().update('location', '/proc/forbidden/x', target);
    await waitFor('the location to reach the emulator', () => a.emulator.options.location === '/proc/forbidden/x');
    const began = performance.now();
    const [outcome] = (await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob'))!;
    const elapsed = performance.now() - began;
    assert.ok(elapsed < LIFECYCLE_BOUNDS.folderMs, `took ${Math.round(elapsed)} ms`);
    assert.equal(outcome!.ok, false);
    if (!outcome!.ok) {
      assert.equal(outcome!.setting, 'azurite.location');
      assert.match(outcome!.message, /^azurite\.location resolves to "\/proc\/forbidden\/x", which cannot be created or written/);
    }
    assert.equal(a.emulator.status('blob').status, 'closed');
    assert.equal(a.statusItems().blob.backgroundColor, 'statusBarItem.errorBackground');
    // The next test file finds no service in error: a good start clears it.
    await reset();
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob'), [{ ok: true }]);
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.close_blob'), [{ ok: true }]);
    assert.equal(a.statusItems().blob.backgroundColor, undefined);
  });

  it('Set Certificate Password stores into Secret Storage; the settings use it for a PFX; never shown', async () => {
    const a = await api();
    const secret = 'pfx pass 12 ✓';
    const shown = a.notifications().length;
    assert.equal(await vscode.commands.executeCommand<boolean>('azurite.setCertificatePassword', secret), true);
    assert.equal(await a.storedCertificatePassword(), secret);
    await config().update('cert', '/nonexistent/dev.pfx', target);
    await waitFor('the PFX with the stored password', () => a.emulator.options.https?.pwdFromSecretStorage === true && a.emulator.options.https.pwd === secret);
    assert.deepEqual(a.emulator.settingErrors('blob'), []);
    assert.ok(a.notifications().slice(shown).every((n) => !n.includes(secret)));
    assert.equal(await vscode.commands.executeCommand<boolean>('azurite.setCertificatePassword', ''), true);
    assert.equal(await a.storedCertificatePassword(), undefined);
  });

  it('a certificate password in Secret Storage that does not open the PFX fails the start with Set Certificate Password to offer, not Open Settings', async () => {
    const a = await api();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pfx-'));
    const [cert, key, pfx] = ['dev.pem', 'dev-key.pem', 'dev.pfx'].map((f) => path.join(dir, f));
    for (const args of [
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1'],
      ['pkcs12', '-export', '-in', cert, '-inkey', key, '-out', pfx, '-passout', 'pass:the right one'],
    ]) {
      const made = childProcess.spawnSync('openssl', args, { encoding: 'utf8' });
      assert.equal(made.status, 0, `openssl (the test needs its CLI): ${made.error?.message ?? made.stderr}`);
    }
    try {
      await vscode.commands.executeCommand('azurite.setCertificatePassword', 'not the one');
      await config().update('cert', pfx, target);
      await waitFor('the PFX with the stored password', () => a.emulator.options.https?.pwdFromSecretStorage === true || undefined);
      const [outcome] = await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob');
      assert.ok(outcome !== undefined && !outcome.ok && outcome.secret === 'certificatePassword', JSON.stringify(outcome));
      assert.match(outcome.message, /^The certificate password in Secret Storage does not open azurite\.cert/);
      const message = await waitFor('the error', () => a.notifications().find((n) => n.startsWith('The certificate password in Secret Storage')));
      assert.deepEqual(a.notificationActions(message), ['Set Certificate Password']);
    } finally {
      await config().update('cert', undefined, target);
      await vscode.commands.executeCommand('azurite.setCertificatePassword', '');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('azurite.pwd in settings.json: a one-time notice; Move to Secret Storage stores it and removes the setting', async () => {
    const a = await api();
    const shown = a.notifications().length;
    await config().update('pwd', 'from-settings', target);
    const notice = await waitFor('the move notice', () => a.notifications().slice(shown).find((n) => n.startsWith('azurite.pwd keeps your certificate password in settings.json in plain text.')));
    // Workspace settings may be shared: the notice says the password leaves them, for everyone.
    assert.match(notice, /the setting is removed from this workspace's settings \(anyone who shares that file then sets the password with "Azurite: Set Certificate Password" too\)\.$/);
    assert.equal(await a.movePasswordToSecretStorage(), true);
    assert.equal(config().inspect<string>('pwd')?.workspaceValue, undefined);
    assert.equal(await a.storedCertificatePassword(), 'from-settings');
    await config().update('pwd', 'again', target);
    await a.settled();
    const notices = a.notifications().slice(shown).filter((n) => n.startsWith('azurite.pwd keeps'));
    assert.equal(notices.length, 1, 'offered once');
    await vscode.commands.executeCommand('azurite.setCertificatePassword', '');
  });

  it('Move to Secret Storage loses no password: refused while user and workspace settings differ, or another one is stored', async () => {
    const a = await api();
    const user = vscode.ConfigurationTarget.Global;
    try {
      await config().update('pwd', 'user-pw', user);
      await config().update('pwd', 'project-pw', target);
      let shown = a.notifications().length;
      assert.equal(await a.movePasswordToSecretStorage(), false);
      assert.deepEqual([config().inspect<string>('pwd')?.globalValue, config().inspect<string>('pwd')?.workspaceValue], ['user-pw', 'project-pw']);
      assert.equal(await a.storedCertificatePassword(), undefined);
      assert.ok(a.notifications().slice(shown).some((n) => n.startsWith('azurite.pwd was not moved to Secret Storage: your workspace, user settings set different passwords')));

      await vscode.commands.executeCommand('azurite.setCertificatePassword', 'stored-before');
      await config().update('pwd', 'user-pw', target);
      shown = a.notifications().length;
      assert.equal(await a.movePasswordToSecretStorage(), false);
      assert.equal(await a.storedCertificatePassword(), 'stored-before');
      assert.ok(a.notifications().slice(shown).some((n) => n.startsWith('azurite.pwd was not moved to Secret Storage: it already holds another certificate password')));

      // The same password everywhere, nothing else stored: moved, and removed from both places.
      await vscode.commands.executeCommand('azurite.setCertificatePassword', '');
      assert.equal(await a.movePasswordToSecretStorage(), true);
      assert.deepEqual([config().inspect<string>('pwd')?.globalValue, config().inspect<string>('pwd')?.workspaceValue], [undefined, undefined]);
      assert.equal(await a.storedCertificatePassword(), 'user-pw');
    } finally {
      await config().update('pwd', undefined, user);
      await config().update('pwd', undefined, target);
      await vscode.commands.executeCommand('azurite.setCertificatePassword', '');
    }
  });
});
