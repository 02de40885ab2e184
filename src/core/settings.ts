/**
 * Raw `azurite.*` setting values → validated {@link EmulatorOptions}, or errors a person can act on.
 * Keys, defaults and meanings follow the Azurite VS Code extension's package.json contributions
 * (azurite 3.37.0) so existing settings.json files keep working. Pure: no vscode, no fs.
 */
import * as path from 'node:path';
import { DEFAULT_HOST, DEFAULT_PORTS, SERVICE_KINDS, type ServiceKind } from './services';
import { mbToBytes } from './memory';

/** Where one service listens, as configured (port 0 = any free port). */
export interface ServiceOptions {
  readonly host: string;
  readonly port: number;
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
  readonly skipApiVersionCheck: boolean;
  /** Debug log lines to the output channel. */
  readonly debug: boolean;
  /** No access log lines. */
  readonly silent: boolean;
}

/** A setting whose value cannot be used. `services` are the services it stops from starting. */
export interface SettingError {
  readonly key: string;
  readonly value: unknown;
  readonly message: string;
  readonly services: readonly ServiceKind[];
}

/** Values of the `azurite.*` settings, keyed without the `azurite.` prefix, as VS Code returns them. */
export type RawSettings = Readonly<Record<string, unknown>>;

/** What location resolution needs to know about the environment. Paths are absolute. */
export interface LocationContext {
  /** The first workspace folder's path, if a folder is open. */
  readonly workspaceFolder: string | undefined;
  readonly homeDir: string;
  /** The extension's global storage folder (used when no folder is open). */
  readonly globalStoragePath: string;
  /** True when the workspace root already holds Azurite's `__azurite_db_*` files. */
  readonly rootHasAzuriteData: boolean;
}

/** The result of {@link parseSettings}: options built from every valid value, plus the errors. */
export interface ParsedSettings {
  readonly options: EmulatorOptions;
  readonly errors: readonly SettingError[];
}

/** The folder name used for data inside the workspace folder when `azurite.location` is unset. */
export const DEFAULT_LOCATION_FOLDER = '.azurite';

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
export function parseSettings(raw: RawSettings, location: LocationContext): ParsedSettings {
  const errors: SettingError[] = [];
  const fail = (key: string, value: unknown, fix: string, services: readonly ServiceKind[]): void => {
    errors.push({ key: `azurite.${key}`, value, message: `azurite.${key} is ${show(value)}; ${fix}`, services });
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
      if (typeof rawHost === 'string' && rawHost.trim() !== '' && !/\s/.test(rawHost.trim())) host = rawHost.trim();
      else fail(hostKey, rawHost, `use a host name or IP address to listen on, such as "${DEFAULT_HOST}" (this machine only) or "0.0.0.0" (all interfaces).`, [kind]);
    }
    let port = DEFAULT_PORTS[kind];
    const rawPort = raw[portKey];
    if (rawPort !== undefined && rawPort !== null) {
      if (typeof rawPort === 'number' && Number.isInteger(rawPort) && rawPort >= 0 && rawPort <= 65535) port = rawPort;
      else fail(portKey, rawPort, `use a whole number from 0 to 65535 (0 picks a free port; Azurite's default is ${DEFAULT_PORTS[kind]}).`, [kind]);
    }
    services[kind] = { host, port };
  }

  const inMemoryPersistence = bool('inMemoryPersistence', ALL);

  let extentMemoryLimitBytes: number | undefined;
  const rawLimit = raw['extentMemoryLimit'];
  if (rawLimit !== undefined && rawLimit !== null) {
    if (typeof rawLimit === 'number' && Number.isFinite(rawLimit) && rawLimit > 0 && mbToBytes(rawLimit) >= 1) {
      extentMemoryLimitBytes = mbToBytes(rawLimit);
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

  const options: EmulatorOptions = {
    services,
    location: resolvedLocation,
    inMemoryPersistence,
    extentMemoryLimitBytes,
    loose: bool('loose', ALL),
    skipApiVersionCheck: bool('skipApiVersionCheck', ALL),
    debug: bool('debug', []),
    silent: bool('silent', []),
  };
  return { options, errors };
}

/**
 * Where data lives when `azurite.location` is unset: `.azurite/` in the workspace folder, or the
 * workspace root itself when it already holds Azurite's `__azurite_db_*` files (so data written by
 * the Azurite extension, which defaults to the root, is found); with no folder open, global storage.
 */
export function defaultLocation(ctx: LocationContext): string {
  if (ctx.workspaceFolder === undefined) return ctx.globalStoragePath;
  return ctx.rootHasAzuriteData ? ctx.workspaceFolder : path.join(ctx.workspaceFolder, DEFAULT_LOCATION_FOLDER);
}

/**
 * Resolves a non-empty `azurite.location` value: `${workspaceFolder}` and a leading `~` are
 * expanded; a relative path is taken from the workspace folder (global storage if none is open).
 * @returns an absolute, normalized path, or `{ fix }` explaining what to change.
 */
export function resolveLocation(value: string, ctx: LocationContext): string | { fix: string } {
  let p = value.trim();
  if (p.includes('${workspaceFolder}')) {
    if (ctx.workspaceFolder === undefined) {
      return { fix: 'it uses ${workspaceFolder} but no folder is open; open a folder or use an absolute path.' };
    }
    p = p.split('${workspaceFolder}').join(ctx.workspaceFolder);
  }
  if (p === '~' || p.startsWith('~/') || p.startsWith('~\\')) p = path.join(ctx.homeDir, p.slice(1));
  if (!path.isAbsolute(p)) p = path.join(ctx.workspaceFolder ?? ctx.globalStoragePath, p);
  return path.normalize(p);
}

/** The errors that stop `kind` from starting. */
export function errorsFor(errors: readonly SettingError[], kind: ServiceKind): SettingError[] {
  return errors.filter((e) => e.services.includes(kind));
}
