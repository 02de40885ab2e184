// UI (e2e) tier: a Reset that its window reloads under is reported by the next window.
// A real VS Code (code-server) driven by headless Chromium, disk mode in the workspace's .azurite
// folder, services started by azurite.autoStart. `Azurite: Reset` runs from the command palette and
// is confirmed; while its seed loads, "Developer: Reload Window". The old extension host cannot
// finish (or undo) the Reset: the new window must say that it did not finish, and its Reset Again
// button must ask to reset again. The journal behind it is src/ui/operationJournal.ts.
// Run: `node esbuild.mjs && node --test test/e2e/interrupted.test.mjs` (Node 20). Harness: test/harness/README.md.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { QueueServiceClient } from '@azure/storage-queue';
import { freePort, makeTempDir, waitFor } from '../harness/codeServer.mjs';
import { e2eSession, notification, runCommand } from '../harness/e2eSession.mjs';
import { devConnectionString, serviceAnswering, statusItem } from '../harness/devStorage.mjs';

/** Messages in the seed's queue: sent one by one, far more than load before the reload. */
const SEED_MESSAGES = 200_000;

/** The journals of data operations in the server's workspace storage (one folder per workspace). */
function journals(userDataDir) {
  const root = path.join(userDataDir, 'User', 'workspaceStorage');
  const out = [];
  for (const ws of fs.existsSync(root) ? fs.readdirSync(root) : []) {
    const dir = path.join(root, ws, 'storage-emulators.storage-emulators', 'data-operations');
    for (const op of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      if (fs.existsSync(path.join(dir, op, 'journal.json'))) out.push(path.join(dir, op, 'journal.json'));
    }
  }
  return out;
}

describe('A Reset that its window reloads under (code-server + Chromium, disk mode)', { timeout: 300_000 }, () => {
  const session = e2eSession('interrupted');
  const step = session.step;
  let page;
  let server;
  let seed;
  let queuePort;

  const queues = () => QueueServiceClient.fromConnectionString(devConnectionString({ queue: queuePort }));
  const queueServing = (what) => serviceAnswering('queue', queuePort, { what, intervalMs: 100 });

  before(async () => {
    queuePort = await freePort();
    // Empty at the start (nothing to load into the fresh services); filled before the Reset.
    seed = makeTempDir('storage-emulators-e2e-interrupted-seed-');
    ({ page, server } = await session.open({
      'azurite.queuePort': queuePort, 'azurite.blobPort': 0, 'azurite.tablePort': 0,
      'azurite.inMemoryPersistence': false, 'azurite.autoStart': ['queue'], 'azurite.seed': seed.dir,
    }));
  });

  after(async () => {
    try { await session.close(); } finally { seed?.remove(); }
  });

  step('a Reset confirmed from the palette is loading its seed when the window reloads', async () => {
    await page.locator(statusItem('queue')).waitFor({ timeout: 60_000 });
    await queueServing('first window');
    await queues().getQueueClient('old-jobs').create();
    fs.mkdirSync(path.join(seed.dir, 'queue'));
    fs.writeFileSync(path.join(seed.dir, 'queue', 'orders.jsonl'), Array.from({ length: SEED_MESSAGES }, (_, i) => `{"text":"order ${i}"}\n`).join(''));
    await runCommand(page, 'Azurite: Reset');
    const dialog = page.locator('.monaco-dialog-box');
    await waitFor('the confirmation', async () => (await dialog.isVisible()) && (await dialog.innerText()).includes('Reset Queue?'), { timeoutMs: 10_000, intervalMs: 50 });
    await dialog.locator('.monaco-button', { hasText: /^Reset$/ }).click();
    const orders = queues().getQueueClient('orders');
    await waitFor('the seed loading', async () => (await orders.getProperties().catch(() => undefined))?.approximateMessagesCount > 0, { timeoutMs: 30_000, intervalMs: 100 });
    assert.equal(journals(server.userDataDir).length, 1, 'the Reset keeps a journal while it runs');

    const reloaded = page.waitForEvent('load', { timeout: 60_000 });
    await runCommand(page, 'Developer: Reload Window');
    await reloaded;
  }, 120_000);

  step('the next window says the Reset did not finish, and Reset Again asks to reset again', async () => {
    const said = await notification(page, /The Reset of Queue, begun .*, did not finish: its window closed or reloaded/);
    assert.match(await said.innerText(), /It may hold part of what was there and part of the seed in .*: reset again to finish it\./);
    assert.deepEqual(journals(server.userDataDir), [], 'reported once: the journal is gone');
    // What it left: the seed's queue, with part of its messages (the old queue was emptied first).
    await queueServing('after the reload');
    const count = (await queues().getQueueClient('orders').getProperties()).approximateMessagesCount;
    assert.ok(count > 0 && count < SEED_MESSAGES, `part of the seed: ${count} of ${SEED_MESSAGES} messages`);

    await said.hover();
    await said.locator('.monaco-button', { hasText: /^Reset Again$/ }).first().click();
    const dialog = page.locator('.monaco-dialog-box');
    await waitFor('the Reset\'s confirmation', async () => (await dialog.isVisible()) && (await dialog.innerText()).includes('Reset Queue?'), { timeoutMs: 30_000, intervalMs: 50 });
    await dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).click();
  }, 120_000);
});
