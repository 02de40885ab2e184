/**
 * SDK clients for an emulator's account: the one way the data layer (Storage view, snapshots,
 * seed, reset) reaches data. It speaks the storage REST API through the Azure SDKs for JavaScript,
 * so the same code serves our engine and an Azurite that runs elsewhere.
 * No vscode here; this module and its SDKs are bundled into dist/data.js, loaded on first use.
 */
import { BlobServiceClient, StorageSharedKeyCredential, type StoragePipelineOptions } from '@azure/storage-blob';
import { newPipeline as newQueuePipeline, QueueServiceClient, StorageSharedKeyCredential as QueueSharedKeyCredential } from '@azure/storage-queue';
import { AzureNamedKeyCredential, TableClient, TableServiceClient } from '@azure/data-tables';
import type { ServiceKind } from '../core/services';
import { DEV_ACCOUNT, endpointUrl, type ClientAddress, type StorageAccount } from '../core/connectionString';
import { wholeDoublePolicy } from './tableDoubles';
import { emptyPartitionKeyPolicy } from './tableContinuation';
import { characterReferencePolicy } from './queueText';
import { blobListingPolicy } from './blobNames';

/**
 * Where an account's services are: path-style endpoint URLs that include the account
 * (`http://127.0.0.1:10000/devstoreaccount1`), and its shared key. A service without an endpoint
 * is not running (or not attached).
 */
export interface StorageEndpoints {
  readonly accountName: string;
  /** The account's shared key, base64. */
  readonly accountKey: string;
  readonly blob?: string | undefined;
  readonly queue?: string | undefined;
  readonly table?: string | undefined;
  /**
   * Per service, the certificate (PEM) its client trusts for HTTPS instead of the default ones: the
   * local emulator's own self-signed certificate (Emulator.trustedCertificates). A service without
   * one: the default trust.
   */
  readonly ca?: Partial<Record<ServiceKind, string>> | undefined;
}

/** The SDK clients of one account; a service without an endpoint has none. */
export interface StorageClients {
  readonly endpoints: StorageEndpoints;
  readonly blob: BlobServiceClient | undefined;
  readonly queue: QueueServiceClient | undefined;
  readonly table: TableServiceClient | undefined;
  /**
   * A client of one table (undefined without a table endpoint), whose entity listings go on past
   * PartitionKey "" (./tableContinuation.ts) and read a whole Edm.Double as a Double (./tableDoubles.ts).
   */
  tableClient(name: string): TableClient | undefined;
}

/**
 * How often a request is tried, and the first wait between tries (ms; it doubles, up to
 * {@link RETRY_MAX_DELAY_MS}). The SDKs' defaults (4 tries, 4 s doubling) are made for the cloud's
 * throttling and made an Azurite that is down (an attached one stopped, a service being restarted)
 * look hung for half a minute; an emulator does not throttle.
 */
export const REQUEST_TRIES = 3;
/** The first wait before a retry (ms). */
export const RETRY_DELAY_MS = 200;
/** The longest wait before a retry (ms). */
export const RETRY_MAX_DELAY_MS = 2000;

/**
 * A BlobServiceClient whose listings give true blob names: its pipeline has
 * {@link blobListingPolicy} (./blobNames.ts) after the Retry phase, where it sees each raw List Blobs
 * answer before the SDK parses it. The pipeline is the client's own (`storageClientContext`, a
 * core-client ServiceClient): the SDK keeps it on the storage Pipeline it was made from, and every
 * container and blob client got from this one (`getContainerClient`, …) reuses it.
 * (`additionalPolicies` cannot place it: the blob SDK hands them to core-client twice, once when it
 * builds the pipeline and once more in the ServiceClient it makes from it, and the pipeline then
 * refuses to run with a policy name twice.)
 */
class TrueNamesBlobServiceClient extends BlobServiceClient {
  constructor(url: string, credential: StorageSharedKeyCredential, options: StoragePipelineOptions) {
    super(url, credential, options);
    this.storageClientContext.pipeline.addPolicy(blobListingPolicy(), { afterPhase: 'Retry' });
  }
}

