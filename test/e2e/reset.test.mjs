// UI (e2e) tier: Azurite: Reset in a real VS Code (code-server) driven by headless Chromium, run from
// the command palette and confirmed in its modal dialog, then cancelled with the progress
// notification's Cancel button while the seed loads: the services are left empty (not the old data,
// not half the seed) and a notification says so.
// Harness facts: test/harness/README.md.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { freePort, makeTempDir, waitFor } from '../harness/codeServer.mjs';
import { e2eSession, notification, runCommand } from '../harness/e2eSession.mjs';
import { devConnectionString, serviceAnswering, statusItem } from '../harness/devStorage.mjs';

/**
 * Messages in the seed's queue. The seed sends them one by one in file order, so loading them takes
 * far longer than the progress notification's delay (1 s) plus the clicks, on any machine here.
 */
const SEED_MESSAGES = 200_000;

describe('Reset cancelled while the seed loads (code-server + Chromium)', { timeout: 300_000 }, () => {
  const session = e2eSession('reset');
  const step = session.step;
  let page;
  let seed;
  let blobPort;
  let queuePort;

  const connection = () => devConnectionString({ blob: blobPort, queue: queuePort });

  before(async () => {
    // Two different ports: two read one after the other from closed listeners can repeat.
    const ports = new Set();
    while (ports.size < 2) ports.add(await freePort());
    [blobPort, queuePort] = [...ports];
    // Empty at the start (nothing to load then); filled before the Reset.
    seed = makeTempDir('storage-emulators-e2e-seed-');
    ({ page } = await session.open({
      'azurite.blobPort': blobPort, 'azurite.queuePort': queuePort, 'azurite.tablePort': 0,
      'azurite.inMemoryPersistence': true, 'azurite.seed': seed.dir,
    }));
  });

  after(async () => {
    try { await session.close(); } finally { seed?.remove(); }
  });

  step('Azurite: Start runs the services; a client writes a container and a queue', async () => {
    // The palette lists the extension's commands once its contributions are in: its items show then.
    await page.locator(statusItem('blob')).waitFor({ timeout: 60_000 });
    await runCommand(page, 'Azurite: Start');
    await serviceAnswering('queue', queuePort);
    await serviceAnswering('blob', blobPort, { timeoutMs: 30_000 });
    await BlobServiceClient.fromConnectionString(connection()).getContainerClient('old-data').create();
    await QueueServiceClient.fromConnectionString(connection()).getQueueClient('old-queue').create();
  }, 120_000);

  step('Cancel on the progress of a Reset leaves the services empty and says so', async () => {
    fs.mkdirSync(path.join(seed.dir, 'queue'));
    fs.writeFileSync(path.join(seed.dir, 'queue', 'orders.jsonl'), Array.from({ length: SEED_MESSAGES }, (_, i) => `{"text":"order ${i}"}\n`).join(''));
    await runCommand(page, 'Azurite: Reset');
    const dialog = page.locator('.monaco-dialog-box');
    await waitFor('the confirmation', async () => (await dialog.isVisible()) && (await dialog.innerText()).includes('Reset Blob, Queue, Table?'), { timeoutMs: 10_000, intervalMs: 50 });
    await dialog.locator('.monaco-button', { hasText: /^Reset$/ }).click();
    const queues = QueueServiceClient.fromConnectionString(connection());
    const orders = queues.getQueueClient('orders');
    // The seed is loading once its queue has messages.
    await waitFor('the seed loading', async () => (await orders.getProperties().catch(() => undefined))?.approximateMessagesCount > 0, { timeoutMs: 30_000, intervalMs: 100 });

    const progress = await notification(page, /Resetting/);
    await progress.hover();
    await progress.locator('.monaco-button', { hasText: /^Cancel$/ }).first().click();
    await notification(page, 'Reset cancelled while loading the seed: Blob, Queue, Table are empty');

    const containers = [];
    for await (const c of BlobServiceClient.fromConnectionString(connection()).listContainers()) containers.push(c.name);
    const queueNames = [];
    for await (const q of queues.listQueues()) queueNames.push(q.name);
    assert.deepEqual({ containers, queues: queueNames }, { containers: [], queues: [] });
  }, 120_000);
});
