/**
 * HTTPS (azurite.cert / key / pwd), OAuth basic, keep-alive timeouts and disableProductStyleUrl,
 * against the real azurite engine with real SDK clients over real TLS. No mocks.
 *
 * The certificate is made here with the `openssl` CLI (Node has no API to issue X.509
 * certificates): a self-signed EC certificate for 127.0.0.1 as PEM (cert + key) and as PFX with a
 * password. The SDKs trust it through the pipeline's `tlsOptions: { ca }` (core-rest-pipeline
 * TlsSettings): typed for TableClient; for Blob/Queue the storage SDKs pass unknown pipeline options
 * through to core-client's createClientPipeline, so the same key works there too. Nothing is
 * changed process-wide (no NODE_TLS_REJECT_UNAUTHORIZED, no global agent).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { once } from 'node:events';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import type { TlsSettings } from '@azure/core-rest-pipeline';
import { BlobServiceClient, RestError } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { TableClient } from '@azure/data-tables';
import { endpointUrl } from '../../../src/core/connectionString';
import { certificateDatesWarning, certificateProblem } from '../../../src/emulator/certificates';
import { request as httpsRequest } from 'node:https';
import { isAzuriteService, probePortHolder } from '../../../src/emulator/ports';
import type { Emulator } from '../../../src/emulator/emulator';
import { clients, disposeAfterEach, makeEmulator, startAll, tempDir } from '../helpers/emulatorFixture';
import { emulatorEndpoints, storageClients } from '../../../src/data/clients';
import { listContainers, listTables } from '../../../src/data/browse';
import { messageOf } from '../../../src/data/work';

const PFX_PASSWORD = 'pfx-pass word';

/** Runs openssl; throws with its stderr (or a clear message when the CLI is missing). */
function openssl(args: string[]): void {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  if (r.error !== undefined) throw new Error(`the HTTPS tests need the openssl CLI to make a certificate: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr}`);
}

/** Makes a self-signed certificate for 127.0.0.1/localhost in `dir`. */
function makeCertificate(dir: string, name: string): { cert: string; key: string; pfx: string } {
  const cert = path.join(dir, `${name}.pem`);
  const key = path.join(dir, `${name}-key.pem`);
  const pfx = path.join(dir, `${name}.pfx`);
  openssl([
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ]);
  openssl(['pkcs12', '-export', '-in', cert, '-inkey', key, '-out', pfx, '-passout', `pass:${PFX_PASSWORD}`]);
  return { cert, key, pfx };
}

