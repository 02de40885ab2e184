/**
 * The PFX password in VS Code's Secret Storage instead of settings.json: `Azurite: Set Certificate
 * Password` stores it for the certificate file `azurite.cert` names (`context.secrets`, encrypted
 * by the OS keychain; one entry per file, so projects with PFX files of different passwords keep
 * each their own), the settings read it where `azurite.pwd` is unset, and an `azurite.pwd` found in
 * settings.json is offered, once, a move there. The password is never logged, shown or put in a
 * message.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { azuriteConfig } from '../config';
import { failure } from '../core/outcome';
import { notify, showOutcome, type NotifyDeps } from './notify';

/**
 * The Secret Storage key of the PFX password that earlier versions kept for every workspace. Still
 * read: it stands in for a certificate file that has no password of its own.
 */
export const PASSWORD_SECRET_KEY = 'azurite.pwd';
/**
 * The Secret Storage key of the password of the certificate file at the absolute path `cert`. On
 * Windows the drive letter is lower-cased: VS Code gives folder paths with a lower-case one, a user
 * may type `C:\`, and both name one file.
 */
export function passwordSecretKey(cert: string, platform: NodeJS.Platform = process.platform): string {
  const file = platform === 'win32' ? cert.replace(/^[A-Za-z]:/, (drive) => drive.toLowerCase()) : cert;
  return `${PASSWORD_SECRET_KEY}:${file}`;
}
/**
 * What a certificate file's entry holds once its password was removed while the shared one of
 * earlier versions exists: "none here", so that one no longer stands in. Not an empty string,
 * which some Secret Storage providers read back as nothing.
 */
export const REMOVED_MARK = '\u0000removed';
/** globalState key: the move of `azurite.pwd` to Secret Storage was offered (offered once). */
export const MOVE_OFFERED_KEY = 'azurite.pwdMoveOffered';
/** The action on the one-time notice. */
export const MOVE_TO_SECRET_STORAGE = 'Move to Secret Storage';

/**
 * The stored passwords, kept in memory so settings can be read synchronously: the one of each
 * certificate file read so far, and the one earlier versions kept for every workspace (which a
 * moved user-level `azurite.pwd` also becomes). A file's entry holding {@link REMOVED_MARK} stands
 * for "none", not for the shared one.
 */
export class CertificatePassword implements vscode.Disposable {
  /** Per certificate file read so far, by its Secret Storage key: what the entry holds, undefined when none is stored. */
  private readonly own = new Map<string, string | undefined>();
  /** The password earlier versions kept for every workspace ({@link PASSWORD_SECRET_KEY}). */
  private shared: string | undefined;
  private readonly subscription: vscode.Disposable;
  /** Resolves once the shared password and that of the certificate configured at construction are read (starts wait for it). */
  readonly ready: Promise<void>;

  /**
   * @param changed called after a stored password read so far changes, in this window or another
   *   (re-read the settings, restart what needs it)
   * @param configured the absolute path `azurite.cert` names now, or undefined (config.ts configuredCertificate)
   */
  constructor(private readonly secrets: vscode.SecretStorage, changed: () => void, private readonly configured: () => string | undefined) {
    this.ready = Promise.all([this.readShared(), this.load()]).then(() => undefined);
    this.subscription = secrets.onDidChange((e) => {
      if (e.key === PASSWORD_SECRET_KEY) void this.readShared().then(changed);
      else if (this.own.has(e.key)) void this.readKey(e.key).then(changed);
    });
  }

  /** The password for the certificate file at `cert` (absolute): its own, else the shared one; undefined when neither is stored (or before it is read). */
  passwordFor(cert: string): string | undefined {
    const own = this.own.get(passwordSecretKey(cert));
    return own === REMOVED_MARK ? undefined : own ?? this.shared;
  }

  /** The password stored for the file at `cert` itself (not the shared one), if any. */
  storedFor(cert: string): string | undefined {
    const own = this.own.get(passwordSecretKey(cert));
    return own === REMOVED_MARK ? undefined : own;
  }

  /** What the entry of the file at `cert` holds as read (a password, {@link REMOVED_MARK}, or undefined for none). */
  entryFor(cert: string): string | undefined {
    return this.own.get(passwordSecretKey(cert));
  }

  /** The password kept for every file without its own (earlier versions', or a moved user-level azurite.pwd), if any; kept up to date. */
  get sharedPassword(): string | undefined {
    return this.shared;
  }

  /** The absolute path `azurite.cert` names now, or undefined. */
  certificate(): string | undefined {
    return this.configured();
  }

