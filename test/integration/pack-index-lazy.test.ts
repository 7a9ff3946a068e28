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
});
