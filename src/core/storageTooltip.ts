/**
 * The Storage view's Markdown tooltip of a blob, and how it shows a blob's name. Pure: no vscode.
 * Names and content types come from whoever wrote the blob (a shared or attached Azurite too), so
 * they are escaped: a name such as `__init__.py` stays as written, and `[x](https://…)`,
 * `![](https://…)` or a bare URL is text, never a link or a remote image fetched on hover.
 */
import { escapeMarkdown } from './statusView';

/** Markdown-escaped text in which no URL is recognized either (`https\://`: no autolink). */
function text(s: string): string {
  return escapeMarkdown(s).replace(/:/g, '\\:');
}

/**
 * A blob or folder name as the Storage view shows it: each control character (U+0000–U+001F, U+007F)
 * as its Unicode control picture (U+2400–U+241F, U+2421), so that "x\ry" shows as "x␍y". A tree
 * label would show a carriage return, tab or line feed as a space, or as nothing. For display only:
 * commands act on the name itself.
 * @param name a blob name, or a part of one
 */
export function visibleName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u001f\u007f]/g, (c) => String.fromCharCode(c === '\u007f' ? 0x2421 : 0x2400 + c.charCodeAt(0)));
}

/** What the tooltip shows of a blob (the view's listing, src/data/browse.ts `BlobInfo`). */
export interface BlobTooltipInfo {
  /** The full blob name. */
  readonly name: string;
  /** Content length, bytes. */
  readonly size: number;
  readonly blobType?: string | undefined;
  readonly contentType?: string | undefined;
  readonly lastModified?: Date | undefined;
}

/**
 * The tooltip's Markdown, one line per fact: the name in bold (control characters as
 * {@link visibleName} shows them), size in bytes and blob type, Content-Type, Last modified (ISO 8601).
 */
export function blobTooltipMarkdown(b: BlobTooltipInfo): string {
  return [
    `**${text(visibleName(b.name))}**`,
    `${b.size.toLocaleString('en-US')} bytes · ${text(b.blobType ?? 'blob')}`,
    `Content-Type: ${b.contentType === undefined ? '(none)' : text(b.contentType)}`,
    `Last modified: ${b.lastModified?.toISOString() ?? '?'}`,
  ].join('  \n');
}
