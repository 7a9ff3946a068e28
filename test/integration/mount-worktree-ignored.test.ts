/**
 * Issue 27: where the user's working tree already has an ignored directory (their installed
 * node_modules/), a mount of a non-bare repository shows it read-only beneath the session's
 * scratch layer, copied up on write, so `npm test` runs in a fresh session without installing
 * anything; the working tree is never written. Off with worktreeIgnored: false.
 */
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import type { RepoHandle } from '../helpers/repos';
import { describeMount, mountedRepo, sh } from '../helpers/mount';

const PROJECT = {
  '.gitignore': 'node_modules/\n.env\n',
  'package.json': JSON.stringify({ name: 'fixture', private: true, scripts: { test: 'node test.js' } }, null, 2),
  'test.js': "const pad = require('pad-fixture');\nif (pad('7', 3) !== '007') throw new Error('wrong');\nconsole.log('tests pass: ' + pad('7', 3));\n",
};

const PAD_INDEX = "module.exports = (s, n) => s.padStart(n, '0');\n";

/** An installed dependency in the working tree, untracked and ignored, as npm install leaves it. */
async function install(repo: RepoHandle): Promise<void> {
  const pkg = join(repo.dir, 'node_modules/pad-fixture');
  await fsp.mkdir(join(pkg, 'lib'), { recursive: true });
  await fsp.writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'pad-fixture', version: '1.0.0', main: 'index.js' }));
  await fsp.writeFile(join(pkg, 'index.js'), PAD_INDEX);
  await fsp.writeFile(join(pkg, 'lib/extra.js'), 'module.exports = 1;\n');
  await fsp.writeFile(join(repo.dir, '.env'), 'SECRET=1\n'); // an ignored file, not a directory: never shown
}

/** The working tree's bytes, to prove nothing wrote there. */
async function worktreeFiles(repo: RepoHandle): Promise<string> {
  const { stdout } = await sh(repo.dir, 'find node_modules .env -print0 | sort -z | xargs -0 sha1sum 2>/dev/null || true').then((out) => ({ stdout: out }));
  return stdout;
}

describeMount('forge mount: the working tree\'s ignored directories beneath the scratch layer', () => {
  it('npm test runs in a fresh session with the working tree\'s node_modules; a write copies the file up and the working tree is unchanged', async () => {
    const m = await mountedRepo(PROJECT, { before: install });
    const before = await worktreeFiles(m.repo);
    expect(before).toContain('node_modules/pad-fixture/lib/extra.js');
    expect(await sh(m.dir, 'npm test --silent')).toContain('tests pass: 007');
    expect(m.mount.lowerDir).toBe(m.repo.dir);
    expect(await sh(m.dir, 'ls -A')).toBe('.gitignore\nnode_modules\npackage.json\ntest.js\n');
    // Merged with the working tree's, node_modules is served by the mount: a directory, not the bypass link.
    expect((await fsp.lstat(m.at('node_modules'))).isDirectory()).toBe(true);

    await sh(m.dir, "printf 'module.exports = (s, n) => s.padStart(n, \"x\");\\n' > node_modules/pad-fixture/index.js && echo added > node_modules/pad-fixture/new.js");
    expect(await fsp.readFile(m.at('node_modules/pad-fixture/index.js'), 'utf8')).toContain('"x"');
    expect(await fsp.readFile(join(m.mount.scratchDir!, 'node_modules/pad-fixture/index.js'), 'utf8')).toContain('"x"');
    expect(await fsp.readFile(join(m.repo.dir, 'node_modules/pad-fixture/index.js'), 'utf8')).toBe(PAD_INDEX);
    await expect(sh(m.dir, 'npm test --silent')).rejects.toThrow(/wrong/);

    // A removal is a whiteout in the scratch directory; the working tree keeps its file.
    await sh(m.dir, 'rm node_modules/pad-fixture/lib/extra.js && chmod 600 node_modules/pad-fixture/package.json');
    expect(await sh(m.dir, 'ls -A node_modules/pad-fixture node_modules/pad-fixture/lib')).toBe('node_modules/pad-fixture:\nindex.js\nlib\nnew.js\npackage.json\n\nnode_modules/pad-fixture/lib:\n');
    expect((await fsp.stat(m.at('node_modules/pad-fixture/package.json'))).mode & 0o777).toBe(0o600);
    expect(await worktreeFiles(m.repo)).toBe(before);
    expect(await m.session.vfs.diff()).toEqual([]);
    const turn = await m.session.commitTurn({ message: 'nothing tracked changed' });
    expect(git(m.repo.gitdir, ['ls-tree', '-r', '--name-only', turn.commit]).stdout).not.toContain('node_modules');
    expectFsckClean(m.repo.gitdir);
  });

  it('rm -rf node_modules hides the working tree\'s; a new node_modules is the session\'s own, shown as the bypass link', async () => {
    const m = await mountedRepo(PROJECT, { before: install });
    const before = await worktreeFiles(m.repo);
    await sh(m.dir, 'rm -rf node_modules');
    expect(await sh(m.dir, 'ls -A')).toBe('.gitignore\npackage.json\ntest.js\n');
    await sh(m.dir, 'mkdir node_modules && echo mine > node_modules/own.js');
    await new Promise((resolve) => setTimeout(resolve, 600)); // a fresh directory answers as one for 500 ms
    expect((await fsp.lstat(m.at('node_modules'))).isSymbolicLink()).toBe(true);
    expect(await sh(m.dir, 'ls -A node_modules/')).toBe('own.js\n');
    expect(await worktreeFiles(m.repo)).toBe(before);
  });

  it('with worktreeIgnored: false the working tree\'s node_modules is not shown (npm test cannot find the package)', async () => {
    const m = await mountedRepo(PROJECT, { before: install, worktreeIgnored: false });
    expect(m.mount.lowerDir).toBeUndefined();
    expect(await sh(m.dir, 'ls -A')).toBe('.gitignore\npackage.json\ntest.js\n');
    await expect(sh(m.dir, 'npm test --silent')).rejects.toThrow(/Cannot find module 'pad-fixture'/);
  });

  it('names starting with .wh. (the whiteouts) cannot be made in an ignored directory', async () => {
    const m = await mountedRepo(PROJECT, { before: install });
    await expect(fsp.writeFile(m.at('node_modules/.wh.x'), 'x')).rejects.toMatchObject({ code: 'EPERM' });
  });
});
