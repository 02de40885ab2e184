// The Storage view with 10,000 blobs in one container: how long its first page takes, as the view
// gets it: the data layer as shipped (dist/data.js: src/data/browse.ts with the Azure SDKs) against
// our Emulator (out/engine-bundle.js, the engine in its own process), in memory, on loopback.
// Target: the container's first page (200 blobs) in ≤ 300 ms (median). Also measured:
// - expanding "Blob Containers": the container list and the per-container bytes from the engine
//   (Emulator.contentBytes, which reads every blob's record in the engine's process);
// - "Load more…": a later page (the 25th of 50);
// - the longest stall of this thread's event loop while a first page is fetched (the extension
//   host's thread in the extension: what would freeze other extensions).
//
// Run alone: `npm run package && node esbuild.mjs --engine-bundle && node bench/storageView.mjs [--runs=15]`;
// bench/run.mjs calls measureStorageView().
import path from 'node:path';
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { repoRoot, startOurs } from './targets.mjs';

export const TARGET_FIRST_PAGE_MS = 300;
export const BLOBS = 10_000;

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

/**
 * Fills a container with {@link BLOBS} small blobs, then times the view's listings `runs` times each.
 * @returns {Promise<{ firstPage: number[], services: number[], laterPage: number[], stallMs: number[] }>} ms per run
 */
export async function measureStorageView({ runs = 15, log = () => {} } = {}) {
  const data = createRequire(import.meta.url)(path.join(repoRoot, 'dist', 'data.js'));
  const ours = await startOurs({ inMemory: true });
  try {
    const { emulator } = ours;
    const clients = data.storageClients(data.emulatorEndpoints({ blob: emulator.clientAddress('blob') }));
    const container = clients.blob.getContainerClient('many');
    await container.create();
    const body = Buffer.alloc(100, 1);
    for (let i = 0; i < BLOBS; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => container.getBlockBlobClient(`blob-${String(i + j).padStart(5, '0')}.txt`).uploadData(body)));
    }
    // The 25th page's continuation, for "Load more…".
    let continuation;
    for (let p = 0; p < 24; p++) continuation = (await data.listBlobs(clients, 'many', '', continuation)).continuation;

    const result = { firstPage: [], services: [], laterPage: [], stallMs: [] };
    for (let run = 0; run < runs; run++) {
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      let t = performance.now();
      const first = await data.listBlobs(clients, 'many', '');
      result.firstPage.push(performance.now() - t);
      delay.disable();
      result.stallMs.push(delay.max / 1e6);
      if (first.items.length !== data.PAGE_SIZE || first.continuation === undefined) throw new Error(`first page: ${first.items.length} items`);

      t = performance.now();
      const [containers, bytes] = await Promise.all([data.listContainers(clients), emulator.contentBytes('blob')]);
      result.services.push(performance.now() - t);
      if (containers.items.length !== 1 || bytes?.items[0]?.bytes !== BLOBS * body.length) throw new Error(`containers ${containers.items.length}, bytes ${JSON.stringify(bytes?.items)}`);

      t = performance.now();
      const later = await data.listBlobs(clients, 'many', '', continuation);
      result.laterPage.push(performance.now() - t);
      if (later.items[0]?.name !== `blob-${String(24 * data.PAGE_SIZE).padStart(5, '0')}.txt`) throw new Error(`later page starts at ${later.items[0]?.name}`);
    }
    log(`  storage view: first page ${result.firstPage.map(Math.round).join(', ')} ms; containers + bytes ${result.services.map(Math.round).join(', ')} ms; page 25 ${result.laterPage.map(Math.round).join(', ')} ms`);
    return result;
  } finally {
    await ours.close();
  }
}

/** The bench row of a measurement: the target, with the other figures in its detail. */
export function storageViewRows(m) {
  return [{
    metric: `Storage view: first page (200) of a container of ${BLOBS.toLocaleString('en-US')} blobs`,
    value: median(m.firstPage), unit: 'ms', target: `≤ ${TARGET_FIRST_PAGE_MS} ms`, pass: (v) => v <= TARGET_FIRST_PAGE_MS,
    note: `median of ${m.firstPage.length}; longest event-loop stall meanwhile ${Math.round(median(m.stallMs))} ms (median), ` +
      `Blob Containers with bytes per container ${Math.round(median(m.services))} ms, Load more… (page 25) ${Math.round(median(m.laterPage))} ms`,
  }];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 15);
  const m = await measureStorageView({ runs, log: (l) => process.stderr.write(`${l}\n`) });
  for (const r of storageViewRows(m)) console.log(`${r.metric}: ${Math.round(r.value)} ms (target ${r.target}) ${r.pass(r.value) ? 'PASS' : 'FAIL'} — ${r.note}`);
}
