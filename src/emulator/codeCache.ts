/**
 * Loads a bundle with a V8 code cache, so that a new window does not compile it again: the engine
 * (dist/engine.js, 2.75 MiB minified, in the engine's process) and the extension's own composition
 * root (dist/main.js, loaded by the entry point src/entry.ts at activation).
 *
 * Without a cache, the first start in every window compiles the engine bundle and then the functions
 * the blob server runs while it starts; with the cache those steps take about half the time
 * (`npm run bench` measures windows with and without it). Activation likewise compiles dist/main.js
 * and every function `activate()` runs, on the extension host's thread (docs/ARCHITECTURE.md,
 * "Activation").
 *
 * How: Node's documented `vm.Script` API (https://nodejs.org/api/vm.html#new-vmscriptcode-options,
 * `cachedData`, `cachedDataRejected`, `script.createCachedData()`). The bundle is wrapped as Node
 * wraps a CommonJS module and run with a `require` from `module.createRequire(file)`, so it behaves
 * as if required. The cache is written once, only when there was none or V8 refused it (another V8
 * version, another build): for the engine at the end of the warm-up (`preload`: every service's
 * modules, their top level), or after the first start when no warm-up ran (then it also holds the
 * functions that start compiled); for dist/main.js once activation and the warm-up are done. The
 * bundle must not contain `import()`: a vm.Script has no module loader for it (esbuild.mjs fails the
 * build if it does). Process-wide hooks (`module.enableCompileCache`, the `v8-compile-cache`
 * package) are not used: the extension host is shared with other extensions.
 *
 * A cache file is the SHA-256 digest of V8's cache data (32 bytes) followed by that data, and is
 * written to a temporary file that is flushed to disk (fsync) before it is renamed into place. V8
 * checks a cache's header (its version, flags and source length) but not its body, outside debug
 * builds: a body damaged on disk (a power loss after a save that was not flushed, a disk error) is
 * deserialized as it is and crashes the process (SIGSEGV, measured with Node 20), every load, until
 * the file is deleted. So the digest is checked before V8 sees the data; a file whose digest does
 * not match is {@link CodeCacheState} `'damaged'`, loaded without, and written again.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import * as vm from 'node:vm';

/** The folder under the extension's global storage that holds the engine's and the extension's code caches. */
export const CODE_CACHE_FOLDER = 'code-cache';

/** A temporary cache file older than this (ms) is a save that never finished; a save takes well under a second. */
export const STALE_TEMP_MS = 10 * 60_000;

/**
 * A cache made under other V8 flags than this process's, written longer ago than this (ms), is
 * deleted by a save: 14 days. Another window whose engine runs with another heap limit (a
 * window-scoped `azurite.engine.heapLimit`) may still use it; it writes it again if so.
 */
export const STALE_OTHER_FLAGS_MS = 14 * 24 * 60 * 60_000;

/** The length of the digest at the start of a cache file (SHA-256, bytes). */
const DIGEST_BYTES = 32;

