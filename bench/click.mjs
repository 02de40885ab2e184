// node bench/click.mjs [--runs=N]: only the first-click rows of `npm run bench`: our extension's
// fresh windows (cold and warm code cache alternating) and the official Azurite extension's, one
// after the other in rounds, so both see the same machine. Needs dist/ (npm run package).
import { measureOfficial, measureVsCode } from './vscode.mjs';

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 4);
const log = (line) => process.stderr.write(`${line}\n`);
const ours = [];
const official = [];
for (let round = 0; round < runs / 2; round++) {
  ours.push(...await measureVsCode(2, log));
  official.push(...await measureOfficial(2, log));
}
const median = (v) => { const s = [...v].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const o = median(ours.map((r) => r.clickToServingMs));
const f = median(official.map((r) => r.clickToServingMs));
console.log(`first click → serving: ours ${o} ms (${ours.map((r) => `${r.clickToServingMs}/${r.codeCache}`).join(', ')}) vs official ${f} ms (${official.map((r) => r.clickToServingMs).join(', ')}): ${(o / f).toFixed(2)}×`);
