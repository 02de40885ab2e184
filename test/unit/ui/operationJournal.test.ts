/**
 * The journal of a data operation under way (src/ui/operationJournal.ts): what the next window finds
 * when an Import, a Reset or a seed did not end, what it removes, and what it says. Plain files; the window that reports it is tested in
 * test/integration/testData.test.ts and test/e2e/reload.test.mjs.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beginOperation, interruptedMessage, INTERRUPTED_COPY_KEEP_MS, OPERATIONS_FOLDER, takeInterrupted, type OperationStart } from '../../../src/ui/operationJournal';
import { tempDir } from '../helpers/emulatorFixture';

const dead = (): boolean => false;

function importOf(folder: string, where: string, inMemory: boolean): OperationStart {
  return { operation: 'import', folder, kinds: ['blob'], where, inMemory };
}
const alive = (): boolean => true;

/** A copy as importSnapshot makes it: `<scratch>/azurite-import-backup-…/blob/<container>/<blob>`. */
function makeCopy(scratch: string): string {
  const backup = fs.mkdtempSync(path.join(scratch, 'azurite-import-backup-'));
  fs.mkdirSync(path.join(backup, 'blob', 'orders'), { recursive: true });
  fs.writeFileSync(path.join(backup, 'blob', 'orders', 'a.json'), '{}');
  return backup;
}

