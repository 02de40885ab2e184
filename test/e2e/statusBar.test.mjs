// UI (e2e) tier: the Blob status bar item in a real VS Code (code-server) driven by headless Chromium.
// Run: `node esbuild.mjs && node --test test/e2e/` (Node 20; this file name ends in `.test.mjs`, which is
// what `node --test <dir>` picks up). Needs dist/extension.js; builds nothing itself.
// Env: E2E_SCREENSHOT=1 writes the screenshot to media/screenshot-statusbar.png (default: a temp folder);
// HARNESS_VERBOSE=1 also prints code-server's output. Harness facts: test/harness/README.md.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { freePort, httpStatus, makeTempDir, repoRoot, waitFor } from '../harness/codeServer.mjs';
import { e2eSession } from '../harness/e2eSession.mjs';
import { DEV_ACCOUNT_KEY, statusItem } from '../harness/devStorage.mjs';

const HOVER = '.workbench-hover, .monaco-hover';
const BLOB_BYTES = 300 * 1024; // 307,200 bytes of a 1 MB (1,048,576-byte) limit
const EXPECTED_MEMORY_TEXT = '0.3 MB / 1 MB'; // src/core/memory.ts formatUsage: the use in the limit's unit when >= 0.1 of it

/** 'open' if a TCP connection to 127.0.0.1:port succeeds, 'refused' on ECONNREFUSED; other errors throw. */
function tcpProbe(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(2_000);
    socket.once('connect', () => { socket.destroy(); resolve('open'); });
    socket.once('timeout', () => { socket.destroy(); reject(new Error(`connect to 127.0.0.1:${port} timed out`)); });
    socket.once('error', (err) => (err.code === 'ECONNREFUSED' ? resolve('refused') : reject(err)));
  });
}

/** The item's visible text (codicons are spans without text) and its codicon names. */
async function itemState(item) {
  const text = (await item.innerText()).trim();
  const icons = await item.locator('.codicon').evaluateAll((els) =>
    els.flatMap((el) => [...el.classList].filter((c) => c.startsWith('codicon-')).map((c) => c.slice('codicon-'.length))));
  return { text, icons };
}

/** Polls until the item shows `text` and is not spinning (the transitional states also read "Blob"). */
async function waitForItemText(item, what, text, timeoutMs = 30_000) {
  let last;
  await waitFor(`${what} (status bar text "${text}")`, async () => {
    if (!(await item.isVisible())) throw new Error('item not visible');
    last = await itemState(item);
    if (last.text !== text) throw new Error(`item shows ${JSON.stringify(last)}`);
    return !last.icons.some((i) => i.startsWith('loading'));
  }, { timeoutMs, intervalMs: 50 });
  return last;
}

