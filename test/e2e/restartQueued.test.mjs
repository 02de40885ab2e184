// UI (e2e) tier: a "Restart Now" answered while an Import runs waits for the Import, and a settings
// change meanwhile does not ask again about the service whose restart already waits (its in-memory
// data goes anyway); the restart, once its turn comes, uses the newest settings.
// A real VS Code (code-server) driven by headless Chromium, memory mode, Queue started by
// azurite.autoStart. `Azurite: Import Snapshot` runs from the command palette on a snapshot whose
// queue holds far more messages than load in the test's time; its Cancel ends it. The logic under
// test is SettingsWatcher's restartQueued (src/settingsWatcher.ts).
// Run: `node esbuild.mjs && node --test test/e2e/restartQueued.test.mjs` (Node 20). Harness: test/harness/README.md.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { QueueServiceClient } from '@azure/storage-queue';
import { freePort, makeTempDir, waitFor } from '../harness/codeServer.mjs';
import { e2eSession, importSnapshotFrom, notification, runCommand } from '../harness/e2eSession.mjs';
import { devConnectionString, serviceAnswering, statusItem } from '../harness/devStorage.mjs';

/** Messages in the snapshot's queue: sent one by one, far more than load before the Import is cancelled. */
const SNAPSHOT_MESSAGES = 200_000;
/** The question a settings change asks about an in-memory Queue (src/settingsWatcher.ts). */
const QUESTION = 'Azurite settings changed for Queue. Restarting drops the in-memory data of Queue.';

describe('"Restart Now" while an Import runs (code-server + Chromium, memory mode)', { timeout: 300_000 }, () => {
  const session = e2eSession('restart-queued');
  const step = session.step;
  let page;
  let workspace;
  let snapshot;
  let queuePort;

  const jobsCount = async () => (await QueueServiceClient.fromConnectionString(devConnectionString({ queue: queuePort }))
    .getQueueClient('jobs').getProperties().catch(() => undefined))?.approximateMessagesCount ?? 0;
  /** Writes one setting into the workspace's settings file, as a person editing it does. */
  const write = (key, value) => {
    const file = path.join(workspace.dir, '.vscode', 'settings.json');
    const now = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ ...now, [key]: value }, null, 2));
  };
  /** The notification center's items that hold `text` now (the center opened first). */
  const centerItems = async (text) => {
    if (!(await page.locator('.notifications-center.visible').count())) await runCommand(page, 'Notifications: Show Notifications');
    await page.locator('.notifications-center.visible').waitFor({ timeout: 10_000 });
    return page.locator('.notifications-center .notification-list-item').filter({ hasText: text }).count();
  };

  before(async () => {
    queuePort = await freePort();
    // The snapshot folder is azurite.seed, so the Import's folder dialog opens on it; it is empty at
    // the start (a seed loads into a fresh service) and filled before the Import.
    snapshot = makeTempDir('storage-emulators-e2e-restart-queued-');
    ({ page, workspace } = await session.open({
      'azurite.queuePort': queuePort, 'azurite.blobPort': 0, 'azurite.tablePort': 0,
      'azurite.inMemoryPersistence': true, 'azurite.autoStart': ['queue'], 'azurite.seed': snapshot.dir,
    }));
  });

  after(async () => {
    try { await session.close(); } finally { snapshot?.remove(); }
  });

  step('an Import chosen in the folder dialog is loading its messages', async () => {
    await page.locator(statusItem('queue')).waitFor({ timeout: 60_000 });
    await serviceAnswering('queue', queuePort, { what: 'autostart', intervalMs: 100 });
    fs.mkdirSync(path.join(snapshot.dir, 'queue'));
    fs.writeFileSync(path.join(snapshot.dir, 'queue', 'jobs.jsonl'), Array.from({ length: SNAPSHOT_MESSAGES }, (_, i) => `{"text":"job ${i}"}\n`).join(''));
    await importSnapshotFrom(page, snapshot.dir);
    await waitFor('the snapshot\'s messages loading', async () => (await jobsCount()) > 1, { timeoutMs: 60_000, intervalMs: 100 });
  }, 120_000);

  let newest;
  step('Restart Now waits for the Import, and a change meanwhile asks nothing more about Queue', async () => {
    const first = await freePort();
    write('azurite.queuePort', first);
    const question = await notification(page, QUESTION);
    await question.hover();
    await question.locator('.monaco-button', { hasText: /^Restart Now$/ }).first().click();
    // The restart waits, and says for what (after a second).
    await notification(page, 'Queue restart for the settings change once the Reset, Import or Export under way is done');
    assert.equal((await page.locator(statusItem('queue')).innerText()).trim(), `Queue :${queuePort}`, 'nothing restarts under the Import');
    newest = await freePort();
    write('azurite.queuePort', newest);
    // The Import still runs: its messages keep coming.
    const loaded = await jobsCount();
    await waitFor('more of the snapshot\'s messages', async () => (await jobsCount()) > loaded, { timeoutMs: 30_000, intervalMs: 100 });
  }, 120_000);

  step('once the Import is cancelled, Queue restarts on the newest port, and no second question was asked', async () => {
    // The progress notification redraws as the count moves: a click that lands during a redraw is
    // lost, so Cancel is clicked again until the notification is gone (at most 4 times, 10 s apart).
    const importing = page.locator('.notifications-center .notification-list-item').filter({ hasText: 'Importing a snapshot' });
    for (let attempt = 1; ; attempt++) {
      const item = await notification(page, 'Importing a snapshot');
      await item.hover();
      await item.locator('.monaco-button', { hasText: /^Cancel$/ }).first().click({ timeout: 5_000 }).catch(() => undefined);
      try {
        await waitFor('the Import to end', async () => (await importing.count()) === 0, { timeoutMs: 10_000, intervalMs: 100 });
        break;
      } catch (err) {
        if (attempt === 4) throw err;
      }
    }
    const item = page.locator(statusItem('queue'));
    await waitFor(`the queue item to show :${newest}`, async () => (await item.innerText()).trim() === `Queue :${newest}`, { timeoutMs: 60_000 });
    await serviceAnswering('queue', newest, { what: 'the restart', intervalMs: 100 });
    // The change to the newest port was read before the restart used it, and a question about it
    // would have been shown then; the one answered Restart Now has left the center.
    assert.equal(await centerItems(QUESTION), 0, 'no second question about Queue');
  }, 120_000);
});
