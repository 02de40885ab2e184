// One e2e suite's window: code-server with this extension and a headless Chromium page on it, and
// steps that depend on the ones before: after a failure the rest are skipped, and the teardown
// saves a screenshot and the tail of code-server's output. Used by test/e2e/*.test.mjs.
import { it } from 'node:test';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser, makeTempDir, repoRoot, startCodeServer, waitFor } from './codeServer.mjs';

/**
 * A suite's session. Call it in the `describe` body; `open` in `before`, `close` in `after`.
 * @param {string} name names the temp folder and the failure screenshot
 * @returns {{
 *   step: (name: string, fn: (t: object) => Promise<void>, timeout?: number) => void,
 *   open: (userSettings: Record<string, unknown>) => Promise<{ page: import('playwright').Page, server: object, workspace: { dir: string } }>,
 *   close: () => Promise<void>,
 * }} `step` declares a test that is skipped once an earlier step failed; `open` starts code-server
 *   on a fresh workspace folder with `userSettings` and a page on it; `close` saves the failure
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
    open: async (userSettings) => {
      const workspace = makeTempDir(`storage-emulators-e2e-${name}-`);
      opened = { workspace };
      const server = await startCodeServer({ workspaceFolder: workspace.dir, extensionDevelopmentPath: repoRoot, userSettings });
      opened.server = server;
      const browser = await launchBrowser({ origin: server.origin });
      opened.browser = browser;
      const page = await browser.context.newPage();
      opened.page = page;
      page.on('pageerror', (err) => pageErrors.push(String(err)));
      await page.goto(server.url);
      return { page, server, workspace };
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
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
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

