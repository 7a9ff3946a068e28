/**
 * The pack index read bucket by bucket (issue 19: opening a repository read the whole `.idx`,
 * megabytes on a real repository). Against git's own index of a real pack: every lookup equals
 * the whole-file index's, a single lookup reads only the header and its bucket, and a truncated
 * or damaged index is OBJECT_CORRUPT rather than a wrong offset.
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ForgeError } from '../../src/errors';
import { PackIndex } from '../../src/git/pack-index';
import { Repository } from '../../src/git';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';

function packedRepo() {
  const files: Record<string, string> = {};
  for (let i = 0; i < 600; i++) files[`d${i % 17}/f${i}.txt`] = `file ${i}\n`;
  const r = makeRepo({ files });
  git(r.dir, ['repack', '-adq']);
  git(r.dir, ['prune-packed']);
  const packDir = join(r.gitdir, 'objects', 'pack');
  const idxPath = join(packDir, nodeFs.readdirSync(packDir).find((n) => n.endsWith('.idx'))!);
  return { r, idxPath, bytes: new Uint8Array(nodeFs.readFileSync(idxPath)) };
}

function recordingReader(bytes: Uint8Array) {
  const reads: [number, number][] = [];
  const read = (offset: number, length: number) => {
    reads.push([offset, length]);
    return bytes.slice(offset, offset + length);
  };
  return { reads, read };
}

describe('lazily read pack index', () => {
  it('gives every lookup the whole-file index gives', () => {
    const { idxPath, bytes } = packedRepo();
    const whole = new PackIndex(bytes, idxPath);
    const lazy = PackIndex.open(idxPath, bytes.length, recordingReader(bytes).read);
    expect(lazy.count).toBe(whole.count);
    for (let p = 0; p < whole.count; p++) {
      const oid = whole.oidAt(p);
      expect(lazy.oidAt(p)).toBe(oid);
      expect(lazy.offsetAt(p)).toBe(whole.offsetAt(p));
      expect(lazy.find(Buffer.from(oid, 'hex'))).toBe(p);
      expect(lazy.findByPrefix(oid.slice(0, 7), 5)).toEqual(whole.findByPrefix(oid.slice(0, 7), 5));
    }
    const absent = Buffer.from(whole.oidAt(0), 'hex');
    absent[19] ^= 0xff;
    expect(lazy.find(absent)).toBe(whole.find(absent));
  });

  it('one lookup reads the header and one bucket, not the file', () => {
    const { idxPath, bytes } = packedRepo();
    const whole = new PackIndex(bytes, idxPath);
    const reader = recordingReader(bytes);
    const lazy = PackIndex.open(idxPath, bytes.length, reader.read);
    const position = lazy.find(Buffer.from(whole.oidAt(whole.count >> 1), 'hex'));
    lazy.offsetAt(position);
    const total = reader.reads.reduce((sum, [, n]) => sum + n, 0);
    expect(reader.reads.length).toBe(3); // header + names and offsets of one bucket
    expect(total).toBeLessThan(bytes.length / 10);
  });

  it('a truncated index, or one whose fan-out is not ascending, is OBJECT_CORRUPT', () => {
    const { idxPath, bytes } = packedRepo();
    const cut = bytes.slice(0, bytes.length - 100);
    expect(() => PackIndex.open(idxPath, cut.length, recordingReader(cut).read)).toThrow(expect.objectContaining({ code: 'OBJECT_CORRUPT' }));
    const bad = bytes.slice();
    bad.set([0, 0, 0, 0], 8 + 200 * 4);
    const error = (() => {
      try {
        return new PackIndex(bad, idxPath);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ForgeError);
    expect((error as ForgeError).code).toBe('OBJECT_CORRUPT');
  });

  it('a repository opened on disk reads objects through it, and survives git repack between reads', async () => {
    const { r } = packedRepo();
    const repo = await Repository.open({ fs: nodeFs, dir: r.dir });
    const head = git(r.dir, ['rev-parse', 'HEAD']).stdout.trim();
    const tree = (await repo.readCommit(head)).tree;
    git(r.dir, ['commit', '-q', '--allow-empty', '-m', 'more']);
    git(r.dir, ['repack', '-adq']);
    const again = await Repository.open({ fs: nodeFs, dir: r.dir });
    expect((await again.readCommit(head)).tree).toBe(tree);
    expect((await repo.readCommit(git(r.dir, ['rev-parse', 'HEAD']).stdout.trim())).tree).toBe(tree);
  });

  it('the first lookups in a big bucket read a stretch of it (a few KB), and every answer equals the whole index', () => {
    // A synthetic version-2 index of 120,320 objects (470 per bucket, as in a real pack of that size).
    const bytes = syntheticIndex(256 * 470);
    const whole = new PackIndex(bytes, 'synthetic.idx');
    const reader = recordingReader(bytes);
    const lazy = PackIndex.open('synthetic.idx', bytes.length, reader.read);
    const names = (p: number) => Buffer.from(whole.oidAt(p), 'hex');
    // One present and one absent oid per bucket: each bucket's first two lookups are sparse.
    for (let bucket = 0; bucket < 256; bucket++) {
      const p = (whole.count / 256) * bucket + 137;
      expect(lazy.find(names(p))).toBe(p);
      expect(lazy.offsetAt(p)).toBe(whole.offsetAt(p));
      const absent = names(p);
      absent[19] ^= 0x01;
      expect(lazy.find(absent)).toBe(whole.find(absent));
    }
    // Beyond the header: stretches of under a quarter of a bucket's names, and single offsets.
    expect(Math.max(...reader.reads.slice(1).map(([, n]) => n))).toBeLessThan((whole.count / 256) * 5);
    expect(reader.reads.reduce((sum, [, n]) => sum + n, 0)).toBeLessThan(bytes.length / 2.5);
    // From the third lookup on, the bucket is read whole; every answer is still the whole index's.
    for (let p = 0; p < whole.count; p += 7) {
      expect(lazy.find(names(p))).toBe(p);
      expect(lazy.offsetAt(p)).toBe(whole.offsetAt(p));
    }
    // A listing's many lookups read each bucket whole from the first.
    const denseReader = recordingReader(bytes);
    const listing = PackIndex.open('synthetic.idx', bytes.length, denseReader.read);
    listing.expectManyLookups();
    expect(listing.find(names(5))).toBe(5);
    expect(denseReader.reads.at(-1)![1]).toBe((whole.count / 256) * 20); // bucket 0's names, whole
  });
});

/** A version-2 pack index of `count` sorted pseudo-random oids (count a multiple of 256, one bucket each), offsets 12 + 100 * position. */
function syntheticIndex(count: number): Uint8Array {
  const perBucket = count / 256;
  const names = new Uint8Array(count * 20);
  let seed = 11;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  for (let bucket = 0; bucket < 256; bucket++) {
    const oids = Array.from({ length: perBucket }, () => {
      const oid = Buffer.alloc(20);
      for (let k = 1; k < 20; k += 4) oid.writeUInt32BE(random(), Math.min(k, 16));
      oid[0] = bucket;
      return oid;
    }).sort(Buffer.compare);
    oids.forEach((oid, i) => names.set(oid, (bucket * perBucket + i) * 20));
  }
  const header = Buffer.alloc(8 + 1024);
  header.writeUInt32BE(0xff744f63, 0);
  header.writeUInt32BE(2, 4);
  for (let b = 0; b < 256; b++) header.writeUInt32BE((b + 1) * perBucket, 8 + b * 4);
  const offsets = Buffer.alloc(count * 4);
  for (let p = 0; p < count; p++) offsets.writeUInt32BE(12 + 100 * p, p * 4);
  return new Uint8Array(Buffer.concat([header, names, Buffer.alloc(count * 4), offsets, Buffer.alloc(40)]));
}
