/**
 * The Storage view's Markdown tooltip of a blob. Pure: no vscode. Names and content types come
 * from whoever wrote the blob (a shared or attached Azurite too), so they are escaped: a name such
 * as `__init__.py` stays as written, and `[x](https://…)`, `![](https://…)` or a bare URL is text,
 * never a link or a remote image fetched on hover.
 */
import { escapeMarkdown } from './statusView';

/** Markdown-escaped text in which no URL is recognized either (`https\://`: no autolink). */
function text(s: string): string {
  return escapeMarkdown(s).replace(/:/g, '\\:');
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
 * The tooltip's Markdown, one line per fact: the name in bold, size in bytes and blob type,
 * Content-Type, Last modified (ISO 8601).
 */
export function blobTooltipMarkdown(b: BlobTooltipInfo): string {
  return [
    `**${text(b.name)}**`,
    `${b.size.toLocaleString('en-US')} bytes · ${text(b.blobType ?? 'blob')}`,
    `Content-Type: ${b.contentType === undefined ? '(none)' : text(b.contentType)}`,
    `Last modified: ${b.lastModified?.toISOString() ?? '?'}`,
  ].join('  \n');
}
