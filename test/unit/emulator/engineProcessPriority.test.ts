/**
 * The engine's process yields the CPU to the editor while it serves: once the engine has loaded,
 * every thread of it (the one that runs JavaScript, V8's garbage-collection helpers, libuv's pool)
 * runs at nice 19 on Linux. It loads the engine at normal priority (a click in a window that is
 * still opening waits for the load). The process running the tests keeps its own priorities.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { EngineHost } from '../../../src/emulator/engineHost';
import * as os from 'node:os';
import { ENGINE_NICENESS, enginePriority } from '../../../src/emulator/engineProtocol';
import { engineFiles } from '../helpers/emulatorFixture';

/** The nice values of the threads of process `pid` (field 19 of /proc/PID/task/TID/stat). */
function threadNiceValues(pid: number | 'self'): number[] {
  return fs.readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[16]);
  });
}

describe('Engine process priority', function () {
  this.timeout(60_000);
  let host: EngineHost | undefined;
  afterEach(async () => { await host?.terminate(); host?.dispose(); });

  it('runs every thread at nice 19 after the warm-up, at normal priority during the load, and leaves the host\'s threads alone', async function () {
    if (process.platform !== 'linux') this.skip();
    const ours = threadNiceValues('self');
    host = new EngineHost({ ...engineFiles(), codeCacheDir: undefined, heapLimitMb: () => 512, log: { info() {}, error() {} } },
      { extentLimitBytes: undefined, apiVersionCheck: 'acceptNewer' });
    await host.load(); // the first step of the warm-up and of every start
    const pid = host.pid;
    assert.ok(pid !== undefined && pid !== process.pid, 'the engine runs in a process of its own');
    const during = threadNiceValues(pid);
    assert.ok(during.length >= 4, `the engine process has its helper threads (${during.length})`);
    assert.ok(during.every((n) => n < ENGINE_NICENESS), `the load runs at normal priority: ${during.join(' ')}`);
    await host.preload(); // the rest of the warm-up
    const after = threadNiceValues(pid);
    assert.deepEqual([...new Set(after)], [ENGINE_NICENESS], `every thread at nice ${ENGINE_NICENESS} once loaded: ${after.join(' ')}`);
    assert.deepEqual(threadNiceValues('self').filter((n) => n === ENGINE_NICENESS).length, ours.filter((n) => n === ENGINE_NICENESS).length, 'no thread of this process was lowered');
  });

  it('lowers itself to nice 19 on Linux and macOS, and to Below Normal (not Idle) on Windows', () => {
    assert.equal(enginePriority('linux'), 19);
    assert.equal(enginePriority('darwin'), 19);
    assert.equal(enginePriority('win32'), os.constants.priority.PRIORITY_BELOW_NORMAL);
  });
});