/** The SHA-256 digest of `data`. */
function digest(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

/**
 * V8's cache data in a cache file's content (digest, then data); undefined when the digest does not
 * match (a damaged file, or one written by an earlier version of this code, with no digest).
 */
export function cacheData(file: Buffer): Buffer | undefined {
  if (file.length <= DIGEST_BYTES) return undefined;
  const data = file.subarray(DIGEST_BYTES);
  return digest(data).equals(file.subarray(0, DIGEST_BYTES)) ? data : undefined;
}

/** `v8Flags` as the short hash in a cache file's name. */
function flagsKey(v8Flags: string): string {
  return createHash('sha256').update(v8Flags).digest('hex').slice(0, 8);
}

/** What happened to the cache on the last load. */
export type CodeCacheState =
  /** V8 accepted the cache: nothing of the bundle's loaded code was compiled again. */
  | 'used'
  /** No cache file for this bundle and V8 version yet. */
  | 'missing'
  /** A cache file was there but V8 refused it (made by another V8 or other flags). */
  | 'rejected'
  /** A cache file was there but its digest did not match its data; V8 was not given it. */
  | 'damaged'
  /** The cache folder could not be read; loaded without a cache. */
  | 'unreadable';

const STATE_TEXT: Record<CodeCacheState, string> = {
  used: 'used',
  missing: 'none yet, saved once this load has run',
  rejected: 'out of date, saved again once this load has run',
  damaged: 'damaged (its checksum does not match), loaded without it and saved again once this load has run',
  unreadable: 'could not be read, loaded without it',
};

/** Lines for the output channel. */
export interface CodeCacheLog {
  info(line: string): void;
}

/**
 * One CommonJS file loaded through a V8 code cache kept in `cacheDir`.
 *
 * The cache file is `<cacheDir>/<basename>-<flags>-<key>.cache`, where `flags` hashes the V8 flags
 * it was given and the key hashes the V8 version, the file's path, size and mtime: a new build or a new
 * VS Code gets a new file, and {@link save} deletes the others made under the same flags (those made
 * under other flags, by windows whose engine runs with another heap limit, once
 * {@link STALE_OTHER_FLAGS_MS} old). Errors reading or writing the cache are logged and never
 * thrown: loading without a cache is always possible.
 */
export class CodeCachedModule<T> {
  private script: vm.Script | undefined;
  private exports: T | undefined;
  private needsSave = false;
  private saving: Promise<void> | undefined;
  /** The cache file of the file as {@link load} read it (its key names that size and mtime). */
  private loadedCacheFile: string | undefined;
  /** The cache file {@link load} looked for (for the file as it read it); undefined before a load. */
  get loadedFile(): string | undefined {
    return this.loadedCacheFile;
  }

  /** The state of the last {@link load}; undefined before it. */
  state: CodeCacheState | undefined;

  /**
   * @param file absolute path of the CommonJS file (dist/engine.js, dist/main.js).
   * @param cacheDir folder for the cache (the extension's global storage); made when saving.
   * @param log where the load's and the save's lines go.
   * @param label what the lines call the cache ("Engine code cache", "Extension code cache").
   * @param v8Flags the V8 flags the process runs with, as one string, when they can differ between
   *   processes that share the cache folder (the engine's: its heap limit is a window's setting). V8
   *   refuses a code cache made under other flags (it stamps a hash of them into the cache, and
   *   `--max-old-space-size` counts), so caches are kept apart by them. Empty: one set of flags.
   */
  constructor(
    readonly file: string,
    readonly cacheDir: string,
    private readonly log: CodeCacheLog = { info: () => undefined },
    private readonly label = 'Engine code cache',
    private readonly v8Flags = '',
  ) {}

  /** The cache file for the current file and V8 version. Throws if `file` cannot be stat'ed. */
  cacheFile(): string {
    const stat = fs.statSync(this.file);
    const key = createHash('sha256')
      .update(`${process.versions.v8}\0${this.file}\0${stat.size}\0${stat.mtimeMs}`)
      .digest('hex')
      .slice(0, 16);
    return path.join(this.cacheDir, `${path.basename(this.file, '.js')}-${flagsKey(this.v8Flags)}-${key}.cache`);
  }

  /**
   * Runs the file (once; later calls return the same exports) and returns its `module.exports`.
   * Throws what reading, compiling or running the file throws (as `require` would).
   */
  load(): T {
    if (this.exports !== undefined) return this.exports;
    // The key is taken before and after the read: a file rebuilt meanwhile (a watch build) could pair
    // one build's source with another's key, and V8 checks little more than the source's length.
    const cacheFile = this.cacheFile();
    const source = fs.readFileSync(this.file, 'utf8');
    const unchanged = this.cacheFile() === cacheFile;
    let cachedData: Buffer | undefined;
    if (unchanged) {
      try {
        cachedData = cacheData(fs.readFileSync(cacheFile));
        if (cachedData === undefined) this.state = 'damaged';
      } catch (err) {
        this.state = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable';
      }
    } else {
      this.state = 'missing';
    }
    this.loadedCacheFile = unchanged ? cacheFile : undefined;
    // Node's CommonJS wrapper (https://nodejs.org/api/modules.html#the-module-wrapper).
    const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
    const script = new vm.Script(wrapped, { filename: this.file, cachedData });
    if (cachedData !== undefined) this.state = script.cachedDataRejected === true ? 'rejected' : 'used';
    this.needsSave = this.state !== 'used';
    // `module` as code reads it: exports, and `module.require` (a computed require esbuild leaves alone).
    const requireHere = createRequire(this.file);
    const mod = { exports: {} as T, require: requireHere, id: this.file, filename: this.file };
    const run = script.runInThisContext() as (e: T, r: NodeJS.Require, m: typeof mod, f: string, d: string) => void;
    run.call(mod.exports, mod.exports, requireHere, mod, this.file, path.dirname(this.file));
    this.script = script;
    this.exports = mod.exports;
    this.log.info(`${this.label}: ${STATE_TEXT[this.state ?? 'missing']}`);
    return mod.exports;
  }

  /**
   * Writes the cache if the last load had none or V8 refused it; otherwise does nothing. Call it
   * after the loaded code has run what should be cached (a service start). Writes to a temporary
   * file, flushes it to disk and renames it (a failed write removes it), then deletes other caches of the same file (and temporary files older than
   * {@link STALE_TEMP_MS}). Resolves when done; never
   * rejects (a failure is logged).
   */
  save(): Promise<void> {
    if (this.script === undefined || !this.needsSave) return this.saving ?? Promise.resolve();
    this.needsSave = false;
    const script = this.script;
    this.saving = (async () => {
      let temp: string | undefined;
      try {
        // Under the key of the source that was compiled, and only while the file is still that one.
        const target = this.loadedCacheFile;
        if (target === undefined || this.cacheFile() !== target) throw new Error(`${this.file} changed after it was loaded`);
        const data = script.createCachedData();
        await fs.promises.mkdir(this.cacheDir, { recursive: true });
        temp = `${target}.${process.pid}.tmp`;
        const handle = await fs.promises.open(temp, 'w');
        try {
          await handle.writeFile(Buffer.concat([digest(data), data]));
          await handle.sync();
        } finally {
          await handle.close();
        }
        await fs.promises.rename(temp, target);
        temp = undefined;
        const base = path.basename(this.file, '.js');
        const sameFlags = `${base}-${flagsKey(this.v8Flags)}-`;
        const ofFlags = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-[0-9a-f]{8}-[0-9a-f]{16}\\.cache$`);
        const age = async (file: string): Promise<number | undefined> => {
          const stat = await fs.promises.stat(file).catch(() => undefined); // gone: renamed or deleted meanwhile
          return stat === undefined ? undefined : Date.now() - stat.mtimeMs;
        };
        for (const name of await fs.promises.readdir(this.cacheDir)) {
          const other = path.join(this.cacheDir, name);
          if (!name.startsWith(`${base}-`) || other === target) continue;
          let remove: boolean;
          if (name.endsWith('.tmp')) {
            // May be another window's save in progress: only one left behind (by a window closed
            // mid-save) and older than STALE_TEMP_MS is removed.
            remove = ((await age(other)) ?? 0) > STALE_TEMP_MS;
          } else if (!name.endsWith('.cache')) {
            remove = false;
          } else if (name.startsWith(sameFlags) || !ofFlags.test(name)) {
            // Another build or V8 under the same flags, or a name of an earlier version of this code.
            remove = true;
          } else {
            remove = ((await age(other)) ?? 0) > STALE_OTHER_FLAGS_MS;
          }
          if (remove) await fs.promises.rm(other, { force: true });
        }
        this.log.info(`${this.label} saved (${(data.length / 1048576).toFixed(1)} MiB, ${target}): the next window starts faster.`);
      } catch (err) {
        // A partial file on a full disk would keep the space the next write of user data needs.
        if (temp !== undefined) await fs.promises.rm(temp, { force: true }).catch(() => undefined);
        this.log.info(`${this.label} not saved: ${(err as Error).message}`);
      }
    })();
    return this.saving;
  }
}
