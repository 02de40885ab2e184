/**
 * What an Azure SDK error (`RestError`) says, for a person. Pure: no vscode, no SDK.
 */
import { STATUS_CODES } from 'node:http';

/**
 * The part of an SDK error's message a person needs: its first line, without the `RequestId:` and
 * `Time:` lines azurite adds. @azure/data-tables keeps a table error's whole body as its message:
 * the Table service's OData JSON error, `{"odata.error":{"code":…,"message":{"lang":…,"value":"…"}}}`
 * (Table service REST API, "Error Codes" and the JSON error format); its `value` is taken.
 * @param message the error's `message`
 * @returns e.g. "The specified resource does not exist."
 */
export function restErrorMessage(message: string): string {
  const trimmed = message.trim();
  // An XML error body kept whole as the message (@azure/data-tables for an error the Table
  // service answers in XML: an account it does not serve, a key it refuses): its <Message>, else
  // nothing (the caller says the code instead of the XML declaration).
  if (trimmed.startsWith('<')) {
    const m = /<Message>([^<]*)<\/Message>/.exec(trimmed);
    return m === null ? '' : firstLine(decodeXmlText(m[1]!));
  }
  if (trimmed.startsWith('{')) {
    try {
      const body = JSON.parse(trimmed) as { 'odata.error'?: { message?: { value?: unknown } | string } };
      const m = body['odata.error']?.message;
      const value = typeof m === 'string' ? m : m?.value;
      if (typeof value === 'string' && value.trim() !== '') return firstLine(value);
    } catch {
      // Not JSON after all: its first line, as any other message.
    }
  }
  return firstLine(trimmed);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

/** XML text with its five predefined entities (`&lt;` …) and numeric character references decoded. */
function decodeXmlText(text: string): string {
  const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (all, ref: string) => {
    if (ref[0] !== '#') return named[ref.toLowerCase()] ?? all;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

/**
 * The text an SDK error carries for a person: its `message`, unless that is only the SDK's
 * "Unexpected status code: 404" (@azure/storage-queue's for every error the service answers), when
 * the service's own message, which the SDK keeps in `details.message`, is taken.
 */
function errorText(err: unknown): string {
  const e = err as { message?: unknown; details?: { message?: unknown } } | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const detail = e?.details?.message;
  return /^Unexpected status code: \d+$/.test(message.trim()) && typeof detail === 'string' && detail.trim() !== '' ? detail : message;
}

/** The codes Node's TLS gives a certificate the client does not trust (OpenSSL's verify results as Node names them). */
const UNTRUSTED_CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED',
]);
/** A certificate outside its validity period. */
const EXPIRED_CERTIFICATE_CODES = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

/**
 * {@link restErrorMessage} of any error the data layer meets, and for an HTTPS certificate that a
 * client refuses what to do about it (the SDK says only "self-signed certificate", say): one VS
 * Code's extension host does not trust, one that does not name the host it was reached at
 * (`ERR_TLS_CERT_ALTNAME_INVALID`, from `tls.checkServerIdentity`), one expired or not yet valid.
 * @param err an SDK `RestError` (its `code` is Node's for a TLS failure), an Error, or anything
 */
export function describeRestError(err: unknown): string {
  const e = err as { code?: unknown } | undefined;
  const message = restErrorMessage(errorText(err)) || headOnlyMessage(err);
  const code = typeof e?.code === 'string' ? e.code : '';
  if (UNTRUSTED_CERTIFICATE_CODES.has(code)) {
    return `${message}: VS Code does not trust the HTTPS certificate that Azurite serves (azurite.cert for the local emulator). ` +
      'Use one from a certificate authority this machine trusts (mkcert, after mkcert -install), or start VS Code with NODE_EXTRA_CA_CERTS set to the certificate\'s file.';
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `${message}: the HTTPS certificate that Azurite serves does not name the host it is reached at. ` +
      'Make one that names it (mkcert 127.0.0.1 localhost), or, for the local emulator, set azurite.blobHost, queueHost or tableHost to a name the certificate has.';
  }
  if (EXPIRED_CERTIFICATE_CODES.has(code)) return `${message}: the HTTPS certificate that Azurite serves is outside its validity period; make a new one.`;
  return message;
}

/**
 * What to say for an error whose message is empty: the answer to a HEAD request (Get Blob
 * Properties, an exists check) has no body, so the SDK's RestError has no message, and the service's
 * error code is only in its `x-ms-error-code` header (the SDK puts it in `details.errorCode` too).
 * @returns e.g. "AuthenticationFailed: Forbidden", "Forbidden", or "the request failed"
 */
function headOnlyMessage(err: unknown): string {
  const e = err as { statusCode?: unknown } | undefined;
  const errorCode = serviceErrorCode(err);
  const status = typeof e?.statusCode === 'number' ? STATUS_CODES[e.statusCode] : undefined;
  if (errorCode !== undefined) return status !== undefined ? `${errorCode}: ${status}` : errorCode;
  return status ?? 'the request failed';
}

/**
 * The service's error code of an SDK error, from where the SDK keeps it: `details.errorCode` (every
 * SDK; the Table SDK's only place for its JSON errors such as TableNotFound), else the
 * `x-ms-error-code` header; undefined when neither gives one.
 */
function serviceErrorCode(err: unknown): string | undefined {
  const e = err as { details?: { errorCode?: unknown }; response?: { headers?: { get?(name: string): string | undefined } } } | undefined;
  const fromHeader = typeof e?.response?.headers?.get === 'function' ? e.response.headers.get('x-ms-error-code') : undefined;
  return [e?.details?.errorCode, fromHeader].find((c): c is string => typeof c === 'string' && c !== '');
}

/**
 * A hint for an error that an attached Azurite (`azurite.attach`) answered, when it points at the
 * account or key it was given: Azurite answers a request for an account it does not serve with 404
 * (`ResourceNotFound`; the Table service with an XML body and no code), and one started with
 * `AZURITE_ACCOUNTS` serves only the accounts named there, not devstoreaccount1; a request signed
 * with another key gets 403 (`AuthorizationFailure`, `AuthenticationFailed`). Another code (a table,
 * container or queue that is not there) gets no hint. Measured against the engine
 * (test/unit/emulator/attachAccountHint.test.ts).
 * @param err what the SDK threw (a RestError)
 * @param target the attached Azurite's `label` (host:port) and `accountName`
 * @returns the hint, with a leading space, or '' when the error is neither
 */
export function attachAccountHint(err: unknown, target: { readonly label: string; readonly accountName: string }): string {
  const e = err as { statusCode?: unknown; code?: unknown } | undefined;
  // `code` (Blob, Queue), else where the Table SDK keeps it (its JSON errors leave `code` unset).
  const code = typeof e?.code === 'string' && e.code !== '' ? e.code : serviceErrorCode(err);
  if (e?.statusCode === 404 && (code === undefined || code === 'ResourceNotFound')) {
    return ` Does the Azurite at ${target.label} serve account ${target.accountName}? One started with AZURITE_ACCOUNTS serves only the accounts named there: give azurite.attach one of them (AccountName and AccountKey).`;
  }
  if (e?.statusCode === 403 && (code === undefined || code === 'AuthorizationFailure' || code === 'AuthenticationFailed')) {
    return ` The Azurite at ${target.label} refused the key of account ${target.accountName}: give azurite.attach the AccountKey that Azurite has for it.`;
  }
  return '';
}
