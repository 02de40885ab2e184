// The VS Code rows of the benchmark, in a real VS Code (code-server, Node extension host) driven
// by headless Chromium through test/harness: activate() wall time as the extension logs it
// ("Activated in N ms" in the Azurite output channel, the `activationMs` of its API), VS Code's own
// timings of the activation from the Running Extensions view when it can be read, and click →
// serving: a click on the Blob status bar item until the blob port answers HTTP (fresh window, so
// the engine has not been used yet). Needs dist/extension.js.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort, launchBrowser, makeTempDir, repoRoot, startCodeServer, waitFor } from '../test/harness/codeServer.mjs';

const BLOB_ITEM = '#workbench\\.parts\\.statusbar .statusbar-item[id="storage-emulators.storage-emulators.azurite.blob"]';

function httpStatus(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: 2_000 }, (res) => { res.resume(); resolve(res.statusCode); });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', reject);
  });
}

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

/** The first number captured by `re` in any log file under `dir`, or undefined. */
function findInLogs(dir, re) {
  for (const f of logFiles(dir)) {
    const m = re.exec(fs.readFileSync(f, 'utf8'));
    if (m) return Number(m[1]);
  }
  return undefined;
}

/**
 * VS Code's own activation time of the extension (loading dist/extension.js + activate()), as the
 * "Developer: Show Running Extensions" view shows it ("Activation: 193ms").
 */
async function runningExtensionsActivation(page) {
  await page.keyboard.press('F1');
  await page.keyboard.type('Developer: Show Running Extensions');
  await page.keyboard.press('Enter');
  const editor = page.locator('.runtime-extensions-editor');
  return waitFor('our row in the Running Extensions view', async () => {
    const text = (await editor.allInnerTexts()).join('\n');
    const m = /(?:storage-emulators\.storage-emulators|Storage Emulators)[^\n]*\n[^\n]*\n[^\n]*\n(?:Startup )?Activation: ([\d.]+)ms/.exec(text);
    return m ? Number(m[1]) : undefined;
  }, { timeoutMs: 15_000, intervalMs: 200 });
}

/** One fresh window: activation, then one click on Blob. */
async function oneRun(log) {
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
    browser = await launchBrowser({ origin: server.origin });
    const page = await browser.context.newPage();
    await page.goto(server.url);
    const activationMs = await waitFor('"Activated in N ms" in the Azurite output log',
      () => findInLogs(serverDir, /Activated in ([\d.]+) ms/), { timeoutMs: 90_000, intervalMs: 100 });
    const item = page.locator(BLOB_ITEM);
    await waitFor('the Blob status bar item', async () => (await item.isVisible()) && (await item.innerText()).trim() === 'Blob',
      { timeoutMs: 60_000, intervalMs: 50 });
    const clicked = performance.now();
    await item.locator('a.statusbar-item-label').click();
    await waitFor(`HTTP from the blob port ${port}`, () => httpStatus(`http://127.0.0.1:${port}/devstoreaccount1?comp=list`),
      { timeoutMs: 30_000, intervalMs: 5 });
    const clickToServingMs = performance.now() - clicked;
    const engineLoadMs = await waitFor('engine load line', () => findInLogs(serverDir, /[Ee]ngine loaded in ([\d.]+) ms/), { timeoutMs: 2_000, intervalMs: 100 })
      .catch(() => undefined);
    const vscodeActivationMs = await runningExtensionsActivation(page).catch((err) => {
      log(`  (could not read the Running Extensions view: ${err.message})`);
      return undefined;
    });
    const result = { activationMs, vscodeActivationMs, clickToServingMs: Math.round(clickToServingMs), engineLoadMs };
    log(`  vscode run: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await browser?.close().catch(() => {});
    await server?.stop().catch(() => {});
    workspace.remove();
  }
}

/** `runs` fresh windows, one after the other. */
export async function measureVsCode(runs, log = () => {}) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await oneRun(log));
  return results;
}
