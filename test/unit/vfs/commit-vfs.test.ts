import { describe, expect, it } from 'vitest';
import { isForgeError, type ErrorCode } from '../../../src/errors';
import { buildTree } from '../../../src/git';
import { CommitVfs } from '../../../src/vfs';
import { bytes, MEMFS_BACKENDS, text } from '../../helpers/engine-repos';

async function codeOf(promise: Promise<unknown>): Promise<ErrorCode | 'success' | 'non-forge'> {
  return promise.then(
    () => 'success' as const,
    (e: unknown) => (isForgeError(e) ? e.code : 'non-forge'),
  );
}

const files = {
  'README.md': '# r\r\n',
  'a.c': 'c',
  'a/b.c': 'b',
  'a0': '0',
  'bin/run': { content: '#!/bin/sh\n', mode: '100755' as const },
  'link': { content: 'README.md', mode: '120000' as const },
  'docs/日本語.md': 'jp',
  'data.bin': new Uint8Array([0, 255, 13, 10]),
};

describe.each(MEMFS_BACKENDS)('CommitVfs on $name', (backend) => {
  async function view() {
    const r = await backend.make({ files });
    return CommitVfs.open(await r.open(), 'HEAD');
  }

  it('reads bytes exactly (CRLF, binary, unicode names, symlink targets)', async () => {
    const v = await view();
    expect(text(await v.readFile('README.md'))).toBe('# r\r\n');
    expect([...(await v.readFile('data.bin'))]).toEqual([0, 255, 13, 10]);
    expect(text(await v.readFile('docs/日本語.md'))).toBe('jp');
    expect(text(await v.readFile('link'))).toBe('README.md');
    expect(text(await v.readFile('./a/b.c'))).toBe('b');
    // Issue 24: a "." component means the same wherever it stands (path=./README.md and a/./b alike).
    expect(text(await v.readFile('a/./b.c'))).toBe('b');
    expect(text(await v.readFile('a/b.c/.'))).toBe('b');
  });

  it('lists a directory sorted by name with types and modes, and walks every file sorted by path', async () => {
    const v = await view();
    expect((await v.list('')).map((e) => `${e.type} ${e.mode} ${e.name}`)).toEqual([
      'file 100644 README.md',
      'directory 040000 a',
      'file 100644 a.c',
      'file 100644 a0',
      'directory 040000 bin',
      'file 100644 data.bin',
      'directory 040000 docs',
      'symlink 120000 link',
    ]);
    expect((await v.walk()).map((e) => e.path)).toEqual(['README.md', 'a.c', 'a/b.c', 'a0', 'bin/run', 'data.bin', 'docs/日本語.md', 'link']);
    expect((await v.walk('bin')).map((e) => `${e.mode} ${e.path}`)).toEqual(['100755 bin/run']);
    expect(await v.walk('nothing')).toEqual([]);
  });

  it('stats files (size) and directories (tree oid), null for missing paths', async () => {
    const v = await view();
    expect(await v.stat('README.md')).toMatchObject({ type: 'file', mode: '100644', size: 5 });
    expect(await v.stat('a')).toMatchObject({ type: 'directory', mode: '040000', oid: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(await v.stat('a/missing')).toBeNull();
    expect(await v.stat('a.c/x')).toBeNull();
    expect(await v.exists('')).toBe(true);
  });

  it('reports PATH_NOT_FOUND, PATH_IS_DIRECTORY, PATH_NOT_DIRECTORY and PATH_INVALID', async () => {
    const v = await view();
    expect(await codeOf(v.readFile('missing'))).toBe('PATH_NOT_FOUND');
    expect(await codeOf(v.readFile('a.c/x'))).toBe('PATH_NOT_FOUND');
    expect(await codeOf(v.readFile('a'))).toBe('PATH_IS_DIRECTORY');
    expect(await codeOf(v.list('a.c'))).toBe('PATH_NOT_DIRECTORY');
    expect(await codeOf(v.list('nope'))).toBe('PATH_NOT_FOUND');
    for (const bad of ['../x', '/abs', 'a//b', 'a/./../b', 'a/../b', 'nul\0', './/a']) expect([bad, await codeOf(v.readFile(bad))]).toEqual([bad, 'PATH_INVALID']);
  });

  it('shows a submodule (gitlink) as such and refuses to read it as a file', async () => {
    const r = await backend.make({ files: { 'x': 'x' } });
    const repo = await r.open();
    const tree = await buildTree(repo, (await repo.readCommit(r.head)).tree, [['vendor/lib', { oid: 'f'.repeat(40), mode: '160000' }]]);
    const v = new CommitVfs(repo, null, tree);
    expect(await v.stat('vendor/lib')).toMatchObject({ type: 'submodule', mode: '160000', oid: 'f'.repeat(40) });
    expect(await codeOf(v.readFile('vendor/lib'))).toBe('PATH_IS_DIRECTORY');
    expect((await v.walk()).map((e) => `${e.type} ${e.path}`)).toEqual(['submodule vendor/lib', 'file x']);
  });

  it('opens any revision, e.g. a commit by abbreviated oid', async () => {
    const r = await backend.make({ files });
    const v = await CommitVfs.open(await r.open(), r.head.slice(0, 8));
    expect(v.commit).toBe(r.head);
  });

  it('reads a blob written after the view was opened (no stale negative cache)', async () => {
    const r = await backend.make({ files });
    const repo = await r.open();
    const oid = await repo.writeBlob(bytes('later'));
    expect(text(await repo.readBlob(oid))).toBe('later');
  });
});
