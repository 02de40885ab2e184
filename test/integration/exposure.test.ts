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
import * as tls from 'node:tls';
import { BlobServiceClient } from '@azure/storage-blob';
import * as vscode from 'vscode';
import { LIFECYCLE_BOUNDS } from '../../src/core/bounds';
import { exposureNotice } from '../../src/core/hosts';
import { PASSWORD_SECRET_KEY, passwordSecretKey } from '../../src/ui/certificatePassword';
import { BIND_TO_LOOPBACK, DONT_SHOW_AGAIN } from '../../src/ui/exposureAlerts';
import { PROGRESS_DELAY_MS } from '../../src/ui/progress';
import type { Outcome } from '../../src/emulator/serviceManager';
import { api, configure, manyBlobsSnapshot, reset, waitFor } from './helpers';

const config = () => vscode.workspace.getConfiguration('azurite');
const target = vscode.ConfigurationTarget.Workspace;

describe('Exposure, bounded starts and the certificate password', function () {
  this.timeout(60_000);
  before(reset);
  afterEach(async () => {
    for (const key of ['blobHost', 'queueHost', 'tableHost', 'cert', 'pwd', 'location']) await config().update(key, undefined, target);
    await reset();
  });

  it('a Blob on 0.0.0.0: one warning notification, a warning item, and Bind to 127.0.0.1 moves it back', async () => {
    const a = await api();
    await config().update('blobHost', '0.0.0.0', target);
    await waitFor('blobHost 0.0.0.0 to reach the emulator', () => a.emulator.options.services.blob.host === '0.0.0.0');
    const shown = a.notifications().length;
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob'), [{ ok: true }]);
    const port = a.emulator.endpoint('blob')!.port;
    const notice = exposureNotice([{ kind: 'blob', port }], '0.0.0.0');
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

  it('services started together on 0.0.0.0 share one notice; Don\'t Show Again is kept per service and address; Bind binds each', async () => {
    const a = await api();
    const kinds = ['blob', 'queue', 'table'] as const;
    const hosts = async (host: string): Promise<void> => {
      for (const kind of kinds) await config().update(`${kind}Host`, host, target);
      await waitFor(`the hosts ${host} to reach the emulator`, () => kinds.every((k) => a.emulator.options.services[k].host === host));
    };
    const exposureNotices = (from: number): string[] => a.notifications().slice(from).filter((n) => /^Azurite [A-Za-z, ]+ listens? on /.test(n));
    const ports = () => kinds.map((kind) => ({ kind, port: a.emulator.endpoint(kind)!.port }));
    await hosts('0.0.0.0');
    let shown = a.notifications().length;
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start'), [{ ok: true }, { ok: true }, { ok: true }]);
    const all = exposureNotice(ports(), '0.0.0.0');
    assert.match(all, /^Azurite Blob, Queue, and Table listen on all interfaces \(0\.0\.0\.0\), ports /);
    await waitFor('the one notice', () => exposureNotices(shown).length > 0 || undefined);
    assert.deepEqual(exposureNotices(shown), [all]);
    assert.deepEqual(a.notificationActions(all), [BIND_TO_LOOPBACK, DONT_SHOW_AGAIN]);

    // What "Don't Show Again" runs, for Queue and Table (Blob's notice is what the other tests check).
    assert.deepEqual(await a.answerExposure(DONT_SHOW_AGAIN, ports().slice(1), '0.0.0.0'), []);
    // Back on loopback, then on 0.0.0.0 again: Blob warns again (alone), Queue and Table do not.
    await vscode.commands.executeCommand('azurite.close');
    await hosts('127.0.0.1');
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start'), [{ ok: true }, { ok: true }, { ok: true }]);
    await vscode.commands.executeCommand('azurite.close');
    await hosts('0.0.0.0');
    shown = a.notifications().length;
    assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start'), [{ ok: true }, { ok: true }, { ok: true }]);
    const blobOnly = exposureNotice(ports().slice(0, 1), '0.0.0.0');
    await waitFor('Blob\'s notice', () => exposureNotices(shown).length > 0 || undefined);
    assert.deepEqual(exposureNotices(shown), [blobOnly]);
    assert.equal(a.statusItems().queue.backgroundColor, 'statusBarItem.warningBackground', 'the item still says it');

    // What "Bind to 127.0.0.1" runs for a notice naming two services: each is bound and restarted.
    await configure({ restartOnConfigChange: true });
    assert.deepEqual(await a.answerExposure(BIND_TO_LOOPBACK, ports().slice(0, 2), '0.0.0.0'), [{ ok: true }, { ok: true }]);
    await waitFor('Blob and Queue on 127.0.0.1', () => a.emulator.endpoint('blob')?.host === '127.0.0.1' && a.emulator.endpoint('queue')?.host === '127.0.0.1');
    assert.deepEqual(kinds.map((k) => config().inspect<string>(`${k}Host`)?.workspaceValue), ['127.0.0.1', '127.0.0.1', '0.0.0.0']);
    await a.settled();
  });

  it('the notice shows once the service listens, not after its seed', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const a = await api();
    const seed = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-exposed-'));
    // Blob, not Queue or Table: an earlier test answered Don't Show Again for those on 0.0.0.0 in this workspace.
    fs.mkdirSync(path.join(seed, 'blob', 'fixtures'), { recursive: true });
    fs.writeFileSync(path.join(seed, 'blob', 'fixtures', 'hello.txt'), 'hello');
    try {
      // The engine loaded (its process known), the seed set.
      assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob'), [{ ok: true }]);
      await vscode.commands.executeCommand('azurite.close_blob');
      await configure({ seed });
      await config().update('blobHost', '0.0.0.0', target);
      await waitFor('blobHost 0.0.0.0 to reach the emulator', () => a.emulator.options.services.blob.host === '0.0.0.0');
      const pid = a.emulator.enginePid!;
      const shown = a.notifications().length;
      // Held as Blob starts listening: its seed, which comes next, cannot end meanwhile.
      let held = false;
      const sub = a.emulator.onDidChangeState(({ kind, state }) => {
        if (kind === 'blob' && state.status === 'running' && !held) { process.kill(pid, 'SIGSTOP'); held = true; }
      });
      const starting = vscode.commands.executeCommand<Outcome[]>('azurite.start_blob');
      try {
        await waitFor('Blob listening', () => held || undefined);
        assert.ok(a.emulator.startsUnderWay().includes('blob'), 'the seed is still under way');
        const notice = exposureNotice([{ kind: 'blob', port: a.emulator.endpoint('blob')!.port }], '0.0.0.0');
        assert.ok(a.notifications().slice(shown).includes(notice), 'shown while the seed loads');
      } finally {
        process.kill(pid, 'SIGCONT');
        sub.dispose();
      }
      assert.deepEqual(await starting, [{ ok: true }]);
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      await config().update('seed', undefined, target);
      await config().update('blobHost', undefined, target);
      fs.rmSync(seed, { recursive: true, force: true });
    }
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

  it('Set Certificate Password stores into Secret Storage for the file azurite.cert names; each file keeps its own; never shown', async () => {
    const a = await api();
    const secret = 'pfx pass 12 ✓';
    const [dev, other] = ['/nonexistent/dev.pfx', '/nonexistent/other.pfx'];
    const shown = a.notifications().length;
    try {
      // No azurite.cert: no file to keep it for, and the error says what to set.
      assert.equal(await vscode.commands.executeCommand<boolean>('azurite.setCertificatePassword', secret), false);
      const first = 'Azurite: set azurite.cert to your PFX file first (it is unset, or a relative path with no folder open); the certificate password is kept for that file.';
      assert.ok(a.notifications().slice(shown).includes(first));
      assert.deepEqual(a.notificationActions(first), ['Open Settings']);
      assert.equal(await a.storedCertificatePassword(), undefined);

      await config().update('cert', dev, target);
      await waitFor('dev.pfx to reach the emulator', () => a.emulator.settingErrors('blob').some((e) => e.startsWith('azurite.cert ')) || undefined);
      assert.equal(await vscode.commands.executeCommand<boolean>('azurite.setCertificatePassword', secret), true);
      assert.equal(await a.storedCertificatePassword(dev), secret);
      await waitFor('the PFX with the stored password', () => a.emulator.options.https?.pwdFromSecretStorage === true && a.emulator.options.https.pwd === secret);
      assert.deepEqual(a.emulator.settingErrors('blob'), []);

      // Another project's file: not this password. It gets its own, and dev.pfx keeps its one.
      await config().update('cert', other, target);
      await waitFor('other.pfx without a password', () => (a.emulator.options.https === undefined && a.emulator.settingErrors('blob').some((e) => e.startsWith('azurite.cert '))) || undefined);
      assert.equal(await vscode.commands.executeCommand<boolean>('azurite.setCertificatePassword', 'other pass'), true);
      await waitFor('other.pfx with its password', () => a.emulator.options.https?.cert === other && a.emulator.options.https.pwd === 'other pass');
      await config().update('cert', dev, target);
      await waitFor('dev.pfx with its own password again', () => a.emulator.options.https?.cert === dev && a.emulator.options.https.pwd === secret);
      assert.ok(a.notifications().slice(shown).every((n) => !n.includes(secret) && !n.includes('other pass')));

      assert.equal(await vscode.commands.executeCommand<boolean>('azurite.setCertificatePassword', ''), true);
      assert.equal(await a.storedCertificatePassword(dev), undefined);
      assert.equal(await a.storedCertificatePassword(other), 'other pass');
      // One entry per file: on Windows, a drive letter typed in either case names the same one.
      assert.equal(passwordSecretKey('C:\\certs\\dev.pfx', 'win32'), passwordSecretKey('c:\\certs\\dev.pfx', 'win32'));
      assert.notEqual(passwordSecretKey('/C/dev.pfx', 'linux'), passwordSecretKey('/c/dev.pfx', 'linux'));
    } finally {
      for (const cert of [dev, other]) await a.secretStorage.delete(passwordSecretKey(cert));
    }
  });

  it('the password earlier versions kept for every workspace stands in for a file without its own, until one is set or removed for it', async () => {
    const a = await api();
    const [one, two] = ['/nonexistent/one.pfx', '/nonexistent/two.pfx'];
    try {
      await config().update('cert', one, target);
      await waitFor('one.pfx to reach the emulator', () => a.emulator.settingErrors('blob').some((e) => e.startsWith('azurite.cert ')) || undefined);
      // As an earlier version stored it: the settings take it up at once (Secret Storage's change event).
      await a.secretStorage.store(PASSWORD_SECRET_KEY, 'shared pw');
      await waitFor('one.pfx with the shared password', () => a.emulator.options.https?.pwd === 'shared pw' || undefined);
      assert.equal(await vscode.commands.executeCommand<boolean>('azurite.setCertificatePassword', 'own pw'), true);
      await waitFor('one.pfx with its own', () => a.emulator.options.https?.pwd === 'own pw' || undefined);
      // Removed for one.pfx: the shared one no longer stands in there, and still does for two.pfx.
      assert.equal(await vscode.commands.executeCommand<boolean>('azurite.setCertificatePassword', ''), true);
      await waitFor('one.pfx without a password', () => (a.emulator.options.https === undefined && a.emulator.settingErrors('blob').some((e) => e.startsWith('azurite.cert '))) || undefined);
      assert.equal(await a.storedCertificatePassword(), 'shared pw', 'other workspaces keep the shared one');
      await config().update('cert', two, target);
      await waitFor('two.pfx with the shared password', () => (a.emulator.options.https?.cert === two && a.emulator.options.https.pwd === 'shared pw') || undefined);
      // Removed for every file: the shared one goes too (a script says so; the palette asks).
      const shown = a.notifications().length;
      assert.equal(await vscode.commands.executeCommand<boolean>('azurite.setCertificatePassword', '', { everyFile: true }), true);
      assert.equal(await a.storedCertificatePassword(), undefined);
      assert.equal(await a.storedCertificatePassword(two), undefined);
      await waitFor('two.pfx without a password', () => (a.emulator.options.https === undefined && a.emulator.settingErrors('blob').some((e) => e.startsWith('azurite.cert '))) || undefined);
      assert.ok(a.notifications().slice(shown).includes('Azurite: the password of two.pfx and the one for every file without its own were removed from Secret Storage.'));
    } finally {
      for (const key of [PASSWORD_SECRET_KEY, passwordSecretKey(one), passwordSecretKey(two)]) await a.secretStorage.delete(key);
    }
  });

  it('a certificate password in Secret Storage that does not open the PFX fails the start with Set Certificate Password to offer, which starts it again', async () => {
    const a = await api();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pfx-'));
    const pfx = makePfx(dir, 'dev', 'the right one');
    try {
      await config().update('cert', pfx, target);
      await waitFor('the PFX to reach the emulator', () => a.emulator.settingErrors('blob').some((e) => e.startsWith('azurite.cert ')) || undefined);
      await vscode.commands.executeCommand('azurite.setCertificatePassword', 'not the one');
      await waitFor('the PFX with the stored password', () => a.emulator.options.https?.pwdFromSecretStorage === true || undefined);
      const [outcome] = await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob');
      assert.ok(outcome !== undefined && !outcome.ok && outcome.secret === 'certificatePassword', JSON.stringify(outcome));
      assert.match(outcome.message, /^The certificate password in Secret Storage does not open azurite\.cert/);
      const message = await waitFor('the error', () => a.notifications().find((n) => n.startsWith('The certificate password in Secret Storage')));
      assert.deepEqual(a.notificationActions(message), ['Set Certificate Password']);
      // What that action runs, given the right password: the start that failed runs again.
      assert.equal(await vscode.commands.executeCommand<boolean>('azurite.setCertificatePassword', 'the right one'), true);
      assert.equal(a.emulator.status('blob').status, 'running');
      assert.equal(await servedCommonName(a.emulator.endpoint('blob')!.port), 'dev');
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      await a.secretStorage.delete(passwordSecretKey(pfx));
      await config().update('cert', undefined, target);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a running service restarts on a newly set azurite.cert with the password stored for that file', async () => {
    const a = await api();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pfx-'));
    const [first, second] = [makePfx(dir, 'first', 'pw one'), makePfx(dir, 'second', 'pw two')];
    try {
      await configure({ restartOnConfigChange: true });
      await config().update('cert', first, target);
      await waitFor('first.pfx to reach the emulator', () => a.emulator.settingErrors('blob').some((e) => e.startsWith('azurite.cert ')) || undefined);
      assert.equal(await vscode.commands.executeCommand<boolean>('azurite.setCertificatePassword', 'pw one'), true);
      await waitFor('first.pfx with its password', () => a.emulator.options.https?.pwd === 'pw one' || undefined);
      assert.deepEqual(await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob'), [{ ok: true }]);
      assert.equal(await servedCommonName(a.emulator.endpoint('blob')!.port), 'first');
      // A file this window has not read a password for (stored as another window would store it):
      // read when azurite.cert names it, before the settings apply, then the restart.
      await a.secretStorage.store(passwordSecretKey(second), 'pw two');
      await config().update('cert', second, target);
      await waitFor('Blob serving second.pfx', async () => (a.emulator.status('blob').status === 'running' && await servedCommonName(a.emulator.endpoint('blob')!.port) === 'second') || undefined);
      await a.settled();
      assert.deepEqual(a.emulator.settingErrors('blob'), []);
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      for (const pfx of [first, second]) await a.secretStorage.delete(passwordSecretKey(pfx));
      await config().update('cert', undefined, target);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('azurite.pwd in settings.json: a one-time notice; Move to Secret Storage stores it and removes the setting', async () => {
    const a = await api();
    const dev = '/nonexistent/dev.pfx';
    await config().update('cert', dev, target);
    const shown = a.notifications().length;
    await config().update('pwd', 'from-settings', target);
    const notice = await waitFor('the move notice', () => a.notifications().slice(shown).find((n) => n.startsWith('azurite.pwd keeps your certificate password in settings.json in plain text.')));
    // Workspace settings may be shared: the notice says the password leaves them, for everyone.
    assert.match(notice, /the setting is removed from this workspace's settings \(anyone who shares that file then sets the password with "Azurite: Set Certificate Password" too\)\.$/);
    assert.equal(await a.movePasswordToSecretStorage(), true);
    assert.equal(config().inspect<string>('pwd')?.workspaceValue, undefined);
    assert.equal(await a.storedCertificatePassword(dev), 'from-settings');
    await config().update('pwd', 'again', target);
    await a.settled();
    const notices = a.notifications().slice(shown).filter((n) => n.startsWith('azurite.pwd keeps'));
    assert.equal(notices.length, 1, 'offered once');
    await a.secretStorage.delete(passwordSecretKey(dev));
  });

  it('Move to Secret Storage: a workspace value for azurite.cert\'s file, a user value for every file; refused where it would replace another', async () => {
    const a = await api();
    const user = vscode.ConfigurationTarget.Global;
    const dev = '/nonexistent/dev.pfx';
    try {
      // No azurite.cert: no file to keep a workspace's password for.
      await config().update('pwd', 'project-pw', target);
      let shown = a.notifications().length;
      assert.equal(await a.movePasswordToSecretStorage(), false);
      assert.ok(a.notifications().slice(shown).some((n) => n.startsWith('azurite.pwd was not moved to Secret Storage: azurite.cert is not set')));
      assert.equal(config().inspect<string>('pwd')?.workspaceValue, 'project-pw');

      // Both places, with different passwords: each goes where it served, and nothing is lost.
      await config().update('cert', dev, target);
      await config().update('pwd', 'user-pw', user);
      assert.equal(await a.movePasswordToSecretStorage(), true);
      assert.deepEqual([config().inspect<string>('pwd')?.globalValue, config().inspect<string>('pwd')?.workspaceValue], [undefined, undefined]);
      assert.equal(await a.storedCertificatePassword(dev), 'project-pw');
      assert.equal(await a.storedCertificatePassword(), 'user-pw');
      await waitFor('dev.pfx with the moved password', () => a.emulator.options.https?.pwd === 'project-pw' || undefined);

      // Another password already kept for the file, or for every file: refused, the setting kept.
      await config().update('pwd', 'another', target);
      shown = a.notifications().length;
      assert.equal(await a.movePasswordToSecretStorage(), false);
      assert.ok(a.notifications().slice(shown).some((n) => n.startsWith('azurite.pwd was not moved to Secret Storage: it already holds another password for azurite.cert')));
      assert.equal(config().inspect<string>('pwd')?.workspaceValue, 'another');
      await config().update('pwd', undefined, target);
      await a.secretStorage.delete(passwordSecretKey(dev));
      await config().update('pwd', 'user-other', user);
      shown = a.notifications().length;
      assert.equal(await a.movePasswordToSecretStorage(), false);
      assert.ok(a.notifications().slice(shown).some((n) => n.startsWith('azurite.pwd was not moved to Secret Storage: your user settings\' password would become the one for every certificate file')));
      assert.equal(await a.storedCertificatePassword(), 'user-pw');
      // The file's password removed (the shared one no longer serves it): the user value would not serve it either.
      await config().update('pwd', undefined, user);
      assert.equal(await vscode.commands.executeCommand<boolean>('azurite.setCertificatePassword', ''), true);
      await config().update('pwd', 'user-pw', user);
      shown = a.notifications().length;
      assert.equal(await a.movePasswordToSecretStorage(), false);
      assert.ok(a.notifications().slice(shown).some((n) => n.startsWith('azurite.pwd was not moved to Secret Storage: it already holds another password for azurite.cert')));
      assert.equal(config().inspect<string>('pwd')?.globalValue, 'user-pw');
    } finally {
      await config().update('pwd', undefined, user);
      await config().update('pwd', undefined, target);
      for (const key of [PASSWORD_SECRET_KEY, passwordSecretKey(dev)]) await a.secretStorage.delete(key);
    }
  });
});

/** Makes `<dir>/<name>.pfx` (a self-signed EC certificate for 127.0.0.1, common name `name`) with `password`; its path. */
function makePfx(dir: string, name: string, password: string): string {
  const [cert, key, pfx] = [`${name}.pem`, `${name}-key.pem`, `${name}.pfx`].map((f) => path.join(dir, f));
  for (const args of [
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${name}`, '-addext', 'subjectAltName=IP:127.0.0.1'],
    ['pkcs12', '-export', '-in', cert, '-inkey', key, '-out', pfx, '-passout', `pass:${password}`],
  ]) {
    const made = childProcess.spawnSync('openssl', args, { encoding: 'utf8' });
    assert.equal(made.status, 0, `openssl (the test needs its CLI): ${made.error?.message ?? made.stderr}`);
  }
  return pfx;
}

/** The common name of the certificate served on 127.0.0.1:`port`. */
function servedCommonName(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const cn = socket.getPeerCertificate().subject?.CN;
      socket.end();
      resolve(Array.isArray(cn) ? cn.join(',') : String(cn));
    });
    socket.once('error', reject);
  });
}
