/** lifecycleQueue.ts: one operation at a time per service; the same verb under way is shared, not repeated. */
import * as assert from 'node:assert/strict';
import { failure, type Outcome } from '../../../src/core/outcome';
import { LifecycleQueue } from '../../../src/emulator/lifecycleQueue';

/** An operation that records its start and finishes when `finish()` is called. */
function gate(log: string[], name: string): { op: () => Promise<Outcome>; finish: (o?: Outcome) => void } {
  let finish: (o: Outcome) => void = () => undefined;
  const done = new Promise<Outcome>((resolve) => { finish = resolve; });
  return { op: () => { log.push(`${name} began`); return done; }, finish: (o = { ok: true }) => finish(o) };
}

describe('emulator/lifecycleQueue', () => {
  const queue = () => new LifecycleQueue<string, string>((key, err) => failure('other', `${key}: ${(err as Error).message}`));

  it('names the latest verb asked for a key until every operation of it has finished', async () => {
    const q = queue();
    const log: string[] = [];
    const start = gate(log, 'start');
    const stop = gate(log, 'stop');
    assert.equal(q.latest('blob'), undefined);
    const started = q.run('blob', 'start', start.op);
    assert.equal(q.latest('blob'), 'start');
    const stopped = q.run('blob', 'stop', stop.op);
    assert.equal(q.latest('blob'), 'stop', 'the one asked for last, though the start runs');
    assert.equal(q.latest('queue'), undefined);
    start.finish();
    await started;
    assert.equal(q.latest('blob'), 'stop');
    stop.finish();
    await stopped;
    assert.equal(q.latest('blob'), undefined);
  });

  it('runs a second verb only after the first has finished, per key; other keys do not wait', async () => {
    const q = queue();
    const log: string[] = [];
    const start = gate(log, 'start');
    const stop = gate(log, 'stop');
    const other = gate(log, 'other');
    const started = q.run('blob', 'start', start.op);
    const stopped = q.run('blob', 'stop', stop.op);
    const otherDone = q.run('queue', 'start', other.op);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(log, ['start began', 'other began']);
    start.finish();
    assert.deepEqual(await started, { ok: true });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(log, ['start began', 'other began', 'stop began']);
    stop.finish(failure('state', 'no'));
    assert.deepEqual(await stopped, failure('state', 'no'));
    other.finish();
    await otherDone;
  });

  it('shares the outcome of the same verb under way instead of running it twice', async () => {
    const q = queue();
    const log: string[] = [];
    const first = gate(log, 'first');
    const a = q.run('blob', 'start', first.op);
    const b = q.run('blob', 'start', () => { log.push('second began'); return Promise.resolve({ ok: true }); });
    assert.equal(a, b);
    first.finish();
    await b;
    assert.deepEqual(log, ['first began']);
    // Once finished, the same verb runs again.
    await q.run('blob', 'start', () => { log.push('third began'); return Promise.resolve({ ok: true }); });
    assert.deepEqual(log, ['first began', 'third began']);
  });

  it('shares only the latest operation asked for: start, stop, start runs all three', async () => {
    const q = queue();
    const log: string[] = [];
    const ops = ['start', 'stop', 'start'].map((verb, i) => q.run('blob', verb, async () => { log.push(`${verb} ${i}`); return { ok: true }; }));
    await Promise.all(ops);
    assert.deepEqual(log, ['start 0', 'stop 1', 'start 2']);
  });

  it('turns a throw into an outcome through onError and goes on with the next operation', async () => {
    const q = queue();
    const thrown = q.run('blob', 'start', () => Promise.reject(new Error('boom')));
    const next = q.run('blob', 'stop', () => Promise.resolve({ ok: true }));
    assert.deepEqual(await thrown, failure('other', 'blob: boom'));
    assert.deepEqual(await next, { ok: true });
  });

  it('settled() resolves once the operations under way have finished, those queued while it waits included', async () => {
    const q = queue();
    const log: string[] = [];
    assert.equal(await Promise.race([q.settled('blob').then(() => 'settled'), new Promise((r) => setImmediate(() => r('waiting')))]), 'settled', 'nothing runs: at once');
    const start = gate(log, 'start');
    const restart = gate(log, 'restart');
    void q.run('blob', 'start', start.op);
    let settled = false;
    void q.settled('blob').then(() => { settled = true; });
    void q.run('blob', 'restart', restart.op); // asked for after settled() began
    start.finish();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'the restart queued behind the start still runs');
    restart.finish();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, true);
  });
});
