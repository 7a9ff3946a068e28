/**
 * forge blame with the changed-path cache (provenance/changed-path-cache.ts) against git blame:
 * random histories of several files in directories (edits of one file or another, directories
 * added and removed, a file turned into a directory, renames, merges); every file blamed with
 * the cache cold (filters computed), warm (read back by a new handle), and damaged (flipped,
 * truncated, emptied segments: ignored, removed, rebuilt), each equal to `git blame --porcelain`.
 * Also: the byte-level tree walk that feeds the filters equals `git diff-tree -r`, and with a
 * warm cache the walk reads no tree of a commit that did not touch the file.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Repository } from '../../src/git';
import { changedFiles } from '../../src/git/changed-files';
import { Blamer } from '../../src/provenance/blame';
import { ChangedPathCache } from '../../src/provenance/changed-path-cache';
import { RepositoryHistory } from '../../src/provenance/repo-history';
import { porcelain, type PorcelainCommit } from '../../src/provenance/porcelain';
import { git } from '../helpers/git-cli';
import { makeTempDir } from '../helpers/temp';
import { expectFsckClean } from '../helpers/fsck';

const FILES = ['a.txt', 'src/b.txt', 'src/deep/c.txt', 'lib/d.txt'];
type Step =
  | { kind: 'edit'; file: number; at: number; text: string }
  | { kind: 'dir'; add: boolean }
  | { kind: 'file-to-dir' }
  | { kind: 'rename'; file: number }
  | { kind: 'merge'; left: number; right: number; text: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ file: fc.nat(FILES.length - 1), at: fc.nat(12), text: fc.constantFrom('x', 'y', 'z', '', 'fn()') }).map((e) => ({ kind: 'edit' as const, ...e })) },
  { weight: 1, arbitrary: fc.boolean().map((add) => ({ kind: 'dir' as const, add })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'file-to-dir' as const }) },
  { weight: 1, arbitrary: fc.nat(FILES.length - 1).map((file) => ({ kind: 'rename' as const, file })) },
  { weight: 2, arbitrary: fc.record({ left: fc.nat(FILES.length - 1), right: fc.nat(FILES.length - 1), text: fc.constantFrom('m', 'n') }).map((m) => ({ kind: 'merge' as const, ...m })) },
);

let tick = 0;
function commitAll(dir: string, message: string): void {
  const date = `${1700000000 + ++tick * 60} +0000`;
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '--allow-empty', '-m', message], { env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
}

function editFile(dir: string, path: string, at: number, text: string): void {
  let lines: string[] = [];
  try {
    lines = readFileSync(join(dir, path), 'utf8').split('\n').slice(0, -1);
  } catch {
    mkdirSync(join(dir, path, '..'), { recursive: true });
  }
  lines.splice(Math.min(at, lines.length), at % 3 === 0 ? 1 : 0, `${text} ${tick}`);
  writeFileSync(join(dir, path), lines.map((l) => `${l}\n`).join(''));
}

function buildHistory(steps: Step[]): { dir: string; files: string[] } {
  const dir = makeTempDir('blame-paths');
  git(dir, ['init', '-q', '-b', 'main']);
  const files = [...FILES];
  for (const f of files) editFile(dir, f, 0, 'first');
  commitAll(dir, 'initial');
  for (const [n, s] of steps.entries()) {
    if (s.kind === 'edit') {
      editFile(dir, files[s.file]!, s.at, s.text);
      commitAll(dir, `edit ${n}`);
    } else if (s.kind === 'dir') {
      if (s.add) editFile(dir, `extra${n}/sub/e.txt`, 0, 'extra');
      else for (const name of readdirSync(dir).filter((d) => d.startsWith('extra'))) rmSync(join(dir, name), { recursive: true });
      commitAll(dir, `dir ${n}`);
    } else if (s.kind === 'file-to-dir') {
      // `x` a file, then a directory holding a file, then a file again.
      rmSync(join(dir, 'x'), { recursive: true, force: true });
      if (n % 2 === 0) writeFileSync(join(dir, 'x'), `file ${n}\n`);
      else editFile(dir, 'x/inner.txt', 0, 'inner');
      commitAll(dir, `x ${n}`);
    } else if (s.kind === 'rename') {
      const from = files[s.file]!;
      const to = from.includes('moved/') ? from.replace('moved/', '') : `moved/${from}`;
      mkdirSync(join(dir, to, '..'), { recursive: true });
      git(dir, ['mv', from, to]);
      files[s.file] = to;
      commitAll(dir, `rename ${n}`);
    } else {
      git(dir, ['checkout', '-q', '-b', `side${n}`]);
      editFile(dir, files[s.right]!, 1, s.text);
      commitAll(dir, `side ${n}`);
      git(dir, ['checkout', '-q', 'main']);
      editFile(dir, files[s.left]!, 5, s.text);
      commitAll(dir, `main ${n}`);
      const merged = git(dir, ['merge', '-q', '--no-edit', `side${n}`], { allowFail: true });
      if (merged.status !== 0) {
        git(dir, ['checkout', '--ours', '.'], { allowFail: true });
        commitAll(dir, `merge ${n}`);
      }
    }
  }
  return { dir, files };
}

async function forgePorcelain(dir: string, path: string, withCache: boolean): Promise<string> {
  const repo = await Repository.open({ fs: nodeFs, dir });
  const cache = withCache ? new ChangedPathCache(repo.fs, repo.commonDir, repo.platform.text?.hex) : undefined;
  const result = (await new Blamer(new RepositoryHistory(repo, cache)).blame(await repo.resolveCommit('HEAD'), path))!;
  await cache?.save();
  const commits = new Map<string, PorcelainCommit>();
  for (const line of result.lines) {
    if (commits.has(line.commit)) continue;
    const c = await repo.readCommit(line.commit);
    commits.set(line.commit, { author: c.author, committer: c.committer, message: c.message, root: c.parents.length === 0 });
  }
  return porcelain(result, commits).split('\n').filter((l) => !l.startsWith('forge-')).join('\n');
}

const cacheDir = (dir: string) => join(dir, '.git', 'forge', 'cache', 'changed-paths');
const segments = (dir: string) => readdirSync(cacheDir(dir)).filter((n) => n.endsWith('.cpf'));

function damage(dir: string, how: number): void {
  for (const name of segments(dir)) {
    const path = join(cacheDir(dir), name);
    const bytes = readFileSync(path);
    if (how === 0) bytes[Math.floor(bytes.length / 2)]! ^= 0x40;
    writeFileSync(path, how === 0 ? bytes : how === 1 ? bytes.subarray(0, bytes.length - 7) : new Uint8Array(0));
  }
}

describe('forge blame with the changed-path cache agrees with git blame', () => {
  it('cold, warm and with damaged cache files, on random histories of several files', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), fc.nat(2), async (steps, how) => {
        const { dir, files } = buildHistory(steps);
        const present = files.filter((f) => git(dir, ['ls-files', '--', f]).stdout.trim() === f);
        for (const path of present) {
          const expected = git(dir, ['blame', '--porcelain', path]).stdout;
          expect(await forgePorcelain(dir, path, false)).toBe(expected);
          expect(await forgePorcelain(dir, path, true)).toBe(expected);
          expect(await forgePorcelain(dir, path, true)).toBe(expected);
        }
        expect(segments(dir).length).toBeGreaterThan(0);
        damage(dir, how);
        const damaged = segments(dir);
        for (const path of present) expect(await forgePorcelain(dir, path, true)).toBe(git(dir, ['blame', '--porcelain', path]).stdout);
        // The damaged segments were removed, and what they held was written again.
        expect(segments(dir).some((n) => damaged.includes(n))).toBe(false);
        expect(segments(dir).length).toBeGreaterThan(0);
        expectFsckClean(join(dir, '.git'));
      }),
      { numRuns: 12 },
    );
  }, 300_000);

  it('the changed files of every commit equal git diff-tree -r (the filters\' input)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        const { dir } = buildHistory(steps);
        const repo = await Repository.open({ fs: nodeFs, dir });
        for (const line of git(dir, ['rev-list', '--parents', 'HEAD']).stdout.trim().split('\n')) {
          const [commit, parent] = line.split(' ');
          if (!parent) continue;
          const expected = git(dir, ['diff-tree', '-r', '--no-renames', '--name-only', '-z', parent, commit!]).stdout.split('\0').filter(Boolean).sort();
          const tree = async (c: string) => (await repo.readCommitLinks(c)).tree;
          const ours = await changedFiles((oid) => repo.objects.readTypedNow(oid, 'tree'), await tree(parent), await tree(commit!), 10_000);
          expect([...ours!].sort()).toEqual(expected);
          // One over the limit: no list (the filter then says everything may have changed).
          if (expected.length > 0) expect(await changedFiles((oid) => repo.objects.readTypedNow(oid, 'tree'), await tree(parent), await tree(commit!), expected.length - 1)).toBeNull();
        }
      }),
      { numRuns: 10 },
    );
  }, 300_000);

  it('with a warm cache, a line the first of 40 commits wrote reads no tree of the 39 commits that changed other files', async () => {
    const dir = makeTempDir('blame-skip');
    git(dir, ['init', '-q', '-b', 'main']);
    editFile(dir, 'keep/f.txt', 0, 'old line');
    commitAll(dir, 'f');
    for (let n = 0; n < 39; n++) {
      editFile(dir, `other/o${n % 5}.txt`, n, 'other');
      commitAll(dir, `other ${n}`);
    }
    const blameCountingTrees = async (newFiltersPerWalk?: number) => {
      const repo = await Repository.open({ fs: nodeFs, dir });
      let trees = 0;
      const read = repo.objects.readTypedNow.bind(repo.objects);
      repo.objects.readTypedNow = (oid, type) => (type === 'tree' && trees++, read(oid, type));
      const cache = new ChangedPathCache(repo.fs, repo.commonDir);
      const result = (await new Blamer(new RepositoryHistory(repo, cache, newFiltersPerWalk)).blame(await repo.resolveCommit('HEAD'), 'keep/f.txt', { start: 0, end: 1 }))!;
      await cache.save();
      return { commit: result.lines[0]!.commit, trees };
    };
    const first = git(dir, ['rev-list', '--max-parents=0', 'HEAD']).stdout.trim();
    const cold = await blameCountingTrees();
    expect(cold.commit).toBe(first);
    const warm = await blameCountingTrees();
    expect(warm.commit).toBe(first);
    // The file at HEAD (root, keep/), nothing for the 39 skipped commits: without the filters,
    // each of them costs its root tree at least.
    expect(warm.trees).toBeLessThanOrEqual(2);
    expect(cold.trees).toBeGreaterThan(39);

    // A walk builds at most so many filters; the next ones extend the cache until it is whole.
    rmSync(cacheDir(dir), { recursive: true });
    const counts: number[] = [];
    for (let run = 0; run < 5; run++) {
      const r = await blameCountingTrees(10);
      expect(r.commit).toBe(first);
      counts.push(r.trees);
    }
    expect(counts[1]!).toBeLessThan(counts[0]!);
    expect(counts[2]!).toBeLessThan(counts[1]!);
    expect(counts[4]!).toBeLessThanOrEqual(2);
  });
});
