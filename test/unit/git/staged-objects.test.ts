/**
 * Issue 30: a batch's new objects are held (ObjectStore.stageWrites) and written together, as
 * one pack and its index (pack-encode.ts) when there are enough, else loose. git reads the pack
 * (verify-pack, cat-file, fsck --strict), its index is byte for byte the one `git index-pack`
 * makes of the same pack, and nothing on disk names a staged object before it is written.
 */
import { createHash } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isForgeError } from '../../../src/errors';
import { Repository, type GitFs } from '../../../src/git';
import { nodePlatform } from '../../../src/git/node/platform';
import { crc32, encodePack } from '../../../src/git/pack-encode';
import { PACK_MIN_OBJECTS } from '../../../src/git/staged-objects';
import { expectFsckClean } from '../../helpers/fsck';
import { git } from '../../helpers/git-cli';
import { makeRepo } from '../../helpers/repos';
import { makeTempDir } from '../../helpers/temp';

const enc = (s: string) => new TextEncoder().encode(s);
const sha1 = (runs: readonly Uint8Array[]) => {
  const h = createHash('sha1');
  for (const r of runs) h.update(r);
  return new Uint8Array(h.digest());
};
const packFiles = (gitdir: string) => readdirSync(join(gitdir, 'objects', 'pack')).sort();
const looseCount = (gitdir: string) => readdirSync(join(gitdir, 'objects')).filter((d) => /^[0-9a-f]{2}$/.test(d)).reduce((n, d) => n + readdirSync(join(gitdir, 'objects', d)).length, 0);
const onDisk = (dir: string, oid: string) => git(dir, ['cat-file', '-e', oid], { allowFail: true }).status === 0;

async function open(fs: GitFs = nodeFs as unknown as GitFs) {
  const handle = makeRepo({ files: { 'a.txt': 'a\n' } });
  git(handle.dir, ['repack', '-adq']);
  const repo = await Repository.open({ fs, dir: handle.dir, platform: nodePlatform });
  return { handle, repo };
}

describe('pack encoding', () => {
  it('CRC-32 is zlib\'s', () => {
    for (const text of ['', 'a', 'hello world', 'x'.repeat(10_000)]) expect(crc32(enc(text))).toBe(zlibCrc32(enc(text)));
    expect(crc32(enc('world'), crc32(enc('hello ')))).toBe(zlibCrc32(enc('hello world')));
  });

  it('a pack git verifies, whose index is the one git index-pack makes of it', () => {
    const dir = makeTempDir('pack-encode');
    const objects = Array.from({ length: 300 }, (_, k) => enc(`object ${k}\n`.repeat(1 + (k % 9))));
    const entries = objects.map((content) => ({ oid: sha1([enc(`blob ${content.length}\0`), content]), type: 'blob' as const, content }));
    const { pack, index, checksum } = encodePack(entries, (content) => nodePlatform.sync!.deflate(content), sha1);
    const packPath = join(dir, `pack-${checksum}.pack`);
    writeFileSync(packPath, pack);
    expect(Buffer.from(pack.subarray(-20)).toString('hex')).toBe(checksum);
    git(dir, ['index-pack', '-o', join(dir, 'by-git.idx'), packPath]);
    expect(Buffer.from(index).equals(readFileSync(join(dir, 'by-git.idx')))).toBe(true);
    writeFileSync(join(dir, `pack-${checksum}.idx`), index);
    const verify = git(dir, ['verify-pack', '-v', packPath]).stdout;
    expect(verify).toContain('non delta: 300 objects');
  });
});

