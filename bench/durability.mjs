// What disk mode's 1 s durability window costs writes: the engine with the window (changed metadata
// saved at most 1 s after an acknowledged write, src/emulator/azurite.ts SAVE_WINDOW_MS) against the
// same engine with only Azurite's own 5 s LokiJS autosave (`saveWindowMs: 0`). Ops: 1 KiB upload,
// enqueue, table insert; medians per op; the ratio (window ÷ autosave only) is the row.
//
// Side by side and fair: each variant runs in a child process of its own (`--serve=WINDOW_MS|default`:
// startInProcess, the engine on that process's main thread), so a save of one never blocks the other's
// event loop; the client (this process) alternates single operations between them (A B A B …, the
// order swapped each round), so both see the same machine load at the same moments. Every save of the
// window variant falls on its own requests, as in the extension.
//
// Alone: `node esbuild.mjs --engine-bundle && node bench/durability.mjs [--rounds=N] [--per-round=N]
// [--preload=N] [--control]` (--preload: first fill each variant's table with N entities, so each save
// writes a database of that size; --control: both variants without the window, the ratio's noise).
// From bench/run.mjs: measureDurabilityCost({ rounds, log }).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { TableClient, TableTransaction } from '@azure/data-tables';
import { startInProcess } from './targets.mjs';

const self = fileURLToPath(import.meta.url);

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const quantile = (values, q) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

/** A child process serving blob, queue and table in disk mode with the given window (0: autosave only). */
async function serve(saveWindowMs) {
  const child = spawn(process.execPath, [self, `--serve=${saveWindowMs}`], { stdio: ['pipe', 'pipe', 'inherit'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const [line] = await once(createInterface({ input: child.stdout }), 'line');
  return {
    connectionString: JSON.parse(line).connectionString,
    close: async () => {
      child.stdin.end(); // the child stops its services (a final save) and exits
      await once(child, 'exit');
      process.off('exit', killOnExit);
    },
  };
}

async function cell(name, saveWindowMs, preload) {
  const target = await serve(saveWindowMs);
  const container = BlobServiceClient.fromConnectionString(target.connectionString).getContainerClient('durability');
  await container.create();
  const queue = QueueServiceClient.fromConnectionString(target.connectionString).getQueueClient('durability');
  await queue.create();
  const table = TableClient.fromConnectionString(target.connectionString, 'durability', { allowInsecureConnection: true });
  await table.createTable();
  for (let i = 0; i < preload; i += 100) {
    const batch = new TableTransaction();
    for (let j = i; j < Math.min(preload, i + 100); j++) batch.createEntity({ partitionKey: 'pre', rowKey: `r${j}`, a: 'x'.repeat(64), n: j });
    await table.submitTransaction(batch.actions);
  }
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
 * @param {{ rounds?: number, perRound?: number, preload?: number, control?: boolean, log?: (line: string) => void }} o
 *   rounds × perRound operations of each kind on each variant, alternating one by one; control: both
 *   variants without the window (an A/A run: the ratio's noise on this machine)
 * @returns {Promise<{ [op: string]: { windowUs: number, autosaveUs: number, ratio: number, windowP99Us: number, autosaveP99Us: number, n: number } }>}
 *   medians (and p99) in µs
 */
export async function measureDurabilityCost({ rounds = 8, perRound = 60, preload = 0, control = false, log = () => undefined } = {}) {
  const cells = await Promise.all([cell('window', control ? 0 : 'default', preload), cell('autosave', 0, preload)]);
  const samples = {};
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? cells : [...cells].reverse();
      for (const op of Object.keys(cells[0].ops)) {
        for (let i = 0; i < perRound; i++) {
          for (const c of order) {
            const t = performance.now();
            await c.ops[op]();
            ((samples[op] ??= {})[c.name] ??= []).push((performance.now() - t) * 1000);
          }
        }
      }
      log(`durability: round ${round + 1} of ${rounds}`);
    }
  } finally {
    await Promise.all(cells.map((c) => c.target.close()));
  }
  return Object.fromEntries(Object.entries(samples).map(([op, byCell]) => {
    const [windowUs, autosaveUs] = [median(byCell.window), median(byCell.autosave)];
    return [op, {
      windowUs, autosaveUs, ratio: windowUs / autosaveUs,
      windowP99Us: quantile(byCell.window, 0.99), autosaveP99Us: quantile(byCell.autosave, 0.99), n: byCell.window.length,
    }];
  }));
}

const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;

if (process.argv[1] === self && arg('serve') !== undefined) {
  // --serve=default: the engine's own window (SAVE_WINDOW_MS), as the extension runs it.
  const target = await startInProcess({ inMemory: false, saveWindowMs: arg('serve') === 'default' ? undefined : Number(arg('serve')) });
  process.stdout.write(`${JSON.stringify({ connectionString: target.connectionString })}\n`);
  process.stdin.resume();
  process.stdin.once('end', async () => {
    await target.close();
    process.exit(0);
  });
} else if (process.argv[1] === self) {
  const rounds = Number(arg('rounds', 8));
  const preload = Number(arg('preload', 0));
  const control = process.argv.includes('--control');
  const result = await measureDurabilityCost({ rounds, perRound: Number(arg('per-round', 60)), preload, control, log: (l) => console.error(l) });
  if (control) console.log('control run: both variants have only the 5 s autosave');
  const us = (v) => `${v.toFixed(0)} µs`;
  for (const [op, r] of Object.entries(result)) {
    console.log(`disk-mode ${op}${preload ? ` (table preloaded with ${preload} entities)` : ''}: median ${us(r.windowUs)} with the 1 s window vs ${us(r.autosaveUs)} with the 5 s autosave only: ${r.ratio.toFixed(3)}× (p99 ${us(r.windowP99Us)} vs ${us(r.autosaveP99Us)}; ${r.n} each)`);
  }
}
