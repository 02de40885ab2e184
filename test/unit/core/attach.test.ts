import * as assert from 'node:assert/strict';
import { accountFromHostName, attachConnectionString, parseAttach, servesDevelopmentStorage, type AttachTarget } from '../../../src/core/attach';
import { DEV_ACCOUNT_KEY } from '../../../src/core/connectionString';

describe('azurite.attach (parsing)', () => {
  it('is unset for empty values', () => {
    for (const v of [undefined, null, '', '  ']) assert.equal(parseAttach(v), undefined);
  });

  it('reads an Azurite connection string, keys in any case, and gives it back', () => {
    const cs = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${DEV_ACCOUNT_KEY};BlobEndpoint=http://10.0.0.5:10000/devstoreaccount1;queueendpoint=http://10.0.0.5:10001/devstoreaccount1;`;
    const t = parseAttach(cs) as AttachTarget;
    assert.equal(t.blob, 'http://10.0.0.5:10000/devstoreaccount1');
    assert.equal(t.queue, 'http://10.0.0.5:10001/devstoreaccount1');
    assert.equal(t.table, undefined);
    assert.equal(t.label, '10.0.0.5:10000, 10.0.0.5:10001');
    assert.equal(attachConnectionString(t), cs.replace('queueendpoint', 'QueueEndpoint'), 'given back with the usual key names');
  });

  it('takes a connection string copied with its quotes, and refuses one with a quote inside', () => {
    const cs = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${DEV_ACCOUNT_KEY};BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1`;
    for (const quoted of [`"${cs}"`, `'${cs}'`, ` "${cs};" `]) {
      const t = parseAttach(quoted) as AttachTarget;
      assert.equal(t.queue, 'http://127.0.0.1:10001/devstoreaccount1', quoted);
      assert.equal(t.accountName, 'devstoreaccount1');
    }
    for (const broken of [`"${cs}`, `${cs};"`, `AccountName="devstoreaccount1";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1`]) {
      assert.deepEqual(parseAttach(broken), { error: 'azurite.attach: the connection string holds a quotation mark; give it without quotes (as it was copied from a JSON or .env file, say).' }, broken);
    }
  });

  it('reads UseDevelopmentStorage=true, with a proxy host', () => {
    assert.equal((parseAttach('UseDevelopmentStorage=true') as AttachTarget).table, 'http://127.0.0.1:10002/devstoreaccount1');
    const t = parseAttach('UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://docker.local') as AttachTarget;
    assert.equal(t.blob, 'http://docker.local:10000/devstoreaccount1');
    assert.equal(t.accountKey, DEV_ACCOUNT_KEY);
  });

  it('reads an endpoint set, adding the account to a URL without a path', () => {
    const t = parseAttach({ blob: 'http://azurite:10000', table: 'https://azurite:10002/' }) as AttachTarget;
    assert.equal(t.blob, 'http://azurite:10000/devstoreaccount1');
    assert.equal(t.table, 'https://azurite:10002/devstoreaccount1');
    assert.equal(t.label, 'azurite:10000, azurite:10002');
    const custom = parseAttach({ blob: 'http://h:1', accountName: 'team1', accountKey: 'a2V5' }) as AttachTarget;
    assert.equal(custom.blob, 'http://h:1/team1');
    // Product-style: the account is the host name's first label, and Azurite reads it from there.
    const product = parseAttach({ blob: 'http://devstoreaccount1.blob.localhost:10000', queue: 'http://devstoreaccount1-secondary.queue.localhost:10001' }) as AttachTarget;
    assert.equal(product.blob, 'http://devstoreaccount1.blob.localhost:10000');
    assert.equal(product.queue, 'http://devstoreaccount1-secondary.queue.localhost:10001');
  });

  it('warns of a dotted host name that Azurite reads an account from (a production-style URL), and only of such a one', () => {
    const notice = (v: unknown): string | undefined => (parseAttach(v) as AttachTarget).notice;
    assert.equal(notice('UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://docker.local'),
      'azurite.attach: Azurite takes a host name with a dot, such as docker.local, for a production-style URL and reads the account from its first label ("docker"), not from the path: its requests fail with 400 or 404 unless that Azurite runs with --disableProductStyleUrl. Or give its IP address, or a name without a dot.');
    assert.match(notice({ blob: 'http://azurite:10000', queue: 'http://mybox.lan:10001' }) ?? '', /such as mybox\.lan, .* \("mybox"\)/);
    for (const quiet of ['UseDevelopmentStorage=true', { blob: 'http://azurite:10000' }, { blob: 'http://192.168.1.5:10000' }, { blob: 'http://host.docker.internal:10000' },
      { blob: 'http://HOST.DOCKER.INTERNAL:10000' }, { blob: 'http://[::1]:10000' }, { blob: 'http://devstoreaccount1.blob.localhost:10000' }]) {
      assert.equal(notice(quiet), undefined, JSON.stringify(quiet));
    }
    assert.deepEqual(['a.b', 'x', '10.0.0.1', '[::ffff:1.2.3.4]', 'host.docker.internal'].map(accountFromHostName), ['a', undefined, undefined, undefined, undefined]);
  });

  it('says what is wrong', () => {
    const error = (v: unknown): string => (parseAttach(v) as { error: string }).error;
    assert.match(error('AccountName=a;AccountKey=b'), /needs BlobEndpoint, QueueEndpoint or TableEndpoint/);
    assert.match(error('BlobEndpoint=http://h:1/a'), /needs AccountName and AccountKey/);
    assert.match(error('AccountName=a;AccountKey=b;BlobEndpoint=ftp://h/a'), /BlobEndpoint "ftp:\/\/h\/a" is not an http or https URL/);
    assert.match(error('BlobEndpoint=http://h:1/a;SharedAccessSignature=sv=1'), /SharedAccessSignature are not supported/);
    assert.match(error({ blob: 'http://h:1', accountName: 'other' }), /"accountKey" is needed for account "other"/);
    assert.match(error({ blobs: 'http://h:1' }), /unknown key "blobs"/);
    assert.match(error({}), /give at least one of "blob", "queue", "table"/);
    assert.match(error(42), /must be a connection string or an object/);
    assert.match(error('nonsense'), /"nonsense" is not a key=value pair/);
  });
});

describe('azurite.attach: does UseDevelopmentStorage=true reach it?', () => {
  const dev = (value: unknown) => servesDevelopmentStorage(parseAttach(value) as AttachTarget);
  it('yes: the development account on 127.0.0.1 or localhost at ports 10000–10002, over HTTP', () => {
    assert.equal(dev('UseDevelopmentStorage=true'), true);
    assert.equal(dev({ blob: 'http://localhost:10000', queue: 'http://127.0.0.1:10001/devstoreaccount1/' }), true, 'a service left out says nothing against it');
  });
  it('no: another host, port, protocol or account', () => {
    assert.equal(dev('UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://docker.local'), false);
    assert.equal(dev({ blob: 'http://127.0.0.1:11000' }), false);
    assert.equal(dev({ blob: 'http://127.0.0.1:10001' }), false, "the queue's port for Blob");
    assert.equal(dev({ table: 'https://127.0.0.1:10002' }), false);
    assert.equal(dev({ blob: 'http://127.0.0.1:10000', accountName: 'tenant1', accountKey: 'a2V5' }), false);
    assert.equal(dev(`DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;`), false, 'another key');
  });
  it('yes too on the ports the settings give (a local.settings.json may name those endpoints instead)', () => {
    const t = parseAttach({ blob: 'http://127.0.0.1:11000', queue: 'http://127.0.0.1:11001' }) as AttachTarget;
    assert.equal(servesDevelopmentStorage(t), false);
    assert.equal(servesDevelopmentStorage(t, { blob: 11000, queue: 11001, table: 11002 }), true);
    assert.equal(servesDevelopmentStorage(t, { blob: 11000, queue: 12001 }), false, 'each service on its own port');
  });
});
