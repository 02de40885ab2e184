/**
 * Which running services a settings change needs restarted. Pure.
 *
 * Applied without a restart: `debug` (the log sink reads the settings in force), `silent` (on: at
 * once; off: from each service's next start, since the engine's access log is off while silent),
 * `extentMemoryLimitBytes` (the chunk store's limit can change under a running service) and
 * `apiVersionCheck` (the engine seam reads the policy on every request) and `engineHeapLimitMb`
 * (it applies when the engine next starts, and no service restart would start it again).
 * Everything else is read by azurite's constructors, so a change restarts the services it touches:
 * a service's own `services[kind]` entry, or any shared option (a data location only matters in
 * disk mode). Where the certificate password comes from (settings.json or Secret Storage) is not
 * a change: the password is.
 */
import type { ServiceKind } from './services';
import type { EmulatorOptions, SettingError } from './settings';

/** Option keys that take effect without restarting a service. */
export const LIVE_OPTION_KEYS: ReadonlySet<string> = new Set(['debug', 'silent', 'extentMemoryLimitBytes', 'apiVersionCheck', 'engineHeapLimitMb']);

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * True when a service started with `started` must restart to run with `next`.
 * @param kind the service
 * @param started the options the running service was started with
 * @param next the options now in force
 * @param held option keys whose change does not count ({@link heldOptionKeys}: a value that is not
 *   valid, whose default `next` holds in its place)
 */
export function needsRestart(kind: ServiceKind, started: EmulatorOptions, next: EmulatorOptions, held: ReadonlySet<string> = new Set()): boolean {
  if (!same(started.services[kind], next.services[kind])) return true;
  const keys = new Set([...Object.keys(started), ...Object.keys(next)]);
  for (const key of keys) {
    if (key === 'services' || LIVE_OPTION_KEYS.has(key) || held.has(key)) continue;
    if (key === 'location' && started.inMemoryPersistence && next.inMemoryPersistence) continue;
    if (key === 'https' && same(withoutSource(started.https), withoutSource(next.https))) continue;
    if (!same((started as unknown as Record<string, unknown>)[key], (next as unknown as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/**
 * The option keys a setting error put a default in place of without blocking any service
 * (`azurite.oauth` set to "basi" while typing "basic": OAuth off in the options): a value that is
 * not valid restarts nothing, so a change of these keys does not count for a restart until the
 * value is valid again. The error's key (`azurite.oauth`) names the option (`oauth`).
 */
export function heldOptionKeys(errors: readonly SettingError[]): Set<string> {
  return new Set(errors.filter((e) => e.services.length === 0).map((e) => e.key.replace(/^azurite\./, '')));
}

/** The HTTPS options without where the password came from: moving it to Secret Storage changes nothing azurite reads. */
function withoutSource(https: EmulatorOptions['https']): unknown {
  return https === undefined ? undefined : { ...https, pwdFromSecretStorage: undefined };
}

/**
 * True when what a failed start's setting is about has changed since the start: the service's host
 * and port for `azurite.<kind>Port` or `<kind>Host`; the data folder or the memory mode for
 * `azurite.location`; the certificate, key or password (Secret Storage included) for `azurite.cert`,
 * `key` and `pwd`; the limit for `azurite.extentMemoryLimit` (applied live to the store) and
 * `azurite.engine.heapLimit` (taken by the next engine process), neither of which restarts a running
 * service, so neither counts as needing one; any option `kind` starts with for another setting.
 * @param startedWith the options the failed start used; @param now the options in force
 */
export function failureFixed(kind: ServiceKind, setting: string, startedWith: EmulatorOptions, now: EmulatorOptions): boolean {
  const differs = (pick: (o: EmulatorOptions) => unknown): boolean => JSON.stringify(pick(startedWith)) !== JSON.stringify(pick(now));
  const key = setting.replace(/^azurite\./, '');
  if (key === `${kind}Port` || key === `${kind}Host`) return differs((o) => o.services[kind]);
  if (key === 'location') return differs((o) => [o.location, o.inMemoryPersistence]);
  if (key === 'cert' || key === 'key' || key === 'pwd') return differs((o) => o.https);
  if (key === 'extentMemoryLimit') return differs((o) => o.extentMemoryLimitBytes);
  if (key === 'engine.heapLimit') return differs((o) => o.engineHeapLimitMb);
  return needsRestart(kind, startedWith, now);
}
