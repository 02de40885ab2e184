/**
 * The snapshot and seed folder format, version 1: pure parsing and printing, no I/O.
 * docs/SNAPSHOT.md is the format's description for users; this file is its one implementation.
 *
 * ```
 * <folder>/
 *   blob/<container>/<blob name as a path>   the blob's content, byte for byte
 *   blob/<container>.files/<n>               content of a blob whose name is not a safe path
 *   blob/<container>.blobs.jsonl             one line per blob: its name, type, properties, metadata
 *   blob/<container>.container.json          the container's metadata and public access (optional)
 *   queue/<queue>.jsonl                      one line per message: {"text": "…"}
 *   queue/<queue>.queue.json                 the queue's metadata (optional)
 *   table/<table>.jsonl                      one line per entity, in the Table service's JSON
 *                                            (OData): typed properties carry "<name>@odata.type"
 * ```
 * Container, queue and table names contain no dots (Azure's naming rules, see
 * https://learn.microsoft.com/rest/api/storageservices/naming-and-referencing-containers--blobs--and-metadata),
 * so `<name>.jsonl` and friends never collide with a container's folder.
 * Printing is deterministic (sorted names, fixed key order, `\n` line ends), so that
 * export → import → export gives the same bytes and a snapshot diffs well in git.
 */

import { isLosslessNumber, parse as parseLossless } from 'lossless-json';

/** The format version this code reads and writes. */
export const SNAPSHOT_FORMAT_VERSION = 1;

/** A parsed item with the 1-based line it came from, for errors found later (a missing file). */
export type Located<T> = T & { readonly line: number };

/** A problem in a snapshot file, located for a person: `file` relative to the snapshot folder, `line` 1-based (0: the whole file). */
export class SnapshotFormatError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly problem: string,
  ) {
    super(line > 0 ? `${file}:${line}: ${problem}` : `${file}: ${problem}`);
    this.name = 'SnapshotFormatError';
  }
}

// ---------------------------------------------------------------------------------------------
// Blobs

/** A blob's type, as the Blob service names it. */
export type BlobKind = 'BlockBlob' | 'AppendBlob' | 'PageBlob';

