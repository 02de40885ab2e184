/**
 * `azurite.attach`: an Azurite that runs elsewhere (a Docker container, a team's shared emulator),
 * given as a connection string or an endpoint set. While it is set, the Storage view, Export and
 * Import work against it and the local emulator is not started. Pure: parsing and checking only.
 *
 * Connection strings follow Azure Storage's format
 * (https://learn.microsoft.com/azure/storage/common/storage-configure-connection-string): `key=value`
 * pairs separated by `;`, keys case-insensitive. `UseDevelopmentStorage=true` means the well-known
 * development account on 127.0.0.1:10000–10002 (or the host of `DevelopmentStorageProxyUri`).
 */
import { DEV_ACCOUNT_KEY, DEV_ACCOUNT_NAME } from './connectionString';
import type { ServiceKind } from './services';

/** Where an attached Azurite is: an account and its services' endpoint URLs (path-style, with the account). */
export interface AttachTarget {
  readonly accountName: string;
  /** The account's shared key (base64). */
  readonly accountKey: string;
  readonly blob?: string;
  readonly queue?: string;
  readonly table?: string;
  /** For the status bar: the endpoints' host and port, e.g. `192.168.1.5:10000` (several joined by `, `). */
  readonly label: string;
  /**
   * What may keep the attach from working, to say as a warning: an endpoint's dotted host name that
   * Azurite takes for a production-style URL ({@link accountFromHostName}).
   */
  readonly notice?: string;
}

/** The setting's key. */
export const ATTACH_SETTING = 'azurite.attach';

const ENDPOINT_KEYS: Readonly<Record<ServiceKind, string>> = { blob: 'blobendpoint', queue: 'queueendpoint', table: 'tableendpoint' };
const DEV_PORTS: Readonly<Record<ServiceKind, number>> = { blob: 10000, queue: 10001, table: 10002 };

/**
 * Parses `azurite.attach`.
 * @param value the setting: a connection string, or `{ "blob"?, "queue"?, "table"?: URL,
 *   "accountName"?, "accountKey"? }` (the development account when left out)
 * @returns undefined when unset or empty; `{ error }` naming what is wrong and the fix
 */
export function parseAttach(value: unknown): AttachTarget | { error: string } | undefined {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
  if (typeof value === 'string') return fromConnectionString(value.trim());
  if (typeof value === 'object' && !Array.isArray(value)) return fromEndpointSet(value as Record<string, unknown>);
  return { error: `${ATTACH_SETTING} must be a connection string or an object with "blob", "queue" and "table" endpoint URLs.` };
}

