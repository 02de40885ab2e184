/**
 * Checks the HTTPS certificate before a service starts, the way azurite will load it: azurite reads
 * the files in the server's constructor (common/ConfigurationBase.js `getCert`: `fs.readFileSync`)
 * and hands them to `https.createServer` (blob/BlobServer.js, queue/QueueServer.js,
 * table/TableServer.js), which throws OpenSSL's bare message ("mac verify failure", "no start
 * line"). Here the same files go through the same `tls.createSecureContext`, and a failure becomes
 * a message naming the setting, the path and the fix; so does a key that is not the certificate's,
 * which may load but which every client refuses (docs/ENGINE.md, "Constructing servers"). A
 * certificate out of its dates is said, not refused. Also reads the certificate a started service serves, for the
 * extension's own clients to trust when it is self-signed. No azurite import: plain Node.
 */
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { isIP } from 'node:net';
import { PassThrough } from 'node:stream';
import { checkServerIdentity, connect as tlsConnect, createSecureContext, type SecureContext, TLSSocket } from 'node:tls';
import type { HttpsOptions } from '../core/settings';

/** An error's message (Node's file errors already start with their code, e.g. "ENOENT: …"). */
function reason(err: unknown): string {
  return String((err as { message?: unknown }).message ?? err);
}

async function read(setting: 'cert' | 'key', file: string, what: string): Promise<Buffer | string> {
  try {
    return await fs.readFile(file);
  } catch (err) {
    return `azurite.${setting} is ${JSON.stringify(file)}, which cannot be read (${reason(err)}). Set azurite.${setting} to ${what}.`;
  }
}

/** An X.509 time as an ISO 8601 date and time in UTC without milliseconds, e.g. "2020-01-01T00:00:00Z". */
function isoTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Why clients refuse `leaf` at `now` for its dates, as Node's certificate check does (CERT_HAS_EXPIRED,
 * CERT_NOT_YET_VALID) even for a certificate a client trusts through `ca`; undefined while it is valid,
 * or when its dates cannot be read (then nothing is said on a guess).
 * @param remake what to do, e.g. "Make a new one (…) and point azurite.cert at it."
 */
function datesProblem(leaf: X509Certificate, file: string, remake: string, now = Date.now()): string | undefined {
  // validFrom/validTo read "Jan  1 00:00:00 2020 GMT" (Node 20 has no validFromDate/validToDate).
  const from = new Date(leaf.validFrom);
  const to = new Date(leaf.validTo);
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) return undefined;
  if (now > to.getTime()) {
    return `azurite.cert (${JSON.stringify(file)}) expired on ${isoTime(to)}, so clients that check certificates refuse it (CERT_HAS_EXPIRED), even with it trusted. ${remake}`;
  }
  if (now < from.getTime()) {
    return `azurite.cert (${JSON.stringify(file)}) is not valid until ${isoTime(from)}, so clients that check certificates refuse it until then (CERT_NOT_YET_VALID). Check this computer's clock (it says ${isoTime(new Date(now))}); if it is right, ${remake.charAt(0).toLowerCase()}${remake.slice(1)}`;
  }
  return undefined;
}

const REMAKE_PEM = 'Make a new one, e.g. with `mkcert 127.0.0.1 localhost` or `openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 365 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:localhost`, and point azurite.cert and azurite.key at its files.';
const REMAKE_PFX = 'Make a new one, e.g. with `mkcert -pkcs12 127.0.0.1 localhost` (password "changeit") or `dotnet dev-certs https --clean` then `dotnet dev-certs https -ep cert.pfx -p <password>`, and point azurite.cert at it with its password.';

/**
 * The certificate a server made with `context` presents (the leaf: for a PFX, the one its key
 * belongs to). Node has no PKCS #12 reader, so it is read from a TLS server socket over a stream no
 * peer writes to: no handshake, no port. Undefined when there is none or it cannot be read (then
 * its dates go unchecked rather than the start fail on our reading). Never throws.
 */
function contextCertificate(context: SecureContext): X509Certificate | undefined {
  let socket: TLSSocket | undefined;
  try {
    socket = new TLSSocket(new PassThrough(), { isServer: true, secureContext: context });
    const raw = (socket.getCertificate() as { raw?: Buffer } | null)?.raw;
    return raw === undefined ? undefined : new X509Certificate(raw);
  } catch {
    return undefined;
  } finally {
    socket?.destroy();
  }
}

