/**
 * Turns an error from starting a service into a message a person can act on: it names the
 * service, the setting, the bad value and the fix. Pure; codes are Node's (`err.code`).
 */
import { DATA_FILES } from './dataFiles';
import { serviceName, type ServiceKind } from './services';

/** What the message needs to know about where the service tried to listen, and its data. */
export interface StartAttempt {
  readonly kind: ServiceKind;
  readonly host: string;
  readonly port: number;
  readonly inMemory?: boolean;
  /** The data folder (disk mode). */
  readonly location?: string;
}

/** The parts of a thrown error that matter. */
export interface ErrorLike {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly name?: unknown;
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
      if (attempt.port > 0 && attempt.port < 1024) return `${name} service could not start: listening on ${where} is not permitted for this user (ports below 1024 are privileged). Set ${portKey} to 1024 or higher.`;
      // Above 1024 it is a reserved range: on Windows, Hyper-V, WSL 2 and Docker reserve port
      // ranges that often take in 10000-10002 (listen then fails with EACCES, not EADDRINUSE).
      return `${name} service could not start: listening on ${where} is not permitted: the port is reserved by the system or blocked by a security policy (on Windows, Hyper-V, WSL 2 and Docker reserve port ranges: "netsh interface ipv4 show excludedportrange protocol=tcp" lists them). Set ${portKey} to a port outside them (0 picks a free one).`;
    case 'EAI_AGAIN':
      return `${name} service could not start: the name ${JSON.stringify(attempt.host)} in ${hostKey} could not be looked up (the name server did not answer). Check the network, or use 127.0.0.1 (this machine only) or 0.0.0.0 (all interfaces).`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return `${name} service could not start: ${hostKey} is ${JSON.stringify(attempt.host)}, which is not an address of this machine. Use 127.0.0.1 (this machine only) or 0.0.0.0 (all interfaces).`;
    default:
      if (err.name === 'SyntaxError' && attempt.inMemory === false && attempt.location !== undefined) {
        // Azurite loads each database file with JSON.parse: a cut-off write, a merge conflict.
        const files = Object.values(DATA_FILES[attempt.kind]).filter((f) => f.endsWith('.json')).join(' or ');
        return `${name} service could not start: its data in ${JSON.stringify(attempt.location)} cannot be read (${String(err.message).replace(/\s+/g, ' ')}): ${files} there is damaged. Restore it (from version control or a backup), or run "Azurite: Clean ${name} Service" to start empty: that deletes ${name}'s data.`;
      }
      return `${name} service could not start: ${String(err.message ?? err)}`;
  }
}

/**
 * The setting to change after a listen error of `kind`: its port for a taken or forbidden port, its
 * host for an address that is not this machine's; undefined when no setting is at fault.
 */
export function startErrorSetting(kind: ServiceKind, err: ErrorLike): string | undefined {
  switch (err.code) {
    case 'EADDRINUSE':
    case 'EACCES':
      return `azurite.${kind}Port`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `azurite.${kind}Host`;
    default:
      return undefined;
  }
}

/** Describes a data folder that cannot be created or written. */
export function describeLocationError(location: string, err: ErrorLike): string {
  const text = String(err.message ?? err);
  const code = typeof err.code === 'string' && !text.startsWith(`${err.code}:`) ? `${err.code}: ` : '';
  return `azurite.location resolves to ${JSON.stringify(location)}, which cannot be created or written (${code}${text}). Set azurite.location to a folder you can write to, or turn on azurite.inMemoryPersistence.`;
}

/** A taken port, as found by probing it. */
export interface PortConflict {
  readonly kind: ServiceKind;
  readonly host: string;
  readonly port: number;
  /** 'azurite' when the holder answered with an Azurite Server header. */
  readonly holder: 'azurite' | 'other';
  /** The holder's Server header, if it answered HTTP. */
  readonly server?: string;
  /** The next free port, if one was found. */
  readonly freePort?: number;
}

/**
 * "Blob service could not start: port 10000 on 127.0.0.1 is already in use by another Azurite
 * (Azurite-Blob/3.37.0) — the Azurite extension, another VS Code window or the azurite CLI. …"
 */
export function describePortConflict(c: PortConflict): string {
  const name = serviceName(c.kind);
  const who = c.holder === 'azurite'
    ? `by another Azurite (${c.server ?? 'Azurite'}) — perhaps the Azurite extension, another VS Code window or the azurite command line`
    : `by another program${c.server ? ` (${c.server})` : ''}`;
  const fix = c.freePort !== undefined
    ? `Use port ${c.freePort} (free now), or stop the other ${c.holder === 'azurite' ? 'Azurite' : 'program'}.`
    : `Stop the other ${c.holder === 'azurite' ? 'Azurite' : 'program'}, or set azurite.${c.kind}Port to a free port (0 picks one).`;
  return `${name} service could not start: port ${c.port} on ${c.host} is already in use ${who}. ${fix}`;
}
