/**
 * The URI template cache of the engine seam: the bundled isURITemplateMatch (blob, queue, table;
 * with the cache) answers exactly as azurite's own from node_modules (without it) for every
 * operation path of the three services against realistic and odd request paths, in shuffled
 * order and repeatedly (a cached template must carry no state from one match to the next).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { MAX_CACHED_MATCHES, MAX_CACHED_TEMPLATES, memoizeTemplateMatch, memoizeUriTemplate } from '../../../src/engine/uriTemplateCache';

type Match = (url: string, template: string) => boolean;
interface Spec { path?: string }
const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const SERVICES = ['blob', 'queue', 'table'] as const;
const BUNDLE_EXPORT = { blob: 'azuriteBlobGeneratedUtils', queue: 'azuriteQueueGeneratedUtils', table: 'azuriteTableGeneratedUtils' } as const;

/** Request paths as the dispatch middlewares build them, plus odd ones. */
const PATHS: Record<(typeof SERVICES)[number], string[]> = {
  blob: ['/', '/container', '/container/blob', '/c', '/c/b', '/$logs', '/$root/b', '/c/a%20b', '/c/dir/sub/file.txt', '//', '/c/', '/c//b', ''],
  queue: ['/', '/queue', '/queue/messages', '/queue/messages/messageId', '/q', '/q/messages', '/q/messages/00000000-0000', '/q/other', '/q/messages/', ''],
  table: ['/', '/Tables', "/Tables('t')", '/$batch', '/t', '/t()', "/t(PartitionKey='p',RowKey='r')", "/t(PartitionKey='a%20b',RowKey='')",
    "/t(PartitionKey='p')", "/Tables('')", '/Tables()', "/t(PartitionKey='p',RowKey='r',X='y')", "/t(PartitionKey='%E6%95%B0',RowKey='r%27')", ''],
};

function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('URI template cache (src/engine/uriTemplateCache.ts)', () => {
  it('parses each template text once and returns the same parsed template', () => {
    let parses = 0;
    const cached = memoizeUriTemplate((t: string) => ({ t, n: ++parses }));
    const a = cached('{containerName}/{blob}');
    assert.equal(cached('{containerName}/{blob}'), a);
    assert.notEqual(cached('{containerName}'), a);
    assert.equal(parses, 2);
  });

  it('stays bounded: past MAX_CACHED_TEMPLATES distinct texts it starts over', () => {
    let parses = 0;
    const cached = memoizeUriTemplate((t: string) => ({ t, n: ++parses }));
    for (let i = 0; i <= MAX_CACHED_TEMPLATES; i++) cached(`t${i}`);
    assert.equal(parses, MAX_CACHED_TEMPLATES + 1);
    cached(`t${MAX_CACHED_TEMPLATES}`); // kept after the reset
    assert.equal(parses, MAX_CACHED_TEMPLATES + 1);
    cached('t0'); // dropped by the reset
    assert.equal(parses, MAX_CACHED_TEMPLATES + 2);
  });

  it('answers each (url, template) pair once, keeps pairs apart, and stays bounded', () => {
    const calls: string[] = [];
    const match = memoizeTemplateMatch((url, template) => { calls.push(`${url} ${template}`); return url.length > template.length; });
    assert.equal(match('/abc', '/a'), true);
    assert.equal(match('/abc', '/a'), true);
    assert.equal(match('/a', '/abc'), false);
    assert.equal(match('/a', '/abc'), false);
    assert.equal(match('/a b', 'c'), true); // no collision between ("/a b", "c") and ("/a", "b c")
    assert.equal(match('/a', 'b c'), false);
    assert.deepEqual(calls, ['/abc /a', '/a /abc', '/a b c', '/a b c']);
    calls.length = 0;
    for (let i = 0; i <= MAX_CACHED_MATCHES; i++) match(`/t${i}`, '/x');
    assert.equal(calls.length, MAX_CACHED_MATCHES + 1);
    match(`/t${MAX_CACHED_MATCHES}`, '/x'); // kept after the reset
    assert.equal(calls.length, MAX_CACHED_MATCHES + 1);
  });

  describe('in the bundle, against azurite\'s own isURITemplateMatch', function () {
    this.timeout(60_000);
    let bundle: Record<string, { isURITemplateMatch: Match }>;
    before(() => {
      execFileSync(process.execPath, [path.join(repoRoot, 'esbuild.mjs'), '--engine-bundle'], { cwd: repoRoot, stdio: 'pipe' });
      bundle = require(path.join(repoRoot, 'out', 'engine-bundle.js')) as typeof bundle;
    });

    it('is applied to the three services\' isURITemplateMatch', () => {
      const text = require('node:fs').readFileSync(path.join(repoRoot, 'out', 'engine-bundle.js'), 'utf8') as string;
      assert.equal(text.match(/\.memoizeUriTemplate\(uri_templates_\d*\.default\)/g)?.length, 3);
      for (const service of SERVICES) {
        const original = require(`azurite/dist/src/${service}/generated/utils/utils`) as { isURITemplateMatch: Match };
        const patched = bundle[BUNDLE_EXPORT[service]]!.isURITemplateMatch;
        assert.match(patched.name, /^cached\d*$/, `${service}: the bundled isURITemplateMatch is the memoized one`);
        assert.equal(original.isURITemplateMatch.name, 'isURITemplateMatch');
      }
    });

    for (const service of SERVICES) {
      it(`${service}: same result for every operation path × request path, shuffled, three times`, () => {
        const original = require(`azurite/dist/src/${service}/generated/utils/utils`) as { isURITemplateMatch: Match };
        const specs = require(`azurite/dist/src/${service}/generated/artifacts/specifications`) as { default: Record<string, Spec> };
        // As dispatch.middleware.js builds the template from spec.path.
        const templates = [...new Set(Object.values(specs.default).map((s) => (s.path ? (s.path.startsWith('/') ? s.path : `/${s.path}`) : '/')))];
        const patched = bundle[BUNDLE_EXPORT[service]]!.isURITemplateMatch;
        assert.notEqual(patched, undefined);
        const pairs = PATHS[service].flatMap((p) => templates.map((t) => [p, t] as const));
        let matches = 0;
        for (let round = 0; round < 3; round++) {
          for (const [url, template] of shuffled(pairs, round + 1)) {
            const expected = original.isURITemplateMatch(url, template);
            assert.equal(patched(url, template), expected, `${service}: ${JSON.stringify(url)} against ${template}`);
            if (expected) matches++;
          }
        }
        assert.ok(matches > 0, 'some paths should match');
      });
    }
  });
});
