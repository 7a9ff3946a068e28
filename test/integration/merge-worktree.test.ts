/**
 * The working-tree adapter (src/branches/node/worktree-sync.ts) on real checkouts, through the
 * library: every kind of file change (including file <-> directory, symlinks, the exec bit and
 * emptied directories) leaves `git status` clean; a lost compare-and-swap puts the files back;
 * a held index lock, a branch checked out in another worktree, and index version 4.
 */
import * as fs from 'node:fs';
import { existsSync, lstatSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyMerge, mergeBranches, planMerge, resolveTargetBranch } from '../../src/branches';
import { nodeWorktreeSync } from '../../src/branches/node/worktree-sync';
import { isForgeError } from '../../src/errors';
import { Repository } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeRepo, snapshotWorkTree, type RepoHandle } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const FILES = {
  'keep.txt': 'keep\n',
  'lonely/only.txt': 'only\n',
  'p': 'p is a file\n',
  'q/inside.txt': 'q is a directory\n',
  'tool.sh': { content: '#!/bin/sh\n', mode: '100755' as const },
  'plain.sh': '#!/bin/sh\necho plain\n',
  'link': { content: 'keep.txt', mode: '120000' as const },
};

const open = (r: RepoHandle) => Repository.open({ fs, dir: r.dir, platform: nodePlatform });

/** A side branch made with plain git in a scratch clone, pushed back as `side`. */
function sideBranch(r: RepoHandle, edit: (dir: string) => void): string {
  const scratch = join(makeTempDir('side'), 'clone');
  git(r.dir, ['clone', '-q', r.dir, scratch]);
  edit(scratch);
  git(scratch, ['add', '-A']);
  git(scratch, ['commit', '-q', '-m', 'side']);
  git(scratch, ['push', '-q', 'origin', 'HEAD:refs/heads/side']);
  return git(r.dir, ['rev-parse', 'side']).stdout.trim();
}

const side = async (repo: Repository) => ({ ref: 'refs/heads/side', label: 'side', oid: (await repo.refs.resolve('refs/heads/side'))! });

function everyChange(dir: string): void {
  fs.rmSync(join(dir, 'lonely'), { recursive: true });
  fs.rmSync(join(dir, 'p'));
  fs.mkdirSync(join(dir, 'p'));
  writeFileSync(join(dir, 'p/now-a-dir.txt'), 'p is a directory\n');
  fs.rmSync(join(dir, 'q'), { recursive: true });
  writeFileSync(join(dir, 'q'), 'q is a file\n');
  fs.chmodSync(join(dir, 'tool.sh'), 0o644);
  fs.chmodSync(join(dir, 'plain.sh'), 0o755);
  fs.rmSync(join(dir, 'link'));
  fs.symlinkSync('p/now-a-dir.txt', join(dir, 'link'));
  fs.mkdirSync(join(dir, 'new/deep'), { recursive: true });
  writeFileSync(join(dir, 'new/deep/file.txt'), 'new\n');
}

