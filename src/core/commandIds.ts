/**
 * Every command id of the extension, in one pure module used by core (status views), ui and
 * commands.ts. The lifecycle ids are the Azurite extension's (its package.json contributions:
 * `azurite.start`, `azurite.start_blob` …), so keybindings, tasks and other extensions that call them
 * keep working; ids of our own are camelCase. package.json's `contributes.commands` must list the
 * same ids (a unit test checks it).
 */
import type { ServiceKind } from './services';

/** The commands that are not per service. */
export const COMMANDS = {
  start: 'azurite.start',
  close: 'azurite.close',
  clean: 'azurite.clean',
  copyConnectionString: 'azurite.copyConnectionString',
  copyEndpoints: 'azurite.copyEndpoints',
  showMemoryUsage: 'azurite.showMemoryUsage',
  reclaimMemory: 'azurite.reclaimMemory',
  setCertificatePassword: 'azurite.setCertificatePassword',
  exportSnapshot: 'azurite.exportSnapshot',
  importSnapshot: 'azurite.importSnapshot',
  reset: 'azurite.reset',
  storageRefresh: 'azurite.storage.refresh',
  storageLoadMore: 'azurite.storage.loadMore',
  storageOpen: 'azurite.storage.open',
  storageSave: 'azurite.storage.save',
  storageUpload: 'azurite.storage.upload',
  storageDelete: 'azurite.storage.delete',
} as const;

/** A per-service lifecycle verb, as in Azurite's ids. */
export type ServiceVerb = 'start' | 'close' | 'clean';

/** `azurite.start_blob`, `azurite.close_queue`, … (Azurite's per-service ids). */
export function serviceCommand(verb: ServiceVerb, kind: ServiceKind): string {
  return `azurite.${verb}_${kind}`;
}

/**
 * The context key set (true) while this extension stays passive beside the Azurite extension
 * (src/extension.ts): package.json hides the Storage view and the commands only this extension has
 * with `!storageEmulators.passive`, since nothing of ours is registered to run them.
 */
export const PASSIVE_CONTEXT_KEY = 'storageEmulators.passive';

/** VS Code's own command that opens the Settings editor (filtered by the query it is given). */
export const OPEN_SETTINGS = 'workbench.action.openSettings';
