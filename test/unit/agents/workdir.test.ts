/** Issue 28: the agent's working directory — copy mode syncs through run_command's change detection; mount is a seam. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkdir } from '../../../src/agents/node/workdir';
import { SessionStore } from '../../../src/session';
import { BACKENDS } from '../../helpers/engine-repos';

const DISK_BACKEND = BACKENDS.find((b) => b.onDisk)!;

describe('openWorkdir (issue 28)', () => {
  it("mount: MOUNT_UNAVAILABLE until forge mount is wired; copy: the agent's edits, additions and deletions come back as pending changes", async () => {
    const handle = await DISK_BACKEND.make({ files: { 'a.txt': 'a\n', 'gone.txt': 'x\n', '.env': 'SECRET=1\n' } });
    const session = await new SessionStore(await handle.open()).create({ id: 'wd', base: 'main' });
    await expect(openWorkdir(session, { mode: 'mount' })).rejects.toMatchObject({ code: 'MOUNT_UNAVAILABLE', message: 'forge mount is not available in this build.' });
    const dir = join(mkdtempSync(join(tmpdir(), 'forge-wd-test-')), 'work');
    const workdir = await openWorkdir(session, { mode: 'copy', dir });
    // Denied paths are not materialized, as for run_command.
    expect(() => readFileSync(join(dir, '.env'))).toThrow();
    writeFileSync(join(dir, 'a.txt'), 'A\n');
    writeFileSync(join(dir, 'new.txt'), 'n\n');
    rmSync(join(dir, 'gone.txt'));
    const synced = await workdir.sync(session);
    expect(synced.changes).toEqual({ added: ['new.txt'], modified: ['a.txt'], deleted: ['gone.txt'] });
    expect((await session.vfs.diff()).map((c) => `${c.kind} ${c.path}`).sort()).toEqual(['added new.txt', 'deleted gone.txt', 'modified a.txt']);
    // A second sync finds nothing new: the directory now matches the view.
    expect((await workdir.sync(session)).changes).toEqual({ added: [], modified: [], deleted: [] });
    await session.commitTurn();
    handle.fsck();
  });
});