describe('Blob status bar item (code-server + Chromium)', { timeout: 240_000 }, () => {
  const session = e2eSession('statusbar');
  const step = session.step;
  let port; // the blob port P
  let accountUrl;
  let page;
  let clickToServingMs;

  before(async () => {
    port = await freePort();
    accountUrl = `http://127.0.0.1:${port}/devstoreaccount1`;
    ({ page } = await session.open({
      'azurite.blobPort': port,
      'azurite.queuePort': 0,
      'azurite.tablePort': 0,
      'azurite.inMemoryPersistence': true,
      'azurite.extentMemoryLimit': 1,
    }));
  });

  after(() => session.close());

  step('shows the Blob item stopped, and the port is not served', async () => {
    const item = page.locator(statusItem('blob'));
    await waitFor('the Blob status bar item to appear', () => item.isVisible(), { timeoutMs: 60_000, intervalMs: 100 });
    await waitForItemText(item, 'the Blob item in its closed state', 'Blob');
    assert.equal(await tcpProbe(port), 'refused', `port ${port} should refuse connections before the click`);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/`), (err) => err?.cause?.code === 'ECONNREFUSED',
      `fetch http://127.0.0.1:${port} should fail with ECONNREFUSED before the click`);
  });

  step('click starts the blob service on the configured port', async () => {
    const item = page.locator(statusItem('blob'));
    const clicked = performance.now();
    await item.locator('a.statusbar-item-label').click();
    const status = await waitFor(`HTTP answer from ${accountUrl}?comp=list after the click`,
      () => httpStatus(`${accountUrl}?comp=list`), { timeoutMs: 30_000, intervalMs: 10 });
    clickToServingMs = Math.round(performance.now() - clicked);
    assert.ok(status >= 100 && status < 600, `got HTTP ${status}`);
    await waitForItemText(item, 'the Blob item to show the port it serves', `Blob :${port}`);
    console.log(`e2e: click-to-serving ${clickToServingMs} ms`);
    // What a screen reader says: our label in words, not the icon's name and the whole tooltip.
    const said = `Azurite Blob running on port ${port}. Press to stop.`;
    await waitFor(`the item's aria-label to be "${said}"`, async () =>
      (await item.getAttribute('aria-label')) === said || (await item.locator(`[aria-label="${said}"]`).count()) > 0, { timeoutMs: 10_000, intervalMs: 50 });
  });

  step('the Azure SDK round-trips a 300 KiB blob', async () => {
    const client = BlobServiceClient.fromConnectionString(
      `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${DEV_ACCOUNT_KEY};BlobEndpoint=${accountUrl};`);
    const container = client.getContainerClient(`e2e-${Date.now()}`);
    await container.create();
    const data = crypto.randomBytes(BLOB_BYTES);
    const blob = container.getBlockBlobClient('data.bin');
    await blob.uploadData(data);
    const back = await blob.downloadToBuffer();
    assert.equal(back.length, data.length, 'downloaded length');
    assert.ok(back.equals(data), 'downloaded bytes differ from the uploaded ones');
  });

  step(`the memory meter shows ${EXPECTED_MEMORY_TEXT}`, async () => {
    const meter = page.locator(statusItem('memory'));
    let last;
    await waitFor(`the memory item to show "${EXPECTED_MEMORY_TEXT}"`, async () => {
      last = (await meter.innerText()).trim();
      return last === EXPECTED_MEMORY_TEXT;
    }, { timeoutMs: 15_000, intervalMs: 100 }).catch((err) => {
      throw new Error(`${err.message}; it shows ${JSON.stringify(last)}`);
    });
  });

  step('hovering the Blob item shows the endpoint', async () => {
    const label = page.locator(statusItem('blob')).locator('a.statusbar-item-label');
    const hover = page.locator(HOVER).filter({ hasText: accountUrl });
    let attempts = 0;
    let lastHover = '';
    await waitFor(`a hover naming ${accountUrl}`, async () => {
      // Move away and back on each attempt, so a missed mouseenter gets another chance.
      attempts++;
      await page.mouse.move(700, 300);
      await label.hover();
      try {
        await hover.first().waitFor({ state: 'visible', timeout: 3_000 });
        return true;
      } catch {
        lastHover = (await page.locator(HOVER).allInnerTexts().catch(() => [])).join(' | ');
        throw new Error(`no such hover after attempt ${attempts}; hovers shown: ${JSON.stringify(lastHover)}`);
      }
    }, { timeoutMs: 30_000, intervalMs: 50 });
    const text = await hover.first().innerText();
    assert.match(text, /running on/, `hover text: ${text}`);
    if (attempts > 1) process.stderr.write(`e2e: hover needed ${attempts} attempts\n`);

    const shot = process.env.E2E_SCREENSHOT === '1'
      ? path.join(repoRoot, 'media', 'screenshot-statusbar.png')
      : path.join(makeTempDir('storage-emulators-e2e-shot-').dir, 'screenshot-statusbar.png');
    fs.mkdirSync(path.dirname(shot), { recursive: true });
    await page.screenshot({ path: shot });
    process.stderr.write(`e2e: screenshot ${shot}${process.env.E2E_SCREENSHOT === '1' ? '' : ' (temp, removed at exit; E2E_SCREENSHOT=1 keeps it in media/)'}\n`);
  });

  step('a second click stops it and frees the port', async () => {
    await page.mouse.move(700, 300); // off the item: let the hover close
    const item = page.locator(statusItem('blob'));
    await item.locator('a.statusbar-item-label').click();
    await waitForItemText(item, 'the Blob item to return to its closed state', 'Blob');
    await waitFor(`port ${port} to refuse connections after the stop`,
      async () => (await tcpProbe(port)) === 'refused', { timeoutMs: 15_000, intervalMs: 50 });
  });
});
