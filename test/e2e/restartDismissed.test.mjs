// UI (e2e) tier: a "Restart Now" whose restart does not run, because the question that a start in a
// multi-root workspace asks first (which folder keeps the data) was dismissed, leaves the service as
// it was, and the next settings change asks about it again; Restart Now then, with a folder picked,
// restarts it. (Before, the service was taken as asked about already, and kept its stale settings
// without a word.)
// A real VS Code (code-server) driven by headless Chromium, a multi-root workspace of two folders,
// Queue started in memory by azurite.autoStart, then `azurite.inMemoryPersistence` turned off in the
// workspace file. The logic under test is SettingsWatcher's queueRestart (src/settingsWatcher.ts).
// Run: `node esbuild.mjs && node --test test/e2e/restartDismissed.test.mjs` (Node 20). Harness: test/harness/README.md.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, waitFor } from '../harness/codeServer.mjs';
import { e2eSession, notification } from '../harness/e2eSession.mjs';
import { serviceAnswering, statusItem } from '../harness/devStorage.mjs';

/** The question a settings change asks about an in-memory Queue (src/settingsWatcher.ts). */
const QUESTION = 'Azurite settings changed for Queue. Restarting drops the in-memory data of Queue.';
/** The title of the data folder question (src/config.ts). */
const FOLDER_QUESTION = 'Azurite: which workspace folder keeps the emulator data?';

describe('"Restart Now" whose data folder question is dismissed (code-server + Chromium, multi-root)', { timeout: 300_000 }, () => {
  const session = e2eSession('restart-dismissed');
  const step = session.step;
  let page;
  let workspace;
  let workspaceFile;
  let queuePort;

  /** Writes one setting into the workspace file's settings, as a person editing it does. */
  const write = (key, value) => {
    const now = JSON.parse(fs.readFileSync(workspaceFile, 'utf8'));
    fs.writeFileSync(workspaceFile, JSON.stringify({ ...now, settings: { ...now.settings, [key]: value } }, null, 2));
  };
  const picker = () => page.locator('.quick-input-widget');
  const folderQuestionOpen = async () => (await picker().isVisible()) && (await picker().innerText()).includes(FOLDER_QUESTION);
  /** Answers the question (in the notification center) Restart Now; resolves once the data folder question shows. */
  const restartNow = async () => {
    const question = await notification(page, QUESTION);
    await question.hover();
    await question.locator('.monaco-button', { hasText: /^Restart Now$/ }).first().click();
    await waitFor('the data folder question', folderQuestionOpen, { timeoutMs: 30_000, intervalMs: 50 });
  };

  before(async () => {
    queuePort = await freePort();
    ({ page, workspace, workspaceFile } = await session.open({
      'azurite.queuePort': queuePort, 'azurite.blobPort': 0, 'azurite.tablePort': 0,
      'azurite.inMemoryPersistence': true, 'azurite.autoStart': ['queue'],
    }, { folders: ['api', 'web'] }));
  });

  after(() => session.close());

  step('Queue runs in memory, started by azurite.autoStart without asking for a folder', async () => {
    await page.locator(statusItem('queue')).waitFor({ timeout: 60_000 });
    await serviceAnswering('queue', queuePort, { what: 'autostart', intervalMs: 100 });
    assert.equal(await folderQuestionOpen(), false);
  }, 120_000);

  step('Restart Now, then the data folder question dismissed: nothing restarts', async () => {
    write('azurite.inMemoryPersistence', false);
    await restartNow();
    await picker().locator('input.input').focus();
    await page.keyboard.press('Escape');
    await waitFor('the data folder question closed', async () => !(await folderQuestionOpen()), { timeoutMs: 10_000, intervalMs: 50 });
    await serviceAnswering('queue', queuePort, { what: 'still in memory', intervalMs: 100 });
    assert.equal(fs.existsSync(path.join(workspace.dir, 'api', '.azurite')), false, 'no data folder made');
  }, 120_000);

  step('the next settings change asks again; Restart Now with a folder picked restarts Queue there', async () => {
    // A change that needs no restart of its own (Blob is not running).
    write('azurite.blobPort', await freePort());
    await restartNow();
    await picker().locator('.quick-input-list .monaco-list-row', { hasText: 'api' }).first().click();
    const data = path.join(workspace.dir, 'api', '.azurite');
    await waitFor('Queue\'s data in the folder picked', () => fs.existsSync(data) && fs.readdirSync(data).length > 0, { timeoutMs: 60_000, intervalMs: 100 });
    await serviceAnswering('queue', queuePort, { what: 'the restart', intervalMs: 100 });
  }, 120_000);
});
