/**
 * Connection strings and endpoints for the emulator's well-known development account.
 * Account name and key: Azurite's EMULATOR_ACCOUNT_NAME / EMULATOR_ACCOUNT_KEY_STR
 * (azurite/dist/src/blob/utils/constants.js), the same as the classic storage emulator
 * (https://learn.microsoft.com/azure/storage/common/storage-use-azurite#connection-strings).
 */
import { isWildcardHost } from './hosts';
import type { ServiceKind } from './services';

/** The development account's name. */
export const DEV_ACCOUNT_NAME = 'devstoreaccount1';
/** The development account's shared key (public, fixed, accepted by every Azurite). */
export const DEV_ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/** Where a client should connect for one service. */
export interface ClientAddress {
  readonly host: string;
  readonly port: number;
  readonly https: boolean;
}

/**
 * A host clients can connect to: a wildcard listen address (0.0.0.0, ::, 0:0:0:0:0:0:0:0, as
 * ./hosts.ts `isWildcardHost` counts them) becomes loopback. IPv6 literals are bracketed for URLs.
 */
export function connectableHost(host: string): string {
  if (isWildcardHost(host)) return host.includes(':') ? '[::1]' : '127.0.0.1';
  if (host.includes(':') && !host.startsWith('[')) return `[${host}]`;
  return host;
}

/** A storage account: its name and shared key (base64). */
export interface StorageAccount {
  readonly name: string;
  /** The account key (base64) that connection strings and this extension's clients sign with. */
  readonly key: string;
  /** A second key (base64) the emulator also accepts, as Azure's key2 (from `AZURITE_ACCOUNTS` only). */
  readonly secondaryKey?: string;
}

/** The development account, which every Azurite serves. */
export const DEV_ACCOUNT: StorageAccount = { name: DEV_ACCOUNT_NAME, key: DEV_ACCOUNT_KEY };

/**
 * Path-style endpoint URL: `http://127.0.0.1:10000/devstoreaccount1`.
 * @param accountName the account in the path (default the development account)
 */
export function endpointUrl(address: ClientAddress, accountName: string = DEV_ACCOUNT_NAME): string {
  return `${address.https ? 'https' : 'http'}://${connectableHost(address.host)}:${address.port}/${accountName}`;
}

const ENDPOINT_KEYS: Readonly<Record<ServiceKind, string>> = {
  blob: 'BlobEndpoint',
  queue: 'QueueEndpoint',
  table: 'TableEndpoint',
};

/**
 * Builds a connection string naming the given services' endpoints, e.g.
 * `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=…;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;`.
 * @param addresses the services to include (at least one), in any order; output order is blob, queue, table.
 * @param account the account (default the development account)
 */
export function connectionString(addresses: Partial<Record<ServiceKind, ClientAddress>>, account: StorageAccount = DEV_ACCOUNT): string {
  const kinds = (['blob', 'queue', 'table'] as const).filter((k) => addresses[k] !== undefined);
  const https = kinds.some((k) => addresses[k]!.https);
  const parts = [
    `DefaultEndpointsProtocol=${https ? 'https' : 'http'}`,
    `AccountName=${account.name}`,
    `AccountKey=${account.key}`,
    ...kinds.map((k) => `${ENDPOINT_KEYS[k]}=${endpointUrl(addresses[k]!, account.name)}`),
  ];
  return parts.join(';') + ';';
}
