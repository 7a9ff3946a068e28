/**
 * Issue 27: the scratch directory (ignored paths a mount wrote) is removed with the session:
 * `forge session discard` returns the session to its branch head, scratch included; a session
 * whose branch was deleted loses its scratch directory at the next mount or discard.
 */
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { git } from '../helpers/git-cli';
import { describeMount, mountedRepo, openSession, sh } from '../helpers/mount';
import { makeTempDir } from '../helpers/temp';
import { mountSession } from '../../src/mount/node/mount-session';

const FILES = { '.gitignore': 'dist/\n', 'a.txt': 'a\n' };
const exists = (path: string) => fsp.lstat(path).then(() => true, () => false);

describeMount('forge mount: the scratch directory goes with the session', () => {
  it('forge session discard removes the session\'s scratch directory', async () => {
    const m = await mountedRepo(FILES);
    await sh(m.dir, 'mkdir -p dist/deep && echo built > dist/deep/out.js && echo edit > a.txt');
    const scratch = m.mount.scratchDir!;
    expect(await exists(join(scratch, 'dist/deep/out.js'))).toBe(true);
    await m.mount.unmount();
    await m.session.close();
    const result = await m.store.discard(m.session.id);
    expect(result).toEqual({ discarded: ['a.txt'], scratchRemoved: true });
    expect(await exists(scratch)).toBe(false);
    // Nothing to remove the second time.
    expect((await m.store.discard(m.session.id)).scratchRemoved).toBe(false);
  });

  it('a session whose branch was deleted loses its scratch directory at the next mount in the repository', async () => {
    const m = await mountedRepo(FILES);
    await sh(m.dir, 'mkdir dist && echo built > dist/out.js');
    const scratch = m.mount.scratchDir!;
    await m.mount.unmount();
    await m.session.close();
    git(m.repo.gitdir, ['branch', '-D', `forge/session/${m.session.id}`]);
    const other = await openSession(m.repo, 'other');
    const dir = join(makeTempDir('mnt'), 'view');
    await fsp.mkdir(dir);
    const mount = await mountSession(other.session, dir);
    try {
      expect(await exists(scratch)).toBe(false);
      expect(await exists(mount.scratchDir!)).toBe(true);
    } finally {
      await mount.unmount();
      await other.session.close();
    }
  });
});
