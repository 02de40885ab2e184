/** Shared helpers for tests that run inside the VS Code extension host. */
import * as childProcess from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TestingApi } from '../../src/extension';

export const EXTENSION_ID = 'storage-emulators.storage-emulators';

/** The activated extension's API. */
export async function api(): Promise<TestingApi> {
  const ext = vscode.extensions.getExtension<TestingApi>(EXTENSION_ID);
  if (ext === undefined) throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  return ext.isActive ? ext.exports : ext.activate();
}

/** Polls `check` every 20 ms until it returns a truthy value; fails after `timeoutMs` naming `what`. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Writes `azurite.*` settings to the workspace and waits until the emulator has read them
 * (the extension re-reads settings in onDidChangeConfiguration).
 */
export async function configure(values: Record<string, unknown>): Promise<void> {
  const config = vscode.workspace.getConfiguration('azurite');
  for (const [key, value] of Object.entries(values)) {
    await config.update(key, value, vscode.ConfigurationTarget.Workspace);
  }
  const { emulator } = await api();
  await waitFor(`settings ${JSON.stringify(values)} to reach the emulator`, () => {
    const config = vscode.workspace.getConfiguration('azurite');
    const pending = Object.entries(values).filter(([key, value]) => config.get(key) !== value).map(([key]) => key);
    if (pending.length > 0) throw new Error(`VS Code still reads ${pending.map((k) => `${k}=${JSON.stringify(config.get(k))}`).join(', ')}`);
    if (!settingsApplied(emulator.options, values)) throw new Error(`the emulator still has ${JSON.stringify(emulator.options)}`);
    return true;
  });
  // What the engine applies live (API-version policy, memory limit) is in force once this resolves.
  await (await api()).settled();
}

function settingsApplied(options: TestingApi['emulator']['options'], values: Record<string, unknown>): boolean {
  for (const [key, value] of Object.entries(values)) {
    const port = /^(blob|queue|table)Port$/.exec(key);
    if (port && typeof value === 'number' && value >= 0 && value <= 65535 && options.services[port[1] as 'blob'].port !== value) return false;
    if (key === 'inMemoryPersistence' && options.inMemoryPersistence !== value) return false;
    if (key === 'extentMemoryLimit' && options.extentMemoryLimitBytes !== (value === null ? undefined : Math.trunc((value as number) * 1024 * 1024))) return false;
    if (key === 'silent' && options.silent !== value) return false;
    if (key === 'loose' && options.loose !== value) return false;
    if (key === 'apiVersionCheck' && options.apiVersionCheck !== (value ?? 'acceptNewer')) return false;
  }
  return true;
}

/** Stops every service and resets settings to this suite's baseline (free ports, in memory). */
export async function reset(): Promise<void> {
  await vscode.commands.executeCommand('azurite.close');
  await vscode.workspace.getConfiguration('azurite').update('location', undefined, vscode.ConfigurationTarget.Workspace);
  await configure({ blobPort: 0, queuePort: 0, tablePort: 0, inMemoryPersistence: true, extentMemoryLimit: null, loose: false, restartOnConfigChange: false });
  await vscode.commands.executeCommand('azurite.close');
  await (await api()).settled();
}

/** Executes a task; resolves to its exit code once its process ends. */
export async function runTask(task: vscode.Task): Promise<number | undefined> {
  const ended = new Promise<number | undefined>((resolve) => {
    const sub = vscode.tasks.onDidEndTaskProcess((e) => {
      if (e.execution.task.name === task.name && e.execution.task.definition.type === task.definition.type) { sub.dispose(); resolve(e.exitCode); }
    });
  });
  await vscode.tasks.executeTask(task);
  return ended;
}

/**
 * Runs `run` with the engine's process `pid` held off the CPU (SIGSTOP; POSIX only), so that what
 * reaches the engine meanwhile cannot end. `run` gets `resume` (SIGCONT) to let it go on at the
 * moment it chooses; the engine is resumed in any case when `run` settles.
 */
export async function withEngineHeld<T>(pid: number, run: (resume: () => void) => Promise<T>): Promise<T> {
  const resume = (): void => { process.kill(pid, 'SIGCONT'); };
  process.kill(pid, 'SIGSTOP');
  try {
    return await run(resume);
  } finally {
    resume();
  }
}

/**
 * Writes a snapshot folder (docs/SNAPSHOT.md) of one container `many` holding `count` small text
 * blobs, enough that importing it takes a while: what tests that act during an import load.
 * @returns the folder, in the system's temporary folder (the caller removes it)
 */
export function manyBlobsSnapshot(count = 1500): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'import-many-'));
  fs.mkdirSync(path.join(folder, 'blob', 'many'), { recursive: true });
  for (let i = 0; i < count; i++) fs.writeFileSync(path.join(folder, 'blob', 'many', `b${i}.txt`), `blob ${i}`);
  return folder;
}

/**
 * `count` ports free now on 127.0.0.1, all different: each listener stays open until all are read
 * (ports read one after another from listeners already closed can repeat).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => net.createServer());
  try {
    await Promise.all(servers.map((s) => new Promise<void>((resolve, reject) => { s.once('error', reject); s.listen(0, '127.0.0.1', () => resolve()); })));
    return servers.map((s) => (s.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => (s.listening ? s.close(() => resolve()) : resolve()))));
  }
}

/** True when 127.0.0.1:`port` accepts a TCP connection. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

/**
 * Starts another Azurite (the azurite CLI from node_modules, in memory, without the API-version
 * check the newest SDKs would fail) on 127.0.0.1 with Blob, Queue and Table on `ports`, as another
 * window, the CLI or a container would run it; resolves once each port accepts a connection (60 s
 * at most). The caller ends it (`kill()`).
 */
export async function startOtherAzurite(ports: readonly [number, number, number]): Promise<childProcess.ChildProcess> {
  const cli = path.resolve(__dirname, '..', '..', '..', 'node_modules', 'azurite', 'dist', 'src', 'azurite.js');
  const other = childProcess.spawn(process.execPath, [cli, '--silent', '--inMemoryPersistence', '--skipApiVersionCheck', '--disableTelemetry',
    '--blobPort', String(ports[0]), '--queuePort', String(ports[1]), '--tablePort', String(ports[2])], { stdio: 'ignore', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  try {
    await waitFor('the other Azurite to listen', async () => (await Promise.all(ports.map(accepts))).every(Boolean), 60_000);
  } catch (err) {
    other.kill();
    throw err;
  }
  return other;
}
