/**
 * Raw `azurite.*` setting values → validated {@link EmulatorOptions}, or errors a person can act on.
 * Keys, defaults and meanings follow the Azurite VS Code extension's package.json contributions
 * (azurite 3.37.0) so existing settings.json files keep working. Pure: no vscode, no fs.
 */
import * as path from 'node:path';
import { DEFAULT_HOST, DEFAULT_PORTS, SERVICE_KINDS, serviceName, type ServiceKind } from './services';
import { mbToBytes } from './memory';
import { API_VERSION_CHECKS, DEFAULT_API_VERSION_CHECK, type ApiVersionCheck } from './apiVersions';
import { hostsOverlap, isWildcardHost, readsAccountFromHostName } from './hosts';

/** Where one service listens, as configured (port 0 = any free port). */
export interface ServiceOptions {
  readonly host: string;
  readonly port: number;
  /**
   * Seconds an idle keep-alive connection stays open (`azurite.<kind>KeepAliveTimeout`; Azurite's
   * ServerBase sets `httpServer.keepAliveTimeout` to this × 1000). 0 keeps Node's default (5 s).
   */
  readonly keepAliveSec: number;
}

/**
 * The HTTPS certificate, as configured: PEM when `key` is set (`cert` + `key`, `pwd` ignored, as in
 * Azurite's ConfigurationBase.hasCert), else PFX (`cert` + `pwd`). Paths are absolute. Whether the
 * files exist and open is checked at start (src/emulator/certificates.ts), not here.
 */
export interface HttpsOptions {
  /** PEM certificate, or PFX (PKCS #12) file. */
  readonly cert: string;
  /** PEM private key (unencrypted); set = PEM mode. */
  readonly key?: string;
  /** PFX password; used only without `key`. */
  readonly pwd?: string;
  /** True when `pwd` came from Secret Storage (`Azurite: Set Certificate Password`), not from `azurite.pwd`. */
  readonly pwdFromSecretStorage?: boolean;
}

/** Validated emulator options. Units as named: `extentMemoryLimitBytes` is bytes. */
export interface EmulatorOptions {
  readonly services: Readonly<Record<ServiceKind, ServiceOptions>>;
  /** Absolute folder for disk persistence (unused when `inMemoryPersistence`). */
  readonly location: string;
  readonly inMemoryPersistence: boolean;
  /** Limit for blob + queue extents in bytes; undefined = Azurite's default (50% of total memory). */
  readonly extentMemoryLimitBytes: number | undefined;
  readonly loose: boolean;
  /**
   * The API-version policy in force (./apiVersions.ts): `azurite.apiVersionCheck`, except that
   * `azurite.skipApiVersionCheck: true` means `off` and wins (other extensions write that key).
   */
  readonly apiVersionCheck: ApiVersionCheck;
  /** Debug log lines to the output channel. */
  readonly debug: boolean;
  /** No access log lines. */
  readonly silent: boolean;
  /** Serve HTTPS with this certificate (`azurite.cert`, `azurite.key`, `azurite.pwd`); undefined = HTTP. */
  readonly https: HttpsOptions | undefined;
  /** `azurite.oauth`: "basic" accepts OAuth bearer tokens (HTTPS only); undefined = shared key and SAS only. */
  readonly oauth: 'basic' | undefined;
  /** Take the account name only from the first path segment, never from the request's host name. */
  readonly disableProductStyleUrl: boolean;
  /** The engine process's heap limit in MB (`azurite.engine.heapLimit`); applies when the engine's process next starts (the first start once no service runs, a window reload, or after the engine ended). */
  readonly engineHeapLimitMb: number;
}

/** `azurite.engine.heapLimit`'s default, in MB (package.json says why). */
export const DEFAULT_ENGINE_HEAP_LIMIT_MB = 2048;

/** A setting whose value cannot be used. `services` are the services it stops from starting. */
export interface SettingError {
  readonly key: string;
  readonly value: unknown;
  readonly message: string;
  readonly services: readonly ServiceKind[];
}

/** Values of the `azurite.*` settings, keyed without the `azurite.` prefix, as VS Code returns them. */
export type RawSettings = Readonly<Record<string, unknown>>;

