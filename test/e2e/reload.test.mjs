// UI (e2e) tier: "Developer: Reload Window" right after writing loses nothing.
// A real VS Code (code-server) with the extension under development, disk mode in the workspace's
// .azurite folder, services started by azurite.autoStart on free ports. The test writes 300 blobs,
// 100 queue messages and 300 table entities with the Azure SDKs, reloads the window at once (the
// extension host runs deactivate() and exits; VS Code gives it 5 s), waits for the new window's
// services and counts: nothing may be missing, and the extension host log must show no
// "Channel has been closed" (the throw that used to cut the shutdown short).
// Run: `node esbuild.mjs && node --test test/e2e/reload.test.mjs` (Node 20). Harness: test/harness/README.md.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { TableClient } from '@azure/data-tables';
import { freePort, httpStatus, launchBrowser, makeTempDir, repoRoot, startCodeServer, waitFor } from '../harness/codeServer.mjs';
import { devConnectionString, statusItem } from '../harness/devStorage.mjs';

const BLOBS = 300;
const MESSAGES = 100;
const ENTITIES = 300;
const KINDS = ['blob', 'queue', 'table'];
const LABEL = { blob: 'Blob', queue: 'Queue', table: 'Table' };
/** The extension under test: this repository (E2E_EXTENSION_PATH: another build, e.g. an older commit's, to see the test fail). */
const extensionPath = process.env.E2E_EXTENSION_PATH ?? repoRoot;

/** Three distinct free ports. */
async function threePorts() {
  const ports = new Set();
  while (ports.size < 3) ports.add(await freePort());
  return [...ports];
}

/** Runs `fn` on 0..n-1, `width` at a time. */
async function inParallel(n, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => { while (next < n) await fn(next++); }));
}

/** What the services hold now; a missing container, queue or table counts 0. */
async function countAll(cs) {
  const zeroIfMissing = (err) => { if (err?.statusCode === 404) return 0; throw err; };
  const blobs = await (async () => {
    let n = 0;
    for await (const item of BlobServiceClient.fromConnectionString(cs).getContainerClient('reload').listBlobsFlat()) if (item) n++;
    return n;
  })().catch(zeroIfMissing);
  const messages = await QueueServiceClient.fromConnectionString(cs).getQueueClient('reload').getProperties()
    .then((p) => p.approximateMessagesCount ?? 0, zeroIfMissing);
  const entities = await (async () => {
    let n = 0;
    for await (const item of TableClient.fromConnectionString(cs, 'reload', { allowInsecureConnection: true }).listEntities()) if (item) n++;
    return n;
  })().catch(zeroIfMissing);
  return { blobs, messages, entities };
}

/** Waits until every status bar item shows its service running on its port (`Blob :10000`). */
async function waitForRunning(page, ports, what) {
  for (const kind of KINDS) {
    const item = page.locator(statusItem(kind));
    const want = `${LABEL[kind]} :${ports[kind]}`;
    let last;
    await waitFor(`${what}: the ${LABEL[kind]} item to show "${want}"`, async () => {
      last = (await item.innerText({ timeout: 1_000 })).trim();
      return last === want;
    }, { timeoutMs: 60_000, intervalMs: 100 }).catch((err) => { throw new Error(`${err.message}; it shows ${JSON.stringify(last)}`); });
  }
}

/** Every extension host log (and output channel log) of the server's user-data folder, concatenated. */
function extensionHostLogs(userDataDir) {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      // The extension host's own log, and the output channels it writes (…/exthostN/output_logging_…/N-Azurite.log).
      else if (/exthost/i.test(path.relative(userDataDir, p)) && e.name.endsWith('.log')) out.push(`--- ${p}\n${fs.readFileSync(p, 'utf8')}`);
    }
  };
  walk(path.join(userDataDir, 'logs'));
  return out.join('\n');
}

