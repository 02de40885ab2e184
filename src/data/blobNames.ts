/**
 * Keeps blob names true when the blob SDK lists them. The Blob service writes a List Blobs answer
 * in XML, where a carriage return can only be a numeric character reference: Azurite's XML writer
 * (xmlbuilder 11, through xml2js) writes `&#xD;` for every CR in text, since an XML parser turns
 * every raw CR and CRLF into LF. The blob SDK's parser (fast-xml-parser as @azure/core-xml sets it
 * up) decodes the five named entities but leaves numeric references as they are written, so a blob
 * named "a\rb" is listed as "a&#xD;b", the same as a blob whose name is literally that (which the
 * service writes `a&amp;#xD;b`). An export then asked for a blob of the literal name and got 404,
 * and the Storage view showed, opened and deleted the wrong name.
 *
 * The raw answer tells the two apart, so {@link blobListingPolicy} rewrites it before the SDK parses
 * it, and no name is guessed:
 * - A blob's or virtual folder's `<Name>` that holds a numeric reference becomes
 *   `<Name Encoded="true">` with the true name percent-encoded. That is the form the Blob REST API
 *   itself has for names XML cannot carry (its `BlobName` has an `Encoded` attribute), and the SDK
 *   decodes it (`BlobNameToString`: `decodeURIComponent`), so every listing (flat and by folder)
 *   gives the true name with no step of ours after it.
 * - A `<NextMarker>` that holds one (Azurite's marker is the last name of the page:
 *   `LokiBlobMetadataStore.listBlobs`, which lists names `> marker`) becomes
 *   {@link MARKER_MARK} and the percent-encoded true marker. The SDK hands a continuation token
 *   back as it got it, and the policy makes the `marker` of the next List Blobs request the true
 *   marker again. Sent as parsed ("a&#xD;b" for "a\rb"), the next page would begin after the
 *   literal name and leave out the names between the two.
 *
 * Other characters XML 1.0 cannot carry (the other C0 controls but tab and LF, U+FFFE, U+FFFF, a
 * lone surrogate) Azurite does not write at all: xmlbuilder throws on them, and the listing fails.
 * Tab and LF it writes as they are, and the parser keeps them.
 *
 * Why not the queue's way (./queueText.ts: a request policy factory pushed onto `Pipeline.factories`):
 * the queue SDK takes core-client's deserialization policy out of its pipeline and parses later, but
 * the blob SDK keeps it, and such a factory runs outside it, after the body is parsed. So this is a
 * core-rest-pipeline policy that ./clients.ts adds to the blob client's own pipeline after the Retry
 * phase: there it sees each try's raw answer before the deserialization policy does, and each request
 * before the shared-key policy signs it (the `marker` it changes is signed).
 */
import { NUMERIC_REFERENCE, referencedCodePoint } from './characterReferences';
import type { PipelinePolicy } from './tableDoubles';
import { explainedServerError } from './work';

/**
 * What begins a continuation token the policy made: U+FFFF, which Azurite's XML writer refuses to
 * write, so no marker Azurite sends (a listed blob name) begins with it. The XML parser passes it on.
 */
export const MARKER_MARK = '\uFFFF';
/** A numeric character reference (XML 1.0 `CharRef`). */
const CHAR_REF = new RegExp(NUMERIC_REFERENCE);
/** The named entities XML predefines. */
const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
/** A reference of either kind, in element content. */
const REFERENCE = new RegExp(`${NUMERIC_REFERENCE}|&(amp|lt|gt|quot|apos);`, 'g');
/** A blob's or virtual folder's name element, without attributes: Azurite writes it first in its parent. */
const NAME = /(<Blob(?:Prefix)?>\s*)<Name>([^<]*)<\/Name>/g;
const NEXT_MARKER = /<NextMarker>([^<]*)<\/NextMarker>/g;

/**
 * The text that element content stands for: every named entity and numeric character reference
 * decoded.
 * @param content the content of an element without child elements, as written
 * @returns the text, or undefined when it holds a reference to no character (a surrogate, above
 *   U+10FFFF), which no XML writer makes
 */
export function xmlText(content: string): string | undefined {
  let valid = true;
  const text = content.replace(REFERENCE, (_match: string, hex: string | undefined, decimal: string | undefined, named: string | undefined) => {
    if (named !== undefined) return NAMED[named]!;
    const code = referencedCodePoint(hex, decimal);
    if (code === undefined) {
      valid = false;
      return '';
    }
    return String.fromCodePoint(code);
  });
  return valid ? text : undefined;
}

