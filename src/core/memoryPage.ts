/**
 * The memory usage page (a webview): figures and an SVG chart of use against the limit over the
 * last minutes. Pure: state in, HTML out. Colours are VS Code theme variables
 * (https://code.visualstudio.com/api/references/theme-color: --vscode-charts-*, --vscode-foreground …),
 * so the page follows the user's theme.
 */
import { describeLimitSource, formatBytes, formatUsage, groupDigits, percentUsed, type MemoryReport } from './memory';
import { HISTORY_WINDOW_MS, type MemorySample } from './memoryHistory';
import { memoryLevel, memoryLevelWords } from './statusView';

/** Everything the page shows. Sizes in bytes; `now` in ms since the epoch. */
export interface MemoryPageInput {
  readonly report: MemoryReport;
  readonly inMemory: boolean;
  readonly metadataEstimateBytes: number;
  readonly heapUsedBytes: number;
  readonly rssBytes: number;
  readonly samples: readonly MemorySample[];
  readonly now: number;
  readonly warningThreshold: number;
  /** The webview's CSP source (webview.cspSource). */
  readonly cspSource: string;
  /** The Azurite this window is attached to (`azurite.attach`, its label), whose memory is its own; undefined when not attached. */
  readonly attachedTo?: string;
}

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The shortest time span the chart shows, in ms. */
export const MIN_CHART_SPAN_MS = 60 * 1000;

/**
 * The chart: a step line of use (blue) and of the limit (red, dashed) up to `now`, over the time
 * since the first sample (at least {@link MIN_CHART_SPAN_MS}, at most HISTORY_WINDOW_MS); y from 0
 * to 110% of the limit in force (the last sample's) or of the most used in the samples, whichever is
 * larger, so the limit line stays visible. An earlier, higher limit runs along the top edge: scaled
 * to it, use under a lowered limit would sit flat at 0 for as long as the history keeps it.
 * `id="usage-chart"`; the last value is in `data-used-bytes` for tests and screen readers.
 * @param samples in time order, as MemoryHistory.window gives them (bytes; `t` in ms since the epoch)
 * @param now ms since the epoch
 */
export function memoryChartSvg(samples: readonly MemorySample[], now: number, width = 640, height = 220): string {
  const first = samples[0]?.t ?? now;
  const span = Math.min(HISTORY_WINDOW_MS, Math.max(MIN_CHART_SPAN_MS, now - first));
  const from = now - span;
  const top = Math.max(1, samples.at(-1)?.limitBytes ?? 0, ...samples.map((s) => s.usedBytes)) * 1.1;
  const x = (t: number): number => Math.round(((Math.max(t, from) - from) / span) * width * 10) / 10;
  const y = (b: number): number => Math.round((height - (Math.min(b, top) / top) * height) * 10) / 10;
  const steps = (pick: (s: MemorySample) => number): string => {
    if (samples.length === 0) return '';
    const pts: string[] = [];
    samples.forEach((s, i) => {
      if (i > 0) pts.push(`${x(s.t)},${y(pick(samples[i - 1]!))}`);
      pts.push(`${x(s.t)},${y(pick(s))}`);
    });
    pts.push(`${width},${y(pick(samples[samples.length - 1]!))}`);
    return pts.join(' ');
  };
  const last = samples[samples.length - 1];
  const spanLabel = span >= 60_000 ? `${Math.round(span / 6000) / 10} min` : `${Math.round(span / 1000)} s`;
  return `<svg id="usage-chart" role="img" aria-label="Memory use over the last ${spanLabel}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" data-used-bytes="${last?.usedBytes ?? 0}">
  <rect x="0" y="0" width="${width}" height="${height}" class="frame"/>
  <polyline class="limit" points="${steps((s) => s.limitBytes)}"/>
  <polyline class="used" points="${steps((s) => s.usedBytes)}"/>
  <text x="4" y="14" class="axis">${esc(formatBytes(top))}</text>
  <text x="4" y="${height - 4}" class="axis">−${spanLabel}</text>
  <text x="${width - 4}" y="${height - 4}" class="axis end">now</text>
</svg>`;
}

/**
 * The script of a page that takes updates without a reload: a message `{ type: 'update', body }`
 * (the body's HTML from {@link memoryPageBody}) patches the document node by node, so that what did
 * not change keeps its text selection, and the scroll position stays. Setting a webview's html
 * reloads it, which lost both every 2 s.
 */
const UPDATE_SCRIPT = `
  const patch = (a, b) => {
    if (a.isEqualNode(b)) return;
    if (a.nodeType === Node.TEXT_NODE && b.nodeType === Node.TEXT_NODE) { a.data = b.data; return; }
    if (a.nodeType !== Node.ELEMENT_NODE || a.nodeName !== b.nodeName || a.childNodes.length !== b.childNodes.length) { a.replaceWith(b.cloneNode(true)); return; }
    for (const { name } of [...a.attributes]) if (!b.hasAttribute(name)) a.removeAttribute(name);
    for (const { name, value } of [...b.attributes]) if (a.getAttribute(name) !== value) a.setAttribute(name, value);
    [...a.childNodes].forEach((c, i) => patch(c, b.childNodes[i]));
  };
  window.addEventListener('message', (event) => {
    if (event.data?.type !== 'update' || typeof event.data.body !== 'string') return;
    const next = new DOMParser().parseFromString('<!DOCTYPE html><html><body>' + event.data.body + '</body></html>', 'text/html').body;
    patch(document.body, next);
  });`;

