/**
 * Data the Azurite extension wrote where it took `azurite.location` literally. It expands neither
 * `~` nor `${workspaceFolder}` (docs/ENGINE.md, "The Azurite extension's data location"), so a user
 * who moves over with `"azurite.location": "~/azurite"` has their data in `<folder>/~/azurite`, and
 * we would start empty in `$HOME/azurite`. Before a start in disk mode, when that folder holds
 * Azurite's files and ours holds none, a notification says where the data is and offers
 * "Use That Folder", which sets `azurite.location` to it. Once per folder per window; the start does
 * not wait for the answer (a running service on disk restarts at once when the setting changes).
 * Not for a folder whose path holds a literal `${workspaceFolder}` (the Azurite extension's data for
 * `"${workspaceFolder}/data"`): set as the value, it would be expanded again; the notification says
 * to move its contents instead.
 *
 * Also with `azurite.location` unset, when both the workspace folder itself (where the Azurite
 * extension and an `azurite` run there keep data) and `.azurite/` hold Azurite's files: this
 * extension uses `.azurite/` then (core/settings.ts defaultLocation), and the notification says
 * so, offering the workspace folder (`"azurite.location": "."` in the workspace settings).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { azuriteConfig, hasAzuriteData } from '../config';
import { azuriteExtensionLocation, DEFAULT_LOCATION_FOLDER, resolveLocation, type LocationContext } from '../core/settings';
import type { Outcome } from '../core/outcome';
import { notify, showOutcome, updateSetting, type NotifyDeps } from './notify';

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
    if (typeof value !== 'string' || value.trim() === '') {
      this.checkDefault();
      return;
    }
    const ctx = this.context();
    const theirs = azuriteExtensionLocation(value, ctx);
    if (theirs === undefined || this.offered.has(theirs)) return;
    const ours = resolveLocation(value, ctx);
    if (typeof ours !== 'string' || !hasAzuriteData(theirs) || hasAzuriteData(ours)) return;
    this.offered.add(theirs);
    const said = `Azurite data written by the Azurite extension is in ${theirs}: it takes azurite.location "${value.trim()}" literally. ` +
      `This extension expands it to ${ours}, which holds no Azurite data.`;
    // A folder whose path holds "${…}" cannot be set: the setting's value would be expanded again,
    // and VS Code's variables have no escape.
    if (resolveLocation(theirs, ctx) !== theirs) {
      void notify('info', `${said} A path with \${…} in it cannot be set as azurite.location (it would be expanded); to use that data here, move the contents of ${theirs} to ${ours} while its services are stopped.`);
      return;
    }
    void notify('info', said, USE_THAT_FOLDER).then(async (choice) => {
      if (choice === USE_THAT_FOLDER) showOutcome(await useLocation(theirs, this.deps), this.deps);
    });
  }

  /** `azurite.location` unset, with Azurite data in the workspace folder itself and in `.azurite/`. */
  private checkDefault(): void {
    const ctx = this.context();
    const root = ctx.workspaceFolder;
    if (root === undefined || !ctx.rootHasAzuriteData || ctx.defaultFolderHasAzuriteData !== true || this.offered.has(root)) return;
    this.offered.add(root);
    const ours = path.join(root, DEFAULT_LOCATION_FOLDER);
    void notify('info',
      `The workspace folder ${root} holds Azurite data of its own (where the Azurite extension, or azurite run there, keeps it). ` +
      `This extension uses ${ours}, which holds data too; azurite.location is unset.`,
      USE_THAT_FOLDER,
    ).then(async (choice) => {
      if (choice === USE_THAT_FOLDER) showOutcome(await useLocation('.', this.deps), this.deps);
    });
  }
}

/**
 * Sets `azurite.location` to `folder` in the workspace's settings, and reads the settings again:
 * the settings watcher then restarts the services running on disk. Always the workspace's: the
 * folders offered are this workspace's, and a value in the user's settings serves every other
 * workspace too.
 * @param folder an absolute folder, or one relative to the workspace folder
 * @returns `{ ok: true }`, or a `setting` failure when the setting cannot be written
 */
export async function useLocation(folder: string, deps: NotifyDeps): Promise<Outcome> {
  const written = await updateSetting('location', folder, vscode.ConfigurationTarget.Workspace);
  if (written.ok) deps.reloadSettings();
  return written;
}
