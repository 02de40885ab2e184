#!/usr/bin/env node
// The same integration suite through @vscode/test-electron, for machines that can download VS Code
// desktop (needs network; on Linux without a display run it under xvfb-run). Offline (as in our
// container) it fails at the download with ENOTFOUND: use runIntegration.mjs (code-server) there.
//
//   node test/harness/runElectron.mjs [--extension DIR] [--tests FILE]
// env: VSCODE_TEST_VERSION (default stable), VSCODE_EXECUTABLE (use an installed build, no download),
//      VSCODE_TEST_CACHE (download folder, default <repo>/.vscode-test), AZURITE_TEST_* (passed through).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runTests } from '@vscode/test-electron';
import { defaultUserSettings, makeTempDir, repoRoot } from './codeServer.mjs';

const { values: opts } = parseArgs({
  options: {
    extension: { type: 'string', default: repoRoot },
    tests: { type: 'string', default: path.join(repoRoot, 'out', 'test', 'integration', 'index.js') },
  },
});

const workspace = makeTempDir('storage-emulators-ws-');
const userData = makeTempDir('storage-emulators-ud-');
fs.mkdirSync(path.join(userData.dir, 'User'));
fs.writeFileSync(path.join(userData.dir, 'User', 'settings.json'), JSON.stringify(defaultUserSettings, null, 2));

const extensionTestsEnv = { TEST_WORKSPACE: workspace.dir };
for (const [k, v] of Object.entries(process.env)) if (k.startsWith('AZURITE_TEST_')) extensionTestsEnv[k] = v;

let code = 0;
try {
  await runTests({
    version: process.env.VSCODE_TEST_VERSION || 'stable',
    vscodeExecutablePath: process.env.VSCODE_EXECUTABLE || undefined,
    cachePath: process.env.VSCODE_TEST_CACHE || path.join(repoRoot, '.vscode-test'),
    extensionDevelopmentPath: path.resolve(opts.extension),
    extensionTestsPath: path.resolve(opts.tests),
    extensionTestsEnv,
    launchArgs: [
      workspace.dir,
      `--user-data-dir=${userData.dir}`,
      '--disable-extensions', // other installed extensions; the one under development still loads
      '--disable-workspace-trust',
      '--skip-welcome',
      '--skip-release-notes',
    ],
  }); // resolves 0; rejects when VS Code exits non-zero (a failing test) or cannot be obtained
} catch (err) {
  console.error(`[runElectron] ${err?.message ?? err}`);
  code = 1;
} finally {
  workspace.remove();
  userData.remove();
}
process.exit(code);
