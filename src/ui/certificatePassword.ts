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
import { notify, showOutcome } from './notify';

/**
 * The Secret Storage key of the PFX password that earlier versions kept for every workspace. Still
 * read: it stands in for a certificate file that has no password of its own.
 */
export const PASSWORD_SECRET_KEY = 'azurite.pwd';
/** The Secret Storage key of the password of the certificate file at the absolute path `cert`. */
export function passwordSecretKey(cert: string): string {
  return `${PASSWORD_SECRET_KEY}:${cert}`;
}
/** globalState key: the move of `azurite.pwd` to Secret Storage was offered (offered once). */
export const MOVE_OFFERED_KEY = 'azurite.pwdMoveOffered';
/** The action on the one-time notice. */
export const MOVE_TO_SECRET_STORAGE = 'Move to Secret Storage';

/**
 * The stored passwords, kept in memory so settings can be read synchronously: the one of each
 * certificate file read so far, and the one earlier versions kept for every workspace. A stored
 * empty string is a password removed for that file while the shared one exists: it then stands
 * for "none", not for the shared one.
 */
export class CertificatePassword implements vscode.Disposable {
  /** Per certificate file (absolute path) read so far: its own password, undefined when none is stored. */
  private readonly own = new Map<string, string | undefined>();
  /** The password earlier versions kept for every workspace ({@link PASSWORD_SECRET_KEY}). */
  private shared: string | undefined;
  private readonly subscription: vscode.Disposable;
  /** Resolves once the shared password and that of the certificate configured at construction are read (starts wait for it). */
  readonly ready: Promise<void>;

  /**
   * @param changed called after a stored password read so far changes (re-read the settings, restart what needs it)
   * @param configured the absolute path `azurite.cert` names now, or undefined (config.ts configuredCertificate)
   */
  constructor(private readonly secrets: vscode.SecretStorage, changed: () => void, private readonly configured: () => string | undefined) {
    this.ready = Promise.all([this.readShared(), this.load()]).then(() => undefined);
    this.subscription = secrets.onDidChange((e) => {
      if (e.key === PASSWORD_SECRET_KEY) {
        void this.readShared().then(changed);
        return;
      }
      const cert = [...this.own.keys()].find((c) => passwordSecretKey(c) === e.key);
      if (cert !== undefined) void this.readOwn(cert).then(changed);
    });
  }

  /** The password stored for the certificate file at `cert` (absolute), else the shared one; undefined when neither is (or before it is read). */
  passwordFor(cert: string): string | undefined {
    return this.own.get(cert) ?? this.shared;
  }

  /** The password stored for the configured certificate itself (not the shared one), if any. */
  get storedForCertificate(): string | undefined {
    const cert = this.configured();
    const value = cert === undefined ? undefined : this.own.get(cert);
    return value === '' ? undefined : value;
  }

  /** True when `azurite.cert` names a file now. */
  hasCertificate(): boolean {
    return this.configured() !== undefined;
  }

  /** True when the configured certificate's password has been read (or none is configured): settings read now see it. */
  loaded(): boolean {
    const cert = this.configured();
    return cert === undefined || this.own.has(cert);
  }

  /** Reads the configured certificate's password, unless read already; never rejects. */
  async load(): Promise<void> {
    const cert = this.configured();
    if (cert !== undefined && !this.own.has(cert)) await this.readOwn(cert);
  }

  /**
   * Stores `password` for the configured certificate; an empty one removes it (and, where the shared
   * password of earlier versions exists, keeps an empty entry, so that one no longer stands in).
   * Resolves when stored and read back.
   * @throws Error when no `azurite.cert` is set, or Secret Storage refuses (no keychain)
   */
  async store(password: string): Promise<void> {
    const cert = this.configured();
    if (cert === undefined) throw new Error('azurite.cert is not set');
    const key = passwordSecretKey(cert);
    if (password !== '') await this.secrets.store(key, password);
    else if (this.shared !== undefined) await this.secrets.store(key, '');
    else await this.secrets.delete(key);
    await this.readOwn(cert);
  }

  dispose(): void {
    this.subscription.dispose();
  }

