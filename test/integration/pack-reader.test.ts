/**
 * Reading packs the way git writes them: deltified against an offset (OFS_DELTA, git's default)
 * or against an oid (REF_DELTA, with repack.useDeltaBaseOffset=false), with long delta chains.
 * Every object is compared byte for byte with `git cat-file --batch`, through our positional
 * pack reader (Node platform) and through the async reader (portable platform, as in a browser).
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ForgeError } from '../../src/errors';
import { portablePlatform, Repository, type GitFs, type GitPlatform } from '../../src/git';
import { createDeltaBaseCache, PACK_WINDOW_BYTES, PackReader } from '../../src/git/pack-reader';
import { PackIndex } from '../../src/git/pack-index';
import { nodePlatform } from '../../src/git/node/platform';
import { git } from '../helpers/git-cli';
import { makeRepo, type RepoHandle } from '../helpers/repos';

const fs: GitFs = nodeFs;

/** A history where one text file and one binary file change a little in every commit, so git deltifies them. */
function historyRepo(commits = 40): RepoHandle {
  const r = makeRepo({ files: { 'seed.txt': 'seed\n' } });
  const chunks: Buffer[] = [];
  let stream = '';
  let lines = Array.from({ length: 300 }, (_, i) => `line ${i}: ${'lorem ipsum dolor sit amet '.repeat(2)}`);
  const binary = Buffer.alloc(20_000);
  for (let i = 0; i < binary.length; i++) binary[i] = (i * 7919) % 256;
  for (let c = 0; c < commits; c++) {
    lines = [...lines.slice(0, c * 3), `changed in commit ${c}`, ...lines.slice(c * 3 + 1), `appended ${c}`];
    binary[c * 97] = c;
    const text = lines.join('\n') + '\n';
    const message = `commit ${c}\n`;
    stream += `commit refs/heads/main\ncommitter T <t@example.invalid> ${1_700_000_000 + c} +0000\ndata ${Buffer.byteLength(message)}\n${message}`;
    stream += c === 0 ? `from ${r.head}\n` : '';
    stream += `M 100644 inline src/big.txt\ndata ${Buffer.byteLength(text)}\n${text}\n`;
    stream += `M 100644 inline assets/data.bin\ndata ${binary.length}\n`;
    const header = Buffer.from(stream, 'utf8');
    stream = '';
    const chunk = Buffer.concat([header, binary, Buffer.from(`\nM 100644 inline dir${c % 5}/f${c}.txt\ndata 3\n${c % 10}x\n\n`)]);
    chunks.push(chunk);
  }
  git(r.dir, ['fast-import', '--quiet'], { input: Buffer.concat(chunks) });
  return r;
}

interface PackedObject {
  oid: string;
  type: number;
}

/** The in-pack type of every object (6 = OFS_DELTA, 7 = REF_DELTA), read from the pack bytes at the offsets git's index lists. */
function packObjectTypes(gitdir: string): PackedObject[] {
  const packDir = join(gitdir, 'objects', 'pack');
  const out: PackedObject[] = [];
  for (const idx of nodeFs.readdirSync(packDir).filter((n) => n.endsWith('.idx'))) {
    const pack = nodeFs.readFileSync(join(packDir, idx.replace(/\.idx$/, '.pack')));
    const listing = git(gitdir, ['show-index'], { input: nodeFs.readFileSync(join(packDir, idx)) }).stdout.trim().split('\n');
    for (const line of listing) {
      const [offset, oid] = line.split(' ') as [string, string];
      out.push({ oid, type: (pack[Number(offset)]! >> 4) & 7 });
    }
  }
  return out;
}

/** Every object of the repository as git reads it. */
function allObjects(gitdir: string): Map<string, { type: string; content: Buffer }> {
  const out = git(gitdir, [`--git-dir=${gitdir}`, 'cat-file', '--batch-all-objects', '--batch']).stdoutBuffer;
  const objects = new Map<string, { type: string; content: Buffer }>();
  let i = 0;
  while (i < out.length) {
    const nl = out.indexOf(0x0a, i);
    const [oid, type, size] = out.subarray(i, nl).toString().split(' ') as [string, string, string];
    const start = nl + 1;
    objects.set(oid, { type, content: out.subarray(start, start + Number(size)) });
    i = start + Number(size) + 1;
  }
  return objects;
}