/**
 * Loads `https` as azurite will (PEM when `key` is set, else PFX with `pwd`), and checks what
 * loading does not but every client would refuse: a PEM key that is not the certificate's (on
 * OpenSSL a key of another type, say EC with an RSA certificate, loads without an error and every
 * handshake fails). A certificate out of its dates is not refused (Azurite serves it, and clients
 * that skip the check still work): {@link certificateDatesWarning} says it.
 * @returns undefined when the certificate loads, else a message for the user naming the setting,
 *   the file and the fix, e.g.
 *   `azurite.cert is "/w/cert.pfx", which cannot be read (ENOENT: …). Set azurite.cert to …`,
 *   `azurite.pwd does not open azurite.cert ("/w/cert.pfx": mac verify failure); check the password, …` or
 *   `azurite.key ("/w/k.pem") is not the private key of azurite.cert ("/w/c.pem"); set azurite.key to …`.
 *   Never rejects.
 */
export function certificateProblem(https: HttpsOptions): Promise<string | undefined> {
  return inspect(https, () => undefined);
}

/**
 * Why clients that check certificates refuse `https`'s certificate for its dates (expired, or not
 * valid yet), with how to make a new one, e.g. `azurite.cert ("/w/c.pem") expired on
 * 2020-01-01T00:00:00Z, so clients that check certificates refuse it (CERT_HAS_EXPIRED), … Make a
 * new one, …`; undefined while it is valid, or when it does not load ({@link certificateProblem}
 * says that). Logged at a start: the service starts all the same, as Azurite's does. Never rejects.
 */
export async function certificateDatesWarning(https: HttpsOptions): Promise<string | undefined> {
  let warning: string | undefined;
  const problem = await inspect(https, (leaf, remake) => {
    warning = datesProblem(leaf, https.cert, remake);
    return undefined;
  });
  return problem === undefined ? warning : undefined;
}

/** {@link certificateProblem}'s checks; `onLeaf` gets the certificate served once the files load. */
async function inspect(https: HttpsOptions, onLeaf: (leaf: X509Certificate, remake: string) => string | undefined): Promise<string | undefined> {
  const cert = await read('cert', https.cert, https.key === undefined ? 'an existing PFX file' : 'an existing PEM certificate file');
  if (typeof cert === 'string') return cert;

  if (https.key === undefined) {
    let context: SecureContext;
    try {
      context = createSecureContext({ pfx: cert, passphrase: https.pwd ?? '' });
    } catch (err) {
      // OpenSSL checks the password first ("mac verify failure"): past it, the password is right.
      if ((err as NodeJS.ErrnoException).code === 'ERR_CRYPTO_UNSUPPORTED_OPERATION') {
        return `azurite.cert (${JSON.stringify(https.cert)}) is a PFX file encrypted the old way (RC2 or 3DES, what OpenSSL 1.1 and older Java made by default), which this runtime's OpenSSL 3 does not read (${reason(err)}); the password is not the problem. Export it again with current encryption (openssl pkcs12 -legacy -in old.pfx -nodes -out all.pem, then openssl pkcs12 -export -in all.pem -out new.pfx), or use a PEM certificate and key (azurite.cert and azurite.key).`;
      }
      if (/private key/i.test(reason(err))) {
        return `azurite.cert (${JSON.stringify(https.cert)}) holds no private key that can be read (${reason(err)}); a server needs one: export the PFX with its private key, or use a PEM certificate and key (azurite.cert and azurite.key).`;
      }
      const password = https.pwdFromSecretStorage === true ? SECRET_PASSWORD_REFUSED : 'azurite.pwd';
      const fix = https.pwdFromSecretStorage === true ? 'run "Azurite: Set Certificate Password" again and check' : 'check the password, and';
      return `${password} does not open azurite.cert (${JSON.stringify(https.cert)}: ${reason(err)}); ${fix} that azurite.cert is a PFX (PKCS #12) file — for a PEM certificate set azurite.key instead.`;
    }
    const leaf = contextCertificate(context);
    return leaf === undefined ? undefined : onLeaf(leaf, REMAKE_PFX);
  }

  const key = await read('key', https.key, 'an existing PEM private key file');
  if (typeof key === 'string') return key;
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    return `azurite.key (${JSON.stringify(https.key)}) is not a usable private key (${reason(err)}); use the certificate's private key in PEM form, unencrypted (Azurite passes no passphrase for PEM keys).`;
  }
  let leaf: X509Certificate;
  try {
    // The certificate alone first, as the server will load it (a PFX given here fails with "no
    // start line"); then its first certificate, the one the server presents with the key.
    createSecureContext({ cert });
    leaf = new X509Certificate(cert);
  } catch (err) {
    return `azurite.cert (${JSON.stringify(https.cert)}) is not a usable PEM certificate (${reason(err)}); use a PEM certificate ("-----BEGIN CERTIFICATE-----"), or a PFX file with azurite.pwd.`;
  }
  // Decided here, not from the TLS library's error text: OpenSSL takes a key of another type
  // without an error, and Electron's BoringSSL words its errors differently.
  if (!leaf.checkPrivateKey(privateKey)) {
    // A chain written issuer first (`cat ca.crt server.crt`): the key is right, the order is not.
    const later = pemCertificates(cert).slice(1).findIndex((c) => c.checkPrivateKey(privateKey));
    if (later >= 0) {
      return `azurite.cert (${JSON.stringify(https.cert)}) has the certificate of azurite.key in place ${later + 2} of its chain, but a server presents the first one with its key; put the server's certificate first in the file, then its issuers.`;
    }
    return `azurite.key (${JSON.stringify(https.key)}) is not the private key of azurite.cert (${JSON.stringify(https.cert)}); set azurite.key to the key the certificate was made with.`;
  }
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    return `azurite.cert (${JSON.stringify(https.cert)}) and azurite.key (${JSON.stringify(https.key)}) do not load together (${reason(err)}); use a PEM certificate and the unencrypted PEM key it was made with.`;
  }
  return onLeaf(leaf, REMAKE_PEM);
}