  /** True when the configured certificate's password has been read (or none is configured): settings read now see it. */
  loaded(): boolean {
    const cert = this.configured();
    return cert === undefined || this.own.has(passwordSecretKey(cert));
  }

  /** Reads the configured certificate's password, unless read already; never rejects. */
  async load(): Promise<void> {
    const cert = this.configured();
    if (cert !== undefined && !this.own.has(passwordSecretKey(cert))) await this.readKey(passwordSecretKey(cert));
  }

  /**
   * Stores `password` for the certificate file at `cert` (absolute); an empty one removes it (where
   * the shared password of earlier versions exists, the entry then holds {@link REMOVED_MARK}, so
   * that one no longer stands in). Resolves when stored and read back; the change event that
   * follows re-reads the settings.
   * @throws Error when Secret Storage refuses (no keychain)
   */
  async store(cert: string, password: string): Promise<void> {
    await this.ready;
    const key = passwordSecretKey(cert);
    // Known before the write, so that its change event (in this window too) re-reads the settings.
    if (!this.own.has(key)) await this.readKey(key);
    if (password !== '') await this.secrets.store(key, password);
    else if (this.shared !== undefined) await this.secrets.store(key, REMOVED_MARK);
    else await this.secrets.delete(key);
    await this.readKey(key);
  }

  /**
   * Stores `password` as the one for every certificate file without its own (what a user-level
   * `azurite.pwd` was). Resolves when stored and read back.
   * @throws Error when Secret Storage refuses (no keychain)
   */
  async storeShared(password: string): Promise<void> {
    await this.ready;
    await this.secrets.store(PASSWORD_SECRET_KEY, password);
    await this.readShared();
  }

  /**
   * Removes the password kept for every certificate file without its own (earlier versions', or a
   * moved user-level `azurite.pwd`) and that of the file at `cert` (absolute). Other files keep
   * theirs. Resolves when removed and read back; the change events that follow re-read the settings.
   * @throws Error when Secret Storage refuses (no keychain)
   */
  async removeEveryFile(cert: string): Promise<void> {
    await this.ready;
    const key = passwordSecretKey(cert);
    if (!this.own.has(key)) await this.readKey(key);
    await this.secrets.delete(PASSWORD_SECRET_KEY);
    await this.readShared();
    // No removal mark needed once the shared one is gone.
    await this.secrets.delete(key);
    await this.readKey(key);
  }

  dispose(): void {
    this.subscription.dispose();
  }

  private async readKey(key: string): Promise<void> {
    this.own.set(key, await this.read(key));
  }

  private async readShared(): Promise<void> {
    this.shared = await this.read(PASSWORD_SECRET_KEY);
  }

  private async read(key: string): Promise<string | undefined> {
    try {
      return await this.secrets.get(key);
    } catch {
      // No keychain (a headless Linux without one): nothing stored, azurite.pwd still works.
      return undefined;
    }
  }
}

/**
 * `azurite.setCertificatePassword`: asks for the password of the certificate file `azurite.cert`
 * names (masked) and stores it for that file. A string argument is stored without asking (scripts,
 * tests). Empty input removes the stored password; where the password kept for every file without
 * its own exists, a modal question asks whether to remove that one too (with a string argument,
 * `options` `{ everyFile: true }` says so; otherwise this file's only).
 * @param certificate the absolute path `azurite.cert` names now (config.ts configuredCertificate),
 *   or undefined: then nothing is asked, and an error notification says to set azurite.cert first,
 *   with Open Settings
 * @returns true when something was stored or removed, false when the box was dismissed, no
 *   certificate is set, or Secret Storage refused (an error notification says so)
 */
