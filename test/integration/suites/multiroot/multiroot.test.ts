/**
 * Run in a multi-root workspace of two folders, first and second
 * (runIntegration --suite multiroot --multi-root), disk mode, no azurite.location.
 * The workspace's first folder never changes here: VS Code restarts the extension host when it does.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Outcome } from '../../../../src/emulator/serviceManager';
import { STORAGE_SEEN } from '../../../../src/ui/functionsStorage';
import { api, configure, freePorts, runTask, waitFor } from '../../helpers';

/** A Functions project in `folder` named `name` whose local.settings.json uses the development storage; returns its path. */
function functionsApp(folder: vscode.WorkspaceFolder, name: string): string {
  const app = path.join(folder.uri.fsPath, name);
  fs.mkdirSync(app, { recursive: true });
  fs.writeFileSync(path.join(app, 'local.settings.json'), JSON.stringify({ IsEncrypted: false, Values: { AzureWebJobsStorage: 'UseDevelopmentStorage=true' } }));
  return app;
}

/**
 * A Functions launch's start: nothing running, no data folder chosen, a Functions app `name` in the
 * first workspace folder (see {@link functionsApp}) and the path of that folder's .vscode/tasks.json
 * (its folder made). `cleanUp` stops the services, removes the app and the tasks file, and rescans.
 */
async function functionsLaunchFixture(name: string): Promise<{ a: Awaited<ReturnType<typeof api>>; folder: vscode.WorkspaceFolder; app: string; tasksFile: string; cleanUp: () => Promise<void> }> {
  const a = await api();
  const folder = vscode.workspace.workspaceFolders![0]!;
  await vscode.commands.executeCommand('azurite.close');
  await a.chooseDataFolder(undefined);
  const app = functionsApp(folder, name);
  const tasksFile = path.join(folder.uri.fsPath, '.vscode', 'tasks.json');
  fs.mkdirSync(path.dirname(tasksFile), { recursive: true });
  const cleanUp = async (): Promise<void> => {
    await vscode.commands.executeCommand('azurite.close');
    fs.rmSync(app, { recursive: true, force: true });
    fs.rmSync(tasksFile, { force: true });
    await a.rescanLocalSettings();
  };
  return { a, folder, app, tasksFile, cleanUp };
}

/**
 * Starts a node launch (`config` with its `name` and `program`) in `folder`, closing the data-folder
 * question whenever it is open, until the program has written `out` and the session has ended.
 * @returns what startDebugging answered (a dismissed question must never block debugging)
 */
async function launchDismissingQuestions(a: Awaited<ReturnType<typeof api>>, folder: vscode.WorkspaceFolder, config: vscode.DebugConfiguration, out: string): Promise<boolean | undefined> {
  const terminated = new Promise<void>((resolve) => {
    const sub = vscode.debug.onDidTerminateDebugSession((s) => { if (s.name === config.name) { sub.dispose(); resolve(); } });
  });
  let started: boolean | undefined;
  void Promise.resolve(vscode.debug.startDebugging(folder, { runtimeExecutable: process.execPath, console: 'internalConsole', ...config }))
    .then((ok) => { started = ok; });
  // js-debug's child session for the launched process resolves its configuration too: the program
  // waits for it.
  await waitFor('the launched program to run, each question dismissed', async () => {
    if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    return fs.existsSync(out) || undefined;
  }, 30_000);
  await terminated;
  return started;
}

