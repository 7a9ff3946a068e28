import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finalTree, toFastImportStream } from '../../../fixtures-repos/fast-import.mjs';
import { fixtures, getFixture, type FixtureName } from '../../../fixtures-repos/index.mjs';
import { expectFsckClean } from '../../helpers/fsck';
import { git } from '../../helpers/git-cli';
import { copyFixture, gitLsTree, gitShowBytes } from '../../helpers/repos';

/** Pinned: a change here means a definition (or the builder) changed every oid downstream. */
const EXPECTED_HEADS: Record<FixtureName, string> = {
  'edge-cases': 'a4cc6e1c160e759e1d9ee4b76045c80d926cdd29',
  'example-app': '82689c76110f4ad88771d03e1f85c672b2910e6e',
};

const blobOid = (bytes: Buffer) =>
  createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');

describe.each(Object.keys(fixtures) as FixtureName[])('fixture %s', (name) => {
  const definition = getFixture(name);

  it('builds to the pinned head, bare or not, with the whole history on main', () => {
    const repo = copyFixture(name);
    const bare = copyFixture(name, { bare: true });
    expect(repo.head).toBe(EXPECTED_HEADS[name]);
    expect(bare.head).toBe(repo.head);
    const subjects = git(repo.dir, ['log', '--format=%s', 'main']).stdout.trim().split('\n');
    expect(subjects).toEqual(definition.commits.map((c) => c.message.split('\n')[0]).reverse());
    expectFsckClean(repo.gitdir);
    expectFsckClean(bare.gitdir);
  });

  it('has exactly the files, modes and bytes of its definition, checked out cleanly', () => {
    const repo = copyFixture(name);
    const expected = finalTree(definition).map((f) => ({ mode: f.mode, type: 'blob', oid: blobOid(f.content), path: f.path }));
    const actual = gitLsTree(repo.gitdir, 'HEAD');
    expect([...actual].sort((a, b) => a.path.localeCompare(b.path))).toEqual(
      [...expected].sort((a, b) => a.path.localeCompare(b.path)),
    );
    expect(git(repo.dir, ['status', '--porcelain', '-z', '--ignored']).stdout).toBe('');
  });
});

describe('edge-cases fixture', () => {
  it('keeps newline, binary, mode and symlink bytes on disk and in git', () => {
    const repo = copyFixture('edge-cases');
    const crlf = readFileSync(join(repo.dir, 'text/crlf.txt'));
    expect(crlf.toString('latin1')).toBe('first line\r\nsecond line (edited)\r\nthird line\r\nfourth line\r\n');
    expect(gitShowBytes(repo.gitdir, 'HEAD', 'text/crlf.txt')).toEqual(crlf);
    expect(gitShowBytes(repo.gitdir, 'HEAD', 'assets/nul-bytes.bin').includes(0)).toBe(true);
    expect(readFileSync(join(repo.dir, 'text/no-final-newline.txt'), 'utf8').endsWith('newline')).toBe(true);
    expect(lstatSync(join(repo.dir, 'bin/run.sh')).mode & 0o111).not.toBe(0);
    expect(lstatSync(join(repo.dir, 'link-to-readme')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(repo.dir, 'link-to-readme'))).toBe('README.md');
    expect(readFileSync(join(repo.dir, 'docs/\u{1F680} launch.md'), 'utf8')).toMatch(/emoji/);
  });

  it('orders a.c before the directory a/ in the root tree, as git does', () => {
    const repo = copyFixture('edge-cases', { bare: true });
    const names = git(repo.gitdir, [`--git-dir=${repo.gitdir}`, 'ls-tree', '-z', '--name-only', 'HEAD']).stdout.split('\0');
    expect(names.filter((n) => n.startsWith('a'))).toEqual(['a-b.txt', 'a.c', 'a', 'a0.txt', 'assets']);
  });

  it('deleted obsolete.txt in its last commit', () => {
    const repo = copyFixture('edge-cases', { bare: true });
    const changes = git(repo.gitdir, [`--git-dir=${repo.gitdir}`, 'show', '--format=', '--name-status', 'HEAD']).stdout;
    expect(changes).toMatch(/^D\tobsolete\.txt$/m);
  });
});

describe('example-app fixture', () => {
  it('passes its own tests with node --test', () => {
    const repo = copyFixture('example-app');
    const result = spawnSync(process.execPath, ['--test'], { cwd: repo.dir, env: { PATH: process.env.PATH }, encoding: 'utf8' });
    expect(result.stdout).toMatch(/# pass 3\b/);
    expect(result.status).toBe(0);
  });
});

describe('fixture definitions are validated', () => {
  const base = { name: 'bad', description: 'x', author: { name: 'A', email: 'a@x.invalid' } };
  const commit = { date: '2024-01-01T00:00:00Z', message: 'm' };
  it.each([
    ['a path with ..', [{ ...commit, files: [{ path: 'a/../b', text: '' }] }], /invalid path/],
    ['a .git component', [{ ...commit, files: [{ path: 'x/.git/config', text: '' }] }], /invalid path/],
    ['text and base64', [{ ...commit, files: [{ path: 'a', text: '', base64: '' }] }], /exactly one/],
    ['a missing deletion', [{ ...commit, deletions: ['nope'] }], /cannot delete nope/],
    ['a file and a dir clash', [{ ...commit, files: [{ path: 'a', text: '' }, { path: 'a/b', text: '' }] }], /is a file and also/],
    ['a date without zone', [{ ...commit, date: '2024-01-01T00:00:00' }], /invalid date/],
  ])('rejects %s', (_label, commits, error) => {
    expect(() => toFastImportStream({ ...base, commits } as never)).toThrow(error);
  });
});
