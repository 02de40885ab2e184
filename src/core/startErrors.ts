/**
 * Turns an error from starting a service into a message a person can act on: it names the
 * service, the setting, the bad value and the fix. Pure; codes are Node's (`err.code`).
 */
import { serviceName, type ServiceKind } from './services';

/** What the message needs to know about where the service tried to listen. */
export interface StartAttempt {
  readonly kind: ServiceKind;
  readonly host: string;
  readonly port: number;
}

/** The parts of a thrown error that matter. */
export interface ErrorLike {
  readonly code?: unknown;
  readonly message?: unknown;
}

/** Describes a listen or store error from starting `attempt.kind`. */
export function describeStartError(attempt: StartAttempt, err: ErrorLike): string {
  const name = serviceName(attempt.kind);
  const portKey = `azurite.${attempt.kind}Port`;
  const hostKey = `azurite.${attempt.kind}Host`;
  const where = `${attempt.host}:${attempt.port}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return `${name} service could not start: port ${attempt.port} on ${attempt.host} is already in use. Stop the program that holds it, or set ${portKey} to a free port (0 picks one).`;
    case 'EACCES':
      return `${name} service could not start: listening on ${where} is not permitted for this user. Set ${portKey} to 1024 or higher.`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${name} service could not start: ${hostKey} is ${JSON.stringify(attempt.host)}, which is not an address of this machine. Use 127.0.0.1 (this machine only) or 0.0.0.0 (all interfaces).`;
    default:
      return `${name} service could not start: ${String(err.message ?? err)}`;
  }
}

/** Describes a data folder that cannot be created or written. */
export function describeLocationError(location: string, err: ErrorLike): string {
  const text = String(err.message ?? err);
  const code = typeof err.code === 'string' && !text.startsWith(`${err.code}:`) ? `${err.code}: ` : '';
  return `azurite.location resolves to ${JSON.stringify(location)}, which cannot be created or written (${code}${text}). Set azurite.location to a folder you can write to, or turn on azurite.inMemoryPersistence.`;
}
