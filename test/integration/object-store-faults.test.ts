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
import { forge } from '../helpers/forge-cli';
import { expectFsckClean, fsckReport } from '../helpers/fsck';
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

describe('issue 23 §4: damaged data in the repository is not a Forge bug (exit 6, not 1)', () => {
  it('a session state file that does not parse is SESSION_STATE_INVALID, kind corrupt, exit 6', () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 's']).status).toBe(0);
    // A commit on the session branch (made with plain git) whose state file is not JSON.
    const env = { GIT_INDEX_FILE: `${repo.gitdir}/forge-test-index` };
    git(repo.dir, ['read-tree', 'forge/session/s'], { env });
    const blob = git(repo.dir, ['hash-object', '-w', '--stdin'], { input: '{"id": "s", "turn": ' }).stdout.trim();
    git(repo.dir, ['update-index', '--cacheinfo', `100644,${blob},.forge/sessions/s.json`], { env });
    const tree = git(repo.dir, ['write-tree'], { env }).stdout.trim();
    const commit = git(repo.dir, ['commit-tree', tree, '-p', 'forge/session/s', '-m', 'damaged'], {}).stdout.trim();
    git(repo.dir, ['update-ref', 'refs/heads/forge/session/s', commit]);
    nodeFs.rmSync(env.GIT_INDEX_FILE);

    const run = forge(['turn', '--repo', repo.dir, '--session', 's', '--calls', '-', '--json'], { input: '[]' });
    expect(run.stderr).toContain('SESSION_STATE_INVALID');
    expect(JSON.parse(run.stdout).error.kind).toBe('corrupt');
    expect(run.status).toBe(6);
    expectFsckClean(repo.gitdir);
  });

  it('a loose object that does not inflate is OBJECT_CORRUPT, kind corrupt, exit 6 (git fsck agrees it is damaged)', () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const blob = git(repo.dir, ['hash-object', '-w', '--stdin'], { input: 'soon damaged\n' }).stdout.trim();
    const tree = git(repo.dir, ['mktree'], { input: `100644 blob ${blob}\td.txt\n` }).stdout.trim();
    const commit = git(repo.dir, ['commit-tree', tree, '-m', 'holds a damaged blob']).stdout.trim();
    git(repo.dir, ['update-ref', 'refs/heads/damaged', commit]);
    const path = `${repo.gitdir}/objects/${blob.slice(0, 2)}/${blob.slice(2)}`;
    nodeFs.chmodSync(path, 0o644);
    nodeFs.writeFileSync(path, 'not zlib at all');

    const run = forge(['cat', 'd.txt', '--rev', 'damaged', '--repo', repo.dir, '--json']);
    expect(run.stderr).toContain('OBJECT_CORRUPT');
    expect(JSON.parse(run.stdout).error.kind).toBe('corrupt');
    expect(run.status).toBe(6);
    expect(fsckReport(repo.gitdir).problems.join('\n')).toContain(blob);
  });
});
