// What the engine seam's `lokiBatches` patch (src/engine/lokiBatches.ts) changes: our Emulator in
// memory with out/engine-bundle.js (with the patch) against a bundle built without it
// (`--skip-patch=lokiBatches`), in turn, `--rounds` times. Each round starts a fresh emulator, makes
// `--depth` blobs of 100 bytes in one container and `--depth` messages in one queue (16 requests at a
// time), then times, one request at a time with the real SDK clients:
// - Delete Blob of 100 of those blobs (ms per delete);
// - Get Messages + Delete Message of 100 of those messages (ms per pair);
// - the reclaim of the container's content once it is deleted (`Emulator.reclaimMemory`: azurite's
//   extent GC, one extent per blob here).
//   npm run package && node esbuild.mjs --engine-bundle && node bench/lokiBatches.mjs [--depth=4000] [--rounds=2]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { repoRoot, startOurs } from './targets.mjs';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const depth = arg('depth', 4000);
const rounds = arg('rounds', 2);
const timed = 100;

/** Runs `work(i)` for i in 0..count-1, 16 at a time. */
async function sixteenAtATime(count, work) {
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => { while (next < count) await work(next++); }));
}

/** One round against `bundle`: { blobDeleteMs, messageMs, reclaimMs }. */
async function measure(bundle) {
  const ours = await startOurs({ inMemory: true, bundle });
  try {
    const container = BlobServiceClient.fromConnectionString(ours.connectionString).getContainerClient('loki-batches');
    await container.create();
    const body = Buffer.alloc(100);
    await sixteenAtATime(depth, (i) => container.getBlockBlobClient(`blob-${i}`).upload(body, body.length));
    const queue = QueueServiceClient.fromConnectionString(ours.connectionString).getQueueClient('loki-batches');
    await queue.create();
    await sixteenAtATime(depth, () => queue.sendMessage('m'));

    let t = performance.now();
    for (let i = 0; i < timed; i++) await container.getBlockBlobClient(`blob-${i}`).delete();
    const blobDeleteMs = (performance.now() - t) / timed;
    t = performance.now();
    for (let i = 0; i < timed; i++) {
      const [m] = (await queue.receiveMessages()).receivedMessageItems;
      await queue.deleteMessage(m.messageId, m.popReceipt);
    }
    const messageMs = (performance.now() - t) / timed;
    await container.delete();
    t = performance.now();
    await ours.emulator.reclaimMemory();
    return { blobDeleteMs, messageMs, reclaimMs: performance.now() - t };
  } finally {
    await ours.close();
  }
}

const without = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-loki-')), 'without-lokiBatches.js');
execFileSync(process.execPath, [path.join(repoRoot, 'esbuild.mjs'), '--engine-bundle', '--skip-patch=lokiBatches', `--outfile=${without}`], { cwd: repoRoot, stdio: 'pipe' });
const variants = [['with the patch', 'out/engine-bundle.js'], ['without it', without]];
const results = Object.fromEntries(variants.map(([name]) => [name, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, bundle] of r % 2 ? [...variants].reverse() : variants) {
    const m = await measure(bundle);
    results[name].push(m);
    process.stderr.write(`round ${r + 1}, ${name}: Delete Blob ${m.blobDeleteMs.toFixed(1)} ms, Get + Delete Message ${m.messageMs.toFixed(1)} ms, reclaim ${Math.round(m.reclaimMs)} ms\n`);
  }
}
fs.rmSync(path.dirname(without), { recursive: true, force: true });
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
console.log(`${depth.toLocaleString('en-US')} blobs and ${depth.toLocaleString('en-US')} messages, medians of ${rounds} rounds:`);
for (const [name] of variants) {
  const of = (key) => median(results[name].map((m) => m[key]));
  console.log(`  ${name}: Delete Blob ${of('blobDeleteMs').toFixed(1)} ms, Get + Delete Message ${of('messageMs').toFixed(1)} ms, reclaim of ${depth.toLocaleString('en-US')} blobs ${Math.round(of('reclaimMs')).toLocaleString('en-US')} ms`);
}
