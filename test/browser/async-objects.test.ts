/**
 * The async object reader (src/git/async-objects.ts, async-pack-reader.ts): what a browser reads
 * objects with. Model: git itself. Random histories, packed by git with deltas (OFS_DELTA or
 * REF_DELTA), read through the portable platform over the promise API only, must give every
 * object byte for byte as `git cat-file --batch-all-objects` does; plus abbreviations, repacks
 * behind its back, and damaged packs.
 */
import { createHash } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { portablePlatform, Repository, type GitFs } from '../../src/browser';
import { ForgeError } from '../../src/errors';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';

/** node's fs with its promise API only, as lightning-fs offers: the engine cannot take the sync path. */
const promiseOnlyFs = { promises: nodeFs.promises } as unknown as GitFs;

function allObjects(gitdir: string): Map<string, { type: string; content: Buffer }> {
  const out = git(gitdir, ['cat-file', '--batch-all-objects', '--batch']).stdoutBuffer;
  const objects = new Map<string, { type: string; content: Buffer }>();
  let i = 0;
  while (i < out.length) {
    const nl = out.indexOf(0x0a, i);
    const [oid, type, size] = out.subarray(i, nl).toString().split(' ') as [string, string, string];
    objects.set(oid, { type, content: out.subarray(nl + 1, nl + 1 + Number(size)) });
    i = nl + 1 + Number(size) + 1;
  }
  return objects;
}

async function expectReadsLikeGit(gitdir: string): Promise<void> {
  const repo = await Repository.open({ fs: promiseOnlyFs, gitdir });
  expect(repo.objects.fastPath).toBe(false);
  for (const [oid, expected] of allObjects(gitdir)) {
    const object = await repo.objects.read(oid);
    expect(object.type, oid).toBe(expected.type);
    expect(Buffer.compare(Buffer.from(object.content), expected.content), oid).toBe(0);
  }
}

/** A history: each commit rewrites some lines of a few files, so git finds deltas. */
const historyArb = fc.array(
  fc.record({ file: fc.integer({ min: 0, max: 3 }), line: fc.integer({ min: 0, max: 60 }), text: fc.string({ maxLength: 30 }), binary: fc.boolean() }),
  { minLength: 1, maxLength: 12 },
);

function buildHistory(history: Array<{ file: number; line: number; text: string; binary: boolean }>): string {
  const r = makeRepo({ files: { 'seed.txt': 'seed\n' }, bare: true });
  const files = Array.from({ length: 4 }, (_, f) => Array.from({ length: 60 }, (_, i) => `file ${f} line ${i}: the same words to make deltas worth it`));
  const chunks: Buffer[] = [];
  history.forEach((step, c) => {
    files[step.file]![step.line % 60] = step.text;
    const body = Buffer.from(files[step.file]!.join('\n') + '\n');
    const content = step.binary ? Buffer.concat([Buffer.from([0, 1, 2, 255]), body]) : body;
    const head = `commit refs/heads/main\ncommitter T <t@example.invalid> ${1_700_000_000 + c} +0000\ndata 2\nc\n${c === 0 ? `from ${r.head}\n` : ''}M 100644 inline f${step.file}.dat\ndata ${content.length}\n`;
    chunks.push(Buffer.from(head), content, Buffer.from('\n'));
  });
  git(r.gitdir, ['fast-import', '--quiet'], { input: Buffer.concat(chunks) });
  return r.gitdir;
}

