/**
 * Issue 27, `forge mount`: a session as a live directory. The view (base commit + pending
 * layer) through FUSE; writes become journaled pending edits; the path rules of the tools.
 */
import * as fsp from 'node:fs/promises';
import { expect, it } from 'vitest';
import { describeMount, mountedRepo, sh } from '../helpers/mount';

const FILES = {
  'README.md': '# hello\n',
  'src/a.txt': 'alpha\n',
  'bin/run.sh': { content: '#!/bin/sh\necho hi\n', mode: '100755' as const },
  'link': { content: 'src/a.txt', mode: '120000' as const },
};

describeMount('forge mount: the view as a directory', () => {
  it('shows the base commit: files, modes, symlinks, directories', async () => {
    const m = await mountedRepo(FILES);
    expect((await fsp.readdir(m.dir)).sort()).toEqual(['README.md', 'bin', 'link', 'src']);
    expect(await fsp.readFile(m.at('src/a.txt'), 'utf8')).toBe('alpha\n');
    expect((await fsp.stat(m.at('bin/run.sh'))).mode & 0o777).toBe(0o755);
    expect((await fsp.stat(m.at('README.md'))).mode & 0o777).toBe(0o644);
    expect(await fsp.readlink(m.at('link'))).toBe('src/a.txt');
    expect(await fsp.readFile(m.at('link'), 'utf8')).toBe('alpha\n');
  });

  it('a write through the mount is a pending edit once close() returns', async () => {
    const m = await mountedRepo(FILES);
    await fsp.writeFile(m.at('src/new.txt'), 'new file\n');
    await fsp.appendFile(m.at('src/a.txt'), 'beta\n');
    expect(new TextDecoder().decode(await m.session.vfs.readFile('src/new.txt'))).toBe('new file\n');
    expect(new TextDecoder().decode(await m.session.vfs.readFile('src/a.txt'))).toBe('alpha\nbeta\n');
    expect((await m.session.vfs.diff()).map((c) => `${c.kind} ${c.path}`)).toEqual(['modified src/a.txt', 'added src/new.txt']);
  });

  it('shell programs work: sed -i, cp -a, rm -rf', async () => {
    const m = await mountedRepo(FILES);
    await sh(m.dir, "sed -i 's/alpha/ALPHA/' src/a.txt && cp -a src copy && rm -rf bin");
    expect(await fsp.readFile(m.at('src/a.txt'), 'utf8')).toBe('ALPHA\n');
    expect(await fsp.readFile(m.at('copy/a.txt'), 'utf8')).toBe('ALPHA\n');
    expect((await fsp.readdir(m.dir)).sort()).toEqual(['README.md', 'copy', 'link', 'src']);
  });

  it('chmod +x of a file open and never read keeps its bytes', async () => {
    const m = await mountedRepo(FILES);
    const handle = await fsp.open(m.at('src/a.txt'), 'r');
    try {
      await fsp.chmod(m.at('src/a.txt'), 0o755);
    } finally {
      await handle.close();
    }
    expect(await fsp.readFile(m.at('src/a.txt'), 'utf8')).toBe('alpha\n');
    expect((await m.session.vfs.stat('src/a.txt'))?.mode).toBe('100755');
  });

  it('a rename over an open file: the old handle keeps the replaced file, its writes do not reach the new one', async () => {
    const m = await mountedRepo(FILES);
    const old = await fsp.open(m.at('src/a.txt'), 'r+');
    try {
      await fsp.writeFile(m.at('src/tmp'), 'replacement\n');
      await fsp.rename(m.at('src/tmp'), m.at('src/a.txt'));
      await old.write('XXXXX', 0);
      const { buffer, bytesRead } = await old.read(Buffer.alloc(20), 0, 20, 0);
      expect(buffer.subarray(0, bytesRead).toString()).toBe('XXXXX\n');
    } finally {
      await old.close();
    }
    expect(await fsp.readFile(m.at('src/a.txt'), 'utf8')).toBe('replacement\n');
    expect(new TextDecoder().decode(await m.session.vfs.readFile('src/a.txt'))).toBe('replacement\n');
  });
});
