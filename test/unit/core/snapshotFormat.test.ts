import * as assert from 'node:assert/strict';
import {
  entityDocument,
  blobFiles, parseBlobEntries, parseContainerEntry, parseEntities, parseMessages, parseQueueEntry, printBlobEntries, printContainerEntry, printEntities,
  printMessages, SnapshotFormatError, type BlobEntry, type EntityEntry,
} from '../../../src/core/snapshotFormat';

describe('Snapshot format (pure)', () => {
  const typed: EntityEntry = {
    partitionKey: 'p 1',
    rowKey: 'ü/2',
    properties: {
      name: { value: 'Ada', type: 'String' },
      numeric: { value: '42', type: 'String' },
      active: { value: 'true', type: 'Boolean' },
      count: { value: '-7', type: 'Int32' },
      big: { value: '9007199254740993', type: 'Int64' },
      ratio: { value: '0.25', type: 'Double' },
      whole: { value: '5', type: 'Double' },
      notANumber: { value: 'NaN', type: 'Double' },
      at: { value: '2024-01-31T12:00:00.000Z', type: 'DateTime' },
      id: { value: '2b5e4c0e-6a0b-4a4e-9c43-3d0f4b9c9e1a', type: 'Guid' },
      bytes: { value: 'AAEC/w==', type: 'Binary' },
    },
  };

  it('prints an entity as the Table service\'s JSON, annotating only what JSON cannot keep apart, and parses it back to the same types', () => {
    const line = printEntities([typed]);
    assert.equal(line,
      '{"PartitionKey":"p 1","RowKey":"ü/2","active":true,"at@odata.type":"Edm.DateTime","at":"2024-01-31T12:00:00.000Z",' +
      '"big@odata.type":"Edm.Int64","big":"9007199254740993","bytes@odata.type":"Edm.Binary","bytes":"AAEC/w==","count":-7,' +
      '"id@odata.type":"Edm.Guid","id":"2b5e4c0e-6a0b-4a4e-9c43-3d0f4b9c9e1a","name":"Ada","notANumber@odata.type":"Edm.Double","notANumber":"NaN",' +
      '"numeric":"42","ratio":0.25,"whole@odata.type":"Edm.Double","whole":5}\n');
    const [back] = parseEntities('table/t.jsonl', line);
    assert.deepEqual(back, typed);
    assert.equal(printEntities(parseEntities('table/t.jsonl', line)), line, 'print → parse → print is byte-identical');
  });

  it('reads an unannotated number with a decimal point or an exponent as Edm.Double, as the Table service writes a whole-number double (5.0)', () => {
    const line = '{"PartitionKey":"a","RowKey":"1","whole":5.0,"thousand":1e3,"big":3E+9,"half":0.5,"n":5,"negative":-2,"constructor":7.0}\n';
    const [e] = parseEntities('table/t.jsonl', line);
    assert.deepEqual(e!.properties, {
      whole: { value: '5', type: 'Double' },
      thousand: { value: '1000', type: 'Double' },
      big: { value: '3000000000', type: 'Double' },
      half: { value: '0.5', type: 'Double' },
      n: { value: '5', type: 'Int32' },
      negative: { value: '-2', type: 'Int32' },
      constructor: { value: '7', type: 'Double' },
    });
    // JSON allows blanks around the colon: `"x" : 5.0` is a Double too.
    assert.deepEqual(parseEntities('table/t.jsonl', '{"PartitionKey":"a","RowKey":"1","x" : 5.0,"y":\t1e2}')[0]!.properties, { x: { value: '5', type: 'Double' }, y: { value: '100', type: 'Double' } });
    // Printed back annotated, so the type survives a tool that rewrites 5.0 as 5.
    assert.match(printEntities([e!]), /"whole@odata\.type":"Edm\.Double","whole":5[,}]/);
  });

  it('names the file and line of a malformed entity', () => {
    const text = '{"PartitionKey":"a","RowKey":"1"}\n\n{"PartitionKey":"a","RowKey":"2","n":2147483648}\n';
    assert.throws(() => parseEntities('table/people.jsonl', text), (err: unknown) => {
      assert.ok(err instanceof SnapshotFormatError);
      assert.equal(err.file, 'table/people.jsonl');
      assert.equal(err.line, 3);
      assert.match(err.message, /^table\/people\.jsonl:3: property "n": 2147483648 does not fit Edm\.Int32/);
      return true;
    });
    assert.throws(() => parseEntities('table/t.jsonl', '{"PartitionKey":"a","RowKey":"1"}\n{"PartitionKey":"a",'), /^SnapshotFormatError: table\/t\.jsonl:2: not JSON/);
    assert.throws(() => parseEntities('table/t.jsonl', '{"PartitionKey":"a","RowKey":"1","x@odata.type":"Edm.Int64","x":12}'), /t\.jsonl:1: property "x": Edm\.Int64 needs a whole number as a string/);
    assert.throws(() => parseEntities('table/t.jsonl', '{"PartitionKey":"a","RowKey":"1","x@odata.type":"Edm.Decimal","x":"1"}'), /unknown type "Edm\.Decimal"/);
    // Date.parse takes these; the service stores them as given, and a client's parser fails later.
    for (const date of ['1', '2020', '01/02/2020', 'Tuesday, 1 Jan 2020', '2020-13-01T00:00:00Z']) {
      assert.throws(() => parseEntities('table/t.jsonl', `{"PartitionKey":"a","RowKey":"1","at@odata.type":"Edm.DateTime","at":"${date}"}`), /t\.jsonl:1: property "at": Edm\.DateTime needs an ISO 8601 date string/, date);
    }
    for (const date of ['2020-01-02', '2020-01-02T03:04Z', '2020-01-02T03:04:05.1234567Z', '2020-01-02T03:04:05+01:00', '0001-01-01T00:00:00.0000000Z']) {
      assert.equal(parseEntities('table/t.jsonl', `{"PartitionKey":"a","RowKey":"1","at@odata.type":"Edm.DateTime","at":"${date}"}`)[0]!.properties['at']!.value, date);
    }
    assert.throws(() => parseEntities('table/t.jsonl', '{"PartitionKey":"a","RowKey":"1"}\n{"PartitionKey":"a","RowKey":"1"}'), /t\.jsonl:2: PartitionKey "a", RowKey "1" appears twice/);
    assert.throws(() => parseEntities('table/t.jsonl', '{"PartitionKey":"a","RowKey":"1","Timestamp":"2024-01-01T00:00:00Z"}'), /"Timestamp" is set by the service/);
    // The SDK writes these as the entity's own fields: the key would be replaced, the others dropped.
    for (const name of ['partitionKey', 'rowKey', 'etag', 'timestamp']) {
      assert.throws(() => parseEntities('table/t.jsonl', `{"PartitionKey":"a","RowKey":"1","${name}":"x"}`), new RegExp(`table/t.jsonl:1: "${name}" is the Azure SDK's name for the entity's`));
    }
    // Names an object inherits are property names like any other.
    assert.deepEqual(parseEntities('table/t.jsonl', '{"PartitionKey":"a","RowKey":"1","constructor":"x","toString":"y"}')[0]!.properties['constructor'], { value: 'x', type: 'String' });
    assert.throws(() => parseEntities('table/t.jsonl', '{"RowKey":"1"}'), /t\.jsonl:1: an entity needs string "PartitionKey" and "RowKey"/);
  });

  it('keeps blob properties, metadata, types and content types, and leaves defaults out', () => {
    const entries: BlobEntry[] = [
      { name: 'a b/ü.txt', contentType: 'text/plain; charset=utf-8', metadata: { zeta: '1', alpha: 'two' }, file: 'c/a b/ü.txt' },
      { name: 'empty', contentType: 'application/octet-stream', type: 'BlockBlob' },
      { name: 'log', type: 'AppendBlob', contentType: 'text/plain', contentEncoding: 'gzip', contentLanguage: 'en', contentDisposition: 'inline', cacheControl: 'no-cache' },
      { name: 'weird:name', contentType: 'x/y', file: 'c.files/1', metadata: {} },
    ];
    const text = printBlobEntries('c', entries);
    assert.equal(text,
      '{"name":"a b/ü.txt","contentType":"text/plain; charset=utf-8","metadata":{"alpha":"two","zeta":"1"}}\n' +
      '{"name":"empty","contentType":"application/octet-stream"}\n' +
      '{"name":"log","type":"AppendBlob","contentType":"text/plain","contentEncoding":"gzip","contentLanguage":"en","contentDisposition":"inline","cacheControl":"no-cache"}\n' +
      '{"name":"weird:name","file":"c.files/1","contentType":"x/y"}\n');
    const back = parseBlobEntries('blob/c.blobs.jsonl', text);
    assert.equal(printBlobEntries('c', back), text);
    assert.deepEqual(back.map((b) => b.line), [1, 2, 3, 4]);
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"x","file":"../../etc/passwd"}'), /c\.blobs\.jsonl:1: "file" must be a relative path inside blob\//);
    // Without "file" the content is c/<name>: a name that leaves the folder cannot name a file outside the snapshot.
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"../../../home/u/.ssh/id_rsa"}'), /c\.blobs\.jsonl:1: blob "\.\.\/\.\.\/\.\.\/home\/u\/\.ssh\/id_rsa" needs a "file": its name is not a relative path inside the container's folder/);
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"/etc/passwd"}'), /needs a "file"/);
    // A name Azurite would store but then could not list (HTTP 500 for the whole container).
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"a\\u0001b","file":"c.files/1"}'), /c\.blobs\.jsonl:1: blob "a\\u0001b" holds U\+0001, which Azurite stores but cannot write back \(XML 1\.0 has no such character\): no client could list its container after it/);
    assert.equal(parseBlobEntries('blob/c.blobs.jsonl', '{"name":"tab\\tcr\\rlf\\n","file":"c.files/1"}').length, 1, 'tab, CR and LF are fine');
    assert.equal(parseBlobEntries('blob/c.blobs.jsonl', '{"name":"/up","file":"c.files/1"}')[0]!.name, '/up');
    // A "." or ".." segment: the SDK's URL would name another blob.
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"../up","file":"c.files/1"}'), /c\.blobs\.jsonl:1: blob "\.\.\/up" cannot be reached through the Azure SDK: its URL would drop the "\.\." segment and name another blob/);
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"a/./b","file":"c.files/1"}'), /drop the "\." segment/);
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"x","tier":"Hot"}'), /unknown key "tier"/);
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"x"}\n{"name":"x"}'), /c\.blobs\.jsonl:2: blob "x" is listed twice/);
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"x","metadata":{"n":1}}'), /"metadata\.n" must be a string/);
    // What the load sends as headers is checked when the folder is read, not half-way through the load.
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"x"}\n{"name":"y","metadata":{"author":"\u0141ukasz"}}'), /c\.blobs\.jsonl:2: "metadata\.author" holds U\+0141, which an HTTP header cannot carry/);
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"x","metadata":{"my key":"v"}}'), /c\.blobs\.jsonl:1: metadata name "my key" cannot be a header name/);
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"x","contentDisposition":"attachment; filename=\\"\u65e5.pdf\\""}'), /"contentDisposition" holds U\+65E5/);
    assert.throws(() => parseBlobEntries('blob/c.blobs.jsonl', '{"name":"x","cacheControl":"a\\r\\nb"}'), /"cacheControl" holds U\+000D/);
    assert.equal(parseBlobEntries('blob/c.blobs.jsonl', '{"name":"x","metadata":{"Owner_1":"caf\u00e9\\tok"}}')[0]!.metadata!.Owner_1, 'caf\u00e9\tok', 'Latin-1 and a tab are fine');
  });

  it('places blobs as files where every OS can hold the path, and elsewhere in <container>.files/', () => {
    const names = ['a', 'a/b', 'dir/x.txt', 'Dir/y.txt', 'Dir/z.txt', 'README', 'readme', 'with space/ü.txt', 'caf\u00e9/1', 'cafe\u0301/2', 'con.txt', 'ends.', 'q?', 'x//y', '../up'];
    const files = blobFiles('c', [...names].sort());
    assert.equal(files.get('a/b'), 'c/a/b');
    assert.match(files.get('a')!, /^c\.files\/\d+$/, 'a blob named like a folder of another blob');
    // Folders that differ only by case are one folder on Windows and macOS: the first spelling keeps it.
    assert.equal(files.get('Dir/y.txt'), 'c/Dir/y.txt');
    assert.equal(files.get('Dir/z.txt'), 'c/Dir/z.txt');
    assert.match(files.get('dir/x.txt')!, /^c\.files\/\d+$/, 'a folder spelled otherwise than an earlier name spells it');
    // So are folders that differ only by Unicode normalisation on macOS.
    assert.equal(files.get('cafe\u0301/2'), 'c/cafe\u0301/2');
    assert.match(files.get('caf\u00e9/1')!, /^c\.files\/\d+$/, 'the same folder name in another normalisation');
    assert.equal(files.get('README'), 'c/README');
    assert.match(files.get('readme')!, /^c\.files\/\d+$/, 'a name equal to another but for case');
    assert.equal(files.get('with space/ü.txt'), 'c/with space/ü.txt');
    for (const n of ['con.txt', 'ends.', 'q?', 'x//y', '../up']) assert.match(files.get(n)!, /^c\.files\/\d+$/, n);
    assert.equal(new Set(files.values()).size, names.length, 'every blob has a file of its own');
  });

  it('reads queue messages and container properties, and refuses what it does not know', () => {
    const text = printMessages([{ text: 'hello' }, { text: '{"json":"inside"}' }, { text: '' }]);
    assert.equal(text, '{"text":"hello"}\n{"text":"{\\"json\\":\\"inside\\"}"}\n{"text":""}\n');
    assert.deepEqual(parseMessages('queue/q.jsonl', text), [{ text: 'hello' }, { text: '{"json":"inside"}' }, { text: '' }]);
    assert.throws(() => parseMessages('queue/q.jsonl', '{"text":1}'), /q\.jsonl:1: a message needs a string "text"/);
    assert.throws(() => parseMessages('queue/q.jsonl', '{"text":"ok"}\n{"text":"bell \\u0007"}'), /q\.jsonl:2: the message holds U\+0007, which Azurite stores but cannot write back \(XML 1\.0 has no such character\): no client could read the queue after it/);
    assert.throws(() => parseMessages('queue/q.jsonl', '{"text":"\\ud800 alone"}'), /holds U\+D800/);
    assert.deepEqual(parseMessages('queue/q.jsonl', '{"text":"\\ud83d\\ude00 \\t\\r\\n"}'), [{ text: '\u{1F600} \t\r\n' }], 'a surrogate pair, tab, CR and LF are fine');
    assert.equal(printContainerEntry({}), undefined);
    const c = printContainerEntry({ publicAccess: 'blob', metadata: { b: '2', a: '1' } })!;
    assert.deepEqual(parseContainerEntry('blob/c.container.json', c), { metadata: { a: '1', b: '2' }, publicAccess: 'blob' });
    assert.throws(() => parseContainerEntry('blob/c.container.json', '{"publicAccess":"all"}'), /c\.container\.json: "publicAccess" must be "blob" or "container"/);
    assert.throws(() => parseContainerEntry('blob/c.container.json', '{"metadata":{"team":"\u00e9quipe \u2713"}}'), /c\.container\.json: "metadata\.team" holds U\+2713/);
    assert.throws(() => parseQueueEntry('queue/q.queue.json', '{"metadata":{"a\\u0000":"v"}}'), (err: unknown) => err instanceof Error && err.message.startsWith('queue/q.queue.json: metadata name "a\u0000" cannot be a header name'));
  });

  it('reads files that begin with a byte order mark (PowerShell 5, some editors)', () => {
    const bom = '\uFEFF';
    assert.deepEqual(parseContainerEntry('blob/c.container.json', bom + '{"publicAccess":"container"}'), { publicAccess: 'container' });
    assert.deepEqual(parseQueueEntry('queue/q.queue.json', bom + '{"metadata":{"a":"1"}}'), { metadata: { a: '1' } });
    assert.deepEqual(parseMessages('queue/q.jsonl', bom + '{"text":"first"}\n{"text":"second"}\n'), [{ text: 'first' }, { text: 'second' }]);
  });

  it('shows an entity as the Table service\'s JSON: keys, Timestamp, then properties, a type where JSON cannot tell it, every digit kept', () => {
    const listed = {
      partitionKey: 'p', rowKey: 'r', etag: 'W/"x"', timestamp: '2024-05-06T07:08:09.1234567Z',
      name: { value: 'Ada', type: 'String' }, n: { value: '42', type: 'Int32' }, ratio: { value: '0.5', type: 'Double' },
      seen: { value: '2024-01-02T03:04:05.1234567Z', type: 'DateTime' }, big: { value: '9007199254740993', type: 'Int64' },
      score: { value: 'NaN', type: 'Double' }, whole: { value: '2', type: 'Double' },
    };
    const doc = entityDocument(listed);
    assert.deepEqual(Object.keys(doc).slice(0, 3), ['PartitionKey', 'RowKey', 'Timestamp']);
    assert.deepEqual(doc, {
      PartitionKey: 'p', RowKey: 'r', Timestamp: '2024-05-06T07:08:09.1234567Z',
      'big@odata.type': 'Edm.Int64', big: '9007199254740993', n: 42, name: 'Ada', ratio: 0.5,
      'score@odata.type': 'Edm.Double', score: 'NaN', 'seen@odata.type': 'Edm.DateTime', seen: '2024-01-02T03:04:05.1234567Z',
      'whole@odata.type': 'Edm.Double', whole: 2,
    });
  });
});
