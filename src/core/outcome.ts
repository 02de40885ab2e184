/**
 * What a lifecycle command produced: ok, or a typed failure. The UI picks its action from the
 * failure's fields (a reason, the setting to change, a port conflict), never by reading the message
 * (the pattern of VS Code's git extension, which maps a typed error code to a message and actions).
 * Pure: no vscode, no azurite.
 */
import type { PortConflict } from './startErrors';

/**
 * Why a command failed:
 * - `cancelled`: the user said no (a confirmation, a folder pick); shown nowhere.
 * - `setting`: a setting's value stops the service (`setting` names it).
 * - `port`: the port is taken (`conflict` says by whom, and the next free port).
 * - `location`: the data folder cannot be created or written (`azurite.location`).
 * - `certificate`: the HTTPS certificate does not load (`azurite.cert`).
 * - `memoryLimit`: `azurite.extentMemoryLimit` is below what is stored.
 * - `engine`: the emulator engine did not load, or stopped.
 * - `timeout`: a lifecycle step ran past its bound (./bounds.ts); the message names what hung and
 *   `setting` the setting to look at (the folder, the host, the certificate).
 * - `state`: the service is in a state where this cannot be done (a clean while it runs).
 * - `data`: a seed or snapshot did not load (the message names the file and line, or the item and
 *   the service's answer).
 * - `other`: anything else (the message says what).
 */
export type FailureReason = 'cancelled' | 'setting' | 'port' | 'location' | 'certificate' | 'memoryLimit' | 'engine' | 'timeout' | 'state' | 'data' | 'other';

/** A failed command, for a person (`message`) and for code (the rest). */
export interface Failure {
  readonly ok: false;
  readonly message: string;
  readonly reason: FailureReason;
  /** The setting to change (`azurite.blobPort` …), when one is at fault. */
  readonly setting?: string;
  /** Who holds a taken port and the next free one (`reason` is `port`). */
  readonly conflict?: PortConflict;
  /** The file at fault, when one is (a malformed seed or snapshot file): the UI offers Open File. */
  readonly file?: FileLocation;
  /**
   * The secret at fault, kept in VS Code's Secret Storage rather than a setting (the certificate
   * password): the UI offers the command that sets it instead of Open Settings.
   */
  readonly secret?: 'certificatePassword';
}

/** A place in a file on this machine. */
export interface FileLocation {
  /** Absolute path. */
  readonly path: string;
  /** 1-based line; 0 for the file as a whole. */
  readonly line: number;
}

/** Result of a lifecycle command. */
export type Outcome = { readonly ok: true } | Failure;

/** A failure, with only the fields given. */
export function failure(reason: FailureReason, message: string, extra: { setting?: string | undefined; conflict?: PortConflict | undefined; file?: FileLocation | undefined; secret?: 'certificatePassword' | undefined } = {}): Failure {
  return {
    ok: false,
    message,
    reason,
    ...(extra.setting !== undefined ? { setting: extra.setting } : {}),
    ...(extra.conflict !== undefined ? { conflict: extra.conflict } : {}),
    ...(extra.file !== undefined ? { file: extra.file } : {}),
    ...(extra.secret !== undefined ? { secret: extra.secret } : {}),
  };
}

/** The failure of a command the user cancelled (shown nowhere). */
export const CANCELLED: Failure = failure('cancelled', 'Cancelled.');