describe('Reload Window right after writing (code-server + Chromium, disk mode)', { timeout: 300_000 }, () => {
  let server;
  let browser;
  let page;
  let workspace;
  let ports;
  let cs;

  before(async () => {
    const [blob, queue, table] = await threePorts();
    ports = { blob, queue, table };
    cs = devConnectionString(ports);
    workspace = makeTempDir('storage-emulators-e2e-reload-');
    server = await startCodeServer({
      workspaceFolder: workspace.dir,
      extensionDevelopmentPath: extensionPath,
      userSettings: {
        'azurite.blobPort': blob,
        'azurite.queuePort': queue,
        'azurite.tablePort': table,
        'azurite.inMemoryPersistence': false,
        'azurite.autoStart': 'all',
        // An older build has no API-version seam; today's SDKs need the check off there.
        ...(extensionPath !== repoRoot ? { 'azurite.skipApiVersionCheck': true } : {}),
      },
    });
    browser = await launchBrowser({ origin: server.origin });
    page = await browser.context.newPage();
    await page.goto(server.url);
  });

  after(async () => {
    try { await browser?.close(); } finally { try { await server?.stop(); } finally { workspace?.remove(); } }
  });

  it(`keeps ${BLOBS} blobs, ${MESSAGES} messages and ${ENTITIES} entities across "Developer: Reload Window"`, async () => {
    await waitForRunning(page, ports, 'first window');
    const container = BlobServiceClient.fromConnectionString(cs).getContainerClient('reload');
    await container.create();
    const queue = QueueServiceClient.fromConnectionString(cs).getQueueClient('reload');
    await queue.create();
    const table = TableClient.fromConnectionString(cs, 'reload', { allowInsecureConnection: true });
    await table.createTable();
    await Promise.all([
      inParallel(BLOBS, 8, (i) => container.getBlockBlobClient(`b${i}`).uploadData(Buffer.from(`blob ${i}`))),
      inParallel(MESSAGES, 8, (i) => queue.sendMessage(`message ${i}`)),
      inParallel(ENTITIES, 8, (i) => table.createEntity({ partitionKey: 'p', rowKey: `r${i}`, n: i })),
    ]);

    // This build loads its own code through a V8 code cache that the first window saves once its
    // warm-up has settled (long done by now); the reloaded window must use it.
    const codeCacheDir = path.join(server.userDataDir, 'User', 'globalStorage', 'storage-emulators.storage-emulators', 'code-cache');
    const ownBuild = extensionPath === repoRoot;
    if (ownBuild) {
      await waitFor('the extension\'s code cache file', () => fs.existsSync(codeCacheDir) && fs.readdirSync(codeCacheDir).some((f) => /^main-[0-9a-f]{8}-[0-9a-f]{16}\.cache$/.test(f)),
        { timeoutMs: 10_000, intervalMs: 50 });
    }

    // At once (every write acknowledged, well inside azurite's 5 s autosave interval), as a person
    // would: the command palette.
    const written = Date.now();
    await page.keyboard.press('F1');
    await page.keyboard.type('Developer: Reload Window');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Reload Window' }).first().waitFor({ timeout: 10_000 });
    const reloaded = page.waitForEvent('load', { timeout: 60_000 });
    await page.keyboard.press('Enter');
    process.stderr.write(`e2e: reload asked ${Date.now() - written} ms after the last write\n`);
    await reloaded;

    await waitForRunning(page, ports, 'after the reload');
    for (const kind of KINDS) assert.equal(typeof (await httpStatus(`http://127.0.0.1:${ports[kind]}/devstoreaccount1`)), 'number');
    assert.deepEqual(await countAll(cs), { blobs: BLOBS, messages: MESSAGES, entities: ENTITIES }, 'after the reload: 0 lost');

    const logs = extensionHostLogs(server.userDataDir);
    // Only our throws count: VS Code's own json-language-features logs to its closed channel too.
    const ours = logs.split(/\n(?=\d{4}-\d\d-\d\d )/).filter((entry) => entry.includes('Channel has been closed') && entry.includes(`${extensionPath}${path.sep}dist${path.sep}`));
    assert.deepEqual(ours, [], 'the extension host log shows our closed-channel throw');
    assert.ok(!logs.includes('did not finish saving'), 'no unfinished save reported');
    if (ownBuild) assert.match(logs, /Extension code cache: used/, 'the reloaded window loads the extension\'s code through the cache the first window saved');
    for (const kind of KINDS) {
      assert.ok(!fs.existsSync(path.join(workspace.dir, '.azurite', `__storage_emulators_saving_${kind}__.json`)), `no ${kind} save marker left`);
    }
  });
});