describe('ObjectStore.stageWrites', () => {
  it('holds new objects (readable, not on disk) until asked whether one is on disk; then one pack, no loose object', async () => {
    const { handle, repo } = await open();
    repo.objects.stageWrites();
    const loose = looseCount(handle.gitdir);
    const packs = packFiles(handle.gitdir);
    const contents = Array.from({ length: PACK_MIN_OBJECTS + 20 }, (_, k) => enc(`staged ${k}\n`));
    const oids: string[] = [];
    for (const content of contents) oids.push(await repo.writeBlob(content, { keep: false }));
    expect(repo.objects.isStaged(oids[0]!)).toBe(true);
    expect(onDisk(handle.dir, oids[0]!)).toBe(false);
    expect(new TextDecoder().decode((await repo.objects.read(oids[7]!)).content)).toBe('staged 7\n');
    expect(await repo.objects.sizeOf(oids[7]!)).toBe(contents[7]!.length);
    expect(await repo.objects.has(oids[7]!)).toBe(true);
    // Whether an object is on disk is answered from the disk: the batch is written first.
    expect(await repo.objects.freshen(oids[0]!)).toBe(true);
    expect(repo.objects.isStaged(oids[0]!)).toBe(false);
    expect(looseCount(handle.gitdir)).toBe(loose);
    const added = packFiles(handle.gitdir).filter((f) => !packs.includes(f));
    expect(added.map((f) => f.replace(/[0-9a-f]{40}/, 'X'))).toEqual(['pack-X.idx', 'pack-X.pack']);
    for (const oid of oids) expect(onDisk(handle.dir, oid), oid).toBe(true);
    // This store and a new one read them back from the pack.
    expect(new TextDecoder().decode((await repo.objects.read(oids[3]!)).content)).toBe('staged 3\n');
    const again = await Repository.open({ fs: nodeFs as unknown as GitFs, dir: handle.dir, platform: nodePlatform });
    expect(new TextDecoder().decode((await again.objects.read(oids[99]!)).content)).toBe('staged 99\n');
    expectFsckClean(handle.gitdir);
  });

  it('keeps no copy of a staged blob in the blob cache (the batch holds it; a copy held ~16 MiB more in a 10,000-call turn), and reads it back', async () => {
    const { handle, repo } = await open();
    repo.objects.stageWrites();
    const pool = new Uint8Array(8192).fill(0x61);
    const oid = await repo.writeBlob(pool.subarray(10, 1510));
    expect(repo.objects.isStaged(oid)).toBe(true);
    const cache = (repo as unknown as { blobs: { get(oid: string): Uint8Array | undefined } }).blobs;
    expect(cache.get(oid)).toBeUndefined();
    expect(new TextDecoder().decode(await repo.readBlob(oid))).toBe('a'.repeat(1500));
    repo.objects.flushStaged();
    expect(new TextDecoder().decode(await (await Repository.open({ fs: nodeFs as unknown as GitFs, dir: handle.dir, platform: nodePlatform })).readBlob(oid))).toBe('a'.repeat(1500));
  });

  it('a ref moved onto staged objects finds them on disk (pack written before the move); fewer than PACK_MIN_OBJECTS go loose', async () => {
    const { handle, repo } = await open();
    repo.objects.stageWrites();
    const packs = packFiles(handle.gitdir);
    const blob = await repo.writeBlob(enc('one file\n'), { keep: false });
    const tree = await repo.writeTree([{ mode: '100644', name: 'one.txt', oid: blob }]);
    const head = (await repo.refs.resolve('refs/heads/main'))!;
    const who = { name: 'T', email: 't@e', timestamp: 1_700_000_000, timezoneOffset: 0 };
    const commit = await repo.writeCommit({ tree, parents: [head], author: who, committer: who, message: 'staged\n' });
    expect(onDisk(handle.dir, commit)).toBe(false);
    await repo.refs.update({ ref: 'refs/heads/main', newOid: commit, expectedOid: head, committer: who, reflogMessage: 'test' });
    for (const oid of [blob, tree, commit]) expect(onDisk(handle.dir, oid)).toBe(true);
    expect(packFiles(handle.gitdir)).toEqual(packs);
    expect(git(handle.dir, ['show', 'main:one.txt']).stdout).toBe('one file\n');
    expectFsckClean(handle.gitdir);
  });

  it('a pack write that fails (a full disk) keeps the objects staged; the next try writes them', async () => {
    let fail = true;
    const fs = {
      ...nodeFs,
      writeFileSync: (path: string, ...rest: unknown[]) => {
        if (fail && /tmp_pack_/.test(path)) throw Object.assign(new Error(`ENOSPC: simulated, write '${path}'`), { code: 'ENOSPC' });
        return (nodeFs.writeFileSync as (...a: unknown[]) => void)(path, ...rest);
      },
    } as unknown as GitFs;
    const { handle, repo } = await open(fs);
    repo.objects.stageWrites();
    const oids: string[] = [];
    for (let k = 0; k < PACK_MIN_OBJECTS; k++) oids.push(await repo.writeBlob(enc(`full disk ${k}\n`), { keep: false }));
    const error = await repo.objects.freshen(oids[0]!).catch((e: unknown) => e);
    expect(isForgeError(error, 'DISK_FULL')).toBe(true);
    expect(repo.objects.isStaged(oids[0]!)).toBe(true);
    expect(readdirSync(join(handle.gitdir, 'objects', 'pack')).filter((f) => f.startsWith('tmp_'))).toEqual([]);
    fail = false;
    expect(await repo.objects.freshen(oids[0]!)).toBe(true);
    for (const oid of oids) expect(onDisk(handle.dir, oid), oid).toBe(true);
    expectFsckClean(handle.gitdir);
  });
});
