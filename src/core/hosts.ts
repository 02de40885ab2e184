/**
 * What a listen address means: whether only this machine can reach it (loopback), whether it takes
 * a port on every address (wildcard), and whether two addresses claim the same port. And the words
 * for a service that other machines can reach: the development account's key is public, so anyone
 * who reaches the port can read and change the data. Pure: no vscode, no os.
 */
import { serviceName, type ServiceKind } from './services';

/** `host` lower-cased, without brackets. */
function asWritten(host: string): string {
  return host.trim().toLowerCase().replace(/^\[|\]$/g, '');
}

/**
 * `host` lower-cased without brackets, an IP address in its usual form: every spelling the system
 * binds as that address is classified as it (`127.1`, `0177.0.0.1` and `0x7f.0.0.1` are 127.0.0.1,
 * `0` is 0.0.0.0; `0::1` is ::1, `::0` is ::), as the WHATWG URL parser writes them; an IPv4-mapped
 * address as `::ffff:` and the dotted IPv4 address.
 */
export function canonicalHost(host: string): string {
  const h = asWritten(host);
  try {
    if (h.includes(':')) {
      const v6 = new URL(`http://[${h}]/`).hostname.slice(1, -1);
      const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
      if (mapped === null) return v6;
      const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
      return `::ffff:${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
    }
    // Digits, dots and hex only: an IPv4 address in one of the forms inet_aton reads (a name has a letter past 0x).
    if (/^(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}$/.test(h)) return new URL(`http://${h}/`).hostname;
  } catch {
    // Not an address the URL parser reads (999.1.1.1, a bad IPv6 literal): as written.
  }
  return h;
}

function isLoopbackV4(h: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return m !== null && Number(m[1]) === 127 && m.slice(2).every((o) => Number(o) <= 255);
}

/**
 * True when only this machine can reach `host`: 127.0.0.0/8, ::1 (also as 0:0:0:0:0:0:0:1 and
 * ::ffff:127.x.y.z), `localhost` and names under `.localhost` (RFC 6761). Everything else — 0.0.0.0,
 * ::, a LAN address, a host name — may be reachable from other machines.
 */
export function isLoopbackHost(host: string): boolean {
  const h = canonicalHost(host);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return isLoopbackV4(h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h);
}

/**
 * True when Azurite reads the account from a request's host name `host` rather than from the path
 * (a product-style URL, `http://account.example:10000/container`): a dotted name that is neither an
 * IPv4 address nor `host.docker.internal`, while `azurite.disableProductStyleUrl` is off. The
 * blob, queue and table storage-context middlewares of azurite decide it so (docs/ENGINE.md,
 * "Accounts in host names"). IPv6 literals have no such reading here.
 */
export function readsAccountFromHostName(host: string): boolean {
  // As written: azurite reads the request's Host header as the client sends it.
  const h = asWritten(host);
  if (h.includes(':') || h === 'host.docker.internal') return false;
  return h.indexOf('.') > 0 && !/^(?:[0-9]{1,3}\.){3}[0-9]{1,3}$/.test(h);
}

/** True for an address that listens on every interface: 0.0.0.0, :: (and the empty host). */
export function isWildcardHost(host: string): boolean {
  const h = canonicalHost(host);
  return h === '' || h === '0.0.0.0' || h === '::' || h === '0:0:0:0:0:0:0:0';
}

/**
 * True when servers listening on `a` and `b` with the same port would collide: the same address
 * (case and brackets aside); a wildcard beside an address it takes in (0.0.0.0 takes IPv4 ones
 * only, as Node binds it; `::` and the empty host take both); or `localhost` beside an address it
 * may resolve to (127.0.0.1, ::1; names under .localhost alike). So 0.0.0.0 and ::1, or localhost
 * and 127.0.0.2, can share a port.
 */
export function hostsOverlap(a: string, b: string): boolean {
  // An IPv4-mapped address (::ffff:127.0.0.1) is its IPv4 address to the kernel.
  const unmapped = (h: string): string => (h.startsWith('::ffff:') && h.includes('.') ? h.slice('::ffff:'.length) : h);
  const x = unmapped(canonicalHost(a));
  const y = unmapped(canonicalHost(b));
  if (x === y) return true;
  const ipv6Literal = (h: string): boolean => h.includes(':');
  const takesIn = (wildcard: string, h: string): boolean => isWildcardHost(wildcard) && (wildcard !== '0.0.0.0' || !ipv6Literal(h));
  if (takesIn(x, y) || takesIn(y, x)) return true;
  // A name under .localhost may resolve like localhost (RFC 6761).
  const localhostName = (h: string): boolean => h === 'localhost' || h.endsWith('.localhost');
  const localhostAddress = (h: string): boolean => ['127.0.0.1', '::1', '0:0:0:0:0:0:0:1'].includes(h) || localhostName(h);
  return (localhostName(x) && localhostAddress(y)) || (localhostName(y) && localhostAddress(x));
}

/** "all interfaces (0.0.0.0)", or the address itself ("192.168.1.5"). */
export function describeListenHost(host: string): string {
  return isWildcardHost(host) ? `all interfaces (${host.trim() === '' ? '0.0.0.0' : host.trim()})` : host;
}

/**
 * The URLs other machines would use: on a wildcard, one per address of this machine in
 * `networkAddresses` (none known: empty) that the wildcard covers — IPv4 ones only for 0.0.0.0 (a
 * Node server bound there takes no IPv6 connection), both kinds for `::` (dual-stack in Node); on a
 * specific address, that address.
 */
export function reachableUrls(host: string, port: number, https: boolean, networkAddresses: readonly string[], account: string): string[] {
  const ipv4Only = canonicalHost(host) === '0.0.0.0';
  const hosts = isWildcardHost(host) ? networkAddresses.filter((a) => !ipv4Only || !a.includes(':')) : [host];
  return hosts.map((h) => `${https ? 'https' : 'http'}://${h.includes(':') && !h.startsWith('[') ? `[${h}]` : h}:${port}/${account}`);
}

/** A service listening on a non-loopback address: its kind and port (what {@link exposureNotice} names). */
export interface ExposedService {
  readonly kind: ServiceKind;
  readonly port: number;
}

/** "Blob", "Blob and Queue", "Blob, Queue, and Table" (English conjunction list). */
export function listOf(words: readonly string[]): string {
  return new Intl.ListFormat('en', { style: 'long', type: 'conjunction' }).format(words);
}

/**
 * The notification for services that started on one non-loopback address `host`: who can reach
 * them, that their account key is public, and the settings to change. One service: "Azurite Blob
 * listens on …, port 10000: …"; several (an autostart of all three): one notice naming each, in
 * the order given.
 * @param services at least one
 */
export function exposureNotice(services: readonly ExposedService[], host: string): string {
  const one = services.length === 1;
  const names = listOf(services.map((s) => serviceName(s.kind)));
  const ports = listOf(services.map((s) => String(s.port)));
  const settings = listOf(services.map((s) => `azurite.${s.kind}Host`));
  return one
    ? `Azurite ${names} listens on ${describeListenHost(host)}, port ${ports}: other machines on your network can reach it, ` +
      `and its account key is the public development key, so anyone who reaches it can read, change and delete its data. ` +
      `${settings} is ${JSON.stringify(host)}; 127.0.0.1 keeps it on this machine.`
    : `Azurite ${names} listen on ${describeListenHost(host)}, ports ${ports}: other machines on your network can reach them, ` +
      `and their account key is the public development key, so anyone who reaches them can read, change and delete their data. ` +
      `${settings} are ${JSON.stringify(host)}; 127.0.0.1 keeps them on this machine.`;
}

/**
 * True when a client connecting to `host` reaches a server listening on `listenHost` (same port):
 * the same address, `localhost` beside a loopback address, or, for a wildcard listener, loopback or
 * an address of this machine (0.0.0.0 takes IPv4 ones only). A host name other than `localhost`
 * is never taken for this machine: it may well name another one (a container, a shared emulator).
 * @param ownAddresses this machine's addresses (from os.networkInterfaces())
 */
export function reachesListener(host: string, listenHost: string, ownAddresses: readonly string[]): boolean {
  const h = ipv4Mapped(host.replace(/^\[|\]$/g, '').toLowerCase());
  // A client connecting to 0.0.0.0 or :: reaches this machine (Linux, macOS), whatever address the
  // listener has: Azurite prints such URLs. Taken as ours, so an attach there is refused.
  if (isWildcardHost(h)) return true;
  if (!isWildcardHost(listenHost)) return hostsOverlap(h, listenHost);
  // As the listener was given (`0`, `0.0.0.0`): the same IPv4 wildcard either way.
  const ipv4Only = canonicalHost(listenHost) === '0.0.0.0';
  if (isLoopbackHost(h)) return !ipv4Only || !h.includes(':') || h.startsWith('::ffff:');
  const own = ownAddresses.map((a) => a.toLowerCase()).filter((a) => !ipv4Only || !a.includes(':'));
  return own.includes(h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h);
}

/** `::ffff:7f00:1`, as the URL parser writes `[::ffff:127.0.0.1]`, as `::ffff:127.0.0.1`; any other host as it is. */
function ipv4Mapped(host: string): string {
  const m = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (m === null) return host;
  const [hi, lo] = [parseInt(m[1]!, 16), parseInt(m[2]!, 16)];
  return `::ffff:${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}
