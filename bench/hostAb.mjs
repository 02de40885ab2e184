// node bench/hostAb.mjs [--rounds=8] [--variants=host,inproc]: the engine host against the engine on
// the hosting thread, with fresh host processes every round (lateness.mjs's startHost: `host`,
// `inproc`, `child`, in an order that alternates), so that none keeps the same core, heap or data
// for the whole run. Per round and variant: a warm-up (200 of each single op, 5 batches), then
// 200 each of upload 1 KiB, download 1 KiB, enqueue and table insert, and 30 batches of 16 parallel
// 64 KiB uploads, each timed. Prints, per op, each variant's median time and its ratio to the last
// variant's: pooled (the ratio of medians over every round, as npm run bench quotes it) and paired
// (the mean of each round's ratio, ± its standard error, and every round's), since one process can
// run a few percent faster or slower than another of the same kind for its whole life.
// npm run bench measures every op on three long-lived pairs of hosts; this isolates the variants.
// Needs out/engine-bundle.js (node esbuild.mjs --engine-bundle).
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { TableClient } from '@azure/data-tables';
import { startHost } from './lateness.mjs';

const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 8);
const variants = (process.argv.find((a) => a.startsWith('--variants='))?.slice(11) ?? 'host,inproc').split(',');
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
const standardError = (v) => Math.sqrt(v.reduce((a, b) => a + (b - mean(v)) ** 2, 0) / (v.length - 1) / v.length);
const payload64k = Buffer.alloc(64 * 1024, 7);
const payload1k = Buffer.alloc(1024, 1);

/** The ops, each `run(clients, i)`; `count` timed per round and variant, `warm` untimed before. */
const OPS = [
  { id: 'upload1k', label: 'upload 1 KiB', count: 200, warm: 200, run: (c, i) => c.container.getBlockBlobClient(`s${i % 256}`).upload(payload1k, payload1k.length) },
  {
    id: 'download1k', label: 'download 1 KiB', count: 200, warm: 200, run: async (c) => {
      const res = await c.download.download();
      for await (const chunk of res.readableStreamBody) void chunk;
    },
  },
  { id: 'enqueue', label: 'enqueue', count: 200, warm: 200, run: (c) => c.queue.sendMessage('hello queue '.repeat(8)) },
  { id: 'tableInsert', label: 'table insert', count: 200, warm: 200, run: (c) => c.table.createEntity({ partitionKey: 'p', rowKey: `r${c.seq++}`, n: 42, text: 'hello table' }) },
  {
    id: 'parallel', label: '16 parallel 64 KiB uploads', count: 30, warm: 5,
    run: (c) => Promise.all(Array.from({ length: 16 }, (_, i) => c.container.getBlockBlobClient(`p${i}`).upload(payload64k, payload64k.length))),
  },
];
/** perRound[op][variant] = one median per round (ms); pooled[op][variant] = every sample (ms). */
const perRound = Object.fromEntries(OPS.map((op) => [op.id, Object.fromEntries(variants.map((v) => [v, []]))]));
const pooled = Object.fromEntries(OPS.map((op) => [op.id, Object.fromEntries(variants.map((v) => [v, []]))]));

for (let round = 0; round < rounds; round++) {
  for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
    const host = await startHost(variant);
    try {
      const blobs = BlobServiceClient.fromConnectionString(host.connectionString);
      const container = blobs.getContainerClient(`ab${round}`);
      await container.create();
      const download = container.getBlockBlobClient('download-1k');
      await download.upload(payload1k, payload1k.length);
      const queue = QueueServiceClient.fromConnectionString(host.connectionString).getQueueClient(`ab${round}`);
      await queue.create();
      const table = TableClient.fromConnectionString(host.connectionString, `ab${round}`, { allowInsecureConnection: true });
      await table.createTable();
      const clients = { container, download, queue, table, seq: 0 };
      for (const op of OPS) for (let i = 0; i < op.warm; i++) await op.run(clients, i);
      for (const op of OPS) {
        const samples = [];
        for (let i = 0; i < op.count; i++) {
          const began = performance.now();
          await op.run(clients, i);
          samples.push(performance.now() - began);
        }
        perRound[op.id][variant].push(median(samples));
        pooled[op.id][variant].push(...samples);
      }
    } finally {
      await host.close();
    }
  }
  process.stderr.write(`hostAb: round ${round + 1} of ${rounds}\n`);
}
const base = variants[variants.length - 1];
for (const op of OPS) {
  const parts = variants.map((v) => {
    const m = median(pooled[op.id][v]);
    if (v === base) return `${v} ${m.toFixed(3)} ms`;
    const paired = perRound[op.id][v].map((x, i) => x / perRound[op.id][base][i]);
    return `${v} ${m.toFixed(3)} ms (÷ ${base}: pooled ${(m / median(pooled[op.id][base])).toFixed(3)}, paired ${mean(paired).toFixed(3)}${paired.length > 1 ? ` ± ${standardError(paired).toFixed(3)}` : ''}; rounds ${paired.map((r) => r.toFixed(2)).join(' ')})`;
  });
  console.log(`${op.label}: ${parts.join(', ')}`);
}
