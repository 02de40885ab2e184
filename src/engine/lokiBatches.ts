/**
 * LokiJS's batch paths, kept from rebuilding every index for a batch of none or one.
 *
 * azurite keeps its metadata in LokiJS 1.5 collections with binary indices (the blob collection
 * has four, the queue message collection four, the extent collection one). LokiJS keeps such an
 * index up to date in place when one document is inserted, updated or removed (`remove(doc)`,
 * `update(doc)`: a binary search and a splice, linear in the collection). Its batch paths
 * instead sort every index again from scratch once the batch is done: `removeBatchByPositions`,
 * which `findAndRemove(query)` and `remove(docs)` end in, for a batch of any size, none included,
 * and `update(docs)` for a batch of one or more. azurite takes those paths for one document or
 * none on hot paths:
 * - every extent its extent GC frees is `findAndRemove({ id })`, one at a time
 *   (common/persistence/LokiExtentMetadataStore.js, `deleteExtent`), so freeing n extents sorts
 *   the extent index n times, during which the engine's process serves nothing (docs/ENGINE.md,
 *   "Speed", and bench/lokiBatches.mjs give figures);
 * - Delete Blob is `findAndRemove` of one record (blob/persistence/LokiBlobMetadataStore.js);
 * - every Peek, Get, Update and Delete Message first removes the queue's expired messages with
 *   `remove(docs)`, nearly always none, and Get Messages updates the messages it hands out with
 *   `update(docs)`, one by default (queue/persistence/LokiQueueMetadataStore.js): each sorted the
 *   four message indices of every queue again.
 *
 * The seam: esbuild.mjs's azurite plugin appends one line to lokijs/src/lokijs.js when bundling:
 * `keepIndexesOnSmallBatches(module.exports.Collection.prototype)`. A remove of none is then
 * skipped, and a remove or update of one goes through LokiJS's own single-document path
 * (`remove(doc)`, `update(doc)`), which keeps each index sorted in place. Larger batches are
 * LokiJS's as they are, and so is any batch while an index is marked for a rebuild (LokiJS's
 * single-document paths assume sorted indices; its batch paths sort them again).
 * node_modules is untouched; nothing of LokiJS is copied here, and this file imports none of it.
 * What differs from the batch path, none of it read by azurite's requests:
 * - a removed document loses its `$loki` and `meta` fields, as `remove(doc)` always does. The
 *   one reader of a record after a remove would be Copy Blob, which removes a destination blob it
 *   read earlier in the same request; with no I/O in between, no other request's delete can come
 *   first (had one, the copy would now fail with a 500 where it succeeded before);
 * - documents with equal values in an index keep the order they reached it in, which a full sort
 *   reset to insertion order: a listing that sorts by name alone (a blob and its snapshots) may
 *   give those in another order than before, as it already could after other histories;
 * - a remove of none no longer marks the collection changed, so it no longer causes a save of
 *   the database in disk mode.
 * Verified by test/unit/engine/lokiBatches.test.ts (the same documents and query answers as LokiJS
 * without the patch over a random mix of operations, also after a save and load, valid indices,
 * no index sorted again).
 */

/** What this patch needs of LokiJS's `Collection.prototype` (lokijs/src/lokijs.js). */
interface LokiCollection {
  data: object[];
  adaptiveBinaryIndices: boolean;
  binaryIndices: Record<string, { dirty?: boolean }>;
  remove(doc: object): unknown;
  update(doc: object | object[]): unknown;
  removeBatch(batch: readonly unknown[]): void;
  removeBatchByPositions(positions: readonly number[]): void;
}

/**
 * Makes LokiJS's batch paths of `Collection.prototype` keep their indices in place for a remove
 * of none or one document and an update of one (see the file's comment); larger batches are
 * unchanged. Idempotent.
 * @param proto LokiJS's `Collection.prototype` (`require('lokijs').Collection.prototype`)
 */
export function keepIndexesOnSmallBatches(proto: LokiCollection): void {
  const marked = proto as LokiCollection & { __keepsIndexesOnSmallBatches?: true };
  if (marked.__keepsIndexesOnSmallBatches === true) return;
  const { removeBatchByPositions, removeBatch, update } = proto;
  /**
   * Whether LokiJS's single-document paths keep this collection's binary indices right: they are
   * kept in place (adaptive, LokiJS's default) and none is marked for a rebuild (a batch path that
   * failed half-way leaves them so; only a batch path sorts them again).
   */
  const keptInPlace = (c: LokiCollection): boolean => {
    const indices = Object.values(c.binaryIndices);
    return c.adaptiveBinaryIndices && indices.length > 0 && indices.every((i) => i.dirty !== true);
  };
  proto.removeBatchByPositions = function (this: LokiCollection, positions: readonly number[]): void {
    if (keptInPlace(this)) {
      if (positions.length === 0) return;
      const doc = positions.length === 1 ? this.data[positions[0]!] : undefined;
      if (doc !== undefined) {
        this.remove(doc);
        return;
      }
    }
    removeBatchByPositions.call(this, positions);
  };
  proto.removeBatch = function (this: LokiCollection, batch: readonly unknown[]): void {
    // Without this, LokiJS maps every document of the collection to its position first.
    if (batch.length === 0 && keptInPlace(this)) return;
    removeBatch.call(this, batch);
  };
  proto.update = function (this: LokiCollection, doc: object | object[]): unknown {
    if (!Array.isArray(doc) || doc.length !== 1 || !keptInPlace(this)) return update.call(this, doc);
    update.call(this, doc[0] as object);
    return undefined; // LokiJS returns nothing for a batch, whatever its size
  };
  marked.__keepsIndexesOnSmallBatches = true;
}
