import * as assert from 'node:assert/strict';
import { CONFIRM_LISTED, describeRef, listForConfirmation } from '../../../src/core/deleteText';

describe('core/deleteText', () => {
  it('names an item with its control characters as visible symbols (a line break would read as two items)', () => {
    assert.equal(describeRef({ kind: 'blob', container: 'c', name: 'x\ry.txt' }), 'blob "x\u240dy.txt"');
    assert.equal(describeRef({ kind: 'entity', table: 't', partitionKey: 'p\n', rowKey: 'r' }), 'entity "p\u240a" / "r"');
    assert.equal(describeRef({ kind: 'message', queue: 'q', messageId: 'id-1' }), 'message id-1');
  });

  it('lists several items with what goes with each, their account when they span several, and how many more past the first ones', () => {
    const dev = { account: 'devstoreaccount1' };
    const mixed = [
      { node: dev, ref: { kind: 'container' as const, name: 'data' } },
      { node: dev, ref: { kind: 'blob' as const, container: 'logs', name: 'a.txt' } },
      { node: dev, ref: { kind: 'queue' as const, name: 'jobs' } },
      { node: dev, ref: { kind: 'table' as const, name: 'People' } },
    ];
    assert.equal(listForConfirmation(mixed), 'container "data" and every blob in it\nblob "a.txt"\nqueue "jobs" and every message in it\ntable "People" and every entity in it');
    // Two containers of one name in two accounts are told apart.
    const twoAccounts = [{ node: dev, ref: { kind: 'container' as const, name: 'data' } }, { node: { account: 'tenant1' }, ref: { kind: 'container' as const, name: 'data' } }];
    assert.equal(listForConfirmation(twoAccounts), 'devstoreaccount1: container "data" and every blob in it\ntenant1: container "data" and every blob in it');
    const many = Array.from({ length: CONFIRM_LISTED + 3 }, (_, i) => ({ node: dev, ref: { kind: 'blob' as const, container: 'c', name: `b${i}` } }));
    const lines = listForConfirmation(many).split('\n');
    assert.equal(lines.length, CONFIRM_LISTED + 1);
    assert.equal(lines.at(-1), '… and 3 more');
  });
});
