/** Size on disk of a service's data (disk mode). */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { dataFileNames } from '../core/dataFiles';
import type { ServiceKind } from '../core/services';

/**
 * Bytes on disk of one service's data in `location` (its Loki files and extent folder, recursively);
 * 0 when there is none. Never rejects: unreadable entries count as 0.
 */
export async function diskUsageBytes(kind: ServiceKind, location: string): Promise<number> {
  const sizeOf = async (p: string): Promise<number> => {
    const st = await fs.stat(p).catch(() => undefined);
    if (st === undefined) return 0;
    if (!st.isDirectory()) return st.size;
    const entries = await fs.readdir(p).catch(() => [] as string[]);
    let total = 0;
    for (const e of entries) total += await sizeOf(path.join(p, e));
    return total;
  };
  let total = 0;
  for (const name of dataFileNames(kind)) total += await sizeOf(path.join(location, name));
  return total;
}
