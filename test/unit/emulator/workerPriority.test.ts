/**
 * The engine's worker thread yields the CPU to the editor while it serves (nice +10 on Linux), but
 * loads the engine at normal priority (a click in a window that is still opening waits for the load).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { disposeAfterEach, makeEmulator } from '../helpers/emulatorFixture';

/** The nice values of this process's threads (field 19 of /proc/self/task/<tid>/stat). */
function threadNiceValues(): number[] {
  return fs.readdirSync('/proc/self/task').map((tid) => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[16]);
  });
}

describe('Engine worker priority', function () {
  this.timeout(60_000);
  const track = disposeAfterEach();

  it('runs at nice +10 after the warm-up, not during the load', async function () {
    if (process.platform !== 'linux') this.skip();
    const base = Math.min(...threadNiceValues());
    const lowered = () => threadNiceValues().filter((n) => n === Math.min(19, base + 10)).length;
    const before = lowered();
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await emulator.memoryReportNow(); // brings the engine up (its 'memory' request loads it) without a warm-up or a start
    assert.equal(lowered(), before, 'the load runs at normal priority');
    await emulator.warmUp();
    assert.equal(lowered(), before + 1, 'one thread (the engine\'s) runs at nice +10 once it has loaded');
  });
});