/** Runs a small Node program under the debugger in `folder`; resolves to the environment it saw. */
async function envIn(folder: vscode.WorkspaceFolder, name: string): Promise<Record<string, string>> {
  const dir = fs.mkdtempSync(path.join(folder.uri.fsPath, '.debug-'));
  const program = path.join(dir, 'dump-env.js');
  const out = path.join(dir, 'env.json');
  fs.writeFileSync(program, `require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.env));\n`);
  try {
    const terminated = new Promise<void>((resolve) => {
      const sub = vscode.debug.onDidTerminateDebugSession((s) => { if (s.name === name) { sub.dispose(); resolve(); } });
    });
    assert.equal(await vscode.debug.startDebugging(folder, { type: 'node', request: 'launch', name, program, runtimeExecutable: process.execPath, console: 'internalConsole' }), true);
    await terminated;
    return JSON.parse(await waitFor('the program to write its environment', () => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : ''), 30_000)) as Record<string, string>;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Opens an integrated terminal whose cwd is `folder` (a Node program, not a shell) and resolves to
 * the value of `variable` in its environment ('unset' when it has none).
 */
async function terminalSees(folder: vscode.WorkspaceFolder, variable: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'term-'));
  const out = path.join(dir, 'value.txt');
  const terminal = vscode.window.createTerminal({
    name: `env probe in ${folder.name}`,
    cwd: folder.uri,
    shellPath: process.execPath,
    shellArgs: ['-e', `require('fs').writeFileSync(${JSON.stringify(out)}, process.env[${JSON.stringify(variable)}] ?? 'unset')`],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  });
  try {
    return await waitFor(`the terminal in ${folder.name} to write ${variable}`, () => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : undefined), 30_000);
  } finally {
    terminal.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Changes the workspace's folders as `vscode.workspace.updateWorkspaceFolders(start, deleteCount,
 * ...uris)`; resolves once VS Code has confirmed it (onDidChangeWorkspaceFolders). The extension
 * host lists new folders at once, before the workbench knows them: a terminal opened in one
 * meanwhile is not counted in it.
 */
async function updateFolders(start: number, deleteCount: number, ...uris: vscode.Uri[]): Promise<void> {
  const changed = new Promise<void>((resolve) => {
    const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => { sub.dispose(); resolve(); });
  });
  assert.ok(vscode.workspace.updateWorkspaceFolders(start, deleteCount, ...uris.map((uri) => ({ uri }))));
  await changed;
}

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

  it('a restart for a settings change asks the question first when the answer is missing, stale or needed anew', async () => {
    const a = await api();
    const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('azurite');
    const [first, second] = vscode.workspace.workspaceFolders!.map((f) => f.uri.fsPath) as [string, string];
    const blobOn = (location: string) => (): boolean =>
      a.emulator.status('blob').status === 'running' && !a.emulator.isRunningInMemory('blob') && a.emulator.options.location === location;
    /** Accepts the question's first entry (the folder "first") until `done`. */
    const answerFirst = (what: string, done: () => boolean): Promise<true> => waitFor(what, async () => {
      if (!done()) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      return done() || undefined;
    }, 20_000);
    await configure({ restartOnConfigChange: true });

    // In memory nothing is asked; turning disk mode on restarts Blob, and the restart asks first.
    await a.chooseDataFolder(undefined);
    await configure({ inMemoryPersistence: true });
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    assert.equal(a.dataFolder(), undefined);
    await config().update('inMemoryPersistence', false, vscode.ConfigurationTarget.Workspace);
    await answerFirst('the question answered and Blob restarted on disk', () => a.dataFolder() === first && blobOn(path.join(first, '.azurite'))());
    await a.settled();

    // The chosen folder leaves the workspace while Blob runs there: the restart asks again.
    await vscode.commands.executeCommand('azurite.close_blob');
    await a.chooseDataFolder(second);
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    assert.ok(blobOn(path.join(second, '.azurite'))());
    const third = path.join(path.dirname(first), 'third');
    fs.mkdirSync(third, { recursive: true });
    // second replaced by third: still two folders, so still a multi-root workspace.
    assert.ok(vscode.workspace.updateWorkspaceFolders(1, 1, { uri: vscode.Uri.file(third) }));
    await answerFirst('the question answered again and Blob restarted in first', () => a.dataFolder() === first && blobOn(path.join(first, '.azurite'))());
    await a.settled();

    // A relative azurite.location depends on the folder too: with no answer stored, asked before the restart.
    await a.chooseDataFolder(undefined);
    await config().update('location', 'relative-data', vscode.ConfigurationTarget.Workspace);
    await answerFirst('the question answered and Blob restarted in first/relative-data', () => a.dataFolder() === first && blobOn(path.join(first, 'relative-data'))());
    await a.settled();
    await vscode.commands.executeCommand('azurite.close');
  });

  it('asks one question for starts asked for together, and takes a relative azurite.seed from the chosen folder', async () => {
    const a = await api();
    const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('azurite');
    const [first, other] = vscode.workspace.workspaceFolders!.map((f) => f.uri.fsPath) as [string, string];
    await config().update('location', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('azurite.close');

    // Two starts at once (a click while autostart asks): one question, and both start.
    await a.chooseDataFolder(undefined);
    let blob: Outcome[] | undefined;
    let queue: Outcome[] | undefined;
    void Promise.resolve(vscode.commands.executeCommand<Outcome[]>('azurite.start_blob')).then((o) => { blob = o; });
    void Promise.resolve(vscode.commands.executeCommand<Outcome[]>('azurite.start_queue')).then((o) => { queue = o; });
    await waitFor('both starts, after one answer', async () => {
      if (a.dataFolder() === undefined) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      return blob !== undefined && queue !== undefined ? true : undefined;
    }, 20_000);
    assert.deepEqual([blob, queue], [[{ ok: true }], [{ ok: true }]]);
    assert.equal(a.dataFolder(), first);
    await vscode.commands.executeCommand('azurite.close');

    // A relative seed is taken from the folder chosen for data, as azurite.location is.
    fs.mkdirSync(path.join(other, 'seed-data', 'blob', 'seeded'), { recursive: true });
    fs.writeFileSync(path.join(other, 'seed-data', 'blob', 'seeded', 'hello.txt'), 'from the chosen folder');
    await a.chooseDataFolder(other);
    await config().update('seed', 'seed-data', vscode.ConfigurationTarget.Workspace);
    try {
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      assert.equal(a.emulator.options.location, path.join(other, '.azurite'));
      const tree = await a.storageTree(3);
      assert.ok(JSON.stringify(tree).includes('hello.txt'), JSON.stringify(tree));
    } finally {
      await config().update('seed', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('azurite.close');
    }
  });

  it('a start task gives way to another Azurite that began serving the port while the folder question was open, and ends with 0', async () => {
    const a = await api();
    const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('azurite');
    await vscode.commands.executeCommand('azurite.close');
    const [port] = await freePorts(1);
    await config().update('tablePort', port, vscode.ConfigurationTarget.Workspace);
    await a.chooseDataFolder(undefined);
    const other = http.createServer((_req, res) => { res.writeHead(403, { Server: 'Azurite-Table/3.37.0' }); res.end(); });
    try {
      const startTable = (await vscode.tasks.fetchTasks({ type: 'azurite' })).find((t) => t.name === 'start table');
      assert.ok(startTable);
      const ended = runTask(startTable);
      await waitFor('the data folder question', () => a.dataFolderQuestions().open || undefined, 20_000);
      // Another window, or the Azurite CLI, begins serving the port meanwhile.
      await new Promise<void>((resolve) => other.listen(port!, '127.0.0.1', resolve));
      await waitFor('the question answered', async () => {
        if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        return !a.dataFolderQuestions().open;
      }, 20_000);
      assert.equal(await ended, 0, 'served there: a preLaunchTask goes on');
      assert.deepEqual(a.emulator.status('table'), { status: 'closed' }, 'not started on the taken port');
      assert.ok(a.emulator.servedElsewhereKinds().includes('table'), 'terminals and debug sessions get that Azurite');
    } finally {
      other.close();
      await config().update('tablePort', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('asks the folder question once for a debug session of a Functions project, even when it is dismissed', async () => {
    const { a, folder, app, tasksFile, cleanUp } = await functionsLaunchFixture('fnapp');
    const program = path.join(app, 'done.js');
    const out = path.join(app, 'done.txt');
    fs.writeFileSync(program, `require('fs').writeFileSync(${JSON.stringify(out)}, 'ran');\n`);
    const name = 'azurite multi-root functions probe';
    // The Functions launch's preLaunchTask (here a stand-in that only echoes) is a third hook.
    fs.writeFileSync(tasksFile, JSON.stringify({ version: '2.0.0', tasks: [{ label: 'func: host start', type: 'shell', command: 'echo', args: ['host started'] }] }));
    const subs: vscode.Disposable[] = [];
    try {
      await waitFor('VS Code to read the task', async () => (await vscode.tasks.fetchTasks()).some((t) => t.name === 'func: host start') || undefined, 20_000);
      await a.rescanLocalSettings();
      const asked = a.dataFolderQuestions().shown;
      let launched: vscode.DebugConfiguration | undefined;
      const live = new Set<string>();
      subs.push(vscode.debug.onDidStartDebugSession((s) => { live.add(s.id); if (s.name === name) launched = s.configuration; }));
      subs.push(vscode.debug.onDidTerminateDebugSession((s) => live.delete(s.id)));
      // The debug hooks (the node type's and '*') and the preLaunchTask's see the launch; each
      // question is dismissed while it is open.
      const started = await launchDismissingQuestions(a, folder, { type: 'node', request: 'launch', name, program, preLaunchTask: 'func: host start' }, out);
      assert.equal(started, true, 'a dismissed question never blocks debugging');
      assert.equal(a.dataFolderQuestions().shown - asked, 1, 'one question for one launch');
      assert.equal(a.emulator.status('blob').status, 'closed', 'nothing started without a data folder');
      assert.ok(launched !== undefined && !(STORAGE_SEEN in launched), `the mark never reaches the debugger: ${JSON.stringify(launched)}`);

      // Once debugging has ended (js-debug's child session may end after its parent), the next
      // launch asks again; answered, the services start first.
      await waitFor('every debug session to end', () => live.size === 0 || undefined, 20_000);
      fs.rmSync(out);
      const again = new Promise<void>((resolve) => subs.push(vscode.debug.onDidTerminateDebugSession((s) => { if (s.name === name && fs.existsSync(out)) resolve(); })));
      void vscode.debug.startDebugging(folder, { type: 'node', request: 'launch', name, program, runtimeExecutable: process.execPath, console: 'internalConsole' });
      await waitFor('the question again, answered, and the program run', async () => {
        if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        return fs.existsSync(out) || undefined;
      }, 30_000);
      await again;
      assert.equal(a.dataFolderQuestions().shown - asked, 2, 'asked again for the next launch');
      assert.equal(a.emulator.status('blob').status, 'running', 'the answer started the services');
      // A child session still running would be the next test's: its end, during that test's launch,
      // would end that launch's dismissal.
      await waitFor('every debug session to end', () => live.size === 0 || undefined, 20_000);
    } finally {
      subs.forEach((d) => d.dispose());
      await cleanUp();
    }
  });

  it('a Functions launch leaves to another Azurite a port it began serving while the folder question was open, with no error', async () => {
    const { a, folder, app, cleanUp } = await functionsLaunchFixture('fnlate');
    const program = path.join(app, 'done.js');
    const out = path.join(app, 'done.txt');
    fs.writeFileSync(program, `require('fs').writeFileSync(${JSON.stringify(out)}, 'ran');\n`);
    // Table's port: free when the launch probes it, taken by another Azurite's Table while the question is open.
    const free = http.createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as net.AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const other = http.createServer((_req, res) => { res.setHeader('Server', 'Azurite-Table/3.37.0'); res.end(); });
    try {
      await configure({ tablePort: port });
      await a.rescanLocalSettings();
      const before = a.notifications().length;
      const name = 'azurite multi-root late other azurite';
      const terminated = new Promise<void>((resolve) => {
        const sub = vscode.debug.onDidTerminateDebugSession((s) => { if (s.name === name) { sub.dispose(); resolve(); } });
      });
      void vscode.debug.startDebugging(folder, { type: 'node', request: 'launch', name, program, runtimeExecutable: process.execPath, console: 'internalConsole' });
      await waitFor('the folder question', () => a.dataFolderQuestions().open || undefined, 20_000);
      await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
      await waitFor('the question answered and the program run', async () => {
        if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        return fs.existsSync(out) || undefined;
      }, 30_000);
      await terminated;
      assert.equal(a.emulator.status('blob').status, 'running', 'the answer started Blob');
      assert.equal(a.emulator.status('table').status, 'closed', 'Table is left to the other Azurite');
      assert.deepEqual(a.notifications().slice(before), [], 'no error for a start the user did not ask for');
    } finally {
      await new Promise((resolve) => other.close(resolve));
      await vscode.workspace.getConfiguration('azurite').update('tablePort', undefined, vscode.ConfigurationTarget.Workspace);
      await cleanUp();
    }
  });

  it('asks the folder question once for a .NET Functions launch, whose func: host start ${command:azureFunctions.pickProcess} starts before any session', async () => {
    const { a, folder, app, tasksFile, cleanUp } = await functionsLaunchFixture('fnapp-dotnet');
    const program = path.join(app, 'done.js');
    const out = path.join(app, 'done.txt');
    fs.writeFileSync(program, `require('fs').writeFileSync(${JSON.stringify(out)}, 'ran');\n`);
    const name = 'azurite multi-root pickProcess probe';
    fs.writeFileSync(tasksFile, JSON.stringify({ version: '2.0.0', tasks: [{ label: 'func: host start', type: 'shell', command: 'echo', args: ['host started'] }] }));
    const live = new Set<string>();
    const subs: vscode.Disposable[] = [
      vscode.debug.onDidStartDebugSession((s) => live.add(s.id)),
      vscode.debug.onDidTerminateDebugSession((s) => live.delete(s.id)),
    ];
    try {
      const host = await waitFor('VS Code to read the task', async () => (await vscode.tasks.fetchTasks()).find((t) => t.name === 'func: host start'), 20_000);
      // A stand-in for the Azure Functions extension's command, which is not installed here: as the
      // real one does, it runs `func: host start` (no preLaunchTask names it) and answers once the
      // host runs, here once the task has ended.
      let picks = 0;
      let sessionsAtPick: number | undefined;
      subs.push(vscode.commands.registerCommand('azureFunctions.pickProcess', async () => {
        picks++;
        sessionsAtPick = live.size;
        const ended = new Promise<void>((resolve) => subs.push(vscode.tasks.onDidEndTaskProcess((e) => { if (e.execution.task.name === host.name) resolve(); })));
        await vscode.tasks.executeTask(host);
        await ended;
        return String(process.pid);
      }));
      await a.rescanLocalSettings();
      const asked = a.dataFolderQuestions().shown;
      // The .NET template's shape: the variable in processId, no preLaunchTask (a node launch stands
      // in for coreclr, which is not installed here; both get the same hooks).
      const started = await launchDismissingQuestions(a, folder, { type: 'node', request: 'launch', name, program, processId: '${command:azureFunctions.pickProcess}' }, out);
      assert.equal(started, true, 'a dismissed question never blocks debugging');
      assert.equal(picks, 1, 'the variable ran the task');
      assert.equal(sessionsAtPick, 0, 'VS Code substitutes the variable before any session');
      assert.equal(a.dataFolderQuestions().shown - asked, 1, 'one question for the launch, none for the task its variable started');
      assert.equal(a.emulator.status('blob').status, 'closed', 'nothing started without a data folder');

      // Once debugging has ended, `func: host start` run on its own asks: the launch's task was the
      // one its dismissal covered.
      await waitFor('every debug session to end', () => live.size === 0 || undefined, 20_000);
      await vscode.tasks.executeTask(host);
      await waitFor('the folder question for the task run on its own', () => a.dataFolderQuestions().shown - asked >= 2 || undefined, 20_000);
      await waitFor('that question dismissed', async () => {
        if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        return !a.dataFolderQuestions().open || undefined;
      }, 20_000);
      assert.equal(a.dataFolderQuestions().shown - asked, 2, 'the launch\'s and the lone task\'s');
    } finally {
      subs.forEach((d) => d.dispose());
      await cleanUp();
    }
  });

  it('after a Functions launch whose question was dismissed and that failed before its session, func: host start on its own asks again', async () => {
    const { a, folder, app, tasksFile, cleanUp } = await functionsLaunchFixture('fnapp-failing');
    const program = path.join(app, 'never.js');
    fs.writeFileSync(program, '');
    const built = path.join(app, 'built');
    // A failing preLaunchTask aborts the launch without VS Code's modal question.
    await vscode.workspace.getConfiguration('debug').update('onTaskErrors', 'abort', vscode.ConfigurationTarget.Workspace);
    const sessions: string[] = [];
    const subs: vscode.Disposable[] = [vscode.debug.onDidStartDebugSession((s) => sessions.push(s.name))];
    /** Writes tasks.json and waits for VS Code to read it: `func: host start` with the given shell command and dependencies. */
    const writeTasks = async (command: string, args: string[], dependsOn?: string): Promise<vscode.Task> => {
      const tasks: object[] = [{ label: 'func: host start', type: 'shell', command, args, ...(dependsOn !== undefined ? { dependsOn } : {}) }];
      // The build succeeds once `built` exists.
      if (dependsOn !== undefined) tasks.push({ label: dependsOn, type: 'shell', command: 'test', args: ['-f', built] });
      fs.writeFileSync(tasksFile, JSON.stringify({ version: '2.0.0', tasks }));
      return waitFor('VS Code to read the tasks', async () => (await vscode.tasks.fetchTasks()).find((t) =>
        t.name === 'func: host start' && (t.execution as vscode.ShellExecution | undefined)?.command === command), 20_000);
    };
    /** Launches with `func: host start` as the preLaunchTask, dismisses the question, and waits for the launch to fail. */
    const failingLaunch = async (): Promise<void> => {
      let started: boolean | undefined;
      void Promise.resolve(vscode.debug.startDebugging(folder, {
        type: 'node', request: 'launch', name: 'azurite functions launch that fails', program, runtimeExecutable: process.execPath, preLaunchTask: 'func: host start',
      })).then((ok) => { started = ok; });
      await waitFor('the launch to end, its question dismissed', async () => {
        if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        return started !== undefined || undefined;
      }, 30_000);
      assert.equal(started, false, 'a preLaunchTask failed: no debug session');
    };
    try {
      await a.rescanLocalSettings();
      const asked = a.dataFolderQuestions().shown;
      // 1. `func: host start` itself fails.
      const failing = await writeTasks('exit', ['3']);
      await failingLaunch();
      assert.equal(a.dataFolderQuestions().shown - asked, 1, 'one question for the launch, none for its preLaunchTask');
      await vscode.tasks.executeTask(failing);
      await waitFor('the folder question for the task run on its own', () => a.dataFolderQuestions().shown - asked === 2 || undefined, 20_000);
      await waitFor('that question dismissed', async () => {
        if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        return !a.dataFolderQuestions().open || undefined;
      }, 20_000);

      // 2. A build that `func: host start` depends on fails, so it never starts.
      await writeTasks('echo', ['host started'], 'build');
      await failingLaunch();
      assert.equal(a.dataFolderQuestions().shown - asked, 3, 'one question for the second launch');
      fs.writeFileSync(built, '');
      const host = (await vscode.tasks.fetchTasks()).find((t) => t.name === 'func: host start')!;
      await vscode.tasks.executeTask(host);
      await waitFor('the folder question for the task run on its own', () => a.dataFolderQuestions().shown - asked === 4 || undefined, 20_000);
      await waitFor('the services started for the task once answered', async () => {
        if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        return a.emulator.status('blob').status === 'running' || undefined;
      }, 30_000);
      assert.deepEqual(sessions, []);
    } finally {
      subs.forEach((d) => d.dispose());
      await vscode.workspace.getConfiguration('debug').update('onTaskErrors', undefined, vscode.ConfigurationTarget.Workspace);
      await cleanUp();
    }
  });

  it('a start of a running service asks nothing, even when the folder answer is missing (the Functions extension starts Blob before each F5)', async () => {
    const a = await api();
    await a.chooseDataFolder(vscode.workspace.workspaceFolders![0]!.uri.fsPath);
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    try {
      await a.chooseDataFolder(undefined);
      const asked = a.dataFolderQuestions().shown;
      let outcome: Outcome[] | undefined;
      void Promise.resolve(vscode.commands.executeCommand<Outcome[]>('azurite.start_blob')).then((o) => { outcome = o; });
      await waitFor('the start to answer, or the question', () => outcome !== undefined || a.dataFolderQuestions().open || undefined, 20_000);
      if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      assert.equal(a.dataFolderQuestions().shown, asked, 'no folder question');
      await waitFor('the outcome', () => outcome);
      assert.deepEqual(outcome, [{ ok: true }]);
      // Nor does an azurite start task (a preLaunchTask before each F5).
      const task = (await vscode.tasks.fetchTasks({ type: 'azurite' })).find((t) => t.name === 'start blob')!;
      const ended = new Promise<number | undefined>((resolve) => {
        const sub = vscode.tasks.onDidEndTaskProcess((e) => { if (e.execution.task.name === task.name) { sub.dispose(); resolve(e.exitCode); } });
      });
      await vscode.tasks.executeTask(task);
      let code: number | undefined | null = null;
      void ended.then((c) => { code = c; });
      await waitFor('the task to end, or the question', () => code !== null || a.dataFolderQuestions().open || undefined, 20_000);
      if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      assert.equal(a.dataFolderQuestions().shown, asked, 'no folder question for the task');
      assert.equal(await ended, 0);
    } finally {
      await vscode.commands.executeCommand('azurite.close');
    }
  });

  it('a launch in the second folder can name a provided azurite task as its preLaunchTask; one in the workspace file, an azurite task of the workspace file', async () => {
    const a = await api();
    await a.chooseDataFolder(vscode.workspace.workspaceFolders![0]!.uri.fsPath);
    const folder = vscode.workspace.workspaceFolders![1]!;
    const dir = fs.mkdtempSync(path.join(folder.uri.fsPath, '.debug-'));
    const program = path.join(dir, 'blob-endpoint.js');
    const out = path.join(dir, 'out.txt');
    fs.writeFileSync(program, `require('fs').writeFileSync(${JSON.stringify(out)}, process.env.AZURE_STORAGE_CONNECTION_STRING ?? 'unset');\n`);
    // VS Code looks a workspace launch's preLaunchTask up among the workspace file's own tasks only.
    const tasks = vscode.workspace.getConfiguration('tasks');
    await tasks.update('version', '2.0.0', vscode.ConfigurationTarget.Workspace);
    await tasks.update('tasks', [{ label: 'storage for the workspace launch', type: 'azurite', services: ['blob'] }], vscode.ConfigurationTarget.Workspace);
    try {
      const launches = [
        [folder, 'preLaunchTask azurite in the second folder', 'azurite: start blob'],
        [undefined, 'preLaunchTask azurite in the workspace', 'storage for the workspace launch'],
      ] as const;
      for (const [where, name, preLaunchTask] of launches) {
        fs.rmSync(out, { force: true });
        const terminated = new Promise<void>((resolve) => {
          const sub = vscode.debug.onDidTerminateDebugSession((s) => { if (s.name === name) { sub.dispose(); resolve(); } });
        });
        // A task VS Code cannot find opens an error dialog (refused in tests: a rejection).
        const started = await Promise.resolve(vscode.debug.startDebugging(where, { type: 'node', request: 'launch', name, program, runtimeExecutable: process.execPath, console: 'internalConsole', preLaunchTask }))
          .catch((err: unknown) => `${name}: ${String(err)}`);
        assert.equal(started, true, name);
        await terminated;
        assert.equal(a.emulator.status('blob').status, 'running', name);
        assert.match(fs.readFileSync(out, 'utf8'), /BlobEndpoint=http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1/, name);
        await vscode.commands.executeCommand('azurite.close');
      }
    } finally {
      await tasks.update('tasks', undefined, vscode.ConfigurationTarget.Workspace);
      await tasks.update('version', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('azurite.close');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a start while attached (azurite.attach) is refused at once, without asking which folder keeps the data', async () => {
    const a = await api();
    await a.chooseDataFolder(undefined);
    const asked = a.dataFolderQuestions().shown;
    await configure({ attach: 'UseDevelopmentStorage=true' });
    await waitFor('the attached item', () => a.statusItems().attach.visible || undefined);
    try {
      let outcome: Outcome[] | undefined;
      void Promise.resolve(vscode.commands.executeCommand<Outcome[]>('azurite.start_blob')).then((o) => { outcome = o; });
      await waitFor('the start to be refused, or the question', () => outcome !== undefined || a.dataFolderQuestions().open || undefined, 20_000);
      if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      assert.equal(a.dataFolderQuestions().shown, asked, 'no folder question');
      assert.equal(outcome?.[0]?.ok === false && outcome[0].reason, 'state');
      assert.equal(outcome?.[0]?.ok === false && outcome[0].setting, 'azurite.attach');
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  /**
   * With the folders `made` (written by the caller) read as local.settings.json files, data kept in
   * the first folder and Blob running, runs `check`; then removes them and stops Blob.
   */
  async function withBlobAndFiles(made: readonly string[], check: (first: vscode.WorkspaceFolder, second: vscode.WorkspaceFolder) => Promise<void>): Promise<void> {
    const a = await api();
    const [first, second] = vscode.workspace.workspaceFolders! as [vscode.WorkspaceFolder, vscode.WorkspaceFolder];
    await a.chooseDataFolder(first.uri.fsPath);
    try {
      await a.rescanLocalSettings();
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      await check(first, second);
    } finally {
      for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
      await vscode.commands.executeCommand('azurite.close');
      await a.rescanLocalSettings();
    }
  }

  it('a debug session weighs only its own folder\'s local.settings.json: one in the other folder that sets its own storage does not keep AzureWebJobsStorage from it', async () => {
    const second = vscode.workspace.workspaceFolders![1]!;
    const legacy = path.join(second.uri.fsPath, 'legacy');
    fs.mkdirSync(legacy, { recursive: true });
    fs.writeFileSync(path.join(legacy, 'local.settings.json'), JSON.stringify({ IsEncrypted: false, Values: { AzureWebJobsStorage: 'DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=cHJvZA==;EndpointSuffix=core.windows.net' } }));
    await withBlobAndFiles([legacy], async (first) => {
      const cs = (await api()).emulator.connectionString();
      assert.equal((await envIn(first, 'azurite env probe first')).AzureWebJobsStorage, cs, 'the first folder has no file of its own');
      assert.equal((await envIn(second, 'azurite env probe second')).AzureWebJobsStorage, undefined, 'the second folder\'s file sets its own');
    });
  });

  it('a folder holds the files of a workspace folder nested in it: a launch in the outer folder weighs the inner project\'s local.settings.json', async () => {
    const first = vscode.workspace.workspaceFolders![0]!;
    const inner = path.join(first.uri.fsPath, 'nested-api');
    fs.mkdirSync(inner, { recursive: true });
    fs.writeFileSync(path.join(inner, 'local.settings.json'), JSON.stringify({ IsEncrypted: false, Values: { AzureWebJobsStorage: 'DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=cHJvZA==;EndpointSuffix=core.windows.net' } }));
    await updateFolders(2, 0, vscode.Uri.file(inner));
    try {
      await withBlobAndFiles([], async () => {
        assert.equal((await envIn(first, 'azurite env probe outer')).AzureWebJobsStorage, undefined, 'the nested project sets its own');
      });
    } finally {
      await updateFolders(2, 1);
      fs.rmSync(inner, { recursive: true, force: true });
      await (await api()).rescanLocalSettings();
    }
  });

  it('a terminal in a folder whose local.settings.json uses the development storage gets AzureWebJobsStorage though another folder\'s sets its own', async () => {
    const a = await api();
    const [cloud, dev] = vscode.workspace.workspaceFolders! as [vscode.WorkspaceFolder, vscode.WorkspaceFolder];
    const devApp = functionsApp(dev, 'term-dev');
    const cloudApp = path.join(cloud.uri.fsPath, 'term-cloud');
    const cloudFile = path.join(cloudApp, 'local.settings.json');
    const writeCloud = (value: string): void => fs.writeFileSync(cloudFile, JSON.stringify({ IsEncrypted: false, Values: { AzureWebJobsStorage: value } }));
    fs.mkdirSync(cloudApp, { recursive: true });
    writeCloud('DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=cHJvZA==;EndpointSuffix=core.windows.net');
    // A folder whose project sets its own storage too.
    const spare = path.join(path.dirname(cloud.uri.fsPath), 'spare');
    fs.mkdirSync(spare, { recursive: true });
    fs.writeFileSync(path.join(spare, 'local.settings.json'), JSON.stringify({ IsEncrypted: false, Values: { AzureWebJobsStorage: 'DefaultEndpointsProtocol=https;AccountName=spare;AccountKey=c3BhcmU=;EndpointSuffix=core.windows.net' } }));
    const none = { AZURE_STORAGE_CONNECTION_STRING: undefined, AzureWebJobsStorage: undefined };
    /** Waits until the global collection and each folder's scoped one (`[folder, values]`) hold these values. */
    const expect = async (what: string, global: Record<string, string | undefined>, ...folders: [vscode.WorkspaceFolder, Record<string, string | undefined>][]): Promise<void> => {
      const now = (): string => JSON.stringify([a.terminalVariables(), ...folders.map(([f]) => a.terminalVariables(f))]);
      const wanted = JSON.stringify([global, ...folders.map(([, v]) => v)]);
      await waitFor(what, () => now() === wanted || undefined, 20_000).catch((err: Error) => {
        throw new Error(`${err.message}: ${now()} instead of ${wanted}`);
      });
    };
    try {
      await withBlobAndFiles([devApp, cloudApp], async () => {
        const cs = a.emulator.connectionString();
        // Workspace-wide, the cloud folder's file keeps AzureWebJobsStorage out; the dev folder's
        // scoped collection adds it for its terminals.
        await expect('AzureWebJobsStorage in the dev folder\'s terminals only', { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: undefined },
          [dev, { AZURE_STORAGE_CONNECTION_STRING: undefined, AzureWebJobsStorage: cs }], [cloud, none]);
        assert.match(a.terminalDescription() ?? '', /AzureWebJobsStorage not set: [^;]*term-cloud\/local\.settings\.json sets its own/);
        assert.equal(a.terminalDescription(dev), `AzureWebJobsStorage set in terminals of ${dev.name} too: only its own local.settings.json files count there (AZURE_STORAGE_CONNECTION_STRING and AzureWebJobsStorage for the running Azurite Blob) (Storage Emulators)`);
        assert.equal(a.terminalDescription(cloud), undefined);

        // Real terminals: VS Code applies the dev folder's scoped collection to one whose cwd is there.
        assert.equal(await terminalSees(dev, 'AzureWebJobsStorage'), cs);
        assert.equal(await terminalSees(cloud, 'AzureWebJobsStorage'), 'unset');
        assert.equal(await terminalSees(dev, 'AZURE_STORAGE_CONNECTION_STRING'), cs, 'the global collection applies there too');

        // The cloud folder's file turns to the development storage: the workspace-wide decision sets
        // it, and the scoped collection has nothing left to add.
        writeCloud('UseDevelopmentStorage=true');
        await expect('AzureWebJobsStorage in every terminal', { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: cs }, [dev, none], [cloud, none]);
        assert.equal(a.terminalDescription(dev), undefined);
        writeCloud('DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=cHJvZA==;EndpointSuffix=core.windows.net');
        await expect('the dev folder\'s addition back', { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: undefined },
          [dev, { AZURE_STORAGE_CONNECTION_STRING: undefined, AzureWebJobsStorage: cs }], [cloud, none]);

        // azurite.terminalEnvironment off clears every collection; on again, they come back.
        await configure({ terminalEnvironment: false });
        await expect('every collection cleared', none, [dev, none], [cloud, none]);
        await vscode.workspace.getConfiguration('azurite').update('terminalEnvironment', undefined, vscode.ConfigurationTarget.Workspace);
        await expect('the dev folder\'s addition back', { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: undefined },
          [dev, { AZURE_STORAGE_CONNECTION_STRING: undefined, AzureWebJobsStorage: cs }], [cloud, none]);

        // The dev folder leaves the workspace: its scoped collection is cleared. Back, it is set again.
        // As the folders change, before spare's files are searched: its terminals get nothing its
        // project may set its own value of (its file is not seen yet, not absent).
        let atChange: Record<string, string | undefined> | undefined;
        const sub = vscode.workspace.onDidChangeWorkspaceFolders((e) => { if (e.added[0] !== undefined) atChange = a.terminalVariables(e.added[0]); });
        try {
          await updateFolders(1, 1, vscode.Uri.file(spare));
        } finally {
          sub.dispose();
        }
        assert.deepEqual(atChange, none, 'spare\'s terminals before its files were read');
        const spareFolder = vscode.workspace.workspaceFolders![1]!;
        await expect('the removed folder\'s collection cleared', { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: undefined }, [dev, none], [spareFolder, none]);
        assert.equal(a.terminalDescription(dev), undefined);

        // Added back at another place (third, while spare takes its old place, second): VS Code's
        // getScoped keeps the collection it made for the folder's first WorkspaceFolder, whose index
        // stays that of its old place. Nothing is set for it then: set there, it would reach the
        // terminals of the folder now at that place, spare, whose project sets its own storage.
        await updateFolders(2, 0, dev.uri);
        const moved = vscode.workspace.workspaceFolders![2]!;
        await expect('nothing set for the folder moved', { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: undefined }, [moved, none], [spareFolder, none]);
        assert.equal(await terminalSees(spareFolder, 'AzureWebJobsStorage'), 'unset');
        await updateFolders(1, 2, dev.uri);
        const back = vscode.workspace.workspaceFolders![1]!;
        await expect('the dev folder\'s addition back', { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: undefined },
          [back, { AZURE_STORAGE_CONNECTION_STRING: undefined, AzureWebJobsStorage: cs }], [cloud, none]);
        assert.equal(await terminalSees(back, 'AzureWebJobsStorage'), cs);

        // Stopped: nothing anywhere.
        await vscode.commands.executeCommand('azurite.close');
        await expect('every collection cleared once nothing runs', none, [back, none], [cloud, none]);
      });
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('terminalEnvironment', undefined, vscode.ConfigurationTarget.Workspace);
      const folders = vscode.workspace.workspaceFolders!;
      if (folders.length !== 2 || folders[1]!.uri.toString() !== dev.uri.toString()) await updateFolders(1, folders.length - 1, dev.uri);
      fs.rmSync(spare, { recursive: true, force: true });
    }
  });

  it('past 20 local.settings.json files in one folder, a debug session in another folder gets no AzureWebJobsStorage (its own file may be one the search never returned)', async () => {
    const second = vscode.workspace.workspaceFolders![1]!;
    for (let i = 0; i <= 20; i++) functionsApp(second, path.join('many', `p${String(i).padStart(2, '0')}`));
    await withBlobAndFiles([path.join(second.uri.fsPath, 'many')], async (first) => {
      assert.equal((await envIn(first, 'azurite env probe past the cap')).AzureWebJobsStorage, undefined);
    });
  });

  it('asks which folder keeps the data before a Clean; dismissed, nothing is deleted (not the first folder\'s data, as a guess)', async () => {
    const a = await api();
    const first = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const blobDb = path.join(first, '.azurite', '__azurite_db_blob__.json');
    await a.chooseDataFolder(first);
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    await vscode.commands.executeCommand('azurite.close_blob');
    assert.ok(fs.existsSync(blobDb));
    await a.chooseDataFolder(undefined);
    let outcome: Outcome[] | undefined;
    const cleaning = vscode.commands.executeCommand<Outcome[]>('azurite.clean_blob', { skipConfirmation: true }).then((o) => (outcome = o));
    await waitFor('the folder question', () => a.dataFolderQuestions().open || outcome !== undefined || undefined, 20_000);
    assert.equal(outcome, undefined, 'the clean waits for the answer');
    await waitFor('the question dismissed', async () => {
      if (a.dataFolderQuestions().open) await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      return outcome;
    }, 20_000);
    await cleaning;
    assert.deepEqual(outcome!.map((o) => !o.ok && o.reason), ['cancelled']);
    assert.ok(fs.existsSync(blobDb), 'the first folder\'s data is still there');
  });
});
