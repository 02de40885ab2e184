/**
 * The PFX password in VS Code's Secret Storage instead of settings.json: `Azurite: Set Certificate
 * Password` stores it (`context.secrets`, encrypted by the OS keychain), the settings read it where
 * `azurite.pwd` is unset, and an `azurite.pwd` found in settings.json is offered, once, a move there.
 * The password is never logged, shown or put in a message.
 */
import * as vscode from 'vscode';
import { azuriteConfig } from '../config';
import { notify } from './notify';

/** The Secret Storage key of the PFX password. */
export const PASSWORD_SECRET_KEY = 'azurite.pwd';
/** globalState key: the move of `azurite.pwd` to Secret Storage was offered (offered once). */
export const MOVE_OFFERED_KEY = 'azurite.pwdMoveOffered';
/** The action on the one-time notice. */
export const MOVE_TO_SECRET_STORAGE = 'Move to Secret Storage';

/** The stored password, kept in memory so settings can be read synchronously. */
export class CertificatePassword implements vscode.Disposable {
  private value: string | undefined;
  private readonly subscription: vscode.Disposable;
  /** Resolves once the stored password has been read (starts wait for it). */
  readonly ready: Promise<void>;

  /** @param changed called after the stored password changes (re-read the settings, restart what needs it) */
  constructor(private readonly secrets: vscode.SecretStorage, changed: () => void) {
    this.ready = this.read();
    this.subscription = secrets.onDidChange((e) => {
      if (e.key === PASSWORD_SECRET_KEY) void this.read().then(changed);
    });
  }

  /** The stored password, if any (undefined before {@link ready}). */
  get current(): string | undefined {
    return this.value;
  }

  /** Stores `password` (an empty one deletes it); resolves when stored and read back. */
  async store(password: string): Promise<void> {
    if (password === '') await this.secrets.delete(PASSWORD_SECRET_KEY);
    else await this.secrets.store(PASSWORD_SECRET_KEY, password);
    await this.read();
  }

  dispose(): void {
    this.subscription.dispose();
  }

  private async read(): Promise<void> {
    try {
      this.value = await this.secrets.get(PASSWORD_SECRET_KEY);
    } catch {
      // No keychain (a headless Linux without one): nothing stored, azurite.pwd still works.
      this.value = undefined;
    }
  }
}

/**
 * `azurite.setCertificatePassword`: asks for the password (masked) and stores it. A string argument
 * is stored without asking (scripts, tests). Empty input removes the stored password.
 * @returns true when something was stored or removed, false when the box was dismissed or Secret
 *   Storage refused (an error notification says so)
 */
export async function setCertificatePassword(password: CertificatePassword, given: unknown): Promise<boolean> {
  const value = typeof given === 'string' ? given : await vscode.window.showInputBox({
    title: 'Azurite: Set Certificate Password',
    prompt: 'The password of the PFX file in azurite.cert. It is kept in VS Code\'s Secret Storage, not in settings.json; leave empty to remove it.',
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
    ? 'Azurite: the certificate password was removed from Secret Storage.'
    : `Azurite: the certificate password is in Secret Storage${azuriteConfig().get('pwd') ? '; azurite.pwd in your settings still wins while it is set' : ''}.`);
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
 * Moves `azurite.pwd` from settings.json into Secret Storage: stores the value in force and removes
 * the setting from every place it is set (user, workspace). Secret Storage holds
 * one password for every workspace, so nothing is moved (and a warning says why) when those places
 * hold different passwords, or when Secret Storage already holds another one: either would lose a
 * password that is in use. A setting that cannot be written is said in an error notification.
 * @returns true when the password was moved
 */
export async function movePasswordToSecretStorage(password: CertificatePassword): Promise<boolean> {
  await password.ready;
  const config = azuriteConfig();
  const value = passwordText(config.get<unknown>('pwd'));
  if (value === undefined) return false;
  // Read without a resource, as every azurite.* setting is here: no workspace folder value.
  const where = config.inspect<unknown>('pwd');
  const places = ([
    [where?.workspaceValue, vscode.ConfigurationTarget.Workspace, 'workspace'],
    [where?.globalValue, vscode.ConfigurationTarget.Global, 'user'],
  ] as const).filter(([v]) => v !== undefined);
  if (places.some(([v]) => passwordText(v) !== value)) {
    void notify('warning', `azurite.pwd was not moved to Secret Storage: your ${places.map(([, , name]) => name).join(', ')} settings set different passwords, and Secret Storage keeps one for every workspace. Keep azurite.pwd in one of them, or use "Azurite: Set Certificate Password".`);
    return false;
  }
  if (password.current !== undefined && password.current !== value) {
    void notify('warning', 'azurite.pwd was not moved to Secret Storage: it already holds another certificate password (used where azurite.pwd is not set). Use "Azurite: Set Certificate Password" to replace it, then remove azurite.pwd.');
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
  if (passwordText(azuriteConfig().get<unknown>('pwd')) === undefined || state.get<boolean>(MOVE_OFFERED_KEY) === true) return 'none';
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

/** Offers the move now (after the stored password is read) and whenever `azurite.pwd` is set later. */
export function watchPasswordSetting(password: CertificatePassword, state: vscode.Memento): vscode.Disposable {
  const offer = (): void => void password.ready.then(() => offerPasswordMove(password, state));
  offer();
  return vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('azurite.pwd')) offer(); });
}
