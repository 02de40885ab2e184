/**
 * The `batchLineSeparators` patch of the engine seam (src/engine/tableBatchText.ts): azurite's own
 * table transaction serializer (unbundled, from node_modules) misreads an operation whose JSON holds
 * U+2028 or U+2029 without it and reads it as sent with it; through the engine (the bundle, with the
 * seam), the data-tables SDK's transactions with such entities succeed and read back.
 */
import * as assert from 'node:assert/strict';
import { odata, TableClient } from '@azure/data-tables';
import { escapeLineSeparators, readLineSeparators } from '../../../src/engine/tableBatchText';
import { clients as sdkClients, disposeAfterEach, makeEmulator, startAll } from '../helpers/emulatorFixture';

interface Operation { httpMethod: string; jsonRequestBody: string }
type SerializationClass = new () => { deserializeBatchRequest(text: string): Operation[] };
const { TableBatchSerialization } = require('azurite/dist/src/table/batch/TableBatchSerialization') as { TableBatchSerialization: SerializationClass & { prototype: { deserializeBatchRequest(text: string): Operation[] } } };

/** A transaction's multipart text as the data-tables SDK writes it, with one insert per entity. */
function transactionText(entities: readonly Record<string, string>[]): string {
  const parts = entities.map((e) => [
    '--changeset_c1', 'Content-Type: application/http', 'Content-Transfer-Encoding: binary', '',
    'POST http://127.0.0.1:10002/devstoreaccount1/notes HTTP/1.1',
    'Content-Type: application/json', 'Accept: application/json;odata=minimalmetadata', 'Prefer: return-no-content', 'DataServiceVersion: 3.0', '',
    JSON.stringify(e),
  ].join('\r\n'));
  return ['--batch_b1', 'Content-Type: multipart/mixed; boundary=changeset_c1', '', ...parts, '--changeset_c1--', '--batch_b1--', ''].join('\r\n');
}

describe('Seam: table transactions with U+2028 and U+2029 (batchLineSeparators)', function () {
  this.timeout(120_000);
  const track = disposeAfterEach();
  const entities: Record<string, string>[] = [
    { PartitionKey: 'p', RowKey: '1', text: 'first line\u2028second line' },
    { PartitionKey: 'p', RowKey: '2\u2029', ['para\u2029name']: 'x' },
    { PartitionKey: 'p', RowKey: '3', text: 'plain' },
  ];

  it('escapes only U+2028 and U+2029, as JSON escapes', () => {
    assert.equal(escapeLineSeparators('a\u2028b\u2029c\n\u0085'), 'a\\u2028b\\u2029c\n\u0085');
    assert.equal(JSON.parse(escapeLineSeparators(JSON.stringify({ t: 'a\u2028b\u2029' }))).t, 'a\u2028b\u2029');
  });

  it('azurite\'s serializer misreads such an operation without the patch, and reads every operation as sent with it', () => {
    const text = transactionText(entities);
    const bodies = (): unknown[] => new TableBatchSerialization().deserializeBatchRequest(text).map((o) => { try { return JSON.parse(o.jsonRequestBody); } catch { return o.jsonRequestBody; } });
    assert.notDeepEqual((() => { try { return bodies(); } catch (err) { return err; } })(), entities, 'azurite 3.37 as it is');
    readLineSeparators(TableBatchSerialization.prototype);
    readLineSeparators(TableBatchSerialization.prototype); // idempotent
    assert.deepEqual(bodies(), entities);
  });

  it('through the engine, the SDK\'s transactions with such entities succeed and read back as sent', async () => {
    const { emulator } = track(makeEmulator({ inMemoryPersistence: true }));
    await startAll(emulator, ['table']);
    const table: TableClient = sdkClients(emulator).table('notes');
    await table.createTable();
    await table.submitTransaction(entities.map(({ PartitionKey, RowKey, ...rest }) => ['create', { partitionKey: PartitionKey!, rowKey: RowKey!, ...rest }]));
    const back: Record<string, unknown>[] = [];
    for await (const e of table.listEntities<Record<string, unknown>>({ queryOptions: { filter: odata`PartitionKey eq 'p'` } })) {
      back.push(Object.fromEntries(Object.entries(e).filter(([k]) => !['etag', 'timestamp', 'odata.etag'].includes(k))));
    }
    assert.deepEqual(back, [
      { partitionKey: 'p', rowKey: '1', text: 'first line\u2028second line' },
      { partitionKey: 'p', rowKey: '2\u2029', ['para\u2029name']: 'x' },
      { partitionKey: 'p', rowKey: '3', text: 'plain' },
    ]);
    // An update and an upsert in one transaction too (a key with them in an operation's URL, an
    // update's or a delete's, is still not found: docs/ENGINE.md, "Table transactions").
    await table.submitTransaction([['update', { partitionKey: 'p', rowKey: '1', text: 'now\u2029changed' }, 'Replace'], ['upsert', { partitionKey: 'p', rowKey: '3', text: 'plain\u2028no more' }, 'Merge']]);
    assert.equal((await table.getEntity<{ text: string }>('p', '1')).text, 'now\u2029changed');
    assert.equal((await table.getEntity<{ text: string }>('p', '3')).text, 'plain\u2028no more');
  });
});
