import { describe, expect, it } from 'vitest';
import { nodePlatform } from '../../../src/git/node/platform';
import { SessionStore } from '../../../src/session';
import { CommitVfs } from '../../../src/vfs';
import type { GitFs } from '../../../src/git';
import { fileEntries } from '../../../src/vfs/file-entries';
import { PathMapCache } from '../../../src/vfs/path-map-cache';
import { BACKENDS, bytes, text } from '../../helpers/engine-repos';
import { gitLsTree } from '../../helpers/repos';

const FILES = {
  'README.md': 'hi\n',
  'a.c': 'c\n',
  'a/b.c': 'b\n',
  'a0.txt': '0\n',
  'deep/x/y/z.txt': 'z\n',
  'bin/run.sh': { content: '#!/bin/sh\n', mode: '100755' as const },
  'link': { content: 'README.md', mode: '120000' as const },
  'docs/naïve café.md': 'u\n',
  'docs/🚀.md': 'r\n',
};

/** What a cold listing takes from the stored file: its entries, or null when it is ignored. */
async function storedEntries(fs: GitFs, commonDir: string, tree: string, hex?: (bytes: Uint8Array) => string) {
  const files = await new PathMapCache(fs, commonDir).load(tree);
  if (files === null) return null;
  try {
    return fileEntries(files, hex);
  } catch {
    return null;
  }
}

