import * as assert from 'node:assert/strict';
import { HISTORY_WINDOW_MS, MemoryHistory } from '../../../src/core/memoryHistory';
import { memoryChartSvg, memoryPageBody, memoryPageHtml } from '../../../src/core/memoryPage';
import { memoryLevel } from '../../../src/core/statusView';

const MiB = 1024 * 1024;
const report = (used: number, limit = MiB) => ({ blobBytes: used, queueBytes: 0, usedBytes: used, limitBytes: limit, isDefaultLimit: false });

describe('core/memoryHistory', () => {
  it('keeps changes only, within the window plus the value in force at its start', () => {
    const h = new MemoryHistory();
    h.add({ t: 0, usedBytes: 1, limitBytes: 10 });
    h.add({ t: 1000, usedBytes: 1, limitBytes: 10 }); // same value: dropped
    h.add({ t: 2000, usedBytes: 5, limitBytes: 10 });
    h.add({ t: HISTORY_WINDOW_MS + 3000, usedBytes: 7, limitBytes: 10 });
    assert.deepEqual(h.window(HISTORY_WINDOW_MS + 3000).map((s) => s.usedBytes), [5, 7]);
  });
});

describe('core/memoryPage', () => {
  it('draws use and limit as step lines scaled to the limit in force, the last value in data-used-bytes', () => {
    const now = HISTORY_WINDOW_MS;
    const svg = memoryChartSvg([{ t: 0, usedBytes: 0, limitBytes: 100 }, { t: now / 2, usedBytes: 55, limitBytes: 100 }], now, 100, 110);
    assert.match(svg, /data-used-bytes="55"/);
    // y is scaled to 110% of the largest value: the limit (100) sits at 10 of 110.
    assert.match(svg, /class="used" points="0,110 50,110 50,55 100,55"/);
    assert.match(svg, /class="limit" points="0,10 50,10 50,10 100,10"/);
    assert.match(svg, />−10 min</);
    // The span follows the data: 2 minutes of samples, 2 minutes of chart (at least 1 minute).
    assert.match(memoryChartSvg([{ t: 0, usedBytes: 1, limitBytes: 2 }], 120_000), />−2 min</);
    assert.match(memoryChartSvg([{ t: 0, usedBytes: 1, limitBytes: 2 }], 5_000), />−1 min</);
  });

  it('scales to a lowered limit at once: the earlier, higher limit runs along the top edge, and use is drawn against the new one', () => {
    const now = HISTORY_WINDOW_MS;
    const GiB = 1024 * MiB;
    // 8 GB (a default of half the memory), lowered to 1 MB half-way; 0.5 MB in use since.
    const svg = memoryChartSvg([{ t: 0, usedBytes: 0, limitBytes: 8 * GiB }, { t: now / 2, usedBytes: 0.5 * MiB, limitBytes: MiB }], now, 100, 110);
    assert.match(svg, /class="limit" points="0,0 50,0 50,10 100,10"/);
    assert.match(svg, /class="used" points="0,110 50,110 50,60 100,60"/);
    assert.match(svg, />1\.1 MB</, 'the axis names 110% of the limit in force');
    // Use higher earlier in the window than the limit now (a Clean, then the limit lowered) stays on the chart.
    const cleaned = memoryChartSvg([{ t: 0, usedBytes: 2 * MiB, limitBytes: 8 * GiB }, { t: now / 2, usedBytes: 0, limitBytes: 8 * GiB }, { t: now / 2, usedBytes: 0, limitBytes: MiB }], now, 100, 110);
    assert.match(cleaned, /class="used" points="0,10 50,10 50,110 50,110 50,110 100,110"/);
    assert.match(cleaned, /class="limit" points="0,0 50,0 50,0 50,0 50,60 100,60"/);
  });

  it('shows the figures, the limit source, the estimate and theme colours, and escapes nothing unsafe', () => {
    const html = memoryPageHtml({
      report: { ...report(943718), isDefaultLimit: true }, inMemory: true, metadataEstimateBytes: 2048, heapUsedBytes: 10 * MiB, rssBytes: 50 * MiB,
      samples: [], now: 0, warningThreshold: 80, cspSource: 'vscode-resource:',
    });
    assert.match(html, /<h1 id="headline" class="level-warning">In-memory extents: 0\.9 MB \/ 1 MB \(90%\) — above the 80% warning threshold<\/h1>/);
    assert.doesNotMatch(html, /id="attached"/);
    assert.match(html, /the default, 50% of total memory or of a container&#39;s memory limit \(azurite.extentMemoryLimit is unset\)/);
    assert.match(html, /id="metadata-bytes">2 KB \(2,048 bytes\)/);
    assert.match(html, /var\(--vscode-charts-blue\)/);
    assert.match(html, /Content-Security-Policy" content="default-src 'none'; style-src vscode-resource: 'unsafe-inline';"/);
    assert.doesNotMatch(html, /<script/);
  });

  it('says when the window is attached to another Azurite, whose memory it does not show', () => {
    const body = memoryPageBody({
      report: report(0), inMemory: true, metadataEstimateBytes: 0, heapUsedBytes: 0, rssBytes: 0,
      samples: [], now: 0, warningThreshold: 80, cspSource: 'vscode-resource:', attachedTo: 'http://<docker>:10000',
    });
    assert.match(body, /<p class="note" id="attached">This window is attached to the Azurite at http:\/\/&#60;docker&#62;:10000 \(azurite\.attach\), whose memory is its own and not shown here\./);
  });

  it('with a nonce, carries only its own script, allowed by that nonce, and a body that updates send alone', () => {
    const input = {
      report: report(1024), inMemory: false, metadataEstimateBytes: 0, heapUsedBytes: 0, rssBytes: 0,
      samples: [], now: 0, warningThreshold: 80, cspSource: 'vscode-resource:',
    };
    const html = memoryPageHtml(input, 'bm9uY2U=');
    assert.match(html, /content="default-src 'none'; style-src vscode-resource: 'unsafe-inline'; script-src 'nonce-bm9uY2U=';"/);
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.match(html, /<script nonce="bm9uY2U=">/);
    const body = memoryPageBody(input);
    assert.ok(html.includes(`<body>${body}</body>`), 'the body as updates send it, nothing around it');
    assert.doesNotMatch(body, /<script|<body/);
  });

  it('levels: warning from the threshold, error from 95%', () => {
    assert.equal(memoryLevel(report(0.5 * MiB), 80), 'normal');
    assert.equal(memoryLevel(report(0.5 * MiB), 50), 'warning');
    assert.equal(memoryLevel(report(0.8 * MiB), 80), 'warning');
    assert.equal(memoryLevel(report(0.95 * MiB), 80), 'error');
  });
});