/**
 * A List Blobs answer that the SDK reads right: each blob's and virtual folder's `<Name>` that holds
 * a numeric character reference as `<Name Encoded="true">` with the name percent-encoded, and a
 * `<NextMarker>` that holds one as {@link MARKER_MARK} and the marker percent-encoded. Names and
 * markers without such a reference (a literal "&#xD;" arrives as `&amp;#xD;`), and a body without
 * one, stay as written.
 * @param xml the body of a List Blobs answer (flat or by folder)
 * @returns the body, changed or not
 */
export function encodedBlobNames(xml: string): string {
  if (!xml.includes('&#')) return xml;
  return xml
    .replace(NAME, (match: string, open: string, content: string) => {
      const name = CHAR_REF.test(content) ? xmlText(content) : undefined;
      return name === undefined ? match : `${open}<Name Encoded="true">${encodeURIComponent(name)}</Name>`;
    })
    .replace(NEXT_MARKER, (match: string, content: string) => {
      const marker = CHAR_REF.test(content) ? xmlText(content) : undefined;
      return marker === undefined ? match : `<NextMarker>${MARKER_MARK}${encodeURIComponent(marker)}</NextMarker>`;
    });
}

/**
 * The marker a continuation token stands for: the true marker of a token that
 * {@link encodedBlobNames} made, any other token as it is.
 * @param token a continuation token (the `marker` query parameter's value, decoded)
 */
export function markerOf(token: string): string {
  if (!token.startsWith(MARKER_MARK)) return token;
  try {
    return decodeURIComponent(token.slice(MARKER_MARK.length));
  } catch {
    return token;
  }
}

/**
 * A request URL whose `marker` query parameter is the true marker when it was a token that
 * {@link encodedBlobNames} made; any other URL as it is. The value is written with
 * `encodeURIComponent`, as the SDK writes query values.
 */
export function withTrueMarker(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const hash = url.indexOf('#', query);
  const end = hash < 0 ? url.length : hash;
  let changed = false;
  const params = url.slice(query + 1, end).split('&').map((param) => {
    if (!param.startsWith('marker=')) return param;
    let value: string;
    try {
      value = decodeURIComponent(param.slice('marker='.length));
    } catch {
      return param;
    }
    const marker = markerOf(value);
    if (marker === value) return param;
    changed = true;
    return `marker=${encodeURIComponent(marker)}`;
  });
  return changed ? `${url.slice(0, query + 1)}${params.join('&')}${url.slice(end)}` : url;
}

/** Whether a request is a List Blobs: GET on a container with `restype=container` and `comp=list`. */
function listsBlobs(method: string, url: string): boolean {
  if (method !== 'GET') return false;
  const params = new URL(url).searchParams;
  return params.get('restype') === 'container' && params.get('comp') === 'list';
}

/**
 * The policy, for a blob client's core pipeline after the Retry phase (./clients.ts): on every List
 * Blobs request it puts the true marker in place of a token of {@link encodedBlobNames}
 * ({@link withTrueMarker}), and it rewrites the body of every successful List Blobs answer with
 * {@link encodedBlobNames}. Other requests and answers pass untouched.
 */
export function blobListingPolicy(): PipelinePolicy {
  return {
    name: 'storageEmulatorsBlobNames',
    async sendRequest(request, next) {
      const lists = listsBlobs(request.method, request.url);
      if (lists) request.url = withTrueMarker(request.url);
      const response = await next(request);
      const text = response.bodyAsText;
      if (lists && response.status === 200 && typeof text === 'string') response.bodyAsText = encodedBlobNames(text);
      return response;
    },
  };
}

/**
 * The error to give for a List Blobs that failed, when Azurite's answer says it could not write the
 * listing: HTTP 500. Azurite answers so (with an empty body) when a blob's name holds a character
 * XML 1.0 cannot carry, which its XML writer refuses (xmlbuilder 11 `assertLegalChar`: a C0 control
 * other than tab, LF and CR, U+FFFE, U+FFFF); no client can then list the container.
 * @param container the container listed
 * @param err what the SDK threw
 * @returns an Error that names the container and that likely cause (the SDK's error as `cause`,
 *   its `statusCode` kept), or undefined for any other failure
 */
export function unlistableContainerError(container: string, err: unknown): Error | undefined {
  return explainedServerError(err, `Azurite could not list the blobs of container ${container} (500 Internal Server Error). ` +
    'One known cause: a blob whose name holds a character XML cannot carry (a control character other than tab, line feed and carriage return, U+FFFE or U+FFFF). ' +
    'If one does, delete that blob with a client that names it, then try again.');
}