/** One line of `<container>.blobs.jsonl`: a blob's description (its content is a file). */
export interface BlobEntry {
  /** The blob's name (may contain `/`, spaces, any unicode). */
  readonly name: string;
  /** Where the content is, relative to `blob/`, when not at `<container>/<name>`. */
  readonly file?: string;
  /** Default `BlockBlob`. */
  readonly type?: BlobKind;
  readonly contentType?: string;
  readonly contentEncoding?: string;
  readonly contentLanguage?: string;
  readonly contentDisposition?: string;
  readonly cacheControl?: string;
  /** User metadata (`x-ms-meta-*`), names as the service returns them (lower case). */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** `<container>.container.json`. */
export interface ContainerEntry {
  readonly metadata?: Readonly<Record<string, string>>;
  /** Anonymous read access: `blob` or `container`; absent = private. */
  readonly publicAccess?: 'blob' | 'container';
}

const BLOB_KEYS = ['name', 'file', 'type', 'contentType', 'contentEncoding', 'contentLanguage', 'contentDisposition', 'cacheControl', 'metadata'] as const;
const BLOB_KINDS: readonly BlobKind[] = ['BlockBlob', 'AppendBlob', 'PageBlob'];

/** Characters Windows, macOS or Linux refuse in a file name, and control characters. */
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\\:*?"<>|\u0000-\u001f\u007f]/;
/** Names Windows reserves for devices, with or without an extension. */
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/** Whether one `/`-separated segment of a blob name can be a file or folder name on every OS. */
function safeSegment(segment: string): boolean {
  return segment !== '' && segment !== '.' && segment !== '..' && !UNSAFE_CHARS.test(segment) &&
    !segment.endsWith('.') && !segment.endsWith(' ') && !RESERVED.test(segment) && new TextEncoder().encode(segment).length <= 255;
}

/**
 * Where each blob's content goes, relative to `blob/`: `<container>/<name>` when the name is a
 * path every OS can hold and no other blob of the container claims it (a blob `a` beside a blob
 * `a/b`, names equal but for case or Unicode normalisation, or a folder spelled otherwise by an
 * earlier name: `Images/a.png` then `images/b.png`, one folder on macOS and Windows), else
 * `<container>.files/<n>` (n counts from 1 in name order).
 * @param container the container's name
 * @param names the container's blob names, sorted as the service lists them
 * @returns name → file, for every name
 */
export function blobFiles(container: string, names: readonly string[]): Map<string, string> {
  const files = new Map<string, string>();
  const taken = new Set<string>(); // keys of paths of files placed
  const folders = new Set<string>(); // keys of folder paths that placeable files need
  const spelled = new Map<string, string>(); // folder key → its spelling in the files placed
  const placeable = new Set(names.filter((n) => n.split('/').every(safeSegment)));
  // A name that is a folder of another placeable name cannot be a file.
  for (const n of placeable) {
    const parts = pathKey(n).split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  const prefixes = (name: string): string[] => {
    const parts = name.split('/');
    return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
  };
  let escaped = 0;
  for (const name of names) {
    const key = pathKey(name);
    const respells = prefixes(name).some((p) => (spelled.get(pathKey(p)) ?? p) !== p);
    if (placeable.has(name) && !folders.has(key) && !taken.has(key) && !escapesIntoFolderFile(key, taken) && !respells) {
      taken.add(key);
      for (const p of prefixes(name)) if (!spelled.has(pathKey(p))) spelled.set(pathKey(p), p);
      files.set(name, `${container}/${name}`);
    } else {
      escaped++;
      files.set(name, `${container}.files/${escaped}`);
    }
  }
  return files;
}

/**
 * A path as file systems that ignore case (Windows, macOS) and Unicode normalisation (macOS) see it:
 * two names with one key are one file there.
 */
function pathKey(p: string): string {
  return p.normalize('NFC').toLowerCase();
}

/** Whether a folder this path needs is already a placed file. */
function escapesIntoFolderFile(key: string, taken: ReadonlySet<string>): boolean {
  const parts = key.split('/');
  for (let i = 1; i < parts.length; i++) if (taken.has(parts.slice(0, i).join('/'))) return true;
  return false;
}

/**
 * Prints `<container>.blobs.jsonl`: one line per blob in the order given, keys in a fixed order,
 * `file` only where it differs from `<container>/<name>`, empty metadata left out.
 */
export function printBlobEntries(container: string, entries: readonly BlobEntry[]): string {
  return [...blobEntryLines(container, entries)].join('');
}

/** {@link printBlobEntries} a line at a time (each ends in `\n`): for a file larger than one string may be. */
export function* blobEntryLines(container: string, entries: Iterable<BlobEntry>): Generator<string> {
  for (const e of entries) {
    const out: Record<string, unknown> = {};
    for (const key of BLOB_KEYS) {
      const value = e[key];
      if (value === undefined) continue;
      if (key === 'file' && value === `${container}/${e.name}`) continue;
      if (key === 'type' && value === 'BlockBlob') continue;
      if (key === 'metadata') {
        const m = value as Record<string, string>;
        if (Object.keys(m).length === 0) continue;
        out.metadata = sortedRecord(m);
        continue;
      }
      out[key] = value;
    }
    yield JSON.stringify(out) + '\n';
  }
}

/**
 * Parses `<container>.blobs.jsonl`.
 * @param file the file's path relative to the snapshot folder, for errors
 * @param text the file's text, or its lines (without line ends) as read a line at a time
 * @throws SnapshotFormatError naming the line: bad JSON, a missing or repeated `name`, an unknown
 *   key or type, a non-string property, a `file` outside `blob/`, no `file` for a name that is not a
 *   relative path inside the container's folder (`..`, a leading `/`)
 */
export function parseBlobEntries(file: string, text: string | readonly string[]): Located<BlobEntry>[] {
  const seen = new Set<string>();
  return parseJsonLines(file, text).map(({ line, value }) => {
    const o = asObject(file, line, value, 'a blob');
    for (const key of Object.keys(o)) {
      if (!(BLOB_KEYS as readonly string[]).includes(key)) throw new SnapshotFormatError(file, line, `unknown key "${key}" (known: ${BLOB_KEYS.join(', ')})`);
    }
    if (typeof o.name !== 'string' || o.name === '') throw new SnapshotFormatError(file, line, 'a blob needs a non-empty "name"');
    if (seen.has(o.name)) throw new SnapshotFormatError(file, line, `blob "${o.name}" is listed twice`);
    seen.add(o.name);
    for (const key of ['file', 'contentType', 'contentEncoding', 'contentLanguage', 'contentDisposition', 'cacheControl'] as const) {
      if (o[key] !== undefined && typeof o[key] !== 'string') throw new SnapshotFormatError(file, line, `"${key}" must be a string`);
      const problem = key !== 'file' && o[key] !== undefined ? headerValueProblem(o[key] as string) : undefined;
      if (problem !== undefined) throw new SnapshotFormatError(file, line, `"${key}" ${problem}`);
    }
    if (o.type !== undefined && !BLOB_KINDS.includes(o.type as BlobKind)) throw new SnapshotFormatError(file, line, `"type" must be one of ${BLOB_KINDS.join(', ')}`);
    if (typeof o.file === 'string' && !isInside(o.file)) throw new SnapshotFormatError(file, line, `"file" must be a relative path inside blob/ (got "${o.file}")`);
    // Without "file" the content is <container>/<name>: a name that leaves that folder needs one.
    if (o.file === undefined && !isInside(o.name)) throw new SnapshotFormatError(file, line, `blob "${o.name}" needs a "file": its name is not a relative path inside the container's folder`);
    const unreachable = unreachableBlobName(o.name) ?? unwritableBlobName(o.name);
    if (unreachable !== undefined) throw new SnapshotFormatError(file, line, unreachable);
    const metadata = o.metadata === undefined ? undefined : metadataRecord(file, line, o.metadata);
    return { ...o, ...(metadata !== undefined ? { metadata } : {}), line } as Located<BlobEntry>;
  });
}

/** Prints `<container>.container.json`, or undefined when there is nothing to say (no metadata, private). */
export function printContainerEntry(entry: ContainerEntry): string | undefined {
  const out: Record<string, unknown> = {};
  if (entry.metadata !== undefined && Object.keys(entry.metadata).length > 0) out.metadata = sortedRecord(entry.metadata);
  if (entry.publicAccess !== undefined) out.publicAccess = entry.publicAccess;
  return Object.keys(out).length === 0 ? undefined : JSON.stringify(out, undefined, 2) + '\n';
}

/**
 * Parses `<container>.container.json`.
 * @throws SnapshotFormatError for bad JSON, unknown keys, a bad `publicAccess`
 */
export function parseContainerEntry(file: string, text: string): ContainerEntry {
  const o = asObject(file, 0, parseJson(file, 0, withoutBom(text)), 'a container');
  for (const key of Object.keys(o)) {
    if (key !== 'metadata' && key !== 'publicAccess') throw new SnapshotFormatError(file, 0, `unknown key "${key}" (known: metadata, publicAccess)`);
  }
  if (o.publicAccess !== undefined && o.publicAccess !== 'blob' && o.publicAccess !== 'container') {
    throw new SnapshotFormatError(file, 0, '"publicAccess" must be "blob" or "container" (leave it out for private)');
  }
  const metadata = o.metadata === undefined ? undefined : metadataRecord(file, 0, o.metadata);
  return { ...(metadata !== undefined ? { metadata } : {}), ...(o.publicAccess !== undefined ? { publicAccess: o.publicAccess as 'blob' | 'container' } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Queues

/** One line of `<queue>.jsonl`. */
export interface MessageEntry {
  /** The message text, as the Queue service stores it. */
  readonly text: string;
}

/** `<queue>.queue.json`. */
export interface QueueEntry {
  readonly metadata?: Readonly<Record<string, string>>;
}

/** Prints `<queue>.jsonl`, one message per line in the order given. */
export function printMessages(messages: readonly MessageEntry[]): string {
  return [...messageLines(messages)].join('');
}

/** {@link printMessages} a line at a time (each ends in `\n`): for a file larger than one string may be. */
export function* messageLines(messages: Iterable<MessageEntry>): Generator<string> {
  for (const m of messages) yield JSON.stringify({ text: m.text }) + '\n';
}

/**
 * Parses `<queue>.jsonl`.
 * @throws SnapshotFormatError naming the line: bad JSON, no string `text`, an unknown key
 */
export function parseMessages(file: string, text: string | readonly string[]): MessageEntry[] {
  return parseJsonLines(file, text).map(({ line, value }) => {
    const o = asObject(file, line, value, 'a message');
    for (const key of Object.keys(o)) if (key !== 'text') throw new SnapshotFormatError(file, line, `unknown key "${key}" (a message has only "text")`);
    if (typeof o.text !== 'string') throw new SnapshotFormatError(file, line, 'a message needs a string "text"');
    const unwritable = unwritableText(o.text, 'the message', 'no client could read the queue after it');
    if (unwritable !== undefined) throw new SnapshotFormatError(file, line, unwritable);
    return { text: o.text };
  });
}

/** Prints `<queue>.queue.json`, or undefined when the queue has no metadata. */
export function printQueueEntry(entry: QueueEntry): string | undefined {
  if (entry.metadata === undefined || Object.keys(entry.metadata).length === 0) return undefined;
  return JSON.stringify({ metadata: sortedRecord(entry.metadata) }, undefined, 2) + '\n';
}

/**
 * Parses `<queue>.queue.json`.
 * @throws SnapshotFormatError for bad JSON or unknown keys
 */
export function parseQueueEntry(file: string, text: string): QueueEntry {
  const o = asObject(file, 0, parseJson(file, 0, withoutBom(text)), 'a queue');
  for (const key of Object.keys(o)) if (key !== 'metadata') throw new SnapshotFormatError(file, 0, `unknown key "${key}" (known: metadata)`);
  return o.metadata === undefined ? {} : { metadata: metadataRecord(file, 0, o.metadata) };
}

// ---------------------------------------------------------------------------------------------
// Tables

/** An EDM type of the Table service (https://learn.microsoft.com/rest/api/storageservices/payload-format-for-table-service-operations). */
export type EdmType = 'String' | 'Boolean' | 'Int32' | 'Int64' | 'Double' | 'DateTime' | 'Guid' | 'Binary';
const EDM_TYPES: readonly EdmType[] = ['String', 'Boolean', 'Int32', 'Int64', 'Double', 'DateTime', 'Guid', 'Binary'];

/** A typed property value: the shape of @azure/data-tables with `disableTypeConversion` (`value` as text). */
export interface TypedValue {
  readonly value: string;
  readonly type: EdmType;
}

/** An entity: its keys and typed properties (no Timestamp, no ETag). */
export interface EntityEntry {
  readonly partitionKey: string;
  readonly rowKey: string;
  /** Property name → typed value, in no particular order (printing sorts them). */
  readonly properties: Readonly<Record<string, TypedValue>>;
}

/** The largest and smallest Edm.Int32. */
export const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * Prints one entity as a line of the Table service's JSON: `PartitionKey`, `RowKey`, then the
 * properties sorted by name. Strings, booleans, Int32 and doubles that JSON keeps apart from Int32
 * are bare JSON values; every other value carries `"<name>@odata.type": "Edm.<Type>"` before it.
 */
export function printEntity(entity: EntityEntry): string {
  const out: Record<string, unknown> = { PartitionKey: entity.partitionKey, RowKey: entity.rowKey };
  for (const name of Object.keys(entity.properties).sort()) {
    const { value, type } = entity.properties[name]!;
    const bare = bareValue(value, type);
    if (bare !== undefined) {
      out[name] = bare;
    } else {
      out[`${name}@odata.type`] = `Edm.${type}`;
      out[name] = type === 'Double' && Number.isFinite(Number(value)) ? Number(value) : value;
    }
  }
  return JSON.stringify(out) + '\n';
}

/**
 * An entity as the Storage view shows it: the Table service's JSON as {@link printEntity} writes it
 * (a value JSON cannot tell apart carries `"<name>@odata.type"`: an Edm.DateTime with all its
 * digits, an Int64, a Guid, a Binary in base64, a Double NaN), with its Timestamp after the keys.
 * A whole-number Double the service sent without an annotation (azurite writes `2.0` so) reaches
 * the SDK as an Int32, and shows as one.
 * @param entity as @azure/data-tables lists it with `disableTypeConversion`: `partitionKey`,
 *   `rowKey`, `timestamp`, `etag`, and each property as `{ value, type }`
 */
export function entityDocument(entity: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const properties: Record<string, TypedValue> = {};
  for (const [name, raw] of Object.entries(entity)) {
    if (name === 'partitionKey' || name === 'rowKey' || name === 'etag' || name === 'timestamp' || name === 'odata.metadata') continue;
    if (typeof raw !== 'object' || raw === null || !('value' in raw) || !('type' in raw)) continue;
    const { value, type } = raw as { value: unknown; type: unknown };
    if (typeof type === 'string' && (EDM_TYPES as readonly string[]).includes(type)) properties[name] = { value: String(value), type: type as EdmType };
  }
  const { PartitionKey, RowKey, ...rest } = JSON.parse(printEntity({ partitionKey: String(entity.partitionKey), rowKey: String(entity.rowKey), properties })) as Record<string, unknown>;
  // A string as the SDK lists it; `{ value, type }` had the service annotated it; a Date from a caller.
  const t = entity.timestamp;
  const timestamp = t instanceof Date ? t.toISOString() : typeof t === 'object' && t !== null && 'value' in t ? String((t as { value: unknown }).value) : t === undefined ? undefined : String(t);
  return { PartitionKey, RowKey, ...(timestamp !== undefined ? { Timestamp: timestamp } : {}), ...rest };
}

/** The bare JSON value that parses back to the same type, or undefined when an annotation is needed. */
function bareValue(value: string, type: EdmType): string | number | boolean | undefined {
  switch (type) {
    case 'String':
      return value;
    case 'Boolean':
      return value === 'true';
    case 'Int32':
      return Number(value);
    case 'Double': {
      const n = Number(value);
      // A whole number prints without a fraction and would read back as Int32.
      return Number.isFinite(n) && !Number.isInteger(n) ? n : undefined;
    }
    default:
      return undefined;
  }
}

/** Prints `<table>.jsonl`: entities in the order given (the service lists them by PartitionKey, then RowKey). */
export function printEntities(entities: readonly EntityEntry[]): string {
  return [...entityLines(entities)].join('');
}

/** {@link printEntities} a line at a time (each ends in `\n`): for a file larger than one string may be. */
export function* entityLines(entities: Iterable<EntityEntry>): Generator<string> {
  for (const e of entities) yield printEntity(e);
}

/**
 * Property names the data-tables SDK (the one import and export go through) uses for the entity's
 * own fields, and writes as those fields (`serialize` in @azure/data-tables' serialization.js): a
 * property of such a name would replace the entity's key or be dropped. Name → the field's name.
 */
export const SDK_KEY_NAMES_OF: Readonly<Record<string, string>> = { partitionKey: 'PartitionKey', rowKey: 'RowKey', etag: 'odata.etag', timestamp: 'Timestamp' };

/**
 * Parses `<table>.jsonl`. An unannotated number written with a decimal point or an exponent (`5.0`,
 * `1e3`) is an Edm.Double, one without an Edm.Int32: the Table service writes a whole-number double
 * as `5.0` without an annotation, which `JSON.parse` alone reads as the Int32 5.
 * @throws SnapshotFormatError naming the line: bad JSON, missing or non-string keys, an unknown
 *   EDM type, a value that does not fit its type, a repeated key pair
 */
export function parseEntities(file: string, text: string | readonly string[]): EntityEntry[] {
  const seen = new Set<string>();
  return parseJsonLines(file, text).map(({ line, value, text: lineText }) => {
    const o = asObject(file, line, value, 'an entity');
    // The line's numbers as written, read again only for a line with a whole number (lossless-json
    // is slower than JSON.parse); a line it refuses (a repeated key) keeps JSON.parse's reading.
    let written: Record<string, unknown> | undefined;
    const writtenAsDouble = (name: string): boolean => {
      if (written === undefined) {
        try {
          // Without a property whose value is a number with a point or an exponent (`":5.0`, `" : 5.0`), no
          // number of the line has one (an entity's values are not arrays); a string that holds
          // such text costs a second parse, nothing more.
          written = /"\s*:\s*-?[0-9]+(?:\.[0-9]|[eE])/.test(lineText) ? asObject(file, line, parseLossless(lineText), 'an entity') : {};
        } catch {
          written = {};
        }
      }
      const n = written[name];
      return isLosslessNumber(n) && /[.eE]/.test(n.value);
    };
    const { PartitionKey: pk, RowKey: rk } = o;
    if (typeof pk !== 'string' || typeof rk !== 'string') throw new SnapshotFormatError(file, line, 'an entity needs string "PartitionKey" and "RowKey"');
    const key = JSON.stringify([pk, rk]);
    if (seen.has(key)) throw new SnapshotFormatError(file, line, `PartitionKey "${pk}", RowKey "${rk}" appears twice`);
    seen.add(key);
    const properties: Record<string, TypedValue> = {};
    for (const [name, raw] of Object.entries(o)) {
      if (name === 'PartitionKey' || name === 'RowKey' || name.endsWith('@odata.type')) continue;
      if (name === 'Timestamp' || name.startsWith('odata.')) throw new SnapshotFormatError(file, line, `"${name}" is set by the service; leave it out`);
      if (Object.hasOwn(SDK_KEY_NAMES_OF, name)) throw new SnapshotFormatError(file, line, `"${name}" is the Azure SDK's name for the entity's ${SDK_KEY_NAMES_OF[name]}, so a property of that name cannot be loaded; rename it`);
      const annotation = o[`${name}@odata.type`];
      properties[name] = typedValue(file, line, name, raw, annotation, () => writtenAsDouble(name));
    }
    for (const name of Object.keys(o)) {
      if (name.endsWith('@odata.type') && !(name.slice(0, -'@odata.type'.length) in o)) {
        throw new SnapshotFormatError(file, line, `"${name}" annotates a property that is not there`);
      }
    }
    return { partitionKey: pk, rowKey: rk, properties };
  });
}

/**
 * One property of a parsed entity line as a typed value.
 * @param writtenAsDouble whether the property's number has a decimal point or an exponent in the
 *   line's text (asked only for an unannotated whole number)
 */
function typedValue(file: string, line: number, name: string, raw: unknown, annotation: unknown, writtenAsDouble: () => boolean): TypedValue {
  const bad = (why: string): never => { throw new SnapshotFormatError(file, line, `property "${name}": ${why}`); };
  if (annotation === undefined) {
    if (typeof raw === 'string') return { value: raw, type: 'String' };
    if (typeof raw === 'boolean') return { value: String(raw), type: 'Boolean' };
    if (typeof raw === 'number') {
      if (Number.isInteger(raw) && !writtenAsDouble()) {
        if (raw < INT32.min || raw > INT32.max) bad(`${raw} does not fit Edm.Int32; write it as a string with "${name}@odata.type": "Edm.Int64"`);
        return { value: String(raw), type: 'Int32' };
      }
      return { value: String(raw), type: 'Double' };
    }
    return bad(raw === null ? 'null is not a value; leave the property out' : 'objects and arrays are not table values');
  }
  if (typeof annotation !== 'string' || !annotation.startsWith('Edm.') || !EDM_TYPES.includes(annotation.slice(4) as EdmType)) {
    return bad(`unknown type ${JSON.stringify(annotation)} (known: ${EDM_TYPES.map((t) => `Edm.${t}`).join(', ')})`);
  }
  const type = annotation.slice(4) as EdmType;
  switch (type) {
    case 'String':
      if (typeof raw !== 'string') bad('Edm.String needs a string');
      return { value: raw as string, type };
    case 'Boolean':
      if (typeof raw !== 'boolean') bad('Edm.Boolean needs true or false');
      return { value: String(raw), type };
    case 'Int32':
      if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < INT32.min || raw > INT32.max) bad('Edm.Int32 needs a whole number from -2147483648 to 2147483647');
      return { value: String(raw), type };
    case 'Double':
      if (typeof raw === 'number') return { value: String(raw), type };
      if (raw === 'NaN' || raw === 'Infinity' || raw === '-Infinity') return { value: raw, type };
      return bad('Edm.Double needs a number, or "NaN", "Infinity", "-Infinity"');
    case 'Int64':
    case 'DateTime':
    case 'Guid':
    case 'Binary': {
      const needs = STRING_VALUE_RULES[type];
      if (typeof raw !== 'string' || !needs.test(raw)) bad(needs.needs);
      return { value: raw as string, type };
    }
  }
}

/** An ISO 8601 date (`2024-01-31`) or date and time (`2024-01-31T12:00`, seconds and fraction optional, then `Z` or an offset, optional). */
const ISO_DATE_TIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?$/;

/** The EDM types whose values are JSON strings of a given shape, and what the shape is (for errors). */
const STRING_VALUE_RULES: Readonly<Record<'Int64' | 'DateTime' | 'Guid' | 'Binary', { readonly test: (s: string) => boolean; readonly needs: string }>> = {
  Int64: { test: (s) => /^-?[0-9]+$/.test(s) && BigInt(s) <= 2n ** 63n - 1n && BigInt(s) >= -(2n ** 63n), needs: 'Edm.Int64 needs a whole number as a string ("123")' },
  // A date, then optionally a time and a zone, as ISO 8601 writes them; `Date.parse` alone also takes
  // "1", "2020" and "01/02/2020", which the service stores as given and a client's parser refuses later.
  DateTime: { test: (s) => ISO_DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)), needs: 'Edm.DateTime needs an ISO 8601 date string ("2024-01-31T12:00:00.000Z")' },
  Guid: { test: (s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s), needs: 'Edm.Guid needs a GUID string' },
  Binary: { test: (s) => /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0, needs: 'Edm.Binary needs a base64 string' },
};

/**
 * Why {@link parseEntities} would refuse this typed value, or undefined when it takes it. The Table
 * service (azurite, too) only checks that an Edm.Int64, Edm.DateTime, Edm.Guid or Edm.Binary value
 * is a string, so a client can store one that is no number, date, GUID or base64 at all; an export
 * checks each value with this, so that it never writes a file that cannot be loaded again.
 * @param value the value as text (the shape of {@link TypedValue})
 * @returns what the type needs (`Edm.Binary needs a base64 string`), or undefined
 */
export function typedValueProblem({ value, type }: TypedValue): string | undefined {
  switch (type) {
    case 'Int64':
    case 'DateTime':
    case 'Guid':
    case 'Binary':
      return STRING_VALUE_RULES[type].test(value) ? undefined : STRING_VALUE_RULES[type].needs;
    case 'Int32': {
      const n = Number(value);
      return Number.isInteger(n) && n >= INT32.min && n <= INT32.max ? undefined : 'Edm.Int32 needs a whole number from -2147483648 to 2147483647';
    }
    case 'Double':
      return Number.isFinite(Number(value)) || value === 'NaN' || value === 'Infinity' || value === '-Infinity' ? undefined : 'Edm.Double needs a number, or "NaN", "Infinity", "-Infinity"';
    case 'Boolean':
      return value === 'true' || value === 'false' ? undefined : 'Edm.Boolean needs true or false';
    case 'String':
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Names and shared helpers

/** Which service a top-level folder holds. */
export const SERVICE_FOLDERS = ['blob', 'queue', 'table'] as const;

/** Container and queue names: 3–63 lower-case letters, digits and single hyphens (Azure's rule). */
export function isContainerOrQueueName(name: string): boolean {
  return /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,62}$/.test(name);
}

/**
 * The containers Azure names outside its rule for container names: the root container (`$root`),
 * the static website's (`$web`) and the analytics logs' (`$logs`). Azure docs, "Naming and
 * referencing containers, blobs, and metadata"; azurite checks no name that begins with `$`.
 */
export const SPECIAL_CONTAINERS: readonly string[] = ['$root', '$web', '$logs'];

/** Container names: the rule of {@link isContainerOrQueueName}, or one of {@link SPECIAL_CONTAINERS}. */
export function isContainerName(name: string): boolean {
  return isContainerOrQueueName(name) || SPECIAL_CONTAINERS.includes(name);
}

/** Table names: 3–63 letters and digits, not starting with a digit (Azure's rule). */
export function isTableName(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9]{2,62}$/.test(name);
}

/**
 * Why the Azure SDKs cannot reach a blob of this name, or undefined when they can: they put the
 * name into a URL path, and URL parsing resolves `.` and `..` segments away (`a/../b` becomes `b`),
 * so a request for such a name reads, replaces or deletes another blob (or one in another
 * container). Azurite stores such names as given by a client that sends the path unresolved.
 */
export function unreachableBlobName(name: string): string | undefined {
  const segment = name.split('/').find((s) => s === '.' || s === '..');
  return segment === undefined ? undefined
    : `blob "${name}" cannot be reached through the Azure SDK: its URL would drop the "${segment}" segment and name another blob`;
}

/**
 * Characters XML 1.0 cannot carry, which Azurite stores (in a blob's name, a message's text) but then
 * cannot write back in any answer that holds them (its XML writer refuses them: HTTP 500 for every
 * listing of that container, or peek and receive of that queue): C0 controls other than tab, LF and
 * CR, U+FFFE, U+FFFF, and a surrogate without its pair.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNWRITABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/u;

/**
 * Why a blob name or message text would make Azurite fail the answers that hold it, or undefined.
 * @param text the name or text
 * @param what what holds it, e.g. `blob "a\u0001b"`, `the message`
 * @param after what it would break, e.g. `no client could read the queue after it`
 * @returns e.g. `the message holds U+0001, which Azurite stores but cannot write back (XML 1.0 has
 *   no such character): the queue could not be read after it`
 */
export function unwritableText(text: string, what: string, after: string): string | undefined {
  const m = UNWRITABLE.exec(text);
  if (m === null) return undefined;
  const code = m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return `${what} holds U+${code}, which Azurite stores but cannot write back (XML 1.0 has no such character): ${after}`;
}

/** Why a blob of this name would keep its container from being listed ({@link unwritableText}), or undefined. */
export function unwritableBlobName(name: string): string | undefined {
  return unwritableText(name, `blob ${JSON.stringify(name)}`, 'no client could list its container after it');
}

/** Whether `p` (with `/` separators) is a relative path that stays inside its folder. */
function isInside(p: string): boolean {
  if (p === '' || p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.includes('\\')) return false;
  return p.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.keys(record).sort().map((k) => [k, record[k]!]));
}

/** A file's text without the UTF-8 byte order mark that some editors and PowerShell 5's `-Encoding UTF8` write first. */
function withoutBom(text: string): string {
  return text.replace(/^\uFEFF/, '');
}

function parseJson(file: string, line: number, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SnapshotFormatError(file, line, `not JSON: ${(err as Error).message}`);
  }
}

