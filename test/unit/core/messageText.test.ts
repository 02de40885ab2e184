/** core/messageText.ts: base64 queue messages read as the text they stand for. */
import * as assert from 'node:assert/strict';
import { decodedBase64Text } from '../../../src/core/messageText';

describe('core/messageText', () => {
  it('decodes base64 of UTF-8 text, as Azure Functions writes queue messages', () => {
    for (const text of ['{"orderId":42,"item":"Kaffee ☕"}', 'hi', 'line one\nline two\ttab', 'a']) {
      assert.equal(decodedBase64Text(Buffer.from(text).toString('base64')), text, text);
    }
  });

  it('leaves plain text and base64 of binary alone', () => {
    for (const text of ['test', 'abcd', 'hello world', '{"a":1}', 'SGVsbG8', '', 'not base64!', '12345678']) assert.equal(decodedBase64Text(text), undefined, text);
    assert.equal(decodedBase64Text(Buffer.from([0xff, 0xfe, 0x00, 0x01]).toString('base64')), undefined, 'not UTF-8');
    assert.equal(decodedBase64Text(Buffer.from('a\u0000b').toString('base64')), undefined, 'a control character');
  });
});
