// node bench/hostAb.mjs [--rounds=8]: the engine host against the engine on the hosting thread, with
// a fresh pair of host processes every round (lateness.mjs's startHost: `worker` and `inproc`, in an
// order that alternates), so that neither keeps the same core, heap or data for the whole run. Per
// round and variant: 5 warm-up batches, then 30 batches of 16 parallel 64 KiB uploads and 200
// single 1 KiB uploads, timed one by one. Prints the medians and worker ÷ inproc for both.
// npm run bench measures every op with long-lived hosts; this isolates the two variants.
// Needs out/engine-bundle.js (node esbuild.mjs --engine-bundle).
import { BlobServiceClient } from '@azure/storage-blob';
import { startHost } from './lateness.mjs';

const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 8);
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const payload = Buffer.alloc(64 * 1024, 7);
const small = Buffer.alloc(1024, 1);
const samples = { worker: { parallel: [], single: [] }, inproc: { parallel: [], single: [] } };

for (let round = 0; round < rounds; round++) {
  for (const variant of round % 2 === 0 ? ['worker', 'inproc'] : ['inproc', 'worker']) {
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
  const [w, i] = [median(samples.worker[op]), median(samples.inproc[op])];
  console.log(`${label}: worker ${w.toFixed(3)} ms, inproc ${i.toFixed(3)} ms, worker ÷ inproc ${(w / i).toFixed(3)} (${samples.worker[op].length} + ${samples.inproc[op].length} samples)`);
}