/** A workspace folder as `${workspaceFolder:name}` finds it: its name (as the Explorer shows it) and absolute path. */
export interface NamedFolder {
  readonly name: string;
  readonly path: string;
}

/** What VS Code's variables in a path setting expand to (see {@link resolveLocation}). Paths are absolute. */
export interface PathVariableContext {
  /** `${workspaceFolder}`: the folder data is kept relative to (in a multi-root workspace the one chosen), if a folder is open. */
  readonly workspaceFolder: string | undefined;
  /** Every workspace folder on disk, in the workspace's order, for `${workspaceFolder:name}`; none when absent. */
  readonly workspaceFolders?: readonly NamedFolder[];
  /** `${userHome}` and a leading `~`. */
  readonly homeDir: string;
  /** The variables `${env:NAME}` reads; `process.env` when absent. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** What location resolution needs to know about the environment. Paths are absolute. */
export interface LocationContext extends PathVariableContext {
  /** The extension's global storage folder (used when no folder is open). */
  readonly globalStoragePath: string;
  /** True when the workspace root already holds Azurite's `__azurite_db_*` files. */
  readonly rootHasAzuriteData: boolean;
  /** True when `.azurite/` in the workspace folder holds them (then it stays the default, whatever the root holds). */
  readonly defaultFolderHasAzuriteData?: boolean;
  /**
   * True for a path to something the user made (`azurite.cert`, `azurite.key`, `azurite.seed`): a
   * relative one with no folder open is an error, not a path under global storage, where it cannot be.
   */
  readonly relativeNeedsFolder?: boolean;
}

/**
 * Values kept in VS Code's Secret Storage rather than settings.json. `pwdFor`: the PFX password
 * stored by `Azurite: Set Certificate Password` for the certificate file at an absolute path (as
 * {@link certificatePath} resolves `azurite.cert`), used when `azurite.pwd` is not set (the setting
 * wins); undefined when none is stored for it.
 */
export interface SecretSettings {
  readonly pwdFor?: (cert: string) => string | undefined;
}

/**
 * `azurite.cert` resolved to the absolute path the settings use (as `azurite.location` resolves,
 * a relative path needing a folder), or undefined when unset, not a string or not resolvable (the
 * settings then report it). What a stored certificate password is kept for.
 */
export function certificatePath(cert: unknown, location: LocationContext): string | undefined {
  if (typeof cert !== 'string' || cert.trim() === '') return undefined;
  const resolved = resolveLocation(cert, { ...location, relativeNeedsFolder: true });
  return typeof resolved === 'string' ? resolved : undefined;
}

/** The result of {@link parseSettings}: options built from every valid value, plus the errors. */
export interface ParsedSettings {
  readonly options: EmulatorOptions;
  readonly errors: readonly SettingError[];
}

/** The folder name used for data inside the workspace folder when `azurite.location` is unset. */
export const DEFAULT_LOCATION_FOLDER = '.azurite';

/** Azurite's keep-alive timeout default in seconds (DEFAULT_BLOB/QUEUE/TABLE_KEEP_ALIVE_TIMEOUT). */
export const DEFAULT_KEEP_ALIVE_SEC = 5;
/**
 * The largest keep-alive timeout in seconds: Node's timers hold at most 2^31 − 1 ms and silently
 * turn a longer timeout into 1 ms (TimeoutOverflowWarning), which would close every idle connection.
 */
export const MAX_KEEP_ALIVE_SEC = 2147483;

/** Certificate file names taken for PEM when neither `azurite.key` nor `azurite.pwd` says which. */
const PEM_EXTENSION = /\.(pem|crt|cer)$/i;

const ALL = SERVICE_KINDS;
const EXTENT_KINDS: readonly ServiceKind[] = ['blob', 'queue'];

/** Formats a setting value for a message: strings quoted, objects as JSON. */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/**
 * Validates every `azurite.*` value. Invalid values fall back to their defaults in `options` and
 * are listed in `errors`; callers must refuse to start the services an error names.
 */
export function parseSettings(raw: RawSettings, location: LocationContext, secrets: SecretSettings = {}): ParsedSettings {
  const errors: SettingError[] = [];
  const fail = (key: string, value: unknown, fix: string, services: readonly ServiceKind[], shown = show(value)): void => {
    errors.push({ key: `azurite.${key}`, value, message: `azurite.${key} is ${shown}; ${fix}`, services });
  };

  const bool = (key: string, services: readonly ServiceKind[]): boolean => {
    const v = raw[key];
    if (v === undefined || v === null) return false;
    if (typeof v === 'boolean') return v;
    fail(key, v, 'use true or false.', services);
    return false;
  };

  const services = {} as Record<ServiceKind, ServiceOptions>;
  for (const kind of SERVICE_KINDS) {
    const hostKey = `${kind}Host`;
    const portKey = `${kind}Port`;
    let host = DEFAULT_HOST;
    const rawHost = raw[hostKey];
    if (rawHost !== undefined && rawHost !== null) {
      if (typeof rawHost === 'string' && rawHost.includes(':') && rawHost.includes('%')) {
        // A zone (fe80::1%eth0): WHATWG URLs, and so the SDKs and this extension's clients, take none.
        fail(hostKey, rawHost, `an IPv6 address with a zone (the part from "%") cannot be written in a URL, so no client could reach it through a connection string. Use "::" (every address) or "::1" (this machine), or an address without a zone.`, [kind]);
      } else if (typeof rawHost === 'string' && rawHost.trim() !== '' && !/\s/.test(rawHost.trim())) host = rawHost.trim();
      else fail(hostKey, rawHost, `use a host name or IP address to listen on, such as "${DEFAULT_HOST}" (this machine only) or "0.0.0.0" (all interfaces).`, [kind]);
    }
    let port = DEFAULT_PORTS[kind];
    const rawPort = raw[portKey];
    if (rawPort !== undefined && rawPort !== null) {
      // A port written as a string ("10000") works in the Azurite extension, which hands it to Node's listen().
      const asNumber = typeof rawPort === 'string' && /^\d{1,5}$/.test(rawPort.trim()) ? Number(rawPort.trim()) : rawPort;
      if (isPortNumber(asNumber)) port = asNumber;
      else fail(portKey, rawPort, `use a whole number from 0 to 65535 (0 picks a free port; Azurite's default is ${DEFAULT_PORTS[kind]}).`, [kind]);
    }
    const keepAliveKey = `${kind}KeepAliveTimeout`;
    let keepAliveSec = DEFAULT_KEEP_ALIVE_SEC;
    const rawKeepAlive = raw[keepAliveKey];
    if (rawKeepAlive !== undefined && rawKeepAlive !== null) {
      // A number written as a string ("5") works in the Azurite extension, which multiplies it by 1000.
      const seconds = typeof rawKeepAlive === 'string' && /^\d+(\.\d+)?$/.test(rawKeepAlive.trim()) ? Number(rawKeepAlive.trim()) : rawKeepAlive;
      if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_KEEP_ALIVE_SEC) keepAliveSec = seconds;
      else fail(keepAliveKey, rawKeepAlive, `use a number of seconds from 0 to ${MAX_KEEP_ALIVE_SEC} (Azurite's default is ${DEFAULT_KEEP_ALIVE_SEC}; 0 keeps Node's default of 5).`, [kind]);
    }
    services[kind] = { host, port, keepAliveSec };
  }
  errors.push(...portContradictions(raw, services, new Set(errors.map((e) => e.key))));

