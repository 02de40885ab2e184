/**
 * The CRC64 seam's functions (src/engine) against azurite's own (node_modules, unbundled): the same
 * bytes for random inputs of 0 B–8 MiB, whole, chunked at random points, and as streams.
 */
import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { Crc64Nvme, crc64nvme } from '../../../src/engine/crc64';
import * as ours from '../../../src/engine/azuriteChecksums';

/** azurite 3.37 common/utils/utils.js, the functions the seam replaces (loaded from node_modules). */
interface AzuriteChecksums {
  getCRC64FromString(text: string | Uint8Array): Uint8Array;
  getCRC64FromStream(stream: Readable): Promise<Uint8Array>;
  computeTransactionalChecksums(stream: Readable, expected: { md5?: unknown; crc64?: unknown }, force?: { md5?: boolean; crc64?: boolean }):
    Promise<{ md5: Uint8Array | undefined; crc64: Uint8Array | undefined }>;
}
const azurite = require('azurite/dist/src/common/utils/utils') as AzuriteChecksums;

const hex = (bytes: Uint8Array | undefined): string | undefined => bytes === undefined ? undefined : Buffer.from(bytes).toString('hex');

/** A deterministic random source, so a failure can be replayed (the seed is in the test name). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits `data` into chunks of random sizes (including empty and 1-byte chunks). */
function randomChunks(data: Buffer, random: () => number, maxChunk: number): Buffer[] {
  const chunks: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const r = random();
    const size = r < 0.1 ? 0 : r < 0.2 ? 1 : Math.floor(random() * maxChunk) + 1;
    chunks.push(data.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

describe('CRC-64/NVME (src/engine/crc64.ts) vs azurite', () => {
  it('gives the catalogue check value, little-endian, as azurite does', () => {
    // check("123456789") = 0xae8b14860a799888; the digest is least significant byte first.
    assert.equal(hex(crc64nvme('123456789')), '8898790a86148bae');
    assert.equal(hex(azurite.getCRC64FromString('123456789')), '8898790a86148bae');
    assert.equal(hex(crc64nvme(new Uint8Array(0))), '0000000000000000');
  });

  it('matches azurite for every length 0–300 B (each tail of the 16-byte loop)', () => {
    const data = crypto.randomBytes(300);
    for (let n = 0; n <= 300; n++) {
      const slice = data.subarray(0, n);
      assert.equal(hex(crc64nvme(slice)), hex(azurite.getCRC64FromString(slice)), `length ${n}`);
    }
  });

  it('matches azurite on all-zero and all-0xff inputs and on unaligned views', () => {
    for (const fill of [0x00, 0xff]) {
      const data = Buffer.alloc(4099, fill);
      assert.equal(hex(crc64nvme(data)), hex(azurite.getCRC64FromString(data)), `fill ${fill}`);
    }
    const big = crypto.randomBytes(10_000);
    for (let offset = 0; offset < 8; offset++) {
      const view = new Uint8Array(big.buffer, big.byteOffset + offset, 5000 + offset);
      assert.equal(hex(crc64nvme(view)), hex(azurite.getCRC64FromString(view)), `offset ${offset}`);
    }
  });

  it('matches azurite on UTF-8 strings', () => {
    for (const text of ['', 'a', 'Azurite ✓ Blob – 数据 🚀', 'x'.repeat(1001)]) {
      assert.equal(hex(crc64nvme(text)), hex(azurite.getCRC64FromString(text)), JSON.stringify(text.slice(0, 20)));
    }
  });

  const seed = 20_260_605;
  it(`matches azurite on random inputs up to 8 MiB, odd lengths included (seed ${seed})`, function () {
    this.timeout(60_000);
    const random = rng(seed);
    const lengths = [8 * 1024 * 1024, 8 * 1024 * 1024 - 1, 4 * 1024 * 1024 + 13, 1_048_577, 65_537, 4097, 1023];
    for (let i = 0; i < 12; i++) lengths.push(Math.floor(random() * 2 * 1024 * 1024));
    for (const n of lengths) {
      const data = crypto.randomBytes(n);
      assert.equal(hex(crc64nvme(data)), hex(azurite.getCRC64FromString(data)), `length ${n}`);
    }
  });

  it(`is the same fed in random chunks as whole, and as azurite's streaming function (seed ${seed + 1})`, async function () {
    this.timeout(60_000);
    const random = rng(seed + 1);
    for (const n of [0, 1, 17, 100_003, 3 * 1024 * 1024 + 5, 8 * 1024 * 1024]) {
      const data = crypto.randomBytes(n);
      const whole = hex(azurite.getCRC64FromString(data));
      const chunks = randomChunks(data, random, n > 1_000_000 ? 200_000 : 97);
      const incremental = new Crc64Nvme();
      for (const c of chunks) incremental.update(c);
      assert.equal(hex(incremental.digest()), whole, `incremental, length ${n}, ${chunks.length} chunks`);
      assert.equal(hex(await ours.getCRC64FromStream(Readable.from(chunks))), whole, `ours from a stream, length ${n}`);
      assert.equal(hex(await azurite.getCRC64FromStream(Readable.from(chunks))), whole, `azurite from a stream, length ${n}`);
    }
  });

  it('computeTransactionalChecksums returns what azurite\'s returns, for every expected/force combination', async () => {
    const random = rng(seed + 2);
    const data = crypto.randomBytes(300_001);
    const chunks = randomChunks(data, random, 65_536);
    const combos: [{ md5?: unknown; crc64?: unknown }, { md5?: boolean; crc64?: boolean } | undefined][] = [];
    for (const expected of [{}, { md5: 'x' }, { crc64: 'y' }, { md5: new Uint8Array(16), crc64: new Uint8Array(8) }]) {
      for (const force of [undefined, {}, { md5: true }, { crc64: true }, { md5: true, crc64: true }, { md5: false, crc64: false }]) {
        combos.push([expected, force]);
      }
    }
    for (const [expected, force] of combos) {
      const a = await azurite.computeTransactionalChecksums(Readable.from(chunks), expected, force);
      const b = await ours.computeTransactionalChecksums(Readable.from(chunks), expected, force);
      const what = `expected ${JSON.stringify(Object.keys(expected))}, force ${JSON.stringify(force)}`;
      assert.equal(hex(b.md5), hex(a.md5), `md5, ${what}`);
      assert.equal(hex(b.crc64), hex(a.crc64), `crc64, ${what}`);
      assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort());
    }
  });

  it('rejects when the stream fails, as azurite does', async () => {
    const failing = () => new Readable({ read() { this.destroy(new Error('boom')); } });
    await assert.rejects(ours.computeTransactionalChecksums(failing(), {}, { crc64: true }), /boom/);
    await assert.rejects(azurite.computeTransactionalChecksums(failing(), {}, { crc64: true }), /boom/);
    await assert.rejects(ours.getCRC64FromStream(failing()), /boom/);
  });
});
