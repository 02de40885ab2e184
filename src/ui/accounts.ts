/**
 * `azurite.accounts`: extra storage accounts for the local engine. Each name's key is generated
 * the first time it is used (or taken from an `AZURITE_ACCOUNTS` variable that names the account)
 * and kept in VS Code's SecretStorage (`azurite.accountKey.<name>`, shared by every window on this
 * machine), never in settings.json. A key that goes missing there while served is stored again. The engine gets the accounts as
 * Azurite's `AZURITE_ACCOUNTS` in the engine's process only (Emulator.setAccounts); running services take a
 * change at once. A name removed from the setting keeps its key, so adding it back gives the same
 * connection string. Without the setting, an `AZURITE_ACCOUNTS` variable in VS Code's environment
 * gives the extra accounts, as it does for Azurite.
 */
import * as vscode from 'vscode';
import { ACCOUNT_KEY_SECRET_PREFIX, ACCOUNTS_SETTING, ACCOUNTS_VARIABLE, accountKeySecret, generateAccountKey, parseAccountNames, parseAccountsVariable } from '../core/accounts';
import type { StorageAccount } from '../core/connectionString';
import { OPEN_SETTINGS } from '../core/commandIds';
import type { Emulator } from '../emulator/emulator';
import { notify } from './notify';