  const inMemoryPersistence = bool('inMemoryPersistence', ALL);

  let extentMemoryLimitBytes: number | undefined;
  const rawLimit = raw['extentMemoryLimit'];
  // Empty ("", as the Settings editor leaves a cleared field) is unset, as for azurite.location.
  if (rawLimit !== undefined && rawLimit !== null && !(typeof rawLimit === 'string' && rawLimit.trim() === '')) {
    // A number of MB written as a string ("512"), as ports may be: what it plainly asks for. (The
    // Azurite extension takes any string as unset, its default of 50% of memory.)
    const mb = typeof rawLimit === 'string' && /^\d+(\.\d+)?$/.test(rawLimit.trim()) ? Number(rawLimit.trim()) : rawLimit;
    if (typeof mb === 'number' && Number.isFinite(mb) && mb > 0 && mbToBytes(mb) >= 1) {
      extentMemoryLimitBytes = mbToBytes(mb);
    } else {
      fail('extentMemoryLimit', rawLimit, "use a number of MB greater than 0 (1 MB = 1024 × 1024 bytes), or remove it for Azurite's default of 50% of total memory.", inMemoryPersistence ? EXTENT_KINDS : []);
    }
  }

  let resolvedLocation = defaultLocation(location);
  const rawLocation = raw['location'];
  if (rawLocation !== undefined && rawLocation !== null && !(typeof rawLocation === 'string' && rawLocation.trim() === '')) {
    if (typeof rawLocation !== 'string') {
      fail('location', rawLocation, 'use a folder path: absolute, relative to the workspace folder, or with ${workspaceFolder} or ~.', inMemoryPersistence ? [] : ALL);
    } else {
      const resolved = resolveLocation(rawLocation, location);
      if (typeof resolved === 'string') resolvedLocation = resolved;
      else fail('location', rawLocation, resolved.fix, inMemoryPersistence ? [] : ALL);
    }
  }