describe('working tree of a checked-out target', () => {
  it('applies every kind of change so that git status is clean and the files match the new tree', async () => {
    const r = makeRepo({ files: FILES });
    const target = sideBranch(r, everyChange);
    const repo = await open(r);
    const result = await mergeBranches(repo, await side(repo), { into: 'main', worktree: nodeWorktreeSync() });
    expect(result).toMatchObject({ status: 'fast-forward', commit: target, worktreeUpdated: true });
    expect(git(r.dir, ['status', '--porcelain']).stdout).toBe('');
    expect(existsSync(join(r.dir, 'lonely'))).toBe(false);
    expect(readFileSync(join(r.dir, 'p/now-a-dir.txt'), 'utf8')).toBe('p is a directory\n');
    expect(readFileSync(join(r.dir, 'q'), 'utf8')).toBe('q is a file\n');
    expect(lstatSync(join(r.dir, 'tool.sh')).mode & 0o111).toBe(0);
    expect(lstatSync(join(r.dir, 'plain.sh')).mode & 0o100).toBe(0o100);
    expect(readlinkSync(join(r.dir, 'link'))).toBe('p/now-a-dir.txt');
    expect(readFileSync(join(r.dir, 'new/deep/file.txt'), 'utf8')).toBe('new\n');
    // What git would have checked out, byte for byte and bit for bit.
    const expected = join(makeTempDir('expected'), 'wt');
    git(r.dir, ['worktree', 'add', '-q', '--detach', expected, target]);
    const strip = (snapshot: string) => snapshot.split('\n').filter((l) => !l.startsWith('index ') && !l.includes(' .git')).join('\n');
    expect(strip(snapshotWorkTree(r.dir))).toBe(strip(snapshotWorkTree(expected)));
    expectFsckClean(r.gitdir);
  });

  it('puts the files back and releases the index when the branch moved meanwhile', async () => {
    const r = makeRepo({ files: FILES });
    sideBranch(r, everyChange);
    const repo = await open(r);
    const plan = await planMerge(repo, await side(repo), await resolveTargetBranch(repo, 'main'));
    // Someone else moves main (not the working tree: update-ref) after the plan was made.
    const moved = git(r.dir, ['commit-tree', '-p', r.head, '-m', 'elsewhere', `${r.head}^{tree}`]).stdout.trim();
    git(r.dir, ['update-ref', 'refs/heads/main', moved, r.head]);
    const before = snapshotWorkTree(r.dir);
    // The working tree still matches the tree the plan was made on: update it, fail the swap, roll back.
    const error = await applyMerge(repo, { ...plan, target: { ...plan.target } }, { worktree: nodeWorktreeSync() }).catch((e: unknown) => e);
    // The checkout is compared with main's tree, which did not change, so the update goes ahead...
    expect(isForgeError(error, 'REF_CAS_FAILED')).toBe(true);
    // ...and is undone.
    expect(snapshotWorkTree(r.dir)).toBe(before);
    expect(existsSync(join(r.gitdir, 'index.lock'))).toBe(false);
    expect(git(r.dir, ['rev-parse', 'main']).stdout.trim()).toBe(moved);
  });

  it('refuses while index.lock is held (INDEX_LOCKED), changing nothing', async () => {
    const r = makeRepo({ files: FILES });
    sideBranch(r, (dir) => writeFileSync(join(dir, 'keep.txt'), 'changed\n'));
    writeFileSync(join(r.gitdir, 'index.lock'), '');
    const repo = await open(r);
    const error = await mergeBranches(repo, await side(repo), { into: 'main', worktree: nodeWorktreeSync() }).catch((e: unknown) => e);
    expect(isForgeError(error, 'INDEX_LOCKED')).toBe(true);
    expect(git(r.dir, ['rev-parse', 'main']).stdout.trim()).toBe(r.head);
    expect(readFileSync(join(r.gitdir, 'index.lock'), 'utf8')).toBe('');
  });

  it('refuses a branch checked out in another worktree, and needs the adapter for its own', async () => {
    const r = makeRepo({ files: FILES });
    sideBranch(r, (dir) => writeFileSync(join(dir, 'keep.txt'), 'changed\n'));
    git(r.dir, ['branch', 'other']);
    git(r.dir, ['worktree', 'add', '-q', join(makeTempDir('linked'), 'wt'), 'other']);
    const repo = await open(r);
    const elsewhere = await mergeBranches(repo, await side(repo), { into: 'other', worktree: nodeWorktreeSync() }).catch((e: unknown) => e);
    expect(isForgeError(elsewhere, 'BRANCH_CHECKED_OUT_ELSEWHERE')).toBe(true);
    const noAdapter = await mergeBranches(repo, await side(repo), { into: 'main' }).catch((e: unknown) => e);
    expect(isForgeError(noAdapter, 'WORKTREE_SYNC_UNAVAILABLE')).toBe(true);
    expect(git(r.dir, ['rev-parse', 'main']).stdout.trim()).toBe(r.head);
  });

  it('reads an index of version 4 (and writes version 2)', async () => {
    const r = makeRepo({ files: FILES });
    git(r.dir, ['update-index', '--index-version', '4']);
    sideBranch(r, (dir) => writeFileSync(join(dir, 'lonely/only.txt'), 'changed\n'));
    const repo = await open(r);
    const result = await mergeBranches(repo, await side(repo), { into: 'main', worktree: nodeWorktreeSync() });
    expect(result.worktreeUpdated).toBe(true);
    expect(git(r.dir, ['status', '--porcelain']).stdout).toBe('');
    expect(readFileSync(join(r.dir, 'lonely/only.txt'), 'utf8')).toBe('changed\n');
  });
});
