/** DutyBoundValue: a costly figure is made again only when its share of the thread allows. */
import * as assert from 'node:assert/strict';
import { DutyBoundValue } from '../../../src/emulator/dutyBound';

describe('emulator/dutyBound', () => {
  it('makes a figure that took 100 ms again only 2 s later at a 5% duty, and at once for another key', () => {
    let clock = 0;
    let made = 0;
    const figure = new DutyBoundValue<number>(0.05, () => clock);
    const compute = (): number => { clock += 100; return ++made; };
    assert.equal(figure.get('blob', compute), 1);
    clock += 1999;
    assert.equal(figure.get('blob', compute), 1, 'within 2 s of the last one: kept');
    clock += 1;
    assert.equal(figure.get('blob', compute), 2, '2 s after: made again');
    assert.equal(figure.get('blob,queue', compute), 3, 'another service running: made at once');
  });

  it('keeps a cheap figure fresh: one that takes no time is made at every ask', () => {
    const figure = new DutyBoundValue<number>(0.05, () => 0);
    let made = 0;
    assert.deepEqual([1, 2, 3].map(() => figure.get('table', () => ++made)), [1, 2, 3]);
  });
});
