/**
 * Looking at ports before and after a start: who holds a taken port, and which port is free.
 * Azurite identifies itself in every response with a `Server: Azurite-Blob/3.37.0` header (set by
 * azurite/dist/src/blob/middlewares/blobStorageContext.middleware.js and its queue and table
 * counterparts), which tells another Azurite (the Azurite extension, another window, the CLI) from
 * an unrelated program.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import { connectableHost } from '../core/connectionString';
import { canonicalHost, isWildcardHost } from '../core/hosts';

/**
 * Who answers on a port. `server` is the Server header, when there was an HTTP answer; `protocol`
 * is how that answer came (`https` when only a TLS connection was answered), absent without one.
 */
export interface PortHolder {
  readonly kind: 'azurite' | 'other' | 'none';
  readonly server?: string;
  readonly protocol?: 'http' | 'https';
  /** The address that answered (`127.0.0.1`, `::1`, a host name), when one did. */
  readonly address?: string;
}

/**
 * Sends one `GET /` to host:port and classifies the answer. A listener that drops a plain-HTTP
 * request (an Azurite started with a certificate: a TLS server closes such a connection) is asked
 * once more over HTTPS, without checking its certificate: only its Server header is read.
 * `::` (and the empty host) is probed on both loopbacks, ::1 and 127.0.0.1: a holder on either
 * takes the port from a start there. 0.0.0.0 is probed on 127.0.0.1 (Node binds it IPv4 only). An
 * IPv6 loopback the machine does not have (IPv6 off in a container) counts as nothing there.
 * @param timeoutMs how long to wait for an answer (default 1000 ms, per attempt); no answer →
 *   'other' if the connection was accepted, 'none' if refused.
 */
export async function probePortHolder(host: string, port: number, timeoutMs = 1000): Promise<PortHolder> {
  // `::` (and the empty host) takes the port on every address, IPv4 and IPv6 alike (Node listens
  // dual-stack there), so a holder on either loopback takes it from a start: ask both. 0.0.0.0 is
  // IPv4 only, and shares a port with a holder on ::1: ask 127.0.0.1 alone.
  const targets = isWildcardHost(host) && canonicalHost(host) !== '0.0.0.0' ? ['::1', '127.0.0.1'] : [connectableHost(host).replace(/^\[|\]$/g, '')];
  for (const target of targets) {
    const holder = await probeTarget(target, port, timeoutMs);
    if (holder.kind !== 'none') return holder;
  }
  return { kind: 'none' };
}

async function probeTarget(target: string, port: number, timeoutMs: number): Promise<PortHolder> {
  const plain = await probeOnce('http', { host: target, port, path: '/', timeout: timeoutMs, agent: false });
  if (plain !== 'dropped') return plain.protocol !== undefined ? { ...plain, address: target } : plain;
  const tls = await probeOnce('https', { host: target, port, path: '/', timeout: timeoutMs, agent: false, rejectUnauthorized: false });
  return tls === 'dropped' ? { kind: 'other' } : tls.protocol !== undefined ? { ...tls, address: target } : tls;
}

/** What {@link servedElsewhere} found on a port. */
export interface ServedElsewhere {
  /** For a person: "127.0.0.1:10000 already answers as Azurite-Blob/3.35.0". */
  readonly description: string;
  /** True when it answered over HTTPS (an Azurite started with a certificate), false over HTTP. */
  readonly https: boolean;
  /**
   * The host clients reach it at: the address that answered. For a wildcard host (`::`) that is the
   * loopback it answered on, which may be IPv4 only (the Azurite CLI's default 127.0.0.1), where
   * the wildcard's own client address, [::1], would be refused.
   */
  readonly host: string;
}

/** True when `holder` is an Azurite's `kind` service (its Server header: `Azurite-Blob/3.37.0` …). */
export function isAzuriteService(holder: PortHolder, kind: 'blob' | 'queue' | 'table'): boolean {
  return holder.kind === 'azurite' && new RegExp(`^Azurite-${kind}\\b`, 'i').test(holder.server ?? '');
}

