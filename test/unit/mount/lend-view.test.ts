/**
 * The mount's write path while a tool call lends it its view (run_command in the mount): an
 * edit goes into the lent view as a write of the call (no undo entry, no journal line of its
 * own), a failing edit leaves nothing behind, and the view cannot be lent twice at once.
 */
import * as nodeFs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Repository } from '../../../src/git';
import { nodePlatform } from '../../../src/git/node/platform';
import { lendView, MOUNT_EDIT_TOOL, SessionEditor } from '../../../src/mount/session-edits';
import { SessionStore } from '../../../src/session';
import { RecordingVfs } from '../../../src/tools';
import { expectFsckClean } from '../../helpers/fsck';
import { makeRepo } from '../../helpers/repos';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (s: string) => new TextEncoder().encode(s);

async function setup() {
  const handle = makeRepo({ files: { 'a.txt': 'a\n' } });
  const repo = await Repository.open({ fs: nodeFs, dir: handle.dir, platform: nodePlatform });
  const session = await new SessionStore(repo).create({ id: 'lend' });
  return { session, editor: new SessionEditor(session), gitdir: handle.gitdir };
}

describe('lendView', () => {
  it('an edit goes into the lent view, with no undo entry of its own; after giving back, edits are their own units again', async () => {
    const { session, editor, gitdir } = await setup();
    const savepoint = new RecordingVfs(session.vfs);
    const giveBack = lendView(session, savepoint);
    await editor.edit('write a.txt', (vfs) => vfs.writeFile('a.txt', bytes('lent\n')));
    expect(session.state.undo).toBeNull();
    expect(savepoint.touched).toEqual(['a.txt']);
    await savepoint.rollback();
    expect(text(await session.vfs.readFile('a.txt'))).toBe('a\n');
    giveBack();
    await editor.edit('write a.txt', (vfs) => vfs.writeFile('a.txt', bytes('own\n')));
    expect(session.state.undo?.tool).toBe(MOUNT_EDIT_TOOL);
    await session.close();
    expectFsckClean(gitdir);
  });

  it('a failing edit leaves nothing in the lent view, and a second lend is refused', async () => {
    const { session, editor, gitdir } = await setup();
    const savepoint = new RecordingVfs(session.vfs);
    const giveBack = lendView(session, savepoint);
    expect(() => lendView(session, savepoint)).toThrow(/already lent/);
    await expect(
      editor.edit('two writes', async (vfs) => {
        await vfs.writeFile('b.txt', bytes('b\n'));
        throw new Error('the second half failed');
      }),
    ).rejects.toThrow('the second half failed');
    expect(await session.vfs.exists('b.txt')).toBe(false);
    giveBack();
    await session.close();
    expectFsckClean(gitdir);
  });
});
