// The VS Code rows of the benchmark, in a real VS Code (code-server, Node extension host) driven
// by headless Chromium through test/harness: activate() wall time as the extension logs it
// ("Activated in N ms" in the Azurite output channel, the `activationMs` of its API), VS Code's own
// timings of the activation from the Running Extensions view when it can be read, and click →
// serving: from the click on the Blob status bar item (the page's own mousedown time, so Playwright's
// checks before clicking are not counted) until the blob port answers HTTP, in a fresh window, so
// the engine has not been loaded yet. Windows alternate between a cold engine code cache (a new
// user-data folder: the first start ever) and a warm one (the code-cache folder of the previous
// window copied into the new user-data folder before the window opens: every later window).
// Needs dist/extension.js.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, httpStatus, launchBrowser, makeTempDir, repoRoot, startCodeServer, waitFor } from '../test/harness/codeServer.mjs';

const EXTENSION_ID = 'storage-emulators.storage-emulators';
const BLOB_ITEM = '#workbench\\.parts\\.statusbar .statusbar-item[id="storage-emulators.storage-emulators.azurite.blob"]';

/** Every *.log file under `dir`. */
function logFiles(dir) {
  const out = [];
  const walk = (d) => {
    let entries;
    try { entries = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.log')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The first text captured by `re` in any log file under `dir`, or undefined. */
function findInLogsText(dir, re) {
  for (const f of logFiles(dir)) {
    const m = re.exec(fs.readFileSync(f, 'utf8'));
    if (m) return m[1];
  }
  return undefined;
}

/** The first number captured by `re` in any log file under `dir`, or undefined. */
function findInLogs(dir, re) {
  const text = findInLogsText(dir, re);
  return text === undefined ? undefined : Number(text);
}

/**
 * VS Code's own activation time of the extension (loading dist/extension.js + activate()), as the
 * "Developer: Show Running Extensions" view shows it ("Activation: 193ms").
 */
async function runningExtensionsActivation(page, name = /(?:storage-emulators\.storage-emulators|Storage Emulators)/) {
  const editor = page.locator('.runtime-extensions-editor');
  // A window that has just opened can drop the keys typed before the command palette has shown: wait
  // for the palette's input, and open the view again if it does not show (at most 3 tries).
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press('F1');
      await page.locator('.quick-input-widget input').first().waitFor({ state: 'visible', timeout: 5_000 });
      await page.keyboard.type('Developer: Show Running Extensions');
      await page.keyboard.press('Enter');
      await editor.waitFor({ state: 'visible', timeout: 5_000 });
      break;
    } catch (err) {
      if (attempt === 3) throw err;
      await page.keyboard.press('Escape');
    }
  }
  return waitFor('the extension\'s row in the Running Extensions view', async () => {
    const text = (await editor.allInnerTexts()).join('\n');
    const m = new RegExp(`${name.source}[^\\n]*\\n[^\\n]*\\n[^\\n]*\\n(?:Startup )?Activation: ([\\d.]+)ms`).exec(text);
    return m ? Number(m[1]) : undefined;
  }, { timeoutMs: 15_000, intervalMs: 200 });
}

/**
 * Clicks a status bar item and times, from the page's own mousedown (so Playwright's checks before
 * the click are not counted), until the blob port answers HTTP.
 * @returns `ms`: mousedown → answering; `servedAt`: when it answered (Date.now())
 */
async function clickToServing(page, item, port) {
  await page.evaluate(() => document.addEventListener('mousedown', () => { window.benchMouseDownAt = Date.now(); }, { capture: true, once: true }));
  await item.locator('a.statusbar-item-label').click();
  await waitFor(`HTTP from the blob port ${port}`, () => httpStatus(`http://127.0.0.1:${port}/devstoreaccount1?comp=list`),
    { timeoutMs: 30_000, intervalMs: 5 });
  const servedAt = Date.now();
  return { ms: servedAt - await page.evaluate(() => window.benchMouseDownAt), servedAt };
}

/**
 * Ends one measured window: closes the browser and stops code-server (each if it got that far,
 * errors ignored), then removes the window's temporary folders (`makeTempDir` results).
 */
async function closeWindow(browser, server, ...temps) {
  await browser?.close().catch(() => {});
  await server?.stop().catch(() => {});
  for (const t of temps) t.remove();
}

/** The extension's code-cache folder under a code-server user-data folder. */
const codeCacheDir = (userDataDir) => path.join(userDataDir, 'User', 'globalStorage', EXTENSION_ID, 'code-cache');

/**
 * One fresh window: activation, then one click on Blob. `seedCache`: a folder whose files are
 * copied into the window's code-cache folder before it opens; `keepCache`: a folder the window's
 * code-cache is copied to before the server stops.
 */
async function oneRun(log, { seedCache, keepCache } = {}) {
  const port = await freePort();
  const workspace = makeTempDir('bench-vscode-ws-');
  let server;
  let browser;
  try {
    server = await startCodeServer({
      workspaceFolder: workspace.dir,
      extensionDevelopmentPath: repoRoot,
      userSettings: { 'azurite.blobPort': port, 'azurite.queuePort': 0, 'azurite.tablePort': 0, 'azurite.inMemoryPersistence': true },
    });
    const serverDir = path.dirname(server.userDataDir);
    if (seedCache !== undefined) fs.cpSync(seedCache, codeCacheDir(server.userDataDir), { recursive: true });
    browser = await launchBrowser({ origin: server.origin });
    const page = await browser.context.newPage();
    const openedAt = Date.now();
    await page.goto(server.url);
    const activationMs = await waitFor('"Activated in N ms" in the Azurite output log',
      () => findInLogs(serverDir, /Activated in ([\d.]+) ms/), { timeoutMs: 90_000, intervalMs: 100 });
    const item = page.locator(BLOB_ITEM);
    await waitFor('the Blob status bar item', async () => (await item.isVisible()) && (await item.innerText()).trim() === 'Blob',
      { timeoutMs: 60_000, intervalMs: 50 });
    const click = await clickToServing(page, item, port);
    const clickToServingMs = click.ms;
    const openToServingMs = click.servedAt - openedAt;
    const engineLoadMs = await waitFor('engine load line', () => findInLogs(serverDir, /[Ee]ngine loaded in ([\d.]+) ms/), { timeoutMs: 2_000, intervalMs: 100 })
      .catch(() => undefined);
    const vscodeActivationMs = await runningExtensionsActivation(page).catch((err) => {
      log(`  (could not read the Running Extensions view: ${err.message})`);
      return undefined;
    });
    const codeCache = findInLogsText(serverDir, /Engine code cache: ([a-z]+)/);
    const extensionCodeCache = findInLogsText(serverDir, /Extension code cache: ([a-z]+)/);
    // Loading dist/main.js through that cache, before activate() (the "Activated in" line gives it).
    const codeLoadMs = findInLogs(serverDir, /after loading the extension's code in ([\d.]+) ms/);
    if (keepCache !== undefined) {
      // Both caches: the engine's (written after the start) and the extension's own (after activation).
      await waitFor('the engine\'s and the extension\'s code cache files', () => fs.existsSync(codeCacheDir(server.userDataDir))
        && ['engine-', 'main-'].every((prefix) => fs.readdirSync(codeCacheDir(server.userDataDir)).some((f) => f.startsWith(prefix) && f.endsWith('.cache'))),
        { timeoutMs: 10_000, intervalMs: 50 });
      fs.cpSync(codeCacheDir(server.userDataDir), keepCache, { recursive: true });
    }
    const result = { activationMs, codeLoadMs, vscodeActivationMs, clickToServingMs, openToServingMs, engineLoadMs, codeCache, extensionCodeCache };
    log(`  vscode run: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await closeWindow(browser, server, workspace);
  }
}

/**
 * `runs` fresh windows, one after the other, alternating a cold code cache (even runs) and a warm
 * one seeded from the run before (odd runs). Each result has `codeCache`: what the extension logged
 * ("used", "none", "out", "could").
 */
export async function measureVsCode(runs, log = () => {}) {
  const results = [];
  const kept = makeTempDir('bench-code-cache-');
  try {
    for (let i = 0; i < runs; i++) {
      const cold = i % 2 === 0;
      if (cold) fs.rmSync(kept.dir, { recursive: true, force: true });
      results.push(await oneRun(log, cold ? { keepCache: kept.dir } : { seedCache: kept.dir }));
    }
  } finally {
    kept.remove();
  }
  return results;
}

/**
 * One fresh window of a no-op extension: our package.json and media (the same manifest, activation
 * events and contributions) with a `dist/extension.js` whose `activate()` only writes the file
 * `activated` into the extension's folder, loaded as ours is (`extensionDevelopmentPath`). What VS
 * Code's activation figure is for an extension whose module and `activate()` cost next to nothing:
 * the part of our figure that our code does not decide.
 */
async function oneNoOpRun(log) {
  const folder = makeTempDir('bench-noop-ext-');
  const workspace = makeTempDir('bench-noop-ws-');
  let server;
  let browser;
  try {
    fs.copyFileSync(path.join(repoRoot, 'package.json'), path.join(folder.dir, 'package.json'));
    fs.cpSync(path.join(repoRoot, 'media'), path.join(folder.dir, 'media'), { recursive: true });
    fs.mkdirSync(path.join(folder.dir, 'dist'));
    fs.writeFileSync(path.join(folder.dir, 'dist', 'extension.js'),
      "exports.activate = () => { require('fs').writeFileSync(require('path').join(__dirname, '..', 'activated'), ''); };\nexports.deactivate = () => {};\n");
    server = await startCodeServer({ workspaceFolder: workspace.dir, extensionDevelopmentPath: folder.dir });
    browser = await launchBrowser({ origin: server.origin });
    const page = await browser.context.newPage();
    await page.goto(server.url);
    await waitFor('the no-op extension\'s activation', () => fs.existsSync(path.join(folder.dir, 'activated')) || undefined,
      { timeoutMs: 90_000, intervalMs: 100 });
    const vscodeActivationMs = await runningExtensionsActivation(page).catch((err) => {
      log(`  (could not read the no-op extension's row in the Running Extensions view: ${err.message})`);
      return undefined;
    });
    log(`  no-op run: ${JSON.stringify({ vscodeActivationMs })}`);
    return { vscodeActivationMs };
  } finally {
    await closeWindow(browser, server, workspace, folder);
  }
}

/** `runs` fresh windows of the no-op extension (see oneNoOpRun). */
export async function measureNoOp(runs, log = () => {}) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await oneNoOpRun(log));
  return results;
}

