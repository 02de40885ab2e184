/**
 * Keeps a table's entity listing going past a page that ends inside PartitionKey "" (a valid key,
 * and the first in the service's order). Azurite answers a page with more to come with the next
 * entity's keys, each base64-encoded, in the `x-ms-continuation-NextPartitionKey` and `-NextRowKey`
 * headers; base64 of "" is "", so Azurite leaves the partition key header out. The Tables SDK makes
 * no continuation token without a partition key, so the listing ended there: the Storage view
 * showed no "Load more…", and Export left out every later entity, of every partition.
 * See docs/ENGINE.md, "How the Table service continues an entity listing".
 *
 * {@link emptyPartitionKeyPolicy} gives such an answer the partition key {@link EMPTY_KEY_MARK}, so
 * the SDK makes its token, and turns the mark back into "" in the request the token brings, which
 * Azurite reads as the empty partition key.
 */
import type { PipelinePolicy } from './tableDoubles';

/**
 * Stands for an empty next partition key: `!` is no base64 character, so no key that Azurite
 * encodes is written so.
 */
export const EMPTY_KEY_MARK = '!';
/** The mark as a request's `NextPartitionKey` query parameter, written plain or percent-encoded. */
const MARKED_REQUEST = /([?&]NextPartitionKey=)(?:!|%21)(?=&|$)/;

/**
 * The policy, for a table client's `additionalPolicies` at position `perRetry` (there it sees the
 * response before the SDK's deserialization does, and each try's request).
 */
export function emptyPartitionKeyPolicy(): PipelinePolicy {
  return {
    name: 'storageEmulatorsEmptyPartitionKey',
    async sendRequest(request, next) {
      if (MARKED_REQUEST.test(request.url)) request.url = request.url.replace(MARKED_REQUEST, '$1');
      const response = await next(request);
      // A next row key without a next partition key: the partition key is "".
      if (response.headers.has('x-ms-continuation-NextRowKey') && !response.headers.get('x-ms-continuation-NextPartitionKey')) {
        response.headers.set('x-ms-continuation-NextPartitionKey', EMPTY_KEY_MARK);
      }
      return response;
    },
  };
}
