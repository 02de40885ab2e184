/**
 * The three storage services the emulator runs, and their Azurite defaults.
 * Source: azurite's blob/queue/table `utils/constants.js` (DEFAULT_*_LISTENING_PORT) and the
 * Azurite VS Code extension's package.json contributions.
 */

/** A storage service kind. */
export type ServiceKind = 'blob' | 'queue' | 'table';

/** Every service kind, in status-bar order. */
export const SERVICE_KINDS: readonly ServiceKind[] = ['blob', 'queue', 'table'];

/** Service kinds whose content is held in extents and so counts against `azurite.extentMemoryLimit`. */
export const EXTENT_SERVICE_KINDS: readonly ServiceKind[] = ['blob', 'queue'];

/** Azurite's default listening port per service (blob 10000, queue 10001, table 10002). */
export const DEFAULT_PORTS: Readonly<Record<ServiceKind, number>> = { blob: 10000, queue: 10001, table: 10002 };

/** Azurite's default listening host. */
export const DEFAULT_HOST = '127.0.0.1';

/** Human name of a service kind: 'Blob', 'Queue', 'Table'. */
export function serviceName(kind: ServiceKind): string {
  return kind.charAt(0).toUpperCase() + kind.slice(1);
}

/** Type guard for a service kind string. */
export function isServiceKind(value: unknown): value is ServiceKind {
  return value === 'blob' || value === 'queue' || value === 'table';
}

/**
 * Parses `azurite.autoStart`: "none" (default), "all", or a list of service kinds.
 * @returns the kinds to start, or `{ error }` naming the setting, the value and the fix
 */
export function parseAutoStart(value: unknown): ServiceKind[] | { error: string } {
  if (value === undefined || value === null || value === 'none') return [];
  if (value === 'all') return [...SERVICE_KINDS];
  if (Array.isArray(value) && value.every(isServiceKind)) return SERVICE_KINDS.filter((k) => value.includes(k));
  return { error: `azurite.autoStart is ${JSON.stringify(value)}; use "none", "all", or a list such as ["blob", "queue"].` };
}
