/**
 * Issue 23 §1, "every writer to a real directory": a tree that is already local — here a
 * commit made with plain git, trusted no more than a fetched one — with `.git` in any spelling,
 * `..`, or two paths that collide on a case-insensitive file system never reaches a real
 * directory: `forge merge`'s working-tree update and `materialize` (which run_command's copy
 * uses) refuse it with UNSAFE_PATH before writing anything, and no ref moves.
 */
import * as nodeFs from 'node:fs';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Repository, type GitFs } from '../../../src/git';
import { nodePlatform } from '../../../src/git/node/platform';
import { CommitVfs, materialize } from '../../../src/vfs';
import { forge } from '../../helpers/forge-cli';
import { fsckReport } from '../../helpers/fsck';
import { git } from '../../helpers/git-cli';
import { commitTree, writeTreeOf, type FileSpec } from '../../helpers/hostile-objects';
import { makeRepo, type RepoHandle } from '../../helpers/repos';
import { makeTempDir } from '../../helpers/temp';

const SPELLINGS = ['.git', '.GIT', '.git ', '.git.', 'git~1', '.g\u200cit', 'GiT~1'];
const HOOK: FileSpec = { content: '#!/bin/sh\ntouch "$HOME/pwned"\n', mode: '100755' };
const BASE = { 'README.md': '# app\n', 'src/app.js': 'export const answer = 42;\n' };

/** A commit made with plain git on top of main: main's files plus `extra`, names as given. */
function localCommit(r: RepoHandle, extra: Record<string, FileSpec>): string {
  const tree = writeTreeOf(r.dir, { ...BASE, ...extra });
  return commitTree(r.dir, tree, [git(r.dir, ['rev-parse', 'main']).stdout.trim()], 'made with plain git\n');
}

/** The repository holds the planted tree (git's fsck flags it, as it should); forge added no other problem. */
function expectOnlyPlantedProblems(gitdir: string): void {
  const { problems } = fsckReport(gitdir);
  expect(problems.filter((line) => !/hasDotgit|hasDotdot/.test(line))).toEqual([]);
}

function repoWithMain(): RepoHandle {
  const r = makeRepo({ files: BASE });
  git(r.dir, ['branch', '-M', 'main']);
  return r;
}

/**
 * A file system that folds case below `root`, as NTFS and APFS do by default: every path under
 * it is looked up lower-cased, so `S` and `s` are one entry.
 */
function caseFoldingFs(root: string): GitFs {
  const fold = (arg: unknown) => (typeof arg === 'string' && arg.startsWith(root + '/') ? root + arg.slice(root.length).toLowerCase() : arg);
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(obj, key, receiver) {
        const value = Reflect.get(obj, key, receiver) as unknown;
        if (key === 'promises' && value && typeof value === 'object') return wrap(value as object);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(obj, args.map(fold));
      },
    });
  return wrap(nodeFs) as unknown as GitFs;
}

