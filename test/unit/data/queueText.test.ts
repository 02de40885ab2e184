/** data/queueText.ts: numeric character references of a message text, kept through the SDK's parser. */
import * as assert from 'node:assert/strict';
import { messageTextOf, placeholders } from '../../../src/data/queueText';

describe('data/queueText', () => {
  it('turns every numeric character reference into a placeholder that messageTextOf makes the character again', () => {
    const xml = '<MessageText>a&#xD;\nb&#13;&#x9;&#10;&#x1F600;&#65;&#x3C;&#38;</MessageText>';
    const body = placeholders(xml);
    assert.equal(body.includes('&#'), false);
    assert.equal(messageTextOf(body), '<MessageText>a\r\nb\r\t\n😀A<&</MessageText>');
  });

  it('leaves named entities, text without a reference, and what is no reference as written', () => {
    for (const xml of ['<T>&amp;#xD;</T>', '<T>&lt;&amp;&gt;</T>', '<T>plain</T>', '<T><![CDATA[&#xD;]]></T>', '<!-- &#13; --><T/>', '<T>&#xD800;&#x110000;&#;&#x;&#xG;</T>']) {
      assert.equal(placeholders(xml), xml, xml);
    }
    assert.equal(messageTextOf('&#xD; and \r stay'), '&#xD; and \r stay');
  });
});
