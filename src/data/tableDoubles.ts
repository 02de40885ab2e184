/**
 * Keeps a whole-number Edm.Double a Double when entities are read. The Table service writes an
 * Edm.Double property without a type annotation and a whole value with a decimal point (`"x":5.0`;
 * azurite: `EdmDouble.toJsonPropertyValueString`, which prints `toFixed(1)`), and an Edm.Int32 as a
 * bare whole number (`"x":5`). `JSON.parse` makes both the number 5, so the SDK's
 * `disableTypeConversion` calls the Double an Int32, and an export would load back as Int32.
 *
 * This pipeline policy reads entity responses with lossless-json, which keeps each number's text,
 * and adds `"x@odata.type":"Edm.Double"` to every unannotated number written with a `.`, `e` or `E`,
 * before the SDK parses the body. Other responses, and bodies without such a number, pass untouched.
 */
import type { TableServiceClientOptions } from '@azure/data-tables';
import { isLosslessNumber, parse, stringify } from 'lossless-json';

/** A core-rest-pipeline policy, as a table client's `additionalPolicies` take it. */
export type PipelinePolicy = NonNullable<TableServiceClientOptions['additionalPolicies']>[number]['policy'];

/**
 * Quick test for the text of a whole-number double (`5.0`, `1e+21`) somewhere in the body, or a
 * string that looks like one; only then is the body parsed again (lossless-json is much slower
 * than `JSON.parse`). Other doubles (`0.5`) the SDK already tells from an Int32.
 */
const MAYBE_WHOLE_DOUBLE = /\d\.0+[,}\]\s]|\d[eE][+-]?\d/;
const ANNOTATION = '@odata.type';

/**
 * The policy, for a table client's `additionalPolicies` at position `perRetry` (there it sees the
 * response before the SDK's deserialization does).
 */
export function wholeDoublePolicy(): PipelinePolicy {
  return {
    name: 'storageEmulatorsWholeDouble',
    async sendRequest(request, next) {
      const response = await next(request);
      const text = response.bodyAsText;
      if (typeof text === 'string') {
        const annotated = annotateDoubles(text);
        if (annotated !== undefined) response.bodyAsText = annotated;
      }
      return response;
    },
  };
}

/**
 * The body with `@odata.type: "Edm.Double"` added to every unannotated number property written as a
 * double, in a query's `value` array or a single entity.
 * @param text a Table service JSON response body
 * @returns the new body, or undefined when nothing changes (no whole-number double in it, or not JSON)
 */
export function annotateDoubles(text: string): string | undefined {
  if (!MAYBE_WHOLE_DOUBLE.test(text)) return undefined;
  let body: unknown;
  try {
    body = parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as { value?: unknown }).value;
  const entities = Array.isArray(value) ? value : [body];
  let changed = false;
  for (const entity of entities) {
    if (typeof entity !== 'object' || entity === null) continue;
    const record = entity as Record<string, unknown>;
    for (const [key, raw] of Object.entries(record)) {
      if (key.endsWith(ANNOTATION) || `${key}${ANNOTATION}` in record) continue;
      if (isLosslessNumber(raw) && /[.eE]/.test(raw.value)) {
        record[`${key}${ANNOTATION}`] = 'Edm.Double';
        changed = true;
      }
    }
  }
  return changed ? stringify(body) : undefined;
}
