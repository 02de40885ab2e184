// UI (e2e) tier: the Storage view in a real VS Code (code-server) driven by headless Chromium: the
// welcome view's Start button, a blob written by an SDK client appearing in the expanded tree with no
// Refresh, opening it in an editor, and deleting it through the context menu and its confirmation;
// a Delete confirmed after azurite.attach changed under its question deletes nothing.
// Run: `node esbuild.mjs --production && node --test test/e2e/`.
// Harness facts: test/harness/README.md.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { freePort, waitFor } from '../harness/codeServer.mjs';
import { chooseFromContextMenu, e2eSession, notification } from '../harness/e2eSession.mjs';
import { devConnectionString, serviceAnswering, statusItem } from '../harness/devStorage.mjs';

/** The view container's activity bar entry (package.json `viewsContainers.activitybar`, title "Azurite"). */
const ACTIVITY = '.part.activitybar .action-item a.action-label[aria-label^="Azurite"], .part.activitybar .action-item[aria-label^="Azurite"]';
const VIEW = '[id="workbench.view.extension.azurite"]';

describe('Storage view (code-server + Chromium)', { timeout: 240_000 }, () => {
  const session = e2eSession('view');
  const step = session.step;
  let port;
  let page;
  let workspace;

  /** A row of the Storage view's tree by its label. */
  const row = (label) => page.locator(`${VIEW} .monaco-list-row`).filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) });

  /**
   * Clicks a row of the tree until `done()` holds. A click that lands while VS Code redraws the rows
   * (a refresh the engine's write notice set off) may only select the row, so this waits up to 5 s
   * after each click and clicks again, up to 4 clicks, only while `done()` still fails.
   */
  const clickUntil = async (label, what, done) => {
    for (let attempt = 1; ; attempt++) {
      await row(label).click();
      try {
        return await waitFor(what, done, { timeoutMs: 5_000, intervalMs: 50 });
      } catch (error) {
        if (attempt === 4) throw error;
      }
    }
  };
  /** Expands a row; a click on an expanded row would collapse it, so an expanded row is left alone. */
  const expand = async (label) => {
    const expanded = async () => (await row(label).getAttribute('aria-expanded', { timeout: 5_000 })) === 'true';
    if (!(await expanded())) await clickUntil(label, `${label} expanded`, expanded);
  };

  before(async () => {
    port = await freePort();
    ({ page, workspace } = await session.open({ 'azurite.blobPort': port, 'azurite.queuePort': 0, 'azurite.tablePort': 0, 'azurite.inMemoryPersistence': true }));
  });

  after(() => session.close());

  step('the Azurite view container shows the welcome view, whose Start button starts the services', async () => {
    const entry = page.locator(ACTIVITY).first();
    await waitFor('the Azurite activity bar entry', () => entry.isVisible(), { timeoutMs: 60_000, intervalMs: 100 });
    await entry.click();
    const start = page.locator(`${VIEW} .welcome-view-content a.monaco-button`, { hasText: 'Start Azurite' });
    await waitFor('the welcome view\'s Start Azurite button', () => start.isVisible(), { timeoutMs: 30_000, intervalMs: 100 });
    await start.click();
    await serviceAnswering('blob', port, { timeoutMs: 30_000 });
    await waitFor('the Blob Containers item', () => row('Blob Containers').isVisible(), { timeoutMs: 15_000, intervalMs: 50 });
  });

  step('a blob an SDK client uploads appears in the expanded container without a Refresh, and opens', async () => {
    const account = BlobServiceClient.fromConnectionString(devConnectionString({ blob: port }));
    const container = account.getContainerClient('e2e-view');
    await expand('Blob Containers');
    await container.create();
    await waitFor('the container item', () => row('e2e-view').isVisible(), { timeoutMs: 15_000, intervalMs: 50 });
    await expand('e2e-view');
    const uploaded = performance.now();
    await container.getBlockBlobClient('hello.txt').uploadData(Buffer.from('hello from the e2e test'), { blobHTTPHeaders: { blobContentType: 'text/plain' } });
    await waitFor('hello.txt in the tree', () => row('hello.txt').isVisible(), { timeoutMs: 10_000, intervalMs: 20 });
    const visibleMs = Math.round(performance.now() - uploaded);
    console.log(`e2e: upload → visible in the Storage view ${visibleMs} ms`);

    // Clicked once the view has settled: the refresh that follows the upload also redraws the
    // container with its bytes, and a click that lands while VS Code redraws the rows may only select.
    await waitFor('the container to show the blob\'s bytes', async () => (await row('e2e-view').innerText().catch(() => '')).includes('23 B'), { timeoutMs: 10_000, intervalMs: 20 });
    const editor = page.locator('.editor-instance .monaco-editor .view-lines');
    await clickUntil('hello.txt', 'the blob in an editor', async () => (await editor.first().innerText().catch(() => '')).replace(/\u00a0/g, ' ').includes('hello from the e2e test'));
    const tab = page.locator('.tabs-container .tab', { hasText: 'hello.txt' });
    assert.ok(await tab.isVisible(), 'an editor tab named hello.txt');
  });

  step('Delete… from the context menu asks first, then the blob is gone', async () => {
    const dialog = page.locator('.monaco-dialog-box');
    await chooseFromContextMenu(page, row('hello.txt'), 'Delete…', async () => (await dialog.isVisible()) && (await dialog.innerText()).includes('Delete blob "hello.txt"?'));
    await dialog.locator('.monaco-button', { hasText: /^Delete$/ }).click();
    await waitFor('hello.txt gone from the tree', async () => !(await row('hello.txt').isVisible()), { timeoutMs: 10_000, intervalMs: 50 });
    const account = BlobServiceClient.fromConnectionString(devConnectionString({ blob: port }));
    assert.equal(await account.getContainerClient('e2e-view').getBlobClient('hello.txt').exists(), false);
  });
  step('a Delete confirmed after azurite.attach changed while its question was open deletes nothing, and says why', async () => {
    const blob = BlobServiceClient.fromConnectionString(devConnectionString({ blob: port })).getContainerClient('e2e-view').getBlockBlobClient('keep.txt');
    await blob.uploadData(Buffer.from('keep'));
    await waitFor('keep.txt in the tree', () => row('keep.txt').isVisible(), { timeoutMs: 10_000, intervalMs: 50 });
    const dialog = page.locator('.monaco-dialog-box');
    await chooseFromContextMenu(page, row('keep.txt'), 'Delete…', async () => (await dialog.isVisible()) && (await dialog.innerText()).includes('Delete blob "keep.txt"?'));
    // Meanwhile the workspace's settings point azurite.attach at another Azurite (a git pull, another
    // window): one that records what it is asked (a blob keep.txt there is not the one the question named).
    const requests = [];
    const other = http.createServer((req, res) => { requests.push(`${req.method} ${req.url}`); res.statusCode = 202; res.end(); });
    await new Promise((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      fs.mkdirSync(path.join(workspace.dir, '.vscode'), { recursive: true });
      fs.writeFileSync(path.join(workspace.dir, '.vscode', 'settings.json'), JSON.stringify({ 'azurite.attach': { blob: `http://127.0.0.1:${other.address().port}` } }));
      await waitFor('the window attached', () => page.locator(statusItem('attach')).isVisible(), { timeoutMs: 30_000, intervalMs: 100 });
      await dialog.locator('.monaco-button', { hasText: /^Delete$/ }).click();
      await notification(page, /nothing was deleted: azurite\.attach changed while the question was open/);
      assert.deepEqual(requests.filter((r) => r.startsWith('DELETE ')), [], 'nothing deleted in the Azurite attached since');
    } finally {
      other.close();
    }
  });
});
