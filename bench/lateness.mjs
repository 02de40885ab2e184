// How late a 10 ms timer fires on the thread that hosts the emulator, while the emulator serves load:
// what every other extension in the extension host waits behind. A child process plays the extension
// host: it runs our emulator as the extension does (`host`: the Emulator over the engine host, the
// engine in a process of its own at the lowest priority) or as it did before (`inproc`: the engine on
// the same thread), and records the lateness of every tick of a 10 ms setInterval. Another child
// process, started fresh for every round, is the client (`--load`): per phase, for a fixed time, 16
// parallel 64 KiB uploads in a loop, then 64 MiB uploads in 4 MiB blocks. The client is a process of
// its own so that the row does not depend on what ran before it: inside bench/run.mjs the bench's
// process has by then the SDK clients, samples and buffers of every target, and its garbage
// collection competes for the cores with the timer being measured.
// Variants alternate over rounds; samples are pooled per variant and phase; p50 and p99 are quoted.
// All traffic goes to 127.0.0.1; every loop is bounded in count and time.
//
// Alone: `node esbuild.mjs --engine-bundle && node bench/lateness.mjs [--rounds=3] [--seconds=4]
// [--variants=host,inproc,child,floor]`: `child` runs the engine in a child process of the host at
// normal priority (what the engine host's lowered priority buys), `floor` a no-work server instead
// of any emulator (what the machine alone costs the timer), `inproc-heap` the engine on the host's
// thread after filling its heap to BENCH_HEAP_MB (default 45) of retained objects. bench/run.mjs measures `host` and `inproc`.
// From bench/run.mjs: measureLateness({ rounds, seconds, log }).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BlobServiceClient } from '@azure/storage-blob';

const TICK_MS = 10;

/** p-quantile (0–1) of numbers. */
function quantile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/** Small objects, retained, until this isolate's used heap reaches `mb` MiB; returns them. */
function fillHeap(mb) {
  const keep = [];
  while (process.memoryUsage().heapUsed < mb * 1024 * 1024) {
    for (let i = 0; i < 1000; i++) keep.push({ id: `k${keep.length}`, n: keep.length, tags: [String(i), 'x'], child: { a: i, b: `v${i}` } });
  }
  return keep;
}

