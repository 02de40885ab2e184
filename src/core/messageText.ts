/**
 * Queue message text as a person reads it. Azure Functions (and other producers, such as the
 * QueueClient of older SDKs and `QueueMessageEncoding.Base64` in .NET) put base64 of the text on the
 * queue; the Storage view shows what such a message says. Pure; no vscode.
 */

/** Standard base64 (RFC 4648 §4), padded, as Azure Functions writes it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$|^[A-Za-z0-9+/]{2}==$|^[A-Za-z0-9+/]{3}=$/;
/** True for a control character other than tab, line feed and carriage return: not text a person wrote. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) return true;
  }
  return false;
}

/**
 * The text a base64 message stands for: the UTF-8 its base64 decodes to, when the message is
 * nothing but padded standard base64 whose bytes are valid UTF-8 without control characters
 * (besides tab and line breaks). Plain text almost never is: a word such as "test" is valid
 * base64, but its bytes are not UTF-8.
 * @param text the message text as the Queue service returns it
 * @returns the decoded text, or undefined when the message is not base64 of text
 */
export function decodedBase64Text(text: string): string | undefined {
  if (text.length < 4 || !BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  if (decoded === '' || hasControl(decoded)) return undefined;
  return decoded;
}
