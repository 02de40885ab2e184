// One e2e suite's window: code-server with this extension and a headless Chromium page on it, and
// steps that depend on the ones before: after a failure the rest are skipped, and the teardown
// saves a screenshot and the tail of code-server's output. Used by test/e2e/*.test.mjs.
import { it } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser, makeTempDir, repoRoot, startCodeServer, waitFor } from './codeServer.mjs';

/**
 * A suite's session. Call it in the `describe` body; `open` in `before`, `close` in `after`.
 * @param {string} name names the temp folder and the failure screenshot
 * @returns {{
 *   step: (name: string, fn: (t: object) => Promise<void>, timeout?: number) => void,
 *   open: (userSettings: Record<string, unknown>, options?: { folders?: string[] }) =>
 *     Promise<{ page: import('playwright').Page, server: object, workspace: { dir: string }, workspaceFile?: string }>,
 *   close: () => Promise<void>,
 * }} `step` declares a test that is skipped once an earlier step failed; `open` starts code-server
 *   on a fresh workspace folder with `userSettings` and a page on it (with `folders`, a multi-root
 *   workspace of those subfolders instead, its `.code-workspace` file in that folder); `close` saves the failure
 *   evidence, then stops the browser and code-server and removes the workspace folder.
 */
export function e2eSession(name) {
  let failed = false;
  let opened;
  const pageErrors = [];
  return {
    step: (stepName, fn, timeout = 60_000) =>
      it(stepName, { timeout }, async (t) => {
        if (failed) return t.skip('an earlier step failed');
        try {
          await fn(t);
        } catch (err) {
          failed = true;
          throw err;
        }
      }),
    open: async (userSettings, { folders } = {}) => {
      const workspace = makeTempDir(`storage-emulators-e2e-${name}-`);
      opened = { workspace };
      let opensAt = workspace.dir;
      if (folders !== undefined) {
        for (const folder of folders) fs.mkdirSync(path.join(workspace.dir, folder));
        opensAt = path.join(workspace.dir, `${name}.code-workspace`);
        fs.writeFileSync(opensAt, JSON.stringify({ folders: folders.map((folder) => ({ path: folder })), settings: {} }, null, 2));
      }
      const server = await startCodeServer({ workspaceFolder: opensAt, extensionDevelopmentPath: repoRoot, userSettings });
      opened.server = server;
      const browser = await launchBrowser({ origin: server.origin });
      opened.browser = browser;
      const page = await browser.context.newPage();
      opened.page = page;
      page.on('pageerror', (err) => pageErrors.push(String(err)));
      await page.goto(server.url);
      return { page, server, workspace, workspaceFile: folders === undefined ? undefined : opensAt };
    },
    close: async () => {
      const { page, browser, server, workspace } = opened ?? {};
      if (failed && page) {
        const shot = path.join(os.tmpdir(), `storage-emulators-e2e-${name}-failure-${Date.now()}.png`);
        await page.screenshot({ path: shot }).catch(() => {});
        process.stderr.write(`e2e failure screenshot: ${shot}\n`);
        if (pageErrors.length) process.stderr.write(`page errors:\n${pageErrors.join('\n')}\n`);
        if (server) process.stderr.write(`--- code-server output (tail) ---\n${server.output().split('\n').slice(-60).join('\n')}\n`);
      }
      try {
        await browser?.close();
      } finally {
        try {
          await server?.stop();
        } finally {
          workspace?.remove();
        }
      }
    },
  };
}

/** Items of the notification center (a headless window gets no toasts; notifications still land there). */
const CENTER_ITEM = '.notifications-center .notification-list-item';

/**
 * Runs a command by its title from the command palette, as a person would. The palette lists an
 * extension's commands once its contributions are in: wait for one of its items first.
 * @param {import('playwright').Page} page
 * @param {string} title e.g. "Azurite: Reset"
 */
