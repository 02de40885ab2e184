// What the 1 s durability window costs writes in disk mode: the engine with the window (changed
// metadata saved at most 1 s after an acknowledged write) against the same engine with only
// Azurite's own 5 s autosave, side by side in this process, batches alternating. Ops: 1 KiB upload,
// enqueue, table insert. Medians per op; the ratio (window ÷ autosave only) is the row.
//
// Alone: `node esbuild.mjs --engine-bundle && node bench/durability.mjs [--rounds=N]`.
// From bench/run.mjs: measureDurabilityCost({ rounds, log }).
import { fileURLToPath } from 'node:url';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { TableClient } from '@azure/data-tables';
import { startInProcess } from './targets.mjs';

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function cell(name, saveWindowMs) {
  const target = await startInProcess({ inMemory: false, saveWindowMs });
  const container = BlobServiceClient.fromConnectionString(target.connectionString).getContainerClient('durability');
  await container.create();
  const queue = QueueServiceClient.fromConnectionString(target.connectionString).getQueueClient('durability');
  await queue.create();
  const table = TableClient.fromConnectionString(target.connectionString, 'durability', { allowInsecureConnection: true });
  await table.createTable();
  const body = Buffer.alloc(1024, 1);
  let seq = 0;
  return {
    name, target,
    ops: {
      upload1k: () => container.getBlockBlobClient(`b${seq++ % 256}`).upload(body, body.length),
      enqueue: () => queue.sendMessage('durability'),
      tableInsert: () => table.createEntity({ partitionKey: 'p', rowKey: `r${seq++}`, n: 1 }),
    },
  };
}

/**
 * @returns {{ [op: string]: { windowUs: number, autosaveUs: number, ratio: number } }} medians in µs
 */
export async function measureDurabilityCost({ rounds = 8, perBatch = 40, log = () => undefined } = {}) {
  const cells = [await cell('window', undefined), await cell('autosave', 0)];
  const samples = {};
  try {
    for (let round = 0; round < rounds; round++) {
      for (const op of Object.keys(cells[0].ops)) {
        for (const c of round % 2 === 0 ? cells : [...cells].reverse()) {
          for (let i = 0; i < perBatch; i++) {
            const t = performance.now();
            await c.ops[op]();
            ((samples[op] ??= {})[c.name] ??= []).push((performance.now() - t) * 1000);
          }
        }
      }
      log(`durability: round ${round + 1} of ${rounds}`);
    }
  } finally {
    for (const c of cells) await c.target.close();
  }
  return Object.fromEntries(Object.entries(samples).map(([op, byCell]) => {
    const [windowUs, autosaveUs] = [median(byCell.window), median(byCell.autosave)];
    return [op, { windowUs, autosaveUs, ratio: windowUs / autosaveUs }];
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? 8);
  const result = await measureDurabilityCost({ rounds, log: (l) => console.error(l) });
  for (const [op, r] of Object.entries(result)) {
    console.log(`disk-mode ${op}: ${r.windowUs.toFixed(0)} µs with the 1 s window vs ${r.autosaveUs.toFixed(0)} µs with the 5 s autosave only: ${r.ratio.toFixed(3)}×`);
  }
}
