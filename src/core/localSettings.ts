/**
 * Which connection-string variables to hand to the user's processes (terminals, debug sessions),
 * and why — decided from the workspace's Azure Functions `local.settings.json` files.
 *
 * Azure Functions Core Tools read `Values.AzureWebJobsStorage` from local.settings.json, but an
 * environment variable of the same name wins over it (Core Tools and the Azure Functions extension's
 * `getLocalSettingsConnectionString` both look at the environment first). So injecting our
 * `AzureWebJobsStorage` into a process whose project points at a cloud account (or another
 * emulator) would silently redirect it: we inject it only when every local.settings.json found
 * leaves it unset or points at the development storage (`UseDevelopmentStorage=true`, or our own
 * endpoints). A file we cannot read counts as "sets its own": never inject over what we can't see.
 * The same rule holds for `AZURE_STORAGE_CONNECTION_STRING`, which a project may set in `Values` too:
 * Core Tools put every value into the host's environment unless the environment already has it.
 *
 * `.env` files count the same way ({@link classifyDotenv}): programs that load one keep what their
 * environment already has.
 *
 * Pure: no vscode, no file system.
 */
import * as path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { endpointPort } from './attach';

/** The account `UseDevelopmentStorage=true` means, and the one our connection string names. */
const DEVELOPMENT_ACCOUNT = 'devstoreaccount1';

/** The variable read by the Azure SDKs and the az CLI. */
export const STORAGE_VARIABLE = 'AZURE_STORAGE_CONNECTION_STRING';
/** The variable read by Azure Functions (Core Tools, the host). */
export const WEBJOBS_VARIABLE = 'AzureWebJobsStorage';
/**
 * True for a variable read without regard to case on every platform: `AzureWebJobsStorage`, which
 * the Functions host reads through .NET configuration (keys compared ignoring case), so
 * `AZUREWEBJOBSSTORAGE` set by the user on Linux is that variable too, and a second entry of ours
 * would make which one wins depend on the environment's order. `AZURE_STORAGE_CONNECTION_STRING`
 * is read by exact name (the SDKs' `process.env[…]`, `os.environ[…]`).
 */
export function readsAnyCase(name: string): boolean {
  return name === WEBJOBS_VARIABLE;
}

/**
 * The value `env` holds for `name`: by exact name, or for a variable read in any case
 * ({@link readsAnyCase}) under another case, the first such entry with a non-empty value.
 */
export function valueOfVariable(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const exact = env[name];
  if (exact !== undefined && exact !== '' || !readsAnyCase(name)) return exact;
  const wanted = name.toUpperCase();
  const key = Object.keys(env).find((k) => k !== name && k.toUpperCase() === wanted && (env[k] ?? '') !== '');
  return key === undefined ? exact : env[key];
}

/** Every variable we may set, in this order. */
export const CONNECTION_VARIABLES = [STORAGE_VARIABLE, WEBJOBS_VARIABLE] as const;
/** One of {@link CONNECTION_VARIABLES}. */
export type ConnectionVariable = (typeof CONNECTION_VARIABLES)[number];

/** What one local.settings.json says about `Values.AzureWebJobsStorage` (or another variable of {@link CONNECTION_VARIABLES}). */
export type WebJobsStorageUse =
  /** No such value (or an empty string): Core Tools would take it from the environment. */
  | { readonly kind: 'absent' }
  /** `UseDevelopmentStorage=true`, or a connection string naming one of our endpoints and the development account. */
  | { readonly kind: 'development' }
  /**
   * A connection string naming one of our endpoints and another account (one of `azurite.accounts`):
   * the services are ours to start, but the string is the file's (ours would name devstoreaccount1).
   */
  | { readonly kind: 'emulatorAccount'; readonly account: string }
  /**
   * A connection string naming our endpoints for some services and another place for others (a
   * cloud `QueueEndpoint`, an `EndpointSuffix`): the services are ours to start, but the string is
   * the file's (ours would send those others to the emulator).
   */
  | { readonly kind: 'partlyEmulator' }
  /** Anything else: a cloud account, another emulator, an identity-based connection (`AzureWebJobsStorage__…`). Theirs wins. */
  | { readonly kind: 'own' }
  /** Not readable as JSON, encrypted (`IsEncrypted: true`), or not an object. */
  | { readonly kind: 'unknown'; readonly reason: string };

