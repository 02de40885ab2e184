/**
 * The engine's load and warm-up (src/emulator/engineLoader.ts) over the real engine host and engine:
 * shared while under way, logged once per engine process, given up past the bound with the process
 * ended, and started afresh after the engine's process ends.
 */
import * as assert from 'node:assert/strict';
import { EngineHost } from '../../../src/emulator/engineHost';
import { EngineLoader } from '../../../src/emulator/engineLoader';
import { engineFiles } from '../helpers/emulatorFixture';

describe('EngineLoader (the engine brought up once per process)', function () {
  this.timeout(60_000);
  let host: EngineHost | undefined;
  afterEach(async () => { await host?.terminate(); host?.dispose(); host = undefined; });

  function makeHost(): EngineHost {
    host = new EngineHost({ ...engineFiles(), codeCacheDir: undefined, heapLimitMb: () => 512, log: { info() {}, error() {} } },
      { extentLimitBytes: undefined, apiVersionCheck: 'acceptNewer' });
    return host;
  }
  function makeLoader(h: EngineHost, loadBoundMs?: number): { loader: EngineLoader; lines: string[] } {
    const lines: string[] = [];
    return { loader: new EngineLoader(h, { info: (l) => lines.push(l) }, loadBoundMs), lines };
  }

  it('loads once for every caller: loads under way are shared, later ones resolve at once, one line in the log', async () => {
    const h = makeHost();
    const { loader, lines } = makeLoader(h);
    await Promise.all([loader.load(), loader.load(), loader.load()]);
    const pid = h.pid;
    await loader.load();
    assert.equal(h.pid, pid);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^Engine loaded in \d+ ms \(in its process: \d+ ms\)$/);
  });

  it('warms up once: the load, then every service\'s code, each logged once; a start\'s load meanwhile shares the warm-up\'s', async () => {
    const h = makeHost();
    const { loader, lines } = makeLoader(h);
    await Promise.all([loader.warmUp(), loader.load(), loader.warmUp()]);
    await loader.warmUp();
    assert.equal(lines.length, 2, lines.join('\n'));
    assert.match(lines[0]!, /^Engine loaded in /);
    assert.match(lines[1]!, /^Engine warm-up done: every service's code loaded in \d+ ms\.$/);
  });

  it('a load past its bound fails with a message a person can act on and ends the engine\'s process; the next load tries again', async () => {
    const h = makeHost();
    const { loader } = makeLoader(h, 1);
    await assert.rejects(loader.load(), /^Error: it did not load within .*; try again$/);
    assert.equal(h.isRunning, false, 'the stuck engine is ended');
    await assert.rejects(loader.load(), /did not load within/, 'tried again, not the old failure kept');
    // The same host, with a loader that waits long enough, brings a new process up.
    await makeLoader(h).loader.load();
    assert.equal(h.isRunning, true);
  });

  it('a load past its bound ends the process, reported as the engine\'s loss, and a start waiting on that process fails', async function () {
    if (process.platform === 'win32') this.skip(); // SIGSTOP
    const h = makeHost();
    const service = h.createService({
      kind: 'table', host: '127.0.0.1', port: 0, inMemory: true, location: '/nonexistent', loose: false, accessLog: undefined,
      keepAliveSec: 5, https: undefined, oauth: undefined, disableProductStyleUrl: false,
    });
    const lost = new Promise<string>((resolve) => { const d = h.onDidExit((e) => { d.dispose(); resolve(e.reason); }); });
    // A start loads its process first (a crash's new one too): it brings one up at once.
    const starting = service.start();
    const pid = h.pid!;
    // Held off the CPU, the engine answers no load.
    process.kill(pid, 'SIGSTOP');
    try {
      await assert.rejects(makeLoader(h, 200).loader.load(), /did not load within 200 ms/);
      assert.match(await lost, /^it did not load within 200 ms/);
      await assert.rejects(starting);
      assert.equal(h.isRunning, false);
    } finally {
      try { process.kill(pid, 'SIGCONT'); } catch { /* ended */ }
    }
  });

  it('after the engine\'s process ends, forget() makes the next load and warm-up bring a new one up', async () => {
    const h = makeHost();
    const { loader, lines } = makeLoader(h);
    const forgetting = h.onDidExit(() => loader.forget());
    try {
      await loader.warmUp();
      const first = h.pid;
      const exited = new Promise<void>((resolve) => { const d = h.onDidExit(() => { d.dispose(); resolve(); }); });
      await h.crashForTest();
      await exited;
      await loader.warmUp();
      assert.ok(h.pid !== undefined && h.pid !== first, 'a new process');
      assert.equal(lines.filter((l) => l.startsWith('Engine loaded')).length, 2);
      assert.equal(lines.filter((l) => l.startsWith('Engine warm-up done')).length, 2);
    } finally {
      forgetting.dispose();
    }
  });

  it('a load that fails after the engine was lost and a new load began leaves the new load in place', async () => {
    const h = makeHost();
    const { loader } = makeLoader(h);
    let second: Promise<void> | undefined;
    // As Emulator does on a lost engine, and a start that follows at once.
    const onExit = h.onDidExit(() => { loader.forget(); second = loader.load(); });
    try {
      const first = loader.load();
      process.kill(h.pid!, 'SIGKILL'); // the process is forked by the load's first request
      await assert.rejects(first, /the emulator engine stopped: it was ended by SIGKILL/);
      assert.ok(second !== undefined, 'the exit was reported');
      assert.equal(loader.load(), second, 'later callers share the new load');
      await second;
      assert.equal(h.isRunning, true);
    } finally {
      onExit.dispose();
    }
  });
});
