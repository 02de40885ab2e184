// How long the shutdown save takes at size. VS Code gives deactivate() about 5 s
// (extHostExtensionService `terminate`: Promise.race([timeout(5000), deactivateAll])), and a stop
// resolves only when the service's LokiJS metadata is on disk (src/emulator/azurite.ts
// saveLokiDatabases). Measured: our Emulator from out/engine-bundle.js, disk mode, the table service
// holding N entities written with @azure/data-tables (batches of 100); each run changes one entity
// (so the database is dirty, as after any write) and times `emulator.stop('table')` — close, the
// Loki save (JSON.stringify of the whole database + write of `file~` + rename) and the port freed —
// then starts it again (load) for the next run. Quoted: the median of the runs.
//
// Run alone: `node esbuild.mjs --engine-bundle && node bench/save.mjs [--entities=100000] [--runs=5]`;
// bench/run.mjs calls measureSave() (also with --no-vscode).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TableClient } from '@azure/data-tables';
import { engineFiles, loadEngine } from './targets.mjs';

/** VS Code's shutdown budget for deactivate(), in ms. */
export const SHUTDOWN_BUDGET_MS = 5000;
/** The target: half the budget, leaving 2.5 s of margin for blob and queue, a slower disk, a busy host. */
export const SAVE_TARGET_MS = 2500;

const dropLog = { info() {}, error() {}, access() {}, debug() {} };
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

/** One entity of the bench: five user properties, ~150 bytes of JSON in the Loki file. */
function entity(i) {
  return { partitionKey: `p${Math.floor(i / 100)}`, rowKey: `r${String(i).padStart(7, '0')}`, name: `customer-${i}-abcdefghij`, n: i, ok: i % 2 === 0, at: new Date(1_700_000_000_000 + i * 1000), score: i / 7 };
}

/**
 * Fills a disk-mode table service with `entities` entities, then times `runs` stops.
 * @param {{ entities?: number, runs?: number, log?: (line: string) => void }} o
 * @returns {Promise<{ entities: number, runs: number[], medianMs: number, fillMs: number, dbBytes: number, budgetMs: number, targetMs: number }>}
 *   times in ms, `dbBytes` the size of __azurite_db_table__.json after the last save
 * @throws when the table service does not start or stop
 */
export async function measureSave({ entities = 100_000, runs = 5, log = () => undefined } = {}) {
  const { Emulator, parseSettings } = loadEngine();
  const location = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-save-'));
  const settings = parseSettings(
    { blobPort: 0, queuePort: 0, tablePort: 0, inMemoryPersistence: false, location, silent: true },
    { workspaceFolder: undefined, homeDir: os.homedir(), globalStoragePath: location, rootHasAzuriteData: false },
  );
  const emulator = new Emulator(settings, dropLog, engineFiles());
  const must = async (what, p) => { const o = await p; if (!o.ok) throw new Error(`${what}: ${o.message}`); };
  try {
    await must('table start', emulator.start('table'));
    const client = () => TableClient.fromConnectionString(emulator.connectionString(), 'savebench', { allowInsecureConnection: true });
    await client().createTable();
    const fillStarted = performance.now();
    const batches = Math.ceil(entities / 100);
    let next = 0;
    const table = client();
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (next < batches) {
        const b = next++;
        const actions = [];
        for (let i = b * 100; i < Math.min(entities, (b + 1) * 100); i++) actions.push(['create', entity(i)]);
        await table.submitTransaction(actions);
      }
    }));
    const fillMs = performance.now() - fillStarted;
    log(`save: ${entities.toLocaleString('en-US')} entities written in ${(fillMs / 1000).toFixed(1)} s`);
    const times = [];
    for (let r = 0; r < runs; r++) {
      await client().upsertEntity({ ...entity(r), name: `changed in run ${r}` }, 'Replace');
      const t = performance.now();
      await must('table stop', emulator.stop('table'));
      times.push(performance.now() - t);
      log(`save: run ${r + 1}: ${times.at(-1).toFixed(0)} ms`);
      if (r < runs - 1) await must('table start', emulator.start('table'));
    }
    const dbBytes = fs.statSync(path.join(location, '__azurite_db_table__.json')).size;
    return { entities, runs: times, medianMs: median(times), fillMs, dbBytes, budgetMs: SHUTDOWN_BUDGET_MS, targetMs: SAVE_TARGET_MS };
  } finally {
    await emulator.dispose();
    fs.rmSync(location, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, dflt) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt);
  const r = await measureSave({ entities: arg('entities', 100_000), runs: arg('runs', 5), log: (l) => console.error(l) });
  console.log(`save at ${r.entities.toLocaleString('en-US')} entities: median ${r.medianMs.toFixed(0)} ms of ${r.runs.length} runs ` +
    `(${r.runs.map((t) => t.toFixed(0)).join(', ')} ms); database ${(r.dbBytes / 2 ** 20).toFixed(1)} MiB; ` +
    `target ≤ ${r.targetMs} ms (${r.budgetMs} ms budget): ${r.medianMs <= r.targetMs ? 'PASS' : 'FAIL'}`);
}