function fromConnectionString(given: string): AttachTarget | { error: string } {
  // Copied with its quotes from local.settings.json, a .env file or appsettings.json: the quotes go.
  const quoted = /^(["'])([\s\S]*)\1$/.exec(given);
  const text = quoted !== null ? quoted[2]!.trim() : given;
  // A quote left inside would become part of a key (dropped as unknown) or of an endpoint's account.
  if (/["']/.test(text)) return { error: `${ATTACH_SETTING}: the connection string holds a quotation mark; give it without quotes (as it was copied from a JSON or .env file, say).` };
  const parts = new Map<string, string>();
  for (const piece of text.split(';')) {
    if (piece.trim() === '') continue;
    const eq = piece.indexOf('=');
    if (eq <= 0) return { error: `${ATTACH_SETTING}: "${piece}" is not a key=value pair of a connection string.` };
    parts.set(piece.slice(0, eq).trim().toLowerCase(), piece.slice(eq + 1).trim());
  }
  if (parts.get('usedevelopmentstorage')?.toLowerCase() === 'true') {
    const proxy = parts.get('developmentstorageproxyuri');
    let host = '127.0.0.1';
    let protocol = 'http:';
    if (proxy !== undefined) {
      const url = parseUrl(proxy);
      if (url === undefined) return { error: `${ATTACH_SETTING}: DevelopmentStorageProxyUri "${proxy}" is not a URL.` };
      host = url.hostname;
      protocol = url.protocol;
    }
    const endpoint = (k: ServiceKind): string => `${protocol}//${host}:${DEV_PORTS[k]}/${DEV_ACCOUNT_NAME}`;
    return withLabel({ accountName: DEV_ACCOUNT_NAME, accountKey: DEV_ACCOUNT_KEY, blob: endpoint('blob'), queue: endpoint('queue'), table: endpoint('table') });
  }
  if (parts.has('sharedaccesssignature')) {
    return { error: `${ATTACH_SETTING}: connection strings with a SharedAccessSignature are not supported; give AccountName and AccountKey.` };
  }
  const accountName = parts.get('accountname');
  const accountKey = parts.get('accountkey');
  if (accountName === undefined || accountKey === undefined) {
    return { error: `${ATTACH_SETTING}: the connection string needs AccountName and AccountKey (or UseDevelopmentStorage=true).` };
  }
  const endpoints: Partial<Record<ServiceKind, string>> = {};
  for (const kind of ['blob', 'queue', 'table'] as const) {
    const raw = parts.get(ENDPOINT_KEYS[kind]);
    if (raw === undefined) continue;
    const checked = endpointWithAccount(raw, accountName);
    if (typeof checked !== 'string') return { error: `${ATTACH_SETTING}: ${kind[0]!.toUpperCase()}${kind.slice(1)}Endpoint ${checked.error}` };
    endpoints[kind] = checked;
  }
  if (Object.keys(endpoints).length === 0) {
    return { error: `${ATTACH_SETTING} is for an Azurite that runs elsewhere: the connection string needs BlobEndpoint, QueueEndpoint or TableEndpoint (for example BlobEndpoint=http://host:10000/${accountName}).` };
  }
  return withLabel({ accountName, accountKey, ...endpoints });
}

function fromEndpointSet(o: Record<string, unknown>): AttachTarget | { error: string } {
  const known = ['blob', 'queue', 'table', 'accountName', 'accountKey'];
  const unknown = Object.keys(o).filter((k) => !known.includes(k));
  if (unknown.length > 0) return { error: `${ATTACH_SETTING}: unknown key "${unknown[0]}" (known: ${known.join(', ')}).` };
  const accountName = o.accountName ?? DEV_ACCOUNT_NAME;
  const accountKey = o.accountKey ?? (accountName === DEV_ACCOUNT_NAME ? DEV_ACCOUNT_KEY : undefined);
  if (typeof accountName !== 'string' || !/^[a-z0-9]{3,24}$/.test(accountName)) return { error: `${ATTACH_SETTING}: "accountName" must be 3–24 lower-case letters and digits.` };
  if (typeof accountKey !== 'string' || accountKey === '') return { error: `${ATTACH_SETTING}: "accountKey" is needed for account "${accountName}".` };
  const endpoints: Partial<Record<ServiceKind, string>> = {};
  for (const kind of ['blob', 'queue', 'table'] as const) {
    if (o[kind] === undefined) continue;
    if (typeof o[kind] !== 'string') return { error: `${ATTACH_SETTING}: "${kind}" must be a URL string.` };
    const checked = endpointWithAccount(o[kind], accountName);
    if (typeof checked !== 'string') return { error: `${ATTACH_SETTING}: "${kind}" ${checked.error}` };
    endpoints[kind] = checked;
  }
  if (Object.keys(endpoints).length === 0) return { error: `${ATTACH_SETTING}: give at least one of "blob", "queue", "table" (for example "blob": "http://host:10000").` };
  return withLabel({ accountName, accountKey, ...endpoints });
}

/**
 * An http(s) URL with the account as its path (appended when the URL has no path, as Azurite's
 * path-style URLs need), or a product-style URL left as it is: when the host name's first label is
 * the account or its `-secondary` (`http://devstoreaccount1.blob.localhost:10000`), Azurite reads
 * the account from the host, and an appended path would be taken for a container
 * (blob/middlewares/blobStorageContext.middleware.js `extractStoragePartsFromPath`).
 */
function endpointWithAccount(raw: string, accountName: string): string | { error: string } {
  const url = parseUrl(raw);
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) return { error: `"${raw}" is not an http or https URL.` };
  const pathPart = url.pathname.replace(/\/+$/, '');
  const productStyle = url.hostname.includes('.') && isProductStyle(url.hostname, accountName);
  return `${url.protocol}//${url.host}${pathPart === '' && !productStyle ? `/${accountName}` : pathPart}`;
}

/** The port an endpoint URL is reached at: its own, else the protocol's (443 for https, 80 for http). */
export function endpointPort(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

function withLabel(t: Omit<AttachTarget, 'label' | 'notice'>): AttachTarget {
  const urls = (['blob', 'queue', 'table'] as const).map((k) => t[k]).filter((u): u is string => u !== undefined).map((u) => new URL(u));
  const hosts = [...new Set(urls.map((u) => u.host))];
  // A dotted host name Azurite reads an account from, in an endpoint whose path gives the account.
  const misread = urls.find((u) => accountFromHostName(u.hostname) !== undefined && !isProductStyle(u.hostname, t.accountName));
  const notice = misread === undefined ? undefined
    : `${ATTACH_SETTING}: Azurite takes a host name with a dot, such as ${misread.hostname}, for a production-style URL and reads the account from its first label ("${accountFromHostName(misread.hostname)}"), not from the path: its requests fail with 400 or 404 unless that Azurite runs with --disableProductStyleUrl. Or give its IP address, or a name without a dot.`;
  return { ...t, label: hosts.length === 1 ? hosts[0]! : hosts.join(', '), ...(notice !== undefined ? { notice } : {}) };
}

/**
 * The account Azurite reads from a request's host name when product-style URLs are on (its
 * default): the first label of a name with a dot, except an IPv4 address and `host.docker.internal`
 * (azurite's `extractStoragePartsFromPath` and `NO_ACCOUNT_HOST_NAMES`); undefined when it reads the
 * account from the path. IPv6 literals (`[…]`) have no labels.
 */
export function accountFromHostName(hostname: string): string | undefined {
  const dot = hostname.indexOf('.');
  if (dot <= 0 || hostname.startsWith('[') || /^(?:[0-9]{1,3}\.){3}[0-9]{1,3}$/.test(hostname) || hostname.toLowerCase() === 'host.docker.internal') return undefined;
  return hostname.slice(0, dot);
}

/** True when `hostname`'s first label is the account or its `-secondary` (a product-style URL meant as such). */
function isProductStyle(hostname: string, accountName: string): boolean {
  const first = hostname.split('.')[0];
  return first === accountName || first === `${accountName}-secondary`;
}

/**
 * True when a value that points at the local emulator can reach `t`: the development account with
 * its well-known key, and each endpoint `t` has at `http://127.0.0.1` or `http://localhost` on that
 * service's development port (10000, 10001, 10002: what `UseDevelopmentStorage=true` means) or on
 * the port in `ports` (the `azurite.*Port` settings, which a local.settings.json may name instead),
 * path-style with the account (a Docker container whose ports are published as they are, say).
 * False for another host, port, protocol or account.
 */
export function servesDevelopmentStorage(t: AttachTarget, ports: Partial<Record<ServiceKind, number>> = {}): boolean {
  if (t.accountName !== DEV_ACCOUNT_NAME || t.accountKey !== DEV_ACCOUNT_KEY) return false;
  return (['blob', 'queue', 'table'] as const).every((k) => {
    const raw = t[k];
    if (raw === undefined) return true;
    const url = parseUrl(raw);
    return url !== undefined && url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === 'localhost')
      && (endpointPort(url) === DEV_PORTS[k] || endpointPort(url) === ports[k]) && url.pathname.replace(/\/+$/, '') === `/${DEV_ACCOUNT_NAME}`;
  });
}

/** A connection string for an attached target (what Copy Connection String gives while attached). */
export function attachConnectionString(t: AttachTarget): string {
  const https = [t.blob, t.queue, t.table].some((u) => u?.startsWith('https:'));
  return [
    `DefaultEndpointsProtocol=${https ? 'https' : 'http'}`, `AccountName=${t.accountName}`, `AccountKey=${t.accountKey}`,
    ...(t.blob ? [`BlobEndpoint=${t.blob}`] : []), ...(t.queue ? [`QueueEndpoint=${t.queue}`] : []), ...(t.table ? [`TableEndpoint=${t.table}`] : []),
  ].join(';') + ';';
}
