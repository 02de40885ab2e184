import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  classifyDotenv, classifyLocalSettings, connectionStringPairs, decideVariables, decodeLocalSettings, dotenvKeys, envFilePaths, identityConnectionKey, isDevelopmentStorage, needsDevelopmentStorage,
  type LocalSettingsFile,
} from '../../../src/core/localSettings';

const own = [{ host: '127.0.0.1', port: 10000 }, { host: '127.0.0.1', port: 41234 }];
const settings = (value: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ IsEncrypted: false, ...extra, Values: { FUNCTIONS_WORKER_RUNTIME: 'node', AzureWebJobsStorage: value } });
const CLOUD = 'DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=abc==;EndpointSuffix=core.windows.net';

describe('core/localSettings', () => {
  it('splits a connection string into lower-cased keys, keeping values (with = inside) as written', () => {
    const pairs = connectionStringPairs('AccountName=a;AccountKey=k==; ;BlobEndpoint=http://h:1/a;');
    assert.equal(pairs.get('accountname'), 'a');
    assert.equal(pairs.get('accountkey'), 'k==');
    assert.equal(pairs.get('blobendpoint'), 'http://h:1/a');
    assert.equal(pairs.size, 3);
  });

  it('counts UseDevelopmentStorage=true (any case, with a proxy URI on this machine) and our endpoints as development storage', () => {
    assert.equal(isDevelopmentStorage('UseDevelopmentStorage=true', own), true);
    assert.equal(isDevelopmentStorage('usedevelopmentstorage=TRUE;', own), true);
    assert.equal(isDevelopmentStorage('UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://host.docker.internal', own), true);
    assert.equal(isDevelopmentStorage('UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://127.0.0.1', own), true);
    // A proxy on another machine is another emulator: theirs.
    assert.equal(isDevelopmentStorage('UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://10.0.0.5', own), false);
    assert.equal(isDevelopmentStorage('UseDevelopmentStorage=true;DevelopmentStorageProxyUri=not a url', own), false);
    assert.equal(isDevelopmentStorage('UseDevelopmentStorage=false', own), false);
    assert.equal(isDevelopmentStorage('DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=k;BlobEndpoint=http://localhost:41234/devstoreaccount1;', own), true);
    assert.equal(isDevelopmentStorage('DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=k;QueueEndpoint=http://127.0.0.1:10000/devstoreaccount1', own), true);
    assert.equal(isDevelopmentStorage('DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=k;BlobEndpoint=http://127.0.0.1:20000/devstoreaccount1', own), false);
    assert.equal(isDevelopmentStorage('BlobEndpoint=http://otherhost:10000/devstoreaccount1', own), false);
    // Product-style URLs (the account in a name under .localhost) and a container's name for this machine.
    assert.equal(isDevelopmentStorage('DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=k;BlobEndpoint=http://devstoreaccount1.blob.localhost:10000;', own), true);
    assert.equal(isDevelopmentStorage('DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=k;BlobEndpoint=http://host.docker.internal:10000/devstoreaccount1;', own), true);
    assert.equal(isDevelopmentStorage('BlobEndpoint=http://devstoreaccount1.blob.localhost.example.com:10000', own), false);
    assert.equal(isDevelopmentStorage('BlobEndpoint=not a url', own), false);
    assert.equal(isDevelopmentStorage(CLOUD, own), false);
    // A string that sends another service elsewhere is the user's own: ours would send it to the emulator.
    assert.equal(isDevelopmentStorage('DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=k;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;QueueEndpoint=https://acct.queue.core.windows.net', own), false);
    assert.equal(isDevelopmentStorage('DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=k;BlobEndpoint=http://127.0.0.1:10000/acct;EndpointSuffix=core.windows.net', own), false);
    assert.equal(isDevelopmentStorage('DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=k;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;QueueEndpoint=http://127.0.0.1:41234/devstoreaccount1;TableEndpoint=http://localhost:10000/devstoreaccount1;EndpointSuffix=x', own), true);
  });

  it('classifies local.settings.json: absent, development, own, unknown (never throws)', () => {
    assert.deepEqual(classifyLocalSettings(settings('UseDevelopmentStorage=true'), own), { kind: 'development' });
    assert.deepEqual(classifyLocalSettings('\uFEFF' + settings('UseDevelopmentStorage=true'), own), { kind: 'development' });
    assert.deepEqual(classifyLocalSettings(settings(CLOUD), own), { kind: 'own' });
    assert.deepEqual(classifyLocalSettings(settings(''), own), { kind: 'absent' });
    assert.deepEqual(classifyLocalSettings(JSON.stringify({ IsEncrypted: false, Values: {} }), own), { kind: 'absent' });
    assert.deepEqual(classifyLocalSettings(JSON.stringify({ IsEncrypted: false }), own), { kind: 'absent' });
    assert.deepEqual(classifyLocalSettings('{}', own), { kind: 'absent' });
    // An identity-based connection is the project's own: a connection string would win over it in the Functions host.
    assert.deepEqual(classifyLocalSettings(JSON.stringify({ Values: { AzureWebJobsStorage__accountName: 'prodacct' } }), own), { kind: 'own' });
    assert.deepEqual(classifyLocalSettings(JSON.stringify({ Values: { azurewebjobsstorage__blobServiceUri: 'https://prodacct.blob.core.windows.net' } }), own), { kind: 'own' });
    assert.deepEqual(classifyLocalSettings(JSON.stringify({ Values: { AzureWebJobsStorage__accountName: 'prodacct', AzureWebJobsStorage: 'UseDevelopmentStorage=true' } }), own), { kind: 'development' });
    // Comments and trailing commas, which Core Tools (Json.NET) and the Functions extension accept.
    const commented = '{\n  "IsEncrypted": false,\n  // local runs only\n  "Values": {\n    /* the emulator */ "AzureWebJobsStorage": "UseDevelopmentStorage=true",\n  },\n}\n';
    assert.deepEqual(classifyLocalSettings(commented, own), { kind: 'development' });
    assert.deepEqual(classifyLocalSettings(`// cloud\n${settings(CLOUD)}`, own), { kind: 'own' });
    const broken = classifyLocalSettings('{\n  "Values": { "AzureWebJobsStorage": "x" "FUNCTIONS_WORKER_RUNTIME": "node" } ', own);
    assert.deepEqual(broken, { kind: 'unknown', reason: 'CommaExpected at line 2, column 42' });
    assert.deepEqual(classifyLocalSettings(settings('c2VjcmV0', { IsEncrypted: true }), own), { kind: 'unknown', reason: 'its values are encrypted (IsEncrypted: true)' });
    assert.equal(classifyLocalSettings('[]', own).kind, 'unknown');
    assert.equal(classifyLocalSettings(JSON.stringify({ Values: 'x' }), own).kind, 'unknown');
    assert.equal(classifyLocalSettings(settings(42), own).kind, 'unknown');
  });

  it('reads a local.settings.json saved as UTF-16 (LE or BE, told by its byte order mark) or UTF-8, with the mark dropped', () => {
    const json = settings('UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://127.0.0.1') + '\r\n// é ✓ 𝄞\r\n';
    const le = Buffer.from(`\uFEFF${json}`, 'utf16le'); // Windows PowerShell 5.1: `>`, Out-File
    assert.deepEqual([...le.subarray(0, 2)], [0xff, 0xfe]);
    const be = Buffer.from(le).swap16();
    assert.deepEqual([...be.subarray(0, 2)], [0xfe, 0xff]);
    for (const [name, bytes] of [['UTF-16 LE', le], ['UTF-16 BE', be], ['UTF-8 with a mark', Buffer.from(`\uFEFF${json}`)], ['UTF-8', Buffer.from(json)]] as const) {
      const text = decodeLocalSettings(new Uint8Array(bytes));
      assert.equal(text, json, name);
      assert.deepEqual(classifyLocalSettings(text, own), { kind: 'development' }, name);
    }
    // A mark and nothing else, or an odd last byte: text all the same (never a throw).
    assert.equal(decodeLocalSettings(new Uint8Array([0xff, 0xfe])), '');
    assert.equal(decodeLocalSettings(new Uint8Array([0xfe, 0xff, 0x00, 0x7b, 0x00])), '{\uFFFD');
    assert.equal(decodeLocalSettings(new Uint8Array([])), '');
    // Without a mark UTF-16 is not guessed at, as Core Tools do not: unreadable, so nothing is injected over it.
    assert.equal(classifyLocalSettings(decodeLocalSettings(new Uint8Array(Buffer.from(json, 'utf16le'))), own).kind, 'unknown');
  });

  it('tells our endpoints with the development account from our endpoints with another account (azurite.accounts)', () => {
    const ours = (account: string) => `DefaultEndpointsProtocol=http;AccountName=${account};AccountKey=k;BlobEndpoint=http://127.0.0.1:10000/${account};`;
    assert.deepEqual(classifyLocalSettings(settings(ours('devstoreaccount1')), own), { kind: 'development' });
    assert.deepEqual(classifyLocalSettings(settings('DefaultEndpointsProtocol=http;AccountKey=k;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;'), own), { kind: 'development' });
    assert.deepEqual(classifyLocalSettings(settings(ours('myapp')), own), { kind: 'emulatorAccount', account: 'myapp' });
    // Without AccountName (a SAS connection string) the endpoint names the account: in the host or the path.
    assert.deepEqual(classifyLocalSettings(settings('BlobEndpoint=http://myapp.blob.localhost:10000;SharedAccessSignature=sv=1'), own), { kind: 'emulatorAccount', account: 'myapp' });
    assert.deepEqual(classifyLocalSettings(settings('BlobEndpoint=http://127.0.0.1:10000/myapp;SharedAccessSignature=sv=1'), own), { kind: 'emulatorAccount', account: 'myapp' });
    assert.deepEqual(classifyLocalSettings(settings('BlobEndpoint=http://devstoreaccount1.blob.localhost:10000;SharedAccessSignature=sv=1'), own), { kind: 'development' });
    // A malformed escape in the path is the segment as written (never a throw).
    assert.deepEqual(classifyLocalSettings(settings('BlobEndpoint=http://127.0.0.1:10000/%zz;SharedAccessSignature=sv=1'), own), { kind: 'emulatorAccount', account: '%zz' });
    const files: LocalSettingsFile[] = [{ label: 'api/local.settings.json', use: { kind: 'emulatorAccount', account: 'myapp' } }];
    assert.equal(needsDevelopmentStorage(files), true, 'the services are still ours to start');
    const decided = decideVariables('cs', { running: ['Blob'] }, files);
    assert.deepEqual(decided.variables, { AZURE_STORAGE_CONNECTION_STRING: 'cs' }, 'ours names devstoreaccount1: not over the file\'s account');
    assert.match(decided.description, /AzureWebJobsStorage not set: api\/local\.settings\.json sets its own \(account myapp of this emulator\)$/);
    // Some services here and another elsewhere: ours to start, the file's to keep.
    const mixed = classifyLocalSettings(settings('DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=k;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;TableEndpoint=https://acct.table.core.windows.net'), own);
    assert.deepEqual(mixed, { kind: 'partlyEmulator' });
    const mixedFiles: LocalSettingsFile[] = [{ label: 'api/local.settings.json', use: mixed }];
    assert.equal(needsDevelopmentStorage(mixedFiles), true, 'Blob is still ours to start');
    const kept = decideVariables('cs', { running: ['Blob'] }, mixedFiles);
    assert.deepEqual(kept.variables, { AZURE_STORAGE_CONNECTION_STRING: 'cs' });
    assert.match(kept.description, /AzureWebJobsStorage not set: api\/local\.settings\.json sets its own \(some services of this emulator, others elsewhere\)$/);
  });

  it('injects AzureWebJobsStorage only when no file sets its own, and says why not', () => {
    const cs = 'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;';
    const none = decideVariables(cs, { running: ['Blob', 'Queue'] }, []);
    assert.deepEqual(none.variables, { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: cs });
    assert.equal(none.description, 'AZURE_STORAGE_CONNECTION_STRING and AzureWebJobsStorage for the running Azurite Blob, Queue');

    const dev: LocalSettingsFile[] = [{ label: 'local.settings.json', use: { kind: 'development' } }, { label: 'b/local.settings.json', use: { kind: 'absent' } }];
    assert.deepEqual(decideVariables(cs, { running: ['Blob'] }, dev).variables, { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: cs });

    const mixed: LocalSettingsFile[] = [...dev, { label: 'functions/local.settings.json', use: { kind: 'own' } }];
    const decided = decideVariables(cs, { running: ['Blob', 'Queue'] }, mixed);
    assert.deepEqual(decided.variables, { AZURE_STORAGE_CONNECTION_STRING: cs });
    assert.equal(decided.description, 'AZURE_STORAGE_CONNECTION_STRING for the running Azurite Blob, Queue; AzureWebJobsStorage not set: functions/local.settings.json sets its own');

    const unreadable = decideVariables(cs, { running: ['Table'] }, [{ label: 'local.settings.json', use: { kind: 'unknown', reason: 'Unexpected token' } }]);
    assert.deepEqual(unreadable.variables, { AZURE_STORAGE_CONNECTION_STRING: cs });
    assert.match(unreadable.description, /AzureWebJobsStorage not set: local\.settings\.json could not be read \(Unexpected token\)$/);
  });

  it('a workspace folder\'s decision (some of the files) only adds variables to the workspace\'s, with the same value', () => {
    // ui/terminalEnvironment.ts sets per folder only what the folder's decision adds: it relies on this.
    const cs = 'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;';
    const uses = [{ kind: 'absent' }, { kind: 'development' }, { kind: 'emulatorAccount', account: 'a1' }, { kind: 'own' }, { kind: 'unknown', reason: 'x' }] as const;
    const inherited = [{}, { AzureWebJobsStorage: CLOUD }, { AZURE_STORAGE_CONNECTION_STRING: CLOUD }];
    const files: LocalSettingsFile[] = [];
    for (const use of uses) for (const storageUse of uses) files.push({ label: `${use.kind}-${storageUse.kind}/local.settings.json`, use, storageUse });
    for (const env of inherited) {
      // Every file alone, and every pair, against the workspace of the pair plus a third file each time.
      for (let i = 0; i < files.length; i++) {
        for (let j = i; j < files.length; j++) {
          const folder = i === j ? [files[i]!] : [files[i]!, files[j]!];
          const folderDecision = decideVariables(cs, { running: ['Blob'] }, folder, env, own).variables;
          for (const other of [[], [files[(i + j + 1) % files.length]!]]) {
            const workspace = decideVariables(cs, { running: ['Blob'] }, [...folder, ...other], env, own).variables;
            for (const [name, value] of Object.entries(workspace)) assert.equal((folderDecision as Record<string, string>)[name], value, `${name} of ${JSON.stringify([...folder, ...other])}`);
          }
        }
      }
    }
  });

  it('names the services another Azurite serves apart from the running ones', () => {
    const cs = 'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;';
    const all = decideVariables(cs, { running: [], elsewhere: ['Blob', 'Queue', 'Table'] }, []);
    assert.deepEqual(all.variables, { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: cs });
    assert.equal(all.description, 'AZURE_STORAGE_CONNECTION_STRING and AzureWebJobsStorage for Blob, Queue, Table served by another Azurite');
    const some = decideVariables(cs, { running: ['Blob', 'Queue'], elsewhere: ['Table'] }, [{ label: 'fn/local.settings.json', use: { kind: 'own' } }]);
    assert.equal(some.description, 'AZURE_STORAGE_CONNECTION_STRING for the running Azurite Blob, Queue and Table served by another Azurite; AzureWebJobsStorage not set: fn/local.settings.json sets its own');
  });

  it('reads keys in any case, and AZURE_STORAGE_CONNECTION_STRING as AzureWebJobsStorage: a file that sets its own blocks ours', () => {
    // The Functions host's configuration matches keys in any case.
    assert.deepEqual(classifyLocalSettings(JSON.stringify({ Values: { AZUREWEBJOBSSTORAGE: CLOUD } }), own), { kind: 'own' });
    assert.deepEqual(classifyLocalSettings(JSON.stringify({ Values: { azurewebjobsstorage: '', AzureWebJobsStorage: 'UseDevelopmentStorage=true' } }), own), { kind: 'development' });
    const file = JSON.stringify({ Values: { AzureWebJobsStorage: 'UseDevelopmentStorage=true', AZURE_STORAGE_CONNECTION_STRING: CLOUD } });
    assert.deepEqual(classifyLocalSettings(file, own, 'AZURE_STORAGE_CONNECTION_STRING'), { kind: 'own' });
    assert.deepEqual(classifyLocalSettings(settings('UseDevelopmentStorage=true'), own, 'AZURE_STORAGE_CONNECTION_STRING'), { kind: 'absent' });
    const cs = 'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;';
    // Core Tools skip a value the environment already has: ours in a terminal would replace the file's.
    const decided = decideVariables(cs, { running: ['Blob'] }, [{ label: 'api/local.settings.json', use: { kind: 'development' }, storageUse: { kind: 'own' } }]);
    assert.deepEqual(decided.variables, { AzureWebJobsStorage: cs });
    assert.equal(decided.description, 'AzureWebJobsStorage for the running Azurite Blob; AZURE_STORAGE_CONNECTION_STRING not set: api/local.settings.json sets its own');
    assert.deepEqual(decideVariables(cs, { running: ['Blob'] }, [{ label: 'local.settings.json', use: { kind: 'absent' }, storageUse: { kind: 'development' } }]).variables,
      { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: cs });
  });

  it('sets no variable over a value of the user\'s own in the environment VS Code was started with; replaces one that is ours', () => {
    const cs = 'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;BlobEndpoint=http://127.0.0.1:40001/devstoreaccount1;';
    const own = [{ host: '127.0.0.1', port: 40001 }];
    const cloud = 'DefaultEndpointsProtocol=https;AccountName=prodaccount;AccountKey=a2V5;EndpointSuffix=core.windows.net';
    const both = decideVariables(cs, { running: ['Blob'] }, [], { AZURE_STORAGE_CONNECTION_STRING: cloud, AzureWebJobsStorage: cloud }, own);
    assert.deepEqual(both.variables, {});
    assert.equal(both.description, 'nothing set for the running Azurite Blob; AZURE_STORAGE_CONNECTION_STRING not set: the environment VS Code was started with sets its own; AzureWebJobsStorage not set: the environment VS Code was started with sets its own');
    const one = decideVariables(cs, { running: ['Blob'] }, [], { AZURE_STORAGE_CONNECTION_STRING: cloud, AzureWebJobsStorage: '' }, own);
    assert.deepEqual(one.variables, { AzureWebJobsStorage: cs });
    assert.equal(one.description, 'AzureWebJobsStorage for the running Azurite Blob; AZURE_STORAGE_CONNECTION_STRING not set: the environment VS Code was started with sets its own');
    // Ours, or the development storage, or devstoreaccount1 on this machine at ports of an earlier run (a terminal of ours that opened this window): replaced.
    for (const inherited of [cs, 'UseDevelopmentStorage=true', cs.replace('40001', '51234'), 'AccountName=devstoreaccount1;QueueEndpoint=http://localhost:10001/devstoreaccount1']) {
      assert.deepEqual(decideVariables(cs, { running: ['Blob'] }, [], { AZURE_STORAGE_CONNECTION_STRING: inherited, AzureWebJobsStorage: inherited }, own).variables,
        { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: cs }, inherited);
    }
    // AzureWebJobsStorage under another case is that variable for the Functions host, on every platform;
    // AZURE_STORAGE_CONNECTION_STRING is read by its exact name.
    assert.deepEqual(decideVariables(cs, { running: ['Blob'] }, [], { AZUREWEBJOBSSTORAGE: cloud, azure_storage_connection_string: cloud }, own).variables,
      { AZURE_STORAGE_CONNECTION_STRING: cs });
    // devstoreaccount1 on another machine (a shared Azurite) is the user's.
    assert.deepEqual(decideVariables(cs, { running: ['Blob'] }, [], { AZURE_STORAGE_CONNECTION_STRING: 'AccountName=devstoreaccount1;BlobEndpoint=http://10.0.0.5:10000/devstoreaccount1' }, own).variables,
      { AzureWebJobsStorage: cs });
  });

  it('sets no AzureWebJobsStorage over an identity-based connection in the environment (AzureWebJobsStorage__accountName, any case): the host would use ours instead', () => {
    const cs = 'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;BlobEndpoint=http://127.0.0.1:40001/devstoreaccount1;';
    const decided = decideVariables(cs, { running: ['Blob'] }, [], { azurewebjobsstorage__accountName: 'prodaccount' });
    assert.deepEqual(decided.variables, { AZURE_STORAGE_CONNECTION_STRING: cs });
    assert.equal(decided.description, 'AZURE_STORAGE_CONNECTION_STRING for the running Azurite Blob; AzureWebJobsStorage not set: the environment VS Code was started with sets its own (azurewebjobsstorage__accountName: an identity-based connection)');
    // Empty, or a name that only begins alike: not a connection.
    for (const inherited of [{ AzureWebJobsStorage__accountName: '' }, { AzureWebJobsStorage_accountName: 'x' }, { AzureWebJobsStorage__: 'x' }]) {
      assert.deepEqual(decideVariables(cs, { running: ['Blob'] }, [], inherited).variables, { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: cs }, JSON.stringify(inherited));
    }
    assert.equal(identityConnectionKey(['PATH', 'AzureWebJobsStorage__blobServiceUri'], 'AZURE_STORAGE_CONNECTION_STRING'), undefined, 'only AzureWebJobsStorage has that form');
  });

  it('keeps an inherited connection string that names another account at our endpoints, as it keeps one in local.settings.json', () => {
    const cs = 'DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;';
    const own = [{ host: '127.0.0.1', port: 10000 }];
    const theirs = [
      'DefaultEndpointsProtocol=http;AccountName=myacct;AccountKey=bXlrZXk=;BlobEndpoint=http://127.0.0.1:10000/myacct',
      'BlobEndpoint=http://127.0.0.1:10000/myacct;SharedAccessSignature=sv=1', // no AccountName: the path names it
      'BlobEndpoint=http://myacct.blob.localhost:10000;SharedAccessSignature=sv=1', // or the host
    ];
    for (const inherited of theirs) {
      assert.equal(classifyLocalSettings(settings(inherited), own).kind, 'emulatorAccount', inherited);
      const decided = decideVariables(cs, { running: ['Blob'] }, [], { AZURE_STORAGE_CONNECTION_STRING: inherited, AzureWebJobsStorage: inherited }, own);
      assert.deepEqual(decided.variables, {}, inherited);
      assert.equal(decided.description, 'nothing set for the running Azurite Blob; AZURE_STORAGE_CONNECTION_STRING not set: the environment VS Code was started with sets its own; AzureWebJobsStorage not set: the environment VS Code was started with sets its own');
    }
    // The development account at the same endpoints, named or not, is still ours to replace.
    for (const inherited of ['BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;SharedAccessSignature=sv=1', 'BlobEndpoint=http://devstoreaccount1.blob.localhost:10000;SharedAccessSignature=sv=1', 'BlobEndpoint=http://127.0.0.1:10000']) {
      assert.deepEqual(decideVariables(cs, { running: ['Blob'] }, [], { AZURE_STORAGE_CONNECTION_STRING: inherited }, own).variables,
        { AZURE_STORAGE_CONNECTION_STRING: cs, AzureWebJobsStorage: cs }, inherited);
    }
  });

  it('needs the development storage when any file points at it', () => {
    assert.equal(needsDevelopmentStorage([]), false);
    assert.equal(needsDevelopmentStorage([{ label: 'a', use: { kind: 'own' } }, { label: 'b', use: { kind: 'absent' } }]), false);
    assert.equal(needsDevelopmentStorage([{ label: 'a', use: { kind: 'own' } }, { label: 'b', use: { kind: 'development' } }]), true);
  });

  it('reads the keys of an envFile: KEY=value, export KEY=value; comments and blanks skipped', () => {
    assert.deepEqual([...dotenvKeys('# c\nAzureWebJobsStorage=x\r\n\nexport AZURE_STORAGE_CONNECTION_STRING="y"\n  SPACED = 1\nnot a line\n')],
      ['AzureWebJobsStorage', 'AZURE_STORAGE_CONNECTION_STRING', 'SPACED']);
  });

  it('reads what a .env says of each variable: the user\'s own value, the development storage, nothing; and keeps a .env from counting as a Functions project', () => {
    const env = `# the app's settings\nexport AZURE_STORAGE_CONNECTION_STRING="${CLOUD}"\nAzureWebJobsStorage=UseDevelopmentStorage=true\n`;
    assert.deepEqual(classifyDotenv(env, own, 'AZURE_STORAGE_CONNECTION_STRING'), { kind: 'own' });
    assert.deepEqual(classifyDotenv(env, own), { kind: 'development' });
    assert.deepEqual(classifyDotenv('\uFEFFOTHER=1\nAZURE_STORAGE_CONNECTION_STRING=\n', own, 'AZURE_STORAGE_CONNECTION_STRING'), { kind: 'absent' }, 'empty is unset');
    assert.deepEqual(classifyDotenv('azure_storage_connection_string=UseDevelopmentStorage=true', own, 'AZURE_STORAGE_CONNECTION_STRING'), { kind: 'development' }, 'any case, as Windows reads it');
    assert.deepEqual(classifyDotenv('AzureWebJobsStorage__accountName=prod\n', own), { kind: 'own' }, 'an identity-based connection');
    const files: LocalSettingsFile[] = [{ label: '.env', dotenv: true, use: classifyDotenv(env, own), storageUse: classifyDotenv(env, own, 'AZURE_STORAGE_CONNECTION_STRING') }];
    const decided = decideVariables('UseDevelopmentStorage=true', { running: ['Blob'] }, files);
    assert.deepEqual(decided.variables, { AzureWebJobsStorage: 'UseDevelopmentStorage=true' });
    assert.equal(decided.description, 'AzureWebJobsStorage for the running Azurite Blob; AZURE_STORAGE_CONNECTION_STRING not set: .env sets its own');
    assert.equal(needsDevelopmentStorage(files), false, 'a .env naming the development storage is no Functions project to start storage for');
  });

  it('names the files of an envFile: one path or a list (Go), relative ones in the workspace folder', () => {
    const root = path.resolve('workspace-folder');
    assert.deepEqual(envFilePaths('.env', root), [path.join(root, '.env')]);
    assert.deepEqual(envFilePaths(['.env', path.resolve('/etc/app.env'), '', 3], root), [path.join(root, '.env'), path.resolve('/etc/app.env')]);
    assert.deepEqual(envFilePaths('.env', undefined), ['.env']);
    assert.deepEqual(envFilePaths(undefined, root), []);
    assert.deepEqual(envFilePaths({ file: '.env' }, root), []);
  });
});
