/**
 * bounds.ts: every lifecycle step has a bound; withBound ends a step that hangs and hands a late
 * value to the caller so it can undo it.
 */
import * as assert from 'node:assert/strict';
import { formatBound, LIFECYCLE_BOUNDS, StepTimeout, withBound } from '../../../src/core/bounds';

describe('core/bounds', () => {
  it('has a bound for every step, none shorter than 5 s (slow machines, large saves)', () => {
    const values = Object.values(LIFECYCLE_BOUNDS);
    assert.equal(values.length, 9);
    assert.ok(values.every((ms) => ms >= 5_000), JSON.stringify(LIFECYCLE_BOUNDS));
    assert.ok(LIFECYCLE_BOUNDS.stopMs >= LIFECYCLE_BOUNDS.listenWithDataMs, 'a save may take longer than a load');
  });

  it('rejects with StepTimeout once a step that never settles passes its bound', async () => {
    const began = performance.now();
    const err = await withBound(new Promise<never>(() => undefined), 50).catch((e: unknown) => e);
    const elapsed = performance.now() - began;
    assert.ok(err instanceof StepTimeout);
    assert.equal(err.boundMs, 50);
    assert.equal(err.message, 'did not finish within 50 ms');
    assert.ok(elapsed >= 45 && elapsed < 1000, `ended after ${elapsed} ms`);
  });

  it('passes a step\'s value and error through when it settles in time', async () => {
    assert.equal(await withBound(Promise.resolve(7), 1000), 7);
    await assert.rejects(withBound(Promise.reject(new Error('boom')), 1000), /^Error: boom$/);
  });

  it('hands a value that comes after the bound to `late` (to undo it), once', async () => {
    let resolveStep!: (v: number) => void;
    const step = new Promise<number>((r) => { resolveStep = r; });
    const late: number[] = [];
    await assert.rejects(withBound(step, 20, (v) => late.push(v)), StepTimeout);
    resolveStep(42);
    await step;
    await Promise.resolve();
    assert.deepEqual(late, [42]);
  });

  it('formats bounds in seconds when whole', () => {
    assert.deepEqual([formatBound(5000), formatBound(120_000), formatBound(250)], ['5 s', '120 s', '250 ms']);
  });
});
