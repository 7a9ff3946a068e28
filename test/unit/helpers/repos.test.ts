import { chmodSync, lstatSync, readFileSync, readlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectFsckClean } from '../../helpers/fsck';
import { git } from '../../helpers/git-cli';
import { gitLsTree, gitShowBytes, makeRepo, snapshotWorkTree } from '../../helpers/repos';

const binary = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x0d, 0x0a]);
const files = {
  'README.md': '# hi\n',
  'src/deep/er/still/deeper/x.ts': 'export const x = 1;\n',
  'bin/tool': { content: '#!/bin/sh\n', mode: '100755' as const },
  'link': { content: 'README.md', mode: '120000' as const },
  'data.bin': binary,
  'docs/caf\u00e9 \u{1F600}.md': 'unicode\n',
};

describe('makeRepo', () => {
  it('commits the files with their modes and checks them out with a clean index', () => {
    const repo = makeRepo({ files });
    expect(repo.gitdir).toBe(join(repo.dir, '.git'));
    expect(git(repo.dir, ['status', '--porcelain', '-z']).stdout).toBe('');
    expect(git(repo.dir, ['rev-parse', 'HEAD']).stdout.trim()).toBe(repo.head);
    expect(gitLsTree(repo.gitdir, 'HEAD').map((e) => `${e.mode} ${e.path}`)).toEqual([
      '100644 README.md',
      '100755 bin/tool',
      '100644 data.bin',
      '100644 docs/caf\u00e9 \u{1F600}.md',
      '120000 link',
      '100644 src/deep/er/still/deeper/x.ts',
    ]);
    expect(readFileSync(join(repo.dir, 'data.bin'))).toEqual(binary);
    expect(lstatSync(join(repo.dir, 'bin/tool')).mode & 0o111).not.toBe(0);
    expect(readlinkSync(join(repo.dir, 'link'))).toBe('README.md');
    expectFsckClean(repo.gitdir);
  });

  it('builds a bare repository on another branch with a given message', () => {
    const repo = makeRepo({ files, bare: true, branch: 'trunk', message: 'Start\n\nbody' });
    expect(repo.dir).toBe(repo.gitdir);
    expect(git(repo.dir, ['rev-parse', '--is-bare-repository']).stdout).toBe('true\n');
    expect(git(repo.dir, ['symbolic-ref', 'HEAD']).stdout).toBe('refs/heads/trunk\n');
    expect(git(repo.dir, ['log', '-1', '--format=%B', 'trunk']).stdout).toBe('Start\n\nbody\n\n');
    expect(existsSync(join(repo.dir, 'README.md'))).toBe(false);
    expect(gitShowBytes(repo.gitdir, 'trunk', 'data.bin')).toEqual(binary);
  });

  it('gives the same oid for the same input, and accepts no files at all', () => {
    expect(makeRepo({ files }).head).toBe(makeRepo({ files, bare: true }).head);
    const empty = makeRepo({ files: {} });
    expect(git(empty.dir, ['rev-parse', 'HEAD^{tree}']).stdout.trim()).toBe('4b825dc642cb6eb9a060e54bf8d69288fbee4904');
  });

  it('rejects paths git cannot store', () => {
    expect(() => makeRepo({ files: { '../escape': 'x' } })).toThrow(/invalid path/);
    expect(() => makeRepo({ files: { '/abs': 'x' } })).toThrow(/invalid path/);
  });
});

describe('snapshotWorkTree', () => {
  it('is stable, and changes with content, mode or the index', () => {
    const repo = makeRepo({ files });
    const before = snapshotWorkTree(repo.dir);
    expect(snapshotWorkTree(repo.dir)).toBe(before);
    expect(before).toMatch(/^link [0-9a-f]{64} link -> README\.md$/m);
    expect(before).not.toMatch(/\.git/);

    writeFileSync(join(repo.dir, 'README.md'), '# changed\n');
    expect(snapshotWorkTree(repo.dir)).not.toBe(before);
    writeFileSync(join(repo.dir, 'README.md'), '# hi\n');
    expect(snapshotWorkTree(repo.dir)).toBe(before);

    chmodSync(join(repo.dir, 'bin/tool'), 0o644);
    expect(snapshotWorkTree(repo.dir)).not.toBe(before);
    chmodSync(join(repo.dir, 'bin/tool'), 0o755);

    git(repo.dir, ['rm', '-q', '--cached', 'data.bin']);
    const after = snapshotWorkTree(repo.dir);
    expect(after.replace(/^index .*$/m, '')).toBe(before.replace(/^index .*$/m, ''));
    expect(after).not.toBe(before);
  });
});
