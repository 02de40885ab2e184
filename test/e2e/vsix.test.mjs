// The packaged .vsix (built by `npm run package`) installs with code-server's
// `--install-extension`, the same CLI as `code --install-extension`, holds only what runs, and the
// installed copy (not the repository's dist/) starts a service from its status bar item and loads
// its engine through the code cache.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort, httpStatus, launchBrowser, locateTools, makeTempDir, repoRoot, startCodeServer, waitFor } from '../harness/codeServer.mjs';
import { statusItem } from '../harness/devStorage.mjs';

const vsix = path.join(repoRoot, 'dist', 'storage-emulators.vsix');

test('the .vsix installs with --install-extension, contains the bundle, not node_modules, and the installed copy serves blobs', { timeout: 240_000 }, async () => {
  assert.ok(fs.existsSync(vsix), `${vsix} is missing: run npm run package first`);
  const tools = await locateTools();
  const temp = makeTempDir('vsix-install-');
  let server;
  let browser;
  try {
    const extensionsDir = path.join(temp.dir, 'extensions');
    const home = path.join(temp.dir, 'home');
    const out = execFileSync(tools.node24, [tools.codeServerEntry, '--extensions-dir', extensionsDir, '--user-data-dir', path.join(temp.dir, 'user-data'), '--install-extension', vsix], {
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local/share'), XDG_CACHE_HOME: path.join(home, '.cache'), EXTENSIONS_GALLERY: '{}' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.match(out, /was successfully installed/);
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
    const installed = path.join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
    for (const file of ['extension.js', 'main.js', 'engine.js', 'engineProcess.js', 'checksumWorker.js', 'data.js']) assert.ok(fs.existsSync(path.join(installed, 'dist', file)), `no dist/${file} in ${installed}`);
    assert.ok(!fs.existsSync(path.join(installed, 'node_modules')), 'node_modules must not be packaged');
    const sizeMiB = fs.statSync(vsix).size / 1024 / 1024;
    console.log(`vsix: ${sizeMiB.toFixed(2)} MiB`);

    // The installed copy, in a window without extensionDevelopmentPath.
    const port = await freePort();
    const workspace = path.join(temp.dir, 'workspace');
    fs.mkdirSync(workspace);
    server = await startCodeServer({
      extensionsDir,
      workspaceFolder: workspace,
      userSettings: { 'azurite.blobPort': port, 'azurite.queuePort': 0, 'azurite.tablePort': 0, 'azurite.inMemoryPersistence': true },
    });
    browser = await launchBrowser({ origin: server.origin });
    const page = await browser.context.newPage();
    await page.goto(server.workbenchUrl());
    const item = page.locator(statusItem('blob'));
    await waitFor('the Blob status bar item of the installed extension', async () => (await item.isVisible()) && (await item.innerText()).trim() === 'Blob',
      { timeoutMs: 90_000, intervalMs: 100 });
    await item.locator('a.statusbar-item-label').click();
    assert.equal(await waitFor(`HTTP from the blob port ${port}`, () => httpStatus(`http://127.0.0.1:${port}/devstoreaccount1?comp=list`).catch(() => undefined),
      { timeoutMs: 30_000, intervalMs: 20 }), 403, 'azurite answers an unsigned list with 403');
    const cacheDir = path.join(server.userDataDir, 'User', 'globalStorage', `${pkg.publisher}.${pkg.name}`, 'code-cache');
    await waitFor(`the engine code cache in ${cacheDir}`, () => fs.existsSync(cacheDir) && fs.readdirSync(cacheDir).some((f) => /^engine-[0-9a-f]{8}-[0-9a-f]{16}\.cache$/.test(f)),
      { timeoutMs: 15_000, intervalMs: 100 });
  } finally {
    await browser?.close().catch(() => {});
    await server?.stop().catch(() => {});
    temp.remove();
  }
});
