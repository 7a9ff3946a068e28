/**
 * Issue 27, "ignored paths at native speed": a top-most ignored directory (dist/, node_modules/)
 * is shown as a symbolic link to its real directory in the session's scratch layer, so what
 * programs do inside it never crosses FUSE. What programs see of that: ls -l and realpath show
 * the link, rm -rf removes the directory, mkdir makes one again, nothing of it is committed.
 */
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { describeMount, mountedRepo, sh } from '../helpers/mount';

/** A directory mkdir made answers as a directory for half a second (mkdir -p opens it with O_NOFOLLOW), then as the link. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 600));

const FILES = {
  '.gitignore': 'node_modules/\ndist/\n*.log\n',
  'src/a.txt': 'alpha\n',
  'pkg/.gitignore': 'build/\n',
  'pkg/index.js': 'module.exports = 1;\n',
};

describeMount('forge mount: ignored directories bypass FUSE', () => {
  it('mkdir of an ignored directory gives a link into the scratch directory; what is written there is on real disk and never committed', async () => {
    const m = await mountedRepo(FILES);
    await sh(m.dir, 'mkdir dist && echo out > dist/out.js && mkdir -p node_modules/dep/lib && echo dep > node_modules/dep/lib/i.js && mkdir pkg/build && echo b > pkg/build/b.o');
    await settle();
    for (const dir of ['dist', 'node_modules', 'pkg/build']) {
      expect((await fsp.lstat(m.at(dir))).isSymbolicLink(), dir).toBe(true);
      expect(await fsp.readlink(m.at(dir))).toBe(join(m.mount.scratchDir!, dir));
      expect((await sh(m.dir, `realpath ${dir}`)).trim()).toBe(join(m.mount.scratchDir!, dir));
    }
    expect(await fsp.readFile(join(m.mount.scratchDir!, 'dist/out.js'), 'utf8')).toBe('out\n');
    expect(await fsp.readFile(m.at('node_modules/dep/lib/i.js'), 'utf8')).toBe('dep\n');
    // Below the link, a plain directory on disk (npm takes a link inside node_modules/ for npm link).
    expect((await fsp.lstat(m.at('node_modules/dep'))).isDirectory()).toBe(true);
    expect((await sh(m.dir, 'ls -l | grep dist')).trim()).toMatch(/^l.* dist -> .*\/forge\/scratch\/m\/dist$/);
    // Ignored files (not directories) stay served by the mount, in the scratch layer.
    await fsp.writeFile(m.at('build.log'), 'log\n');
    expect((await fsp.lstat(m.at('build.log'))).isFile()).toBe(true);
    expect(await m.session.vfs.diff()).toEqual([]);
    const turn = await m.session.commitTurn({ message: 'ignored output' });
    const paths = git(m.repo.gitdir, ['ls-tree', '-r', '--name-only', turn.commit]).stdout.split('\n').filter((p) => p && !p.startsWith('.forge/'));
    expect(paths.sort()).toEqual(['.gitignore', 'pkg/.gitignore', 'pkg/index.js', 'src/a.txt']);
    expectFsckClean(m.repo.gitdir);
  });

  it('rm -rf dist removes the directory, mkdir dist makes a fresh one; mv replaces one ignored directory by another', async () => {
    const m = await mountedRepo(FILES);
    await sh(m.dir, 'mkdir -p dist/a && echo 1 > dist/a/one && rm -rf dist && mkdir dist && echo 2 > dist/two');
    expect(await sh(m.dir, 'ls -A dist/')).toBe('two\n');
    await expect(fsp.lstat(join(m.mount.scratchDir!, 'dist/a'))).rejects.toMatchObject({ code: 'ENOENT' });
    await sh(m.dir, 'rm -rf dist && mkdir -p dist && test -d dist && echo 3 > dist/three');
    expect(await sh(m.dir, 'ls -A dist/')).toBe('three\n');
    await sh(m.dir, 'mkdir node_modules && echo n > node_modules/n');
    await settle();
    await sh(m.dir, 'mv -T node_modules dist');
    expect(await sh(m.dir, 'ls -A dist/; ls -A')).toBe('n\n.gitignore\ndist\npkg\nsrc\n');
    // Node removes it as its own fs.rm does a link; a rename into tracked paths makes it tracked files.
    await sh(m.dir, 'node -e "require(\'fs\').rmSync(\'dist\', { recursive: true, force: true })" && mkdir dist && echo x > dist/x');
    await settle();
    await sh(m.dir, 'mv dist tracked');
    expect(new TextDecoder().decode(await m.session.vfs.readFile('tracked/x'))).toBe('x\n');
    expect((await fsp.lstat(m.at('tracked'))).isDirectory()).toBe(true);
  });

  it('tar x into an ignored directory lands on disk in the scratch directory', async () => {
    const m = await mountedRepo(FILES);
    await sh(m.dir, 'src=$(mktemp -d) && mkdir -p $src/p/q && for i in 1 2 3; do echo $i > $src/p/q/$i; done && chmod +x $src/p/q/1 && tar cf $src.tar -C $src p && mkdir dist && tar xf $src.tar -C dist && rm -rf $src $src.tar');
    expect(await fsp.readFile(join(m.mount.scratchDir!, 'dist/p/q/3'), 'utf8')).toBe('3\n');
    expect((await fsp.stat(m.at('dist/p/q/1'))).mode & 0o777).toBe(0o755);
  });
});