  const { https, oauth } = parseHttps(raw, location, fail, secrets.pwdFor);

  const loose = bool('loose', ALL);
  let apiVersionCheck: ApiVersionCheck = DEFAULT_API_VERSION_CHECK;
  const rawCheck = raw['apiVersionCheck'];
  // azurite.skipApiVersionCheck wins over azurite.apiVersionCheck, valid or not.
  const skipCheck = bool('skipApiVersionCheck', ALL);
  if (rawCheck !== undefined && rawCheck !== null) {
    if ((API_VERSION_CHECKS as readonly unknown[]).includes(rawCheck)) apiVersionCheck = rawCheck as ApiVersionCheck;
    else {
      const inForce = skipCheck ? '"off" is in force, as azurite.skipApiVersionCheck is on' : `"${DEFAULT_API_VERSION_CHECK}" is the default and is in force until then`;
      fail('apiVersionCheck', rawCheck, `use ${API_VERSION_CHECKS.map((c) => `"${c}"`).join(', ')} (${inForce}).`, []);
    }
  }
  if (skipCheck) apiVersionCheck = 'off';

  let engineHeapLimitMb = DEFAULT_ENGINE_HEAP_LIMIT_MB;
  const rawHeap = raw['engine.heapLimit'];
  if (rawHeap !== undefined && rawHeap !== null) {
    if (typeof rawHeap === 'number' && Number.isInteger(rawHeap) && rawHeap >= 128 && rawHeap <= 65536) engineHeapLimitMb = rawHeap;
    else fail('engine.heapLimit', rawHeap, `use a whole number of MB from 128 to 65536 (the default, ${DEFAULT_ENGINE_HEAP_LIMIT_MB}, is in force until then).`, []);
  }

  const options: EmulatorOptions = {
    services,
    location: resolvedLocation,
    inMemoryPersistence,
    extentMemoryLimitBytes,
    loose,
    apiVersionCheck,
    debug: bool('debug', []),
    silent: bool('silent', []),
    https,
    oauth,
    disableProductStyleUrl: bool('disableProductStyleUrl', ALL),
    engineHeapLimitMb,
  };
  // The connection strings and clients of this extension name the account in the path, at the
  // service's host: a dotted name there would be read as an account by Azurite.
  if (!options.disableProductStyleUrl) {
    for (const kind of SERVICE_KINDS) {
      const host = services[kind].host;
      if (!readsAccountFromHostName(host)) continue;
      const label = host.slice(0, host.indexOf('.'));
      fail(`${kind}Host`, host, `Azurite reads a dotted host name as a product-style URL and takes the account from its first label ("${label}"), so the connection strings of this extension (and its Storage view), which name the account in the path at this host, would reach account "${label}" and fail. Turn on azurite.disableProductStyleUrl, or listen on an IP address such as "127.0.0.1" or "0.0.0.0".`, []);
    }
  }
  return { options, errors };
}

