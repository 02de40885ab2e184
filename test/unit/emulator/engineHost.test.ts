/**
 * The engine host's process, against the real engine: how it ends and what the extension host is
 * told (the reason a person reads), and that the next request brings a new process up. The crash
 * in a real VS Code is test/integration/engineHost.test.ts.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeExit, ENGINE_V8_FLAGS, EngineHost, engineEnvironment, failureLine, heapCapMb, type EngineExit } from '../../../src/emulator/engineHost';
import { engineFiles } from '../helpers/emulatorFixture';

/** Polls every 20 ms until `file` exists. @throws after 30 s */
async function waitForFile(file: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} was not written within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('EngineHost (the engine in its own process)', function () {
  this.timeout(60_000);
  let host: EngineHost | undefined;
  afterEach(async () => { await host?.terminate(); host?.dispose(); host = undefined; });

  function makeHost(heapLimitMb = 512): EngineHost {
    host = new EngineHost({ ...engineFiles(), codeCacheDir: undefined, heapLimitMb: () => heapLimitMb, log: { info() {}, error() {} } },
      { extentLimitBytes: undefined, apiVersionCheck: 'acceptNewer' });
    return host;
  }
  const nextExit = (h: EngineHost): Promise<EngineExit> => new Promise((resolve) => { const d = h.onDidExit((e) => { d.dispose(); resolve(e); }); });

  it('starts the engine\'s process with the heap limit and the engine\'s V8 flags, not the extension host\'s flags', async function () {
    if (process.platform !== 'linux') this.skip(); // /proc/PID/cmdline
    const h = makeHost(640);
    await h.load();
    const args = fs.readFileSync(`/proc/${h.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    assert.deepEqual(args.slice(1, 2 + ENGINE_V8_FLAGS.length), ['--max-old-space-size=640', ...ENGINE_V8_FLAGS]);
    for (const flag of process.execArgv) assert.ok(!args.includes(flag) || ENGINE_V8_FLAGS.includes(flag), `the host's ${flag} is not passed on`);
  });

  it('the engine\'s process does not get the extension host\'s NODE_OPTIONS (a debugger\'s --require bootloader), in any case of the name', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-env-'));
    const marker = path.join(dir, 'loaded');
    const preload = path.join(dir, 'preload.js');
    fs.writeFileSync(preload, `require('fs').writeFileSync(${JSON.stringify(marker)}, String(process.pid));\n`);
    // Made first: the fixture's engine build runs node itself, which the variable would reach.
    const h = makeHost();
    const saved = { NODE_OPTIONS: process.env.NODE_OPTIONS, VSCODE_INSPECTOR_OPTIONS: process.env.VSCODE_INSPECTOR_OPTIONS };
    process.env.NODE_OPTIONS = `--require ${JSON.stringify(preload)}`;
    process.env.VSCODE_INSPECTOR_OPTIONS = '{}';
    try {
      await h.load();
      assert.equal(fs.existsSync(marker), false, 'NODE_OPTIONS\' --require did not run in the engine\'s process');
    } finally {
      for (const [name, value] of Object.entries(saved)) { if (value === undefined) delete process.env[name]; else process.env[name] = value; }
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(engineEnvironment({ node_options: '--inspect', Vscode_Inspector_Options: '{}', PATH: '/bin' }), { PATH: '/bin' });
  });

  it('an uncaught exception ends the engine\'s process with its message as the reason; the next request starts a new process', async () => {
    const h = makeHost();
    await h.load();
    const first = h.pid;
    const exit = nextExit(h);
    await h.crashForTest();
    assert.equal((await exit).reason, 'an uncaught error in the engine: engine crash forced by a test (crashForTest)');
    assert.equal(h.isRunning, false);
    await h.load();
    assert.ok(h.pid !== undefined && h.pid !== first, 'a new process');
  });

  it('past azurite.engine.heapLimit the process ends and the reason says it ran out of memory, naming the setting; so do the requests it left unanswered', async () => {
    const h = makeHost(128);
    await h.load();
    const exit = nextExit(h);
    await h.exhaustHeapForTest();
    // Sent while the engine fills its heap without a pause: never answered.
    const unanswered = h.stats();
    assert.deepEqual(await exit, { reason: 'it ran out of memory (azurite.engine.heapLimit is 128 MB)', setting: 'azurite.engine.heapLimit' });
    await assert.rejects(unanswered, (err: Error & { code?: string; setting?: string }) => {
      assert.equal(err.message, 'the emulator engine stopped: it ran out of memory (azurite.engine.heapLimit is 128 MB)');
      assert.deepEqual([err.code, err.setting], ['ENGINE_GONE', 'azurite.engine.heapLimit']);
      return true;
    });
  });

  it('a process killed from outside is reported with its signal, and pending requests fail with the reason', async () => {
    const h = makeHost();
    await h.load();
    const exit = nextExit(h);
    process.kill(h.pid!, 'SIGKILL');
    assert.deepEqual(await exit, { reason: 'it was ended by SIGKILL' }, 'nothing held in memory: no hint, no setting');
  });

  it('a service whose engine process ended stops, reclaims and reports at once, without starting a new process for it', async () => {
    const h = makeHost();
    const service = h.createService({
      kind: 'blob', host: '127.0.0.1', port: 0, inMemory: true, location: '/nonexistent', loose: false, accessLog: undefined,
      keepAliveSec: 5, https: undefined, oauth: undefined, disableProductStyleUrl: false,
    });
    await service.start();
    const exit = nextExit(h);
    process.kill(h.pid!, 'SIGKILL');
    await exit;
    await service.stop();
    assert.equal(await service.reclaim(1000), 0);
    assert.equal(await service.contentBytes(), undefined);
    assert.equal(h.isRunning, false, 'no engine process was started to answer for a service it never had');
  });

  it('terminate() resolves once the process has exited, and fires no exit event', async () => {
    const h = makeHost();
    await h.load();
    const pid = h.pid!;
    let fired = false;
    h.onDidExit(() => { fired = true; });
    await h.terminate();
    assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the process is gone');
    assert.equal(fired, false);
  });

  it('a process that exits before it can report names the line of its stderr that says why', async () => {
    host = new EngineHost({ ...engineFiles(), processPath: '/nonexistent/engineProcess.js', codeCacheDir: undefined, heapLimitMb: () => 512, log: { info() {}, error() {} } },
      { extentLimitBytes: undefined, apiVersionCheck: 'acceptNewer' });
    const exit = nextExit(host);
    await assert.rejects(host.load(), /it exited with code 1: Error: Cannot find module '\/nonexistent\/engineProcess\.js'/);
    assert.equal((await exit).reason, "it exited with code 1: Error: Cannot find module '/nonexistent/engineProcess.js'");
  });

  it('an out-of-memory end is named as such although a long native stack trace after V8\'s line fills the stderr kept', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emu-oom-'));
    const stub = path.join(dir, 'oomProcess.js');
    // What Node prints when the heap limit is reached, then frames of a binary with a long path (a remote server's node).
    fs.writeFileSync(stub, [
      "process.stderr.write('\\n<--- Last few GCs --->\\n\\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\\n');",
      "for (let i = 0; i < 40; i++) process.stderr.write(` ${i}: 0x${(0xb7e000 + i).toString(16)} node::OOMErrorHandler(char const*, v8::OOMDetails const&) [/home/someone/.vscode-server/cli/servers/Stable-0123456789abcdef/server/node]\\n`);",
      "process.kill(process.pid, 'SIGABRT');",
    ].join('\n'));
    try {
      host = new EngineHost({ ...engineFiles(), processPath: stub, codeCacheDir: undefined, heapLimitMb: () => 512, log: { info() {}, error() {} } },
        { extentLimitBytes: undefined, apiVersionCheck: 'acceptNewer' });
      const exit = nextExit(host);
      await assert.rejects(host.load());
      assert.equal((await exit).reason, 'it ran out of memory (azurite.engine.heapLimit is 512 MB)');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('engines of windows with different heap limits keep a code cache each in the shared folder: each is used by its next engine, not refused', async () => {
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emu-cache-flags-'));
    const loadWith = async (heapLimitMb: number): Promise<string | undefined> => {
      const h = new EngineHost({ ...engineFiles(), codeCacheDir: cacheDir, heapLimitMb: () => heapLimitMb, log: { info() {}, error() {} } },
        { extentLimitBytes: undefined, apiVersionCheck: 'acceptNewer' });
      try {
        const loaded = await h.load();
        // The warm-up writes the cache once every service's code has run its top level.
        await h.preload();
        await waitForFile(loaded.codeCacheFile!);
        return loaded.codeCache;
      } finally {
        await h.terminate();
        h.dispose();
      }
    };
    try {
      assert.equal(await loadWith(512), 'missing');
      assert.equal(await loadWith(640), 'missing');
      assert.equal(await loadWith(512), 'used');
      assert.equal(await loadWith(640), 'used');
    } finally {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('a request that cannot be sent fails at once and leaves nothing waiting for its answer', async () => {
    const h = makeHost();
    await h.load();
    const service = h.createService({
      kind: 'blob', host: '127.0.0.1', port: 0, inMemory: true, location: '/nonexistent', loose: false, accessLog: undefined,
      keepAliveSec: 5, https: undefined, oauth: undefined, disableProductStyleUrl: false,
      // A function cannot cross to the engine's process (structured clone).
      ...({ notCloneable: () => 1 } as object),
    });
    await assert.rejects(service.start(), /could not be cloned/);
    assert.equal((h as unknown as { pending: Map<number, unknown> }).pending.size, 0);
    assert.ok((await h.load()).loadMs >= 0, 'the process still answers');
  });

  it('a second terminate() (or shutDown()) while one is under way resolves only once the process has exited', async () => {
    const h = makeHost();
    await h.load();
    const pid = h.pid!;
    void h.terminate();
    await h.shutDown();
    assert.throws(() => process.kill(pid, 0), /ESRCH/);
  });

  it('picks the telling line of stderr: the error, not the stack or Node\'s version line', () => {
    const notFound = "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/x.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)\n{\n  code: 'MODULE_NOT_FOUND'\n}\n\nNode.js v20.20.2\n";
    assert.equal(failureLine(notFound), "Error: Cannot find module '/x.js'");
    assert.equal(failureLine('/usr/bin/node: bad option: --nope\n'), '/usr/bin/node: bad option: --nope');
    assert.equal(failureLine(''), undefined);
    assert.equal(failureLine('x'.repeat(400))?.length, 300);
    assert.deepEqual(describeExit({ fatal: undefined, stderrTail: notFound, code: 0, signal: null }, 512), { reason: 'it exited with code 0' });
    assert.deepEqual(describeExit({ fatal: undefined, stderrTail: 'Error: late\n', code: null, signal: 'SIGSEGV' }, 512), { reason: 'it was ended by SIGSEGV' });
  });

  it('a SIGKILL while the store held a quarter of the system\'s memory or more says the system may have run out of memory, naming azurite.extentMemoryLimit', () => {
    const GiB = 1024 ** 3;
    const killed = { fatal: undefined, stderrTail: '', code: null, signal: 'SIGKILL' as const };
    assert.deepEqual(describeExit(killed, 2048, undefined, { storeBytes: 2 * GiB, systemBytes: 8 * GiB }), {
      reason: 'it was ended by SIGKILL, which this extension did not send; it held 2 GB of blob and queue content in memory, of the 8 GB this system has, so the system may have run out of memory and ended it (azurite.extentMemoryLimit caps that content)',
      setting: 'azurite.extentMemoryLimit',
    });
    assert.deepEqual(describeExit(killed, 2048, undefined, { storeBytes: 2 * GiB - 1, systemBytes: 8 * GiB }), { reason: 'it was ended by SIGKILL' }, 'under a quarter: nothing to say');
    assert.deepEqual(describeExit(killed, 2048), { reason: 'it was ended by SIGKILL' }, 'nothing known of the store');
    assert.deepEqual(describeExit({ ...killed, signal: 'SIGTERM' }, 2048, undefined, { storeBytes: 6 * GiB, systemBytes: 8 * GiB }), { reason: 'it was ended by SIGTERM' }, 'only SIGKILL is what the system\'s out-of-memory killer sends');
  });

  it('knows the heap the runtime allows the engine: the setting here (Node), a cap below it named in the out-of-memory reason', async () => {
    const h = makeHost(640);
    const loaded = await h.load();
    assert.ok(loaded.heapSizeLimitBytes >= 640 * 1024 * 1024, String(loaded.heapSizeLimitBytes));
    assert.equal(heapCapMb(640, loaded.heapSizeLimitBytes), undefined, 'plain Node gives the engine the heap asked for');
    // What Electron's pointer compression gives for 8192 MB: about 4 GB.
    assert.equal(heapCapMb(8192, 4096 * 1024 * 1024 + 5), 4096);
    assert.equal(heapCapMb(undefined, 1), undefined);
    const oom = { fatal: undefined, stderrTail: 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n', code: null, signal: 'SIGABRT' as const };
    assert.deepEqual(describeExit(oom, 8192), { reason: 'it ran out of memory (azurite.engine.heapLimit is 8192 MB)', setting: 'azurite.engine.heapLimit' });
    assert.deepEqual(describeExit(oom, 8192, 4096), { reason: 'it ran out of memory (azurite.engine.heapLimit is 8192 MB, but VS Code\'s runtime lets the engine\'s heap grow to about 4096 MB only)', setting: 'azurite.engine.heapLimit' });
  });

  it('shutDown() refuses requests at once, while it waits for the process to exit: none starts a new process', async () => {
    const h = makeHost();
    await h.load();
    const pid = h.pid!;
    const closing = h.shutDown();
    await assert.rejects(h.load(), /^Error: the emulator engine was shut down$/);
    assert.equal(h.pid, undefined);
    await closing;
    assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the process is gone');
    assert.equal(h.pid, undefined, 'no new process');
  });

  it('after dispose() every request fails and no process is started again', async () => {
    const h = makeHost();
    await h.load();
    await h.terminate();
    h.dispose();
    await assert.rejects(h.load(), /^Error: the emulator engine was shut down$/);
    assert.equal(h.pid, undefined);
  });
});