  private async readOwn(cert: string): Promise<void> {
    this.own.set(cert, await this.read(passwordSecretKey(cert)));
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
 * tests). Empty input removes the stored password.
 * @param certificate the absolute path `azurite.cert` names now, or undefined (then nothing is
 *   asked: an error notification says to set azurite.cert first, with Open Settings)
 * @returns true when something was stored or removed, false when the box was dismissed, no
 *   certificate is set, or Secret Storage refused (an error notification says so)
 */
export async function setCertificatePassword(password: CertificatePassword, given: unknown, certificate: string | undefined): Promise<boolean> {
  if (certificate === undefined) {
    showOutcome(failure('setting', 'Azurite: set azurite.cert to your PFX file first; the certificate password is kept for that file.', { setting: 'azurite.cert' }));
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
  try {
    await password.store(value);
  } catch (err) {
    // No keychain (a headless Linux, a remote without one): say so rather than "command failed".
    void notify('error', `Azurite: the certificate password could not be ${value === '' ? 'removed from' : 'stored in'} VS Code's Secret Storage (${(err as Error).message}). Set azurite.pwd in your settings instead.`);
    return false;
  }
  void notify('info', value === ''
    ? `Azurite: the password of ${file} was removed from Secret Storage.`
    : `Azurite: the password of ${file} is in Secret Storage${azuriteConfig().get('pwd') ? '; azurite.pwd in your settings still wins while it is set' : ''}.`);
  return true;
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
 * Moves `azurite.pwd` from settings.json into Secret Storage, for the certificate file `azurite.cert`
 * names: stores the value in force and removes the setting from every place it is set (user,
 * workspace). Nothing is moved (and a warning says why) when no `azurite.cert` is set (the password
 * is kept for a file), when those places hold different passwords (the user one may serve other
 * workspaces), or when Secret Storage already holds another password for that file: each would lose
 * a password that is in use. A setting that cannot be written is said in an error notification.
 * @returns true when the password was moved
 */
export async function movePasswordToSecretStorage(password: CertificatePassword): Promise<boolean> {
  await password.ready;
  await password.load();
  const config = azuriteConfig();
  const value = passwordText(config.get<unknown>('pwd'));
  if (value === undefined) return false;
  if (!password.hasCertificate()) {
    void notify('warning', 'azurite.pwd was not moved to Secret Storage: azurite.cert is not set, and Secret Storage keeps a password for the certificate file it names. Set azurite.cert first.');
    return false;
  }
  // Read without a resource, as every azurite.* setting is here: no workspace folder value.
  const where = config.inspect<unknown>('pwd');
  const places = ([
    [where?.workspaceValue, vscode.ConfigurationTarget.Workspace, 'workspace'],
    [where?.globalValue, vscode.ConfigurationTarget.Global, 'user'],
  ] as const).filter(([v]) => v !== undefined);
  if (places.some(([v]) => passwordText(v) !== value)) {
    void notify('warning', `azurite.pwd was not moved to Secret Storage: your ${places.map(([, , name]) => name).join(', ')} settings set different passwords, and moving the one in force would remove the other, which other workspaces may use. Keep azurite.pwd in one of them, or use "Azurite: Set Certificate Password".`);
    return false;
  }
  const stored = password.storedForCertificate;
  if (stored !== undefined && stored !== value) {
    void notify('warning', 'azurite.pwd was not moved to Secret Storage: it already holds another password for azurite.cert (used where azurite.pwd is not set). Use "Azurite: Set Certificate Password" to replace it, then remove azurite.pwd.');
    return false;
  }
  try {
    await password.store(value);
    for (const [, target] of places) await config.update('pwd', undefined, target);
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
  if (passwordText(azuriteConfig().get<unknown>('pwd')) === undefined || !password.hasCertificate() || state.get<boolean>(MOVE_OFFERED_KEY) === true) return 'none';
  await state.update(MOVE_OFFERED_KEY, true);
  // Workspace settings may be shared (a .vscode/settings.json in source control): removing the
  // password there takes it from everyone who uses that file, so the notice says where it goes from.
  const where = azuriteConfig().inspect<unknown>('pwd');
  const places = [
    ...(where?.globalValue !== undefined ? ['your user settings'] : []),
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
