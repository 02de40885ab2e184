#!/usr/bin/env node
// The python-sdks tier: the newest Azure Storage SDKs for Python against the emulator.
//   1. scripts/pythonSdks.sh: a venv in the tools cache, upgraded to the newest published SDKs;
//   2. test/python/serve.mjs: Blob, Queue and Table from out/engine-bundle.js (defaults, ports 0, in memory);
//   3. pytest test/python/test_sdks.py with AZURE_STORAGE_CONNECTION_STRING set.
// Builds nothing: needs out/engine-bundle.js (`node esbuild.mjs --engine-bundle`). Stops the emulator
// whatever happens and exits with pytest's exit code (1 if it never ran).
// Arguments after `--` go to pytest (e.g. `-- -k queue`). `--skip-api-version-check` (debugging only,
// never used by scripts/test.sh) is passed to serve.mjs; `--verbose` prints the emulator's access log.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const dash = process.argv.indexOf('--');
const ownArgs = dash < 0 ? process.argv.slice(2) : process.argv.slice(2, dash);
const pytestArgs = dash < 0 ? [] : process.argv.slice(dash + 1);
const serveFlags = ['--skip-api-version-check', '--verbose'];
const unknown = ownArgs.filter((a) => !serveFlags.includes(a));
if (unknown.length > 0) fail(`unknown argument ${unknown.join(' ')} (flags: ${serveFlags.join(', ')}; pytest arguments after --)`, 2);

function fail(message, code = 1) {
  console.error(`python-sdks: ${message}`);
  process.exit(code);
}

if (!fs.existsSync(path.join(root, 'out', 'engine-bundle.js'))) {
  fail('out/engine-bundle.js is missing; build it first: node esbuild.mjs --engine-bundle');
}

// 1. The newest SDKs. The script prints the venv on its last stdout line and its trouble on stderr.
const sdks = spawnSync('bash', [path.join(root, 'scripts', 'pythonSdks.sh')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
if (sdks.status !== 0) fail(`scripts/pythonSdks.sh failed (exit ${sdks.status ?? sdks.signal})`);
const venv = sdks.stdout.trim().split('\n').pop();
const python = path.join(venv, 'bin', 'python');
if (!fs.existsSync(python)) fail(`scripts/pythonSdks.sh printed ${JSON.stringify(venv)}, which has no bin/python`);

// 2. The emulator. It runs until its stdin closes, so it also stops if this process dies.
const server = spawn(process.execPath, [path.join(here, 'serve.mjs'), ...ownArgs], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
const serverExited = new Promise((resolve) => server.once('exit', (code, signal) => resolve(code ?? signal)));
let pytest;

async function stopServer() {
  if (server.exitCode !== null || server.signalCode !== null) return;
  server.stdin.end();
  server.kill('SIGTERM');
  const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
  await serverExited;
  clearTimeout(timer);
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    pytest?.kill(signal);
    void stopServer().then(() => process.exit(130));
  });
}

const ready = await new Promise((resolve) => {
  const lines = readline.createInterface({ input: server.stdout });
  const timer = setTimeout(() => resolve({ error: 'no endpoints from serve.mjs within 60 s' }), 60_000);
  lines.once('line', (line) => {
    clearTimeout(timer);
    try {
      resolve(JSON.parse(line));
    } catch {
      resolve({ error: `serve.mjs printed ${JSON.stringify(line)}, not JSON` });
    }
  });
  void serverExited.then((code) => { clearTimeout(timer); resolve({ error: `serve.mjs exited (${code}) before printing its endpoints` }); });
});
if (ready.error !== undefined) {
  await stopServer();
  fail(ready.error);
}
// Anything serve.mjs prints later on stdout goes through.
server.stdout.pipe(process.stdout);
console.log(`python-sdks: emulator on ${Object.entries(ready.endpoints).map(([k, url]) => `${k} ${url}`).join(', ')}${ready.skipApiVersionCheck ? ' (skipApiVersionCheck: debugging only)' : ''}`);

// 3. pytest. No cache folder or .pyc files in the checkout.
let code;
try {
  pytest = spawn(python, ['-m', 'pytest', path.join(here, 'test_sdks.py'), '-q', '-rfE', '--tb=short', '-p', 'no:cacheprovider',
    '--rootdir', here, ...pytestArgs], {
    cwd: here,
    stdio: 'inherit',
    env: { ...process.env, AZURE_STORAGE_CONNECTION_STRING: ready.connectionString, PYTHONDONTWRITEBYTECODE: '1' },
  });
  code = await new Promise((resolve) => {
    pytest.once('error', (err) => { console.error(`python-sdks: could not run pytest: ${err.message}`); resolve(1); });
    pytest.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  });
} finally {
  await stopServer();
}
process.exit(code);