describe.each(BACKENDS)('path map cache on $name', (backend) => {
  it('a cold listing from the stored path map equals a walk of every tree, and git ls-tree', async () => {
    const repo = await backend.make({ files: FILES });
    const first = await (await CommitVfs.open(await repo.open(), 'main')).walk('');
    const fromCache = await (await CommitVfs.open(await repo.open(), 'main')).walk('');
    expect(fromCache).toEqual(first);
    expect(first.map((e) => `${e.mode} ${e.oid} ${e.path}`)).toEqual(gitLsTree(repo.diskGitdir(), 'main').map((e) => `${e.mode} ${e.oid} ${e.path}`));
    expect(await (await CommitVfs.open(await repo.open(), 'main')).walk('a')).toEqual([first.find((e) => e.path === 'a/b.c')]);
    // The paths alone, from the stored map, from a first listing, and below a directory or of a file.
    expect(text(await (await CommitVfs.open(await repo.open(), 'main')).pathBytes())).toBe(first.map((e) => e.path).join('\n'));
    const commonDir = (await repo.open()).commonDir;
    for (const name of await repo.fs.promises.readdir(`${commonDir}/forge/cache/paths`)) await repo.fs.promises.unlink(`${commonDir}/forge/cache/paths/${name}`);
    const fresh = await CommitVfs.open(await repo.open(), 'main');
    expect(text(await fresh.pathBytes('', 0))).toBe(first.map((e) => e.path).join('\0'));
    expect(text(await fresh.pathBytes('docs'))).toBe('docs/naïve café.md\ndocs/🚀.md');
    expect(text(await fresh.pathBytes('a/b.c'))).toBe('a/b.c');
    expect(text(await fresh.pathBytes('missing'))).toBe('');
  });

  it('ignores a stored listing that is truncated, damaged, of an older format or names another tree, and rebuilds it', async () => {
    const repo = await backend.make({ files: FILES });
    const r = await repo.open();
    const view = await CommitVfs.open(r, 'main');
    const expected = await view.walk('');
    const file = `${r.commonDir}/forge/cache/paths/${view.rootTree}`;
    const stored = Buffer.from(await repo.fs.promises.readFile(file));
    expect(stored.subarray(0, 14).toString()).toBe('forge-paths 2 ');
    const pathsAt = stored.length - Buffer.byteLength(expected.map((e) => e.path).join('\0'));
    const damaged = [
      stored.subarray(0, stored.length - 3),
      Buffer.from(stored.toString('latin1').replace(view.rootTree, 'f'.repeat(40)), 'latin1'),
      Buffer.concat([stored.subarray(0, pathsAt), Buffer.from([0xff, 0xfe]), stored.subarray(pathsAt + 2)]),
      Buffer.from(stored.toString('latin1').replace('forge-paths 2', 'forge-paths 1'), 'latin1'),
      // An unknown mode code.
      Buffer.concat([stored.subarray(0, stored.indexOf(0x0a) + 1), Buffer.from([9]), stored.subarray(stored.indexOf(0x0a) + 2)]),
      // One path more than the header says (a NUL inside a name).
      Buffer.concat([stored.subarray(0, pathsAt + 1), Buffer.from([0]), stored.subarray(pathsAt + 2)]),
    ];
    for (const bytes of damaged) {
      await repo.fs.promises.writeFile(file, bytes);
      expect(await storedEntries(repo.fs, r.commonDir, view.rootTree)).toBeNull();
      expect(text(await (await CommitVfs.open(await repo.open(), 'main')).pathBytes('', 0))).toBe(expected.map((e) => e.path).join('\0'));
      await repo.fs.promises.writeFile(file, bytes);
      expect(await (await CommitVfs.open(await repo.open(), 'main')).walk('')).toEqual(expected);
      // Rebuilt: valid again.
      expect(await storedEntries(repo.fs, r.commonDir, view.rootTree)).toEqual(expected);
    }
    if (repo.onDisk) repo.fsck();
  });

  it('reads the same listing with and without native hex decoding', async () => {
    const repo = await backend.make({ files: FILES });
    const r = await repo.open();
    const view = await CommitVfs.open(r, 'main');
    const expected = await view.walk('');
    expect(await storedEntries(repo.fs, r.commonDir, view.rootTree, nodePlatform.text!.hex)).toEqual(expected);
    expect(await storedEntries(repo.fs, r.commonDir, view.rootTree)).toEqual(expected);
  });

  it('a listing of another commit is its own entry (a tree never changes, so nothing goes stale)', async () => {
    const repo = await backend.make({ files: FILES });
    const r = await repo.open();
    const session = await new SessionStore(r).create({ id: 'pm', base: 'main' });
    await session.vfs.writeFile('new.txt', bytes('n\n'));
    const turn = await session.commitTurn();
    const after = await (await CommitVfs.open(await repo.open(), turn.commit)).walk('');
    expect(after.map((e) => e.path)).toContain('new.txt');
    expect((await (await CommitVfs.open(await repo.open(), 'main')).walk('')).map((e) => e.path)).not.toContain('new.txt');
  });

  it('a commit whose parent was listed is listed from the parent listing and the tree diff, reading only the changed trees, and equals git ls-tree', async () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`pkg${i}/src/f.txt`, `${i}\n`]));
    const repo = await backend.make({ files: { ...FILES, ...many } });
    const r = await repo.open();
    await (await CommitVfs.open(r, 'main')).walk(''); // the parent listing, stored
    const session = await new SessionStore(r).create({ id: 'pd', base: 'main' });
    await session.vfs.writeFile('deep/x/new.txt', bytes('n\n'));
    await session.vfs.deleteFile('a0.txt');
    await session.vfs.writeFile('a.c', bytes('changed\n'));
    await session.vfs.deleteFile('a/b.c');
    await session.vfs.writeFile('a', bytes('a file where a directory was\n'));
    const first = await session.commitTurn();
    const second = await (async () => {
      await session.vfs.writeFile('z.txt', bytes('z\n'));
      return session.commitTurn();
    })();
    for (const commit of [first.commit, second.commit]) {
      const fresh = await repo.open();
      const treesRead: string[] = [];
      const readTree = fresh.readTree.bind(fresh);
      fresh.readTree = (oid) => (treesRead.push(oid), readTree(oid));
      fresh.listFiles = () => Promise.reject(new Error('a walk of every tree'));
      const listing = await (await CommitVfs.open(fresh, commit)).walk('');
      expect(listing.map((e) => `${e.mode} ${e.oid} ${e.path}`)).toEqual(gitLsTree(repo.diskGitdir(), commit).map((e) => `${e.mode} ${e.oid} ${e.path}`));
      // Only the trees along the changed paths of both sides (the session file's included), not
      // the repository's 90.
      expect(treesRead.length).toBeLessThanOrEqual(commit === first.commit ? 14 : 6);
    }
  });
});
