/**
 * The `lokiBatches` patch of the engine seam (src/engine/lokiBatches.ts) against LokiJS as azurite
 * resolves it (unbundled, from node_modules), a copy of it with the patch beside a copy without:
 * over a seeded random mix of inserts, findAndRemove, batch and single removes and updates (batches
 * of none, one and more), both hold the same documents and give the same answers to indexed
 * queries after every step, also after both are saved and loaded again, and the patched copy's
 * indices stay valid; a remove of none or one and an update of one no longer sort an index again,
 * which LokiJS without the patch does each time; a batch while an index is marked for a rebuild,
 * and a remove of a document not in the collection, are left to LokiJS's batch path. Through the bundle
 * (real SDK deletes of blobs and messages, and reclaim): test/unit/engine/bundledEngine.test.ts.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { keepIndexesOnSmallBatches } from '../../../src/engine/lokiBatches';

interface Doc { $loki?: number; meta?: unknown; k: number; a: number; b: string }
interface Collection {
  data: Doc[];
  binaryIndices: Record<string, { dirty: boolean; values: number[] }>;
  insert(doc: Doc): Doc;
  find(query?: object): Doc[];
  findOne(query: object): Doc | null;
  findAndRemove(query: object): void;
  remove(doc: Doc | Doc[]): void;
  update(doc: Doc | Doc[]): void;
  checkAllIndexes(options?: object): string[];
  ensureIndex(property: string, force?: boolean): void;
  ensureAllIndexes(force?: boolean): void;
}
interface Database {
  addCollection(name: string, options: object): Collection;
  getCollection(name: string): Collection;
  serialize(): string;
  loadJSON(json: string): void;
}
interface LokiClass {
  new (file: string): Database;
  Collection: { prototype: Parameters<typeof keepIndexesOnSmallBatches>[0] };
}

/** lokijs/src/lokijs.js as azurite's own require finds it. */
const lokiPath = require.resolve('lokijs', { paths: [path.dirname(require.resolve('azurite/package.json'))] });

/** A copy of LokiJS of its own (its own Collection.prototype), leaving the module cache as it was. */
function freshLoki(): LokiClass {
  const cached = require.cache[lokiPath];
  delete require.cache[lokiPath];
  try {
    return require(lokiPath) as LokiClass;
  } finally {
    if (cached === undefined) delete require.cache[lokiPath];
    else require.cache[lokiPath] = cached;
  }
}

const Plain = freshLoki();
const Patched = freshLoki();
keepIndexesOnSmallBatches(Patched.Collection.prototype);
keepIndexesOnSmallBatches(Patched.Collection.prototype); // idempotent

/** As azurite makes its collections: binary indices, LokiJS's default adaptive upkeep. */
const INDEXED = { indices: ['a', 'b'] };
const collectionOf = (Loki: LokiClass): Collection => new Loki('test.db').addCollection('docs', INDEXED);

