/**
 * The journal of an Import under way (src/ui/importJournal.ts): what the next window finds when an
 * Import did not end, and what it removes. Plain files; the window that reports it is tested in
 * test/integration/testData.test.ts and test/e2e/reload.test.mjs.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beginImport, IMPORTS_FOLDER, INTERRUPTED_COPY_KEEP_MS, processAlive, takeInterruptedImports } from '../../../src/ui/importJournal';
import { tempDir } from '../helpers/emulatorFixture';

const dead = (): boolean => false;
const alive = (): boolean => true;

/** A copy as importSnapshot makes it: `<scratch>/azurite-import-backup-…/blob/<container>/<blob>`. */
function makeCopy(scratch: string): string {
  const backup = fs.mkdtempSync(path.join(scratch, 'azurite-import-backup-'));
  fs.mkdirSync(path.join(backup, 'blob', 'orders'), { recursive: true });
  fs.writeFileSync(path.join(backup, 'blob', 'orders', 'a.json'), '{}');
  return backup;
}

describe('Import journal', () => {
  it('an Import under way is not interrupted; once its process is gone, one that had changed data is reported once, with the copy of what it replaced', async () => {
    const storage = tempDir('journal-');
    const run = await beginImport(storage, { folder: '/snapshots/a', where: 'the running Blob', inMemory: false });
    assert.equal(path.dirname(run.scratch), path.join(storage, IMPORTS_FOLDER));
    assert.deepEqual(await takeInterruptedImports(storage, alive), { interrupted: [], running: 1 });
    const backup = makeCopy(run.scratch);
    await run.changing(backup);
    assert.deepEqual(await takeInterruptedImports(storage, alive), { interrupted: [], running: 1 }, 'still under way');
    const { interrupted, running } = await takeInterruptedImports(storage, dead);
    assert.equal(running, 0);
    assert.equal(interrupted.length, 1);
    assert.deepEqual({ folder: interrupted[0]!.journal.folder, where: interrupted[0]!.journal.where, phase: interrupted[0]!.journal.phase, pid: interrupted[0]!.journal.pid, copy: interrupted[0]!.copy },
      { folder: '/snapshots/a', where: 'the running Blob', phase: 'changing', pid: process.pid, copy: backup });
    assert.equal(fs.readFileSync(path.join(backup, 'blob', 'orders', 'a.json'), 'utf8'), '{}', 'the copy stays');
    assert.deepEqual(await takeInterruptedImports(storage, dead), { interrupted: [], running: 0 }, 'reported once');
    // The copy goes 30 days after it was found, not before.
    const later = Date.now() + INTERRUPTED_COPY_KEEP_MS;
    await takeInterruptedImports(storage, dead, later - 60_000);
    assert.ok(fs.existsSync(backup));
    await takeInterruptedImports(storage, dead, later + 60_000);
    assert.equal(fs.existsSync(run.scratch), false);
  });

  it('an Import interrupted before its first change, or into services kept in memory, is removed without a report', async () => {
    const storage = tempDir('journal-');
    const copying = await beginImport(storage, { folder: '/s', where: 'the running Blob', inMemory: false });
    makeCopy(copying.scratch);
    const inMemory = await beginImport(storage, { folder: '/s', where: 'the running Blob', inMemory: true });
    await inMemory.changing(makeCopy(inMemory.scratch));
    assert.deepEqual(await takeInterruptedImports(storage, dead), { interrupted: [], running: 0 });
    assert.deepEqual(fs.readdirSync(path.join(storage, IMPORTS_FOLDER)), []);
  });

  it('an Import that replaced nothing is reported without a copy; one that ended leaves nothing, or only a copy a failed rollback kept', async () => {
    const storage = tempDir('journal-');
    const added = await beginImport(storage, { folder: '/s', where: 'the Azurite at 10.0.0.5:10000', inMemory: false });
    await added.changing(fs.mkdtempSync(path.join(added.scratch, 'azurite-import-backup-')));
    const found = await takeInterruptedImports(storage, dead);
    assert.deepEqual(found.interrupted.map((i) => [i.journal.where, i.copy]), [['the Azurite at 10.0.0.5:10000', undefined]]);
    assert.deepEqual(fs.readdirSync(path.join(storage, IMPORTS_FOLDER)), []);

    const ended = await beginImport(storage, { folder: '/s', where: 'the running Blob', inMemory: false });
    await ended.end();
    assert.deepEqual(fs.readdirSync(path.join(storage, IMPORTS_FOLDER)), []);
    const kept = await beginImport(storage, { folder: '/s', where: 'the running Blob', inMemory: false });
    const copy = makeCopy(kept.scratch);
    await kept.end();
    assert.ok(fs.existsSync(copy), 'a copy named by a failed rollback\'s error stays');
    assert.deepEqual(await takeInterruptedImports(storage, dead), { interrupted: [], running: 0 });
  });

  it('a journal that cannot be read is skipped, and a storage folder without imports/ finds nothing', async () => {
    const storage = tempDir('journal-');
    assert.deepEqual(await takeInterruptedImports(storage, dead), { interrupted: [], running: 0 });
    fs.mkdirSync(path.join(storage, IMPORTS_FOLDER, 'import-x'), { recursive: true });
    fs.writeFileSync(path.join(storage, IMPORTS_FOLDER, 'import-x', 'journal.json'), '{"version":1,');
    assert.deepEqual(await takeInterruptedImports(storage, dead), { interrupted: [], running: 0 });
  });

  it('processAlive: true for this process, false for one that has exited', () => {
    assert.equal(processAlive(process.pid), true);
    const exited = spawnSync(process.execPath, ['-e', '0']);
    assert.equal(exited.status, 0);
    assert.equal(processAlive(exited.pid!), false);
  });
});
