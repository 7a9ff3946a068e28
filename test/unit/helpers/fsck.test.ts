import { describe, expect, it } from 'vitest';
import { expectFsckClean, fsckReport } from '../../helpers/fsck';
import { git } from '../../helpers/git-cli';
import { makeRepo } from '../../helpers/repos';

describe('expectFsckClean', () => {
  it('accepts a clean repository, dangling blobs included', () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' }, bare: true });
    git(repo.gitdir, [`--git-dir=${repo.gitdir}`, 'hash-object', '-w', '--stdin'], { input: 'written early, never used\n' });
    expect(() => expectFsckClean(repo.gitdir)).not.toThrow();
  });

  it('fails on a corrupt object and lists what fsck said', () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' }, bare: true });
    const blob = git(repo.gitdir, [`--git-dir=${repo.gitdir}`, 'rev-parse', 'HEAD:a.txt']).stdout.trim();
    const raw = Buffer.from(blob, 'hex');
    // Entries out of order: git rejects such a tree (treeNotSorted).
    const badTree = Buffer.concat([Buffer.from('100644 b\0'), raw, Buffer.from('100644 a\0'), raw]);
    git(repo.gitdir, [`--git-dir=${repo.gitdir}`, 'hash-object', '--literally', '-t', 'tree', '-w', '--stdin'], { input: badTree });

    expect(fsckReport(repo.gitdir).problems).toEqual([expect.stringMatching(/^error in tree [0-9a-f]{40}: treeNotSorted/)]);
    expect(() => expectFsckClean(repo.gitdir)).toThrow(/git fsck --strict found problems[^]*treeNotSorted/);
  });
});
