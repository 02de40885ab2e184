/**
 * Table transactions whose entities hold a line separator (U+2028) or paragraph separator (U+2029),
 * read as Azure reads them.
 *
 * azurite 3.37's table/batch/TableBatchSerialization.js `deserializeBatchRequest` finds each
 * operation's JSON body in the multipart text with the regular expression `/{+.+}+/`, whose `.`
 * does not match U+2028 or U+2029. JSON leaves both unescaped inside strings (clients' serializers,
 * the data-tables SDK's included, send them raw), so a transaction with an entity that holds one in
 * a key, a property name or a string value was answered 500 with an empty body ("Transaction
 * Failed" in the SDK), while a single Insert Entity of it succeeded (docs/ENGINE.md, "Table
 * transactions"). Such text comes from pasting out of word processors and web pages.
 *
 * The seam: esbuild.mjs's azurite plugin appends one line to that file when bundling:
 * `readLineSeparators(TableBatchSerialization.prototype)`, which escapes each raw U+2028 and U+2029
 * of the transaction's text as `\u2028` and `\u2029` before azurite reads it. Outside JSON strings
 * neither may appear in the text (a URL carries them percent-encoded, headers are ASCII), and
 * inside one the escape is the same character to JSON.parse, so every operation reads as it was
 * sent. node_modules is untouched; nothing of azurite is copied here, and this file imports none of it.
 * Verified by test/unit/engine/tableBatchText.test.ts against azurite's own serializer, and through
 * the engine with the data-tables SDK.
 */

/** What this patch needs of azurite's TableBatchSerialization prototype. */
interface BatchSerialization {
  deserializeBatchRequest(batchRequestsString: string): unknown;
}

/** The characters JSON leaves raw that azurite's body pattern stops at. */
const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * `text` with each U+2028 and U+2029 written as a JSON escape (`\u2028`, `\u2029`); the same
 * string when it holds neither.
 */
export function escapeLineSeparators(text: string): string {
  return text.replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

/**
 * Makes `deserializeBatchRequest` of azurite's TableBatchSerialization read a transaction whose
 * JSON holds U+2028 or U+2029 ({@link escapeLineSeparators} first). Idempotent.
 * @param proto azurite's `TableBatchSerialization.prototype`
 */
export function readLineSeparators(proto: BatchSerialization): void {
  const marked = proto as BatchSerialization & { __readsLineSeparators?: true };
  if (marked.__readsLineSeparators === true) return;
  const deserialize = proto.deserializeBatchRequest;
  proto.deserializeBatchRequest = function (this: unknown, batchRequestsString: string): unknown {
    return deserialize.call(this, typeof batchRequestsString === 'string' ? escapeLineSeparators(batchRequestsString) : batchRequestsString);
  };
  marked.__readsLineSeparators = true;
}
