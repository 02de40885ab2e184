/**
 * Loads dist/data.js (src/data/index.ts and the Azure SDKs) on first use. It is a bundle of its own
 * so that `activate()` never parses the SDKs; esbuild leaves this computed `require` alone.
 */
import * as path from 'node:path';

/** The data layer's exports (types only at compile time; the code comes from dist/data.js). */
export type DataLayer = typeof import('../data/index');

let loaded: DataLayer | undefined;

/**
 * The data layer, loaded once.
 * @param extensionPath the extension's folder (`context.extensionPath`)
 * @throws Error when dist/data.js is missing or does not load (a broken install)
 */
export function dataLayer(extensionPath: string): DataLayer {
  if (loaded === undefined) {
    const file = path.join(extensionPath, 'dist', 'data.js');
    loaded = (module.require as (id: string) => DataLayer)(file);
  }
  return loaded;
}