/** The child: runs the emulator `variant`, ticks, and answers `phase NAME` / `report` lines on stdin. */
async function host(variant) {
  const { startInProcess, startOurs } = await import('./targets.mjs');
  let target;
  if (variant === 'child') {
    // The engine in a child process of this host at normal priority, on the hosting thread of that
    // child: this host only ticks.
    const c = spawn(process.execPath, [fileURLToPath(import.meta.url), '--engine-only'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const { value } = await createInterface({ input: c.stdout })[Symbol.asyncIterator]().next();
    target = { connectionString: JSON.parse(value).connectionString, close: async () => { c.stdin.end(); await once(c, 'exit'); } };
  } else if (variant === 'floor') {
    // No emulator: the no-work HTTP server in a process of its own, what the machine alone costs the timer.
    const { startFloorProcess } = await import('./floor.mjs');
    target = await startFloorProcess();
  } else {
    // `inproc-heap`: the engine on a thread whose heap already holds what an idle extension host
    // holds (BENCH_HEAP_MB of small retained objects, default 45): does sharing a heap slow it?
    if (variant === 'inproc-heap') globalThis.retainedForBench = fillHeap(Number(process.env.BENCH_HEAP_MB ?? 45));
    target = variant === 'host' ? await startOurs({ inMemory: true }) : await startInProcess({ inMemory: true });
  }
  const samples = {};
  let phase = 'idle';
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    (samples[phase] ??= []).push(Math.max(0, now - last - TICK_MS));
    last = now;
  }, TICK_MS);
  process.stdout.write(`${JSON.stringify({ connectionString: target.connectionString })}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.startsWith('phase ')) {
      phase = line.slice(6);
      last = performance.now();
    } else if (line === 'report') {
      process.stdout.write(`${JSON.stringify({ samples })}\n`);
    }
  }
  clearInterval(timer);
  await target.close();
}

/**
 * Starts a host child (the emulator hosted as the extension host hosts it: `host` or `inproc`) and
 * returns its connection string, a way to send lines, the next JSON line it prints, and close().
 * Also a bench target: clients in this process, the emulator in another, as users run it.
 */
export async function startHost(variant) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), `--host=${variant}`], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`the ${variant} host exited early`);
    return JSON.parse(value);
  };
  const { connectionString } = await next();
  return {
    connectionString,
    send: (line) => child.stdin.write(`${line}\n`),
    next,
    close: async () => { child.stdin.end(); await once(child, 'exit'); },
  };
}

/** 16 parallel 64 KiB uploads, again and again, for `seconds`. */
async function parallelUploads(container, seconds) {
  const payload = Buffer.alloc(64 * 1024, 7);
  const end = Date.now() + seconds * 1000;
  let n = 0;
  while (Date.now() < end && n < 100_000) {
    await Promise.all(Array.from({ length: 16 }, (_, i) => container.getBlockBlobClient(`p${i}`).upload(payload, payload.length)));
    n += 16;
  }
  return n;
}

/**
 * 64 MiB uploads in 4 MiB blocks, one after the other, for `seconds` (at least one): one upload
 * lasts about 100 timer ticks, too few for a p99 that is not simply the worst tick.
 */
async function repeatedBigUploads(container, big, seconds) {
  const end = Date.now() + seconds * 1000;
  let n = 0;
  do {
    await container.getBlockBlobClient('big').uploadData(big, { blockSize: 4 * 1024 * 1024, maxSingleShotSize: 4 * 1024 * 1024, concurrency: 4 });
    n++;
  } while (Date.now() < end && n < 1_000);
  return n;
}

/**
 * Measures the timer's lateness on the hosting thread for each variant, alternating.
 * @returns {{ [variant: string]: { [phase: string]: { p50: number, p99: number, samples: number } } }} ms
 */
export async function measureLateness({ rounds = 3, seconds = 4, variants = ['host', 'inproc'], log = () => undefined } = {}) {
  const pooled = Object.fromEntries(variants.map((v) => [v, {}]));
  for (let round = 0; round < rounds; round++) {
    for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
      const h = await startHost(variant);
      let load;
      try {
        load = await startLoad(h.connectionString, `late${round}`);
        h.send('phase parallel16x64k');
        const { uploads } = await load.run('parallel', seconds);
        h.send('phase upload64m');
        const { bigUploads } = await load.run('big', seconds);
        h.send('phase done');
        h.send('report');
        const { samples } = await h.next();
        for (const phase of ['parallel16x64k', 'upload64m']) (pooled[variant][phase] ??= []).push(...(samples[phase] ?? []));
        log(`lateness: round ${round + 1} ${variant}: ${uploads} uploads of 64 KiB, ${bigUploads} of 64 MiB`);
      } finally {
        await load?.close();
        await h.close();
      }
    }
  }
  const out = {};
  for (const [variant, phases] of Object.entries(pooled)) {
    out[variant] = {};
    for (const [phase, values] of Object.entries(phases)) out[variant][phase] = { p50: quantile(values, 0.5), p99: quantile(values, 0.99), samples: values.length };
  }
  return out;
}

/**
 * Starts the client (`--load`) for one round: a fresh process with the SDK, which creates
 * `container` on the emulator at `connectionString` and then runs each phase it is asked for.
 * @returns run(phase, seconds) resolving to the phase's counts ({ uploads } or { bigUploads }), and close()
 */
async function startLoad(connectionString, container) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--load', connectionString, container], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the load process exited early');
    return JSON.parse(value);
  };
  await next(); // ready: the container exists
  return {
    run: async (phase, seconds) => {
      child.stdin.write(`${phase} ${seconds}\n`);
      return next();
    },
    close: async () => { child.stdin.end(); await once(child, 'exit'); },
  };
}

/** The client process: `--load CONNECTION_STRING CONTAINER`; phases on stdin (`parallel S`, `big S`), counts on stdout. */
async function load(connectionString, name) {
  const container = BlobServiceClient.fromConnectionString(connectionString).getContainerClient(name);
  await container.create();
  const big = Buffer.alloc(64 * 1024 * 1024, 3);
  process.stdout.write('{}\n');
  for await (const line of createInterface({ input: process.stdin })) {
    const [phase, seconds] = line.split(' ');
    if (phase === 'parallel') process.stdout.write(`${JSON.stringify({ uploads: await parallelUploads(container, Number(seconds)) })}\n`);
    else if (phase === 'big') process.stdout.write(`${JSON.stringify({ bigUploads: await repeatedBigUploads(container, big, Number(seconds)) })}\n`);
  }
}

const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const variant = arg('host');
  const loadAt = process.argv.indexOf('--load');
  if (loadAt > 0) {
    await load(process.argv[loadAt + 1], process.argv[loadAt + 2]);
  } else if (process.argv.includes('--engine-only')) {
    const { startInProcess } = await import('./targets.mjs');
    const t = await startInProcess({ inMemory: true });
    process.stdout.write(`${JSON.stringify({ connectionString: t.connectionString })}\n`);
    for await (const line of createInterface({ input: process.stdin })) void line; // until stdin ends
    await t.close();
  } else if (variant !== undefined) {
    await host(variant);
  } else {
    const variants = arg('variants')?.split(',');
    const result = await measureLateness({ rounds: Number(arg('rounds') ?? 3), seconds: Number(arg('seconds') ?? 4), variants, log: (l) => console.error(l) });
    for (const [variant, phases] of Object.entries(result)) {
      for (const [phase, q] of Object.entries(phases)) {
        console.log(`lateness of a 10 ms timer, ${variant}, ${phase}: p50 ${q.p50.toFixed(2)} ms, p99 ${q.p99.toFixed(2)} ms (${q.samples} ticks)`);
      }
    }
  }
}
