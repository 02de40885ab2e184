// UI (e2e) tier: an Import Snapshot that its window reloads under is reported by the next window,
// and Restore Replaced Items brings back what it replaced.
// A real VS Code (code-server) driven by headless Chromium, disk mode in the workspace's .azurite
// folder, Queue started by azurite.autoStart. The queue `jobs` holds one message; `Azurite: Import
// Snapshot` runs from the command palette on a snapshot whose `jobs` has far more messages than load
// in a few seconds, its folder chosen in VS Code's own folder dialog, the replacement confirmed;
// while the messages load, "Developer: Reload Window". The next window must say that the Import did
// not finish, and its Restore Replaced Items must put back the `jobs` of before (from the copy the
// Import made before it changed anything). The journal behind it is src/ui/operationJournal.ts.
// Run: `node esbuild.mjs && node --test test/e2e/interruptedImport.test.mjs` (Node 20). Harness: test/harness/README.md.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { QueueServiceClient } from '@azure/storage-queue';
import { freePort, makeTempDir, waitFor } from '../harness/codeServer.mjs';
import { e2eSession, importSnapshotFrom, notification, runCommand } from '../harness/e2eSession.mjs';
import { devConnectionString, serviceAnswering, statusItem } from '../harness/devStorage.mjs';

/** Messages in the snapshot's queue: sent one by one, far more than load before the reload. */
const SNAPSHOT_MESSAGES = 200_000;

describe('An Import that its window reloads under (code-server + Chromium, disk mode)', { timeout: 300_000 }, () => {
  const session = e2eSession('interrupted-import');
  const step = session.step;
  let page;
  let snapshot;
  let queuePort;

  const queues = () => QueueServiceClient.fromConnectionString(devConnectionString({ queue: queuePort }));
  const queueServing = (what) => serviceAnswering('queue', queuePort, { what, intervalMs: 100 });
  const jobsCount = async () => (await queues().getQueueClient('jobs').getProperties().catch(() => undefined))?.approximateMessagesCount ?? 0;
  const dialog = () => page.locator('.monaco-dialog-box');

  before(async () => {
    queuePort = await freePort();
    // The snapshot folder is azurite.seed, so the Import's folder dialog opens on it; it is empty at
    // the start (a seed loads into a fresh service) and filled before the Import.
    snapshot = makeTempDir('storage-emulators-e2e-interrupted-import-');
    ({ page } = await session.open({
      'azurite.queuePort': queuePort, 'azurite.blobPort': 0, 'azurite.tablePort': 0,
      'azurite.inMemoryPersistence': false, 'azurite.autoStart': ['queue'], 'azurite.seed': snapshot.dir,
    }));
  });

  after(async () => {
    try { await session.close(); } finally { snapshot?.remove(); }
  });

  step('an Import chosen in the folder dialog and confirmed is loading its messages when the window reloads', async () => {
    await page.locator(statusItem('queue')).waitFor({ timeout: 60_000 });
    await queueServing('first window');
    await queues().getQueueClient('jobs').create();
    await queues().getQueueClient('jobs').sendMessage('the old job');
    fs.mkdirSync(path.join(snapshot.dir, 'queue'));
    fs.writeFileSync(path.join(snapshot.dir, 'queue', 'jobs.jsonl'), Array.from({ length: SNAPSHOT_MESSAGES }, (_, i) => `{"text":"job ${i}"}\n`).join(''));

    await importSnapshotFrom(page, snapshot.dir);
    await waitFor('the confirmation', async () => (await dialog().isVisible()) && (await dialog().innerText()).includes('Replace 1 item with the snapshot\'s?'), { timeoutMs: 60_000, intervalMs: 50 });
    assert.match(await dialog().innerText(), /queue jobs/);
    await dialog().locator('.monaco-button', { hasText: /^Replace$/ }).click();
    await waitFor('the snapshot\'s messages loading', async () => (await jobsCount()) > 1, { timeoutMs: 60_000, intervalMs: 100 });

    const reloaded = page.waitForEvent('load', { timeout: 60_000 });
    await runCommand(page, 'Developer: Reload Window');
    await reloaded;
  }, 180_000);

  step('the next window says the Import did not finish, and Restore Replaced Items puts back the queue it replaced', async () => {
    const said = await notification(page, /The Import of .* did not finish: its window closed or reloaded/);
    await queueServing('after the reload');
    const count = await jobsCount();
    assert.ok(count > 1 && count < SNAPSHOT_MESSAGES, `part of the snapshot: ${count} of ${SNAPSHOT_MESSAGES} messages`);

    await said.hover();
    await said.locator('.monaco-button', { hasText: /^Restore Replaced Items$/ }).first().click();
    await waitFor('the confirmation', async () => (await dialog().isVisible()) && (await dialog().innerText()).includes('Replace 1 item with the snapshot\'s?'), { timeoutMs: 30_000, intervalMs: 50 });
    await dialog().locator('.monaco-button', { hasText: /^Replace$/ }).click();
    await waitFor('the queue of before', async () => (await jobsCount()) === 1, { timeoutMs: 60_000, intervalMs: 200 });
    const [message] = (await queues().getQueueClient('jobs').peekMessages()).peekedMessageItems;
    assert.equal(message?.messageText, 'the old job');
  }, 120_000);
});