async function expectEngineReadsEverything(r: RepoHandle, platform: GitPlatform): Promise<number> {
  const objects = allObjects(r.gitdir);
  // Sizes first, in a repository that has read nothing: from entry, delta and loose headers alone.
  const sizes = await Repository.open({ fs, dir: r.dir, platform });
  for (const [oid, expected] of objects) {
    const size = await sizes.objects.sizeOf(oid);
    if (size !== expected.content.length) throw new Error(`object ${oid}: sizeOf says ${size}, git says ${expected.content.length}`);
  }
  const repo = await Repository.open({ fs, dir: r.dir, platform });
  expect(repo.objects.fastPath).toBe(platform === nodePlatform);
  let checked = 0;
  for (const [oid, expected] of objects) {
    const object = await repo.objects.read(oid);
    if (object.type !== expected.type || Buffer.compare(Buffer.from(object.content), expected.content) !== 0) {
      throw new Error(`object ${oid} (${expected.type}, ${expected.content.length} bytes) differs: engine read ${object.type}, ${object.content.length} bytes`);
    }
    checked++;
  }
  return checked;
}

describe('pack reader', () => {
  const repack = (r: RepoHandle, extra: string[] = []) => git(r.dir, [...extra, 'repack', '-adf', '--depth=50', '--window=50', '-q']);
  /** Commits 300 incompressible blobs (and whatever is staged), repacks into one pack: its index and path. */
  const withRandomBlobsRepacked = (r: RepoHandle, message: string) => {
    for (const [path, bytes] of Object.entries(randomBlobs(300))) {
      nodeFs.mkdirSync(join(r.dir, 'blobs'), { recursive: true });
      nodeFs.writeFileSync(join(r.dir, path), bytes);
    }
    git(r.dir, ['add', 'blobs']);
    git(r.dir, ['commit', '-q', '-m', message]);
    repack(r);
    const packDir = join(r.gitdir, 'objects', 'pack');
    const idx = nodeFs.readdirSync(packDir).find((n) => n.endsWith('.idx'))!;
    return { index: new PackIndex(nodeFs.readFileSync(join(packDir, idx)), idx), packPath: join(packDir, idx.replace(/\.idx$/, '.pack')) };
  };
  const count = (types: PackedObject[], type: number) => types.filter((t) => t.type === type).length;

  describe.each([
    ['node (our positional reader)', nodePlatform],
    ['portable (async reader)', portablePlatform],
  ])('on the %s platform', (_label, platform) => {
    it('reads every blob, tree and commit of a repo packed with OFS_DELTA chains byte-equal to git cat-file', async () => {
      const r = historyRepo();
      repack(r);
      const types = packObjectTypes(r.gitdir);
      expect(count(types, 6)).toBeGreaterThan(40);
      expect(count(types, 7)).toBe(0);
      const maxDepth = Math.max(...git(r.dir, ['verify-pack', '-v', ...nodeFs.readdirSync(join(r.gitdir, 'objects/pack')).filter((n) => n.endsWith('.idx')).map((n) => join(r.gitdir, 'objects/pack', n))]).stdout.split('\n').map((l) => Number(l.split(/\s+/)[5] ?? 0)).filter((n) => Number.isFinite(n)));
      expect(maxDepth).toBeGreaterThan(10);
      expect(await expectEngineReadsEverything(r, platform)).toBe(types.length);
    });

    it('reads a repo packed with REF_DELTA (repack.useDeltaBaseOffset=false) byte-equal to git cat-file', async () => {
      const r = historyRepo();
      repack(r, ['-c', 'repack.useDeltaBaseOffset=false']);
      const types = packObjectTypes(r.gitdir);
      expect(count(types, 7)).toBeGreaterThan(40);
      expect(count(types, 6)).toBe(0);
      expect(await expectEngineReadsEverything(r, platform)).toBe(types.length);
    });

    it('reads loose objects and packed objects side by side', async () => {
      const r = historyRepo(10);
      repack(r);
      git(r.dir, ['commit', '-q', '--allow-empty', '-m', 'loose commit']);
      nodeFs.writeFileSync(join(r.dir, 'loose.txt'), 'loose\n');
      git(r.dir, ['add', 'loose.txt']);
      git(r.dir, ['commit', '-q', '-m', 'loose blob']);
      const objects = allObjects(r.gitdir);
      const packed = new Set(packObjectTypes(r.gitdir).map((t) => t.oid));
      expect([...objects.keys()].filter((oid) => !packed.has(oid)).length).toBeGreaterThanOrEqual(4);
      expect(await expectEngineReadsEverything(r, platform)).toBe(objects.size);
    });
  });

  it('reads loose objects git writes after the repository was opened, and finds them by abbreviation', async () => {
    const r = historyRepo(3);
    const repo = await Repository.open({ fs, dir: r.dir, platform: nodePlatform });
    const before = git(r.dir, ['hash-object', '-w', '--stdin'], { input: 'before\n' }).stdout.trim();
    expect(await repo.objects.has(before)).toBe(true);
    const after = git(r.dir, ['hash-object', '-w', '--stdin'], { input: 'written later by git\n' }).stdout.trim();
    expect(await repo.objects.has(after)).toBe(true);
    expect(Buffer.from(await repo.readBlob(after)).toString()).toBe('written later by git\n');
    nodeFs.writeFileSync(join(r.dir, 'late.txt'), 'late\n');
    git(r.dir, ['add', 'late.txt']);
    git(r.dir, ['commit', '-q', '-m', 'late']);
    const head = git(r.dir, ['rev-parse', 'HEAD']).stdout.trim();
    expect(await repo.resolveCommit(head.slice(0, 10))).toBe(head);
    expect(await repo.resolveCommit('HEAD')).toBe(head);
  });

  it('keeps reading after git repacks behind its back (old pack deleted, new pack written)', async () => {
    const r = historyRepo(10);
    repack(r);
    const [firstOid] = allObjects(r.gitdir).keys();
    // One handle has read from the pack (listed and opened), the other only asked whether an object exists (listed).
    const reader = await Repository.open({ fs, dir: r.dir, platform: nodePlatform });
    await reader.objects.read(firstOid!);
    const checker = await Repository.open({ fs, dir: r.dir, platform: nodePlatform });
    expect(await checker.objects.has(firstOid!)).toBe(true);
    nodeFs.writeFileSync(join(r.dir, 'after.txt'), 'after\n');
    git(r.dir, ['add', 'after.txt']);
    git(r.dir, ['commit', '-q', '-m', 'after']);
    repack(r);
    for (const repo of [reader, checker]) {
      for (const [oid, expected] of allObjects(r.gitdir)) {
        const object = await repo.objects.read(oid);
        expect(Buffer.compare(Buffer.from(object.content), expected.content), oid).toBe(0);
      }
    }
  });

  it('reads objects that straddle the boundaries of the windows it reads the pack in', async () => {
    const files = randomBlobs(120);
    const r = makeRepo({ files });
    repack(r);
    const offsets = packObjectOffsets(r.gitdir);
    const straddling = offsets.filter(({ start, end }) => Math.floor(start / PACK_WINDOW_BYTES) !== Math.floor((end - 1) / PACK_WINDOW_BYTES));
    expect(straddling.length).toBeGreaterThan(10);
    // Each straddling object read first, with cold windows, then everything in index order.
    const repo = await Repository.open({ fs, dir: r.dir, platform: nodePlatform });
    const objects = allObjects(r.gitdir);
    for (const { oid } of straddling) expect(Buffer.compare(Buffer.from((await repo.objects.read(oid)).content), objects.get(oid)!.content), oid).toBe(0);
    expect(await expectEngineReadsEverything(r, nodePlatform)).toBe(objects.size);
  });

  it('reads every object right when its window buffers are reused (a cache of ONE window), deltas and bases included', () => {
    const r = historyRepo(30);
    for (const [path, bytes] of Object.entries(randomBlobs(40))) {
      nodeFs.mkdirSync(join(r.dir, 'blobs'), { recursive: true });
      nodeFs.writeFileSync(join(r.dir, path), bytes);
    }
    git(r.dir, ['add', 'blobs']);
    git(r.dir, ['commit', '-q', '-m', 'incompressible blobs']);
    repack(r);
    expect(packObjectTypes(r.gitdir).filter((t) => t.type === 6).length).toBeGreaterThan(40);
    const packDir = join(r.gitdir, 'objects', 'pack');
    const idx = nodeFs.readdirSync(packDir).find((n) => n.endsWith('.idx'))!;
    const index = new PackIndex(nodeFs.readFileSync(join(packDir, idx)), idx);
    const packPath = join(packDir, idx.replace(/\.idx$/, '.pack'));
    expect(nodeFs.statSync(packPath).size).toBeGreaterThan(8 * PACK_WINDOW_BYTES);
    const objects = allObjects(r.gitdir);
    // No delta-base cache either: every base is read from the pack again, through the windows.
    const reader = new PackReader(index, packPath, nodeFs as never, nodePlatform.sync!, createDeltaBaseCache(0), () => null, 1);
    for (let round = 0; round < 2; round++) {
      for (let position = 0; position < index.count; position++) {
        const oid = index.oidAt(position);
        expect(Buffer.compare(Buffer.from(reader.readAt(position).content), objects.get(oid)!.content), oid).toBe(0);
      }
    }
    reader.close();
  });

  it('reads a pack front to back through its stream (a read per 256 KiB, not per window), byte-equal, and still reads backwards', () => {
    const r = historyRepo(30);
    const { index, packPath } = withRandomBlobsRepacked(r, 'incompressible blobs');
    const windows = Math.ceil(nodeFs.statSync(packPath).size / PACK_WINDOW_BYTES);
    expect(windows).toBeGreaterThan(64);
    const objects = allObjects(r.gitdir);
    let reads = 0;
    const counting = { ...nodeFs, readSync: (...args: Parameters<typeof nodeFs.readSync>) => (reads++, nodeFs.readSync(...args)) };
    // In pack order (a listing walks trees in the order git wrote them); OFS_DELTA bases lie behind.
    const inPackOrder = Array.from({ length: index.count }, (_, p) => p).sort((a, b) => index.offsetAt(a) - index.offsetAt(b));
    const reader = new PackReader(index, packPath, counting as never, nodePlatform.sync!, createDeltaBaseCache(0), () => null);
    for (const position of inPackOrder) {
      expect(Buffer.compare(Buffer.from(reader.readAt(position).content), objects.get(index.oidAt(position))!.content), index.oidAt(position)).toBe(0);
    }
    // Windows read one by one would take a read each; the stream takes one per 16 of them (and a few to start).
    expect(reads).toBeLessThan(windows / 4);
    // Backwards (each miss behind the last): windows, every object still right.
    for (const position of inPackOrder.reverse()) {
      expect(Buffer.compare(Buffer.from(reader.readAt(position).content), objects.get(index.oidAt(position))!.content), index.oidAt(position)).toBe(0);
    }
    reader.close();
  });

  it('reads a large object\'s compressed stream up to the next object, not a bound of its inflated size (issue 30: a 50 MB text file\'s read held 50 MB more)', () => {
    const r = makeRepo({ files: { 'a.txt': 'a\n' } });
    // Compressible (a few words repeated): its stream is a fraction of its size; incompressible blobs follow it in the pack.
    const big = Buffer.from(Array.from({ length: 200_000 }, (_, i) => `line ${i % 97} of a large compressible file\n`).join(''));
    nodeFs.writeFileSync(join(r.dir, 'big.txt'), big);
    git(r.dir, ['add', 'big.txt']);
    const { index, packPath } = withRandomBlobsRepacked(r, 'a large file among others');
    const oid = git(r.dir, ['rev-parse', 'HEAD:big.txt']).stdout.trim();
    const position = index.find(Buffer.from(oid, 'hex'));
    const offsets = Array.from({ length: index.count }, (_, p) => index.offsetAt(p)).sort((a, b) => a - b);
    const next = offsets.find((o) => o > index.offsetAt(position))!;
    expect(next, 'objects follow the large one in the pack').toBeDefined();
    expect(index.nextOffsetAfter(index.offsetAt(position))).toBe(next);
    expect(index.nextOffsetAfter(offsets.at(-1)!)).toBeNull();
    let bytesRead = 0;
    const counting = { ...nodeFs, readSync: (...args: Parameters<typeof nodeFs.readSync>) => { const n = nodeFs.readSync(...args); bytesRead += n; return n; } };
    const reader = new PackReader(index, packPath, counting as never, nodePlatform.sync!, createDeltaBaseCache(0), () => null);
    const object = reader.readAt(position);
    expect(Buffer.compare(Buffer.from(object.content), big)).toBe(0);
    // The stream, its first window and the index: far less than the inflated size the bound would read.
    expect(next - index.offsetAt(position)).toBeLessThan(big.length / 4);
    expect(bytesRead).toBeLessThan(next - index.offsetAt(position) + 4 * PACK_WINDOW_BYTES);
    reader.close();
  });

  it('reports a packed object whose compressed bytes are damaged as OBJECT_CORRUPT, never as other bytes', async () => {
    const r = makeRepo({ files: { 'a.txt': 'some text that zlib compresses\n'.repeat(200), 'b.txt': 'other\n' } });
    repack(r);
    const blob = git(r.dir, ['rev-parse', 'HEAD:a.txt']).stdout.trim();
    const { start, end } = packObjectOffsets(r.gitdir).find((o) => o.oid === blob)!;
    const packPath = join(r.gitdir, 'objects', 'pack', nodeFs.readdirSync(join(r.gitdir, 'objects', 'pack')).find((n) => n.endsWith('.pack'))!);
    const pack = nodeFs.readFileSync(packPath);
    const middle = Math.floor((start + end) / 2);
    pack[middle] = pack[middle]! ^ 0x55;
    nodeFs.chmodSync(packPath, 0o644);
    nodeFs.writeFileSync(packPath, pack);
    const repo = await Repository.open({ fs, dir: r.dir, platform: nodePlatform });
    const error = await repo.readBlob(blob).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForgeError);
    expect((error as ForgeError).code).toBe('OBJECT_CORRUPT');
    // The other objects of the pack still read.
    expect(Buffer.from(await repo.readBlob(git(r.dir, ['rev-parse', 'HEAD:b.txt']).stdout.trim())).toString()).toBe('other\n');
  });
});