describe('async object reader (promise-only fs, portable platform)', () => {
  it('property: reads every object of a random history packed by git (OFS_DELTA or REF_DELTA), as git cat-file does', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, fc.boolean(), async (history, refDelta) => {
        const gitdir = buildHistory(history);
        git(gitdir, [...(refDelta ? ['-c', 'repack.useDeltaBaseOffset=false'] : []), 'repack', '-adf', '--depth=20', '--window=20', '-q']);
        await expectReadsLikeGit(gitdir);
      }),
      { numRuns: 12 },
    );
  });

  it('finds objects by abbreviation in packs and loose, and reports an ambiguous prefix as two candidates', async () => {
    const r = makeRepo({ files: { 'a.txt': 'a\n' }, bare: true });
    git(r.gitdir, ['repack', '-adq']);
    const loose = git(r.gitdir, ['hash-object', '-w', '--stdin'], { input: 'loose one\n' }).stdout.trim();
    const repo = await Repository.open({ fs: promiseOnlyFs, gitdir: r.gitdir });
    expect(await repo.resolveCommit(r.head.slice(0, 8))).toBe(r.head);
    expect(await repo.objects.findByPrefix(loose.slice(0, 7))).toEqual([loose]);
    // Two blobs whose oids share a 4-character prefix (found by hashing here), then written by git.
    const blobOid = (text: string) => createHash('sha1').update(`blob ${Buffer.byteLength(text)}\0${text}`).digest('hex');
    const seen = new Map<string, string>();
    let pair: [string, string] | null = null;
    for (let i = 0; pair === null; i++) {
      const text = `object ${i}\n`;
      const other = seen.get(blobOid(text).slice(0, 4));
      if (other !== undefined) pair = [other, text];
      seen.set(blobOid(text).slice(0, 4), text);
    }
    pair = pair.map((text) => git(r.gitdir, ['hash-object', '-w', '--stdin'], { input: text }).stdout.trim()) as [string, string];
    expect((await repo.objects.findByPrefix(pair[0].slice(0, 4))).sort()).toEqual([...pair].sort());
  });

  it('keeps reading after git repacks behind its back, and sees objects written since', async () => {
    const r = makeRepo({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n' }, bare: true });
    git(r.gitdir, ['repack', '-adq']);
    const repo = await Repository.open({ fs: promiseOnlyFs, gitdir: r.gitdir });
    await repo.readCommit(r.head);
    const later = git(r.gitdir, ['hash-object', '-w', '--stdin'], { input: 'later\n' }).stdout.trim();
    git(r.gitdir, ['repack', '-adq']);
    git(r.gitdir, ['prune-packed']);
    for (const [oid, expected] of allObjects(r.gitdir)) expect(Buffer.compare(Buffer.from((await repo.objects.read(oid)).content), expected.content)).toBe(0);
    expect(await repo.objects.has(later)).toBe(true);
    expect(await repo.objects.has('0123456789012345678901234567890123456789')).toBe(false);
    await expect(repo.objects.read('0123456789012345678901234567890123456789')).rejects.toSatisfy((e) => e instanceof ForgeError && e.code === 'OBJECT_NOT_FOUND');
  });

  it('a damaged pack entry is OBJECT_CORRUPT, not a wrong object', async () => {
    const r = makeRepo({ files: { 'a.txt': 'some content that deflates\n'.repeat(20) }, bare: true });
    git(r.gitdir, ['repack', '-adq']);
    const packDir = join(r.gitdir, 'objects', 'pack');
    const pack = nodeFs.readdirSync(packDir).find((n) => n.endsWith('.pack'))!;
    const blob = git(r.gitdir, ['rev-parse', 'main:a.txt']).stdout.trim();
    const offset = Number(git(r.gitdir, ['show-index'], { input: nodeFs.readFileSync(join(packDir, pack.replace(/\.pack$/, '.idx'))) }).stdout.split('\n').find((l) => l.includes(blob))!.split(' ')[0]);
    const bytes = nodeFs.readFileSync(join(packDir, pack));
    bytes[offset + 6] ^= 0xff; // inside the zlib stream
    nodeFs.chmodSync(join(packDir, pack), 0o644);
    nodeFs.writeFileSync(join(packDir, pack), bytes);
    const repo = await Repository.open({ fs: promiseOnlyFs, gitdir: r.gitdir });
    await expect(repo.objects.read(blob)).rejects.toSatisfy((e) => e instanceof ForgeError && e.code === 'OBJECT_CORRUPT');
  });
});