/** A seeded generator (mulberry32): the same mix of operations on every run. */
function random(seed: number): (n: number) => number {
  let t = seed;
  return (n) => {
    t = (t + 0x6d2b79f5) | 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return Math.floor((((r ^ (r >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Documents and answers of indexed queries, comparable between the two copies. */
function state(c: Collection): unknown {
  const keys = (docs: Doc[]): number[] => docs.map((d) => d.k).sort((x, y) => x - y);
  return {
    data: c.data.map((d) => ({ $loki: d.$loki, k: d.k, a: d.a, b: d.b })),
    byA: [0, 3, 7, 19].map((v) => keys(c.find({ a: v }))),
    aAtLeast: [0, 5, 12].map((v) => keys(c.find({ a: { $gte: v } }))),
    bBelow: ['x1', 'x3', 'x40'].map((v) => keys(c.find({ b: { $lt: v } }))),
    aBetween: keys(c.find({ a: { $between: [4, 9] } })),
  };
}

describe('Seam: LokiJS keeps its indices in place for a batch of none or one (lokiBatches)', () => {
  it('holds the same documents and answers the same indexed queries as LokiJS without the patch, its indices valid, over 3,000 random operations and 1,000 more after a save and load', () => {
    const next = random(20261126);
    const counts = { removedNone: 0, removedOne: 0, removedMany: 0, updatedOne: 0, updatedMany: 0 };
    let key = 0;
    /** `steps` random operations on both copies, compared after each. */
    const mix = (plain: Collection, patched: Collection, steps: number): void => {
      for (let step = 0; step < steps; step++) {
        const op = next(9);
        const both = (f: (c: Collection) => void): void => { f(plain); f(patched); };
        const removed = (before: number): void => {
          const n = before - plain.data.length;
          if (n === 0) counts.removedNone++;
          else if (n === 1) counts.removedOne++;
          else counts.removedMany++;
        };
        const before = plain.data.length;
        if (op <= 2 || plain.data.length < 5) {
          const doc = { k: key++, a: next(20), b: `x${next(50)}` };
          both((c) => c.insert({ ...doc }));
        } else if (op === 3) {
          const a = next(25); // 20–24 match nothing
          both((c) => c.findAndRemove({ a }));
          removed(before);
        } else if (op === 4) {
          const k = next(key + 5); // some are gone, some never were
          both((c) => c.findAndRemove({ k }));
          removed(before);
        } else if (op === 5) {
          const b = `x${next(60)}`;
          both((c) => c.remove(c.find({ b })));
          removed(before);
        } else if (op === 6) {
          const k = plain.data[next(plain.data.length)]!.k;
          both((c) => c.remove(c.findOne({ k })!));
        } else if (op === 7) {
          const ks = plain.data.filter(() => next(plain.data.length) < 2).slice(0, 1 + next(3)).map((d) => d.k);
          const a = next(20);
          const b = `x${next(50)}`;
          both((c) => c.update(ks.map((k) => Object.assign(c.findOne({ k })!, { a, b }))));
          if (ks.length === 1) counts.updatedOne++;
          else if (ks.length > 1) counts.updatedMany++;
        } else {
          both((c) => c.update([]));
        }
        assert.deepEqual(state(patched), state(plain), `after step ${step} (operation ${op})`);
        assert.deepEqual(patched.checkAllIndexes(), [], `after step ${step}: every index of the patched copy is valid`);
      }
    };
    const plain = new Plain('test.db');
    const patched = new Patched('test.db');
    mix(plain.addCollection('docs', INDEXED), patched.addCollection('docs', INDEXED), 3000);
    // Disk mode: azurite's databases are saved as JSON and loaded again, indices and all.
    const reload = (Loki: LokiClass, db: Database): Collection => {
      const loaded = new Loki('test.db');
      loaded.loadJSON(db.serialize());
      return loaded.getCollection('docs');
    };
    mix(reload(Plain, plain), reload(Patched, patched), 1000);
    // The mix covered every batch size the patch treats apart.
    for (const [what, n] of Object.entries(counts)) assert.ok(n > 20, `${what}: ${n}`);
  });

  it('leaves each batch to LokiJS\'s batch path while an index is marked for a rebuild, which sorts it again; and a remove of a document not in the collection', () => {
    const c = new Patched('test.db').addCollection('docs', INDEXED);
    for (let k = 0; k < 100; k++) c.insert({ k, a: k % 20, b: `x${k % 50}` });
    const batches: Array<[string, () => void]> = [
      ['a remove of one', () => c.findAndRemove({ k: 10 })],
      ['a remove of none', () => c.remove(c.find({ k: -1 }))],
      ['an update of one', () => c.update([Object.assign(c.findOne({ k: 11 })!, { a: 3 })])],
    ];
    for (const [what, batch] of batches) {
      // An index left stale and marked for a rebuild (LokiJS's batch path does so when it fails
      // half-way): a single-document path would splice the wrong entry, and none sorts it again.
      c.binaryIndices.a!.values.reverse();
      c.binaryIndices.a!.dirty = true;
      batch();
      assert.deepEqual(c.checkAllIndexes(), [], what);
    }
    assert.deepEqual(c.find({ a: 10 }).map((d) => d.k).sort((x, y) => x - y), [30, 50, 70, 90]);
    assert.deepEqual(c.find({ a: 3 }).map((d) => d.k).sort((x, y) => x - y), [3, 11, 23, 43, 63, 83]);
    c.remove([{ k: 1000, a: 1, b: 'x1' }]);
    assert.equal(c.data.length, 99);
    assert.deepEqual(c.checkAllIndexes(), []);
  });

  it('sorts no index again for a remove or update of none or one document, which LokiJS without the patch does every time', () => {
    /** How many times each copy sorts an index from scratch during `work`. */
    const sortsDuring = (c: Collection, work: () => void): number => {
      let sorts = 0;
      const ensureIndex = c.ensureIndex.bind(c);
      c.ensureIndex = (property, force) => {
        if (force === true || c.binaryIndices[property]?.dirty === true) sorts++;
        ensureIndex(property, force);
      };
      try {
        work();
      } finally {
        delete (c as Partial<Collection>).ensureIndex;
      }
      return sorts;
    };
    for (const [Loki, patchedCopy] of [[Plain, false], [Patched, true]] as const) {
      const c = collectionOf(Loki);
      for (let k = 0; k < 1000; k++) c.insert({ k, a: k % 20, b: `x${k % 50}` });
      const sorts = sortsDuring(c, () => {
        c.findAndRemove({ k: 5 }); // one
        c.findAndRemove({ k: 5 }); // none
        c.remove(c.find({ k: 6 })); // one, as an array
        c.remove(c.find({ k: -1 })); // none, as an array
        c.update([Object.assign(c.findOne({ k: 7 })!, { a: 3 })]); // one, as an array
        c.update([]); // none
        c.find({ a: 3 }); // a query after them
      });
      if (patchedCopy) assert.equal(sorts, 0, 'with the patch');
      else assert.equal(sorts, 2 * 5, 'without the patch, LokiJS sorts both indices again after each remove (of none or one) and after the update of one');
      assert.equal(c.data.length, 998);
      assert.deepEqual(c.find({ a: 3 }).map((d) => d.k).sort((x, y) => x - y), [7, ...Array.from({ length: 50 }, (_, i) => 3 + 20 * i)].sort((x, y) => x - y));
    }
  });
});