/** How {@link certificateProblem}'s message begins when the password in Secret Storage does not open the PFX. */
export const SECRET_PASSWORD_REFUSED = 'The certificate password in Secret Storage';

/** The certificates of a PEM file, in its order (those that do not parse left out). */
function pemCertificates(pem: Buffer): X509Certificate[] {
  const blocks = pem.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return blocks.flatMap((block) => {
    try {
      return [new X509Certificate(block)];
    } catch {
      return [];
    }
  });
}

/** What {@link servedCertificate} read from a started service. */
export interface ServedCertificate {
  /** The certificate as PEM when it is self-signed (its own issuer, signed by its own key). */
  readonly selfSigned?: string;
  /**
   * Why a client that connects to `host` refuses it although it trusts it: Node's
   * `tls.checkServerIdentity` message ("Host: localhost. is not in the cert's altnames: IP:127.0.0.1").
   */
  readonly hostMismatch?: string;
}

/**
 * What the certificate the TLS server at `host`:`port` presents means for clients: its PEM when it
 * is self-signed, as one made with `openssl req -x509` or `dotnet dev-certs https` is (one a
 * certificate authority issued, such as mkcert's, is trusted through its authority instead), and
 * whether it names `host`. Asked of our own engine right after a service has started listening on
 * a port it holds, so that the extension's own clients (the Storage view, Reset, Export, Import, the
 * seed) can trust exactly that certificate. Undefined when no handshake completes within `boundMs`.
 * Never rejects.
 * @param host the host clients connect to (not a wildcard listen address; an IPv6 literal without brackets)
 * @param boundMs how long the handshake may take, ms
 */
export function servedCertificate(host: string, port: number, boundMs = 2000): Promise<ServedCertificate | undefined> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host, port, rejectUnauthorized: false, ...(isIP(host) === 0 ? { servername: host } : {}) });
    const done = (served: ServedCertificate | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(served);
    };
    const timer = setTimeout(() => done(undefined), boundMs);
    socket.once('secureConnect', () => {
      // One read of the peer's certificate (on Node 20 a getPeerCertificate() after
      // getPeerX509Certificate() answers an empty object).
      const peer = socket.getPeerCertificate();
      if (peer.raw === undefined) return done(undefined);
      const x = new X509Certificate(peer.raw);
      const mismatch = checkServerIdentity(host, peer);
      done({
        ...(x.checkIssued(x) && x.verify(x.publicKey) ? { selfSigned: x.toString() } : {}),
        ...(mismatch !== undefined ? { hostMismatch: mismatch.message } : {}),
      });
    });
    socket.once('error', () => done(undefined));
  });
}
