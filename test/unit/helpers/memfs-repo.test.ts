import git from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { makeMemRepo } from '../../helpers/memfs-repo';
import { makeRepo } from '../../helpers/repos';

const files = {
  'README.md': '# hi\n',
  'a.c': 'int main;\n',
  'a/b/c/d/e/f/g.txt': 'deep\n',
  'a0.txt': 'after a/\n',
  'bin/tool': { content: '#!/bin/sh\n', mode: '100755' as const },
  'link': { content: 'a.c', mode: '120000' as const },
  'data.bin': Buffer.from([0, 0xff, 0x0a]),
  // U+FB01 (BMP, above the surrogates) vs an emoji: UTF-16 and UTF-8 order them differently.
  'docs/\uFB01le.md': 'ligature\n',
  'docs/\u{1F600}.md': 'emoji\n',
};

describe('makeMemRepo', () => {
  it('writes the same commit as makeRepo does on disk', async () => {
    const mem = await makeMemRepo({ files });
    expect(mem.gitdir).toBe('/repo/.git');
    expect(mem.head).toBe(makeRepo({ files }).head);
  });

  it('is readable back with isomorphic-git: blobs, modes, symlinks, branch', async () => {
    const { fs, gitdir, head } = await makeMemRepo({ files });
    const read = (filepath: string) => git.readBlob({ fs, gitdir, oid: head, filepath });
    expect(Buffer.from((await read('a/b/c/d/e/f/g.txt')).blob).toString()).toBe('deep\n');
    expect(Buffer.from((await read('data.bin')).blob)).toEqual(Buffer.from([0, 0xff, 0x0a]));
    expect(Buffer.from((await read('link')).blob).toString()).toBe('a.c');
    // readTree re-sorts entries for display; the tree bytes' order is proven by the oid test above.
    const root = await git.readTree({ fs, gitdir, oid: head });
    expect(Object.fromEntries(root.tree.map((e) => [e.path, e.mode]))).toEqual({
      'README.md': '100644', 'a.c': '100644', a: '040000', 'a0.txt': '100644',
      bin: '040000', 'data.bin': '100644', docs: '040000', link: '120000',
    });
    const bin = await git.readTree({ fs, gitdir, oid: head, filepath: 'bin' });
    expect(bin.tree[0].mode).toBe('100755');
    expect(await git.resolveRef({ fs, gitdir, ref: 'HEAD' })).toBe(head);
    expect(await git.currentBranch({ fs, gitdir })).toBe('main');
  });

  it('checks the files out into /repo with a clean status', async () => {
    const { fs, dir } = await makeMemRepo({ files });
    expect(fs.readFileSync('/repo/a/b/c/d/e/f/g.txt', 'utf8')).toBe('deep\n');
    expect(fs.lstatSync('/repo/link').isSymbolicLink()).toBe(true);
    expect(Number(fs.statSync('/repo/bin/tool').mode) & 0o111).not.toBe(0);
    const matrix = await git.statusMatrix({ fs, dir });
    expect(matrix.filter(([, h, w, s]) => !(h === 1 && w === 1 && s === 1))).toEqual([]);
  });

  it('builds a bare repository on another branch', async () => {
    const { fs, dir, gitdir, head } = await makeMemRepo({ files: { 'x.txt': 'x\n' }, bare: true, branch: 'trunk' });
    expect(dir).toBe('/repo.git');
    expect(gitdir).toBe('/repo.git');
    expect(await git.resolveRef({ fs, gitdir, ref: 'refs/heads/trunk' })).toBe(head);
    expect(fs.existsSync('/repo.git/x.txt')).toBe(false);
    expect(head).toBe(makeRepo({ files: { 'x.txt': 'x\n' }, bare: true, branch: 'trunk' }).head);
  });

  it('accepts no files at all (an empty tree)', async () => {
    expect((await makeMemRepo({ files: {} })).head).toBe(makeRepo({ files: {} }).head);
  });
});
