// Times, and profiles, small in-memory uploads: a real SDK client uploading 1 KiB blobs in a loop to
// our emulator (out/engine-bundle.js). By default that is our Emulator, whose engine runs in a
// process of its own, so --cpu-prof sees only the client's side; with --access-log-engine=on|off
// the blob service runs in this process and the profile holds the engine's request path too.
//   node --cpu-prof --cpu-prof-dir=bench/results/profile bench/profile.mjs [--seconds=10] [--access-log] [--access-log-engine=off]
//   node bench/cpuprofileTop.mjs bench/results/profile/<file>.cpuprofile
// --access-log keeps azurite.silent off (access lines built and handed to a sink that drops them), as
// the extension runs by default; without it azurite.silent is on (the line is still built by azurite:
// the emulator filters it).
import { BlobServiceClient } from '@azure/storage-blob';
import { connectionStringFor } from './floor.mjs';
import { loadEngine, startOurs } from './targets.mjs';

const args = process.argv.slice(2);
const seconds = Number(args.find((a) => a.startsWith('--seconds='))?.slice(10) ?? 10);
const silent = !args.includes('--access-log');
const op = args.find((a) => a.startsWith('--op='))?.slice(5) ?? 'upload';

// --access-log-engine=on|off: the blob service alone through createService (no Emulator), with
// azurite's access log (morgan) on (lines dropped) or off: what the always-on access log costs.
const direct = args.find((a) => a.startsWith('--access-log-engine='))?.slice(20);
const ours = direct === undefined ? await startOurs({ inMemory: true, silent }) : await startDirect(direct === 'on');

async function startDirect(accessLogOn) {
  const { createService, MeteredChunkStore, createApiVersionPolicy } = loadEngine();
  const service = createService({
    kind: 'blob', host: '127.0.0.1', port: 0, inMemory: true, location: '/nonexistent', loose: false,
    apiVersionPolicy: createApiVersionPolicy('acceptNewer', () => undefined),
    accessLog: accessLogOn ? () => {} : undefined, memoryStore: new MeteredChunkStore(undefined), keepAliveSec: 5,
    https: undefined, oauth: undefined, disableProductStyleUrl: false,
  });
  const endpoint = await service.start();
  const base = `${endpoint.url}/devstoreaccount1`;
  return { connectionString: connectionStringFor(base, base, base), close: () => service.stop() };
}
const container = BlobServiceClient.fromConnectionString(ours.connectionString).getContainerClient('profile');
await container.create();
const payload = Buffer.alloc(1024, 0x61);
const blobs = Array.from({ length: 256 }, (_, i) => container.getBlockBlobClient(`b-${i}`));
await blobs[0].upload(payload, payload.length);
const drain = async (stream) => { for await (const chunk of stream) void chunk; };
const times = [];
const end = Date.now() + seconds * 1000;
while (Date.now() < end) {
  const t0 = performance.now();
  if (op === 'download') await drain((await blobs[0].download()).readableStreamBody);
  else await blobs[times.length % blobs.length].upload(payload, payload.length);
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const us = (x) => (x * 1000).toFixed(0);
console.log(`${op} 1 KiB: ${times.length} ops, median ${us(times[times.length >> 1])} µs, mean ${us(times.reduce((a, b) => a + b, 0) / times.length)} µs (${direct === undefined ? `silent ${silent}` : `access log engine ${direct}`})`);
await ours.close();
