/**
 * Azurite's data file names inside the location folder (disk mode), as in azurite's
 * blob/queue/table `utils/constants.js` (DEFAULT_*_LOKI_DB_PATH, DEFAULT_*_PERSISTENCE_PATH) and the
 * Azurite extension — so data written by either is found by the other.
 */
import type { ServiceKind } from './services';

/** Per service: Loki database file(s) and the extent folder. */
export const DATA_FILES = {
  blob: { db: '__azurite_db_blob__.json', extentDb: '__azurite_db_blob_extent__.json', extents: '__blobstorage__' },
  queue: { db: '__azurite_db_queue__.json', extentDb: '__azurite_db_queue_extent__.json', extents: '__queuestorage__' },
  table: { db: '__azurite_db_table__.json' },
} as const;

/** Names of the files and folders a service keeps in its location folder (for "what will be deleted"). */
export function dataFileNames(kind: ServiceKind): string[] {
  return Object.values(DATA_FILES[kind]);
}