export async function runCommand(page, title) {
  await page.keyboard.press('F1');
  await page.keyboard.type(title);
  // Enter runs the focused row, not the one that matches: wait until the focused one is the command
  // (the list filters as the title is typed, and a row of a shorter filter may still have the focus).
  // The label alone, compared whole: "Azurite: Start Blob Service" must not pass for "Azurite: Start".
  const focused = page.locator('.quick-input-list .monaco-list-row.focused .label-name');
  await waitFor(`"${title}" focused in the command palette`, async () => (await focused.count()) > 0 && (await focused.first().innerText()).trim() === title,
    { timeoutMs: 10_000, intervalMs: 50 });
  await page.keyboard.press('Enter');
}

/**
 * Runs `Azurite: Import Snapshot…` from the command palette and picks `folder` in VS Code's own
 * folder dialog (a quick input in the browser), which opens on azurite.seed's folder: set that
 * setting to `folder`. Resolves once Import is clicked (a confirmation may follow).
 * @param {import('playwright').Page} page
 * @param {string} folder the snapshot folder, azurite.seed's
 */
export async function importSnapshotFrom(page, folder) {
  await runCommand(page, 'Azurite: Import Snapshot…');
  const picker = page.locator('.quick-input-widget');
  const input = picker.locator('input.input');
  await waitFor('the folder dialog on the snapshot folder', async () => (await input.isVisible()) && path.resolve(await input.inputValue()) === path.resolve(folder), { timeoutMs: 10_000, intervalMs: 50 });
  await picker.locator('.monaco-button', { hasText: /^Import$/ }).click();
}

/**
 * The notification-center item whose text matches `pattern`, opening the center (Notifications:
 * Show Notifications) when it is closed. Polls for up to 30 s.
 * @param {import('playwright').Page} page
 * @param {string | RegExp} pattern
 * @returns {Promise<import('playwright').Locator>}
 */
export async function notification(page, pattern) {
  return waitFor(`a notification matching ${pattern}`, async () => {
    if (!(await page.locator('.notifications-center.visible').count())) await runCommand(page, 'Notifications: Show Notifications');
    const item = page.locator(CENTER_ITEM).filter({ hasText: pattern }).first();
    return (await item.count()) > 0 ? item : undefined;
  }, { timeoutMs: 30_000, intervalMs: 250 });
}


/**
 * Chooses `label` from the context menu of `target`, and waits until `done` is true. VS Code's menus
 * act on keyboard selection reliably; a synthetic click on an item is not always taken. The menu
 * closes when the view under it re-renders (a tree refresh), and an Enter pressed then goes to the
 * tree: so the whole gesture is tried again, up to 3 times, until `done` (polled for 5 s each time).
 * @param {import('playwright').Page} page
 * @param {import('playwright').Locator} target the element to right-click
 * @param {string} label the menu item's text, e.g. "Delete…"
 * @param {() => Promise<boolean>} done what the choice brings (a dialog shown)
 */
export async function chooseFromContextMenu(page, target, label, done) {
  const item = page.locator('.context-view .monaco-menu .action-item', { hasText: label }).first();
  for (let attempt = 1; ; attempt++) {
    try {
      await target.click({ button: 'right' });
      await waitFor(`the ${label} menu item`, () => item.isVisible(), { timeoutMs: 10_000, intervalMs: 50 });
      // The hover focuses the item (class `focused`) only once the menu takes mouse events.
      await waitFor(`the ${label} menu item focused`, async () => {
        await item.hover();
        return item.evaluate((el) => el.classList.contains('focused'));
      }, { timeoutMs: 10_000, intervalMs: 100 });
      await page.keyboard.press('Enter');
      await waitFor(`what ${label} brings`, done, { timeoutMs: 5_000, intervalMs: 50 });
      return;
    } catch (err) {
      if (attempt === 3) throw err;
      await page.keyboard.press('Escape');
    }
  }
}
