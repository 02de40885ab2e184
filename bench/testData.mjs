// Reset, export and import of a 1,000-blob / 50 MB / 10,000-entity dataset, as the extension does
// them: the data layer as shipped (dist/data.js: src/data/snapshot.ts with the Azure SDKs) against
// our Emulator (out/engine-bundle.js, the engine in its own process), in memory, through the
// storage REST API on loopback. Targets: reset ≤ 3 s, export ≤ 5 s, import ≤ 5 s (medians).
//
// Dataset: one container of 1,000 block blobs of 52,429 bytes (50 MiB in all) in 10 folders, one
// table of 10,000 entities (100 partitions of 100, six typed properties). Each run, in this order:
// - import: the dataset's folder read and loaded into an empty account (importSnapshot);
// - export: the account written to a fresh folder (exportSnapshot);
// - reset: every container and table deleted, the deleted content freed, the dataset loaded again
//   from its folder (resetAccount with the dataset as the seed), as `Azurite: Reset` does.
//
// Run alone: `npm run package && node esbuild.mjs --engine-bundle && node bench/testData.mjs [--runs=5]`;
// bench/run.mjs calls measureTestData().
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { repoRoot, startOurs } from './targets.mjs';

export const TARGETS_MS = { reset: 3000, export: 5000, import: 5000 };
export const DATASET = { blobs: 1000, blobBytes: 52_429, entities: 10_000 };

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

/** Writes the dataset as a snapshot folder; returns its path. */
function writeDataset(dir) {
  const container = path.join(dir, 'blob', 'fixtures');
  for (let f = 0; f < 10; f++) fs.mkdirSync(path.join(container, `folder-${f}`), { recursive: true });
  const content = Buffer.alloc(DATASET.blobBytes);
  for (let i = 0; i < DATASET.blobs; i++) {
    content.writeUInt32LE(i, 0);
    fs.writeFileSync(path.join(container, `folder-${i % 10}`, `blob-${String(i).padStart(4, '0')}.bin`), content);
  }
  fs.mkdirSync(path.join(dir, 'table'));
  const lines = [];
  for (let i = 0; i < DATASET.entities; i++) {
    lines.push(JSON.stringify({
      PartitionKey: `p${String(Math.floor(i / 100)).padStart(3, '0')}`, RowKey: `r${String(i).padStart(6, '0')}`,
      Name: `customer-${i}`, Age: i % 90, Score: i / 7 + 0.5, Active: i % 2 === 0,
      'Since@odata.type': 'Edm.DateTime', Since: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      'Big@odata.type': 'Edm.Int64', Big: String(2 ** 40 + i),
    }));
  }
  fs.writeFileSync(path.join(dir, 'table', 'Customers.jsonl'), lines.join('\n') + '\n');
  return dir;
}

/**
 * Measures reset, export and import `runs` times each.
 * @returns {Promise<{ import: number[], export: number[], reset: number[], bytes: number }>} ms per run
 */
export async function measureTestData({ runs = 5, log = () => {} } = {}) {
  const data = createRequire(import.meta.url)(path.join(repoRoot, 'dist', 'data.js'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-testdata-'));
  const ours = await startOurs({ inMemory: true });
  try {
    const seedDir = writeDataset(path.join(scratch, 'seed'));
    const { emulator } = ours;
    const addresses = Object.fromEntries(['blob', 'queue', 'table'].map((k) => [k, emulator.clientAddress(k)]));
    const clients = data.storageClients(data.emulatorEndpoints(addresses));
    const reclaim = () => emulator.reclaimMemory();
    const result = { import: [], export: [], reset: [], bytes: 0 };
    for (let run = 0; run < runs; run++) {
      await data.resetAccount(clients, undefined, { reclaim });
      let t = performance.now();
      const counts = await data.importSnapshot(clients, await data.readSnapshot(seedDir), scratch, { reclaim });
      result.import.push(performance.now() - t);
      result.bytes = counts.bytes;
      if (counts.blobs !== DATASET.blobs || counts.entities !== DATASET.entities) throw new Error(`imported ${JSON.stringify(counts)}`);

      const out = path.join(scratch, `export-${run}`);
      t = performance.now();
      const exported = await data.exportSnapshot(clients, out);
      result.export.push(performance.now() - t);
      if (exported.blobs !== DATASET.blobs || exported.entities !== DATASET.entities) throw new Error(`exported ${JSON.stringify(exported)}`);
      fs.rmSync(out, { recursive: true, force: true });

      t = performance.now();
      await data.resetAccount(clients, await data.readSnapshot(seedDir), { reclaim });
      result.reset.push(performance.now() - t);
      log(`  test data run ${run + 1}: import ${Math.round(result.import.at(-1))} ms, export ${Math.round(result.export.at(-1))} ms, reset ${Math.round(result.reset.at(-1))} ms`);
    }
    return result;
  } finally {
    await ours.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The bench rows of a measurement. */
export function testDataRows(m) {
  const what = `${DATASET.blobs.toLocaleString('en-US')} blobs / ${(m.bytes / 1024 / 1024).toFixed(0)} MiB / ${DATASET.entities.toLocaleString('en-US')} entities, in memory`;
  return ['reset', 'export', 'import'].map((op) => ({
    metric: `${op === 'reset' ? 'Azurite: Reset (empty + reload the seed)' : op === 'export' ? 'Export Snapshot' : 'Import Snapshot'} of ${what}`,
    value: median(m[op]), unit: 'ms', target: `≤ ${TARGETS_MS[op]} ms`, pass: (v) => v <= TARGETS_MS[op],
    note: `median of ${m[op].length} (${m[op].map((x) => Math.round(x)).join(', ')} ms)`,
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 5);
  const m = await measureTestData({ runs, log: (l) => process.stderr.write(`${l}\n`) });
  for (const r of testDataRows(m)) console.log(`${r.metric}: ${Math.round(r.value)} ms (target ${r.target}) ${r.pass(r.value) ? 'PASS' : 'FAIL'} — ${r.note}`);
}
