/**
 * Ports among our own three services: which ports one service must never be offered (another of
 * ours is configured to use it or runs on it), and a start refused because another of ours runs on
 * the port it asks for. Pure: no vscode, no sockets.
 */
import { hostsOverlap } from './hosts';
import { failure, type Failure } from './outcome';
import { SERVICE_KINDS, serviceName, type ServiceKind } from './services';

/** Where a service listens: its host and port. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * The ports our other services are configured to use (nonzero) or run on now: never suggested to
 * `kind` as the free port after a conflict ("Use Port N" must not break another service next).
 * @param configured each service's `azurite.<kind>Port` (0: a free port is picked at start)
 * @param running each running service's address
 */
export function portsOfOthers(kind: ServiceKind, configured: Readonly<Record<ServiceKind, number>>, running: Readonly<Partial<Record<ServiceKind, ListenAddress>>>): Set<number> {
  const ports = new Set<number>();
  for (const other of SERVICE_KINDS) {
    if (other === kind) continue;
    if (configured[other] !== 0) ports.add(configured[other]);
    const address = running[other];
    if (address !== undefined) ports.add(address.port);
  }
  return ports;
}

/**
 * Refuses a start of `kind` on `wanted` when another of our services runs on that port now (one
 * started on port 0 that got it, or one still running with older settings): the port is ours, the
 * setting is at fault, and probing would call our own service "another Azurite".
 * @returns a `setting` failure naming `azurite.<kind>Port`, or undefined (port 0, or no service of ours there)
 */
export function ownPortConflict(kind: ServiceKind, wanted: ListenAddress, configured: Readonly<Record<ServiceKind, number>>, running: Readonly<Partial<Record<ServiceKind, ListenAddress>>>): Failure | undefined {
  if (wanted.port === 0) return undefined;
  const holder = SERVICE_KINDS.find((k) => {
    const address = k === kind ? undefined : running[k];
    return address !== undefined && address.port === wanted.port && hostsOverlap(address.host, wanted.host);
  });
  if (holder === undefined) return undefined;
  const key = `azurite.${kind}Port`;
  const holderPort = configured[holder];
  const why = holderPort === wanted.port ? '' : ` (azurite.${holder}Port is ${holderPort}${holderPort === 0 ? ', and it picked this free port' : '; it runs with its earlier settings until it restarts'})`;
  return failure('setting', `${key} is ${wanted.port}, the port the ${serviceName(holder)} service runs on now${why}. Set ${key} to another port (0 picks a free one).`, { setting: key });
}
