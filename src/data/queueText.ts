/**
 * Keeps a queue message's text as it was sent when the queue SDK reads it. The Queue service writes
 * a message's text into XML, and a carriage return there as the numeric character reference
 * `&#xD;` (Azurite's XML writer does, as Azure's does): XML has no other way to carry one, since an
 * XML parser turns every raw CR and CRLF into LF. The queue SDK's XML parser (fast-xml-parser as the
 * SDK sets it up) decodes the five named entities but leaves numeric references as they are
 * written, so a message "a\r\nb" reads as "a&#xD;\nb", the same as a message whose text is
 * literally that (which the service writes as `a&amp;#xD;\nb`).
 *
 * {@link characterReferencePolicy} rewrites each numeric reference of a Peek Messages or Get
 * Messages response into a placeholder before the SDK parses it, and {@link messageTextOf} turns the
 * placeholders of a message's text back into the characters. Not the characters themselves: the
 * parser would turn a raw CR into LF, and a raw `<` or `&` would break the document. The placeholder
 * is the code point in hex between two U+DBFF, a lone surrogate: text decoded from UTF-8 never holds
 * one (UTF-8 cannot encode a lone surrogate; the decoder makes U+FFFD of such bytes), so a
 * placeholder never meets the message's own characters, and the parser passes it on unchanged (it
 * is neither a line end nor part of an entity). A user's literal "&#xD;" arrives as `&amp;#xD;`,
 * which holds no numeric reference: the parser makes it "&#xD;", and it stays so.
 */
import type { RequestPolicyFactory } from '@azure/storage-queue';
import { NUMERIC_REFERENCE, referencedCodePoint } from './characterReferences';
import { explainedServerError } from './work';

const MARK = '\uDBFF';
/**
 * A numeric character reference (XML 1.0 `CharRef`), and the parts of a document where `&#` is no
 * reference (CDATA sections and comments), which are matched only to be skipped.
 */
const REFERENCE = new RegExp(`<!\\[CDATA\\[[\\s\\S]*?\\]\\]>|<!--[\\s\\S]*?-->|${NUMERIC_REFERENCE}`, 'g');
/** A placeholder, as {@link placeholders} writes it. */
const PLACEHOLDER = /\uDBFF([0-9a-f]+)\uDBFF/g;
/**
 * Whether a request is a Peek Messages or Get Messages: GET `…/<queue>/messages`, without the
 * `comp` parameter that a queue named "messages" has in its Get Metadata and Get ACL requests.
 */
function readsMessages(method: string, url: string): boolean {
  const parsed = new URL(url);
  return method === 'GET' && parsed.pathname.endsWith('/messages') && !parsed.searchParams.has('comp');
}

/**
 * The body with each numeric character reference (`&#xD;`, `&#13;`, any `&#NNN;` or `&#xHH;`)
 * replaced by its placeholder; references inside CDATA sections and comments, and references to
 * no character (a surrogate, above U+10FFFF), stay as written.
 * @param xml an XML response body
 * @returns the body, changed or not
 */
export function placeholders(xml: string): string {
  if (!xml.includes('&#')) return xml;
  return xml.replace(REFERENCE, (match: string, hex: string | undefined, decimal: string | undefined) => {
    const code = referencedCodePoint(hex, decimal);
    if (code === undefined) return match;
    return `${MARK}${code.toString(16)}${MARK}`;
  });
}

/**
 * A message's text as it was sent: each placeholder that {@link characterReferencePolicy} put in
 * place of a numeric character reference made the character again.
 * @param text `messageText` of a message that a Peek Messages or Get Messages of the data clients'
 *   queue client returned (src/data/clients.ts)
 */
export function messageTextOf(text: string): string {
  if (!text.includes(MARK)) return text;
  return text.replace(PLACEHOLDER, (_match: string, hex: string) => String.fromCodePoint(parseInt(hex, 16)));
}

/**
 * The policy, for a queue client's pipeline (`Pipeline.factories`): rewrites the body of every
 * successful Peek Messages and Get Messages response (GET `…/<queue>/messages`) with
 * {@link placeholders}. Other responses pass untouched. A message text read through a client with
 * it must go through {@link messageTextOf}.
 */
export function characterReferencePolicy(): RequestPolicyFactory {
  return {
    create: (next) => ({
      async sendRequest(request) {
        const response = await next.sendRequest(request);
        const text = response.bodyAsText;
        if (response.status === 200 && typeof text === 'string' && readsMessages(request.method, request.url)) {
          response.bodyAsText = placeholders(text);
        }
        return response;
      },
    }),
  };
}

/**
 * The error to give for a Peek Messages or Get Messages that failed with HTTP 500, which Azurite
 * answers (with an empty body) when a message's text holds a character XML 1.0 cannot carry: it
 * stores such a message, then cannot write any answer that holds it (xmlbuilder 11
 * `assertLegalChar`: a C0 control other than tab, LF and CR, U+FFFE, U+FFFF). A Get Messages hides
 * the messages before it fails, and the SDK's retry then gets the queue without them: so the data
 * layer peeks before it receives, and a peek fails every time.
 * @param queue the queue read
 * @param err what the SDK threw
 * @returns an Error naming the queue and that likely cause (the SDK's error as `cause`, its
 *   `statusCode` kept), or undefined for any other failure
 */
export function unreadableQueueError(queue: string, err: unknown): Error | undefined {
  return explainedServerError(err, `Azurite could not read the messages of queue ${queue} (500 Internal Server Error). ` +
    'One known cause: a message that holds a character XML cannot carry (a control character other than tab, line feed and carriage return, U+FFFE or U+FFFF). ' +
    'If one does, clear the queue\'s messages (or delete the queue), then try again.');
}
