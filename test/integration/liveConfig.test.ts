/**
 * Live settings, port conflicts and terminals, in a real VS Code extension host.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BlobServiceClient } from '@azure/storage-blob';
import type { Outcome } from '../../src/emulator/serviceManager';
import { api, configure, reset, runTask, waitFor, withEngineHeld } from './helpers';
import { recordedNotifications, writeSetting } from '../../src/ui/notify';

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

/**
 * Starts Queue (in memory) and turns azurite.loose on, which only a restart applies: resolves once
 * the restart question is shown (left unanswered, as after Later), with a count of that question.
 */
async function queueAskedAboutLoose(): Promise<{ a: Awaited<ReturnType<typeof api>>; asked: () => number; before: number }> {
  const a = await api();
  await vscode.commands.executeCommand('azurite.start_queue');
  const question = 'Azurite settings changed for Queue. Restarting drops the in-memory data of Queue.';
  const asked = (): number => a.notifications().filter((n) => n === question).length;
  const before = asked();
  await configure({ loose: true });
  await waitFor('the question', () => asked() === before + 1);
  return { a, asked, before };
}

describe('Live settings, port conflicts and terminals', () => {
  before(reset);
  afterEach(reset);

  it('restarts a running disk-mode service on a settings change, and its blobs survive', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: false });
    await vscode.commands.executeCommand('azurite.start_blob');
    const container = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('survives');
    await container.create();
    await container.getBlockBlobClient('b').uploadData(Buffer.from('still here'));
    const restarts: string[] = [];
    const sub = a.emulator.onDidChangeState(({ kind, state }) => { if (kind === 'blob') restarts.push(state.status); });
    try {
      await configure({ loose: true });
      await waitFor('the blob service to restart', () => restarts.join(',') === 'closing,closed,starting,running');
      await a.settled();
    } finally {
      sub.dispose();
    }
    assert.deepEqual(a.emulator.servicesNeedingRestart(), []);
    const again = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('survives');
    assert.equal((await again.getBlockBlobClient('b').downloadToBuffer()).toString(), 'still here');
    await vscode.commands.executeCommand('azurite.clean_blob', { skipConfirmation: true });
  });

  it('while a service stops, its item names the data it holds, not what the settings say since', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const a = await api();
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'nextone'));
    try {
      await configure({ inMemoryPersistence: true });
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      // Disk mode from now on: the in-memory Blob keeps running until the question is answered.
      await configure({ inMemoryPersistence: false, location: folder });
      assert.equal(a.emulator.isRunningInMemory('blob'), true);
      let closing: Thenable<unknown> | undefined;
      await withEngineHeld(a.emulator.enginePid!, async () => {
        closing = vscode.commands.executeCommand('azurite.close_blob');
        await waitFor('Blob stopping', () => a.emulator.status('blob').status === 'closing' || undefined);
        const tooltip = a.statusItems().blob.tooltip;
        assert.ok(tooltip.includes('in memory') && !tooltip.includes(path.basename(folder)), tooltip);
      });
      await closing;
      // Stopped: what the next start would use.
      assert.ok(a.statusItems().blob.tooltip.includes(path.basename(folder)), a.statusItems().blob.tooltip);
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('restarts once for changes written in a row (the Settings editor writes while the user types), on the last value: no data folder is made at a partial path', async () => {
    const a = await api();
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'typed-location-'));
    try {
      await configure({ inMemoryPersistence: false });
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      const closings: string[] = [];
      const sub = a.emulator.onDidChangeState(({ kind, state }) => { if (kind === 'blob' && state.status === 'closing') closings.push(state.status); });
      try {
        // As typed with pauses: "…/da", then "…/data".
        const config = vscode.workspace.getConfiguration('azurite');
        await config.update('location', path.join(parent, 'da'), vscode.ConfigurationTarget.Workspace);
        await config.update('location', path.join(parent, 'data'), vscode.ConfigurationTarget.Workspace);
        await waitFor('the emulator to read the last location', () => a.emulator.options.location === path.join(parent, 'data'));
        await a.settled();
        await waitFor('Blob running again', () => a.emulator.status('blob').status === 'running');
      } finally {
        sub.dispose();
      }
      assert.equal(closings.length, 1, 'one restart');
      assert.equal(a.emulator.dataLocation('blob'), path.join(parent, 'data'));
      assert.deepEqual(fs.readdirSync(parent), ['data'], 'no folder at the partial path');
    } finally {
      await reset();
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it('points out data the Azurite extension wrote where it took azurite.location literally, and Use That Folder uses it', async () => {
    const a = await api();
    const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const name = `azurite-literal-${process.pid}-${Date.now()}`;
    const theirs = path.join(workspace, '~', name); // where the Azurite extension put "~/<name>"
    const ours = path.join(os.homedir(), name);
    const config = () => vscode.workspace.getConfiguration('azurite');
    const containers = async (): Promise<string[]> => {
      const names: string[] = [];
      for await (const c of BlobServiceClient.fromConnectionString(a.emulator.connectionString()).listContainers()) names.push(c.name);
      return names;
    };
    try {
      // The Azurite extension's data: a container saved in that folder.
      await configure({ inMemoryPersistence: false });
      await config().update('location', theirs, vscode.ConfigurationTarget.Workspace);
      await waitFor('the location', () => a.emulator.options.location === theirs);
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      await BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('written-before').create();
      await vscode.commands.executeCommand('azurite.close_blob');

      // Set in the user's settings, which serve every workspace.
      await config().update('location', undefined, vscode.ConfigurationTarget.Workspace);
      await config().update('location', `~/${name}`, vscode.ConfigurationTarget.Global);
      await waitFor('the expanded location', () => a.emulator.options.location === ours);
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      const notice = await waitFor('the notice', () => a.notifications().find((n) => n.includes(theirs)));
      assert.ok(notice.includes(`takes azurite.location "~/${name}" literally`) && notice.includes(ours), notice);
      assert.deepEqual(await containers(), []);

      assert.deepEqual(await a.useLocation(theirs), { ok: true });
      const written = config().inspect<string>('location');
      assert.equal(written?.workspaceValue, theirs, 'a folder of this workspace, in its settings');
      assert.equal(written?.globalValue, `~/${name}`, 'the user\'s settings, which serve other workspaces too, stay');
      await waitFor('Blob restarted in that folder', () => a.emulator.options.location === theirs && a.emulator.status('blob').status === 'running');
      await a.settled();
      assert.deepEqual(await containers(), ['written-before']);
      assert.equal(a.notifications().filter((n) => n.includes(theirs)).length, 1, 'said once');
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      await config().update('location', undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(path.join(workspace, '~'), { recursive: true, force: true });
      fs.rmSync(ours, { recursive: true, force: true });
    }
  });

  it('points out the Azurite extension\'s data for a ${workspaceFolder} location without offering a value that would be expanded again', async () => {
    const a = await api();
    const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const name = `azurite-literal-${process.pid}-${Date.now()}`;
    const theirs = path.join(workspace, '${workspaceFolder}', name); // where the Azurite extension put "${workspaceFolder}/<name>"
    const ours = path.join(workspace, name);
    const config = () => vscode.workspace.getConfiguration('azurite');
    try {
      // The Azurite extension's data in that folder (azurite's own blob metadata file).
      fs.mkdirSync(theirs, { recursive: true });
      fs.writeFileSync(path.join(theirs, '__azurite_db_blob__.json'), '{}');
      await configure({ inMemoryPersistence: false });
      await config().update('location', `\${workspaceFolder}/${name}`, vscode.ConfigurationTarget.Workspace);
      await waitFor('the expanded location', () => a.emulator.options.location === ours);
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      const notice = await waitFor('the notice', () => a.notifications().find((n) => n.includes(theirs)));
      assert.match(notice, /cannot be set as azurite\.location \(it would be expanded\); to use that data here, move the contents of/);
      assert.deepEqual(a.notificationActions(notice), [], 'no Use That Folder: the value would name another folder');
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      await config().update('location', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(path.join(workspace, '${workspaceFolder}'), { recursive: true, force: true });
      fs.rmSync(ours, { recursive: true, force: true });
    }
  });

  it('says when the workspace folder itself holds Azurite data while .azurite/ does too, and offers it', async () => {
    const a = await api();
    const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const ours = path.join(workspace, '.azurite');
    const rootFile = path.join(workspace, '__azurite_db_blob__.json');
    try {
      await configure({ inMemoryPersistence: false });
      assert.equal(a.emulator.options.location, ours);
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      await vscode.commands.executeCommand('azurite.close_blob');
      // Data in the folder itself too (the Azurite extension's, or an azurite run there).
      fs.copyFileSync(path.join(ours, '__azurite_db_blob__.json'), rootFile);
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      assert.equal(a.emulator.options.location, ours, '.azurite/ stays the default: it holds data');
      const notice = await waitFor('the notice', () => a.notifications().find((n) => n.includes(`The workspace folder ${workspace} holds Azurite data of its own`)));
      assert.ok(notice.includes(`This extension uses ${ours}, which holds data too`), notice);
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      fs.rmSync(rootFile, { force: true });
      fs.rmSync(ours, { recursive: true, force: true });
    }
  });

  it('restarts a service once, after its start, when a setting changed while its seed loaded (disk mode)', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    // A backstop only: about 3 s here; each wait below has its own bound.
    this.timeout(180_000);
    const a = await api();
    // The start ends once its seed has loaded. The engine is held off the CPU (SIGSTOP) from the
    // moment the service listens, before the seed loads, so the setting surely changes during the start.
    const seed = fs.mkdtempSync(path.join(os.tmpdir(), 'stale-start-seed-'));
    fs.mkdirSync(path.join(seed, 'queue'));
    fs.writeFileSync(path.join(seed, 'queue', 'slow.jsonl'), Array.from({ length: 20 }, (_, i) => `{"text":"m${i}"}\n`).join(''));
    const workspaceConfig = () => vscode.workspace.getConfiguration('azurite');
    await configure({ inMemoryPersistence: false });
    // On disk the seed loads only into an empty service.
    await vscode.commands.executeCommand('azurite.clean_queue', { skipConfirmation: true });
    await workspaceConfig().update('seed', seed, vscode.ConfigurationTarget.Workspace);
    const states: string[] = [];
    let held: number | undefined;
    const sub = a.emulator.onDidChangeState(({ kind, state }) => {
      if (kind !== 'queue') return;
      states.push(state.status);
      // Where the start reports it listening: the seed loads after this, through the engine.
      if (state.status === 'running' && held === undefined) {
        held = a.emulator.enginePid!;
        process.kill(held, 'SIGSTOP');
      }
    });
    try {
      let started = false;
      const start = Promise.resolve(vscode.commands.executeCommand('azurite.start_queue')).then(() => { started = true; });
      await waitFor('the queue service to listen (its seed then loads)', () => states.includes('running'));
      await workspaceConfig().update('loose', true, vscode.ConfigurationTarget.Workspace);
      await waitFor('the emulator to read azurite.loose', () => a.emulator.options.loose);
      assert.equal(started, false, 'the setting changed while the start (loading the seed) was under way');
      process.kill(held!, 'SIGCONT');
      await start;
      await waitFor('the queue service to restart once started', () => states.join(',') === 'starting,running,closing,closed,starting,running', 30_000);
      await a.settled();
      assert.equal(states.join(','), 'starting,running,closing,closed,starting,running', 'one restart, not one per way the change was seen');
      assert.deepEqual(a.emulator.servicesNeedingRestart(), []);
    } finally {
      if (held !== undefined) process.kill(held, 'SIGCONT');
      sub.dispose();
      await workspaceConfig().update('seed', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('azurite.clean_queue', { skipConfirmation: true });
      fs.rmSync(seed, { recursive: true, force: true });
    }
  });

  it('does not drop in-memory data on a settings change without asking', async () => {
    const a = await api();
    await vscode.commands.executeCommand('azurite.start_blob');
    const port = a.emulator.endpoint('blob')!.port;
    await configure({ loose: true });
    assert.deepEqual(a.emulator.servicesNeedingRestart(), ['blob']);
    assert.equal(a.emulator.endpoint('blob')?.port, port, 'the service kept running as it was');
  });

  it('asks once about restarting an in-memory service: other changes after Later do not ask again, a new change of its settings does', async () => {
    const { a, asked, before } = await queueAskedAboutLoose();
    // Unanswered (as after Later): a setting applied live asks nothing.
    await configure({ extentMemoryLimit: 64 });
    await a.settled();
    assert.equal(asked(), before + 1);
    assert.equal(a.emulator.status('queue').status, 'running');
    // Its item says the restart is put off.
    assert.match(a.statusItems().queue.tooltip, /Settings changed since it started/);
    // Another change that needs the restart asks again.
    await configure({ loose: false });
    await configure({ queueKeepAliveTimeout: 7 });
    await waitFor('the question again', () => asked() === before + 2);
    await vscode.workspace.getConfiguration('azurite').update('queueKeepAliveTimeout', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('asks again about a change made once more after it was undone (Later answered the change, not the value)', async () => {
    const { a, asked, before } = await queueAskedAboutLoose();
    assert.match(a.statusItems().queue.tooltip, /Settings changed since it started/);
    // Undone: Queue runs with its settings again, and nothing is asked.
    await configure({ loose: false });
    await a.settled();
    assert.deepEqual(a.emulator.servicesNeedingRestart(), []);
    assert.doesNotMatch(a.statusItems().queue.tooltip, /Settings changed since it started/, 'the line goes with the change');
    assert.equal(asked(), before + 1);
    await configure({ loose: true });
    await waitFor('the question again', () => asked() === before + 2);
  });

  it('a setting error meanwhile does not undo a Later: fixing the value asks nothing again', async () => {
    const { a, asked, before } = await queueAskedAboutLoose();
    try {
      // An invalid value blocks Queue's restart for a while; then it is fixed.
      await configure({ queueKeepAliveTimeout: -5 });
      await a.settled();
      await configure({ queueKeepAliveTimeout: 5 });
      await a.settled();
      assert.equal(asked(), before + 1);
      assert.deepEqual(a.emulator.servicesNeedingRestart(), ['queue'], 'still waiting for the answer about loose');
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('queueKeepAliveTimeout', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('restarts a disk-mode service at once while it asks about an in-memory one that needs a restart too', async () => {
    const a = await api();
    const location = fs.mkdtempSync(path.join(os.tmpdir(), 'mixed-modes-'));
    try {
      await configure({ inMemoryPersistence: true });
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_queue'), [{ ok: true }]);
      // Queue keeps running in memory (its question is left unanswered); Blob starts on disk.
      await configure({ inMemoryPersistence: false, location });
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      assert.deepEqual([a.emulator.isRunningInMemory('queue'), a.emulator.isRunningInMemory('blob')], [true, false]);
      const shown = a.notifications().length;
      await configure({ loose: true });
      await waitFor('Blob restarted with loose on, before any answer about Queue', () =>
        a.emulator.status('blob').status === 'running' && !a.emulator.servicesNeedingRestart().includes('blob'), 30_000);
      assert.deepEqual(a.emulator.servicesNeedingRestart(), ['queue']);
      assert.equal(a.emulator.isRunningInMemory('queue'), true, 'the in-memory data waits for the answer');
      await waitFor('the question, about Queue alone', () => a.notifications().slice(shown).includes('Azurite settings changed for Queue. Restarting drops the in-memory data of Queue.'));
    } finally {
      await vscode.commands.executeCommand('azurite.close');
      fs.rmSync(location, { recursive: true, force: true });
    }
  });

  it('says why a fix could not be written to a settings.json that VS Code cannot parse (Raise Limit, Use Port N)', async () => {
    await configure({ blobPort: 0 });
    const file = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.vscode', 'settings.json');
    const kept = fs.readFileSync(file, 'utf8');
    const threshold = (): unknown => vscode.workspace.getConfiguration('azurite').get('memory.warningThreshold');
    try {
      // Unparsable, with one value VS Code still reads: once it reads that, it has the broken file.
      fs.writeFileSync(file, kept.replace(/}\s*$/, ', "azurite.memory.warningThreshold": 81,,,\n'));
      await waitFor('VS Code to read the broken settings.json', () => threshold() === 81 || undefined, 20_000);
      const written = await writeSetting('blobPort', 12345);
      assert.equal(written, false);
      assert.match(recordedNotifications().at(-1) ?? '', /^azurite\.blobPort could not be set to 12345: ./);
      // Raise Limit runs in the extension's bundle: its notifications are the extension's record.
      const a = await api();
      assert.equal(await a.raiseLimitTo(8), false);
      assert.match(a.notifications().at(-1) ?? '', /^azurite\.extentMemoryLimit could not be set to 8: ./);
    } finally {
      fs.writeFileSync(file, kept);
    }
    await waitFor('VS Code to read the settings.json put back', () => threshold() !== 81 || undefined, 20_000);
    await configure({ blobPort: 0 });
  });

  it('Use Port N writes the port and starts there; a port another of our services took since it was offered is not written, and the start offers another', async () => {
    const a = await api();
    const holder = http.createServer((_req, res) => res.end());
    const held = await listen(holder);
    try {
      await configure({ queuePort: held });
      const [refused] = await vscode.commands.executeCommand<Outcome[]>('azurite.start_queue');
      const offered = refused !== undefined && !refused.ok ? refused.conflict?.freePort : undefined;
      assert.ok(offered !== undefined, JSON.stringify(refused));
      // Blob's own "Use Port" (the same search offered it the same port) came first.
      await configure({ blobPort: offered });
      const again = await a.usePort('queue', offered);
      assert.equal(vscode.workspace.getConfiguration('azurite').get('queuePort'), held, 'the port Blob took is not written for Queue');
      const next = again !== undefined && !again.ok ? again.conflict?.freePort : undefined;
      assert.ok(next !== undefined && next !== offered, JSON.stringify(again));
      assert.deepEqual(await a.usePort('queue', next), { ok: true });
      assert.deepEqual([vscode.workspace.getConfiguration('azurite').get('queuePort'), a.emulator.endpoint('queue')?.port], [next, next]);
    } finally {
      holder.close();
    }
  });

  it('restarts in-memory services without asking when azurite.restartOnConfigChange is on', async () => {
    const a = await api();
    await configure({ restartOnConfigChange: true });
    await vscode.commands.executeCommand('azurite.start_queue');
    await configure({ loose: true });
    await waitFor('the queue service to restart with loose on', () => a.emulator.servicesNeedingRestart().length === 0 && a.emulator.endpoint('queue'));
    await a.settled();
    assert.equal(a.emulator.status('queue').status, 'running');
  });

  it('a port set onto another service\'s default port names the setting the user set, not the one left unset', async () => {
    const a = await api();
    const config = vscode.workspace.getConfiguration('azurite');
    // Unset: VS Code's get() gives package.json's default (10001), as if it had been set.
    await config.update('queuePort', undefined, vscode.ConfigurationTarget.Workspace);
    await config.update('blobPort', 10001, vscode.ConfigurationTarget.Workspace);
    const [error] = await waitFor('the clash', () => (a.emulator.settingErrors('blob').length > 0 ? a.emulator.settingErrors('blob') : undefined));
    assert.match(error!, /^azurite\.blobPort is 10001, the same as azurite\.queuePort \(its default\); /);
  });

  it('a service a settings restart could not start again (its new port taken) starts once its port is set by hand to a free one, unless stopped by the user meanwhile', async () => {
    const a = await api();
    const holder = http.createServer((_req, res) => res.end('not azurite'));
    const takenPort = await listen(holder);
    /** Sets Blob's port to the taken one: the restart fails, leaving Blob stopped. */
    const failOnTakenPort = async (): Promise<void> => {
      await configure({ blobPort: takenPort });
      await waitFor('the restart to fail on the taken port', () => {
        const st = a.emulator.status('blob');
        return (st.status === 'closed' && st.error !== undefined) || undefined;
      });
      await a.settled();
    };
    try {
      await configure({ inMemoryPersistence: false, blobPort: 0 });
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      await failOnTakenPort();
      // Another setting Blob starts with changes: nothing is tried (the port is still taken).
      const shown = a.notifications().length;
      await configure({ loose: true });
      assert.equal(a.emulator.status('blob').status, 'closed');
      assert.deepEqual(a.notifications().slice(shown), [], 'no start tried, so no second failure');
      // Set by hand (not Use Port N): the restart the change asked for is done now.
      await configure({ blobPort: 0 });
      await waitFor('Blob running again', () => a.emulator.status('blob').status === 'running' || undefined);
      await a.settled();
      assert.notEqual(a.emulator.clientAddress('blob').port, takenPort);

      // Failed again; a port typed after it is tried once typed, not on the way (a taken one, then
      // a free one, written in a row as the Settings editor writes while the user types).
      await failOnTakenPort();
      const typing = a.notifications().length;
      const other = http.createServer((_req, res) => res.end('not azurite'));
      const otherTaken = await listen(other);
      try {
        await vscode.workspace.getConfiguration('azurite').update('blobPort', otherTaken, vscode.ConfigurationTarget.Workspace);
        await configure({ blobPort: 0 });
        await waitFor('Blob running on the last value', () => a.emulator.status('blob').status === 'running' || undefined);
        await a.settled();
        assert.deepEqual(a.notifications().slice(typing).filter((n) => n.includes(`port ${otherTaken} on`)), [], 'the value on the way was not tried');
      } finally {
        other.close();
      }

      // Failed again, then stopped by the user (Azurite: Close): a port set by hand starts nothing.
      await failOnTakenPort();
      await vscode.commands.executeCommand('azurite.close');
      await configure({ blobPort: 0 });
      await a.settled();
      assert.equal(a.emulator.status('blob').status, 'closed', 'the user\'s Close stands');
    } finally {
      holder.close();
      await vscode.commands.executeCommand('azurite.close_blob');
    }
  });

  it('a service a settings restart could not start again (its folder not writable) starts once memory mode is turned on instead', async () => {
    const a = await api();
    await configure({ inMemoryPersistence: false });
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    try {
      await vscode.workspace.getConfiguration('azurite').update('location', '/proc/forbidden/x', vscode.ConfigurationTarget.Workspace);
      await waitFor('the restart to fail on the folder', () => {
        const st = a.emulator.status('blob');
        return (st.status === 'closed' && st.error?.startsWith('azurite.location resolves to "/proc/forbidden/x"')) || undefined;
      }, 20_000);
      await a.settled();
      // Fixed another way than the setting the failure named: memory mode needs no folder.
      await configure({ inMemoryPersistence: true });
      await waitFor('Blob running in memory', () => (a.emulator.status('blob').status === 'running' && a.emulator.isRunningInMemory('blob')) || undefined);
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('location', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('azurite.close_blob');
    }
  });

  it('says whether a taken port is held by another Azurite or another program, and offers a free port', async () => {
    const a = await api();
    const plain = http.createServer((_req, res) => res.end('not azurite'));
    const fake = http.createServer((_req, res) => { res.setHeader('Server', 'Azurite-Blob/3.37.0'); res.end(); });
    const plainPort = await listen(plain);
    const fakePort = await listen(fake);
    try {
      await configure({ blobPort: plainPort, tablePort: fakePort });
      const [blob] = await vscode.commands.executeCommand<Outcome[]>('azurite.start_blob');
      const [table] = await vscode.commands.executeCommand<Outcome[]>('azurite.start_table');
      assert.equal(blob!.ok, false);
      assert.match((blob as { message: string }).message, new RegExp(`port ${plainPort} on 127\\.0\\.0\\.1 is already in use by another program\\. Use port \\d+ \\(free now\\)`));
      assert.equal(table!.ok, false);
      assert.match((table as { message: string }).message, /already in use by another Azurite \(Azurite-Blob\/3\.37\.0\)/);
      // One failing service never stops the others.
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_queue'), [{ ok: true }]);
      assert.equal(a.statusItems().blob.backgroundColor, 'statusBarItem.errorBackground');
    } finally {
      plain.close();
      fake.close();
    }
  });

  it('gives integrated terminals the connection string while a service runs', async () => {
    const a = await api();
    assert.deepEqual(a.terminalVariables(), { AZURE_STORAGE_CONNECTION_STRING: undefined, AzureWebJobsStorage: undefined });
    assert.equal(a.terminalVariablesPersist(), false, 'not restored in the next window, before anything runs there');
    await vscode.commands.executeCommand('azurite.start_blob');
    const cs = a.emulator.connectionString();
    assert.deepEqual(a.terminalVariables(), { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: cs });

    // A real terminal process sees it.
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'term-')), 'env.txt');
    const terminal = vscode.window.createTerminal({
      name: 'env probe',
      shellPath: process.execPath,
      shellArgs: ['-e', `require('fs').writeFileSync(${JSON.stringify(out)}, process.env.AZURE_STORAGE_CONNECTION_STRING || 'unset')`],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    });
    try {
      const seen = await waitFor('the terminal process to write its environment', () => fs.existsSync(out) && fs.readFileSync(out, 'utf8'), 30_000);
      assert.equal(seen, cs);
    } finally {
      terminal.dispose();
    }

    await configure({ terminalEnvironment: false });
    await waitFor('the variables to be cleared with azurite.terminalEnvironment off', () => a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === undefined);
    assert.deepEqual(a.terminalVariables(), { AZURE_STORAGE_CONNECTION_STRING: undefined, AzureWebJobsStorage: undefined });
    await vscode.workspace.getConfiguration('azurite').update('terminalEnvironment', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('azurite.close');
    assert.deepEqual(a.terminalVariables(), { AZURE_STORAGE_CONNECTION_STRING: undefined, AzureWebJobsStorage: undefined });
  });

  it('leaves a variable that terminal.integrated.env sets to the user\'s value', async () => {
    const a = await api();
    const platform = process.platform === 'win32' ? 'windows' : process.platform === 'darwin' ? 'osx' : 'linux';
    const theirs = 'DefaultEndpointsProtocol=https;AccountName=mine;AccountKey=a2V5;EndpointSuffix=core.windows.net';
    const terminalEnv = vscode.workspace.getConfiguration('terminal.integrated.env');
    await terminalEnv.update(platform, { AZURE_STORAGE_CONNECTION_STRING: theirs }, vscode.ConfigurationTarget.Workspace);
    try {
      await vscode.commands.executeCommand('azurite.start_blob');
      const cs = a.emulator.connectionString();
      await waitFor('the variables', () => (a.terminalVariables().AzureWebJobsStorage === cs ? true : undefined));
      assert.deepEqual(a.terminalVariables(), { AZURE_STORAGE_CONNECTION_STRING: undefined, AzureWebJobsStorage: cs });
      assert.match(a.terminalDescription() ?? '', new RegExp(`AZURE_STORAGE_CONNECTION_STRING not set in terminals: terminal\\.integrated\\.env\\.${platform} sets its own`));
      // null removes a variable from terminals: the user's choice too.
      await terminalEnv.update(platform, { AzureWebJobsStorage: null }, vscode.ConfigurationTarget.Workspace);
      await waitFor('AzureWebJobsStorage left to the setting, AZURE_STORAGE_CONNECTION_STRING ours again', () =>
        (a.terminalVariables().AzureWebJobsStorage === undefined && a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === cs ? true : undefined));
      // An identity-based connection it sets is the user's connection too.
      await terminalEnv.update(platform, { AzureWebJobsStorage__accountName: 'prodaccount' }, vscode.ConfigurationTarget.Workspace);
      await waitFor('AzureWebJobsStorage left to the identity-based connection', () =>
        (a.terminalVariables().AzureWebJobsStorage === undefined && a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === cs ? true : undefined));
      assert.match(a.terminalDescription() ?? '', new RegExp(`AzureWebJobsStorage not set in terminals: terminal\\.integrated\\.env\\.${platform} sets its own \\(AzureWebJobsStorage__accountName: an identity-based connection\\)`));
      // Taken out of the setting: ours again.
      await terminalEnv.update(platform, undefined, vscode.ConfigurationTarget.Workspace);
      await waitFor('the variable back', () => (a.terminalVariables().AzureWebJobsStorage === cs ? true : undefined));
    } finally {
      await terminalEnv.update(platform, undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('leaves a variable that a task in tasks.json sets to the task, which runs with its own value', async () => {
    const a = await api();
    const theirs = 'DefaultEndpointsProtocol=https;AccountName=mine;AccountKey=a2V5;EndpointSuffix=core.windows.net';
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'task-')), 'env.txt');
    const tasksConfig = vscode.workspace.getConfiguration('tasks');
    await tasksConfig.update('version', '2.0.0', vscode.ConfigurationTarget.Workspace);
    await tasksConfig.update('tasks', [{
      label: 'copy to the cloud',
      type: 'process',
      command: process.execPath,
      args: ['-e', `require('fs').writeFileSync(${JSON.stringify(out)}, [process.env.AZURE_STORAGE_CONNECTION_STRING, process.env.AzureWebJobsStorage].join('|'))`],
      options: { env: { ELECTRON_RUN_AS_NODE: '1', AZURE_STORAGE_CONNECTION_STRING: theirs } },
    }], vscode.ConfigurationTarget.Workspace);
    try {
      await vscode.commands.executeCommand('azurite.start_blob');
      const cs = a.emulator.connectionString();
      await waitFor('the variables', () => (a.terminalVariables().AzureWebJobsStorage === cs ? true : undefined));
      assert.deepEqual(a.terminalVariables(), { AZURE_STORAGE_CONNECTION_STRING: undefined, AzureWebJobsStorage: cs });
      assert.match(a.terminalDescription() ?? '', /AZURE_STORAGE_CONNECTION_STRING not set in terminals: the task "copy to the cloud" \(tasks\.json\) sets its own/);

      // The task's process sees its own value, and ours for the variable it does not set.
      const task = await waitFor('the task to be listed', async () => (await vscode.tasks.fetchTasks()).find((t) => t.name === 'copy to the cloud'));
      assert.equal(await runTask(task), 0);
      assert.equal(fs.readFileSync(out, 'utf8'), `${theirs}|${cs}`);

      // Set for every task of the file, in its root options for this platform: the same.
      await tasksConfig.update('tasks', [{ label: 'plain', type: 'shell', command: 'true' }], vscode.ConfigurationTarget.Workspace);
      await waitFor('ours again once no task sets it', () => (a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === cs ? true : undefined));
      const platform = process.platform === 'win32' ? 'windows' : process.platform === 'darwin' ? 'osx' : 'linux';
      await tasksConfig.update(platform, { options: { env: { AzureWebJobsStorage__accountName: 'prodaccount' } } }, vscode.ConfigurationTarget.Workspace);
      await waitFor('AzureWebJobsStorage left to the identity-based connection of every task', () =>
        (a.terminalVariables().AzureWebJobsStorage === undefined && a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === cs ? true : undefined));
      assert.match(a.terminalDescription() ?? '', /AzureWebJobsStorage not set in terminals: every task of tasks\.json sets its own \(AzureWebJobsStorage__accountName: an identity-based connection\)/);
    } finally {
      for (const key of ['tasks', 'version', 'options', 'linux', 'osx', 'windows']) await tasksConfig.update(key, undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('leaves a variable that a terminal profile or a JavaScript Debug Terminal launch sets to it: its terminal runs with its own value', async function () {
    if (process.platform === 'win32') this.skip(); // the profile runs /bin/sh
    const a = await api();
    const theirs = 'DefaultEndpointsProtocol=https;AccountName=mine;AccountKey=a2V5;EndpointSuffix=core.windows.net';
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'profile-')), 'env.txt');
    const platform = process.platform === 'darwin' ? 'osx' : 'linux';
    const profiles = vscode.workspace.getConfiguration('terminal.integrated.profiles');
    const launch = vscode.workspace.getConfiguration('launch');
    await profiles.update(platform, {
      cloud: { path: '/bin/sh', args: ['-c', `printf '%s|%s' "$AZURE_STORAGE_CONNECTION_STRING" "$AzureWebJobsStorage" > ${JSON.stringify(out)}`], env: { AZURE_STORAGE_CONNECTION_STRING: theirs } },
    }, vscode.ConfigurationTarget.Workspace);
    try {
      await vscode.commands.executeCommand('azurite.start_blob');
      const cs = a.emulator.connectionString();
      await waitFor('the variables', () => (a.terminalVariables().AzureWebJobsStorage === cs ? true : undefined));
      assert.deepEqual(a.terminalVariables(), { AZURE_STORAGE_CONNECTION_STRING: undefined, AzureWebJobsStorage: cs });
      assert.match(a.terminalDescription() ?? '', new RegExp(`AZURE_STORAGE_CONNECTION_STRING not set in terminals: the terminal profile "cloud" \\(terminal\\.integrated\\.profiles\\.${platform}\\) sets its own`));
      // A terminal of that profile sees its own value, and ours for the variable it does not set.
      // The workbench's profile list takes the setting a moment after the extension host does.
      await waitFor('a terminal of the profile to open', async () => {
        try {
          await vscode.commands.executeCommand('workbench.action.terminal.newWithProfile', { profileName: 'cloud' });
          return true;
        } catch (err) {
          if (!/Could not find terminal profile/.test(String(err))) throw err;
          return undefined;
        }
      });
      const written = await waitFor('the profile\'s terminal to write its environment', () => (fs.existsSync(out) && fs.readFileSync(out, 'utf8').includes('|') ? fs.readFileSync(out, 'utf8') : undefined), 30_000);
      assert.equal(written, `${theirs}|${cs}`);

      // A node-terminal launch runs its command in a terminal js-debug makes with its env: the same.
      await profiles.update(platform, undefined, vscode.ConfigurationTarget.Workspace);
      await waitFor('ours again once no profile sets it', () => (a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === cs ? true : undefined));
      await launch.update('configurations', [{ type: 'node-terminal', request: 'launch', name: 'npm start', command: 'npm start', env: { AzureWebJobsStorage: theirs } }], vscode.ConfigurationTarget.Workspace);
      await waitFor('AzureWebJobsStorage left to the launch', () =>
        (a.terminalVariables().AzureWebJobsStorage === undefined && a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === cs ? true : undefined));
      assert.match(a.terminalDescription() ?? '', /AzureWebJobsStorage not set in terminals: the launch configuration "npm start" \(launch\.json\) sets its own/);
    } finally {
      await profiles.update(platform, undefined, vscode.ConfigurationTarget.Workspace);
      await launch.update('configurations', undefined, vscode.ConfigurationTarget.Workspace);
      for (const t of vscode.window.terminals) t.dispose();
    }
  });

  it('copies the endpoint URLs alone', async () => {
    const a = await api();
    await vscode.commands.executeCommand('azurite.start_blob');
    const urls = await vscode.commands.executeCommand<string>('azurite.copyEndpoints');
    assert.equal(urls, `http://127.0.0.1:${a.emulator.endpoint('blob')!.port}/devstoreaccount1`);
  });
});
