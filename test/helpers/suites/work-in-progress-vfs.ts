/**
 * WorkInProgressVfs behaves like a filesystem over its base commit. One suite, run on memfs by
 * test/unit/vfs and on a real disk repository by test/integration: every committed result is
 * read back with the git CLI.
 */
import { describe, expect, it } from 'vitest';
import { SessionStore, type Session } from '../../../src/session';
import { bytes, text, type Backend, type EngineRepo } from '../engine-repos';
import { codeOf, gitFiles } from '../engine-assert';

export const BASE_FILES = {
  'a.txt': 'alpha\n',
  'crlf.txt': 'x\r\ny\r\n',
  'dir/one.txt': '1\n',
  'dir/two.txt': '2\n',
  'dir/sub/three.txt': '3\n',
  'exe.sh': { content: '#!/bin/sh\n', mode: '100755' as const },
  'link': { content: 'a.txt', mode: '120000' as const },
};

const BASE_GIT = {
  'a.txt': { mode: '100644', content: 'alpha\n' },
  'crlf.txt': { mode: '100644', content: 'x\r\ny\r\n' },
  'dir/one.txt': { mode: '100644', content: '1\n' },
  'dir/sub/three.txt': { mode: '100644', content: '3\n' },
  'dir/two.txt': { mode: '100644', content: '2\n' },
  'exe.sh': { mode: '100755', content: '#!/bin/sh\n' },
  'link': { mode: '120000', content: 'a.txt' },
};

