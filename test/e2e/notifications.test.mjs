// UI tier: the buttons of the extension's notifications, clicked in a real VS Code (code-server +
// Chromium): "Use Port N" after a port conflict, "Restart Now" after a settings change that
// would drop in-memory data (only for the services its question named), and "Open File" after a
// start whose seed file is malformed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort, launchBrowser, makeTempDir, repoRoot, startCodeServer, waitFor } from '../harness/codeServer.mjs';
import { notification } from '../harness/e2eSession.mjs';
import { statusItem } from '../harness/devStorage.mjs';


/** The HTTP status of GET url on a fresh connection, or 'refused'. */
function probe(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 2000 }, (res) => { res.resume(); resolve(res.statusCode); });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve('refused'));
  });
}

/** Clicks the button `label` of the notification matching `pattern`. */
async function clickNotificationButton(page, pattern, label) {
  const item = await notification(page, pattern);
  await item.hover();
  await item.locator('.monaco-button', { hasText: label }).first().click();
}

describe('notification actions (code-server + Chromium)', { timeout: 240_000 }, () => {
  let server;
  let browser;
  let page;
  let workspace;
  let holder;
  let heldPort;
  before(async () => {
    holder = http.createServer((_req, res) => res.end('not azurite'));
    heldPort = await freePort();
    await new Promise((r) => holder.listen(heldPort, '127.0.0.1', r));
    workspace = makeTempDir('storage-emulators-e2e-notify-');
    // A seed whose table part is malformed at line 2 (only Table's starts read it).
    const seed = path.join(workspace.dir, 'seed');
    fs.mkdirSync(path.join(seed, 'table'), { recursive: true });
    fs.writeFileSync(path.join(seed, 'table', 'Users.jsonl'), '{"PartitionKey":"u","RowKey":"1"}\n{"PartitionKey":"u","RowKey":2}\n');
    server = await startCodeServer({
      workspaceFolder: workspace.dir,
      extensionDevelopmentPath: repoRoot,
      userSettings: { 'azurite.blobPort': heldPort, 'azurite.queuePort': 0, 'azurite.tablePort': 0, 'azurite.inMemoryPersistence': true, 'azurite.seed': seed },
    });
    browser = await launchBrowser({ origin: server.origin });
    page = await browser.context.newPage();
    await page.goto(server.url);
  });
  after(async () => {
    holder?.close();
    try { await browser?.close(); } finally { try { await server?.stop(); } finally { workspace?.remove(); } }
  });

  it('"Use Port N" writes azurite.blobPort to the workspace settings and starts the service there', async () => {
    const item = page.locator(statusItem('blob'));
    await item.waitFor({ timeout: 60_000 });
    await item.locator('a.statusbar-item-label').click();
    const message = `port ${heldPort} on 127.0.0.1 is already in use by another program`;
    const found = await notification(page, message);
    await found.hover();
    const label = await found.locator('.monaco-button', { hasText: /^Use Port \d+$/ }).first().innerText();
    const port = Number(/\d+/.exec(label)[0]);
    await clickNotificationButton(page, message, label);
    await waitFor(`the blob item to show :${port}`, async () => (await item.innerText()).trim() === `Blob :${port}`, { timeoutMs: 30_000 });
    assert.equal(typeof (await probe(`http://127.0.0.1:${port}/devstoreaccount1?comp=list`)), 'number');
    const settings = JSON.parse(fs.readFileSync(path.join(workspace.dir, '.vscode', 'settings.json'), 'utf8'));
    assert.equal(settings['azurite.blobPort'], port);
  });

  it('"Restart Now" restarts an in-memory service after a settings change, and only then', async () => {
    const item = page.locator(statusItem('blob'));
    const before = Number(/:(\d+)$/.exec((await item.innerText()).trim())[1]);
    const next = await freePort();
    // A change the way a person makes it: the workspace settings file.
    const file = path.join(workspace.dir, '.vscode', 'settings.json');
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), 'azurite.blobPort': next }, null, 2));
    await notification(page, 'Restarting drops the in-memory data of Blob');
    assert.equal((await item.innerText()).trim(), `Blob :${before}`, 'nothing restarts before the answer');
    await clickNotificationButton(page, 'Restarting drops the in-memory data of Blob', 'Restart Now');
    await waitFor(`the blob item to show :${next}`, async () => (await item.innerText()).trim() === `Blob :${next}`, { timeoutMs: 30_000 });
    assert.equal(await probe(`http://127.0.0.1:${before}/`), 'refused');
  });

  it('"Restart Now" restarts the services its question named, not one that a newer question still asks about', async () => {
    const blob = page.locator(statusItem('blob'));
    const queue = page.locator(statusItem('queue'));
    await queue.locator('a.statusbar-item-label').click();
    await waitFor('the queue item to show its port', async () => /^Queue :\d+$/.test((await queue.innerText()).trim()), { timeoutMs: 30_000 });
    const queueBefore = Number(/:(\d+)$/.exec((await queue.innerText()).trim())[1]);
    const [blobNext, queueNext] = [await freePort(), await freePort()];
    const file = path.join(workspace.dir, '.vscode', 'settings.json');
    const write = (key, value) => fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), [key]: value }, null, 2));
    write('azurite.blobPort', blobNext);
    await notification(page, 'Azurite settings changed for Blob.');
    write('azurite.queuePort', queueNext);
    await notification(page, 'Azurite settings changed for Blob, Queue.');
    await clickNotificationButton(page, 'Azurite settings changed for Blob.', 'Restart Now');
    await waitFor(`the blob item to show :${blobNext}`, async () => (await blob.innerText()).trim() === `Blob :${blobNext}`, { timeoutMs: 30_000 });
    assert.equal((await queue.innerText()).trim(), `Queue :${queueBefore}`, 'Queue waits for the answer to the question about it');
    assert.equal(typeof (await probe(`http://127.0.0.1:${queueBefore}/devstoreaccount1?comp=list`)), 'number', 'Queue still serves its in-memory data');
    await clickNotificationButton(page, 'Azurite settings changed for Blob, Queue.', 'Restart Now');
    await waitFor(`the queue item to show :${queueNext}`, async () => (await queue.innerText()).trim() === `Queue :${queueNext}`, { timeoutMs: 30_000 });
  });

  it('"Open File" on a start whose seed file is malformed opens the file at the line', async () => {
    const item = page.locator(statusItem('table'));
    await item.waitFor({ timeout: 60_000 });
    await item.locator('a.statusbar-item-label').click();
    const message = 'Users.jsonl:2: an entity needs string';
    await clickNotificationButton(page, message, 'Open File');
    await page.locator('.tabs-container .tab.active', { hasText: 'Users.jsonl' }).waitFor({ timeout: 30_000 });
    const cursor = page.locator('#workbench\\.parts\\.statusbar .statusbar-item[id="status.editor.selection"]');
    await waitFor('the cursor on line 2', async () => /^Ln 2, Col 1$/.test((await cursor.innerText()).trim()), { timeoutMs: 30_000 });
  });
});
