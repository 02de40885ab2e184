import * as assert from 'node:assert/strict';
import { restErrorMessage } from '../../../src/core/restErrors';

describe('restErrorMessage', () => {
  it('takes the message out of a table error\'s OData JSON body (what @azure/data-tables keeps as its message), first line only', () => {
    const body = JSON.stringify({ 'odata.error': { code: 'TableNotFound', message: { lang: 'en-US', value: 'The table specified does not exist.\nRequestId:b5eb\nTime:2026-11-26T20:59:12.713Z' } } });
    assert.equal(restErrorMessage(body), 'The table specified does not exist.');
  });

  it('gives the first line of any other message, and a JSON message without an OData error as it is', () => {
    assert.equal(restErrorMessage('The specified container does not exist.\nRequestId:1\nTime:2'), 'The specified container does not exist.');
    assert.equal(restErrorMessage('{"unexpected":true}'), '{"unexpected":true}');
    assert.equal(restErrorMessage('{not json'), '{not json');
  });
});
