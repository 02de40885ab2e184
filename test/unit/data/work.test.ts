/**
 * The data layer's worker pool (src/data/work.ts): at most `concurrency` items at once, and after a
 * failure or an abort it settles only once the items under way have ended. And readLines: an abort
 * ends a read part-way.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pool, readLines } from '../../../src/data/work';

/** A promise and its resolve function. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => { open = resolve; });
  return { promise, open };
}

describe('pool', () => {
  it('runs at most `concurrency` items at once, every item once', async () => {
    let active = 0;
    let most = 0;
    const done: number[] = [];
    await pool(Array.from({ length: 20 }, (_, i) => i), { concurrency: 3 }, async (i) => {
      most = Math.max(most, ++active);
      await new Promise((r) => setImmediate(r));
      active--;
      done.push(i);
    });
    assert.equal(most, 3);
    assert.deepEqual(done.sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i));
  });

  it('after an abort begins no item and rejects with the AbortError only once the items under way have ended', async () => {
    const abort = new AbortController();
    const gates = [gate(), gate(), gate()];
    const began: number[] = [];
    let ended = 0;
    const running = pool([0, 1, 2, 3, 4, 5], { concurrency: 3, signal: abort.signal }, async (i) => {
      began.push(i);
      await gates[i]!.promise;
      ended++;
    });
    let settled = false;
    void running.catch(() => undefined).finally(() => { settled = true; });
    abort.abort();
    gates[0]!.open();
    // Item 0's worker sees the abort; items 1 and 2 are still under way.
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false, 'still waiting for items 1 and 2');
    gates[1]!.open();
    gates[2]!.open();
    await assert.rejects(running, { name: 'AbortError' });
    assert.equal(ended, 3);
    assert.deepEqual(began, [0, 1, 2]);
  });

  it('after a failure begins no item, waits for the items under way and rejects with the first failure', async () => {
    const slow = gate();
    let slowEnded = false;
    const running = pool([0, 1, 2, 3], { concurrency: 2 }, async (i) => {
      if (i === 0) throw new Error('item 0 failed');
      if (i === 1) { await slow.promise; slowEnded = true; return; }
      assert.fail(`item ${i} began after a failure`);
    });
    let settled = false;
    void running.catch(() => undefined).finally(() => { settled = true; });
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false);
    slow.open();
    await assert.rejects(running, /item 0 failed/);
    assert.equal(slowEnded, true);
  });
});

describe('readLines', () => {
  it('ends part-way once its signal aborts, at the next piece it reads', async function () {
    if (process.platform === 'win32') this.skip(); // a named pipe made by mkfifo
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lines-'));
    try {
      // A FIFO: the second piece reaches the reader only after the abort, whatever the timing.
      const fifo = path.join(dir, 'orders.jsonl');
      assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
      const abort = new AbortController();
      // Settled as soon as it ends (it may end before the writes below do).
      const reading = readLines(fifo, abort.signal).then(() => 'read to the end', (err: unknown) => err);
      const writer = await fs.promises.open(fifo, 'w'); // opens once the reader has
      await writer.write('{"text":"first"}\n');
      abort.abort();
      // The reader may have ended already (EPIPE): what matters is that it rejects.
      await writer.write('{"text":"second"}\n').catch(() => undefined);
      await writer.close();
      const ended = await reading;
      assert.ok(ended instanceof Error && ended.name === 'AbortError', `ended with ${String(ended)}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