/** Records a setting error: key without `azurite.`, value, fix, blocked services, and how to show the value. */
type Fail = (key: string, value: unknown, fix: string, services: readonly ServiceKind[], shown?: string) => void;

/**
 * `azurite.cert`, `azurite.key`, `azurite.pwd` and `azurite.oauth` → {@link HttpsOptions} and the
 * OAuth level, as Azurite reads them (ConfigurationBase.hasCert / getOAuthLevel): cert + key = PEM,
 * cert + pwd = PFX, oauth "basic" in any case. Unlike Azurite, which silently falls back to HTTP or
 * no OAuth, an incomplete combination is an error that blocks every service. Empty strings are unset.
 * Paths resolve like `azurite.location` ({@link resolveLocation}). The password is never shown.
 */
function parseHttps(raw: RawSettings, ctx: LocationContext, fail: Fail, secretPwdFor: ((cert: string) => string | undefined) | undefined): { https: HttpsOptions | undefined; oauth: 'basic' | undefined } {
  const given = (key: string): boolean => {
    const v = raw[key];
    return v !== undefined && v !== null && !(typeof v === 'string' && (key === 'pwd' ? v === '' : v.trim() === ''));
  };
  const file = (key: 'cert' | 'key', what: string): string | undefined => {
    if (!given(key)) return undefined;
    const v = raw[key];
    if (typeof v !== 'string') {
      fail(key, v, `use the path of ${what}: absolute, relative to the workspace folder, or with \${workspaceFolder} or ~.`, ALL);
      return undefined;
    }
    const resolved = resolveLocation(v, { ...ctx, relativeNeedsFolder: true });
    if (typeof resolved === 'string') return resolved;
    fail(key, v, resolved.fix, ALL);
    return undefined;
  };

  const cert = file('cert', 'a PEM certificate or a PFX file');
  const key = file('key', 'the PEM private key of azurite.cert');
  let pwd: string | undefined;
  if (given('pwd')) {
    if (typeof raw['pwd'] === 'string') pwd = raw['pwd'];
    // A number ("azurite.pwd": 123456) works in the Azurite extension, which calls toString() on it.
    else if (typeof raw['pwd'] === 'number' && Number.isFinite(raw['pwd'])) pwd = String(raw['pwd']);
    else fail('pwd', '(hidden)', 'write the PFX password as a string, in quotes.', ALL, 'set (value hidden) but not a string');
  }

  // The stored password stands in for an unset azurite.pwd, and only where a PFX is configured: a
  // password kept for another project is no error here.
  const secretPwd = cert !== undefined && !given('key') ? secretPwdFor?.(cert) : undefined;
  const fromSecret = pwd === undefined && !given('pwd') && given('cert') && !given('key') && secretPwd !== undefined && secretPwd !== '';
  if (fromSecret) pwd = secretPwd;

  let https: HttpsOptions | undefined;
  if (!given('cert')) {
    if (given('key')) fail('key', raw['key'], 'it needs azurite.cert: set azurite.cert to the PEM certificate this key belongs to, or clear azurite.key.', ALL);
    if (given('pwd')) fail('pwd', '(hidden)', 'it needs azurite.cert: set azurite.cert to the PFX file this password opens, or clear azurite.pwd.', ALL, 'set (value hidden)');
  } else if (given('key')) {
    if (cert !== undefined && key !== undefined) https = { cert, key };
  } else if (pwd !== undefined) {
    if (cert !== undefined && PEM_EXTENSION.test(cert)) {
      fail('cert', raw['cert'], `a PEM certificate needs its private key: set azurite.key to the PEM key file (${fromSecret ? 'the password in Secret Storage' : 'azurite.pwd'} only opens PFX files), or point azurite.cert at the PFX file.`, ALL);
    } else if (cert !== undefined) {
      https = fromSecret ? { cert, pwd, pwdFromSecretStorage: true } : { cert, pwd };
    }
  } else if (!given('pwd') && cert !== undefined) {
    const certValue = raw['cert'];
    if (PEM_EXTENSION.test(cert)) {
      fail('cert', certValue, 'a PEM certificate needs its private key: set azurite.key to the PEM key file (HTTPS stays off until then), or use a PFX file and set azurite.pwd to its password.', ALL);
    } else {
      fail('cert', certValue, 'a PFX certificate needs its password: run "Azurite: Set Certificate Password" (kept in Secret Storage) or set azurite.pwd (Azurite cannot open a PFX without one; HTTPS stays off until then; a PFX exported with an empty password needs exporting again with one), or use a PEM certificate and set azurite.key to its private key file.', ALL);
    }
  }

  let oauth: 'basic' | undefined;
  const rawOauth = raw['oauth'];
  if (rawOauth !== undefined && rawOauth !== null && !(typeof rawOauth === 'string' && rawOauth.trim() === '')) {
    if (typeof rawOauth !== 'string' || rawOauth.trim().toLowerCase() !== 'basic') {
      // The Azurite extension ignores any other value (ConfigurationBase.getOAuthLevel): so do the
      // services here, and the error (which blocks no service) says so, rather than refusing to start.
      fail('oauth', rawOauth, 'Azurite knows only "basic", so OAuth stays off (shared key and SAS only). Use "basic" to also accept OAuth bearer tokens, or leave it empty.', []);
    } else if (!given('cert')) {
      fail('oauth', rawOauth, 'OAuth needs HTTPS: set azurite.cert (with azurite.key for PEM, or azurite.pwd for PFX), or clear azurite.oauth.', ALL);
    } else {
      oauth = 'basic';
    }
  }
  return { https, oauth };
}

