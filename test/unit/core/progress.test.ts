/**
 * progress.ts: increments for VS Code's progress bar, which cannot go back.
 */
import * as assert from 'node:assert/strict';
import { progressIncrement } from '../../../src/core/progress';

/** Feeds steps (done, total) and returns the bar after each: the sum of the increments. */
function bar(steps: readonly (readonly [number, number])[]): number[] {
  let reported = 0;
  return steps.map(([done, total]) => {
    reported += progressIncrement(reported, done, total) ?? 0;
    return Math.round(reported * 10) / 10;
  });
}

describe('core/progress', () => {
  it('follows done ÷ total for a fixed total', () => {
    assert.deepEqual(bar([[1, 4], [2, 4], [4, 4]]), [25, 50, 100]);
  });

  it('waits, without going back, while a total that grew catches up', () => {
    assert.deepEqual(bar([[5, 10], [6, 1010], [1010, 1010]]), [50, 50, 100]);
    assert.deepEqual(bar([[1, 100], [50, 100], [60, 200], [150, 200], [200, 200]]), [1, 50, 50, 75, 100]);
  });

  it('adds nothing while the total is still being counted (an export: 10 blobs, then a container of 1,000)', () => {
    let reported = 0;
    for (const [done, total] of [[5, 10], [10, 10], [11, 1010], [1010, 1010]] as const) {
      assert.equal(progressIncrement(reported, done, total, true), undefined);
      reported += progressIncrement(reported, done, total, true) ?? 0;
    }
    assert.equal(reported, 0);
  });

  it('never passes 100 and adds nothing without a total', () => {
    assert.deepEqual(bar([[3, 2], [4, 2]]), [100, 100]);
    assert.equal(progressIncrement(40, 0, 0), undefined);
  });
});
