#!/usr/bin/env node
// Runs the integration suite inside a real VS Code extension host: code-server + headless Chromium.
// Builds nothing: expects the extension's `main` (dist/extension.js) and the compiled tests.
//
//   node test/harness/runIntegration.mjs [--extension DIR] [--tests FILE] [--timeout MS] [--verbose]
//
// Exit code: the one VS Code reports for the test run (0 = all passed), 1 on any harness failure.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { launchBrowser, locateTools, makeTempDir, repoRoot, startCodeServer } from './codeServer.mjs';

const { values: opts } = parseArgs({
  options: {
    extension: { type: 'string', default: repoRoot },
    tests: { type: 'string', default: path.join(repoRoot, 'out', 'test', 'integration', 'index.js') },
    timeout: { type: 'string', default: String(10 * 60_000) },
    verbose: { type: 'boolean', default: !!process.env.HARNESS_VERBOSE },
  },
});
const extensionPath = path.resolve(opts.extension);
const testsPath = path.resolve(opts.tests);
const timeoutMs = Number(opts.timeout);
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const note = (msg) => process.stderr.write(`[harness ${elapsed()}] ${msg}\n`);

function preflight() {
  const pkgFile = path.join(extensionPath, 'package.json');
  if (!fs.existsSync(pkgFile)) return `No package.json in ${extensionPath}`;
  const main = JSON.parse(fs.readFileSync(pkgFile, 'utf8')).main;
  if (main && !fs.existsSync(path.resolve(extensionPath, main)) && !fs.existsSync(path.resolve(extensionPath, `${main}.js`))) {
    return `The extension's main ${path.resolve(extensionPath, main)} does not exist (build it first)`;
  }
  if (!fs.existsSync(testsPath)) return `The tests entry ${testsPath} does not exist (compile the tests first)`;
  return undefined;
}

async function main() {
  const problem = preflight();
  if (problem) {
    note(problem);
    return 1;
  }
  await locateTools(); // may install once (minutes); not counted in the run timeout

  const ws = makeTempDir('storage-emulators-ws-');
  const workspace = ws.dir;
  let server;
  let browser;
  let timer;
  try {
    const timedOut = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Timed out after ${timeoutMs} ms waiting for the integration tests to report an exit code (codeAutomationExit)`)),
        timeoutMs,
      );
    });
    const run = async () => {
      server = await startCodeServer({ workspaceFolder: workspace, verbose: opts.verbose });
      note(`code-server healthy at ${server.origin}`);
      browser = await launchBrowser({ origin: server.origin });
      const page = await browser.context.newPage();

      let reportExit;
      const exitCode = new Promise((resolve) => (reportExit = resolve));
      await page.exposeFunction('codeAutomationExit', (code) => reportExit(Number.isInteger(code) ? code : 1));
      // The workbench's log, including the extension host's console output (so mocha's reporter).
      await page.exposeFunction('codeAutomationLog', (_level, message) => process.stdout.write(`${message}\n`));
      if (opts.verbose) page.on('console', (m) => process.stderr.write(`[browser ${m.type()}] ${m.text()}\n`));
      const pageFailed = new Promise((_, reject) => {
        page.on('crash', () => reject(new Error('The workbench page crashed')));
        page.on('close', () => reject(new Error('The workbench page closed before the tests reported an exit code')));
      });

      const extensionEnvironment = { TEST_WORKSPACE: workspace };
      for (const [k, v] of Object.entries(process.env)) if (k.startsWith('AZURITE_TEST_')) extensionEnvironment[k] = v;
      const url = server.workbenchUrl({ extensionDevelopmentPath: extensionPath, extensionTestsPath: testsPath, extensionEnvironment });
      note(`opening the workbench with the extension ${extensionPath} and tests ${testsPath}`);
      await page.goto(url);
      note('workbench page loaded; waiting for the tests');
      const code = await Promise.race([exitCode, pageFailed]);
      note(`tests reported exit code ${code}`);
      return code;
    };
    return await Promise.race([run(), timedOut]);
  } catch (err) {
    note(`FAILED: ${err.message}`);
    if (server && !opts.verbose) note(`last code-server output:\n${server.output().split('\n').slice(-30).join('\n')}`);
    return 1;
  } finally {
    clearTimeout(timer);
    await Promise.all([
      browser?.close().catch((e) => note(`closing the browser: ${e.message}`)),
      server?.stop().catch((e) => note(`stopping code-server: ${e.message}`)),
    ]);
    ws.remove();
    note('stopped code-server and the browser');
  }
}

// exit() (not exitCode): a run cut short by the timeout may still hold handles; the exit hook kills what is left.
process.exit(await main());