/**
 * Where data lives when `azurite.location` is unset: `.azurite/` in the workspace folder, or the
 * workspace root itself when it already holds Azurite's `__azurite_db_*` files and `.azurite/` holds
 * none (so data written by the Azurite extension, which defaults to the root, is found); with no
 * folder open, global storage.
 */
export function defaultLocation(ctx: LocationContext): string {
  if (ctx.workspaceFolder === undefined) return ctx.globalStoragePath;
  // The root only for data the Azurite extension left there, not once `.azurite/` holds ours: a
  // later `npx azurite` in the root must not switch the folder under the user.
  return ctx.rootHasAzuriteData && ctx.defaultFolderHasAzuriteData !== true ? ctx.workspaceFolder : path.join(ctx.workspaceFolder, DEFAULT_LOCATION_FOLDER);
}

/**
 * The variables a path setting expands, for messages: VS Code's own syntax (as in launch.json and
 * tasks.json), besides a leading `~`.
 */
export const PATH_VARIABLES = '${workspaceFolder}, ${workspaceFolder:<folder name>}, ${workspaceFolderBasename}, ${userHome}, ${env:<NAME>}';

/** A variable as VS Code's resolver finds one: `${name}` or `${name:argument}`, the shortest match. */
const VARIABLE = /\$\{(.*?)\}/g;

/**
 * Resolves a non-empty path setting's value (`azurite.location`, `azurite.cert`, `azurite.key`,
 * `azurite.seed`). A leading `~` is the home folder. VS Code's variables are expanded as its own
 * resolver does: `${workspaceFolder}` (the folder data is kept relative to), `${workspaceFolder:name}`
 * (the workspace folder of that name; the last one if two share it), `${workspaceFolderBasename}`
 * (the last segment of `${workspaceFolder}`), `${userHome}`, and `${env:NAME}` (an error when unset,
 * where VS Code's launch.json would give an empty string).
 * What a variable expands to is not expanded again. A relative result is taken from the workspace
 * folder (global storage if none is open, or an error with `relativeNeedsFolder`).
 * @returns an absolute, normalized path, or `{ fix }` explaining what to change: a variable that is
 *   not one of those (`${config:…}`, `${command:…}`), a folder name no workspace folder has, or
 *   `${workspaceFolder}` / `${workspaceFolderBasename}` with no folder open, or a relative path with no
 *   folder open and `relativeNeedsFolder`
 */
