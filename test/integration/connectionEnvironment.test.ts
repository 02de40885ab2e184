/**
 * The connection string where the user's code runs: debug sessions (a real js-debug session of a
 * small Node program), the `azurite` task, and terminals next to an Azure Functions
 * local.settings.json that sets its own AzureWebJobsStorage. Real extension host, real engine.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BlobServiceClient } from '@azure/storage-blob';
import { api, configure, freePorts, reset, startOtherAzurite, waitFor, runTask } from './helpers';
import { DEV_ACCOUNT } from '../../src/core/connectionString';
import { SERVICE_KINDS } from '../../src/core/services';

const workspace = (): string => {
  const ws = process.env.TEST_WORKSPACE ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!ws) throw new Error('no TEST_WORKSPACE');
  return ws;
};

const CLOUD = 'DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=cHJvZA==;EndpointSuffix=core.windows.net';

/**
 * Writes a local.settings.json under `dir` (relative to the workspace); returns its path.
 * `commented`: with a comment and a trailing comma, which Core Tools accept.
 */
function writeLocalSettings(dir: string, azureWebJobsStorage: string, commented = false): string {
  const file = path.join(workspace(), dir, 'local.settings.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const json = JSON.stringify({ IsEncrypted: false, Values: { FUNCTIONS_WORKER_RUNTIME: 'node', AzureWebJobsStorage: azureWebJobsStorage } }, null, 2);
  fs.writeFileSync(file, commented ? `// local runs only\n${json.replace(/\n\s*\}\n\}$/, ',\n  },\n}')}\n` : json);
  return file;
}

/** Runs `program` under the node debugger with `config` merged in; resolves to the environment it saw. */
async function debugAndReadEnv(name: string, config: Partial<vscode.DebugConfiguration> = {}): Promise<Record<string, string>> {
  const dir = fs.mkdtempSync(path.join(workspace(), '.debug-'));
  const program = path.join(dir, 'dump-env.js');
  const out = path.join(dir, 'env.json');
  fs.writeFileSync(program, `require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.env));\n`);
  try {
    const terminated = new Promise<void>((resolve) => {
      const sub = vscode.debug.onDidTerminateDebugSession((s) => {
        if (s.name === name) { sub.dispose(); resolve(); }
      });
    });
    const started = await vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], {
      type: 'node', request: 'launch', name, program, runtimeExecutable: process.execPath, console: 'internalConsole', ...config,
    });
    assert.equal(started, true, 'the node debugger (js-debug) did not start the session');
    await terminated;
    const text = await waitFor('the debugged program to write its environment', () => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : ''), 30_000);
    return JSON.parse(text) as Record<string, string>;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

