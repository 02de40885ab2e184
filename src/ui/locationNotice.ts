/**
 * Data the Azurite extension wrote where it took `azurite.location` literally. It expands neither
 * `~` nor `${workspaceFolder}` (docs/ENGINE.md, "The Azurite extension's data location"), so a user
 * who moves over with `"azurite.location": "~/azurite"` has their data in `<folder>/~/azurite`, and
 * we would start empty in `$HOME/azurite`. Before a start in disk mode, when that folder holds
 * Azurite's files and ours holds none, a notification says where the data is and offers
 * "Use That Folder", which sets `azurite.location` to it. Once per folder per window; the start does
 * not wait for the answer (a running service on disk restarts at once when the setting changes).
 */
import { azuriteConfig, hasAzuriteData, settingTargetOf } from '../config';
import { azuriteExtensionLocation, resolveLocation, type LocationContext } from '../core/settings';
import { failure, type Outcome } from '../core/outcome';
import { notify, showOutcome, type NotifyDeps } from './notify';

/** The action on the notification. */
export const USE_THAT_FOLDER = 'Use That Folder';

/** Checks the location before starts; see the module's description. */
export class LocationNotice {
  /** The Azurite extension's folders already pointed out in this window. */
  private readonly offered = new Set<string>();

  /**
   * @param context what resolving `azurite.location` needs now (config.ts locationContext)
   */
  constructor(
    private readonly context: () => LocationContext,
    private readonly deps: NotifyDeps,
  ) {}

  /** Shows the notification if it applies (see the module's description); does not wait for it. */
  check(): void {
    const config = azuriteConfig();
    if (config.get<boolean>('inMemoryPersistence') === true) return;
    const value = config.get<unknown>('location');
    if (typeof value !== 'string' || value.trim() === '') return;
    const ctx = this.context();
    const theirs = azuriteExtensionLocation(value, ctx);
    if (theirs === undefined || this.offered.has(theirs)) return;
    const ours = resolveLocation(value, ctx);
    if (typeof ours !== 'string' || !hasAzuriteData(theirs) || hasAzuriteData(ours)) return;
    this.offered.add(theirs);
    void notify('info',
      `Azurite data written by the Azurite extension is in ${theirs}: it takes azurite.location "${value.trim()}" literally. ` +
      `This extension expands it to ${ours}, which holds no Azurite data.`,
      USE_THAT_FOLDER,
    ).then(async (choice) => {
      if (choice === USE_THAT_FOLDER) showOutcome(await useLocation(theirs, this.deps), this.deps);
    });
  }
}

/**
 * Sets `azurite.location` to `folder` (absolute) where the setting is set now, and reads the
 * settings again: the settings watcher then restarts the services running on disk.
 * @returns `{ ok: true }`, or a `setting` failure when the setting cannot be written
 */
export async function useLocation(folder: string, deps: NotifyDeps): Promise<Outcome> {
  try {
    await azuriteConfig().update('location', folder, settingTargetOf('location'));
  } catch (err) {
    return failure('setting', `azurite.location could not be set to ${folder}: ${(err as Error).message}`, { setting: 'azurite.location' });
  }
  deps.reloadSettings();
  return { ok: true };
}