export function resolveLocation(value: string, ctx: LocationContext): string | { fix: string } {
  const trimmed = value.trim();
  // `~` is read before the variables, so nothing a variable expands to is taken for it.
  const underHome = isUnderHome(trimmed);
  const expanded = expandVariables(underHome ? trimmed.slice(1) : trimmed, ctx);
  if (typeof expanded !== 'string') return expanded;
  let p = underHome ? path.join(ctx.homeDir, expanded) : expanded;
  if (!path.isAbsolute(p) && ctx.workspaceFolder === undefined && ctx.relativeNeedsFolder === true) {
    return { fix: 'it is a relative path, which is taken from the workspace folder, but no folder is open; open a folder or use an absolute path (or ~).' };
  }
  if (!path.isAbsolute(p)) p = path.join(ctx.workspaceFolder ?? ctx.globalStoragePath, p);
  return path.normalize(p);
}

/**
 * Expands every variable in `text` ({@link resolveLocation} says which).
 * @returns the expanded text, or `{ fix }` for the first variable that cannot be expanded
 */
function expandVariables(text: string, ctx: PathVariableContext): string | { fix: string } {
  let problem: { fix: string } | undefined;
  const expanded = text.replace(VARIABLE, (match: string, inner: string) => {
    const value = expandVariable(match, inner, ctx);
    if (typeof value === 'string') return value;
    problem ??= value;
    return match;
  });
  return problem ?? expanded;
}

/** One variable: `match` is `${inner}`. Its value, or `{ fix }` when it cannot be expanded. */
function expandVariable(match: string, inner: string, ctx: PathVariableContext): string | { fix: string } {
  const colon = inner.indexOf(':');
  const name = colon < 0 ? inner : inner.slice(0, colon);
  const argument = colon < 0 ? undefined : inner.slice(colon + 1);
  if (argument === undefined && (name === 'workspaceFolder' || name === 'workspaceFolderBasename')) {
    if (ctx.workspaceFolder === undefined) return { fix: `it uses ${match} but no folder is open; open a folder or use an absolute path.` };
    return name === 'workspaceFolder' ? ctx.workspaceFolder : path.basename(ctx.workspaceFolder);
  }
  if (argument === undefined && name === 'userHome') return ctx.homeDir;
  if (argument !== undefined && argument !== '' && name === 'workspaceFolder') {
    // VS Code's resolver takes the last folder of that name.
    const folders = ctx.workspaceFolders ?? [];
    const folder = [...folders].reverse().find((f) => f.name === argument);
    if (folder !== undefined) return folder.path;
    const names = folders.map((f) => JSON.stringify(f.name));
    const open = names.length === 0 ? 'no folder is open' : `the workspace folders are ${names.join(', ')}`;
    return { fix: `it uses ${match} but no workspace folder is named ${JSON.stringify(argument)} (${open}); use a folder's name as the Explorer shows it, or an absolute path.` };
  }
  // Unset: an error, not VS Code's empty string, which would put the data (or look for a
  // certificate) in the workspace folder itself without a word.
  if (argument !== undefined && argument !== '' && name === 'env') {
    const value = (ctx.env ?? process.env)[argument];
    return value !== undefined ? value : { fix: `it uses ${match}, but ${argument} is not set in the environment VS Code was started with; set it there (and restart VS Code), or use an absolute path.` };
  }
  return { fix: `it uses ${match}, which is not expanded here; use ${PATH_VARIABLES}, a leading ~, or an absolute path.` };
}

/**
 * Where the Azurite extension keeps data for a non-empty `azurite.location` value, when that is
 * not where {@link resolveLocation} puts it: the Azurite extension expands neither `~` nor any
 * `${…}` variable, and takes a path that is not absolute from the workspace folder
 * (docs/ENGINE.md, "The Azurite extension's data location").
 * @returns an absolute path, or undefined when both are the same folder (or no folder is open for
 *   a relative value, which the Azurite extension refuses)
 */
export function azuriteExtensionLocation(value: string, ctx: LocationContext): string | undefined {
  const p = value.trim();
  if (!(p.includes('${') || isUnderHome(p))) return undefined;
  if (!path.isAbsolute(p) && ctx.workspaceFolder === undefined) return undefined;
  const theirs = path.isAbsolute(p) ? path.normalize(p) : path.resolve(ctx.workspaceFolder!, p);
  return theirs === resolveLocation(value, ctx) ? undefined : theirs;
}