describe('issue 23 §1: materialize refuses what git would not check out', () => {
  it('forge materialize DIR --rev <plain-git commit holding .git/hooks/pre-commit> exits 2 with UNSAFE_PATH and writes nothing', () => {
    const r = repoWithMain();
    const commit = localCommit(r, { '.git/hooks/pre-commit': HOOK, '.git/config': '[core]\n\tfsmonitor = touch pwned\n' });
    const target = join(makeTempDir('mat'), 'out');
    const result = forge(['materialize', target, '--rev', commit, '--repo', r.dir, '--json']);
    expect(result.status).toBe(2);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'UNSAFE_PATH', data: { path: '.git/config', problem: 'dotgit' } });
    expect(existsSync(target)).toBe(false);
    expectOnlyPlantedProblems(join(r.dir, '.git'));
  });

  it('refuses every .git spelling and ".." at any depth, as a file or a directory, writing nothing', async () => {
    const r = repoWithMain();
    const repo = await Repository.open({ fs: nodeFs, dir: r.dir, platform: nodePlatform });
    const cases: Array<Record<string, FileSpec>> = [];
    for (const name of SPELLINGS) cases.push({ [`${name}/hooks/pre-commit`]: HOOK }, { [`a/b/${name}`]: 'x\n' });
    cases.push({ '../escape.txt': 'x\n' }, { 'src/../../escape.txt': 'x\n' }, { 'src/./x': 'x\n' });
    for (const extra of cases) {
      const commit = localCommit(r, extra);
      const target = join(makeTempDir('mat'), 'out');
      const label = Object.keys(extra)[0]!;
      await expect(materialize(await CommitVfs.open(repo, commit), nodeFs, target), label).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
      expect(existsSync(target), label).toBe(false);
      expect(existsSync(join(target, '..', 'escape.txt')), label).toBe(false);
    }
    repo.close();
  });

  it('on a case-folding file system refuses a symlink S beside s/x, and README beside readme; on a case-sensitive one writes both', async () => {
    const r = repoWithMain();
    const repo = await Repository.open({ fs: nodeFs, dir: r.dir, platform: nodePlatform });
    const outside = makeTempDir('outside');
    const collisions: Array<Record<string, FileSpec>> = [
      { S: { content: outside, mode: '120000' }, 's/payload.sh': HOOK },
      { README: 'upper\n', readme: 'lower\n' },
      { 'Docs/a.md': 'a\n', 'docs/b.md': 'b\n' },
      { 'caf\u00e9.txt': 'nfc\n', 'cafe\u0301.txt': 'nfd\n' },
    ];
    for (const extra of collisions) {
      const commit = localCommit(r, extra);
      const label = Object.keys(extra).join(' + ');
      const root = makeTempDir('fold');
      const target = join(root, 'out');
      await expect(materialize(await CommitVfs.open(repo, commit), caseFoldingFs(root), target), label).rejects.toMatchObject({ code: 'UNSAFE_PATH', data: { problem: 'case-collision' } });
      expect(existsSync(target) ? readdirSync(target) : [], label).toEqual([]);
      expect(readdirSync(outside), label).toEqual([]);
      // The same tree on a file system that keeps case: nothing collides.
      const plain = join(makeTempDir('plain'), 'out');
      await materialize(await CommitVfs.open(repo, commit), nodeFs, plain);
      expect(readdirSync(outside), label).toEqual([]);
    }
    repo.close();
  });
});

describe("issue 23 §1: merge's working-tree update refuses what git would not check out", () => {
  for (const name of ['.git', '.GIT', 'git~1']) {
    it(`forge merge of a plain-git commit holding ${name}/hooks/pre-commit into the checked-out main: UNSAFE_PATH, no hook, main unmoved`, () => {
      const r = repoWithMain();
      const main = git(r.dir, ['rev-parse', 'main']).stdout.trim();
      const commit = localCommit(r, { [`${name}/hooks/pre-commit`]: HOOK });
      git(r.dir, ['update-ref', 'refs/remotes/origin/forge/session/evil', commit]);
      const result = forge(['merge', 'origin/evil', '--into', 'main', '--repo', r.dir, '--json']);
      expect(result.status).toBe(2);
      expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'UNSAFE_PATH', data: { problem: 'dotgit' } });
      expect(git(r.dir, ['rev-parse', 'main']).stdout.trim()).toBe(main);
      expect(existsSync(join(r.dir, '.git/hooks/pre-commit'))).toBe(false);
      expect(existsSync(join(r.dir, name))).toBe(name === '.git');
      expect(existsSync(join(r.dir, '.git/index.lock'))).toBe(false);
      expect(git(r.dir, ['status', '--porcelain']).stdout).toBe('');
      expectOnlyPlantedProblems(join(r.dir, '.git'));
    });
  }

  it('with core.ignoreCase (a case-insensitive checkout), a merge bringing README.MD beside README.md, or a symlink S beside s/x, is refused', () => {
    const collisions: Array<Record<string, FileSpec>> = [{ 'README.MD': 'shadow\n' }, { S: { content: '/tmp', mode: '120000' }, 's/x.sh': HOOK }];
    for (const extra of collisions) {
      const r = repoWithMain();
      git(r.dir, ['config', 'core.ignoreCase', 'true']);
      const main = git(r.dir, ['rev-parse', 'main']).stdout.trim();
      const commit = localCommit(r, extra);
      git(r.dir, ['update-ref', 'refs/remotes/origin/forge/session/fold', commit]);
      const result = forge(['merge', 'origin/fold', '--into', 'main', '--repo', r.dir, '--json']);
      expect(result.status).toBe(2);
      expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'UNSAFE_PATH', data: { problem: 'case-collision' } });
      expect(git(r.dir, ['rev-parse', 'main']).stdout.trim()).toBe(main);
      expect(git(r.dir, ['status', '--porcelain']).stdout).toBe('');
    }
  });
});