/** See the file comment. */
export class Accounts implements vscode.Disposable {
  private extra: StorageAccount[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the accounts (or a key) changed and the engine has them. */
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Resolves when the accounts of the current setting are in the engine. */
  ready: Promise<void>;
  /**
   * Resolves when the accounts of the current setting are known, keys read from Secret Storage
   * (`Emulator.accounts()` gives them), before the engine has them: what Copy Connection String
   * waits for. Never rejects.
   */
  known: Promise<void>;
  /** Where the extra accounts come from, as a user names it: the setting, or the environment variable without it. */
  private extraSource: string = ACCOUNTS_SETTING;

  /** Where the accounts besides devstoreaccount1 come from: `azurite.accounts`, or `the AZURITE_ACCOUNTS environment variable` (read with them, once {@link known}). */
  get source(): string {
    return this.extraSource;
  }

  constructor(private readonly secrets: vscode.SecretStorage, private readonly emulator: Emulator, private readonly log: { info(line: string): void; error(line: string): void }) {
    const { promise, resolve } = settleable();
    this.known = promise;
    this.ready = this.apply(resolve);
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(ACCOUNTS_SETTING)) this.applyAgain();
      }),
      // Another window may have made a key first: use what is stored. Matched against the setting,
      // not the accounts the engine has: a key stored while this window's first apply makes its own
      // comes before this window has the account.
      secrets.onDidChange((e) => {
        if (!e.key.startsWith(ACCOUNT_KEY_SECRET_PREFIX)) return;
        const parsed = parseAccountNames(vscode.workspace.getConfiguration().get(ACCOUNTS_SETTING));
        if (!('error' in parsed) && parsed.names.some((name) => accountKeySecret(name) === e.key)) this.applyAgain();
      }),
    );
  }

  /**
   * Applies the setting again once the apply under way has finished: one at a time, each reading the
   * setting when it begins, so the last change wins (an earlier apply that waits for Secret Storage
   * to make a key cannot give the engine its accounts after a later one).
   */
  private applyAgain(): void {
    const { promise, resolve } = settleable();
    this.known = promise;
    // Also after an apply that failed, which never happens today (it catches what it meets): a
    // rejected link must not skip every later one and leave their `known` unsettled.
    this.ready = this.ready.then(() => this.apply(resolve), () => this.apply(resolve));
  }

  /**
   * Never rejects: what goes wrong is logged and shown, and devstoreaccount1 is served.
   * @param known called once the accounts are known (given to the emulator), or the apply failed
   */
  private async apply(known: () => void): Promise<void> {
    try {
      await this.applyNow(known);
    } finally {
      known();
    }
  }

  /** Whether the log has said that `[]` leaves the variable's accounts out (said once, until they are served again). */
  private saidVariableUnused = false;

  private async applyNow(known: () => void): Promise<void> {
    const configuration = vscode.workspace.getConfiguration();
    const parsed = parseAccountNames(configuration.get(ACCOUNTS_SETTING));
    // Set at all, even to [] (devstoreaccount1 alone): then an AZURITE_ACCOUNTS variable is not used.
    const inspected = configuration.inspect(ACCOUNTS_SETTING);
    const isSet = [inspected?.globalValue, inspected?.workspaceValue, inspected?.workspaceFolderValue].some((v) => v !== undefined);
    let extra: StorageAccount[] = [];
    let fromEnvironment = false;
    if ('error' in parsed) {
      this.log.error(`${parsed.error} Only devstoreaccount1 is served until it is fixed.`);
      void notify('error', `Azurite: ${parsed.error}`, 'Open Settings').then((c) => {
        if (c !== undefined) void vscode.commands.executeCommand(OPEN_SETTINGS, ACCOUNTS_SETTING);
      });
    } else if (parsed.names.length > 0) {
      // Each name on its own: one key Secret Storage refuses to store does not take the others
      // (served, perhaps with clients using them) out of the engine.
      const results = await Promise.allSettled(parsed.names.map(async (name) => ({ name, key: await this.keyOf(name) })));
      extra = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const failed = parsed.names.filter((_, i) => results[i]!.status === 'rejected');
      if (failed.length > 0) {
        const reason = (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as Error;
        const message = `The key${failed.length === 1 ? '' : 's'} of ${failed.join(', ')} (${ACCOUNTS_SETTING}) could not be read from or stored in VS Code's Secret Storage: ${reason.message}. ${failed.length === 1 ? 'It is' : 'They are'} not served${extra.length > 0 ? ` (${extra.map((a) => a.name).join(', ')} ${extra.length === 1 ? 'is' : 'are'})` : ''}; change the setting or reload the window to try again.`;
        this.log.error(message);
        void notify('error', `Azurite: ${message}`);
      }
    } else if (!isSet) {
      extra = this.fromEnvironment();
      fromEnvironment = extra.length > 0;
    } else if ((process.env[ACCOUNTS_VARIABLE] ?? '').trim() !== '' && !this.saidVariableUnused) {
      this.saidVariableUnused = true;
      this.log.info(`${ACCOUNTS_SETTING} is set to []: only devstoreaccount1 is served, not the accounts of the ${ACCOUNTS_VARIABLE} environment variable (remove the setting to serve them).`);
    }
    if (fromEnvironment) this.saidVariableUnused = false;
    const before = JSON.stringify(this.extra);
    this.extra = extra;
    this.extraSource = fromEnvironment ? `the ${ACCOUNTS_VARIABLE} environment variable` : ACCOUNTS_SETTING;
    // The emulator knows them as soon as it is told (Emulator.accounts()); the engine once this resolves.
    const given = this.emulator.setAccounts(extra);
    known();
    try {
      await given;
    } catch (err) {
      this.log.error(`The accounts could not be given to the engine (the next start will): ${(err as Error).message}`);
    }
    if (JSON.stringify(extra) !== before) {
      const names = extra.map((a) => a.name).join(', ');
      if (fromEnvironment) this.log.info(`Accounts: devstoreaccount1, ${names} (from the ${ACCOUNTS_VARIABLE} environment variable; ${ACCOUNTS_SETTING}, when set, replaces them, and [] serves devstoreaccount1 alone).`);
      else if (extra.length > 0) this.log.info(`Accounts: devstoreaccount1, ${names} (keys in Secret Storage; Azurite: Copy Connection String gives each).`);
      this.changed.fire();
    }
  }

  /**
   * Without `azurite.accounts` (not set in any scope; `[]` set on purpose means devstoreaccount1
   * alone): the accounts of an `AZURITE_ACCOUNTS` variable in VS Code's own
   * environment (set in the shell that started it), which Azurite and the Azurite extension read.
   */
  private fromEnvironment(): StorageAccount[] {
    const value = process.env[ACCOUNTS_VARIABLE];
    if (value === undefined || value.trim() === '') return [];
    const parsed = parseAccountsVariable(value);
    if ('error' in parsed) {
      this.variableProblem(`${parsed.error} Only devstoreaccount1 is served; ${ACCOUNTS_SETTING} is the way to add accounts here.`);
      return [];
    }
    if (parsed.devKeyIgnored === true) {
      this.variableProblem(`${ACCOUNTS_VARIABLE} gives devstoreaccount1 a key of its own, which is not used: this extension serves devstoreaccount1 with its well-known key (what UseDevelopmentStorage=true and the tools expect), so a request signed with that other key gets 403. Give the key to an account of another name, or leave devstoreaccount1 out of ${ACCOUNTS_VARIABLE}.`);
    }
    return parsed.accounts;
  }

  /** The last problem of the AZURITE_ACCOUNTS variable shown: each is shown once per window, and logged each time it is read. */
  private shownVariableProblem: string | undefined;

  /**
   * Logs a problem of the `AZURITE_ACCOUNTS` variable and, the first time, shows it as a warning:
   * an account a user expects is missing, or their requests get 403, and the log alone is not seen.
   */
  private variableProblem(message: string): void {
    this.log.error(message);
    if (this.shownVariableProblem === message) return;
    this.shownVariableProblem = message;
    void notify('warning', `Azurite: ${message}`);
  }

  /**
   * The stored key of `name`; without one, the key to store: the one this window serves the
   * account with (an entry deleted, or one VS Code could not decrypt and so removed: clients keep
   * working), else the one an `AZURITE_ACCOUNTS` variable in VS Code's environment gives it (the
   * connection strings of a user coming from Azurite keep working), else a new one. Stored keys
   * other than the first are logged (not their value). A held key that cannot be stored again is
   * still returned (logged): the account stays served.
   * @throws Error when Secret Storage refuses to read, or to store a key not held
   */
  private async keyOf(name: string): Promise<string> {
    const secret = accountKeySecret(name);
    const stored = await this.secrets.get(secret);
    if (stored !== undefined && stored !== '') return stored;
    const held = this.extra.find((a) => a.name === name)?.key;
    const variable = held === undefined ? this.variableKeyOf(name) : undefined;
    const key = held ?? variable ?? generateAccountKey();
    try {
      await this.secrets.store(secret, key);
    } catch (err) {
      // Served with that key already (clients use it): it stays served, only not kept.
      if (held === undefined) throw err;
      this.log.error(`Account ${name}: its key is missing from Secret Storage and could not be stored again (${(err as Error).message}); it is served with the key it had until this window closes.`);
      return held;
    }
    this.log.info(held !== undefined ? `Account ${name}: its key was missing from Secret Storage (deleted, or unreadable there); stored again the key it is served with.`
      : variable !== undefined ? `Account ${name}: the key ${ACCOUNTS_VARIABLE} gives it is kept in Secret Storage.`
        : `Account ${name}: a new key was made and kept in Secret Storage.`);
    // Read back: when two windows raced, both use the key stored last (onDidChange re-applies).
    const now = await this.secrets.get(secret);
    return now !== undefined && now !== '' ? now : key;
  }

  /** The key an `AZURITE_ACCOUNTS` variable in VS Code's environment gives `name`, if any. */
  private variableKeyOf(name: string): string | undefined {
    const value = process.env[ACCOUNTS_VARIABLE];
    if (value === undefined || value.trim() === '') return undefined;
    const parsed = parseAccountsVariable(value);
    return 'error' in parsed ? undefined : parsed.accounts.find((a) => a.name === name)?.key;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
  }
}

/** A promise and the function that resolves it. */
function settleable(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}
