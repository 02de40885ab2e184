/**
 * A failed metadata save in disk mode is retried, not forgotten, against the real engine bundle and
 * a real SDK client: lokijs clears its dirty flags when a save begins and does not restore them
 * when the write fails, so without the adapter's retry (src/emulator/azurite.ts,
 * keepUnsavedOnFailure) a table acknowledged with a 2xx, whose autosave failed once, was skipped by
 * the stop's save and lost. The failure is a real one: a folder standing where LokiFsAdapter writes
 * its temporary file (`<db>~`), removed afterwards.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TableServiceClient } from '@azure/data-tables';
import { engineFiles, tempDir } from '../helpers/emulatorFixture';
import { DATA_FILES } from '../../../src/core/dataFiles';
import { markerFileName } from '../../../src/emulator/shutdownMarker';
import type * as Adapter from '../../../src/emulator/azurite';

const DEV_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

describe('Disk mode: a failed metadata save is retried (real engine bundle, real SDK)', function () {
  this.timeout(60_000);

  it('keeps a table whose autosave failed once: it is logged, and the stop writes it', async () => {
    const engine = require(engineFiles().enginePath) as typeof Adapter & { createApiVersionPolicy: (mode: string, onNewer: () => void) => unknown };
    const location = tempDir('save-retry-');
    const db = path.join(location, DATA_FILES.table.db);
    const lines: string[] = [];
    let failed!: () => void;
    const failure = new Promise<void>((resolve) => { failed = resolve; });
    const service = engine.createService({
      kind: 'table', host: '127.0.0.1', port: 0, inMemory: false, location, loose: false, keepAliveSec: 5,
      https: undefined, oauth: undefined, disableProductStyleUrl: false, accessLog: undefined, memoryStore: undefined,
      apiVersionPolicy: engine.createApiVersionPolicy('acceptNewer', () => undefined) as Adapter.EngineServiceOptions['apiVersionPolicy'],
      // Only Azurite's own 5 s autosave: its failure is the one nothing else would notice.
      saveWindowMs: 0,
      saveLog: { info: (line) => lines.push(line), error: (line) => { lines.push(line); failed(); } },
    });
    const { port } = await service.start();
    // Where LokiFsAdapter writes before its rename (the start has saved the new database already):
    // a folder there fails the next write (EISDIR).
    fs.mkdirSync(`${db}~`);
    try {
      const tables = TableServiceClient.fromConnectionString(
        `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${DEV_KEY};TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`,
        { allowInsecureConnection: true });
      await tables.createTable('acknowledged');
      // Azurite's autosave runs every 5 s; bounded, so that a missing report fails instead of hanging.
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([failure, new Promise((_, reject) => { bound = setTimeout(() => reject(new Error('no failed save was reported within 15 s')), 15_000); })])
        .finally(() => clearTimeout(bound));
      assert.match(lines[0]!, /^Could not save table metadata to .*__azurite_db_table__\.json: EISDIR/);
      fs.rmdirSync(`${db}~`);
    } finally {
      await service.stop();
    }
    assert.ok(fs.readFileSync(db, 'utf8').includes('acknowledged'), 'the acknowledged table is in the saved metadata');
    assert.equal(fs.existsSync(path.join(location, markerFileName('table'))), false);
    fs.rmSync(location, { recursive: true, force: true });
  });
});
