/**
 * The Storage view's blob tooltip (src/core/storageTooltip.ts): what a client wrote into a blob's
 * name or content type stays text in the Markdown, never emphasis, a link or an image.
 */
import * as assert from 'node:assert/strict';
import { blobTooltipMarkdown, visibleName } from '../../../src/core/storageTooltip';

describe('core/storageTooltip', () => {
  it('escapes Markdown in the name and content type; the facts are one per line', () => {
    const md = blobTooltipMarkdown({
      name: 'src/__init__.py',
      size: 12345,
      blobType: 'BlockBlob',
      contentType: 'text/x-python',
      lastModified: new Date('2026-11-26T10:00:00Z'),
    });
    assert.equal(md, [
      '**src/\\_\\_init\\_\\_\\.py**',
      '12,345 bytes · BlockBlob',
      'Content-Type: text/x\\-python',
      'Last modified: 2026-11-26T10:00:00.000Z',
    ].join('  \n'));
  });

  it('leaves no link, image or HTML of a hostile name or content type', () => {
    const md = blobTooltipMarkdown({ name: '[Fix](https://evil.example) ![](https://evil.example/x.png) <img src=x>', size: 0, contentType: '[t](command:workbench.action.quit)' });
    assert.doesNotMatch(md, /(?<!\\)\[|(?<!\\)\]\(|(?<!\\)</);
    assert.match(md, /^Content-Type: \\\[t\\\]\\\(command\\:workbench\\\.action\\\.quit\\\)/m);
    // No bare URL either (GFM autolinks one): its scheme's colon is escaped.
    assert.doesNotMatch(md, /(?<!\\):\/\//);
    assert.deepEqual(md.split('  \n').slice(1).map((l) => l.split(':')[0]), ['0 bytes · blob', 'Content-Type', 'Last modified']);
  });

  it('shows control characters of a name as their control pictures, and nothing else changed', () => {
    assert.equal(visibleName('x\ry\r\nz\ttab\u0000\u001f\u007f'), 'x␍y␍␊z␉tab␀␟␡');
    assert.equal(visibleName('x&#xD;y ü/✓'), 'x&#xD;y ü/✓');
    assert.equal(blobTooltipMarkdown({ name: 'x\ry', size: 1 }).split('  \n')[0], '**x␍y**');
  });
});