/** Makes a certificate authority and a certificate for 127.0.0.1/localhost that it issued, in `dir`. */
function makeIssuedCertificate(dir: string): { ca: string; cert: string; key: string } {
  const ca = path.join(dir, 'issuer.pem');
  const caKey = path.join(dir, 'issuer-key.pem');
  const key = path.join(dir, 'issued-key.pem');
  const request = path.join(dir, 'issued.csr');
  const cert = path.join(dir, 'issued.pem');
  const extensions = path.join(dir, 'issued.ext');
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', caKey, '-out', ca, '-days', '2', '-subj', '/CN=Test issuer']);
  openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', request, '-subj', '/CN=127.0.0.1']);
  fs.writeFileSync(extensions, 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(['x509', '-req', '-in', request, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-out', cert, '-days', '2', '-extfile', extensions]);
  return { ca, cert, key };
}

/** Makes a self-signed RSA certificate for 127.0.0.1 in `dir` (the others here are EC). */
function makeRsaCertificate(dir: string, name: string): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.pem`);
  const key = path.join(dir, `${name}-key.pem`);
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']);
  return { cert, key };
}

/**
 * Makes a self-signed certificate for 127.0.0.1 valid from `notBefore` to `notAfter`
 * (YYYYMMDDHHMMSSZ), as PEM and PFX, in its own folder under `dir`. OpenSSL 3.0's `req -x509` and
 * `x509` take only a number of days from now; `openssl ca -selfsign` takes both dates.
 */
function makeDatedCertificate(dir: string, name: string, notBefore: string, notAfter: string): { cert: string; key: string; pfx: string } {
  const own = path.join(dir, name);
  fs.mkdirSync(own);
  const [cert, key, pfx, request, config] = ['cert.pem', 'key.pem', 'cert.pfx', 'cert.csr', 'ca.cnf'].map((f) => path.join(own, f));
  fs.writeFileSync(path.join(own, 'index.txt'), '');
  fs.writeFileSync(path.join(own, 'serial'), '01\n');
  fs.writeFileSync(config, [
    '[ca]', 'default_ca = dated', '[dated]', `dir = ${own}`, 'database = $dir/index.txt', 'new_certs_dir = $dir',
    'serial = $dir/serial', 'default_md = sha256', 'policy = any', 'copy_extensions = copy', 'unique_subject = no',
    '[any]', 'commonName = supplied', '',
  ].join('\n'));
  openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', request,
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost']);
  openssl(['ca', '-batch', '-config', config, '-selfsign', '-keyfile', key, '-in', request, '-startdate', notBefore, '-enddate', notAfter, '-notext', '-out', cert]);
  openssl(['pkcs12', '-export', '-in', cert, '-inkey', key, '-out', pfx, '-passout', `pass:${PFX_PASSWORD}`]);
  return { cert, key, pfx };
}

/**
 * Blob/Queue pipeline options that make the client trust `ca`. `tlsOptions` is not declared in
 * StoragePipelineOptions but reaches core-rest-pipeline's tlsPolicy (see the file comment);
 * `retryOptions` is declared, which lets the object pass TypeScript's weak-type check.
 */
function trusting(ca: string): { retryOptions: { maxTries: number }; tlsOptions: TlsSettings } {
  return { retryOptions: { maxTries: 1 }, tlsOptions: { ca } };
}

/** SDK clients built from the emulator's connection string, trusting `ca`. */
function httpsClients(emulator: Emulator, ca: string) {
  const cs = emulator.connectionString();
  return {
    connectionString: cs,
    blob: () => BlobServiceClient.fromConnectionString(cs, trusting(ca)),
    queue: () => QueueServiceClient.fromConnectionString(cs, trusting(ca)),
    table: (name: string) => TableClient.fromConnectionString(cs, name, { tlsOptions: { ca } }),
  };
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * A TokenCredential returning an unsigned-in-effect JWT with the given claims. Azurite's basic OAuth
 * (blob/authentication/BlobTokenAuthenticator.js) decodes without verifying the signature and checks
 * nbf/exp/iat present and in range, iss starting with a known STS prefix, aud a storage audience.
 */
function tokenCredential(claims: Record<string, unknown>): TokenCredential {
  const now = Math.floor(Date.now() / 1000);
  const payload = {
    aud: 'https://storage.azure.com',
    iss: 'https://sts.windows.net/00000000-0000-0000-0000-000000000001/',
    iat: now - 60,
    nbf: now - 60,
    exp: now + 3600,
    oid: '00000000-0000-0000-0000-000000000002',
    tid: '00000000-0000-0000-0000-000000000001',
    ...claims,
  };
  const token = `${base64url({ alg: 'RS256', typ: 'JWT' })}.${base64url(payload)}.c2lnbmF0dXJl`;
  return { getToken: async (): Promise<AccessToken> => ({ token, expiresOnTimestamp: (now + 3600) * 1000 }) };
}

interface GetResult {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** One plain-HTTP GET to 127.0.0.1 on a keep-alive agent (so the server answers with its Keep-Alive header); the connection is dropped after. */
function get(port: number, reqPath: string, headers: Record<string, string> = {}): Promise<GetResult> {
  const agent = new http.Agent({ keepAlive: true });
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: reqPath, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        agent.destroy();
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.on('error', (err) => {
      agent.destroy();
      reject(err);
    });
  });
}

describe('HTTPS, OAuth, keep-alive and product-style URLs (real engine, real SDKs, real TLS)', () => {
  let certs: { cert: string; key: string; pfx: string };
  let other: { cert: string; key: string; pfx: string };
  let ca: string;
  let dir: string;

  before(() => {
    dir = tempDir('emu-https-');
    certs = makeCertificate(dir, 'localhost');
    other = makeCertificate(dir, 'other');
    ca = fs.readFileSync(certs.cert, 'utf8');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const track = disposeAfterEach();

  it('serves blob, queue and table over HTTPS with a PEM certificate and key; the connection string says https', async () => {
    const { emulator, log } = track(makeEmulator({ inMemoryPersistence: true, cert: certs.cert, key: certs.key }));
    await startAll(emulator);
    for (const kind of ['blob', 'queue', 'table'] as const) {
      assert.match(emulator.endpoint(kind)!.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(emulator.clientAddress(kind).https, true);
    }
    const c = httpsClients(emulator, ca);
    assert.match(c.connectionString, /^DefaultEndpointsProtocol=https;/);
    assert.match(c.connectionString, /BlobEndpoint=https:\/\/127\.0\.0\.1:\d+\/devstoreaccount1;QueueEndpoint=https:\/\/127\.0\.0\.1:\d+\/devstoreaccount1;TableEndpoint=https:\/\/127\.0\.0\.1:\d+\/devstoreaccount1;$/);
    assert.ok(log.of('info').some((l) => /^Blob: listening on https:\/\//.test(l)), log.of('info').join('\n'));

    const container = c.blob().getContainerClient('tls-pem');
    await container.create();
    const body = Buffer.from('over https');
    await container.getBlockBlobClient('a.txt').uploadData(body);
    assert.deepEqual(await container.getBlockBlobClient('a.txt').downloadToBuffer(), body);

    const queue = c.queue().getQueueClient('tls-queue');
    await queue.create();
    await queue.sendMessage('secure message');
    const received = (await queue.receiveMessages()).receivedMessageItems;
    assert.deepEqual(received.map((m) => m.messageText), ['secure message']);

    const table = c.table('tlstable');
    await table.createTable();
    await table.createEntity({ partitionKey: 'p', rowKey: 'r', v: 'secure' });
    const rows = [];
    for await (const e of table.listEntities<{ v: string }>()) rows.push(e.v);
    assert.deepEqual(rows, ['secure']);
  });

  it('a stop ends a connection that never began its TLS handshake, instead of waiting for its 120 s timeout', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, cert: certs.cert, key: certs.key }));
    await startAll(emulator, ['blob']);
    // Connected, then silent (a stuck client, a browser's preconnect): Node's HTTPS server does not
    // count it among its connections until a handshake is done.
    const silent = net.connect(emulator.endpoint('blob')!.port, '127.0.0.1');
    await once(silent, 'connect');
    const ended = once(silent, 'close');
    silent.on('error', () => undefined);
    assert.deepEqual(await emulator.stop('blob'), { ok: true });
    await ended;
  });

  it('is real TLS: a client that does not trust the certificate is refused, and plain HTTP gets no answer', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, cert: certs.cert, key: certs.key }));
    await startAll(emulator, ['blob']);
    await assert.rejects(BlobServiceClient.fromConnectionString(emulator.connectionString()).getContainerClient('untrusted').create(), (err: unknown) => {
      assert.match(String((err as { code?: unknown }).code), /SELF_SIGNED/);
      return true;
    });
    // The certificate of another "CA" is not enough either.
    await assert.rejects(
      BlobServiceClient.fromConnectionString(emulator.connectionString(), trusting(fs.readFileSync(other.cert, 'utf8'))).getContainerClient('wrong-ca').create(),
      (err: unknown) => {
        assert.match(String((err as { code?: unknown }).code), /SELF_SIGNED/);
        return true;
      },
    );
    const port = emulator.endpoint('blob')!.port;
    await assert.rejects(get(port, '/devstoreaccount1?comp=list'));
  });

  it('the extension\'s own clients (Storage view, seed, Export, Import) trust the self-signed certificate the local engine serves, PEM or PFX, and no other', async () => {
    for (const https of [{ cert: certs.cert, key: certs.key }, { cert: certs.pfx, pwd: PFX_PASSWORD }]) {
      const { emulator } = track(makeEmulator({ inMemoryPersistence: true, ...https }));
      const told: string[] = [];
      const sub = emulator.onDidTrustCertificate((kind) => told.push(kind));
      await startAll(emulator, ['blob', 'queue', 'table']);
      sub.dispose();
      assert.deepEqual(told.sort(), ['blob', 'queue', 'table'], 'each service says when its certificate is known');
      const trusted = emulator.trustedCertificates();
      const served = new crypto.X509Certificate(ca).fingerprint256;
      assert.deepEqual(Object.entries(trusted).map(([k, p]) => [k, new crypto.X509Certificate(p).fingerprint256]), [['blob', served], ['queue', served], ['table', served]], 'the served certificate, for each service');
      const data = storageClients(emulatorEndpoints({ blob: emulator.clientAddress('blob'), queue: emulator.clientAddress('queue'), table: emulator.clientAddress('table') }, undefined, trusted));
      await data.blob!.getContainerClient('trusted').create();
      assert.deepEqual((await listContainers(data)).items.map((c) => c.name), ['trusted']);
      await data.queue!.createQueue('trusted');
      await data.table!.createTable('trusted');
      assert.deepEqual((await listTables(data)).items.map((t) => t.name), ['trusted']);
      await emulator.dispose();
      assert.deepEqual(emulator.trustedCertificates(), {}, 'nothing once stopped');
    }
    // A certificate an authority issued is the system's (or NODE_EXTRA_CA_CERTS') to trust, not pinned.
    const issued = makeIssuedCertificate(dir);
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, cert: issued.cert, key: issued.key }));
    await startAll(emulator, ['blob']);
    assert.deepEqual(emulator.trustedCertificates(), {});
    const c = BlobServiceClient.fromConnectionString(emulator.connectionString(), trusting(fs.readFileSync(issued.ca, 'utf8')));
    await c.getContainerClient('issued').create();
  });

  it('says, when a service starts, that its certificate does not name the host its connection string gives (clients would refuse it)', async () => {
    const onlyName = path.join(dir, 'name-only.pem');
    const onlyNameKey = path.join(dir, 'name-only-key.pem');
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', onlyNameKey, '-out', onlyName, '-days', '2',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost']);
    const { emulator, log } = track(makeEmulator({ inMemoryPersistence: true, cert: onlyName, key: onlyNameKey }));
    await startAll(emulator, ['blob']);
    assert.ok(log.of('error').some((l) => /^Blob: the certificate of azurite\.cert is not for 127\.0\.0\.1, the host its connection string names \(.*127\.0\.0\.1.*\), so clients refuse it\. Make one that names 127\.0\.0\.1, or set azurite\.blobHost to a name the certificate has\.$/.test(l)), log.of('error').join('\n'));
    // The same certificate started on the name it has: nothing to say.
    const { emulator: byName, log: byNameLog } = track(makeEmulator({ inMemoryPersistence: true, cert: onlyName, key: onlyNameKey, blobHost: 'localhost' }));
    await startAll(byName, ['blob']);
    assert.deepEqual(byNameLog.of('error'), []);
    assert.deepEqual(Object.keys(byName.trustedCertificates()), ['blob']);
  });

  it('the data layer (Storage view, seed, Export, Import) says what to do when VS Code does not trust the certificate, not only "self-signed certificate"', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, cert: certs.cert, key: certs.key }));
    await startAll(emulator, ['blob', 'table']);
    const data = storageClients(emulatorEndpoints({ blob: emulator.clientAddress('blob'), table: emulator.clientAddress('table') }));
    for (const listing of [() => listContainers(data), () => listTables(data)]) {
      await assert.rejects(listing(), (err: unknown) => {
        assert.match(messageOf(err), /^self-signed certificate: VS Code does not trust the HTTPS certificate that Azurite serves \(azurite\.cert for the local emulator\)\. .*NODE_EXTRA_CA_CERTS/);
        return true;
      });
    }
  });

  it('is told from other programs on its port over HTTPS too, by service (a second window\'s autostart skips it, and its connection string names it over HTTPS)', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, cert: certs.cert, key: certs.key }));
    await startAll(emulator, ['blob']);
    const port = emulator.endpoint('blob')!.port;
    const holder = await probePortHolder('127.0.0.1', port);
    assert.equal(holder.kind, 'azurite');
    assert.match(holder.server ?? '', /^Azurite-Blob\//);
    assert.equal(holder.protocol, 'https');
    assert.deepEqual([isAzuriteService(holder, 'blob'), isAzuriteService(holder, 'queue')], [true, false]);

    // A second window set to that port, with no certificate of its own, names it over HTTPS.
    const { emulator: second } = track(makeEmulator({ inMemoryPersistence: true, blobPort: port }));
    assert.match(await second.servedElsewhere('blob') ?? '', /already answers as Azurite-Blob\//);
    assert.match(second.connectionString(), new RegExp(`^DefaultEndpointsProtocol=https;.*BlobEndpoint=https://127\\.0\\.0\\.1:${port}/devstoreaccount1;`));
  });

  it('serves blob over HTTPS with a PFX certificate and its password', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, cert: certs.pfx, pwd: PFX_PASSWORD }));
    await startAll(emulator, ['blob']);
    assert.match(emulator.connectionString(), /^DefaultEndpointsProtocol=https;.*BlobEndpoint=https:\/\//);
    const container = httpsClients(emulator, ca).blob().getContainerClient('tls-pfx');
    await container.create();
    await container.getBlockBlobClient('b.bin').uploadData(Buffer.alloc(64 * 1024, 7));
    assert.deepEqual(await container.getBlockBlobClient('b.bin').downloadToBuffer(), Buffer.alloc(64 * 1024, 7));
  });

  it('says https in the connection string from the settings before anything runs, and http without a certificate', () => {
    const withCert = makeEmulator({ cert: certs.cert, key: certs.key }).emulator;
    assert.match(withCert.connectionString(), /^DefaultEndpointsProtocol=https;.*BlobEndpoint=https:\/\/127\.0\.0\.1:0\//);
    const plain = makeEmulator({}).emulator;
    assert.match(plain.connectionString(), /^DefaultEndpointsProtocol=http;.*BlobEndpoint=http:\/\//);
  });

  it('OAuth basic: a bearer token with a storage audience uploads; a wrong audience gets 403 AuthenticationFailed', async () => {
    // "Basic": any case, as Azurite's ConfigurationBase.getOAuthLevel accepts.
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, cert: certs.cert, key: certs.key, oauth: 'Basic' }));
    await startAll(emulator, ['blob']);
    const url = endpointUrl(emulator.clientAddress('blob'));
    assert.match(url, /^https:/);

    const good = new BlobServiceClient(url, tokenCredential({}), trusting(ca)).getContainerClient('oauth-ok');
    await good.create();
    await good.getBlockBlobClient('token.txt').uploadData(Buffer.from('uploaded with a token'));
    const shared = httpsClients(emulator, ca).blob().getContainerClient('oauth-ok');
    assert.equal((await shared.getBlockBlobClient('token.txt').downloadToBuffer()).toString(), 'uploaded with a token');

    const bad = new BlobServiceClient(url, tokenCredential({ aud: 'https://vault.azure.net' }), trusting(ca)).getContainerClient('oauth-bad');
    await assert.rejects(bad.create(), (err: unknown) => {
      assert.ok(err instanceof RestError, String(err));
      assert.equal(err.statusCode, 403);
      assert.equal(err.code, 'AuthenticationFailed');
      assert.equal((err.details as { authenticationErrorDetail?: unknown }).authenticationErrorDetail, 'Invalid token audience.');
      return true;
    });
    assert.equal(await shared.exists(), true);
    assert.equal(await httpsClients(emulator, ca).blob().getContainerClient('oauth-bad').exists(), false);
  });

  it('without azurite.oauth the same good bearer token is refused (the setting is what turns OAuth on)', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, cert: certs.cert, key: certs.key }));
    await startAll(emulator, ['blob']);
    const client = new BlobServiceClient(endpointUrl(emulator.clientAddress('blob')), tokenCredential({}), trusting(ca));
    await assert.rejects(client.getContainerClient('no-oauth').create(), (err: unknown) => err instanceof RestError && err.statusCode === 403);
  });

  it('says what is wrong with a PFX the right password opens: old encryption OpenSSL 3 does not read, or no private key', async () => {
    const legacy = path.join(dir, 'legacy.pfx');
    openssl(['pkcs12', '-export', '-legacy', '-in', certs.cert, '-inkey', certs.key, '-out', legacy, '-passout', `pass:${PFX_PASSWORD}`]);
    const noKey = path.join(dir, 'no-key.pfx');
    openssl(['pkcs12', '-export', '-nokeys', '-in', certs.cert, '-out', noKey, '-passout', `pass:${PFX_PASSWORD}`]);
    const old = await track(makeEmulator({ inMemoryPersistence: true, cert: legacy, pwd: PFX_PASSWORD })).emulator.start('blob');
    assert.ok(!old.ok && old.message.startsWith(`azurite.cert (${JSON.stringify(legacy)}) is a PFX file encrypted the old way`), JSON.stringify(old));
    assert.match(old.message, /the password is not the problem\. Export it again with current encryption/);
    const keyless = await track(makeEmulator({ inMemoryPersistence: true, cert: noKey, pwd: PFX_PASSWORD })).emulator.start('blob');
    assert.ok(!keyless.ok && keyless.message.startsWith(`azurite.cert (${JSON.stringify(noKey)}) holds no private key that can be read`), JSON.stringify(keyless));
  });

  it('refuses to start on a wrong PFX password, naming azurite.pwd and the file, without starting half-way', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true, cert: certs.pfx, pwd: 'not the password' }));
    const outcome = await emulator.start('blob');
    assert.equal(outcome.ok, false);
    const message = (outcome as { message: string }).message;
    assert.equal(
      message,
      `azurite.pwd does not open azurite.cert (${JSON.stringify(certs.pfx)}: mac verify failure); check the password, and that azurite.cert is a PFX (PKCS #12) file — for a PEM certificate set azurite.key instead.`,
    );
    assert.deepEqual(emulator.status('blob'), { status: 'closed', error: message });
    assert.equal(emulator.endpoint('blob'), undefined);
    assert.equal((await emulator.memoryReportNow()).usedBytes, 0);
    // With the right password it starts.
    const { emulator: fixed } = track(makeEmulator({ inMemoryPersistence: true, cert: certs.pfx, pwd: PFX_PASSWORD }));
    assert.deepEqual(await fixed.start('blob'), { ok: true });
  });

  it('starts with an expired certificate, as Azurite does, and says in the log what clients that check it will do; refuses a key of another type, which would fail every handshake', async () => {
    const expired = makeDatedCertificate(dir, 'expired-start', '20190101000000Z', '20200101000000Z');
    const { emulator, log } = track(makeEmulator({ inMemoryPersistence: true, cert: expired.cert, key: expired.key }));
    assert.deepEqual(await emulator.start('blob'), { ok: true });
    assert.ok(log.of('error').some((l) => /^Blob: azurite\.cert \(".*expired-start.*cert\.pem"\) expired on 2020-01-01T00:00:00Z, so clients that check certificates refuse it \(CERT_HAS_EXPIRED\)/.test(l)), log.of('error').join('\n'));
    // A client that skips the check (curl -k, rejectUnauthorized: false) is served.
    const status = await new Promise<number | undefined>((resolve) => {
      const req = httpsRequest(`${emulator.endpoint('blob')!.url}/devstoreaccount1?comp=list`, { rejectUnauthorized: false }, (res) => { res.resume(); resolve(res.statusCode); });
      req.on('error', () => resolve(undefined));
      req.end();
    });
    assert.equal(typeof status, 'number', 'served');

    const rsa = makeRsaCertificate(dir, 'rsa-start');
    const { emulator: mixed } = track(makeEmulator({ inMemoryPersistence: true, cert: rsa.cert, key: certs.key }));
    const refused = await mixed.start('blob');
    assert.equal(refused.ok, false);
    assert.match((refused as { message: string }).message, /^azurite\.key \(".*localhost-key\.pem"\) is not the private key of azurite\.cert/);
    assert.equal((refused as { setting?: string }).setting, 'azurite.key', 'Open Settings opens the setting at fault');
    assert.equal(mixed.endpoint('blob'), undefined);
  });

  it('refuses to start on a missing certificate file, naming azurite.cert and the resolved path; clean still works', async () => {
    const workspace = tempDir('emu-ws-');
    const { emulator } = track(makeEmulator({ cert: 'certs/missing.pem', key: certs.key }, workspace));
    const missing = path.join(workspace, 'certs', 'missing.pem');
    const outcome = await emulator.start('queue');
    assert.equal(outcome.ok, false);
    const message = (outcome as { message: string }).message;
    assert.ok(
      message.startsWith(`azurite.cert is ${JSON.stringify(missing)}, which cannot be read (ENOENT: no such file or directory`),
      message,
    );
    assert.ok(message.endsWith('Set azurite.cert to an existing PEM certificate file.'), message);
    assert.equal(emulator.status('queue').status, 'closed');
    // Refused before anything was written: not even the data folder exists.
    assert.equal(fs.existsSync(path.join(workspace, '.azurite')), false);
    // Cleaning does not need the certificate.
    assert.deepEqual(await emulator.clean('queue'), { ok: true });
  });

  describe('certificateProblem (the start check, on real files)', () => {
    it('accepts the PEM pair and the PFX with its password', async () => {
      assert.equal(await certificateProblem({ cert: certs.cert, key: certs.key }), undefined);
      assert.equal(await certificateProblem({ cert: certs.pfx, pwd: PFX_PASSWORD }), undefined);
    });

    it('names a missing key file', async () => {
      const missing = path.join(path.dirname(certs.key), 'nope-key.pem');
      const message = await certificateProblem({ cert: certs.cert, key: missing });
      assert.match(message!, /^azurite\.key is ".*nope-key\.pem", which cannot be read \(ENOENT: .*\)\. Set azurite\.key to an existing PEM private key file\.$/);
    });

    it('names a key that belongs to another certificate', async () => {
      assert.equal(
        await certificateProblem({ cert: certs.cert, key: other.key }),
        `azurite.key (${JSON.stringify(other.key)}) is not the private key of azurite.cert (${JSON.stringify(certs.cert)}); set azurite.key to the key the certificate was made with.`,
      );
    });

    it('says to put the server\'s certificate first when the chain file has its issuer first (the key is right)', async () => {
      const issued = makeIssuedCertificate(dir);
      const chain = path.join(path.dirname(issued.cert), 'issuer-first-chain.pem');
      fs.writeFileSync(chain, Buffer.concat([fs.readFileSync(issued.ca), fs.readFileSync(issued.cert)]));
      assert.equal(
        await certificateProblem({ cert: chain, key: issued.key }),
        `azurite.cert (${JSON.stringify(chain)}) has the certificate of azurite.key in place 2 of its chain, but a server presents the first one with its key; put the server's certificate first in the file, then its issuers.`,
      );
      const leafFirst = path.join(path.dirname(issued.cert), 'leaf-first-chain.pem');
      fs.writeFileSync(leafFirst, Buffer.concat([fs.readFileSync(issued.cert), fs.readFileSync(issued.ca)]));
      assert.equal(await certificateProblem({ cert: leafFirst, key: issued.key }), undefined);
    });

    it('names a key of another type than the certificate (an EC key with an RSA certificate), which loads without an error on OpenSSL', async () => {
      const rsa = makeRsaCertificate(dir, 'rsa-with-ec');
      assert.equal(
        await certificateProblem({ cert: rsa.cert, key: certs.key }),
        `azurite.key (${JSON.stringify(certs.key)}) is not the private key of azurite.cert (${JSON.stringify(rsa.cert)}); set azurite.key to the key the certificate was made with.`,
      );
    });

    it('names an RSA key of another RSA certificate', async () => {
      const rsa = makeRsaCertificate(dir, 'rsa-one');
      const another = makeRsaCertificate(dir, 'rsa-two');
      assert.equal(await certificateProblem({ cert: rsa.cert, key: rsa.key }), undefined);
      assert.equal(
        await certificateProblem({ cert: rsa.cert, key: another.key }),
        `azurite.key (${JSON.stringify(another.key)}) is not the private key of azurite.cert (${JSON.stringify(rsa.cert)}); set azurite.key to the key the certificate was made with.`,
      );
    });

    it('accepts an expired certificate, PEM or PFX; its warning names azurite.cert, the date it expired and how to make a new one', async () => {
      const expired = makeDatedCertificate(dir, 'expired', '20190101000000Z', '20200101000000Z');
      assert.equal(await certificateProblem({ cert: expired.cert, key: expired.key }), undefined);
      assert.equal(await certificateProblem({ cert: expired.pfx, pwd: PFX_PASSWORD }), undefined);
      const pem = await certificateDatesWarning({ cert: expired.cert, key: expired.key });
      assert.equal(pem, `azurite.cert (${JSON.stringify(expired.cert)}) expired on 2020-01-01T00:00:00Z, so clients that check certificates refuse it (CERT_HAS_EXPIRED), even with it trusted. Make a new one, e.g. with \`mkcert 127.0.0.1 localhost\` or \`openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 365 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:localhost\`, and point azurite.cert and azurite.key at its files.`);
      const pfx = await certificateDatesWarning({ cert: expired.pfx, pwd: PFX_PASSWORD });
      assert.match(pfx!, /^azurite\.cert \(".*cert\.pfx"\) expired on 2020-01-01T00:00:00Z, so clients that check certificates refuse it \(CERT_HAS_EXPIRED\), even with it trusted\. Make a new one, e\.g\. with `mkcert -pkcs12 127\.0\.0\.1 localhost`/);
      assert.equal(await certificateDatesWarning({ cert: certs.cert, key: certs.key }), undefined, 'nothing for a valid one');
    });

    it('warns of a certificate that is not valid yet, naming the date and this computer\'s clock', async () => {
      const future = makeDatedCertificate(dir, 'future', '20400101000000Z', '20410101000000Z');
      assert.match(
        (await certificateDatesWarning({ cert: future.cert, key: future.key }))!,
        /^azurite\.cert \(".*cert\.pem"\) is not valid until 2040-01-01T00:00:00Z, so clients that check certificates refuse it until then \(CERT_NOT_YET_VALID\)\. Check this computer's clock \(it says \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\); if it is right, make a new one, e\.g\. with `mkcert 127\.0\.0\.1 localhost`/,
      );
      assert.match((await certificateDatesWarning({ cert: future.pfx, pwd: PFX_PASSWORD }))!, /^azurite\.cert \(".*cert\.pfx"\) is not valid until 2040-01-01T00:00:00Z/);
    });

    it('names a key file that is not a key, and a certificate that is not PEM', async () => {
      assert.match((await certificateProblem({ cert: certs.cert, key: certs.cert }))!, /^azurite\.key \(".*localhost\.pem"\) is not a usable private key \(.+\); use the certificate's private key in PEM form, unencrypted/);
      assert.match((await certificateProblem({ cert: certs.pfx, key: certs.key }))!, /^azurite\.cert \(".*localhost\.pfx"\) is not a usable PEM certificate \(.*no start line\); use a PEM certificate/);
    });

    it('names a PEM file given as a PFX', async () => {
      assert.match((await certificateProblem({ cert: certs.cert, pwd: 'x' }))!, /^azurite\.pwd does not open azurite\.cert \(".*localhost\.pem": .+\); check the password/);
    });
  });

  describe('keep-alive timeouts', () => {
    it('reaches each server: Keep-Alive: timeout=2 for blob, 7 for queue, Azurite\'s 5 for table', async () => {
      const { emulator } = track(makeEmulator({ inMemoryPersistence: true, silent: true, blobKeepAliveTimeout: 2, queueKeepAliveTimeout: 7 }));
      await startAll(emulator);
      const seen: Record<string, string | string[] | undefined> = {};
      for (const kind of ['blob', 'queue', 'table'] as const) {
        const r = await get(emulator.endpoint(kind)!.port, '/devstoreaccount1?comp=list');
        seen[kind] = r.headers['keep-alive'];
      }
      assert.deepEqual(seen, { blob: 'timeout=2', queue: 'timeout=7', table: 'timeout=5' });
    });
  });

  describe('disableProductStyleUrl', () => {
    /** A public blob, then anonymous GETs with a production-style Host header (account in the host name). */
    async function fetchBoth(disableProductStyleUrl: boolean): Promise<{ hostStyle: number; pathStyle: number }> {
      const { emulator } = track(makeEmulator({ inMemoryPersistence: true, silent: true, disableProductStyleUrl }));
      await startAll(emulator, ['blob']);
      const container = clients(emulator).blob().getContainerClient('pub');
      await container.create({ access: 'container' });
      await container.getBlockBlobClient('b.txt').uploadData(Buffer.from('public'));
      const port = emulator.endpoint('blob')!.port;
      const host = { host: `devstoreaccount1.blob.emulator.test:${port}` };
      const hostStyle = await get(port, '/pub/b.txt', host);
      const pathStyle = await get(port, '/devstoreaccount1/pub/b.txt', host);
      if (hostStyle.status === 200) assert.equal(hostStyle.body, 'public');
      if (pathStyle.status === 200) assert.equal(pathStyle.body, 'public');
      return { hostStyle: hostStyle.status, pathStyle: pathStyle.status };
    }

    it('off (default): the account comes from a dotted host name, as in production', async () => {
      const r = await fetchBoth(false);
      assert.equal(r.hostStyle, 200);
      assert.notEqual(r.pathStyle, 200);
    });

    it('on: the account always comes from the first path segment', async () => {
      const r = await fetchBoth(true);
      assert.notEqual(r.hostStyle, 200);
      assert.equal(r.pathStyle, 200);
    });
  });
});
