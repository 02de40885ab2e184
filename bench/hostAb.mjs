// node bench/hostAb.mjs [--rounds=8] [--variants=host,inproc]: the engine host against the engine on
// the hosting thread, with fresh host processes every round (lateness.mjs's startHost: `host`,
// `inproc`, `child`, in an order that alternates), so that none keeps the same core, heap or data
// for the whole run. Per round and variant: 5 warm-up batches, then 30 batches of 16 parallel
// 64 KiB uploads and 200 single 1 KiB uploads, timed one by one. Prints the medians, each ÷ the
// last variant's.
// npm run bench measures every op with long-lived hosts; this isolates the two variants.
// Needs out/engine-bundle.js (node esbuild.mjs --engine-bundle).
import { BlobServiceClient } from '@azure/storage-blob';
import { startHost } from './lateness.mjs';

const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 8);
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const payload = Buffer.alloc(64 * 1024, 7);
const small = Buffer.alloc(1024, 1);
const variants = (process.argv.find((a) => a.startsWith('--variants='))?.slice(11) ?? 'host,inproc').split(',');
const samples = Object.fromEntries(variants.map((v) => [v, { parallel: [], single: [] }]));

for (let round = 0; round < rounds; round++) {
  for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
    const host = await startHost(variant);
    try {
      const container = BlobServiceClient.fromConnectionString(host.connectionString).getContainerClient(`ab${round}`);
      await container.create();
      const batch = () => Promise.all(Array.from({ length: 16 }, (_, i) => container.getBlockBlobClient(`p${i}`).upload(payload, payload.length)));
      for (let i = 0; i < 5; i++) await batch();
      for (let i = 0; i < 30; i++) {
        const began = performance.now();
        await batch();
        samples[variant].parallel.push(performance.now() - began);
      }
      for (let i = 0; i < 200; i++) {
        const began = performance.now();
        await container.getBlockBlobClient('s').upload(small, small.length);
        samples[variant].single.push(performance.now() - began);
      }
    } finally {
      await host.close();
    }
  }
  process.stderr.write(`hostAb: round ${round + 1} of ${rounds}\n`);
}
for (const [op, label] of [['parallel', '16 parallel 64 KiB uploads'], ['single', 'upload 1 KiB']]) {
  const base = variants[variants.length - 1];
  const m = (v) => median(samples[v][op]);
  console.log(`${label}: ${variants.map((v) => `${v} ${m(v).toFixed(3)} ms${v === base ? '' : ` (÷ ${base} ${(m(v) / m(base)).toFixed(3)})`}`).join(', ')} (${samples[base][op].length} samples each)`);
}
