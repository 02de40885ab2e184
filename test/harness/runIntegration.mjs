#!/usr/bin/env node
// Runs the integration suite inside a real VS Code extension host: code-server + headless Chromium.
// Builds nothing: expects the extension's `main` (dist/extension.js) and the compiled tests.
//
//   node test/harness/runIntegration.mjs [--extension DIR] [--tests FILE] [--timeout MS] [--verbose]
//       [--suite NAME] [--user-settings JSON] [--install-folder DIR] [--hold-port-as-azurite SETTING]
//
// --suite NAME runs test/integration/suites/NAME only (AZURITE_TEST_SUITE in the extension host);
// --user-settings adds user settings before VS Code starts; --install-folder copies an unpacked
// extension into the extensions folder (e.g. a stand-in for the Azurite extension);
// --hold-port-as-azurite SETTING answers on a free port with `Server: Azurite-…` and sets SETTING
// (e.g. azurite.tablePort) to that port, as if another Azurite served it; --multi-root opens a
// .code-workspace of two folders (first, second) instead of one folder.
//
// --timeout MS (10 min by default) ends a run that has gone silent: no line of the workbench log (which
// carries mocha's output) for that long. Each line starts the wait again, so a run that goes on
// reporting may take as long as it needs (a slow machine's), while a hung one still ends.
//
// Exit code: the one VS Code reports for the test run (0 = all passed), 1 on any harness failure.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { launchBrowser, locateTools, makeTempDir, repoRoot, startCodeServer } from './codeServer.mjs';

const { values: opts } = parseArgs({
  options: {
    extension: { type: 'string', default: repoRoot },
    tests: { type: 'string', default: path.join(repoRoot, 'out', 'test', 'integration', 'index.js') },
    timeout: { type: 'string', default: String(10 * 60_000) },
    verbose: { type: 'boolean', default: !!process.env.HARNESS_VERBOSE },
    suite: { type: 'string' },
    'user-settings': { type: 'string', default: '{}' },
    'install-folder': { type: 'string' },
    'hold-port-as-azurite': { type: 'string' },
    'multi-root': { type: 'boolean', default: false },
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
  let holder;
  let timer;
  try {
    let silent;
    const timedOut = new Promise((_, reject) => (silent = reject));
    // Started now (code-server and the workbench must come up too), and again at each line of output.
    const heard = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => silent(new Error(`Timed out: no line of output for ${timeoutMs} ms while waiting for the integration tests to report an exit code (codeAutomationExit)`)),
        timeoutMs,
      );
    };
    heard();
    let opened = workspace;
    if (opts['multi-root']) {
      for (const name of ['first', 'second']) fs.mkdirSync(path.join(workspace, name));
      opened = path.join(workspace, 'two.code-workspace');
      fs.writeFileSync(opened, JSON.stringify({ folders: [{ path: 'first' }, { path: 'second' }] }));
    }
    const extensionEnvironment = { TEST_WORKSPACE: workspace };
    for (const [k, v] of Object.entries(process.env)) if (k.startsWith('AZURITE_TEST_')) extensionEnvironment[k] = v;
    if (opts.suite) extensionEnvironment.AZURITE_TEST_SUITE = opts.suite;
    const run = async () => {
      const userSettings = JSON.parse(opts['user-settings']);
      if (opts['hold-port-as-azurite']) {
        holder = http.createServer((_req, res) => { res.setHeader('Server', 'Azurite-Table/3.37.0'); res.end(); });
        await new Promise((r) => holder.listen(0, '127.0.0.1', r));
        userSettings[opts['hold-port-as-azurite']] = holder.address().port;
        extensionEnvironment.AZURITE_TEST_HELD_PORT = String(holder.address().port);
      }
      let extensionsDir;
      if (opts['install-folder']) {
        extensionsDir = path.join(workspace, '..', `${path.basename(workspace)}-extensions`);
        const pkg = JSON.parse(fs.readFileSync(path.join(opts['install-folder'], 'package.json'), 'utf8'));
        fs.cpSync(opts['install-folder'], path.join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`.toLowerCase()), { recursive: true });
      }
      server = await startCodeServer({ workspaceFolder: opened, verbose: opts.verbose, userSettings, extensionsDir });
      note(`code-server healthy at ${server.origin}`);
      browser = await launchBrowser({ origin: server.origin });
      const page = await browser.context.newPage();

      let reportExit;
      const exitCode = new Promise((resolve) => (reportExit = resolve));
      await page.exposeFunction('codeAutomationExit', (code) => reportExit(Number.isInteger(code) ? code : 1));
      // The workbench's log, including the extension host's console output (so mocha's reporter).
      await page.exposeFunction('codeAutomationLog', (_level, message) => {
        heard();
        process.stdout.write(`${message}\n`);
      });
      if (opts.verbose) page.on('console', (m) => process.stderr.write(`[browser ${m.type()}] ${m.text()}\n`));
      const pageFailed = new Promise((_, reject) => {
        page.on('crash', () => reject(new Error('The workbench page crashed')));
        page.on('close', () => reject(new Error('The workbench page closed before the tests reported an exit code')));
      });

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
    holder?.close();
    ws.remove();
    if (opts['install-folder']) fs.rmSync(path.join(workspace, '..', `${path.basename(workspace)}-extensions`), { recursive: true, force: true });
    note('stopped code-server and the browser');
  }
}

// exit() (not exitCode): a run cut short by the timeout may still hold handles; the exit hook kills what is left.
process.exit(await main());