/**
 * Whether the same service of another Azurite (another window, the CLI, a container) answers on
 * `address`, the host and port `kind` is configured for, over HTTP or HTTPS: it serves the
 * workspace already, and a start here would only fail on the taken port. Any other holder (another
 * service of an Azurite, another program) is left to the start, which says why it cannot listen.
 * @returns what answers and over which protocol, or undefined when nothing does, something else
 *   does, or the port is 0 (a free one is picked)
 */
export async function servedElsewhere(address: { readonly host: string; readonly port: number }, kind: 'blob' | 'queue' | 'table'): Promise<ServedElsewhere | undefined> {
  const { host, port } = address;
  if (port === 0) return undefined;
  const holder = await probePortHolder(host, port);
  if (!isAzuriteService(holder, kind)) return undefined;
  const answered = holder.address ?? host;
  return { description: `${connectableHost(answered)}:${port} already answers as ${holder.server ?? 'Azurite'}`, https: holder.protocol === 'https', host: answered };
}

/** One GET; 'dropped' when the connection was accepted and then closed or reset without an answer. */
function probeOnce(protocol: 'http' | 'https', options: https.RequestOptions): Promise<PortHolder | 'dropped'> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (holder: PortHolder | 'dropped'): void => {
      if (settled) return;
      settled = true;
      resolve(holder);
    };
    const req = (protocol === 'https' ? https : http).get(options, (res) => {
      const server = res.headers.server;
      res.resume();
      if (typeof server !== 'string') done({ kind: 'other', protocol });
      else done(/^Azurite/i.test(server) ? { kind: 'azurite', server, protocol } : { kind: 'other', server, protocol });
    });
    req.on('timeout', () => {
      req.destroy();
      done({ kind: 'other' });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'EADDRNOTAVAIL' || err.code === 'EAFNOSUPPORT') done({ kind: 'none' });
      else if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || /socket hang up/i.test(err.message)) done('dropped');
      else done({ kind: 'other' });
    });
  });
}

/** True when something can listen on host:port now. */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * The first free port from `from` upward (at most `attempts` tried, never above 65535).
 * @param deadline a time (ms since epoch) after which no further port is tried
 * @returns the port, or undefined if none of them is free (or the deadline passed first)
 */
export async function findFreePort(host: string, from: number, attempts = 100, skip: ReadonlySet<number> = new Set(), deadline = Infinity): Promise<number | undefined> {
  for (let port = Math.max(1, from); port <= Math.min(65535, from + attempts - 1) && Date.now() < deadline; port++) {
    if (!skip.has(port) && (await isPortFree(host, port))) return port;
  }
  return undefined;
}

/**
 * Resolves when host:port accepts a TCP connection; tries every 50 ms, each attempt bounded by 1 s.
 * A wildcard host is tried on loopback (../core/connectionString.ts `connectableHost`).
 * @param timeoutMs how long to keep trying (ms)
 * @param signal ends the wait early (a task ended by the user): it then rejects with the signal's reason
 * @throws Error naming host:port after `timeoutMs`
 */
export async function waitForPort(host: string, port: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const target = connectableHost(host).replace(/^\[|\]$/g, '');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: target, port });
      const abort = (): void => { socket.destroy(); resolve(false); };
      signal?.addEventListener('abort', abort, { once: true });
      const settle = (answered: boolean): void => {
        signal?.removeEventListener('abort', abort);
        socket.destroy();
        resolve(answered);
      };
      socket.setTimeout(1000);
      socket.once('connect', () => settle(true));
      socket.once('timeout', () => settle(false));
      socket.once('error', () => settle(false));
    });
    signal?.throwIfAborted();
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing answers on ${target}:${port} after ${timeoutMs} ms`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, 50);
      signal?.addEventListener('abort', done, { once: true });
      function done(): void {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
    });
  }
}
