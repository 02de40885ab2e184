/**
 * Custom storage accounts (`azurite.accounts`): which names are valid, where their keys are kept,
 * and the `AZURITE_ACCOUNTS` value that hands them to the engine. Pure; no vscode.
 *
 * Azurite reads `AZURITE_ACCOUNTS` (`name:key1[:key2];name2:key1;…`, keys base64) from its process's
 * environment when each server starts and again every 60 s (common/AccountDataStore.js
 * `refresh()`), and a value replaces the development account rather than adding to it, so the value
 * we build always starts with `devstoreaccount1` and its well-known key.
 */
import { randomBytes } from 'node:crypto';
import { DEV_ACCOUNT, DEV_ACCOUNT_NAME, type StorageAccount } from './connectionString';

/** The setting that lists extra account names. */
export const ACCOUNTS_SETTING = 'azurite.accounts';
/** Where an account's key is kept in VS Code's SecretStorage: this prefix and the name. */
export const ACCOUNT_KEY_SECRET_PREFIX = 'azurite.accountKey.';
/** An account name, as Azure allows: 3–24 lowercase letters and digits. */
const ACCOUNT_NAME = /^[a-z0-9]{3,24}$/;

/**
 * Checks `azurite.accounts`.
 * @param value the setting's value (unset: no extra accounts)
 * @returns the names in order, or the error to show (naming the setting and the bad entry)
 */
export function parseAccountNames(value: unknown): { names: string[] } | { error: string } {
  if (value === undefined || value === null) return { names: [] };
  if (!Array.isArray(value)) return { error: `${ACCOUNTS_SETTING} must be a list of account names, like ["tenant1", "tenant2"].` };
  const names: string[] = [];
  for (const entry of value) {
    if (typeof entry === 'string' && entry.includes(':')) {
      // AZURITE_ACCOUNTS's `name:key` form: named by its place, not echoed (the key would show in a notification and the log).
      return { error: `${ACCOUNTS_SETTING}: entry ${names.length + 1} holds a ":" (the name:key form of AZURITE_ACCOUNTS?); list account names only: their keys are made for you and kept in Secret Storage.` };
    }
    if (typeof entry !== 'string' || !ACCOUNT_NAME.test(entry)) {
      return { error: `${ACCOUNTS_SETTING}: ${JSON.stringify(entry)} is not a storage account name (3 to 24 lowercase letters and digits).` };
    }
    if (entry === DEV_ACCOUNT_NAME) return { error: `${ACCOUNTS_SETTING}: ${DEV_ACCOUNT_NAME} is always there; list only extra accounts.` };
    if (names.includes(entry)) return { error: `${ACCOUNTS_SETTING}: ${entry} is listed twice.` };
    names.push(entry);
  }
  return { names };
}

/** A new account key: 64 random bytes, base64 (the length of Azure's and Azurite's keys). */
export function generateAccountKey(): string {
  return randomBytes(64).toString('base64');
}

/** The SecretStorage key of an account's key. */
export function accountKeySecret(name: string): string {
  return `${ACCOUNT_KEY_SECRET_PREFIX}${name}`;
}

/**
 * The `AZURITE_ACCOUNTS` value for the development account and `extra`
 * (`devstoreaccount1:<key>;tenant1:<key>[:<key2>]`), or undefined without extra accounts (Azurite's default).
 */
export function azuriteAccountsValue(extra: readonly StorageAccount[]): string | undefined {
  if (extra.length === 0) return undefined;
  return [DEV_ACCOUNT, ...extra].map((a) => [a.name, a.key, ...(a.secondaryKey !== undefined ? [a.secondaryKey] : [])].join(':')).join(';');
}

/** The environment variable Azurite reads its accounts from. */
export const ACCOUNTS_VARIABLE = 'AZURITE_ACCOUNTS';

/**
 * Reads an `AZURITE_ACCOUNTS` value the user set in VS Code's environment, in Azurite's format
 * (`name:key1[:key2];name2:key1;…`, common/AccountDataStore.js `parserAccountsEnvironmentString`).
 * `devstoreaccount1` is left out: ours is always there with its well-known key (Azurite would take
 * the key given; `devKeyIgnored` then says so, for the log). An account's second key is kept: the
 * engine accepts requests signed with either, as Azurite does.
 * @returns the extra accounts, and `devKeyIgnored` when the value gives `devstoreaccount1` a key
 *   other than the well-known one; or the error to show (as Azurite, which then serves
 *   `devstoreaccount1` alone); the error names a bad entry by its place, never by its text, which
 *   may hold a key
 */
export function parseAccountsVariable(value: string): { accounts: StorageAccount[]; devKeyIgnored?: true } | { error: string } {
  let devKeyIgnored = false;
  const accounts: StorageAccount[] = [];
  const entries = value.trim().split(';');
  for (const [i, entry] of entries.entries()) {
    if (entry === '') continue;
    const parts = entry.split(':');
    if (parts.length < 2 || parts.length > 3 || parts[0] === '' || parts[1] === '') {
      return { error: `${ACCOUNTS_VARIABLE} is not name:key1[:key2];name2:key1;… (its entry ${i + 1} of ${entries.length} is not).` };
    }
    // An empty second key (`name:key1:`) is none, as Azurite reads it.
    const [name, key, secondaryKey] = parts as [string, string, string | undefined];
    if (name === DEV_ACCOUNT_NAME) {
      if (key !== DEV_ACCOUNT.key) devKeyIgnored = true;
      continue;
    }
    // A name given twice takes its last keys, as Azurite's parser (an object keyed by name) does.
    const account = { name, key, ...(secondaryKey !== undefined && secondaryKey !== '' ? { secondaryKey } : {}) };
    const before = accounts.findIndex((a) => a.name === name);
    if (before >= 0) accounts[before] = account;
    else accounts.push(account);
  }
  return devKeyIgnored ? { accounts, devKeyIgnored } : { accounts };
}
