// UI tier: the memory usage view (a webview) in a real VS Code (code-server) driven by headless
// Chromium: opened from the command palette, it shows the figures and the chart, and refreshes
// live while data changes. E2E_SCREENSHOT=1 writes media/screenshot-memory.png.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import os from 'node:os';
import { BlobServiceClient } from '@azure/storage-blob';
import { launchBrowser, makeTempDir, repoRoot, startCodeServer, waitFor } from '../harness/codeServer.mjs';
import { devConnectionString, statusItem } from '../harness/devStorage.mjs';

const KiB = 1024;

/** The frame of the webview whose document has the chart (webviews are nested iframes). */
async function chartFrame(page) {
  for (const frame of page.frames()) {
    if (await frame.locator('#usage-chart').count().catch(() => 0)) return frame;
  }
  return undefined;
}

describe('memory usage view (code-server + Chromium)', { timeout: 240_000 }, () => {
  let server;
  let browser;
  let page;
  let workspace;
  before(async () => {
    workspace = makeTempDir('storage-emulators-e2e-mem-');
    server = await startCodeServer({
      workspaceFolder: workspace.dir,
      extensionDevelopmentPath: repoRoot,
      userSettings: { 'azurite.blobPort': 0, 'azurite.queuePort': 0, 'azurite.tablePort': 0, 'azurite.inMemoryPersistence': true, 'azurite.extentMemoryLimit': 1 },
    });
    browser = await launchBrowser({ origin: server.origin });
    page = await browser.context.newPage();
    await page.goto(server.url);
  });
  after(async () => {
    try { await browser?.close(); } finally { try { await server?.stop(); } finally { workspace?.remove(); } }
  });

  it('opens from the palette, shows use against the limit, and refreshes live', async () => {
    const item = page.locator(statusItem('blob'));
    await item.waitFor({ timeout: 60_000 });
    await item.locator('a.statusbar-item-label').click();
    const text = await waitFor('the blob item to show its port', async () => /^Blob :(\d+)$/.exec((await item.innerText()).trim()), { timeoutMs: 30_000 });
    const port = Number(text[1]);
    const cs = devConnectionString({ blob: port });
    const container = BlobServiceClient.fromConnectionString(cs).getContainerClient('view');
    await container.create();
    for (let i = 0; i < 3; i++) await container.getBlockBlobClient(`b${i}`).uploadData(Buffer.alloc(200 * KiB, i));

    // The command palette, as a person would.
    await page.keyboard.press('F1');
    await page.keyboard.type('Azurite: Show Memory Usage');
    await waitFor('the command in the palette', async () => (await page.locator('.quick-input-list .monaco-list-row').first().innerText()).includes('Show Memory Usage'), { timeoutMs: 20_000 });
    await page.keyboard.press('Enter');

    const frame = await waitFor('the webview with the chart', () => chartFrame(page), { timeoutMs: 30_000 });
    const headline = await frame.locator('#headline').innerText();
    assert.equal(headline, 'In-memory extents: 0.6 MB / 1 MB (58.6%)');
    assert.equal(await frame.locator('#blob-bytes').innerText(), '600 KB (614,400 bytes)');
    assert.equal(await frame.locator('#usage-chart').getAttribute('data-used-bytes'), String(600 * KiB));
    // Theme colours resolve (the stroke comes from --vscode-charts-blue).
    const stroke = await frame.locator('#usage-chart .used').evaluate((el) => getComputedStyle(el).stroke);
    assert.match(stroke, /^rgb/);

    // Live: another blob, and the open view follows without being reopened, and without a reload
    // of its page: a mark on the document stays, and so does a selection of a figure that did not change.
    await frame.evaluate(() => {
      document.documentElement.dataset.mark = 'same page';
      window.getSelection().selectAllChildren(document.getElementById('limit-bytes'));
    });
    const selected = await frame.evaluate(() => window.getSelection().toString());
    assert.match(selected, /^1 MB \(1,048,576 bytes\)/);
    await container.getBlockBlobClient('b3').uploadData(Buffer.alloc(200 * KiB, 3));
    const updated = await waitFor('the view to show 800 KiB', async () => {
      const f = await chartFrame(page);
      return f && (await f.locator('#usage-chart').getAttribute('data-used-bytes')) === String(800 * KiB) ? f : undefined;
    }, { timeoutMs: 15_000 });
    assert.equal(await updated.locator('#blob-bytes').innerText(), '800 KB (819,200 bytes)');
    assert.equal(await updated.evaluate(() => document.documentElement.dataset.mark), 'same page', 'the page was not loaded again');
    assert.equal(await updated.evaluate(() => window.getSelection().toString()), selected, 'the selection stays');
    const shot = process.env.E2E_SCREENSHOT === '1' ? path.join(repoRoot, 'media', 'screenshot-memory.png') : path.join(os.tmpdir(), 'storage-emulators-memory-view.png');
    await page.screenshot({ path: shot });
  });
});