/**
 * Parses JSON lines: a file's text, or its lines (without their ends) as read a line at a time;
 * blank lines are skipped (a trailing newline, hand-made gaps).
 */
function parseJsonLines(file: string, text: string | readonly string[]): { line: number; value: unknown; text: string }[] {
  const out: { line: number; value: unknown; text: string }[] = [];
  const lines = typeof text === 'string' ? text.split('\n') : text;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const json = i === 0 ? withoutBom(raw) : raw;
    out.push({ line: i + 1, value: parseJson(file, i + 1, json), text: json });
  }
  return out;
}

function asObject(file: string, line: number, value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SnapshotFormatError(file, line, `${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

function stringRecord(file: string, line: number, value: unknown, key: string): Record<string, string> {
  const o = asObject(file, line, value, `"${key}"`);
  for (const [k, v] of Object.entries(o)) if (typeof v !== 'string') throw new SnapshotFormatError(file, line, `"${key}.${k}" must be a string`);
  return o as Record<string, string>;
}

/** What an HTTP header name may be (RFC 9110's token; Node refuses a request with any other). */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Why `value` cannot be sent as an HTTP header's value, or undefined when it can: Node (and so the
 * Azure SDKs) refuses any character but a tab, printable ASCII and U+0080–U+00FF, a CR or LF included.
 */
export function headerValueProblem(value: string): string | undefined {
  const m = /[^\t\x20-\x7e\x80-\xff]/.exec(value);
  if (m === null) return undefined;
  const code = m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  return `holds U+${code}, which an HTTP header cannot carry (only tabs, printable ASCII and Latin-1 characters; Azure Storage takes ASCII)`;
}

/**
 * A `metadata` object whose names and values can be sent as headers (`x-ms-meta-<name>`), as the
 * load sends them: checked when the folder is read, not half-way through the load.
 * @throws SnapshotFormatError for a value that is not a string, a name that is not an HTTP token,
 *   a value {@link headerValueProblem} refuses
 */
function metadataRecord(file: string, line: number, value: unknown): Record<string, string> {
  const o = stringRecord(file, line, value, 'metadata');
  for (const [k, v] of Object.entries(o)) {
    if (!HTTP_TOKEN.test(k)) throw new SnapshotFormatError(file, line, `metadata name "${k}" cannot be a header name (letters, digits and _ are safe; Azure takes C# identifiers)`);
    const problem = headerValueProblem(v);
    if (problem !== undefined) throw new SnapshotFormatError(file, line, `"metadata.${k}" ${problem}`);
  }
  return o;
}
