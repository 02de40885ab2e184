/**
 * The API-version policy (`azurite.apiVersionCheck`): which `x-ms-version` request headers a service
 * serves. Pure: no vscode, no azurite.
 *
 * Azurite answers every request whose `x-ms-version` is not in its list of known versions with HTTP
 * 400 `InvalidHeaderValue` ("The API version … is not supported by Azurite"), unless
 * `--skipApiVersionCheck` turns the check off altogether (azurite blob|queue|table
 * middleware(s)/*StorageContext.middleware.js, utils/utils.js `checkApiVersion`). The Azure SDKs adopt
 * each new service version weeks or months before an Azurite release knows it, so a current SDK fails
 * against a current Azurite. `acceptNewer` serves such newer versions with the newest behaviour the
 * engine has, and still refuses what is not a version at all. The decision is applied per request by
 * the engine seam (src/engine/apiVersionPolicy.ts); docs/ENGINE.md describes it.
 */

/**
 * The setting's values:
 * - `acceptNewer`: versions the engine knows are served as by Azurite; a well-formed version newer
 *   than the newest the engine knows is served as that newest one; anything else gets Azurite's 400.
 * - `strict`: Azurite's own check (known versions only).
 * - `off`: no check (Azurite's `skipApiVersionCheck`).
 */
export type ApiVersionCheck = 'acceptNewer' | 'strict' | 'off';

/** Every value of {@link ApiVersionCheck}, the default first. */
export const API_VERSION_CHECKS: readonly ApiVersionCheck[] = ['acceptNewer', 'strict', 'off'];

/** The default of `azurite.apiVersionCheck`. */
export const DEFAULT_API_VERSION_CHECK: ApiVersionCheck = 'acceptNewer';

/**
 * What to do with one request's `x-ms-version`:
 * - `azurite`: let Azurite's own check decide (it serves a known version or a request without the
 *   header, and answers 400 for anything else);
 * - `newer`: serve it without Azurite's check, as the newest version the engine knows;
 * - `skip`: serve it without any check (`off`).
 */
export type ApiVersionDecision = 'azurite' | 'newer' | 'skip';

/**
 * True for a storage service version in its published form: a real calendar date `YYYY-MM-DD`
 * (Azure Storage service versions are dates, for example `2026-06-06`; see the Azure Storage
 * "Versioning for the Azure Storage services" documentation).
 */
export function isWellFormedApiVersion(version: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(version);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The newest of `versions` (they are `YYYY-MM-DD`, so text order is date order). @throws Error when empty. */
export function newestApiVersion(versions: readonly string[]): string {
  if (versions.length === 0) throw new Error('no API versions given');
  return versions.reduce((a, b) => (b > a ? b : a));
}

/**
 * Decides how one request is served.
 * @param mode the policy in force
 * @param version the request's `x-ms-version` header (undefined when absent)
 * @param known the versions the engine knows (Azurite's `ValidAPIVersions`)
 * @param newest `newestApiVersion(known)`, passed in so a caller computes it once
 */
export function decideApiVersion(mode: ApiVersionCheck, version: string | undefined, known: readonly string[], newest: string): ApiVersionDecision {
  if (mode === 'off') return 'skip';
  if (mode === 'strict' || version === undefined || known.includes(version)) return 'azurite';
  return isWellFormedApiVersion(version) && version > newest ? 'newer' : 'azurite';
}
