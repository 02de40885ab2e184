/**
 * The save marker's process check (src/emulator/shutdownMarker.ts): a marker names the engine
 * process that saves; a start waits only while that very process runs. On Linux a process that got
 * the id later (after a reboot, or the id reused) is told apart by the boot's id and its start time.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beginSave, markerFileName, startedBeforeBoot, takeUnfinishedSave, waitForLiveSave } from '../../../src/emulator/shutdownMarker';
import { tempDir } from '../helpers/emulatorFixture';

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
function startTicks(pid: number): string {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

describe('save marker: whose save is still under way', function () {
  this.timeout(30_000);
  let child: ChildProcess;
  let location: string;
  before(function () {
    if (!fs.existsSync('/proc/self/stat')) this.skip(); // Linux only
  });
  beforeEach(async () => {
    location = tempDir('marker-');
    child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
  });
  afterEach(() => {
    child.kill('SIGKILL');
    fs.rmSync(location, { recursive: true, force: true });
  });

  const mark = (fields: Record<string, unknown>): void =>
    fs.writeFileSync(path.join(location, markerFileName('blob')), JSON.stringify({ kind: 'blob', startedAtMs: Date.now(), pid: child.pid, ...fields }));
  const waited = async (): Promise<boolean | 'cancelled' | undefined> => (await waitForLiveSave(location, 'blob', { boundMs: 200 }))?.ended;

  it('waits while the process that began the save runs (same boot, same start time, or no such fields)', async () => {
    const bootId = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    mark({ bootId, startTicks: startTicks(child.pid!) });
    assert.equal(await waited(), false, 'still saving at the bound');
    mark({});
    assert.equal(await waited(), false, 'a marker without the fields: the id alone decides');
  });

  it('a start that reads the marker while another window writes it never sees it half-written, so never takes a save under way', async () => {
    // Another window's engine beginning saves, one after another, for 2 s.
    const compiled = path.resolve(__dirname, '..', '..', '..', 'src', 'emulator', 'shutdownMarker.js');
    const writer = spawn(process.execPath, ['-e', `
      const { beginSave } = require(${JSON.stringify(compiled)});
      beginSave(${JSON.stringify(location)}, 'blob');
      process.stdout.write('ready');
      const end = Date.now() + 2000;
      while (Date.now() < end) beginSave(${JSON.stringify(location)}, 'blob');`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    try {
      await new Promise((resolve) => writer.stdout!.once('data', resolve));
      let reads = 0;
      const taken: unknown[] = [];
      // Until well before the writer ends: a marker of an ended process is rightly taken.
      const until = Date.now() + 1000;
      while (Date.now() < until) {
        reads++;
        const save = await takeUnfinishedSave(location, 'blob');
        if (save !== undefined) taken.push(save);
      }
      assert.ok(reads > 50, `only ${reads} reads while the other window wrote`);
      assert.deepEqual(taken, [], `taken ${taken.length} times in ${reads} reads`);
      await exited;
      assert.deepEqual(fs.readdirSync(location).filter((f) => f.endsWith('.tmp')), [], 'no temporary file left once the writer ended');
    } finally {
      writer.kill('SIGKILL');
      await exited;
    }
  });

  it('beginSave records the process, the boot and the process\'s start time', () => {
    beginSave(location, 'blob');
    const marker = JSON.parse(fs.readFileSync(path.join(location, markerFileName('blob')), 'utf8')) as Record<string, unknown>;
    assert.equal(marker.pid, process.pid);
    assert.equal(marker.bootId, fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
    // Read here another way: the 20th value after the state field (field 3) is field 22, the start time.
    const m = /\) (?:\S+ ){19}(\d+) /.exec(fs.readFileSync('/proc/self/stat', 'utf8'));
    assert.equal(marker.startTicks, m?.[1]);
  });

  it('a start\'s report of unfinished saves leaves the marker of a save under way in another process that runs (another window\'s stop), and takes one of an ended save', async () => {
    const bootId = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const file = path.join(location, markerFileName('blob'));
    mark({ bootId, startTicks: startTicks(child.pid!) });
    assert.equal(await takeUnfinishedSave(location, 'blob'), undefined);
    assert.ok(fs.existsSync(file), 'the marker stays: a start meanwhile must still wait for that save');
    // The window's own engine: a marker of its process is one whose removal failed, reported.
    assert.equal((await takeUnfinishedSave(location, 'blob', child.pid))?.pid, child.pid);
    assert.ok(!fs.existsSync(file));
    mark({ bootId, startTicks: startTicks(child.pid!), ended: true });
    assert.equal((await takeUnfinishedSave(location, 'blob'))?.pid, child.pid, 'a save marked ended is reported');
    mark({ bootId, startTicks: startTicks(child.pid!) });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    assert.equal((await takeUnfinishedSave(location, 'blob'))?.pid, child.pid, 'a save whose process ended is reported');
    assert.ok(!fs.existsSync(file), 'once');
  });

  it('without /proc\'s fields (macOS, Windows), does not wait for a save begun before this machine booted, whatever runs under its id now', async () => {
    // A marker as macOS and Windows write it (no bootId, no startTicks), of a process that runs.
    mark({ startedAtMs: Date.now() - 60_000 });
    assert.equal((await waitForLiveSave(location, 'blob', { boundMs: 200 }))?.ended, false, 'begun after the boot: waited for');
    // The machine booted 30 s ago (after a power loss, say), and the id went to another process.
    assert.equal(await waitForLiveSave(location, 'blob', { boundMs: 200, bootedAtMs: Date.now() - 30_000 }), undefined);
    assert.equal(startedBeforeBoot(Date.now() - 60_000, Date.now() - 30_000), true);
    assert.equal(startedBeforeBoot(Date.now() - 1000, Date.now() - 2000), false, 'within the slack of os.uptime()');
  });

  it('does not wait for a process that only has the id now: another start time, or a boot before this one', async () => {
    mark({ startTicks: String(Number(startTicks(child.pid!)) - 1) });
    assert.equal(await waited(), undefined);
    mark({ bootId: '00000000-0000-0000-0000-000000000000', startTicks: startTicks(child.pid!) });
    assert.equal(await waited(), undefined);
  });
});