/** host:port a client reaches one of our services at (host as written in URLs: `127.0.0.1`, `[::1]`). */
export interface OwnEndpoint {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses a connection string into its `key=value` pairs (keys lower-cased; values as written).
 * Empty segments are skipped; a segment without `=` gets the value `''`.
 */
export function connectionStringPairs(value: string): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const segment of value.split(';')) {
    const trimmed = segment.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    const key = (eq < 0 ? trimmed : trimmed.slice(0, eq)).trim().toLowerCase();
    pairs.set(key, eq < 0 ? '' : trimmed.slice(eq + 1).trim());
  }
  return pairs;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** A URL's host name, lower-cased; undefined when `url` is not a URL. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * True for a name of this machine: a loopback name, a name under `.localhost` (which resolves to
 * loopback, RFC 6761: the product-style `devstoreaccount1.blob.localhost`), or Docker's name for the
 * machine a container runs on (`host.docker.internal`).
 */
function isThisMachine(host: string): boolean {
  const h = host.toLowerCase();
  return LOOPBACK.has(h) || h.endsWith('.localhost') || h === 'host.docker.internal';
}

function sameHost(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x === y || (isThisMachine(x) && isThisMachine(y));
}

/**
 * True when a connection string points at the development storage on this machine:
 * `UseDevelopmentStorage=true` (with no `DevelopmentStorageProxyUri`, or one whose host is a
 * loopback name or Docker's name for the machine a container runs on, `host.docker.internal`: a
 * proxy elsewhere is another emulator), or Blob/Queue/Table endpoints whose hosts and ports are
 * each one of `own` (names of this machine count as one host: loopback names, product-style names
 * under `.localhost`, and `host.docker.internal`). A string that also points a service elsewhere
 * (another endpoint that is not ours, or an `EndpointSuffix` for a service it gives no endpoint,
 * which the SDKs build a cloud URL from) is the user's own: replaced by ours, it would send that
 * service to the emulator.
 */
export function isDevelopmentStorage(value: string, own: readonly OwnEndpoint[]): boolean {
  return emulatorEndpoints(value, own) === 'all';
}

/**
 * Whether a connection string's services are this emulator's: `all` (see {@link isDevelopmentStorage}),
 * `some` (some endpoints ours, another elsewhere), or `none`.
 */
function emulatorEndpoints(value: string, own: readonly OwnEndpoint[]): 'all' | 'some' | 'none' {
  const pairs = connectionStringPairs(value);
  if (pairs.get('usedevelopmentstorage')?.toLowerCase() === 'true') {
    const proxy = pairs.get('developmentstorageproxyuri');
    if (proxy === undefined || proxy === '') return 'all';
    const host = hostOf(proxy); // not a URL: not ours to replace
    return host !== undefined && isThisMachine(host) ? 'all' : 'none';
  }
  let ours = false;
  let elsewhere = false;
  for (const key of ['blobendpoint', 'queueendpoint', 'tableendpoint']) {
    const endpoint = pairs.get(key);
    if (endpoint === undefined || endpoint === '') {
      // The SDKs make this service's endpoint from the account and the suffix: the cloud's.
      if ((pairs.get('endpointsuffix') ?? '') !== '') elsewhere = true;
      continue;
    }
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      elsewhere = true;
      continue;
    }
    const port = endpointPort(url);
    if (own.some((o) => o.port === port && sameHost(o.host, url.hostname))) ours = true;
    else elsewhere = true;
  }
  return !ours ? 'none' : elsewhere ? 'some' : 'all';
}

/**
 * A local.settings.json's bytes as text, told by its byte order mark as Core Tools (.NET) read it:
 * FF FE is UTF-16 LE (Windows PowerShell 5.1's `>` and `Out-File` write it), FE FF UTF-16 BE, and
 * anything else UTF-8 (an EF BB BF mark is dropped). The mark is never part of the text. Never
 * throws: bytes that are not valid in the encoding become U+FFFD (an odd last byte of UTF-16 too),
 * which then fails to parse as JSON where it matters.
 * @param bytes the file's content as read
 */
export function decodeLocalSettings(bytes: Uint8Array): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    // Swapped into little-endian order: every Node has a utf-16le decoder, not every one a utf-16be
    // one (a build without full ICU).
    const swapped = new Uint8Array(bytes.length);
    for (let i = 0; i + 1 < bytes.length; i += 2) {
      swapped[i] = bytes[i + 1]!;
      swapped[i + 1] = bytes[i]!;
    }
    if (bytes.length % 2 === 1) swapped[bytes.length - 1] = bytes[bytes.length - 1]!;
    return new TextDecoder('utf-16le').decode(swapped);
  }
  return new TextDecoder().decode(bytes);
}