/** The official Azurite extension, as the comparison target: its npm package is the extension. */
const OFFICIAL_VERSION = '3.37.0';

/**
 * Installs `azurite@3.37.0` from npm once into a cache folder (the package is the Azurite VS Code
 * extension: its `main` is the extension entry) and returns the folder holding its node_modules.
 */
function officialPackage(log) {
  const dir = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'storage-emulators-vscode', `azurite-extension-${OFFICIAL_VERSION}`);
  if (!fs.existsSync(path.join(dir, '.complete'))) {
    log(`bench: installing azurite@${OFFICIAL_VERSION} (the official extension) into ${dir}, once`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), '{"private":true}');
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `azurite@${OFFICIAL_VERSION}`], { cwd: dir, stdio: 'pipe' });
    fs.writeFileSync(path.join(dir, '.complete'), '');
  }
  return dir;
}

/**
 * One fresh window with only the official extension (unpacked into the extensions folder, its
 * dependencies linked): its activation as VS Code reports it, and a click on its Blob item
 * ("[Azurite Blob Service]") as soon as the item appears, timed from the page's own mousedown to the
 * blob port answering HTTP.
 */
async function oneOfficialRun(log, packageDir) {
  const port = await freePort();
  const workspace = makeTempDir('bench-official-ws-');
  const extensions = makeTempDir('bench-official-ext-');
  let server;
  let browser;
  try {
    const target = path.join(extensions.dir, `azurite.azurite-${OFFICIAL_VERSION}`);
    fs.cpSync(path.join(packageDir, 'node_modules', 'azurite'), target, { recursive: true });
    fs.symlinkSync(path.join(packageDir, 'node_modules'), path.join(target, 'node_modules'));
    server = await startCodeServer({
      workspaceFolder: workspace.dir,
      extensionsDir: extensions.dir,
      userSettings: { 'azurite.blobPort': port, 'azurite.queuePort': await freePort(), 'azurite.tablePort': await freePort(), 'azurite.inMemoryPersistence': true, 'azurite.location': workspace.dir },
    });
    browser = await launchBrowser({ origin: server.origin });
    const page = await browser.context.newPage();
    const openedAt = Date.now();
    await page.goto(server.url);
    const item = page.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: '[Azurite Blob Service]' }).first();
    await waitFor('the official Blob status bar item', async () => (await item.isVisible()) && (await item.innerText()).trim() === '[Azurite Blob Service]',
      { timeoutMs: 90_000, intervalMs: 50 });
    const click = await clickToServing(page, item, port);
    const clickToServingMs = click.ms;
    const openToServingMs = click.servedAt - openedAt;
    const vscodeActivationMs = await runningExtensionsActivation(page, /Azurite(?! Blob)/).catch((err) => {
      log(`  (could not read the official extension's row in the Running Extensions view: ${err.message})`);
      return undefined;
    });
    const result = { clickToServingMs, openToServingMs, vscodeActivationMs };
    log(`  official run: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await closeWindow(browser, server, workspace, extensions);
  }
}

/** `runs` fresh windows of the official Azurite extension 3.37.0. */
export async function measureOfficial(runs, log = () => {}) {
  const packageDir = officialPackage(log);
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await oneOfficialRun(log, packageDir));
  return results;
}
