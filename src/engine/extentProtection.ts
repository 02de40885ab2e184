/**
 * Azurite's protection of new extents from its extent GC, made to work.
 *
 * azurite 3.37's extent GC (blob/gc/BlobGCManager.js, queue/gc/QueueGCManager.js, every 10 and 1
 * minutes in turn) deletes the extents no blob or message refers to, sparing those modified in the
 * last 10 minutes: an upload stores its content as an extent first and writes the record that
 * refers to it afterwards. It asks LokiExtentMetadataStore `listExtents` for extents whose
 * `LastModifyInMS` is older than that, but `updateExtent` inserts a new extent's record as the
 * extent store gives it, with `lastModifiedInMS` (lower-case, another name) and no `LastModifyInMS`;
 * only a later update sets `LastModifyInMS`. LokiJS counts a missing field as lower than any number,
 * so every new extent matched, and a GC run that fell between an upload's extent and its record
 * deleted the content of an upload answered with 201 (it then reads back as 500). An upload yields
 * to the event loop there when its checksum is computed off the serving thread
 * (./checksumThread.ts), and in disk mode while its extent file is written.
 *
 * The seam: esbuild.mjs's azurite plugin appends one line to common/persistence/LokiExtentMetadataStore.js
 * when bundling: `protectNewExtents(LokiExtentMetadata.prototype)`, which gives a record that is
 * inserted the `LastModifyInMS` its extent was stored with. node_modules is untouched; nothing of
 * azurite is copied here, and this file imports none of it.
 * Verified by test/unit/engine/extentProtection.test.ts against azurite's own store.
 */

/** What this patch needs of azurite's LokiExtentMetadata prototype. */
interface ExtentMetadataStore {
  updateExtent(extent: Record<string, unknown>): Promise<void>;
}

/**
 * Makes `updateExtent` of azurite's LokiExtentMetadata set `LastModifyInMS` (the field its GC
 * query reads) from `lastModifiedInMS` (the field the extent stores give) when the record has none.
 * Idempotent.
 * @param proto azurite's `LokiExtentMetadata.prototype`
 */
export function protectNewExtents(proto: ExtentMetadataStore): void {
  const marked = proto as ExtentMetadataStore & { __protectsNewExtents?: true };
  if (marked.__protectsNewExtents === true) return;
  const update = proto.updateExtent;
  proto.updateExtent = function (this: unknown, extent: Record<string, unknown>): Promise<void> {
    if (extent['LastModifyInMS'] === undefined && typeof extent['lastModifiedInMS'] === 'number') extent['LastModifyInMS'] = extent['lastModifiedInMS'];
    return update.call(this, extent);
  };
  marked.__protectsNewExtents = true;
}