export async function setCertificatePassword(password: CertificatePassword, given: unknown, certificate: string | undefined, options?: unknown): Promise<boolean> {
  if (certificate === undefined) {
    showOutcome(failure('setting', 'Azurite: set azurite.cert to your PFX file first (it is unset, or a relative path with no folder open); the certificate password is kept for that file.', { setting: 'azurite.cert' }));
    return false;
  }
  const file = path.basename(certificate);
  const value = typeof given === 'string' ? given : await vscode.window.showInputBox({
    title: `Azurite: Set Certificate Password (${file})`,
    prompt: `The password of ${certificate} (azurite.cert). It is kept in VS Code's Secret Storage for that file, not in settings.json; leave empty to remove it.`,
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) return false;
  // Removing, while the password an earlier version kept for every file exists: for this file only
  // (it stops serving here), or that one too. A script says which in the second argument.
  let everyFile = false;
  if (value === '' && password.sharedPassword !== undefined) {
    if (typeof given === 'string') everyFile = isEveryFile(options);
    else {
      const choice = await vscode.window.showWarningMessage(
        `Azurite: remove the password of ${file} only, or also the one kept for every certificate file that has no password of its own (stored by an earlier version or moved from a user-level azurite.pwd; other workspaces may use it)?`,
        { modal: true }, THIS_FILE_ONLY, EVERY_FILE);
      if (choice === undefined) return false;
      everyFile = choice === EVERY_FILE;
    }
  }
  try {
    // For the file the box named, even if azurite.cert changed while it was open.
    if (everyFile) await password.removeEveryFile(certificate);
    else await password.store(certificate, value);
  } catch (err) {
    // No keychain (a headless Linux, a remote without one): say so rather than "command failed".
    void notify('error', `Azurite: the certificate password could not be ${value === '' ? 'removed from' : 'stored in'} VS Code's Secret Storage (${(err as Error).message}). Set azurite.pwd in your settings instead.`);
    return false;
  }
  void notify('info', value === ''
    ? `Azurite: the password of ${file}${everyFile ? ' and the one for every file without its own were' : ' was'} removed from Secret Storage.`
    : `Azurite: the password of ${file} is in Secret Storage${azuriteConfig().get('pwd') ? '; azurite.pwd in your settings still wins while it is set' : ''}.`);
  return true;
}

/** The removal question's answers ({@link setCertificatePassword}). */
export const THIS_FILE_ONLY = 'This File Only';
export const EVERY_FILE = 'Every File';

/** True for the command's second argument `{ everyFile: true }`. */
function isEveryFile(options: unknown): boolean {
  return typeof options === 'object' && options !== null && (options as { everyFile?: unknown }).everyFile === true;
}

/** What {@link setCertificatePasswordAndRestart} works with. */
export interface PasswordCommandDeps {
  readonly password: CertificatePassword;
  /**
   * Asks which workspace folder a relative `azurite.cert` resolves against in a multi-root
   * workspace, as a start asks it, and applies the answer; resolves true when there is nothing to
   * ask or it was answered, false when dismissed.
   */
  readonly chooseFolder: () => Promise<boolean>;
  /** The emulator whose services failed for the stored password, and how to start them again (notify.ts). */
  readonly notifyDeps: NotifyDeps;
}

/**
 * The `azurite.setCertificatePassword` command: asks the folder question a relative `azurite.cert`
 * needs, stores the password ({@link setCertificatePassword}), and then starts again the services
 * whose last start failed for the password stored before (Emulator.failedForCertificatePassword;
 * their error notification's Set Certificate Password runs this). Not if `azurite.cert` changed
 * while the password box was open (the failure was another file's) or the password was removed.
 * A start that fails again is said as any start failure is.
 * @param given the command's first argument: a string is stored without asking (scripts, tests)
 * @param options the second: `{ everyFile: true }` with `''` removes the shared password too
 * @returns as {@link setCertificatePassword}; false too when the folder question was dismissed
 */
export async function setCertificatePasswordAndRestart(given: unknown, options: unknown, deps: PasswordCommandDeps): Promise<boolean> {
  if (!(await deps.chooseFolder())) return false;
  const { password, notifyDeps } = deps;
  const emulator = notifyDeps.emulator;
  const failed = emulator.failedForCertificatePassword();
  const cert = password.certificate();
  const stored = await setCertificatePassword(password, given, cert, options);
  if (stored && cert !== undefined && password.certificate() === cert && password.storedFor(cert) !== undefined && failed.length > 0 && await notifyDeps.prepareStart()) {
    const outcomes = await Promise.all(failed.filter((k) => emulator.status(k).status === 'closed').map((k) => emulator.start(k)));
    for (const outcome of outcomes) showOutcome(outcome, notifyDeps);
  }
  return stored;
}

/**
 * `azurite.pwd` as the password it stands for: a string as written, a number as its digits (as
 * src/core/settings.ts reads it); undefined when unset, empty or of another type.
 */
function passwordText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Moves `azurite.pwd` from settings.json into Secret Storage and removes the setting where it was
 * moved from: a workspace value becomes the password of the certificate file `azurite.cert` names,
 * a user value the one for every file without its own (in another workspace whose file has its
 * own entry, that entry then serves instead). Nothing is moved (and a warning says why) when a
 * workspace value has no `azurite.cert` to be kept for, when this file's entry holds another
 * password or a removal, or when the shared entry holds another password: each would change the
 * password in use here. A setting that cannot be written is said in an
 * error notification.
 * @returns true when the password was moved
 */
export async function movePasswordToSecretStorage(password: CertificatePassword): Promise<boolean> {
  await password.ready;
  await password.load();
  const config = azuriteConfig();
  if (passwordText(config.get<unknown>('pwd')) === undefined) return false;
  // Read without a resource, as every azurite.* setting is here: no workspace folder value.
  const where = config.inspect<unknown>('pwd');
  const workspaceValue = passwordText(where?.workspaceValue);
  const userValue = passwordText(where?.globalValue);
  if (workspaceValue === undefined && userValue === undefined) return false; // set only where it cannot be moved from (a folder's settings)
  const cert = password.certificate();
  if (workspaceValue !== undefined && cert === undefined) {
    void notify('warning', 'azurite.pwd was not moved to Secret Storage: azurite.cert is not set, and Secret Storage keeps a workspace\'s password for the certificate file it names. Set azurite.cert first.');
    return false;
  }
  // What serves azurite.cert here once the setting is gone: its own entry, if any (a removal too),
  // must be the value in force now.
  const entry = cert === undefined ? undefined : password.entryFor(cert);
  if (entry !== undefined && entry !== (workspaceValue ?? userValue)) {
    void notify('warning', 'azurite.pwd was not moved to Secret Storage: it already holds another password for azurite.cert (used where azurite.pwd is not set). Use "Azurite: Set Certificate Password" to replace it, then remove azurite.pwd.');
    return false;
  }
  const shared = password.sharedPassword;
  if (userValue !== undefined && shared !== undefined && shared !== userValue) {
    void notify('warning', 'azurite.pwd was not moved to Secret Storage: your user settings\' password would become the one for every certificate file without its own, and Secret Storage already holds another one there (stored by an earlier version). Keep azurite.pwd, or use "Azurite: Set Certificate Password" for each file.');
    return false;
  }
  try {
    // Both stored before either setting goes, and the user value removed first: the workspace value
    // stays in force until both are in Secret Storage (no restart on the wrong password meanwhile).
    if (workspaceValue !== undefined) await password.store(cert!, workspaceValue);
    if (userValue !== undefined) await password.storeShared(userValue);
    if (userValue !== undefined) await config.update('pwd', undefined, vscode.ConfigurationTarget.Global);
    if (workspaceValue !== undefined) await config.update('pwd', undefined, vscode.ConfigurationTarget.Workspace);
  } catch (err) {
    void notify('error', `azurite.pwd could not be moved to Secret Storage: ${(err as Error).message}`);
    return false;
  }
  return true;
}

/**
 * Once per user (remembered in globalState, whatever the answer): when `azurite.pwd` is set in
 * settings.json, offers to move it to Secret Storage.
 * @returns the notice's outcome: 'moved', 'declined', or 'none' when not offered
 */
export async function offerPasswordMove(password: CertificatePassword, state: vscode.Memento): Promise<'moved' | 'declined' | 'none'> {
  // Without azurite.cert there is no file to keep the password for: offered once one is set.
  if (passwordText(azuriteConfig().get<unknown>('pwd')) === undefined || password.certificate() === undefined || state.get<boolean>(MOVE_OFFERED_KEY) === true) return 'none';
  await state.update(MOVE_OFFERED_KEY, true);
  // Workspace settings may be shared (a .vscode/settings.json in source control): removing the
  // password there takes it from everyone who uses that file, so the notice says where it goes from.
  const where = azuriteConfig().inspect<unknown>('pwd');
  const places = [
    ...(where?.globalValue !== undefined ? ['your user settings (it then serves every certificate file that has no password of its own)'] : []),
    ...(where?.workspaceValue !== undefined ? ['this workspace\'s settings (anyone who shares that file then sets the password with "Azurite: Set Certificate Password" too)'] : []),
  ];
  const choice = await notify('info',
    `azurite.pwd keeps your certificate password in settings.json in plain text. Move it to VS Code's Secret Storage? HTTPS keeps working; the setting is removed from ${places.join(' and ') || 'settings.json'}.`,
    MOVE_TO_SECRET_STORAGE);
  if (choice !== MOVE_TO_SECRET_STORAGE) return 'declined';
  return (await movePasswordToSecretStorage(password)) ? 'moved' : 'none';
}

/** Offers the move now (after the stored password is read) and whenever `azurite.pwd` or `azurite.cert` is set later. */
export function watchPasswordSetting(password: CertificatePassword, state: vscode.Memento): vscode.Disposable {
  const offer = (): void => void password.ready.then(() => offerPasswordMove(password, state));
  offer();
  return vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('azurite.pwd') || e.affectsConfiguration('azurite.cert')) offer(); });
}
