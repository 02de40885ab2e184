/**
 * core/notificationText.ts: names from storage never become links in a notification.
 */
import * as assert from 'node:assert/strict';
import { plainNotificationText } from '../../../src/core/notificationText';

/** VS Code's notification link pattern (its notifications renderer), which a plain text must not match. */
const LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/i;

describe('core/notificationText', () => {
  it('makes a Markdown link in a blob name plain text, and leaves other text as it is', () => {
    const name = 'x/../[Retry](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D)';
    const shown = plainNotificationText(`Azurite: saving blob ${name} failed: the name has a .. segment.`);
    assert.doesNotMatch(shown, LINK);
    assert.equal(shown, 'Azurite: saving blob x/../[Retry] (command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D) failed: the name has a .. segment.');
    for (const link of ['[a](https://example.com)', '[b](file:///etc/passwd)', '[[c]](command:x)']) assert.doesNotMatch(plainNotificationText(link), LINK, link);
    const plain = 'Blob service could not start: port 10000 on 127.0.0.1 is already in use (a [bracket] and (parentheses)).';
    assert.equal(plainNotificationText(plain), plain);
    // A name that is no link stays as it is named.
    assert.equal(plainNotificationText('saving blob photo[1](2).jpg failed'), 'saving blob photo[1](2).jpg failed');
    assert.doesNotMatch(plainNotificationText('[x](COMMAND:y) [z](HTTPS://e.com)'), LINK);
  });
});
