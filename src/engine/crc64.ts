/**
 * CRC-64/NVME, the checksum Azure Storage returns in `x-ms-content-crc64`, computed 16 bytes per
 * step (slice-by-16 over two 32-bit halves).
 *
 * Parameters (same as azurite 3.37 common/utils/utils.js `CRC64Hash`): width 64, poly
 * 0xad93d23594c93659 (reflected 0x9a6c9329ac4bc9b5), init and xorout 0xffffffffffffffff, reflected
 * in and out, check("123456789") = 0xae8b14860a799888. The digest is the final value as 8 bytes,
 * little-endian (least significant byte first), as azurite sends it.
 *
 * Why: azurite updates the CRC one byte per step (a table lookup over 32-bit halves), and computes it for every stageBlock without Content-MD5 and every Append Block and Put
 * Page, which bounds large uploads. This version reads 16 bytes per step from 16 tables (32 KiB,
 * built once at load) and produces the same bits, an order of magnitude faster (`npm run bench`
 * prints both throughputs). It is wired into the
 * bundled engine by the `crc64` patch of the engine seam in esbuild.mjs (see
 * ./azuriteChecksums.ts); node_modules is not changed.
 *
 * Pure: no azurite, no vscode. Verified bit-identical to azurite's function by
 * test/unit/engine/crc64.test.ts (random inputs 0 B–8 MiB, whole and chunked).
 */

/** The reflected polynomial, split into 32-bit halves. */
const POLY_HI = 0x9a6c9329;
const POLY_LO = 0xac4bc9b5;
const SLICES = 16;

/**
 * TABLE_LO[k * 256 + b], TABLE_HI[…]: the CRC register after byte b followed by k zero bytes,
 * starting from 0 (k = 0 is the classic one-byte table). Int32: the halves are combined with XOR,
 * so the sign does not matter until the digest.
 */
const TABLE_LO = new Int32Array(SLICES * 256);
const TABLE_HI = new Int32Array(SLICES * 256);
for (let b = 0; b < 256; b++) {
  let lo = b;
  let hi = 0;
  for (let bit = 0; bit < 8; bit++) {
    const carry = lo & 1;
    lo = (lo >>> 1) | (hi << 31);
    hi = hi >>> 1;
    if (carry !== 0) {
      lo ^= POLY_LO;
      hi ^= POLY_HI;
    }
  }
  TABLE_LO[b] = lo;
  TABLE_HI[b] = hi;
}
for (let k = 1; k < SLICES; k++) {
  for (let b = 0; b < 256; b++) {
    const lo = TABLE_LO[(k - 1) * 256 + b];
    const hi = TABLE_HI[(k - 1) * 256 + b];
    const t = lo & 0xff;
    TABLE_LO[k * 256 + b] = ((lo >>> 8) | (hi << 24)) ^ TABLE_LO[t];
    TABLE_HI[k * 256 + b] = (hi >>> 8) ^ TABLE_HI[t];
  }
}

/**
 * An incremental CRC-64/NVME, shaped like Node's `crypto.Hash` (and azurite's `CRC64Hash`):
 * `update()` any number of chunks of any length, then `digest()`.
 */
export class Crc64Nvme {
  /** The register, not yet xored out: low and high 32 bits. */
  private lo = -1;
  private hi = -1;

  /** Adds bytes; a string is taken as UTF-8 (like `Buffer.from(string)`). */
  update(chunk: Uint8Array | string): this {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const tl = TABLE_LO;
    const th = TABLE_HI;
    const end = data.length;
    let lo = this.lo;
    let hi = this.hi;
    let i = 0;
    for (const stop = end - 15; i < stop; i += 16) {
      const a = lo ^ (data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24));
      const c = hi ^ (data[i + 4] | (data[i + 5] << 8) | (data[i + 6] << 16) | (data[i + 7] << 24));
      const d8 = data[i + 8], d9 = data[i + 9], d10 = data[i + 10], d11 = data[i + 11];
      const d12 = data[i + 12], d13 = data[i + 13], d14 = data[i + 14], d15 = data[i + 15];
      const x0 = 3840 + (a & 0xff), x1 = 3584 + ((a >>> 8) & 0xff), x2 = 3328 + ((a >>> 16) & 0xff), x3 = 3072 + (a >>> 24);
      const x4 = 2816 + (c & 0xff), x5 = 2560 + ((c >>> 8) & 0xff), x6 = 2304 + ((c >>> 16) & 0xff), x7 = 2048 + (c >>> 24);
      const x8 = 1792 + d8, x9 = 1536 + d9, x10 = 1280 + d10, x11 = 1024 + d11;
      const x12 = 768 + d12, x13 = 512 + d13, x14 = 256 + d14, x15 = d15;
      lo = tl[x0] ^ tl[x1] ^ tl[x2] ^ tl[x3] ^ tl[x4] ^ tl[x5] ^ tl[x6] ^ tl[x7]
        ^ tl[x8] ^ tl[x9] ^ tl[x10] ^ tl[x11] ^ tl[x12] ^ tl[x13] ^ tl[x14] ^ tl[x15];
      hi = th[x0] ^ th[x1] ^ th[x2] ^ th[x3] ^ th[x4] ^ th[x5] ^ th[x6] ^ th[x7]
        ^ th[x8] ^ th[x9] ^ th[x10] ^ th[x11] ^ th[x12] ^ th[x13] ^ th[x14] ^ th[x15];
    }
    for (; i < end; i++) {
      const t = (lo ^ data[i]) & 0xff;
      lo = ((lo >>> 8) | (hi << 24)) ^ tl[t];
      hi = (hi >>> 8) ^ th[t];
    }
    this.lo = lo;
    this.hi = hi;
    return this;
  }

  /** The CRC (xorout applied) as 8 bytes, least significant first. Does not reset. */
  digest(): Uint8Array {
    const out = new Uint8Array(8);
    const view = new DataView(out.buffer);
    view.setUint32(0, ~this.lo >>> 0, true);
    view.setUint32(4, ~this.hi >>> 0, true);
    return out;
  }
}

/** The CRC-64/NVME of `data` as 8 little-endian bytes. */
export function crc64nvme(data: Uint8Array | string): Uint8Array {
  return new Crc64Nvme().update(data).digest();
}