/**
 * The whole page.
 * @param nonce when given, the page carries {@link UPDATE_SCRIPT} (allowed by this nonce in its
 *   Content Security Policy) and takes later renders as `{ type: 'update', body: memoryPageBody(…) }`
 *   messages; the webview then needs `enableScripts`
 */
export function memoryPageHtml(input: MemoryPageInput, nonce?: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${input.cspSource} 'unsafe-inline';${nonce !== undefined ? ` script-src 'nonce-${nonce}';` : ''}">
<title>Azurite Memory Usage</title>
<style>
  body { color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 0 16px; }
  h1 { font-size: 1.3em; font-weight: 600; }
  .level-warning { color: var(--vscode-editorWarning-foreground); }
  .level-error { color: var(--vscode-editorError-foreground); }
  table { border-collapse: collapse; margin: 8px 0 16px; }
  th { text-align: left; font-weight: normal; color: var(--vscode-descriptionForeground); padding: 2px 16px 2px 0; }
  td { padding: 2px 0; }
  svg .frame { fill: none; stroke: var(--vscode-panel-border, var(--vscode-widget-border)); }
  svg .used { fill: none; stroke: var(--vscode-charts-blue); stroke-width: 2; }
  svg .limit { fill: none; stroke: var(--vscode-charts-red); stroke-width: 1.5; stroke-dasharray: 6 4; }
  svg .axis { fill: var(--vscode-descriptionForeground); font-size: 11px; }
  svg .end { text-anchor: end; }
  .legend span { margin-right: 16px; }
  .swatch-used { color: var(--vscode-charts-blue); } .swatch-limit { color: var(--vscode-charts-red); }
  p.note { color: var(--vscode-descriptionForeground); max-width: 60em; }
</style>${nonce !== undefined ? `<script nonce="${nonce}">${UPDATE_SCRIPT}</script>` : ''}</head>
<body>${memoryPageBody(input)}</body></html>`;
}

/**
 * The page's body (its inner HTML): the figures, the chart and the note. The page holds it exactly
 * (no whitespace added around it), so an update's body parses to the same nodes.
 */
export function memoryPageBody(input: MemoryPageInput): string {
  const r = input.report;
  const pct = percentUsed(r);
  const level = memoryLevel(r, input.warningThreshold);
  const row = (k: string, v: string, id: string): string => `<tr><th>${esc(k)}</th><td id="${id}">${esc(v)}</td></tr>`;
  const bytes = (n: number): string => `${formatBytes(n)} (${groupDigits(n)} bytes)`;
  const limitNote = describeLimitSource(r);
  // The level in words too, not by colour alone.
  const levelWords = memoryLevelWords(r, input.warningThreshold);
  const attached = input.attachedTo === undefined ? ''
    : `<p class="note" id="attached">This window is attached to the Azurite at ${esc(input.attachedTo)} (azurite.attach), whose memory is its own and not shown here. These figures are the local emulator's, whose services stay stopped while attached.</p>\n`;
  return `<h1 id="headline" class="level-${level}">In-memory extents: ${esc(formatUsage(r))} (${pct}%)${levelWords}</h1>
${attached}${input.inMemory ? '' : '<p class="note">Blob and Queue hold no data in memory now (stopped, or running with their data on disk as they started; a start or restart applies azurite.inMemoryPersistence): the memory limit does not apply to them.</p>'}
<table>
${row('Blob content', bytes(r.blobBytes), 'blob-bytes')}
${row('Queue messages', bytes(r.queueBytes), 'queue-bytes')}
${row('Limit', `${bytes(r.limitBytes)} — ${limitNote}`, 'limit-bytes')}
${row('Warning threshold', `${input.warningThreshold}% (azurite.memory.warningThreshold)`, 'threshold')}
${row('Not counted: table entities and metadata (estimate)', bytes(input.metadataEstimateBytes), 'metadata-bytes')}
${row('Engine heap used', bytes(input.heapUsedBytes), 'heap-bytes')}
${row('Engine process resident memory (RSS)', bytes(input.rssBytes), 'rss-bytes')}
</table>
<div class="legend"><span class="swatch-used">━ used</span><span class="swatch-limit">╍ limit</span></div>
${memoryChartSvg(input.samples, input.now)}
<p class="note">Counted against the limit: blob content and queue message text, as Azurite counts them
(MemoryExtentStore). Table entities and all metadata live in LokiJS outside the limit; their size is
estimated as the JSON length of LokiJS's documents (without content buffers, which are extent data),
which follows but does not equal their heap use. Heap and RSS are the engine's own process's; the
extension host's are not in them.
Deleted blobs and messages leave memory when Azurite's GC runs (blob every 10 minutes, queue every
minute), which spares content written in the last 10 minutes (so up to about 20 minutes for blobs),
or at once with <em>Azurite: Reclaim Memory</em>.</p>
`;
}