describe('Data operation journal', () => {
  it('an Import under way is not interrupted; once its process is gone, one that had changed data is reported once, with the copy of what it replaced', async () => {
    const storage = tempDir('journal-');
    const run = await beginOperation(storage, importOf('/snapshots/a', 'the running Blob', false));
    assert.equal(path.dirname(run.scratch), path.join(storage, OPERATIONS_FOLDER));
    assert.deepEqual(await takeInterrupted(storage, alive), { interrupted: [], running: 1 });
    const backup = makeCopy(run.scratch);
    await run.changing(backup);
    assert.deepEqual(await takeInterrupted(storage, alive), { interrupted: [], running: 1 }, 'still under way');
    const { interrupted, running } = await takeInterrupted(storage, dead);
    assert.equal(running, 0);
    assert.equal(interrupted.length, 1);
    assert.deepEqual({ folder: interrupted[0]!.journal.folder, where: interrupted[0]!.journal.where, phase: interrupted[0]!.journal.phase, pid: interrupted[0]!.journal.pid, copy: interrupted[0]!.copy },
      { folder: '/snapshots/a', where: 'the running Blob', phase: 'changing', pid: process.pid, copy: backup });
    assert.equal(fs.readFileSync(path.join(backup, 'blob', 'orders', 'a.json'), 'utf8'), '{}', 'the copy stays');
    assert.deepEqual(await takeInterrupted(storage, dead), { interrupted: [], running: 0 }, 'reported once');
    // The copy goes 30 days after it was found, not before.
    const later = Date.now() + INTERRUPTED_COPY_KEEP_MS;
    await takeInterrupted(storage, dead, later - 60_000);
    assert.ok(fs.existsSync(backup));
    await takeInterrupted(storage, dead, later + 60_000);
    assert.equal(fs.existsSync(run.scratch), false);
  });

  it('an Import interrupted before its first change, or into services kept in memory, is removed without a report', async () => {
    const storage = tempDir('journal-');
    const copying = await beginOperation(storage, importOf('/s', 'the running Blob', false));
    makeCopy(copying.scratch);
    const inMemory = await beginOperation(storage, importOf('/s', 'the running Blob', true));
    await inMemory.changing(makeCopy(inMemory.scratch));
    assert.deepEqual(await takeInterrupted(storage, dead), { interrupted: [], running: 0 });
    assert.deepEqual(fs.readdirSync(path.join(storage, OPERATIONS_FOLDER)), []);
  });

  it('an Import that replaced nothing is reported without a copy; one that ended leaves nothing, or only a copy a failed rollback kept', async () => {
    const storage = tempDir('journal-');
    const added = await beginOperation(storage, importOf('/s', 'the Azurite at 10.0.0.5:10000', false));
    await added.changing(fs.mkdtempSync(path.join(added.scratch, 'azurite-import-backup-')));
    const found = await takeInterrupted(storage, dead);
    assert.deepEqual(found.interrupted.map((i) => [i.journal.where, i.copy]), [['the Azurite at 10.0.0.5:10000', undefined]]);
    assert.deepEqual(fs.readdirSync(path.join(storage, OPERATIONS_FOLDER)), []);

    const ended = await beginOperation(storage, importOf('/s', 'the running Blob', false));
    await ended.end();
    assert.deepEqual(fs.readdirSync(path.join(storage, OPERATIONS_FOLDER)), []);
    const kept = await beginOperation(storage, importOf('/s', 'the running Blob', false));
    const copy = makeCopy(kept.scratch);
    await kept.end();
    assert.ok(fs.existsSync(copy), 'a copy named by a failed rollback\'s error stays');
    assert.deepEqual(await takeInterrupted(storage, dead), { interrupted: [], running: 0 });
  });

  it('a Reset and a seed change data from their first step: reported once their process is gone, unless in memory', async () => {
    const storage = tempDir('journal-');
    await beginOperation(storage, { operation: 'reset', folder: '/repo/seed', kinds: ['blob', 'queue'], where: 'the running Blob, Queue', inMemory: false });
    await beginOperation(storage, { operation: 'seed', folder: '/repo/seed', kinds: ['table'], where: 'the running Table', inMemory: false });
    await beginOperation(storage, { operation: 'seed', folder: '/repo/seed', kinds: ['blob'], where: 'the running Blob', inMemory: true });
    const { interrupted } = await takeInterrupted(storage, dead);
    assert.deepEqual(interrupted.map((i) => [i.journal.operation, i.journal.phase, i.journal.kinds, i.copy]).sort(), [['reset', 'changing', ['blob', 'queue'], undefined], ['seed', 'changing', ['table'], undefined]]);
    assert.deepEqual(fs.readdirSync(path.join(storage, OPERATIONS_FOLDER)), []);
    const byOperation = Object.fromEntries(interrupted.map((i) => [i.journal.operation, interruptedMessage(i.journal, i.copy)]));
    assert.match(byOperation['reset']!, /^The Reset of Blob, Queue, begun .+, did not finish: its window closed or reloaded\. They may hold part of what was there and part of the seed in \/repo\/seed: reset again to finish it\.$/);
    assert.match(byOperation['seed']!, /^Loading the seed in \/repo\/seed into Table, begun .+, did not finish: its window closed or reloaded\. Table holds part of it, and on disk a seed loads only into an empty service: Reset empties Table and loads the seed in full\.$/);
  });

  it('by default, an operation is under way while the very process that wrote it runs: not a later one with its id, nor one from before the boot', async () => {
    const storage = tempDir('journal-');
    const run = await beginOperation(storage, { operation: 'reset', folder: '', kinds: ['queue'], where: 'the running Queue', inMemory: false });
    assert.deepEqual(await takeInterrupted(storage), { interrupted: [], running: 1 }, 'this process wrote it and runs');
    const journal = JSON.parse(fs.readFileSync(path.join(run.scratch, 'journal.json'), 'utf8')) as Record<string, unknown>;
    const write = (fields: Record<string, unknown>): void => fs.writeFileSync(path.join(run.scratch, 'journal.json'), JSON.stringify({ ...journal, ...fields }));
    if (typeof journal['bootId'] === 'string') {
      // Linux: this process's id, but another start time (a restarted container gives the same ids).
      write({ startTicks: '1' });
      assert.deepEqual((await takeInterrupted(storage)).interrupted.map((i) => i.journal.operation), ['reset']);
    }
    await run.end();
    // Without /proc (macOS, Windows): written before this machine booted, whatever runs under its id now.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      const scratch = (await beginOperation(storage, { operation: 'seed', folder: '/s', kinds: ['blob'], where: 'the running Blob', inMemory: false })).scratch;
      const bare = JSON.parse(fs.readFileSync(path.join(scratch, 'journal.json'), 'utf8')) as Record<string, unknown>;
      delete bare['bootId'];
      delete bare['startTicks'];
      fs.writeFileSync(path.join(scratch, 'journal.json'), JSON.stringify({ ...bare, pid: child.pid, startedAt: new Date(Date.now() - 60_000).toISOString() }));
      assert.deepEqual(await takeInterrupted(storage, undefined, Date.now(), Date.now() - 3_600_000), { interrupted: [], running: 1 }, 'begun since the boot: under way');
      assert.deepEqual((await takeInterrupted(storage, undefined, Date.now(), Date.now() - 30_000)).interrupted.map((i) => i.journal.operation), ['seed']);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('two windows that look at once report an interrupted operation once; its copy is found by name in its folder', async () => {
    const storage = tempDir('journal-');
    const run = await beginOperation(storage, importOf('/s', 'the running Blob', false));
    const backup = makeCopy(run.scratch);
    // Written when the storage folder's path read otherwise (a linked or moved user data folder).
    await run.changing(path.join('/elsewhere', path.basename(backup)));
    const [a, b] = await Promise.all([takeInterrupted(storage, dead), takeInterrupted(storage, dead)]);
    const found = [...a.interrupted, ...b.interrupted];
    assert.equal(found.length, 1);
    assert.equal(found[0]!.copy, backup, 'the copy, where it is');
    assert.ok(fs.existsSync(path.join(backup, 'blob', 'orders', 'a.json')), 'kept');
  });

  it('a journal that cannot be read is skipped, and a storage folder without data-operations/ finds nothing', async () => {
    const storage = tempDir('journal-');
    assert.deepEqual(await takeInterrupted(storage, dead), { interrupted: [], running: 0 });
    fs.mkdirSync(path.join(storage, OPERATIONS_FOLDER, 'import-x'), { recursive: true });
    fs.writeFileSync(path.join(storage, OPERATIONS_FOLDER, 'import-x', 'journal.json'), '{"version":1,');
    assert.deepEqual(await takeInterrupted(storage, dead), { interrupted: [], running: 0 });
  });
});
