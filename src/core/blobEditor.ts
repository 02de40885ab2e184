/**
 * Which editor suits a blob's content, from its Content-Type and name: what the Storage view's Open
 * uses to choose between VS Code's text editor, its image preview (`imagePreview.previewEditor`)
 * and the hex editor. Pure; no vscode.
 */
import { lookup as mimeLookup } from 'mime-types';

const TEXT_TYPES = /^(text\/|message\/|application\/(json|xml|javascript|x-javascript|ecmascript|x-sh|x-yaml|yaml|toml|sql|graphql|x-ndjson|ld\+json)|.*\+(json|xml)$)/i;
const IMAGE_TYPES = /^image\/(png|jpe?g|gif|webp|bmp|x-icon|vnd\.microsoft\.icon|svg\+xml|avif)$/i;
const IMAGE_EXTENSIONS = /\.(png|jpe?g|gif|webp|bmp|ico|svg|avif|jfif|pjpeg|pjp)$/i;
/**
 * Source files that VS Code opens as text but that the `mime-types` package (what uploads use)
 * types as something else: `.ts`, `.mts` as `video/mp2t`, `.cjs` as `application/node`, `.php`,
 * `.pl`, `.pm`, `.tex`, `.srt`, `.bat`, `.dart` as `application/x-…` or `application/vnd.…`.
 */
const SOURCE_EXTENSIONS = /\.(ts|mts|cts|cjs|php|pl|pm|tex|srt|bat|dart|pem|key|csr|crt|cer|pub|asc|rtf|m3u8?)$/i;
/**
 * Text files known by their whole name, most without an extension (the last segment of a blob
 * name, any case): build and project files, a repository's notes, and dotfiles.
 */
const TEXT_NAMES = /(^|\/)(dockerfile|containerfile|makefile|gnumakefile|readme|license|licence|copying|notice|authors|contributors|changelog|changes|codeowners|procfile|jenkinsfile|gemfile|rakefile|vagrantfile|brewfile|\.editorconfig|\.gitattributes|\.gitignore|\.dockerignore|\.npmignore|\.env(\.[^/]*)?|\.[a-z0-9_-]+rc)$/i;
/** Binary files `mime-types` does not know (databases, packages, media): the hex editor. */
const BINARY_EXTENSIONS = /\.(bin|dat|db|sqlite3?|mdb|exe|dll|so|dylib|zip|gz|tgz|7z|rar|pdf|parquet|avro|orc|wasm|mp[34]|wav|ogg|mov|woff2?|ttf|otf|tiff?)$/i;

/**
 * Which editor suits a blob: `image` (VS Code's image preview), `text`, or `binary`. By Content-Type
 * first; for no type or `application/octet-stream` (what the Blob service stores when none is
 * given) by the name's extension, which is what VS Code itself goes by: the type `mime-types` gives
 * it when it knows it, text when it does not (source files), binary for none or a known binary one;
 * and text for a file known by its whole name ({@link TEXT_NAMES}: a Dockerfile, .editorconfig). A source file whose
 * extension `mime-types` types as something else ({@link SOURCE_EXTENSIONS}: a `.ts` uploaded as
 * `video/mp2t`) is text; if its content is binary after all, VS Code's text editor says so.
 * @param name the blob name
 * @param contentType its Content-Type (parameters such as `; charset=` are ignored)
 */
export function editorFor(name: string, contentType: string | undefined): 'image' | 'text' | 'binary' {
  const type = (contentType ?? '').split(';')[0]!.trim();
  if (IMAGE_TYPES.test(type) || (IMAGE_EXTENSIONS.test(name) && (type === '' || type === 'application/octet-stream'))) return 'image';
  if (TEXT_TYPES.test(type) || SOURCE_EXTENSIONS.test(name)) return 'text';
  if (type === '' || type === 'application/octet-stream') {
    if (TEXT_NAMES.test(name)) return 'text';
    if (!/\.[A-Za-z0-9]{1,10}$/.test(name) || BINARY_EXTENSIONS.test(name)) return 'binary';
    // An extension `mime-types` knows decides (a .docx, .xlsx, .jar or .tar is binary, a .csv text);
    // one it does not know is most likely source (.py, .go, .cs, .tf).
    const known = mimeLookup(name);
    return known === false || TEXT_TYPES.test(known) ? 'text' : 'binary';
  }
  return 'binary';
}

/**
 * The modification time to report for a blob (ms since the epoch), so that VS Code reloads an open
 * editor on every rewrite. VS Code compares a file's mtime and size; a blob's Last-Modified has
 * whole seconds only, so a rewrite of the same size within the same second would look unchanged.
 * Its ETag changes on every write: a hash of it fills the milliseconds, which Last-Modified leaves 0.
 * @param lastModified the blob's Last-Modified (undefined: 0)
 * @param etag the blob's ETag (undefined: the milliseconds stay as they are)
 */
export function blobMtime(lastModified: Date | undefined, etag: string | undefined): number {
  const ms = lastModified?.getTime() ?? 0;
  if (etag === undefined) return ms;
  let hash = 0;
  for (let i = 0; i < etag.length; i++) hash = (hash * 31 + etag.charCodeAt(i)) >>> 0;
  return ms - (ms % 1000) + (hash % 1000);
}

/**
 * The file name a blob is saved as in a folder (Save Blobs…): the last part of its name after `/`,
 * and on Windows after `\` too, which is a separator there: `..\evil.txt` would be saved in the
 * folder's parent, and `logs\a.txt` in a folder that may not exist. Empty, `.` or `..` when the
 * name ends in no file name.
 * @param platform `process.platform` by default
 */
export function blobFileName(name: string, platform: NodeJS.Platform = process.platform): string {
  const last = name.slice(name.lastIndexOf('/') + 1);
  return platform === 'win32' ? last.slice(last.lastIndexOf('\\') + 1) : last;
}

/**
 * What two file names of one folder are compared by on this platform's usual file system: as
 * written on Linux; on macOS (APFS) and Windows (NTFS) without regard to case and, on macOS, to
 * the Unicode form (APFS keeps both forms of "é" apart as names but opens either for the other;
 * NTFS keeps them apart).
 * Two blobs whose file names are alike here would be written to one file, the second replacing the first.
 * @param platform `process.platform` by default
 */
export function fileNameKey(file: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return file.normalize('NFC').toLowerCase();
  return platform === 'win32' ? file.toLowerCase() : file;
}
