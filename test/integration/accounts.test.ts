/**
 * `azurite.accounts` in the real VS Code: keys generated into Secret Storage (never settings.json),
 * Copy Connection String per account, the Storage view and Reset across accounts, a bad value.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BlobServiceClient } from '@azure/storage-blob';
import { Accounts } from '../../src/ui/accounts';
import { accountKeySecret } from '../../src/core/accounts';
import type { Emulator } from '../../src/emulator/emulator';
import { api, reset, waitFor } from './helpers';

async function setAccounts(value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('azurite').update('accounts', value, vscode.ConfigurationTarget.Workspace);
}

async function containers(cs: string): Promise<string[]> {
  const names: string[] = [];
  for await (const c of BlobServiceClient.fromConnectionString(cs).listContainers()) names.push(c.name);
  return names;
}

/**
 * Runs one apply of the current setting by an Accounts of its own over `secrets` (a Secret Storage
 * that behaves as a keyring can), with our own object in place of the Emulator: what it is given
 * (`setAccounts`) and what is logged as an error are all these tests read.
 */
async function applyWith(secrets: Record<string, unknown>): Promise<{ given: unknown[]; errors: string[] }> {
  const given: unknown[] = [];
  const errors: string[] = [];
  const emulator = { setAccounts: async (extra: unknown) => { given.push(extra); } } as unknown as Emulator;
  const storage = { ...secrets, onDidChange: new vscode.EventEmitter<vscode.SecretStorageChangeEvent>().event } as unknown as vscode.SecretStorage;
  const accounts = new Accounts(storage, emulator, { info: () => undefined, error: (line) => errors.push(line) });
  try {
    await accounts.ready;
  } finally {
    accounts.dispose();
  }
  return { given, errors };
}

