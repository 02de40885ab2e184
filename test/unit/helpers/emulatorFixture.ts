/** Builds real Emulators on free ports for tests, and real SDK clients pointed at them. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { QueueServiceClient } from '@azure/storage-queue';
import { TableClient } from '@azure/data-tables';
import { execFileSync } from 'node:child_process';
import { Emulator, type Engine, type EmulatorLog, type EngineFiles } from '../../../src/emulator/emulator';
import { parseSettings, type RawSettings } from '../../../src/core/settings';
import type { ServiceKind } from '../../../src/core/services';
import type { LifecycleBounds } from '../../../src/core/bounds';
import type { LimitBurstTimings } from '../../../src/core/memory';

/** A log that keeps every line, by kind. */
export class MemoryLog implements EmulatorLog {
  readonly lines: { kind: string; line: string }[] = [];
  info(line: string): void { this.lines.push({ kind: 'info', line }); }
  error(line: string): void { this.lines.push({ kind: 'error', line }); }
  access(line: string): void { this.lines.push({ kind: 'access', line }); }
  debug(line: string): void { this.lines.push({ kind: 'debug', line }); }
  of(kind: string): string[] { return this.lines.filter((l) => l.kind === kind).map((l) => l.line); }
}

const madeDirs: string[] = [];

/**
 * A fresh folder under the OS temp folder, named `<prefix>XXXXXX`. It is removed with its content when
 * the test process exits (a test may remove it before), so runs leave nothing in the temp folder.
 */
export function tempDir(prefix = 'emu-test-'): string {
  if (madeDirs.length === 0) {
    process.once('exit', () => {
      for (const dir of madeDirs) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    });
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
let engineBundle: Engine | undefined;

/**
 * The engine as the extension ships it: out/engine-bundle.js, built by `node esbuild.mjs
 * --engine-bundle` once per test process, with the engine seams applied (the API-version policy among
 * them, which the newest SDKs need). src/emulator/azurite.ts compiled by tsc alone has no seams.
 */
export function bundledEngine(): Engine {
  if (engineBundle === undefined) {
    engineFiles();
    engineBundle = require(path.join(repoRoot, 'out', 'engine-bundle.js')) as Engine;
  }
  return engineBundle;
}

let built = false;

/**
 * Where an Emulator finds the engine as the extension runs it: the engine host's process
 * (out/engine-process.js) loading out/engine-bundle.js, both built once per test process.
 */
export function engineFiles(): EngineFiles {
  if (!built) {
    execFileSync(process.execPath, [path.join(repoRoot, 'esbuild.mjs'), '--engine-bundle'], { cwd: repoRoot, stdio: 'pipe' });
    built = true;
  }
  return {
    processPath: path.join(repoRoot, 'out', 'engine-process.js'),
    enginePath: path.join(repoRoot, 'out', 'engine-bundle.js'),
    checksumWorkerPath: path.join(repoRoot, 'out', 'checksum-worker.js'),
  };
}

/**
 * An Emulator with every port 0 (free ports) unless `raw` says otherwise, running the bundled engine
 * ({@link bundledEngine}); `bounds` shortens lifecycle bounds, `limitBursts` the bursts of refused
 * writes reported once (ms).
 */
export function makeEmulator(raw: RawSettings, workspaceFolder?: string, bounds?: Partial<LifecycleBounds>, limitBursts?: LimitBurstTimings): { emulator: Emulator; log: MemoryLog } {
  const log = new MemoryLog();
  const parsed = parseSettings(
    { blobPort: 0, queuePort: 0, tablePort: 0, ...raw },
    { workspaceFolder, homeDir: os.homedir(), globalStoragePath: path.join(os.tmpdir(), 'emu-global'), rootHasAzuriteData: false },
  );
  return { emulator: new Emulator(parsed, log, engineFiles(), bounds, limitBursts), log };
}

/** Real SDK clients for a running emulator's connection string. */
export function clients(emulator: Emulator) {
  const cs = emulator.connectionString();
  return {
    connectionString: cs,
    blob: () => BlobServiceClient.fromConnectionString(cs),
    queue: () => QueueServiceClient.fromConnectionString(cs),
    table: (name: string) => TableClient.fromConnectionString(cs, name, { allowInsecureConnection: true }),
  };
}

/** Starts the given services and throws with the emulator's message if one fails. */
export async function startAll(emulator: Emulator, kinds: readonly ServiceKind[] = ['blob', 'queue', 'table']): Promise<void> {
  for (const kind of kinds) {
    const outcome = await emulator.start(kind);
    if (!outcome.ok) throw new Error(outcome.message);
  }
}

/**
 * Registers an afterEach (in the calling describe) that disposes every emulator passed through the
 * returned function: `const track = disposeAfterEach(); const { emulator } = track(makeEmulator(…))`.
 */
export function disposeAfterEach(): <T extends { emulator: Emulator }>(made: T) => T {
  const running: Emulator[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((e) => e.dispose()));
  });
  return (made) => {
    running.push(made.emulator);
    return made;
  };
}

/** Runs `fn` on 0..n-1, `width` at a time (as that many concurrent clients would). */
export async function inParallel(n: number, width: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) await fn(next++);
  }));
}
