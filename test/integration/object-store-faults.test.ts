/**
 * Issue 23, section 4 ("Found by the long fault run"): a full disk while a ref's `.lock` is
 * written, and `git prune --expire=now` between the calls of a live session. Each case injects
 * the fault deterministically into a real repository on disk (an fs adapter that fails one
 * write, or a prune run at a chosen moment) and judges the result with the git CLI.
 */
import * as nodeFs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SessionToolRunner } from '../../src/agent/tool-calls';
import { isForgeError } from '../../src/errors';
import { Repository, type GitFs } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { SessionStore } from '../../src/session';
import { allowAll } from '../../src/tools';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';

type WriteFileSync = (path: nodeFs.PathOrFileDescriptor, data: string | NodeJS.ArrayBufferView, options?: nodeFs.WriteFileOptions) => void;

/**
 * node's fs with writes of bytes to the files `full` selects failing as a full disk fails them:
 * the file is opened (created, exclusively if asked) and the write then fails with ENOSPC, so
 * the file stays behind, empty. Creating an empty file needs no data block and still succeeds.
 */
function diskFullFs(full: (path: string) => boolean): GitFs {
  const writeFileSync: WriteFileSync = (path, data, options) => {
    const bytes = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    if (bytes > 0 && full(String(path))) {
      nodeFs.writeFileSync(path, '', options);
      throw Object.assign(new Error(`ENOSPC: no space left on device, write '${String(path)}'`), { code: 'ENOSPC', errno: -28, syscall: 'write', path: String(path) });
    }
    nodeFs.writeFileSync(path, data, options);
  };
  const writeFile = async (path: string, data: string | Uint8Array, options?: nodeFs.WriteFileOptions) => writeFileSync(path, data, options);
  return { ...nodeFs, writeFileSync, promises: { ...nodeFs.promises, writeFile } } as unknown as GitFs;
}

async function openSession(dir: string, fs: GitFs, id: string) {
  const repo = await Repository.open({ fs, dir, platform: nodePlatform });
  const store = new SessionStore(repo);
  const session = (await store.open(id).catch(() => null)) ?? (await store.create({ id }));
  return { repo, session, runner: new SessionToolRunner(session, { approval: allowAll }) };
}

const codeOf = (error: unknown) => (isForgeError(error) ? error.code : String(error));

describe('issue 23 §4: a full disk while a ref\'s .lock is written', () => {
  it.each([
    ['the session branch', (id: string) => `refs/heads/forge/session/${id}.lock`, 'commit'],
    ['the pending pin', (id: string) => `refs/forge/pending/${id}.lock`, 'call'],
  ] as const)('ENOSPC on %s\'s lock leaves no lock behind: once space is freed the next turn commits (not REF_LOCKED)', async (_name, lockOf, failing) => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const id = 'full';
    const lock = `${repo.gitdir}/${lockOf(id)}`;
    let diskFull = false;
    const fs = diskFullFs((path) => diskFull && path === lock);
    const { session, runner } = await openSession(repo.dir, fs, id);
    expect((await runner.call({ tool: 'write_file', args: { path: 'kept.txt', content: 'kept\n' } })).ok).toBe(true);

    diskFull = true;
    const failed =
      failing === 'commit'
        ? await session.commitTurn().then(() => 'committed', codeOf)
        : await runner.call({ tool: 'write_file', args: { path: 'later.txt', content: 'later\n' } }).then((r) => (r.ok ? 'ok' : r.error.code), codeOf);
    expect(failed).toBe('DISK_FULL');
    expect(nodeFs.existsSync(lock)).toBe(false);

    // Space freed: the same session (and a new process) goes on.
    diskFull = false;
    if (failing === 'call') expect((await runner.call({ tool: 'write_file', args: { path: 'later.txt', content: 'later\n' } })).ok).toBe(true);
    const turn = await session.commitTurn();
    expect(git(repo.dir, ['rev-parse', `refs/heads/forge/session/${id}`]).stdout.trim()).toBe(turn.commit);
    expect(git(repo.dir, ['show', `forge/session/${id}:kept.txt`]).stdout).toBe('kept\n');
    const again = await openSession(repo.dir, fs, id);
    expect((await again.runner.call({ tool: 'write_file', args: { path: 'next.txt', content: 'n\n' } })).ok).toBe(true);
    await again.session.commitTurn();
    expectFsckClean(repo.gitdir);
  });
});