describe('Connection string in debug sessions, tasks and terminals', () => {
  const fixtures: string[] = [];
  before(async () => {
    await reset();
  });
  afterEach(async () => {
    for (const f of fixtures.splice(0)) fs.rmSync(f, { recursive: true, force: true });
    await vscode.workspace.getConfiguration('azurite').update('debugEnvironment', undefined, vscode.ConfigurationTarget.Workspace);
    await reset();
    await (await api()).rescanLocalSettings();
  });

  it('gives a node debug session the variables while a service runs, keeping one its launch configuration sets', async () => {
    const a = await api();
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    const cs = a.emulator.connectionString();
    const env = await debugAndReadEnv('azurite env probe', { env: { AzureWebJobsStorage: 'mine' } });
    assert.equal(env.AZURE_STORAGE_CONNECTION_STRING, cs);
    assert.equal(env.AzureWebJobsStorage, 'mine');

    // A variable its envFile sets is the configuration's too (js-debug reads the file: ours must not win).
    const envDir = fs.mkdtempSync(path.join(workspace(), '.envfile-'));
    try {
      fs.writeFileSync(path.join(envDir, 'app.env'), 'export AZURE_STORAGE_CONNECTION_STRING=from-env-file\n');
      const fromFile = await debugAndReadEnv('azurite env probe envFile', { envFile: path.join(envDir, 'app.env') });
      assert.equal(fromFile.AZURE_STORAGE_CONNECTION_STRING, 'from-env-file');
      assert.equal(fromFile.AzureWebJobsStorage, cs);
    } finally {
      fs.rmSync(envDir, { recursive: true, force: true });
    }

    const both = await debugAndReadEnv('azurite env probe 2');
    assert.equal(both.AZURE_STORAGE_CONNECTION_STRING, cs);
    assert.equal(both.AzureWebJobsStorage, cs);

    await vscode.workspace.getConfiguration('azurite').update('debugEnvironment', false, vscode.ConfigurationTarget.Workspace);
    await waitFor('azurite.debugEnvironment to read false', () => vscode.workspace.getConfiguration('azurite').get('debugEnvironment') === false);
    const off = await debugAndReadEnv('azurite env probe off');
    assert.equal(off.AZURE_STORAGE_CONNECTION_STRING, undefined);
    assert.equal(off.AzureWebJobsStorage, undefined);
  });

  it('gives a debug session launched while a service starts the variables once it runs, saying after a second what it waits for', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const a = await api();
    await a.emulator.warmUp();
    const pid = a.emulator.enginePid!;
    const title = 'Azurite: The debug session "azurite env probe while starting" waits for Queue to start (Cancel launches it now)';
    // The engine's process held off the CPU: Queue's start waits for it (its memory check, then its
    // listen) until it runs again, within the start's 10 s bound, whatever the machine's speed.
    process.kill(pid, 'SIGSTOP');
    let started: Thenable<unknown> | undefined;
    let env: Promise<Record<string, string>> | undefined;
    try {
      // The emulator's own start (what the command runs once it has asked what it asks first).
      started = a.emulator.start('queue');
      await waitFor('Queue\'s start under way', () => (a.emulator.startsUnderWay().includes('queue') ? true : undefined));
      env = debugAndReadEnv('azurite env probe while starting');
      await waitFor('the debug session\'s wait shown', () => (a.progressShown().includes(title) ? true : undefined));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const seen = await env!;
    assert.deepEqual(await started, { ok: true });
    assert.equal(seen.AZURE_STORAGE_CONNECTION_STRING, a.emulator.connectionString());
    assert.match(seen.AZURE_STORAGE_CONNECTION_STRING ?? '', /QueueEndpoint=/);
  });

  it('runs an azurite task that ends once the port answers (exit code 0), runs tasks.json ones, and fails a bad definition with exit code 2', async () => {
    const a = await api();
    const tasks = await vscode.tasks.fetchTasks({ type: 'azurite' });
    assert.deepEqual(tasks.map((t) => t.name).sort(), ['reset', 'start', 'start blob', 'start queue', 'start table']);
    assert.equal(await runTask(tasks.find((t) => t.name === 'start queue')!), 0);
    const port = a.emulator.endpoint('queue')?.port;
    assert.ok(port !== undefined && port > 0, 'the queue service runs');
    assert.equal(await answers(port), true);
    assert.equal(a.emulator.endpoint('blob'), undefined, 'only the services named start');

    // Tasks written in tasks.json go through resolveTask.
    const tasksConfig = vscode.workspace.getConfiguration('tasks');
    await tasksConfig.update('version', '2.0.0', vscode.ConfigurationTarget.Workspace);
    await tasksConfig.update('inputs', [{ id: 'service', type: 'promptString', description: 'which service', default: 'blob' }], vscode.ConfigurationTarget.Workspace);
    await tasksConfig.update('tasks', [
      { label: 'table from tasks.json', type: 'azurite', services: ['table'] },
      { label: 'bad services', type: 'azurite', services: ['file'] },
      { label: 'service from an input', type: 'azurite', services: ['${input:service}'] },
    ], vscode.ConfigurationTarget.Workspace);
    try {
      const user = await waitFor('the tasks.json tasks to be listed', async () => {
        const all = await vscode.tasks.fetchTasks({ type: 'azurite' });
        const table = all.find((t) => t.name === 'table from tasks.json');
        const bad = all.find((t) => t.name === 'bad services');
        return table && bad ? { table, bad } : undefined;
      });
      assert.equal(await runTask(user.table), 0);
      assert.ok(a.emulator.endpoint('table') !== undefined, 'the table service runs');
      assert.equal(await answers(a.emulator.endpoint('table')!.port), true);
      assert.equal(await runTask(user.bad), 2);
      // A variable in the definition: the task runs with the value VS Code substituted.
      const fromInput = (await vscode.tasks.fetchTasks({ type: 'azurite' })).find((t) => t.name === 'service from an input')!;
      let code: number | undefined | null = null;
      void runTask(fromInput).then((c) => { code = c; });
      await waitFor('the input answered with its default and the task ended', async () => {
        if (code === null) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        return code !== null || undefined;
      }, 30_000);
      assert.equal(code, 0);
      assert.ok(a.emulator.endpoint('blob') !== undefined, 'the blob service runs');
    } finally {
      await tasksConfig.update('inputs', undefined, vscode.ConfigurationTarget.Workspace);
      await tasksConfig.update('tasks', undefined, vscode.ConfigurationTarget.Workspace);
      await tasksConfig.update('version', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('works as a preLaunchTask: the session sees the service the task started, on its port', async () => {
    const a = await api();
    assert.equal(a.emulator.endpoint('queue'), undefined);
    const env = await debugAndReadEnv('azurite prelaunch probe', { preLaunchTask: 'azurite: start queue' });
    const port = a.emulator.endpoint('queue')?.port;
    assert.ok(port !== undefined, 'the preLaunchTask started the queue service');
    assert.equal(env.AZURE_STORAGE_CONNECTION_STRING, a.emulator.connectionString());
    assert.match(env.AZURE_STORAGE_CONNECTION_STRING, new RegExp(`QueueEndpoint=http://127\\.0\\.0\\.1:${port}/devstoreaccount1`));
  });

  it('keeps AzureWebJobsStorage out of terminals while a local.settings.json sets its own; removing it brings ours back', async () => {
    const a = await api();
    fixtures.push(path.join(workspace(), 'functions'));
    const file = writeLocalSettings('functions', CLOUD);
    await a.rescanLocalSettings();
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    const cs = a.emulator.connectionString();
    await waitFor('AzureWebJobsStorage to be left out of terminals', () => {
      const v = a.terminalVariables();
      return v.AZURE_STORAGE_CONNECTION_STRING === cs && v.AzureWebJobsStorage === undefined;
    });
    assert.match(a.terminalDescription() ?? '', /^AZURE_STORAGE_CONNECTION_STRING for the running Azurite Blob; AzureWebJobsStorage not set: functions\/local\.settings\.json sets its own/);

    // A debug session follows the same rule.
    const env = await debugAndReadEnv('azurite env probe cloud');
    assert.equal(env.AZURE_STORAGE_CONNECTION_STRING, cs);
    assert.equal(env.AzureWebJobsStorage, undefined);

    fs.rmSync(file);
    await waitFor('AzureWebJobsStorage to come back once local.settings.json is gone', () => a.terminalVariables().AzureWebJobsStorage === cs, 20_000);
    assert.match(a.terminalDescription() ?? '', /^AZURE_STORAGE_CONNECTION_STRING and AzureWebJobsStorage for the running Azurite Blob/);
  });

  it('keeps AZURE_STORAGE_CONNECTION_STRING out of terminals and debug sessions while a .env sets its own (a program that loads it keeps what its environment has)', async () => {
    const a = await api();
    const dir = path.join(workspace(), 'dotenv-app');
    fixtures.push(dir);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, '.env');
    fs.writeFileSync(file, `# the app's cloud account\nAZURE_STORAGE_CONNECTION_STRING="${CLOUD}"\n`);
    await a.rescanLocalSettings();
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    const cs = a.emulator.connectionString();
    await waitFor('AZURE_STORAGE_CONNECTION_STRING to be left out of terminals', () => {
      const v = a.terminalVariables();
      return (v.AZURE_STORAGE_CONNECTION_STRING === undefined && v.AzureWebJobsStorage === cs) || undefined;
    });
    assert.match(a.terminalDescription() ?? '', /AZURE_STORAGE_CONNECTION_STRING not set: dotenv-app\/\.env sets its own/);
    const env = await debugAndReadEnv('azurite env probe dotenv');
    assert.equal(env.AZURE_STORAGE_CONNECTION_STRING, undefined);
    assert.equal(env.AzureWebJobsStorage, cs);
    // Its value pointed at the development storage instead: ours is given again (the file is watched).
    fs.writeFileSync(file, 'AZURE_STORAGE_CONNECTION_STRING=UseDevelopmentStorage=true\n');
    await waitFor('AZURE_STORAGE_CONNECTION_STRING to come back', () => a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === cs, 20_000);
    // A .env.development.local (Next.js, Vite) that sets its own counts too; a .env.production does not.
    fs.writeFileSync(path.join(dir, '.env.production'), `AZURE_STORAGE_CONNECTION_STRING="${CLOUD}"\n`);
    fs.writeFileSync(path.join(dir, '.env.development.local'), `AZURE_STORAGE_CONNECTION_STRING="${CLOUD}"\n`);
    await waitFor('AZURE_STORAGE_CONNECTION_STRING left out for .env.development.local', () => a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === undefined || undefined, 20_000);
    assert.match(a.terminalDescription() ?? '', /AZURE_STORAGE_CONNECTION_STRING not set: dotenv-app\/\.env\.development\.local sets its own \(/);
    assert.ok(!(a.terminalDescription() ?? '').includes('.env.production'), 'a .env.production is not read');
  });

  it('reads a local.settings.json saved as UTF-16 with a byte order mark (Windows PowerShell 5.1\'s `>`), little- or big-endian', async () => {
    const a = await api();
    fixtures.push(path.join(workspace(), 'utf16'));
    const le = writeLocalSettings('utf16/le', 'UseDevelopmentStorage=true');
    fs.writeFileSync(le, Buffer.from(`\uFEFF${fs.readFileSync(le, 'utf8')}`, 'utf16le'));
    const be = writeLocalSettings('utf16/be', CLOUD);
    fs.writeFileSync(be, Buffer.from(`\uFEFF${fs.readFileSync(be, 'utf8')}`, 'utf16le').swap16());
    await a.rescanLocalSettings();
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    const cs = a.emulator.connectionString();
    // Neither file counts as unreadable (which would keep both variables out): the big-endian one
    // sets its own AzureWebJobsStorage, the little-endian one uses ours.
    await waitFor('the terminal variables', () => {
      const v = a.terminalVariables();
      return (v.AZURE_STORAGE_CONNECTION_STRING === cs && v.AzureWebJobsStorage === undefined) || undefined;
    });
    assert.match(a.terminalDescription() ?? '', /^AZURE_STORAGE_CONNECTION_STRING for the running Azurite Blob; AzureWebJobsStorage not set: utf16\/be\/local\.settings\.json sets its own \(/);
  });

  it('a local.settings.json whose folder is deleted (rm -rf, not the file itself) stops counting', async () => {
    const a = await api();
    const folder = path.join(workspace(), 'gone-functions');
    fixtures.push(folder);
    writeLocalSettings(path.join('gone-functions', 'app'), CLOUD);
    await a.rescanLocalSettings();
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    const cs = a.emulator.connectionString();
    await waitFor('AzureWebJobsStorage to be left out of terminals', () => a.terminalVariables().AzureWebJobsStorage === undefined && a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === cs);
    // No rescan asked for: only what VS Code's file watcher reports.
    fs.rmSync(folder, { recursive: true, force: true });
    await waitFor('AzureWebJobsStorage to come back once the folder is gone', () => a.terminalVariables().AzureWebJobsStorage === cs, 20_000);
  });

  it('a folder holding a local.settings.json moved into the workspace (mv, not a file written) counts', async () => {
    const a = await api();
    // Beside the workspace (one file system: a rename, as mv does), then moved in.
    const outside = fs.mkdtempSync(path.join(path.dirname(workspace()), 'moved-in-'));
    const inside = path.join(workspace(), 'moved-functions');
    fixtures.push(outside, inside);
    fs.mkdirSync(path.join(outside, 'app'));
    fs.writeFileSync(path.join(outside, 'app', 'local.settings.json'), JSON.stringify({ IsEncrypted: false, Values: { AzureWebJobsStorage: CLOUD } }));
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    const cs = a.emulator.connectionString();
    await waitFor('AzureWebJobsStorage in terminals', () => a.terminalVariables().AzureWebJobsStorage === cs);
    // No rescan asked for: only what VS Code's file watcher reports.
    fs.renameSync(outside, inside);
    await waitFor('AzureWebJobsStorage to be left out once the project is in the workspace', () => a.terminalVariables().AzureWebJobsStorage === undefined && a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === cs, 20_000);
  });

  it('injects neither variable past 20 local.settings.json files (one not read may set its own); copies in bin/ and obj/ do not count', async () => {
    const a = await api();
    fixtures.push(path.join(workspace(), 'many'));
    // 21 projects using the development storage (which allows ours), read in path order: the 21st is not read.
    for (let i = 0; i < 21; i++) writeLocalSettings(`many/p${String(i).padStart(2, '0')}`, 'UseDevelopmentStorage=true');
    // A .NET build's copies (stale ones may hold another value): the project's own file decides.
    writeLocalSettings('many/p00/bin/Debug/net8.0', CLOUD);
    writeLocalSettings('many/p00/obj/Debug/net8.0', CLOUD);
    await a.rescanLocalSettings();
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    // A scan can miss files written a moment before (once in CI a scan saw at most 20 of the 21;
    // the cause is not known); the scans the file watcher's events start find them all.
    await waitFor('the 21st file named as not read, and no variable', () => {
      const v = a.terminalVariables();
      return (v.AzureWebJobsStorage === undefined && v.AZURE_STORAGE_CONNECTION_STRING === undefined && /many\/p20\/local\.settings\.json/.test(a.terminalDescription() ?? '')) || undefined;
    });
    fs.rmSync(path.join(workspace(), 'many', 'p20'), { recursive: true });
    await a.rescanLocalSettings();
    await waitFor('both variables with 20 files, all read', () => {
      const v = a.terminalVariables();
      return (v.AzureWebJobsStorage === a.emulator.connectionString() && v.AZURE_STORAGE_CONNECTION_STRING === a.emulator.connectionString()) || undefined;
    });
    assert.doesNotMatch(a.terminalDescription() ?? '', /bin|obj/);
  });

  it('starts Blob, Queue and Table before a debug session when local.settings.json uses the development storage (a file with a comment and a trailing comma)', async () => {
    const a = await api();
    fixtures.push(path.join(workspace(), 'fnapp'));
    const file = writeLocalSettings('fnapp', 'UseDevelopmentStorage=true', true);
    assert.throws(() => JSON.parse(fs.readFileSync(file, 'utf8')), 'not plain JSON');
    await a.rescanLocalSettings();
    assert.equal(a.emulator.endpoint('blob'), undefined);
    const env = await debugAndReadEnv('azurite functions probe');
    for (const kind of ['blob', 'queue', 'table'] as const) assert.ok(a.emulator.endpoint(kind) !== undefined, `${kind} runs`);
    const cs = a.emulator.connectionString();
    assert.equal(env.AZURE_STORAGE_CONNECTION_STRING, cs, 'the session saw the services it started');
    assert.equal(env.AzureWebJobsStorage, cs, 'UseDevelopmentStorage=true is ours to override');
  });

  it('a service the user stops during a Functions debug session stays stopped when the debugger starts a child session (a process the program spawns)', async () => {
    const a = await api();
    fixtures.push(path.join(workspace(), 'fnchild'));
    writeLocalSettings('fnchild', 'UseDevelopmentStorage=true');
    await a.rescanLocalSettings();
    const dir = fs.mkdtempSync(path.join(workspace(), '.debug-'));
    fixtures.push(dir);
    const [ready, go, childDone] = ['ready', 'go', 'child-done'].map((f) => path.join(dir, f));
    const program = path.join(dir, 'spawns.js');
    // Waits for the test's "go", then spawns a node process: js-debug attaches to it in a child session.
    fs.writeFileSync(program, [
      "const fs = require('fs'); const { spawnSync } = require('child_process');",
      `fs.writeFileSync(${JSON.stringify(ready)}, '');`,
      `const t = setInterval(() => { if (!fs.existsSync(${JSON.stringify(go)})) return; clearInterval(t);`,
      `  spawnSync(process.execPath, ['-e', ${JSON.stringify(`require('fs').writeFileSync(${JSON.stringify(childDone)}, '')`)}], { stdio: 'inherit' }); }, 50);`,
      '',
    ].join('\n'));
    const name = 'azurite functions child';
    const children: vscode.DebugSession[] = [];
    const started = vscode.debug.onDidStartDebugSession((s) => { if (s.parentSession !== undefined) children.push(s); });
    const terminated = new Promise<void>((resolve) => {
      const sub = vscode.debug.onDidTerminateDebugSession((s) => { if (s.name === name) { sub.dispose(); resolve(); } });
    });
    try {
      assert.equal(await vscode.debug.startDebugging(vscode.workspace.workspaceFolders?.[0], { type: 'node', request: 'launch', name, program, runtimeExecutable: process.execPath, console: 'internalConsole' }), true);
      await waitFor('the program to run', () => fs.existsSync(ready), 30_000);
      assert.equal(a.emulator.status('queue').status, 'running', 'the launch started Queue');
      const childrenBefore = children.length;
      await vscode.commands.executeCommand('azurite.close_queue');
      assert.equal(a.emulator.status('queue').status, 'closed');
      fs.writeFileSync(go, '');
      await waitFor('the spawned process to run', () => fs.existsSync(childDone), 30_000);
      await terminated;
      assert.ok(children.length > childrenBefore, 'the debugger attached to the spawned process in a child session');
      // An attach: env reaches nothing there, and the log would say what did not happen.
      assert.deepEqual(children.map((c) => c.configuration.env?.AZURE_STORAGE_CONNECTION_STRING), children.map(() => undefined), 'no env for a child session');
      assert.equal(a.emulator.status('queue').status, 'closed', 'the child session started Queue again');
    } finally {
      started.dispose();
    }
  });

  it('starts only what no other Azurite serves before a debug session of a Functions project, and shows no error for the rest', async () => {
    const a = await api();
    fixtures.push(path.join(workspace(), 'fnapp'));
    writeLocalSettings('fnapp', 'UseDevelopmentStorage=true');
    await a.rescanLocalSettings();
    // Another Azurite's Table service (another window's, the CLI) on the port Table is set to.
    const other = http.createServer((_req, res) => { res.setHeader('Server', 'Azurite-Table/3.37.0'); res.end(); });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      await configure({ tablePort: (other.address() as net.AddressInfo).port });
      const before = a.notifications().length;
      await debugAndReadEnv('azurite functions table elsewhere probe');
      assert.ok(a.emulator.endpoint('blob') !== undefined && a.emulator.endpoint('queue') !== undefined, 'blob and queue run');
      assert.equal(a.emulator.endpoint('table'), undefined, 'table is served by the other Azurite');
      assert.deepEqual(a.notifications().slice(before), [], 'no error for a start the user did not ask for');
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('an azurite start task gives way to a service another Azurite already serves on its port, and ends with exit code 0', async () => {
    const a = await api();
    const other = http.createServer((_req, res) => { res.setHeader('Server', 'Azurite-Table/3.37.0'); res.end(); });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      await configure({ tablePort: (other.address() as net.AddressInfo).port });
      const start = (await vscode.tasks.fetchTasks({ type: 'azurite' })).find((t) => t.name === 'start')!;
      assert.equal(await runTask(start), 0, 'the task succeeds: every service answers');
      assert.ok(a.emulator.endpoint('blob') !== undefined && a.emulator.endpoint('queue') !== undefined, 'blob and queue run');
      assert.equal(a.emulator.endpoint('table'), undefined, 'table is the other Azurite\'s');
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('gives a debug session and terminals the connection string of another Azurite that serves every service its azurite preLaunchTask asks for', async function () {
    this.timeout(120_000);
    const a = await api();
    // Another window's (or the CLI's) Azurite, on the ports this window is set to.
    const ports = await freePorts(3);
    const other = await startOtherAzurite([ports[0]!, ports[1]!, ports[2]!]);
    try {
      await configure({ blobPort: ports[0], queuePort: ports[1], tablePort: ports[2] });
      const expected = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${DEV_ACCOUNT.key};` +
        `BlobEndpoint=http://127.0.0.1:${ports[0]}/devstoreaccount1;QueueEndpoint=http://127.0.0.1:${ports[1]}/devstoreaccount1;TableEndpoint=http://127.0.0.1:${ports[2]}/devstoreaccount1;`;

      // F5 with "preLaunchTask": "azurite: start": the task gives way to it, and the program gets its address.
      const env = await debugAndReadEnv('azurite served elsewhere probe', { preLaunchTask: 'azurite: start' });
      assert.deepEqual(SERVICE_KINDS.map((k) => a.emulator.status(k).status), ['closed', 'closed', 'closed'], 'nothing of this window started');
      assert.equal(env.AZURE_STORAGE_CONNECTION_STRING, expected);
      assert.equal(env.AzureWebJobsStorage, expected);
      await BlobServiceClient.fromConnectionString(env.AZURE_STORAGE_CONNECTION_STRING!).getContainerClient('from-window-b').create();
      assert.equal(await BlobServiceClient.fromConnectionString(expected).getContainerClient('from-window-b').exists(), true);

      // Terminals get it too, and their environment information says who serves it.
      await waitFor('the variables in terminals', () => a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === expected || undefined);
      assert.deepEqual(a.terminalVariables(), { AZURE_STORAGE_CONNECTION_STRING: expected, AzureWebJobsStorage: expected });
      assert.equal(a.terminalDescription(), 'AZURE_STORAGE_CONNECTION_STRING and AzureWebJobsStorage for Blob, Queue, Table served by another Azurite (Storage Emulators)');
      // So do the status bar items.
      await waitFor('the Blob item to say who serves it', () => a.statusItems().blob.tooltip.includes('stopped here, served by another Azurite') || undefined);
      // Copy Connection String says who serves them, not "(not running)".
      await vscode.commands.executeCommand('azurite.copyConnectionString', { account: 'devstoreaccount1' });
      await waitFor('the copy\'s notification', () => a.notifications().find((n) => /^Connection string( of devstoreaccount1)? copied to the clipboard\. Blob, Queue, Table served by another Azurite at their configured ports\.$/.test(n)));

      // Table set to another port: what was found on the old one no longer counts (it is named at
      // the new port, as a service not running is).
      const [tablePort] = await freePorts(1);
      await configure({ tablePort });
      await waitFor('Table to leave the description', () => a.terminalDescription() === 'AZURE_STORAGE_CONNECTION_STRING and AzureWebJobsStorage for Blob, Queue served by another Azurite (Storage Emulators)' || undefined);
      assert.match(a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING ?? '', new RegExp(`;TableEndpoint=http://127\\.0\\.0\\.1:${tablePort}/devstoreaccount1;$`));

      // Attached to an Azurite elsewhere (this one): nothing in terminals, as while nothing runs here.
      await vscode.workspace.getConfiguration('azurite').update('attach', expected, vscode.ConfigurationTarget.Workspace);
      await waitFor('the variables to leave terminals while attached', () => a.terminalVariables().AZURE_STORAGE_CONNECTION_STRING === undefined || undefined);
      assert.equal(a.terminalVariables().AzureWebJobsStorage, undefined);
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
      other.kill();
    }
  });

  it('starts nothing local before a debug session of a Functions project while attached to another Azurite, and shows no error', async () => {
    const a = await api();
    fixtures.push(path.join(workspace(), 'fnapp'));
    writeLocalSettings('fnapp', 'UseDevelopmentStorage=true');
    await a.rescanLocalSettings();
    const attach = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${DEV_ACCOUNT.key};BlobEndpoint=http://127.0.0.1:1/devstoreaccount1;`;
    await vscode.workspace.getConfiguration('azurite').update('attach', attach, vscode.ConfigurationTarget.Workspace);
    try {
      await waitFor('the attached item', () => a.statusItems().attach.visible);
      const before = a.notifications().length;
      await debugAndReadEnv('azurite functions attached probe');
      assert.equal(a.emulator.endpoint('blob'), undefined, 'the local emulator did not start');
      // Only the warning that UseDevelopmentStorage=true does not reach an Azurite on port 1 (attach.test.ts).
      const refusals = a.notifications().slice(before).filter((n) => /azurite\.attach/.test(n) && !n.startsWith('A local.settings.json points AzureWebJobsStorage at the local emulator'));
      assert.deepEqual(refusals, [], 'no refusal of a start the user did not ask for');
    } finally {
      await vscode.workspace.getConfiguration('azurite').update('attach', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
