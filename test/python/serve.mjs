#!/usr/bin/env node
// Runs a real emulator for the python-sdks tier: Blob, Queue and Table from the engine bundle
// (out/engine-bundle.js, built by `node esbuild.mjs --engine-bundle`: the engine exactly as the
// extension bundles it, seam included), every setting at its default except ports 0 (free ports)
// and in-memory persistence. Prints one line of JSON on stdout once all three listen:
//   {"connectionString":"DefaultEndpointsProtocol=http;…","endpoints":{"blob":"http://127.0.0.1:PORT",…}}
// then runs until its stdin closes (the parent exited or closed it) or it gets SIGTERM/SIGINT, and
// stops the emulator. The emulator's error lines go to stderr; with --verbose its info and access
// lines too.
// Debugging only (never passed by scripts/test.sh): --skip-api-version-check sets
// azurite.skipApiVersionCheck, to tell a test bug from a refused API version.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bundlePath = path.join(root, 'out', 'engine-bundle.js');
const verbose = process.argv.includes('--verbose');
const skipApiVersionCheck = process.argv.includes('--skip-api-version-check');
const unknown = process.argv.slice(2).filter((a) => !['--verbose', '--skip-api-version-check'].includes(a));
if (unknown.length > 0) {
  console.error(`serve.mjs: unknown argument ${unknown.join(' ')} (flags: --verbose, --skip-api-version-check)`);
  process.exit(2);
}
if (!fs.existsSync(bundlePath)) {
  console.error(`serve.mjs: ${path.relative(root, bundlePath)} is missing; build it with: node esbuild.mjs --engine-bundle`);
  process.exit(2);
}

const { Emulator, parseSettings } = createRequire(import.meta.url)(bundlePath);

const write = (prefix) => (line) => process.stderr.write(`[emulator ${prefix}] ${line}\n`);
const quiet = () => undefined;
const log = {
  error: write('error'),
  info: verbose ? write('info') : quiet,
  access: verbose ? write('access') : quiet,
  debug: quiet,
};

// A folder for parseSettings' location rules; in-memory persistence writes nothing to it.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'python-sdks-'));
const raw = { blobPort: 0, queuePort: 0, tablePort: 0, inMemoryPersistence: true };
if (skipApiVersionCheck) raw.skipApiVersionCheck = true;
const settings = parseSettings(raw, { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: scratch, rootHasAzuriteData: false });
if (settings.errors.length > 0) {
  console.error(`serve.mjs: ${settings.errors.map((e) => e.message).join('; ')}`);
  process.exit(2);
}
// The engine runs in the engine host's process, as in the extension (out/engine-process.js).
const emulator = new Emulator(settings, log, { processPath: path.join(root, 'out', 'engine-process.js'), enginePath: bundlePath });

let stopping;
function stop(code) {
  stopping ??= (async () => {
    try {
      await emulator.dispose();
    } catch (err) {
      console.error(`serve.mjs: stopping the emulator failed: ${err?.stack ?? err}`);
      code = code || 1;
    }
    fs.rmSync(scratch, { recursive: true, force: true });
    process.exit(code);
  })();
  return stopping;
}
process.on('SIGTERM', () => void stop(0));
process.on('SIGINT', () => void stop(0));
process.stdin.on('end', () => void stop(0));
process.stdin.on('error', () => void stop(0));
process.stdin.resume();

try {
  for (const kind of ['blob', 'queue', 'table']) {
    const outcome = await emulator.start(kind);
    if (!outcome.ok) throw new Error(`${kind}: ${outcome.message}`);
  }
} catch (err) {
  console.error(`serve.mjs: the emulator did not start: ${err?.message ?? err}`);
  await stop(1);
}
const endpoints = Object.fromEntries(['blob', 'queue', 'table'].map((kind) => [kind, emulator.endpoint(kind).url]));
process.stdout.write(`${JSON.stringify({ connectionString: emulator.connectionString(), endpoints, skipApiVersionCheck })}\n`);
