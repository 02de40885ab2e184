/**
 * memory.ts: byte formatting in binary units, usage, percent, MB ↔ bytes, the report text.
 */
import * as assert from 'node:assert/strict';
import {
  BYTES_PER_MB,
  defaultLimitBytes,
  describeLimitSource,
  describeMemory,
  formatBytes,
  formatUsage,
  groupDigits,
  leastLimitMb,
  proposedLimitMb,
  LIMIT_BURST_TIMINGS,
  LimitBursts,
  limitInputError,
  mbToBytes,
  percentUsed,
  settingMbText,
  ThresholdWarning,
  type MemoryReport,
} from '../../../src/core/memory';

function report(usedBytes: number, limitBytes: number, isDefaultLimit = false, blobBytes = usedBytes, queueBytes = usedBytes - blobBytes): MemoryReport {
  return { blobBytes, queueBytes, usedBytes, limitBytes, isDefaultLimit };
}

describe('core/memory', () => {
  describe('groupDigits', () => {
    it("groups like toLocaleString('en-US') for integers from 0 to 2^53 - 1", () => {
      const samples = [0, 1, 12, 999, 1000, 1024, 65536, 999999, 1000000, 1048576, 123456789, 1073741824, 10 ** 15, Number.MAX_SAFE_INTEGER];
      for (let i = 0; i < 200; i++) samples.push(Math.floor(Math.random() * 10 ** (i % 16)));
      for (const n of samples) assert.equal(groupDigits(n), n.toLocaleString('en-US'), String(n));
    });
    it('leaves non-integers and negatives as String(n)', () => {
      assert.equal(groupDigits(1.5), '1.5');
      assert.equal(groupDigits(-1000), '-1000');
      assert.equal(groupDigits(Number.NaN), 'NaN');
    });
  });

  describe('formatBytes', () => {
    const cases: Array<[number, string]> = [
      [0, '0 B'],
      [1, '1 B'],
      [512, '512 B'],
      [800, '800 B'],
      [922, '0.9 KB'], // from 0.9 of the next unit up
      [1023, '1 KB'],
      [1024, '1 KB'],
      [1536, '1.5 KB'],
      [1126, '1.1 KB'],
      [10 * 1024, '10 KB'],
      [524288, '512 KB'],
      [1048576, '1 MB'],
      [1572864, '1.5 MB'],
      [1024 ** 3, '1 GB'],
      [1.5 * 1024 ** 3, '1.5 GB'],
      [8 * 1024 ** 3, '8 GB'],
      [1024 ** 4, '1 TB'],
      [5.25 * 1024 ** 4, '5.3 TB'],
      [1024 ** 5, '1024 TB'], // TB is the largest unit
      [3 * 1024 ** 5, '3072 TB'],
    ];
    for (const [bytes, text] of cases) {
      it(`${bytes} → "${text}"`, () => {
        assert.equal(formatBytes(bytes), text);
      });
    }

    it('943718 (mbToBytes(0.9)) → "0.9 MB", as documented, not "921.6 KB"', () => {
      assert.equal(mbToBytes(0.9), 943718);
      assert.equal(formatBytes(943718), '0.9 MB');
    });

    it('shows non-finite or negative input as-is with " B"', () => {
      assert.equal(formatBytes(-1), '-1 B');
      assert.equal(formatBytes(Number.NaN), 'NaN B');
      assert.equal(formatBytes(Number.POSITIVE_INFINITY), 'Infinity B');
    });
  });

  describe('formatUsage', () => {
    it('shows used / limit', () => {
      assert.equal(formatUsage(report(960000, 1048576)), '0.9 MB / 1 MB');
      assert.equal(formatUsage(report(0, 4 * 1024 ** 3)), '0 B / 4 GB');
      assert.equal(formatUsage(report(1536, 524288)), '1.5 KB / 512 KB');
      // The use is shown in the limit's unit, so 921,600 bytes of 1 MB reads as a fraction of it.
      assert.equal(formatUsage(report(3 * 300 * 1024, 1048576)), '0.9 MB / 1 MB');
      // Below 0.1 of the limit's unit it gets its own unit.
      assert.equal(formatUsage(report(12, 12_600_000_000)), '12 B / 11.7 GB');
      assert.equal(formatUsage(report(200 * 1024 ** 2, 4 * 1024 ** 3)), '0.2 GB / 4 GB');
    });
  });

  describe('percentUsed', () => {
    it('is used / limit in percent with one decimal', () => {
      assert.equal(percentUsed(report(0, 1048576)), 0);
      assert.equal(percentUsed(report(524288, 1048576)), 50);
      assert.equal(percentUsed(report(1, 3)), 33.3);
      assert.equal(percentUsed(report(2, 3)), 66.7);
      assert.equal(percentUsed(report(1048576, 1048576)), 100);
    });

    it('goes above 100 when over the limit', () => {
      assert.equal(percentUsed(report(3, 2)), 150);
    });

    it('is 0 when the limit is 0', () => {
      assert.equal(percentUsed(report(100, 0)), 0);
      assert.equal(percentUsed(report(0, 0)), 0);
    });
  });

  describe('mbToBytes and defaultLimitBytes', () => {
    it('uses 1 MB = 1024 × 1024 bytes, rounded to whole bytes (as Azurite)', () => {
      assert.equal(BYTES_PER_MB, 1048576);
      assert.equal(mbToBytes(1), 1048576);
      assert.equal(mbToBytes(0.5), 524288);
      assert.equal(mbToBytes(0.1), 104858); // 104857.6 rounded
      assert.equal(mbToBytes(1e-7), 0);
      assert.equal(mbToBytes(0), 0);
      assert.equal(mbToBytes(4096), 4294967296);
    });

    it("is half of total memory, truncated (Azurite's DEFAULT_EXTENT_MEMORY_LIMIT)", () => {
      assert.equal(defaultLimitBytes(16 * 1024 ** 3), 8 * 1024 ** 3);
      assert.equal(defaultLimitBytes(1001), 500);
      assert.equal(defaultLimitBytes(0), 0);
    });
  });

  describe('describeMemory', () => {
    it('lists usage, blob and queue bytes, the configured limit, and that table data is not counted', () => {
      const lines = describeMemory({ blobBytes: 600000, queueBytes: 360000, usedBytes: 960000, limitBytes: 1048576, isDefaultLimit: false });
      assert.deepEqual(lines, [
        'In-memory extents: 0.9 MB / 1 MB (91.6%)',
        'Blob content: 585.9 KB (600,000 bytes)',
        'Queue messages: 351.6 KB (360,000 bytes)',
        'Limit: 1 MB (1,048,576 bytes) — from azurite.extentMemoryLimit',
        'Table entities and metadata are kept outside the extent store and are not counted against the limit.',
      ]);
    });

    it("says when the limit is Azurite's default", () => {
      const lines = describeMemory({ blobBytes: 0, queueBytes: 0, usedBytes: 0, limitBytes: 8 * 1024 ** 3, isDefaultLimit: true });
      assert.equal(
        lines[3],
        "Limit: 8 GB (8,589,934,592 bytes) — the default, 50% of total memory or of a container's memory limit (azurite.extentMemoryLimit is unset)",
      );
      assert.equal(lines[0], 'In-memory extents: 0 B / 8 GB (0%)');
      assert.ok(lines.some((l) => /table entities .* not counted/i.test(l)));
    });
  });

  describe('describeLimitSource', () => {
    it('says when the setting asks for a limit that is not in force, instead of calling it unset or in force', () => {
      const base = { blobBytes: 0, queueBytes: 3 * 1024 ** 3, usedBytes: 3 * 1024 ** 3, limitBytes: 8 * 1024 ** 3 };
      assert.equal(describeLimitSource({ ...base, isDefaultLimit: true, refusedSetting: { bytes: 1024 ** 3 } }),
        "the default, 50% of total memory or of a container's memory limit; azurite.extentMemoryLimit asks for 1024 MB, refused while more was in memory (it applies at the next start or settings change once less is)");
      assert.equal(describeLimitSource({ ...base, isDefaultLimit: false, refusedSetting: { bytes: undefined } }),
        "from an earlier azurite.extentMemoryLimit; azurite.extentMemoryLimit is unset now (the default), refused while more was in memory (it applies at the next start or settings change once less is)");
      assert.equal(describeLimitSource({ ...base, isDefaultLimit: false }), 'from azurite.extentMemoryLimit');
    });

    it('names a refused setting in its own MB, not rounded to a figure that use above it also rounds to', () => {
      // 950 MB asked while 960 MB is stored: both would read "0.9 GB".
      assert.equal(formatBytes(950 * BYTES_PER_MB), formatBytes(960 * BYTES_PER_MB));
      assert.equal(settingMbText(mbToBytes(950)), '950 MB');
      assert.equal(settingMbText(mbToBytes(0.5)), '0.5 MB');
      // Rounded to a whole byte as Azurite does, read back as typed.
      assert.equal(settingMbText(mbToBytes(0.3)), '0.3 MB');
      const base = { blobBytes: 960 * BYTES_PER_MB, queueBytes: 0, usedBytes: 960 * BYTES_PER_MB, limitBytes: 1024 * BYTES_PER_MB, isDefaultLimit: false };
      assert.match(describeLimitSource({ ...base, refusedSetting: { bytes: mbToBytes(950) } }), /azurite\.extentMemoryLimit asks for 950 MB, refused/);
    });
  });

  it('warns once as use reaches the threshold, and again only after it fell 5 points below', () => {
    const w = new ThresholdWarning();
    // Use hovering at an 80% threshold (queue messages coming and going) warns once.
    assert.deepEqual([50, 80, 79, 81, 78, 80, 76, 90].map((p) => w.update(p, 80)), [false, true, false, false, false, false, false, false]);
    // At 75 it re-arms; the next crossing warns again.
    assert.deepEqual([75, 79, 80].map((p) => w.update(p, 80)), [false, false, true]);
    // A threshold of 5 or less re-arms at 0 (a Clean).
    const low = new ThresholdWarning();
    assert.deepEqual([3, 1, 0, 4].map((p) => low.update(p, 3)), [true, false, false, true]);
    // A threshold lowered under use in force warns at the next report.
    const v = new ThresholdWarning();
    assert.deepEqual([60, 60].map((p, i) => v.update(p, i === 0 ? 80 : 50)), [false, true]);
  });

  it('reports the first refused write of each burst, per service; a burst ends after a quiet gap or at its longest', () => {
    const b = new LimitBursts<'blob' | 'queue'>({ gapMs: 5_000, maxMs: 60_000 });
    // One burst, one report; Queue's first refusal during it is reported, as a burst of its own,
    // which Blob's refusals do not keep going (Queue's ends 5 s after its own last refusal).
    const times: [('blob' | 'queue'), number][] = [['blob', 0], ['blob', 10], ['queue', 20], ['blob', 5_010], ['queue', 5_020], ['blob', 10_000], ['queue', 10_021]];
    assert.deepEqual(times.map(([kind, t]) => b.refused(kind, t)), [true, false, true, false, false, false, true]);
    // A refusal every 4 s never leaves a quiet gap: the burst ends 60 s after its first refusal.
    const retries = Array.from({ length: 30 }, (_, i) => 10_000 + 4_000 * (i + 1));
    assert.deepEqual(retries.filter((t) => b.refused('blob', t)), [62_000, 122_000]);
    // The gap is counted from the burst's last refusal, inclusive.
    const g = new LimitBursts({ gapMs: 100, maxMs: 1_000 });
    assert.deepEqual([g.refused('blob', 0), g.refused('blob', 100), g.refused('blob', 201)], [true, false, true]);
    assert.deepEqual(LIMIT_BURST_TIMINGS, { gapMs: 60_000, maxMs: 600_000 });
    // Forgotten (a new limit, a restart): the next refusal is reported, of that service only.
    const f = new LimitBursts<'blob' | 'queue'>({ gapMs: 5_000, maxMs: 60_000 });
    assert.deepEqual([f.refused('blob', 0), f.refused('queue', 0)], [true, true]);
    f.forget('blob');
    assert.deepEqual([f.refused('blob', 10), f.refused('queue', 10)], [true, false]);
    f.forget();
    assert.deepEqual([f.refused('blob', 20), f.refused('queue', 20)], [true, true]);
  });

  it('refuses a limit typed into Raise Limit that is not a number of MB above what is in use', () => {
    const used = 300 * BYTES_PER_MB;
    assert.equal(limitInputError('600', used), undefined);
    assert.equal(limitInputError('300.5', used), undefined);
    for (const bad of ['', ' ', 'abc', '0', '-5', 'Infinity']) assert.equal(limitInputError(bad, used), 'Enter a number of MB greater than 0.', bad);
    assert.equal(limitInputError('300', used), 'Enter more than the 300 MB in use now (314,572,800 bytes), or clean Blob or Queue first.');
    assert.match(limitInputError('100', used) ?? '', /^Enter more than the 300 MB in use now/);
  });

  it('proposes twice the limit, or the least that holds a refused write besides what is stored', () => {
    assert.equal(proposedLimitMb(BYTES_PER_MB, 0), 2);
    assert.equal(proposedLimitMb(1.5 * BYTES_PER_MB, 0), 3);
    // 0.9 MB stored under a 1 MB limit, a 5 MB upload refused: 2 MB would refuse it again.
    const used = 0.9 * BYTES_PER_MB;
    assert.equal(proposedLimitMb(BYTES_PER_MB, used, 5 * BYTES_PER_MB), 6);
    assert.ok(mbToBytes(proposedLimitMb(BYTES_PER_MB, used, 5 * BYTES_PER_MB)) >= used + 5 * BYTES_PER_MB);
    // A small refused write: twice the limit holds it.
    assert.equal(proposedLimitMb(BYTES_PER_MB, used, 1024), 2);
    // Under the default limit (half of a 4 GB container's memory), not all of it: 75%.
    const container = 4096 * BYTES_PER_MB;
    assert.equal(proposedLimitMb(defaultLimitBytes(container), 0, 0, container), 3072);
    assert.equal(proposedLimitMb(100 * BYTES_PER_MB, 0, 0, container), 200, 'far below the cap: twice');
    // A limit in force already past 75% is raised, never lowered (14,000 MB on a 16 GB machine).
    const machine = 16 * 1024 * BYTES_PER_MB;
    assert.equal(proposedLimitMb(14_000 * BYTES_PER_MB, 11_500 * BYTES_PER_MB, 0, machine), 14_001);
    // Never below what holds the refused write besides what is stored.
    assert.equal(proposedLimitMb(3000 * BYTES_PER_MB, 2999 * BYTES_PER_MB, 200 * BYTES_PER_MB, container), 3200);
  });

  it('suggests a limit of whole MB above what is in use, never equal to it (Azurite would refuse every write)', () => {
    assert.equal(leastLimitMb(0), 1);
    assert.equal(leastLimitMb(1_126_400), 2);
    // Exactly 1 MB and 300 MB in use: a limit of 1 MB or 300 MB would hold no further byte.
    assert.equal(leastLimitMb(BYTES_PER_MB), 2);
    assert.equal(leastLimitMb(300 * BYTES_PER_MB), 301);
    assert.equal(leastLimitMb(300 * BYTES_PER_MB - 1), 300);
    // What it suggests, Raise Limit's input box takes.
    for (const used of [0, 1, BYTES_PER_MB - 1, BYTES_PER_MB, 1_126_400, 300 * BYTES_PER_MB]) {
      assert.ok(mbToBytes(leastLimitMb(used)) > used, String(used));
      assert.equal(limitInputError(String(leastLimitMb(used)), used), undefined, String(used));
    }
  });
});
