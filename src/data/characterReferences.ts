/**
 * Numeric character references (XML 1.0 `CharRef`: `&#xD;`, `&#13;`), shared by the two places
 * that read them out of a raw Azurite answer before an SDK parses it: blob names in List Blobs
 * (src/data/blobNames.ts) and message texts in Peek/Get Messages (src/data/queueText.ts). Both
 * SDKs' XML parser leaves such references undecoded; see docs/ENGINE.md.
 */

/**
 * The pattern of one numeric character reference, as regular expression source: group 1 holds the
 * hex digits of `&#x…;`, group 2 the decimal digits of `&#…;` (one of the two is undefined).
 */
export const NUMERIC_REFERENCE = '&#(?:x([0-9A-Fa-f]+)|([0-9]+));';

/**
 * The code point a numeric character reference names.
 * @param hex group 1 of {@link NUMERIC_REFERENCE}: the hex digits, or undefined
 * @param decimal group 2: the decimal digits, or undefined
 * @returns the code point, or undefined when the reference names no character (a surrogate,
 *   above U+10FFFF), which no XML writer makes, or when both groups are undefined
 */
export function referencedCodePoint(hex: string | undefined, decimal: string | undefined): number | undefined {
  if (hex === undefined && decimal === undefined) return undefined;
  const code = hex !== undefined ? parseInt(hex, 16) : parseInt(decimal!, 10);
  return code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? undefined : code;
}