/**
 * Reads one local.settings.json's `Values.AzureWebJobsStorage` (or its identity-based form,
 * `Values.AzureWebJobsStorage__<setting>`: the file's own), or another variable's value.
 * JSON with comments and trailing commas, as Core Tools (Json.NET) and the Azure Functions
 * extension read it; a leading BOM is tolerated. Keys are matched in any case, as the Functions
 * host's configuration matches them. Never throws: what cannot be read is `unknown` with the
 * parser's message and place.
 * @param text the file's content
 * @param own our services' endpoints (see {@link isDevelopmentStorage})
 * @param variable the `Values` key to read (Core Tools puts every value into the host's environment
 *   unless the environment already has it, so a terminal's variable of any of these names wins)
 */
export function classifyLocalSettings(text: string, own: readonly OwnEndpoint[], variable: ConnectionVariable = WEBJOBS_VARIABLE): WebJobsStorageUse {
  const errors: ParseError[] = [];
  const body = text.replace(/^\uFEFF/, '');
  const parsed: unknown = parseJsonc(body, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const before = body.slice(0, errors[0]!.offset).split('\n');
    return { kind: 'unknown', reason: `${printParseErrorCode(errors[0]!.error)} at line ${before.length}, column ${before.at(-1)!.length + 1}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { kind: 'unknown', reason: 'not a JSON object' };
  }
  const root = parsed as { IsEncrypted?: unknown; Values?: unknown };
  const values = root.Values;
  if (values === undefined || values === null) return { kind: 'absent' };
  if (typeof values !== 'object' || Array.isArray(values)) return { kind: 'unknown', reason: '"Values" is not an object' };
  const entries = Object.entries(values as Record<string, unknown>);
  const value = entries.find(([k, v]) => k.toLowerCase() === variable.toLowerCase() && v !== undefined && v !== null && v !== '')?.[1];
  if (value === undefined) {
    // An identity-based connection (`AzureWebJobsStorage__accountName`, `__blobServiceUri`, …: the
    // Functions host's documented form without a key) is the project's own; a connection string
    // beside it would win over it in the host, so none is given.
    const identity = entries.some(([k]) => k.toLowerCase().startsWith(`${variable.toLowerCase()}__`));
    return identity ? { kind: 'own' } : { kind: 'absent' };
  }
  if (root.IsEncrypted === true) return { kind: 'unknown', reason: 'its values are encrypted (IsEncrypted: true)' };
  if (typeof value !== 'string') return { kind: 'unknown', reason: `${variable} is not a string` };
  return classifyConnectionString(value, own);
}

/**
 * What a connection string names: `development` (the development storage: {@link isDevelopmentStorage},
 * with no account named or the development account, devstoreaccount1), `emulatorAccount` (our
 * endpoints with another account, named by `AccountName` or else by an endpoint: see
 * {@link endpointAccount}), `partlyEmulator` (some of our endpoints, other services elsewhere), or
 * `own` (anything else). Never throws.
 */
function classifyConnectionString(value: string, own: readonly OwnEndpoint[]): Exclude<WebJobsStorageUse, { kind: 'absent' | 'unknown' }> {
  const endpoints = emulatorEndpoints(value, own);
  if (endpoints === 'some') return { kind: 'partlyEmulator' };
  if (endpoints === 'none') return { kind: 'own' };
  const pairs = connectionStringPairs(value);
  const account = pairs.get('usedevelopmentstorage')?.toLowerCase() === 'true' ? undefined : pairs.get('accountname') ?? endpointAccount(pairs);
  return account === undefined || account === DEVELOPMENT_ACCOUNT ? { kind: 'development' } : { kind: 'emulatorAccount', account };
}

/**
 * The account a connection string's endpoints name when it has no `AccountName` (a SAS connection
 * string): the first label of a product-style host (`myacct.blob.localhost`), else the first
 * segment of the path (`http://127.0.0.1:10000/myacct`). Undefined when no endpoint names one.
 */
function endpointAccount(pairs: Map<string, string>): string | undefined {
  for (const key of ['blobendpoint', 'queueendpoint', 'tableendpoint']) {
    let url: URL;
    try {
      url = new URL(pairs.get(key) ?? '');
    } catch {
      continue;
    }
    const host = url.hostname.toLowerCase();
    const labels = host.split('.');
    if (host.endsWith('.localhost') && labels.length >= 3) return labels[0];
    const segment = url.pathname.split('/').find((p) => p !== '');
    if (segment !== undefined) {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment; // a malformed escape (`%zz`): the segment as written
      }
    }
  }
  return undefined;
}

/** A local.settings.json found in the workspace. */
export interface LocalSettingsFile {
  /** How to name it to a person: workspace-relative (`functions/local.settings.json`). */
  readonly label: string;
  /** A `.env` file ({@link classifyDotenv}): it decides what is injected, but is no Functions project. */
  readonly dotenv?: boolean;
  /** What its `Values.AzureWebJobsStorage` says. */
  readonly use: WebJobsStorageUse;
  /** What its `Values.AZURE_STORAGE_CONNECTION_STRING` says; absent when not read (taken as `absent`). */
  readonly storageUse?: WebJobsStorageUse;
}

/** What to inject, and the sentence that says what and why (for the terminal's environment description). */
export interface ConnectionVariables {
  /** Variable name → value; only the ones to set. */
  readonly variables: Partial<Record<ConnectionVariable, string>>;
  /** e.g. "AZURE_STORAGE_CONNECTION_STRING for the running Azurite Blob, Queue; AzureWebJobsStorage not set: functions/local.settings.json sets its own". */
  readonly description: string;
}

/** The services a connection string serves, by human name (`'Blob'`), in order. */
export interface ServedServices {
  /** Those that run in this window. */
  readonly running: readonly string[];
  /** Those another Azurite was found serving on their configured port (none when absent). */
  readonly elsewhere?: readonly string[];
}

/**
 * Decides which variables to set for the running services. A variable that the environment VS Code
 * was started with (which terminals and debugged programs inherit) sets to a value of the user's
 * own ({@link isReplaceableInherited} false: a cloud account exported in the shell) is not set.
 * @param connectionString the connection string of the services in `services`
 * @param services human names of the services it serves: `{ running: ['Blob', 'Queue'] }`, and
 *   `elsewhere: ['Table']` for those another Azurite serves; at least one in all. The description
 *   names both ("… for the running Azurite Blob, Queue and Table served by another Azurite").
 * @param files every local.settings.json found (empty when none)
 * @param inherited the extension host's environment (`process.env`); none by default
 * @param own our services' endpoints, for telling the user's values from ours in `inherited`
 */
export function decideVariables(
  connectionString: string, services: ServedServices, files: readonly LocalSettingsFile[],
  inherited: Readonly<Record<string, string | undefined>> = {}, own: readonly OwnEndpoint[] = [],
): ConnectionVariables {
  // An identity-based connection there (`AzureWebJobsStorage__accountName`) is the user's too.
  const identity = (name: ConnectionVariable): string | undefined => identityConnectionKey(Object.keys(inherited).filter((k) => (inherited[k] ?? '') !== ''), name);
  const fromEnvironment = (name: ConnectionVariable): boolean => {
    const value = valueOfVariable(inherited, name);
    return (value !== undefined && value !== '' && !isReplaceableInherited(value, own)) || identity(name) !== undefined;
  };
  const environmentReason = (name: ConnectionVariable): string => {
    const key = identity(name);
    return `the environment VS Code was started with sets its own${key !== undefined && (valueOfVariable(inherited, name) ?? '') === '' ? ` (${key}: an identity-based connection)` : ''}`;
  };
  const variables: Partial<Record<ConnectionVariable, string>> = {};
  const notSet: string[] = [];
  // A file's own value is never overridden: Core Tools skip a value the environment already has.
  const blockedBy = (useOf: (f: LocalSettingsFile) => WebJobsStorageUse): string | undefined => {
    const reasons = files.flatMap((f) => {
      const use = useOf(f);
      return use.kind === 'unknown' ? [`${f.label} could not be read (${use.reason})`]
        : use.kind === 'emulatorAccount' ? [`${f.label} sets its own (account ${use.account} of this emulator)`]
          : use.kind === 'partlyEmulator' ? [`${f.label} sets its own (some services of this emulator, others elsewhere)`]
          : use.kind === 'own' ? [`${f.label} sets its own`] : [];
    });
    return reasons.length > 0 ? reasons.join('; ') : undefined;
  };
  for (const [name, useOf] of [[STORAGE_VARIABLE, (f: LocalSettingsFile) => f.storageUse ?? { kind: 'absent' }], [WEBJOBS_VARIABLE, (f: LocalSettingsFile) => f.use]] as const) {
    const blocked = blockedBy(useOf);
    if (blocked !== undefined) notSet.push(`${name} not set: ${blocked}`);
    else if (fromEnvironment(name)) notSet.push(`${name} not set: ${environmentReason(name)}`);
    else variables[name] = connectionString;
  }
  const set = CONNECTION_VARIABLES.filter((name) => variables[name] !== undefined);
  const elsewhere = services.elsewhere ?? [];
  const served = [
    ...(services.running.length > 0 ? [`the running Azurite ${services.running.join(', ')}`] : []),
    ...(elsewhere.length > 0 ? [`${elsewhere.join(', ')} served by another Azurite`] : []),
  ].join(' and ');
  return {
    variables,
    description: [set.length > 0 ? `${set.join(' and ')} for ${served}` : `nothing set for ${served}`, ...notSet].join('; '),
  };
}

/**
 * The first of `names` that is an identity-based form of `AzureWebJobsStorage`
 * (`AzureWebJobsStorage__accountName`, `__blobServiceUri`, `__credential`, …; case ignored, as .NET
 * configuration ignores it), or undefined; always undefined for another variable. The Functions
 * host reads such a connection only while `AzureWebJobsStorage` itself has no value (Azure Functions
 * docs, "Connecting to host storage with an identity"), so a value of ours would replace it.
 * @param names variable names, as set in an environment, a launch's `env` or a settings object
 * @param variable the variable we would set
 */
export function identityConnectionKey(names: Iterable<string>, variable: string): string | undefined {
  if (variable !== WEBJOBS_VARIABLE) return undefined;
  const prefix = `${WEBJOBS_VARIABLE.toLowerCase()}__`;
  for (const n of names) if (n.length > prefix.length && n.toLowerCase().startsWith(prefix)) return n;
  return undefined;
}

/**
 * True when a connection string the user's environment holds is one we may replace: it points at
 * the development storage with no account named or the development account (`development` as
 * {@link classifyLocalSettings} tells it; another account of this emulator, `emulatorAccount`, is
 * the user's, as in a local.settings.json), or names the development account (`devstoreaccount1`,
 * whose key is public) at a host of this machine on any port — such as one this extension injected
 * into the terminal a window was opened from, with the ports of that time.
 */
export function isReplaceableInherited(value: string, own: readonly OwnEndpoint[]): boolean {
  if (classifyConnectionString(value, own).kind === 'development') return true;
  const pairs = connectionStringPairs(value);
  if (pairs.get('accountname') !== DEVELOPMENT_ACCOUNT) return false;
  const endpoints = ['blobendpoint', 'queueendpoint', 'tableendpoint'].map((k) => pairs.get(k)).filter((e): e is string => e !== undefined);
  return endpoints.length > 0 && endpoints.every((e) => isThisMachine(hostOf(e) ?? ''));
}

/** True when any file points `AzureWebJobsStorage` at the development storage (a Functions project that needs the emulator). */
export function needsDevelopmentStorage(files: readonly LocalSettingsFile[]): boolean {
  return files.some((f) => f.dotenv !== true && (f.use.kind === 'development' || f.use.kind === 'emulatorAccount' || f.use.kind === 'partlyEmulator'));
}

/**
 * The variable names a dotenv-style file (a launch configuration's `envFile`, a `.env`) defines, as
 * the `dotenv` package reads them (`KEY=value`, `export KEY=…`, quoted and multi-line values).
 */
export function dotenvKeys(text: string): Set<string> {
  return new Set(Object.keys(parseDotenv(text.replace(/^\uFEFF/, ''))));
}

/**
 * What a `.env` file says about `variable`, as {@link classifyLocalSettings} says it of a
 * local.settings.json: a program that loads the file itself (`node --env-file`, the `dotenv` and
 * `python-dotenv` packages) keeps a variable its environment already has, so ours would win over
 * the file's. Names are matched ignoring case (as Windows does); `<variable>__…` keys (an
 * identity-based connection) count as the file's own.
 * @param text the file's content (read as UTF-8)
 */
export function classifyDotenv(text: string, own: readonly OwnEndpoint[], variable: ConnectionVariable = WEBJOBS_VARIABLE): WebJobsStorageUse {
  const entries = Object.entries(parseDotenv(text.replace(/^\uFEFF/, '')));
  const value = entries.find(([k, v]) => k.toLowerCase() === variable.toLowerCase() && v !== '')?.[1];
  if (value === undefined) return entries.some(([k]) => k.toLowerCase().startsWith(`${variable.toLowerCase()}__`)) ? { kind: 'own' } : { kind: 'absent' };
  return classifyConnectionString(value, own);
}

/**
 * The files a launch configuration's `envFile` names: one path, or a list of them (the Go
 * extension's form); relative ones against the workspace folder. Anything else names none.
 * @param envFile the configuration's `envFile`, variables already substituted
 * @param folder the workspace folder's path, if any
 */
export function envFilePaths(envFile: unknown, folder: string | undefined): string[] {
  const list = typeof envFile === 'string' ? [envFile] : Array.isArray(envFile) ? envFile.filter((f): f is string => typeof f === 'string') : [];
  return list.filter((f) => f !== '').map((f) => (path.isAbsolute(f) || folder === undefined ? f : path.join(folder, f)));
}
