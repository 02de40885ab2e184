/**
 * The `extentProtection` patch of the engine seam (src/engine/extentProtection.ts) against azurite's
 * own LokiExtentMetadataStore and the iterator its extent GC walks (unbundled, from node_modules):
 * a new extent is listed for deletion at once without it, and spared for azurite's 10 minutes with
 * it; an older one is still listed. Through the bundle: test/unit/engine/bundledEngine.test.ts and
 * the reclaim tests (test/unit/emulator/memory.test.ts).
 */
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { protectNewExtents } from '../../../src/engine/extentProtection';

interface ExtentStore {
  init(): Promise<void>;
  close(): Promise<void>;
  updateExtent(extent: Record<string, unknown>): Promise<void>;
}
type StoreClass = new (dbPath: string, inMemory: boolean) => ExtentStore;
const { default: LokiExtentMetadata } = require('azurite/dist/src/common/persistence/LokiExtentMetadataStore') as { default: StoreClass & { prototype: ExtentStore } };
const { default: AllExtentsAsyncIterator } = require('azurite/dist/src/common/persistence/AllExtentsAsyncIterator') as {
  default: new (store: ExtentStore) => { next(): Promise<{ done: boolean; value: string[] }> };
};

/** What azurite's extent GC would list for deletion now (AllExtentsAsyncIterator, its 10-minute protection). */
async function listedForDeletion(store: ExtentStore): Promise<string[]> {
  const it = new AllExtentsAsyncIterator(store);
  const ids: string[] = [];
  for (let r = await it.next(); !r.done; r = await it.next()) ids.push(...r.value);
  return ids;
}

/** An extent record as azurite's extent stores give it to updateExtent (MemoryExtentStore, FSExtentStore). */
const extent = (id: string, lastModifiedInMS: number) => ({ id, locationId: 'Default', path: id, size: 1024, lastModifiedInMS });

describe('Seam: azurite\'s GC spares new extents (extentProtection)', () => {
  it('lists a just-stored extent for deletion without the patch, spares it with the patch, and still lists an extent older than 10 minutes', async () => {
    const open = async (): Promise<ExtentStore> => {
      const store = new LokiExtentMetadata(path.join(os.tmpdir(), 'extent-protection.json'), true);
      await store.init();
      return store;
    };
    const before = await open();
    await before.updateExtent(extent('new', Date.now()));
    assert.deepEqual(await listedForDeletion(before), ['new'], 'azurite 3.37 as it is: a new extent is not protected');
    await before.close();

    protectNewExtents(LokiExtentMetadata.prototype);
    protectNewExtents(LokiExtentMetadata.prototype); // idempotent
    const after = await open();
    await after.updateExtent(extent('new', Date.now()));
    await after.updateExtent(extent('old', Date.now() - 11 * 60_000));
    assert.deepEqual(await listedForDeletion(after), ['old']);
    await after.close();
  });
});
