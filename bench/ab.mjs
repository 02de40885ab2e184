// A/B of engine builds on small in-memory uploads: alternates child processes running
// bench/profile.mjs against each bundle (BENCH_ENGINE_BUNDLE), and prints the median of their medians.
//   node bench/ab.mjs A=out/engine-bundle.js B=/tmp/no-uri.js [--runs=6] [--seconds=4] [-- extra profile.mjs args]
//   A variant may add its own profile.mjs arguments after '|': ON='out/engine-bundle.js|--access-log-engine=on'
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const dashdash = argv.indexOf('--');
const own = dashdash < 0 ? argv : argv.slice(0, dashdash);
const extra = dashdash < 0 ? [] : argv.slice(dashdash + 1);
const variants = own.filter((a) => /^[^-][^=]*=/.test(a)).map((a) => { const i = a.indexOf('='); return [a.slice(0, i), a.slice(i + 1)]; });
const runs = Number(own.find((a) => a.startsWith('--runs='))?.slice(7) ?? 6);
const seconds = own.find((a) => a.startsWith('--seconds='))?.slice(10) ?? '4';
const results = Object.fromEntries(variants.map(([name]) => [name, []]));
for (let r = 0; r < runs; r++) {
  for (const [name, bundle] of r % 2 ? [...variants].reverse() : variants) {
    const [file, ...own] = bundle.split('|');
    const out = execFileSync(process.execPath, [path.join(here, 'profile.mjs'), `--seconds=${seconds}`, ...extra, ...own],
      { env: { ...process.env, BENCH_ENGINE_BUNDLE: file }, encoding: 'utf8' });
    const m = /median (\d+) µs/.exec(out);
    results[name].push(Number(m[1]));
    process.stderr.write(`${name}: ${out.trim()}\n`);
  }
}
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const base = median(results[variants[0][0]]);
for (const [name] of variants) console.log(`${name}: median ${median(results[name])} µs (${(median(results[name]) / base).toFixed(3)}× ${variants[0][0]}) runs ${results[name].join(', ')}`);
