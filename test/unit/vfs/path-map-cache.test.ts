import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../../src/session';
import { CommitVfs } from '../../../src/vfs';
import { PathMapCache } from '../../../src/vfs/path-map-cache';
import { BACKENDS, bytes } from '../../helpers/engine-repos';
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

describe.each(BACKENDS)('path map cache on $name', (backend) => {
  it('a cold listing from the stored path map equals a walk of every tree, and git ls-tree', async () => {
    const repo = await backend.make({ files: FILES });
    const first = await (await CommitVfs.open(await repo.open(), 'main')).walk('');
    const fromCache = await (await CommitVfs.open(await repo.open(), 'main')).walk('');
    expect(fromCache).toEqual(first);
    expect(first.map((e) => `${e.mode} ${e.oid} ${e.path}`)).toEqual(gitLsTree(repo.diskGitdir(), 'main').map((e) => `${e.mode} ${e.oid} ${e.path}`));
    expect(await (await CommitVfs.open(await repo.open(), 'main')).walk('a')).toEqual([first.find((e) => e.path === 'a/b.c')]);
  });

  it('ignores a stored listing that is truncated or names another tree, and rebuilds it', async () => {
    const repo = await backend.make({ files: FILES });
    const r = await repo.open();
    const view = await CommitVfs.open(r, 'main');
    const expected = await view.walk('');
    const file = `${r.commonDir}/forge/cache/paths/${view.rootTree}`;
    const text = new TextDecoder().decode(await repo.fs.promises.readFile(file));
    await repo.fs.promises.writeFile(file, text.split('\n').slice(0, 4).join('\n') + '\n');
    expect(await new PathMapCache(repo.fs, r.commonDir).load(view.rootTree)).toBeNull();
    expect(await (await CommitVfs.open(await repo.open(), 'main')).walk('')).toEqual(expected);
    await repo.fs.promises.writeFile(file, text.replace(view.rootTree, 'f'.repeat(40)));
    expect(await (await CommitVfs.open(await repo.open(), 'main')).walk('')).toEqual(expected);
    // Rebuilt: valid again.
    expect(await new PathMapCache(repo.fs, r.commonDir).load(view.rootTree)).toEqual(expected);
    if (repo.onDisk) repo.fsck();
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
});