export function workInProgressVfsSuite(backends: Backend[]): void {
  describe.each(backends)('WorkInProgressVfs on $name', (backend) => {
    async function setup(): Promise<{ r: EngineRepo; s: Session }> {
      const r = await backend.make({ files: BASE_FILES });
      const s = await new SessionStore(await r.open()).create({ id: 'wip' });
      return { r, s };
    }
    const names = async (s: Session, dir: string) => (await s.vfs.list(dir)).map((e) => `${e.type} ${e.mode} ${e.name}`);

    it('reads the base and the pending layer together; nothing pending reads exactly like the base', async () => {
      const { s } = await setup();
      expect(text(await s.vfs.readFile('crlf.txt'))).toBe('x\r\ny\r\n');
      await s.vfs.writeFile('new/deep/file.bin', new Uint8Array([0, 1, 255]));
      await s.vfs.writeFile('a.txt', bytes('changed\n'));
      expect([...(await s.vfs.readFile('new/deep/file.bin'))]).toEqual([0, 1, 255]);
      expect(text(await s.vfs.readFile('a.txt'))).toBe('changed\n');
      expect(await s.vfs.exists('new/deep')).toBe(true);
      expect(await s.vfs.stat('new/deep/file.bin')).toMatchObject({ type: 'file', mode: '100644', size: 3 });
      expect(await s.vfs.stat('new')).toMatchObject({ type: 'directory', mode: '040000' });
      expect(await names(s, '')).toEqual([
        'directory 040000 .forge',
        'file 100644 a.txt',
        'file 100644 crlf.txt',
        'directory 040000 dir',
        'file 100755 exe.sh',
        'symlink 120000 link',
        'directory 040000 new',
      ]);
      expect((await s.vfs.walk('new')).map((e) => e.path)).toEqual(['new/deep/file.bin']);
    });

    it('refuses to write below a file (PATH_NOT_DIRECTORY): a base file, a pending file, a symlink', async () => {
      const { s } = await setup();
      expect(await codeOf(s.vfs.writeFile('a.txt/b', bytes('x')))).toBe('PATH_NOT_DIRECTORY');
      expect(await codeOf(s.vfs.writeFile('link/b', bytes('x')))).toBe('PATH_NOT_DIRECTORY');
      await s.vfs.writeFile('p', bytes('pending file'));
      expect(await codeOf(s.vfs.writeFile('p/q/r', bytes('x')))).toBe('PATH_NOT_DIRECTORY');
      expect(await codeOf(s.vfs.list('a.txt'))).toBe('PATH_NOT_DIRECTORY');
      expect(await s.vfs.diff()).toEqual([expect.objectContaining({ path: 'p', kind: 'added' })]);
    });

    it('refuses to write or delete where a directory is (PATH_IS_DIRECTORY): a base one and one made by writes', async () => {
      const { s } = await setup();
      expect(await codeOf(s.vfs.writeFile('dir', bytes('x')))).toBe('PATH_IS_DIRECTORY');
      expect(await codeOf(s.vfs.writeFile('dir/sub', bytes('x')))).toBe('PATH_IS_DIRECTORY');
      await s.vfs.writeFile('made/by/write.txt', bytes('x'));
      expect(await codeOf(s.vfs.writeFile('made/by', bytes('x')))).toBe('PATH_IS_DIRECTORY');
      expect(await codeOf(s.vfs.deleteFile('made'))).toBe('PATH_IS_DIRECTORY');
      expect(await codeOf(s.vfs.deleteFile('dir'))).toBe('PATH_IS_DIRECTORY');
      expect(await codeOf(s.vfs.readFile('dir'))).toBe('PATH_IS_DIRECTORY');
      expect(await codeOf(s.vfs.readFile('missing'))).toBe('PATH_NOT_FOUND');
      expect(await codeOf(s.vfs.deleteFile('missing'))).toBe('PATH_NOT_FOUND');
    });

    it('refuses paths that are not repo-relative (PATH_INVALID) and accepts "./x"', async () => {
      const { s } = await setup();
      for (const bad of ['../x', '/etc/passwd', 'a//b', 'dir/../a.txt', '']) expect([bad, await codeOf(s.vfs.writeFile(bad, bytes('x')))]).toEqual([bad, 'PATH_INVALID']);
      await s.vfs.writeFile('./dot.txt', bytes('d'));
      expect(text(await s.vfs.readFile('dot.txt'))).toBe('d');
    });

    it('makes a directory vanish once every file in it is deleted; its children are then PATH_NOT_FOUND', async () => {
      const { r, s } = await setup();
      await s.vfs.deleteFile('dir/sub/three.txt');
      expect(await names(s, 'dir')).toEqual(['file 100644 one.txt', 'file 100644 two.txt']);
      expect(await s.vfs.exists('dir/sub')).toBe(false);
      await s.vfs.deleteFile('dir/one.txt');
      expect(await s.vfs.exists('dir')).toBe(true);
      await s.vfs.deleteFile('dir/two.txt');
      expect(await s.vfs.exists('dir')).toBe(false);
      expect((await names(s, '')).filter((n) => n.endsWith(' dir'))).toEqual([]);
      expect(await codeOf(s.vfs.list('dir'))).toBe('PATH_NOT_FOUND');
      expect(await codeOf(s.vfs.readFile('dir/one.txt'))).toBe('PATH_NOT_FOUND');
      expect(await s.vfs.stat('dir/sub/three.txt')).toBeNull();
      expect((await s.vfs.walk()).map((e) => e.path).filter((p) => p.startsWith('dir'))).toEqual([]);
      const turn = await s.commitTurn();
      const { 'dir/one.txt': _1, 'dir/two.txt': _2, 'dir/sub/three.txt': _3, ...rest } = BASE_GIT;
      expect(gitFiles(r, turn.commit)).toEqual(rest);
      r.fsck();
    });

    it('deletes a base file, writes a directory at its name, and commits the right tree', async () => {
      const { r, s } = await setup();
      await s.vfs.deleteFile('a.txt');
      await s.vfs.writeFile('a.txt/inner.txt', bytes('inside\n'));
      expect(await s.vfs.stat('a.txt')).toMatchObject({ type: 'directory', mode: '040000' });
      expect((await s.vfs.list('')).find((e) => e.name === 'a.txt')).toMatchObject({ type: 'directory', mode: '040000' });
      expect(await codeOf(s.vfs.readFile('a.txt'))).toBe('PATH_IS_DIRECTORY');
      const turn = await s.commitTurn();
      const { 'a.txt': _gone, ...rest } = BASE_GIT;
      expect(gitFiles(r, turn.commit)).toEqual({ ...rest, 'a.txt/inner.txt': { mode: '100644', content: 'inside\n' } });
      r.fsck();
    });

    it('empties a base directory, writes a file at its name, and commits the right tree', async () => {
      const { r, s } = await setup();
      for (const path of ['dir/one.txt', 'dir/two.txt', 'dir/sub/three.txt']) await s.vfs.deleteFile(path);
      await s.vfs.writeFile('dir', bytes('now a file\n'), { mode: '100755' });
      expect(await names(s, '')).toContain('file 100755 dir');
      const turn = await s.commitTurn();
      const { 'dir/one.txt': _1, 'dir/two.txt': _2, 'dir/sub/three.txt': _3, ...rest } = BASE_GIT;
      expect(gitFiles(r, turn.commit)).toEqual({ ...rest, dir: { mode: '100755', content: 'now a file\n' } });
      r.fsck();
    });

    it('drops a path from diff() when its base content and mode are written back', async () => {
      const { s } = await setup();
      await s.vfs.writeFile('a.txt', bytes('temp'));
      await s.vfs.writeFile('a.txt', bytes('alpha\n'));
      await s.vfs.deleteFile('crlf.txt');
      await s.vfs.writeFile('crlf.txt', bytes('x\r\ny\r\n'));
      await s.vfs.writeFile('fresh', bytes('x'));
      await s.vfs.deleteFile('fresh');
      expect(await s.vfs.diff()).toEqual([]);
      // Same bytes, different mode: a change.
      await s.vfs.writeFile('a.txt', bytes('alpha\n'), { mode: '100755' });
      expect(await s.vfs.diff()).toEqual([expect.objectContaining({ path: 'a.txt', kind: 'modified', oldMode: '100644', newMode: '100755' })]);
    });

    it('keeps a file\'s mode when overwriting unless told otherwise; new files are 100644; symlinks are 120000', async () => {
      const { r, s } = await setup();
      await s.vfs.writeFile('exe.sh', bytes('#!/bin/sh\necho hi\n'));
      await s.vfs.writeFile('link', bytes('crlf.txt'));
      await s.vfs.writeFile('new.txt', bytes('n'));
      await s.vfs.writeFile('new-link', bytes('dir/one.txt'), { mode: '120000' });
      await s.vfs.writeFile('crlf.txt', bytes('x\r\n'), { mode: '100755' });
      const turn = await s.commitTurn();
      expect(gitFiles(r, turn.commit)).toMatchObject({
        'exe.sh': { mode: '100755', content: '#!/bin/sh\necho hi\n' },
        'link': { mode: '120000', content: 'crlf.txt' },
        'new.txt': { mode: '100644', content: 'n' },
        'new-link': { mode: '120000', content: 'dir/one.txt' },
        'crlf.txt': { mode: '100755', content: 'x\r\n' },
      });
    });

    it('reports diff() against the base, sorted by path, with old and new oids and modes', async () => {
      const { s } = await setup();
      await s.vfs.writeFile('z-new', bytes('z'));
      await s.vfs.deleteFile('dir/one.txt');
      await s.vfs.writeFile('a.txt', bytes('A'));
      const diff = await s.vfs.diff();
      expect(diff.map((d) => `${d.kind} ${d.path}`)).toEqual(['modified a.txt', 'deleted dir/one.txt', 'added z-new']);
      const base = await s.vfs.baseView.entry('a.txt');
      expect(diff[0]).toEqual({ path: 'a.txt', kind: 'modified', oldOid: base!.oid, oldMode: '100644', newOid: await s.repo.writeBlob(bytes('A')), newMode: '100644' });
    });

    it('discard() drops every pending change', async () => {
      const { s } = await setup();
      await s.vfs.writeFile('x/y', bytes('y'));
      await s.vfs.deleteFile('a.txt');
      await s.vfs.discard();
      expect(await s.vfs.diff()).toEqual([]);
      expect(await s.vfs.exists('x')).toBe(false);
      expect(text(await s.vfs.readFile('a.txt'))).toBe('alpha\n');
    });
  });
}
