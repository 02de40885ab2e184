/**
 * annotateDoubles: which numbers of a Table service response get an Edm.Double annotation. The
 * round trip through the real engine and the SDK is in snapshot.test.ts.
 */
import * as assert from 'node:assert/strict';
import { annotateDoubles } from '../../../src/data/tableDoubles';

describe('annotateDoubles (whole-number Edm.Double in entity responses)', () => {
  it('annotates numbers written as doubles in a query page, and nothing else', () => {
    const body = '{"odata.metadata":"m","value":[{"PartitionKey":"p","RowKey":"1","d":5.0,"e":1e+21,"f":0.5,"i":5,"s":"5.0,","t@odata.type":"Edm.Int64","t":"7"}]}';
    const out = JSON.parse(annotateDoubles(body)!) as { value: Array<Record<string, unknown>> };
    const e = out.value[0]!;
    assert.equal(e['d@odata.type'], 'Edm.Double');
    assert.equal(e['e@odata.type'], 'Edm.Double');
    assert.equal(e['f@odata.type'], 'Edm.Double');
    assert.equal(e['i@odata.type'], undefined);
    assert.equal(e['s@odata.type'], undefined);
    assert.equal(e['t@odata.type'], 'Edm.Int64');
    assert.equal(e.s, '5.0,');
    assert.equal(e.d, 5);
  });

  it('annotates a single entity (a point read), and keeps digits beyond a double in other numbers', () => {
    const out = annotateDoubles('{"PartitionKey":"p","RowKey":"1","d":2.0,"n":12345678901234567890}')!;
    assert.match(out, /"d":2\.0/);
    assert.match(out, /"d@odata\.type":"Edm\.Double"/);
    assert.match(out, /"n":12345678901234567890/);
  });

  it('leaves bodies alone that have nothing to annotate, are annotated already, or are not JSON', () => {
    assert.equal(annotateDoubles('{"value":[{"PartitionKey":"p","RowKey":"1","i":5,"s":"1.5","f":0.5}]}'), undefined);
    assert.equal(annotateDoubles('{"value":[{"d@odata.type":"Edm.Double","d":5.0}]}'), undefined);
    assert.equal(annotateDoubles('<?xml version="1.0"?><error/>'), undefined);
    assert.equal(annotateDoubles('{"value":[{"s":"1.0,"}]}'), undefined);
  });
});
