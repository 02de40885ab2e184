// Summarises a .cpuprofile (node --cpu-prof): self time by function and by package, and inclusive
// time of the functions that matter, mapping out/engine-bundle.js positions back to their sources
// (node_modules/azurite/…, src/…) through the bundle's source map.
//   node bench/cpuprofileTop.mjs FILE.cpuprofile [--top=25]
import fs from 'node:fs';
import path from 'node:path';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

const file = process.argv[2];
const top = Number(process.argv.find((a) => a.startsWith('--top='))?.slice(6) ?? 25);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const maps = new Map();
function sourceOf(url, line, column) {
  if (!url.startsWith('file://')) return url || '(native)';
  const p = fileURLToPath(url);
  if (!maps.has(p)) {
    let map;
    try { map = new SourceMap(JSON.parse(fs.readFileSync(`${p}.map`, 'utf8'))); } catch { map = undefined; }
    maps.set(p, map);
  }
  const map = maps.get(p);
  if (map === undefined) return p;
  const entry = map.findEntry(line, column);
  return entry?.originalSource ? path.resolve(path.dirname(p), entry.originalSource.replace(/^file:\/\//, '')) : p;
}
function group(src) {
  if (src.startsWith('node:') || !src.includes('/')) return src.startsWith('node:') ? 'node internals' : src;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(src);
  if (m) return m[1];
  if (src.includes('/src/')) return 'our src';
  return path.basename(src);
}

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const dt = new Map();
for (let i = 0; i < profile.samples.length; i++) dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
const total = [...dt.values()].reduce((a, b) => a + b, 0);

const keyOf = (n) => {
  const cf = n.callFrame;
  const src = sourceOf(cf.url, cf.lineNumber, cf.columnNumber);
  return { fn: `${cf.functionName || '(anonymous)'} ${src.replace(/.*node_modules\//, '').replace(/.*\/(src|bench)\//, '$1/')}${cf.url.startsWith('file://') ? `:${cf.lineNumber + 1}` : ''}`, pkg: group(src) };
};
const selfFn = new Map();
const selfPkg = new Map();
const inclusive = new Map();
for (const n of profile.nodes) {
  const t = dt.get(n.id) ?? 0;
  if (t === 0) continue;
  const k = keyOf(n);
  selfFn.set(k.fn, (selfFn.get(k.fn) ?? 0) + t);
  selfPkg.set(k.pkg, (selfPkg.get(k.pkg) ?? 0) + t);
  const seen = new Set();
  for (let id = n.id; id !== undefined; id = parent.get(id)) {
    const fk = keyOf(byId.get(id)).fn;
    if (seen.has(fk)) continue;
    seen.add(fk);
    inclusive.set(fk, (inclusive.get(fk) ?? 0) + t);
  }
}
const pct = (t) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled`);
console.log('\nself time by package:');
for (const [k, t] of [...selfPkg].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${pct(t)}  ${k}`);
console.log(`\nself time, top ${top} functions:`);
for (const [k, t] of [...selfFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(t)}  ${k}`);
console.log(`\ninclusive time, top ${top * 2} functions:`);
for (const [k, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top * 2)) console.log(`  ${pct(t)}  ${k}`);