/**
 * True when a non-empty `azurite.location` value depends on which workspace folder is meant: it
 * uses `${workspaceFolder}` or `${workspaceFolderBasename}`, or it is relative once its other
 * variables are expanded (and not under `~`). False for one that cannot be expanded in any folder
 * (an unknown variable or folder name): its setting error says so, whatever the folder. See
 * {@link resolveLocation}.
 * @param ctx what the other variables expand to (`workspaceFolder` is not needed)
 */
export function locationNeedsFolder(value: string, ctx: Omit<PathVariableContext, 'workspaceFolder'>): boolean {
  const p = value.trim();
  if (isUnderHome(p)) return false;
  const names = [...p.matchAll(VARIABLE)].map((m) => m[1]);
  if (names.includes('workspaceFolder') || names.includes('workspaceFolderBasename')) return true;
  const expanded = expandVariables(p, { ...ctx, workspaceFolder: undefined });
  return typeof expanded === 'string' && !path.isAbsolute(expanded);
}

/** True for `~` and a path that starts with `~/` or `~\\`: what {@link resolveLocation} takes from the home folder. */
function isUnderHome(p: string): boolean {
  return p === '~' || p.startsWith('~/') || p.startsWith('~\\');
}

/** True for a whole number from 0 to 65535 (a port setting's valid values; 0 picks a free port). */
export function isPortNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65535;
}

/** The errors that stop `kind` from starting. */
export function errorsFor(errors: readonly SettingError[], kind: ServiceKind): SettingError[] {
  return errors.filter((e) => e.services.includes(kind));
}

/**
 * Two services configured onto one host:port (the same nonzero port; the same host, or either one a
 * wildcard such as 0.0.0.0): the second could never listen, and a start would blame "another
 * program" for our own service. One error per pair, naming both settings; it blocks both services,
 * so nothing starts half-way. The setting blamed is the one the user set (the later service's when
 * both are set or both unset). Pairs where a port or host value is itself invalid are left to that
 * error. Pure.
 * @param invalid keys (`azurite.blobPort` …) that already have an error
 */
export function portContradictions(raw: RawSettings, services: Readonly<Record<ServiceKind, ServiceOptions>>, invalid: ReadonlySet<string> = new Set()): SettingError[] {
  const errors: SettingError[] = [];
  const set = (kind: ServiceKind): boolean => raw[`${kind}Port`] !== undefined && raw[`${kind}Port`] !== null;
  const bad = (kind: ServiceKind): boolean => invalid.has(`azurite.${kind}Port`) || invalid.has(`azurite.${kind}Host`);
  SERVICE_KINDS.forEach((a, i) => {
    for (const b of SERVICE_KINDS.slice(i + 1)) {
      const x = services[a];
      const y = services[b];
      if (x.port === 0 || x.port !== y.port || bad(a) || bad(b) || !hostsOverlap(x.host, y.host)) continue;
      const [blamed, other] = set(b) || !set(a) ? [b, a] : [a, b];
      const port = x.port;
      const where = x.host === y.host ? `${x.host}:${port}` : `port ${port} (${[a, b].filter((k) => isWildcardHost(services[k].host)).map((k) => `azurite.${k}Host is ${JSON.stringify(services[k].host)}, every address`).join('; ') || `${JSON.stringify(x.host)} and ${JSON.stringify(y.host)} are the same machine`})`;
      const taken = new Set(SERVICE_KINDS.filter((k) => k !== blamed).map((k) => services[k].port));
      const suggestion = !taken.has(DEFAULT_PORTS[blamed]) ? `${DEFAULT_PORTS[blamed]} (Azurite's default for ${serviceName(blamed)}), another free port, or 0 to pick a free one` : 'another free port, or 0 to pick a free one';
      errors.push({
        key: `azurite.${blamed}Port`,
        value: port,
        message: `azurite.${blamed}Port is ${port}, the same as azurite.${other}Port${set(other) ? '' : ' (its default)'}; ${serviceName(a)} and ${serviceName(b)} cannot both listen on ${where}. Set azurite.${blamed}Port to ${suggestion}.`,
        services: [a, b],
      });
    }
  });
  return errors;
}