/** Incompressible blobs of many sizes, from a few bytes to more than a pack window (deterministic). */
function randomBlobs(count: number): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  let seed = 7;
  // mulberry32: deterministic, and incompressible enough that the pack holds the bytes as they are.
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  for (let i = 0; i < count; i++) {
    const size = i % 10 === 0 ? PACK_WINDOW_BYTES + 1000 + i * 37 : 50 + ((i * 7717) % 9000);
    files[`blobs/b${i}.bin`] = Buffer.from(Array.from({ length: size }, () => random() & 0xff));
  }
  return files;
}

/** Where each packed object's bytes start and end in its pack (by the offsets git's index lists). */
function packObjectOffsets(gitdir: string): Array<{ oid: string; start: number; end: number }> {
  const packDir = join(gitdir, 'objects', 'pack');
  const out: Array<{ oid: string; start: number; end: number }> = [];
  for (const idx of nodeFs.readdirSync(packDir).filter((n) => n.endsWith('.idx'))) {
    const packSize = nodeFs.statSync(join(packDir, idx.replace(/\.idx$/, '.pack'))).size;
    const listing = git(gitdir, ['show-index'], { input: nodeFs.readFileSync(join(packDir, idx)) })
      .stdout.trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string])
      .map(([offset, oid]) => ({ oid, start: Number(offset) }))
      .sort((a, b) => a.start - b.start);
    listing.forEach((o, i) => out.push({ ...o, end: listing[i + 1]?.start ?? packSize - 20 }));
  }
  return out;
}