describe('Custom accounts', () => {
  before(async () => {
    await reset();
  });
  afterEach(async () => {
    await setAccounts(undefined);
    await reset();
  });

  it('Copy Connection String right after an account is added copies that account\'s (it waits for the key)', async () => {
    const a = await api();
    await a.accountsReady();
    await setAccounts(['fresh1']);
    const cs = await vscode.commands.executeCommand<string | undefined>('azurite.copyConnectionString', { account: 'fresh1' });
    assert.ok(cs?.includes('AccountName=fresh1;') && cs.includes(`AccountKey=${await a.storedAccountKey('fresh1')};`), String(cs));
  });

  it('keeps generated keys in Secret Storage and copies each account\'s connection string', async () => {
    const a = await api();
    await setAccounts(['tenant1', 'tenant2']);
    await waitFor('the accounts in the engine', () => (a.emulator.accounts().length === 3 ? true : undefined));
    await a.accountsReady();
    const key = await a.storedAccountKey('tenant1');
    assert.ok(key !== undefined && Buffer.from(key, 'base64').length === 64, 'a 64-byte key in Secret Storage');
    assert.notEqual(await a.storedAccountKey('tenant2'), key);
    assert.deepEqual(vscode.workspace.getConfiguration('azurite').get('accounts'), ['tenant1', 'tenant2'], 'settings hold the names only');

    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    const cs = await vscode.commands.executeCommand<string>('azurite.copyConnectionString', { account: 'tenant1' });
    assert.ok(cs.includes('AccountName=tenant1;') && cs.includes(`AccountKey=${key};`), cs);
    assert.equal(await vscode.env.clipboard.readText(), cs);
    await BlobServiceClient.fromConnectionString(cs).getContainerClient('tenant-data').create();
    await BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('dev-data').create();
    assert.deepEqual(await containers(cs), ['tenant-data']);
    assert.equal(await vscode.commands.executeCommand('azurite.copyConnectionString', { account: 'nobody' }), undefined);

    // The Storage view shows each account; Reset empties them all.
    const tree = await waitFor('account nodes', async () => {
      const t = await a.storageTree(3);
      return t.length === 3 ? t : undefined;
    });
    assert.deepEqual(tree.map((n) => n.label), ['devstoreaccount1', 'tenant1', 'tenant2']);
    assert.deepEqual(tree[1]!.children?.[0]?.children?.map((c) => c.label), ['tenant-data']);
    // An Export says that the other accounts are not in a snapshot (a Reset empties them too).
    const snapshot = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-export-'));
    try {
      const shown = a.notifications().length;
      assert.deepEqual(await vscode.commands.executeCommand('azurite.exportSnapshot', { folder: snapshot, skipConfirmation: true }), { ok: true });
      const said = await waitFor('the export\'s message', () => a.notifications().slice(shown).find((m) => m.startsWith('Snapshot exported to')));
      assert.match(said, / The other accounts \(tenant1, tenant2, azurite\.accounts\) are not in a snapshot\.$/);
    } finally {
      fs.rmSync(snapshot, { recursive: true, force: true });
    }
    assert.deepEqual(await vscode.commands.executeCommand('azurite.reset', { skipConfirmation: true }), { ok: true });
    assert.deepEqual(await containers(cs), []);
    assert.deepEqual(await containers(a.emulator.connectionString()), []);

    // A name removed and added back keeps its key.
    await setAccounts(['tenant2']);
    await waitFor('tenant1 gone', () => (a.emulator.accounts().length === 2 ? true : undefined));
    await setAccounts(['tenant1']);
    await waitFor('tenant1 back', () => (a.emulator.accounts().some((x) => x.name === 'tenant1') ? true : undefined));
    await a.accountsReady();
    assert.equal(a.emulator.accounts().find((x) => x.name === 'tenant1')?.key, key);
  });

  it('the Storage view shows the figures of every account\'s containers after writes, though the accounts\' lists reload at once', async () => {
    const a = await api();
    await setAccounts(['tenant1']);
    await waitFor('the account in the engine', () => (a.emulator.accounts().length === 2 ? true : undefined));
    await a.accountsReady();
    assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
    const tenantCs = await vscode.commands.executeCommand<string>('azurite.copyConnectionString', { account: 'tenant1' });
    const dev = BlobServiceClient.fromConnectionString(a.emulator.connectionString()).getContainerClient('dev-data');
    const tenant = BlobServiceClient.fromConnectionString(tenantCs).getContainerClient('tenant-data');
    await dev.create();
    await tenant.create();
    const described = (t: Awaited<ReturnType<typeof a.storageTree>>, account: string, container: string): string | undefined =>
      t.find((n) => n.label === account)?.children?.[0]?.children?.find((c) => c.label === container)?.description;
    await waitFor('both containers listed with their figures', async () => {
      const t = await a.storageTree(3);
      return described(t, 'devstoreaccount1', 'dev-data') === '0 B' && described(t, 'tenant1', 'tenant-data') === '0 B' ? true : undefined;
    }, 20_000);
    // One write each: the engine's change reloads both accounts' container lists together, and each
    // must get figures read after the write (the first list's read, not one from before).
    await dev.getBlockBlobClient('a').uploadData(Buffer.alloc(1000, 1));
    await tenant.getBlockBlobClient('b').uploadData(Buffer.alloc(3000, 1));
    await waitFor('each container\'s new figures', async () => {
      const t = await a.storageTree(3);
      return described(t, 'devstoreaccount1', 'dev-data') === '1 KB' && described(t, 'tenant1', 'tenant-data') === '2.9 KB' ? true : undefined;
    }, 20_000);
  });

  it('names the setting when a name is not an account name, and serves the development account', async () => {
    const a = await api();
    await setAccounts(['Not_Valid']);
    await waitFor('the error', () => a.notifications().find((n) => n.includes('azurite.accounts') && n.includes('"Not_Valid"')));
    await a.accountsReady();
    assert.deepEqual(a.emulator.accounts().map((x) => x.name), ['devstoreaccount1']);
  });

  it('without azurite.accounts, serves the accounts of an AZURITE_ACCOUNTS variable in VS Code\'s environment, as Azurite does; [] set on purpose serves devstoreaccount1 alone', async () => {
    const a = await api();
    const key = Buffer.alloc(64, 7).toString('base64');
    process.env['AZURITE_ACCOUNTS'] = `envaccount:${key}`;
    const onlyDevelopment = () => (a.emulator.accounts().map((x) => x.name).join() === 'devstoreaccount1' ? true : undefined);
    try {
      await setAccounts(['tenant1']); // a change of the setting re-reads the accounts
      await waitFor('the setting\'s account', () => (a.emulator.accounts().some((x) => x.name === 'tenant1') ? true : undefined));
      await setAccounts([]);
      await waitFor('devstoreaccount1 alone, the variable\'s accounts left out', onlyDevelopment);
      await a.accountsReady();
      assert.ok(onlyDevelopment(), 'still devstoreaccount1 alone once the accounts are read');
      await setAccounts(undefined);
      await waitFor('the account from the environment', () => (a.emulator.accounts().some((x) => x.name === 'envaccount') ? true : undefined));
      await a.accountsReady();
      assert.deepEqual(await vscode.commands.executeCommand('azurite.start_blob'), [{ ok: true }]);
      const cs = await vscode.commands.executeCommand<string>('azurite.copyConnectionString', { account: 'envaccount' });
      assert.ok(cs.includes(`AccountKey=${key};`), cs);
      await BlobServiceClient.fromConnectionString(cs).getContainerClient('from-env').create();
      assert.deepEqual(await containers(cs), ['from-env']);
      // An account not there is said with where the accounts come from.
      assert.equal(await vscode.commands.executeCommand('azurite.copyConnectionString', { account: 'tenant1' }), undefined);
      assert.ok(a.notifications().includes('Azurite: no account tenant1. The accounts are devstoreaccount1, envaccount (the AZURITE_ACCOUNTS environment variable).'));
      // The setting, once set, replaces them.
      await setAccounts(['tenant1']);
      await waitFor('the setting\'s accounts', () => (a.emulator.accounts().map((x) => x.name).join() === 'devstoreaccount1,tenant1' ? true : undefined));
    } finally {
      delete process.env['AZURITE_ACCOUNTS'];
    }
  });

  it('a key that goes missing from Secret Storage while its account is served is stored again, not replaced by a new one', async () => {
    const a = await api();
    await setAccounts(['keepkey1']);
    await waitFor('the account in the engine', () => (a.emulator.accounts().some((x) => x.name === 'keepkey1') ? true : undefined));
    await a.accountsReady();
    const key = await a.storedAccountKey('keepkey1');
    assert.ok(key !== undefined);
    try {
      // What VS Code does with an entry it cannot decrypt (a keyring refused): deleted, a change event.
      await a.secretStorage.delete(accountKeySecret('keepkey1'));
      await waitFor('the key stored again', async () => ((await a.storedAccountKey('keepkey1')) !== undefined ? true : undefined));
      await a.accountsReady();
      assert.equal(await a.storedAccountKey('keepkey1'), key, 'the key clients use, not a new one');
      assert.equal(a.emulator.accounts().find((x) => x.name === 'keepkey1')?.key, key);
    } finally {
      await a.secretStorage.delete(accountKeySecret('keepkey1'));
    }
  });

  it('an account azurite.accounts lists that an AZURITE_ACCOUNTS variable also gives keeps the variable\'s key', async () => {
    const a = await api();
    const key = Buffer.alloc(64, 9).toString('base64');
    await a.secretStorage.delete(accountKeySecret('fromvar1'));
    process.env['AZURITE_ACCOUNTS'] = `fromvar1:${key}`;
    try {
      await setAccounts(['fromvar1', 'tenant2']);
      await waitFor('the accounts in the engine', () => (a.emulator.accounts().some((x) => x.name === 'fromvar1') ? true : undefined));
      await a.accountsReady();
      assert.equal(await a.storedAccountKey('fromvar1'), key, 'connection strings made for Azurite keep working');
      assert.equal(a.emulator.accounts().find((x) => x.name === 'fromvar1')?.key, key);
    } finally {
      delete process.env['AZURITE_ACCOUNTS'];
      await a.secretStorage.delete(accountKeySecret('fromvar1'));
    }
  });

  it('says in a warning, once, what is wrong with an AZURITE_ACCOUNTS variable it cannot use: a malformed value, a key of its own for devstoreaccount1', async () => {
    const a = await api();
    const key = Buffer.alloc(64, 7).toString('base64');
    try {
      for (const [value, said] of [
        ['envaccount', 'Azurite: AZURITE_ACCOUNTS is not name:key1[:key2];name2:key1;… (its entry 1 of 1 is not). Only devstoreaccount1 is served; azurite.accounts is the way to add accounts here.'],
        [`devstoreaccount1:${key};envaccount:${key}`, 'Azurite: AZURITE_ACCOUNTS gives devstoreaccount1 a key of its own, which is not used: '],
      ] as const) {
        process.env['AZURITE_ACCOUNTS'] = value;
        await setAccounts(['tenant1']); // a change of the setting re-reads the accounts
        await setAccounts(undefined);
        await a.accountsReady();
        await waitFor(`the warning about ${value}`, () => a.notifications().find((n) => n.startsWith(said)));
        // Read again: logged, not shown again.
        await setAccounts(['tenant1']);
        await setAccounts(undefined);
        await a.accountsReady();
        assert.equal(a.notifications().filter((n) => n.startsWith(said)).length, 1);
      }
      assert.deepEqual(a.emulator.accounts().map((x) => x.name), ['devstoreaccount1', 'envaccount']);
    } finally {
      delete process.env['AZURITE_ACCOUNTS'];
    }
  });

  it('a Secret Storage that cannot be read: ready resolves, the error names the accounts, devstoreaccount1 is served', async () => {
    await setAccounts(['tenant1']);
    const noKeyring = () => Promise.reject(new Error('no keyring'));
    const { given, errors } = await applyWith({ get: noKeyring, store: noKeyring, delete: noKeyring, keys: noKeyring });
    assert.deepEqual(given, [[]]);
    assert.match(errors[0] ?? '', /^The key of tenant1 \(azurite\.accounts\) could not be read from or stored in VS Code's Secret Storage: no keyring\. It is not served; /);
  });

  it('one key Secret Storage refuses does not take the other accounts out of the engine; the error names that one', async () => {
    await setAccounts(['tenant1', 'tenant2']);
    const stored = new Map<string, string>([[accountKeySecret('tenant1'), 'a2V5MQ==']]);
    // Stores nothing for tenant2 (its keyring entry refused), reads tenant1's.
    const { given, errors } = await applyWith({
      get: async (k: string) => stored.get(k),
      store: (k: string) => Promise.reject(new Error(`cannot encrypt ${k}`)),
      delete: async () => undefined,
    });
    assert.deepEqual(given, [[{ name: 'tenant1', key: 'a2V5MQ==' }]]);
    assert.equal(errors[0], 'The key of tenant2 (azurite.accounts) could not be read from or stored in VS Code\'s Secret Storage: cannot encrypt azurite.accountKey.tenant2. It is not served (tenant1 is); change the setting or reload the window to try again.');
  });

  it('a key another window stores while this one makes its own is taken, also before this window has the account', async () => {
    await setAccounts(['tenantrace']);
    const stored = new Map<string, string>();
    const changes = new vscode.EventEmitter<vscode.SecretStorageChangeEvent>();
    let reads = 0;
    const secrets = {
      get: async (key: string) => {
        const value = stored.get(key);
        // The read-back of the key this window made: another window stores its own at that moment.
        if (++reads === 2) {
          stored.set(key, 'key-of-the-other-window');
          changes.fire({ key });
        }
        return value;
      },
      store: async (key: string, value: string) => { stored.set(key, value); },
      delete: async (key: string) => { stored.delete(key); },
      keys: async () => [...stored.keys()],
      onDidChange: changes.event,
    } as unknown as vscode.SecretStorage;
    const given: { name: string; key: string }[][] = [];
    // Our own class in place of the Emulator: what it is given is all this test reads.
    const emulator = { setAccounts: async (extra: { name: string; key: string }[]) => { given.push(extra); } } as unknown as Emulator;
    const accounts = new Accounts(secrets, emulator, { info: () => undefined, error: () => undefined });
    try {
      for (let ready = accounts.ready; ; ready = accounts.ready) {
        await ready;
        if (ready === accounts.ready) break;
      }
    } finally {
      accounts.dispose();
      changes.dispose();
    }
    assert.deepEqual(given.at(-1), [{ name: 'tenantrace', key: 'key-of-the-other-window' }], 'the key stored last, as every window uses');
  });

  it('changes in a row reach the engine in order: an apply that waits for Secret Storage does not undo a later one', async () => {
    await setAccounts(['tenantslow']);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const stored = new Map<string, string>();
    const secrets = {
      get: async (key: string) => { await gate; return stored.get(key); },
      store: async (key: string, value: string) => { stored.set(key, value); },
      delete: async (key: string) => { stored.delete(key); },
      keys: async () => [...stored.keys()],
      onDidChange: new vscode.EventEmitter<vscode.SecretStorageChangeEvent>().event,
    } as unknown as vscode.SecretStorage;
    const given: { name: string }[][] = [];
    // Our own class in place of the Emulator: what it is given is all this test reads.
    const emulator = { setAccounts: async (extra: { name: string }[]) => { given.push(extra); } } as unknown as Emulator;
    const accounts = new Accounts(secrets, emulator, { info: () => undefined, error: () => undefined });
    try {
      // The first apply waits in Secret Storage for tenantslow's key; the setting is removed meanwhile.
      const first = accounts.ready;
      await setAccounts(undefined);
      await waitFor('the change to reach the accounts', () => accounts.ready !== first || undefined);
      release();
      await accounts.ready;
    } finally {
      accounts.dispose();
    }
    assert.deepEqual(given.map((g) => g.map((x) => x.name)), [['tenantslow'], []], 'the setting as it is now, last');
  });
});
