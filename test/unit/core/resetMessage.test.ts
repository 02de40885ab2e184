import * as assert from 'node:assert/strict';
import { resetFailureText } from '../../../src/core/resetMessage';

describe('resetFailureText', () => {
  it('names every account that failed, one sentence each, then where the seed went', () => {
    assert.equal(resetFailureText([
      { account: 'alpha', message: 'could not delete queue q (Forbidden); everything else was deleted' },
      { account: 'devstoreaccount1', message: 'could not delete container c (Forbidden); everything else was deleted, and the seed was not loaded.' },
    ]), 'account alpha: could not delete queue q (Forbidden); everything else was deleted. account devstoreaccount1: could not delete container c (Forbidden); everything else was deleted, and the seed was not loaded.');
    assert.equal(resetFailureText([{ account: 'alpha', message: 'could not delete table t (x); everything else was deleted' }], 'devstoreaccount1'),
      'account alpha: could not delete table t (x); everything else was deleted. The seed was loaded into devstoreaccount1.');
  });
});
