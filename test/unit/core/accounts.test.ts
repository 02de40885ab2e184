import * as assert from 'node:assert/strict';
import { accountKeySecret, azuriteAccountsValue, generateAccountKey, parseAccountNames, parseAccountsVariable } from '../../../src/core/accounts';
import { DEV_ACCOUNT_KEY } from '../../../src/core/connectionString';

describe('core/accounts', () => {
  it('accepts Azure account names and nothing else, naming the setting', () => {
    assert.deepEqual(parseAccountNames(undefined), { names: [] });
    assert.deepEqual(parseAccountNames(['tenant1', 'abc', 'a23456789012345678901234']), { names: ['tenant1', 'abc', 'a23456789012345678901234'] });
    for (const bad of [['ab'], ['Tenant1'], ['ten-ant'], ['a234567890123456789012345'], [1], 'tenant1', { a: 1 }]) {
      const r = parseAccountNames(bad);
      assert.ok('error' in r && r.error.includes('azurite.accounts'), `${JSON.stringify(bad)}: ${JSON.stringify(r)}`);
    }
    assert.match((parseAccountNames(['devstoreaccount1']) as { error: string }).error, /always there/);
    assert.match((parseAccountNames(['tenant1', 'tenant1']) as { error: string }).error, /twice/);
    // AZURITE_ACCOUNTS's name:key form: named by its place, its key never echoed (a notification, the log).
    const pasted = (parseAccountNames(['tenant1', 'tenant2:c2VjcmV0a2V5']) as { error: string }).error;
    assert.equal(pasted, 'azurite.accounts: entry 2 holds a ":" (the name:key form of AZURITE_ACCOUNTS?); list account names only: their keys are made for you and kept in Secret Storage.');
  });

  it('builds AZURITE_ACCOUNTS with the development account first (a value replaces Azurite\'s default)', () => {
    assert.equal(azuriteAccountsValue([]), undefined);
    assert.equal(azuriteAccountsValue([{ name: 'tenant1', key: 'a2V5' }]), `devstoreaccount1:${DEV_ACCOUNT_KEY};tenant1:a2V5`);
    assert.equal(azuriteAccountsValue([{ name: 'tenant1', key: 'a2V5', secondaryKey: 'a2V5Mg==' }]), `devstoreaccount1:${DEV_ACCOUNT_KEY};tenant1:a2V5:a2V5Mg==`);
  });

  it('generates 64-byte keys, each new, and names their secrets', () => {
    const a = generateAccountKey();
    assert.equal(Buffer.from(a, 'base64').length, 64);
    assert.notEqual(a, generateAccountKey());
    assert.equal(accountKeySecret('tenant1'), 'azurite.accountKey.tenant1');
  });

  it('reads an AZURITE_ACCOUNTS value in Azurite\'s format, leaving out devstoreaccount1', () => {
    assert.deepEqual(parseAccountsVariable('envone:a2V5MQ==;envtwo:a2V5Mg==:c2Vjb25k;'), { accounts: [{ name: 'envone', key: 'a2V5MQ==' }, { name: 'envtwo', key: 'a2V5Mg==', secondaryKey: 'c2Vjb25k' }] });
    // devstoreaccount1 keeps its well-known key; one given another is said (for the log).
    assert.deepEqual(parseAccountsVariable(' devstoreaccount1:b3RoZXI=;envone:a2V5MQ== '), { accounts: [{ name: 'envone', key: 'a2V5MQ==' }], devKeyIgnored: true });
    assert.deepEqual(parseAccountsVariable(`devstoreaccount1:${DEV_ACCOUNT_KEY};envone:a2V5MQ==`), { accounts: [{ name: 'envone', key: 'a2V5MQ==' }] });
    assert.deepEqual(parseAccountsVariable(''), { accounts: [] });
    // A name given twice: the last keys win, in the first one's place (Azurite keeps the last too).
    assert.deepEqual(parseAccountsVariable('acc:T0xE;other:a2V5;acc:TkVX:c2Vj'), { accounts: [{ name: 'acc', key: 'TkVX', secondaryKey: 'c2Vj' }, { name: 'other', key: 'a2V5' }] });
    assert.deepEqual(parseAccountsVariable('envone:a2V5:'), { accounts: [{ name: 'envone', key: 'a2V5' }] }, 'an empty second key is none, as in Azurite');
    for (const bad of ['envone', 'envone:a:b:c', ':key', 'envone:']) {
      const parsed = parseAccountsVariable(bad);
      assert.ok('error' in parsed && parsed.error.startsWith('AZURITE_ACCOUNTS is not name:key1[:key2];'), bad);
    }
    // An entry without a colon may be a key pasted alone: the error names its place, not its text.
    const secret = parseAccountsVariable('envone:a2V5MQ==;c2VjcmV0S2V5');
    assert.deepEqual(secret, { error: 'AZURITE_ACCOUNTS is not name:key1[:key2];name2:key1;… (its entry 2 of 2 is not).' });
  });
});
