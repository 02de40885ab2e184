// The three things the benchmark measures, each started on free ports and described by a
// connection string: our emulator in this process (out/engine-bundle.js: the engine exactly as
// the extension bundles it, with the applicationinsights stub and the CRC64 seam), the azurite
// CLI as a separate process, and the no-work floor (./floor.mjs).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { connectionStringFor } from './floor.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

const engines = new Map();
/**
 * Where an Emulator finds the engine: the engine host's process (out/engine-process.js, built with the
 * engine bundle) and the engine build it loads.
 */
export function engineFiles(bundle = process.env.BENCH_ENGINE_BUNDLE ?? 'out/engine-bundle.js') {
  return { processPath: path.join(repoRoot, 'out', 'engine-process.js'), enginePath: path.resolve(repoRoot, bundle), checksumWorkerPath: path.join(repoRoot, 'out', 'checksum-worker.js') };
}

/**
 * The bundled engine (built by `node esbuild.mjs --engine-bundle`), or another build of it at
 * `bundle` (relative to the repository). BENCH_ENGINE_BUNDLE overrides the default.
 */
export function loadEngine(bundle = process.env.BENCH_ENGINE_BUNDLE ?? 'out/engine-bundle.js') {
  const file = path.resolve(repoRoot, bundle);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run \`node esbuild.mjs --engine-bundle\` first (npm run bench does)`);
  if (!engines.has(file)) engines.set(file, require(file));
  return engines.get(file);
}

function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

const dropLog = { info() {}, error() {}, access() {}, debug() {} };

/**
 * Our emulator, in this process, blob + queue + table on free ports.
 * @param {{ inMemory: boolean, silent?: boolean, log?: object, bundle?: string }} o silent defaults
 *   to true, as the CLI's --silent; bundle: another engine build (see loadEngine)
 */
export async function startOurs({ inMemory, silent = true, log = dropLog, bundle }) {
  const { Emulator, parseSettings } = loadEngine(bundle);
  const location = tempDir('bench-ours-');
  const settings = parseSettings(
    { blobPort: 0, queuePort: 0, tablePort: 0, inMemoryPersistence: inMemory, location, silent },
    { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: location, rootHasAzuriteData: false },
  );
  const emulator = new Emulator(settings, log, engineFiles(bundle));
  for (const kind of ['blob', 'queue', 'table']) {
    const outcome = await emulator.start(kind);
    if (!outcome.ok) throw new Error(`our ${kind} service did not start: ${outcome.message}`);
  }
  return {
    emulator,
    connectionString: emulator.connectionString(),
    close: async () => {
      await emulator.dispose();
      fs.rmSync(location, { recursive: true, force: true });
    },
  };
}

/**
 * The engine in the calling process, as the extension ran it before the engine host: the bundle's
 * adapter (createService) for blob, queue and table, one MeteredChunkStore shared by blob and queue,
 * the API-version policy `acceptNewer`, the access log off. What the engine host is compared with.
 * @param {{ inMemory: boolean, bundle?: string, saveWindowMs?: number }} o saveWindowMs: disk mode's
 *   save window (undefined: the adapter's default; 0: Azurite's own 5 s autosave only)
 */
export async function startInProcess({ inMemory, bundle, saveWindowMs }) {
  const { createService, MeteredChunkStore, createApiVersionPolicy } = loadEngine(bundle);
  const location = tempDir('bench-inproc-');
  const store = new MeteredChunkStore(undefined);
  const services = [];
  const urls = {};
  for (const kind of ['blob', 'queue', 'table']) {
    const service = createService({
      kind, host: '127.0.0.1', port: 0, inMemory, location, loose: false, accessLog: undefined,
      apiVersionPolicy: createApiVersionPolicy('acceptNewer', () => undefined), memoryStore: store,
      keepAliveSec: 5, https: undefined, oauth: undefined, disableProductStyleUrl: false, saveWindowMs,
    });
    urls[kind] = (await service.start()).url;
    services.push(service);
  }
  const key = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
  return {
    connectionString: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${key};` +
      `BlobEndpoint=${urls.blob}/devstoreaccount1;QueueEndpoint=${urls.queue}/devstoreaccount1;TableEndpoint=${urls.table}/devstoreaccount1;`,
    close: async () => {
      for (const s of services) await s.stop();
      fs.rmSync(location, { recursive: true, force: true });
    },
  };
}

/**
 * The azurite CLI (node_modules/azurite/dist/src/azurite.js) as a child process, telemetry off,
 * access log off (--silent). In memory it runs in an empty temp folder (the CLI refuses
 * --location with --inMemoryPersistence); on disk with --location set to one.
 */
export async function startCli({ inMemory }) {
  const dir = tempDir('bench-cli-');
  const cli = path.join(path.dirname(require.resolve('azurite/package.json')), 'dist', 'src', 'azurite.js');
  // --skipApiVersionCheck: today's SDKs send an x-ms-version newer than azurite 3.37 knows, which
  // its CLI answers with HTTP 400 otherwise (ours serves it through azurite.apiVersionCheck).
  const args = [cli, '--silent', '--disableTelemetry', '--skipApiVersionCheck', '--blobPort', '0', '--queuePort', '0', '--tablePort', '0',
    ...(inMemory ? ['--inMemoryPersistence'] : ['--location', dir])];
  const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  // If the benchmark dies first, do not leave the CLI running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  let out = '';
  const urls = {};
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`azurite CLI did not start in 60 s:\n${out}`)), 60_000);
    void exited.then(([code]) => { clearTimeout(timer); reject(new Error(`azurite CLI exited (${code}):\n${out}`)); });
    const onData = (d) => {
      out += d;
      for (const m of out.matchAll(/Azurite (Blob|Queue|Table) service is successfully listening at (\S+)/g)) urls[m[1]] = m[2];
      if (urls.Blob && urls.Queue && urls.Table) { clearTimeout(timer); resolve(); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
  });
  const account = (u) => `${u}/devstoreaccount1`;
  return {
    pid: child.pid,
    connectionString: connectionStringFor(account(urls.Blob), account(urls.Queue), account(urls.Table)),
    close: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