/**
 * Makes the clients. The table clients allow http (`allowInsecureConnection`), as an emulator on
 * loopback is; the blob and queue SDKs allow it by default. A table client keeps a whole-number
 * Edm.Double a Double when it reads entities (./tableDoubles.ts). The queue client keeps the
 * characters that the service writes as numeric character references in a message's text, to be
 * read with `messageTextOf` (./queueText.ts). The blob client lists blob names as they are, a
 * carriage return included (./blobNames.ts). Every client tries a request {@link REQUEST_TRIES} times.
 * @param endpoints the account's endpoints and key
 */
export function storageClients(endpoints: StorageEndpoints): StorageClients {
  const blobCredential = new StorageSharedKeyCredential(endpoints.accountName, endpoints.accountKey);
  const queueCredential = new QueueSharedKeyCredential(endpoints.accountName, endpoints.accountKey);
  const tableCredential = new AzureNamedKeyCredential(endpoints.accountName, endpoints.accountKey);
  // core-rest-pipeline's TlsSettings, per service: typed for the table clients; the storage SDKs
  // pass the same key through to core-client's pipeline without declaring it.
  const tls = (kind: ServiceKind): { tlsOptions?: { ca: string } } => {
    const ca = endpoints.ca?.[kind];
    return ca !== undefined ? { tlsOptions: { ca } } : {};
  };
  const storageOptions = { retryOptions: { maxTries: REQUEST_TRIES, retryDelayInMs: RETRY_DELAY_MS, maxRetryDelayInMs: RETRY_MAX_DELAY_MS } };
  const tableOptions = { allowInsecureConnection: true, retryOptions: { maxRetries: REQUEST_TRIES - 1, retryDelayInMs: RETRY_DELAY_MS, maxRetryDelayInMs: RETRY_MAX_DELAY_MS }, ...tls('table') };
  const entityOptions = {
    ...tableOptions,
    additionalPolicies: [{ policy: wholeDoublePolicy(), position: 'perRetry' as const }, { policy: emptyPartitionKeyPolicy(), position: 'perRetry' as const }],
  };
  const table = endpoints.table;
  let queue: QueueServiceClient | undefined;
  if (endpoints.queue !== undefined) {
    // What `new QueueServiceClient(url, credential, options)` makes, with one more policy.
    const pipeline = newQueuePipeline(queueCredential, { ...storageOptions, ...tls('queue') });
    pipeline.factories.push(characterReferencePolicy());
    queue = new QueueServiceClient(endpoints.queue, pipeline);
  }
  return {
    endpoints,
    blob: endpoints.blob !== undefined ? new TrueNamesBlobServiceClient(endpoints.blob, blobCredential, { ...storageOptions, ...tls('blob') }) : undefined,
    queue,
    table: table !== undefined ? new TableServiceClient(table, tableCredential, tableOptions) : undefined,
    tableClient: (name) => (table !== undefined ? new TableClient(table, name, tableCredential, entityOptions) : undefined),
  };
}

/** The services that have an endpoint. */
export function servicesOf(endpoints: StorageEndpoints): ServiceKind[] {
  return (['blob', 'queue', 'table'] as const).filter((k) => endpoints[k] !== undefined);
}

/**
 * The endpoints of our emulator's running services for one account: path-style URLs
 * (`http://127.0.0.1:10000/<account>`), as Azurite serves every account.
 * @param addresses the running services' addresses (Emulator.clientAddress for each running kind)
 * @param account name and shared key; default the development account
 * @param ca per service, the certificate (PEM) its client trusts over HTTPS: Emulator.trustedCertificates
 */
export function emulatorEndpoints(
  addresses: Partial<Record<ServiceKind, ClientAddress>>,
  account: StorageAccount = DEV_ACCOUNT,
  ca?: Partial<Record<ServiceKind, string>>,
): StorageEndpoints {
  const url = (kind: ServiceKind): string | undefined => {
    const a = addresses[kind];
    return a === undefined ? undefined : endpointUrl(a, account.name);
  };
  return { accountName: account.name, accountKey: account.key, blob: url('blob'), queue: url('queue'), table: url('table'), ...(ca !== undefined && Object.keys(ca).length > 0 ? { ca } : {}) };
}
