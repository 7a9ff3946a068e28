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

describe('issue 23 §4: damaged data in the repository is not a Forge bug (exit 7, not 1)', () => {
  it('a session state file that does not parse is SESSION_STATE_INVALID, kind corrupt, exit 7', () => {
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
    expect(run.status).toBe(7);
    expectFsckClean(repo.gitdir);
  });

  it('a loose object that does not inflate is OBJECT_CORRUPT, kind corrupt, exit 7 (git fsck agrees it is damaged)', () => {
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
    expect(run.status).toBe(7);
    expect(fsckReport(repo.gitdir).problems.join('\n')).toContain(blob);
  });
});

/** The loose file of an object, as `git prune` would remove it. */
function removeLoose(gitdir: string, oid: string): void {
  nodeFs.rmSync(`${gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`);
}

const blobOf = (dir: string, content: string) => git(dir, ['hash-object', '--stdin'], { input: content }).stdout.trim();

describe('issue 23 §4: git prune --expire=now beside a live session', () => {
  it('a prune just before the branch is locked removes the new commit, its trees and the session file: all are on disk again when the ref moves', async () => {
    const repo = makeRepo({ files: { 'src/a.txt': 'a\n', 'b.txt': 'b\n' } });
    const id = 'pruned';
    const ref = `${repo.gitdir}/refs/heads/forge/session/${id}`;
    const atMove: string[][] = [];
    let prunes = 0;
    const fs = {
      ...nodeFs,
      writeFileSync: ((path, data, options) => {
        // The lock's exclusive creation: everything the commit needs is written, no ref reaches it yet.
        if (String(path) === `${ref}.lock` && typeof options === 'object' && options?.flag === 'wx') {
          git(repo.dir, ['prune', '--expire=now']);
          prunes++;
        }
        nodeFs.writeFileSync(path, data, options);
      }) as WriteFileSync,
      renameSync: (from: nodeFs.PathLike, to: nodeFs.PathLike) => {
        nodeFs.renameSync(from, to);
        // The instant the branch names the new commit: nothing it reaches may be missing.
        if (String(to) === ref) atMove.push(fsckReport(repo.gitdir).problems);
      },
    } as unknown as GitFs;
    const { session, runner } = await openSession(repo.dir, fs, id);
    expect((await runner.call({ tool: 'read_file', args: { path: 'src/a.txt' } })).ok).toBe(true);
    expect((await runner.call({ tool: 'write_file', args: { path: 'src/a.txt', content: 'a, edited\n' } })).ok).toBe(true);
    expect((await runner.call({ tool: 'write_file', args: { path: 'src/new/c.txt', content: 'c\n' } })).ok).toBe(true);
    await runner.session.recordUserMessage('prune me');
    const turn = await session.commitTurn();
    expect(prunes).toBeGreaterThan(0);
    expect(atMove.length).toBeGreaterThan(0);
    expect(atMove.flat()).toEqual([]);
    expect(git(repo.dir, ['show', `${turn.commit}:src/new/c.txt`]).stdout).toBe('c\n');
    expect(git(repo.dir, ['cat-file', '-e', `${turn.commit}:.forge/sessions/${id}.json`]).status).toBe(0);
    expectFsckClean(repo.gitdir);
  });

  it('a pending blob pruned between calls is written again from what the process holds: the commit is complete', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const { session, runner } = await openSession(repo.dir, nodeFs as unknown as GitFs, 'held');
    expect((await runner.call({ tool: 'read_file', args: { path: 'a.txt' } })).ok).toBe(true);
    expect((await runner.call({ tool: 'write_file', args: { path: 'a.txt', content: 'pruned between calls\n' } })).ok).toBe(true);
    expect((await runner.call({ tool: 'write_file', args: { path: 'kept.txt', content: 'kept\n' } })).ok).toBe(true);
    removeLoose(repo.gitdir, blobOf(repo.dir, 'pruned between calls\n'));
    git(repo.dir, ['prune', '--expire=now']);
    const turn = await session.commitTurn();
    expect(git(repo.dir, ['show', `${turn.commit}:a.txt`]).stdout).toBe('pruned between calls\n');
    expect(git(repo.dir, ['show', `${turn.commit}:kept.txt`]).stdout).toBe('kept\n');
    expectFsckClean(repo.gitdir);
  });

  it('a pending blob whose content is gone is dropped when the session is opened, naming it; the pin stops naming it (git gc works) and the commit publishes the rest', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const id = 'lost';
    const first = await openSession(repo.dir, nodeFs as unknown as GitFs, id);
    expect((await first.runner.call({ tool: 'read_file', args: { path: 'a.txt' } })).ok).toBe(true);
    expect((await first.runner.call({ tool: 'write_file', args: { path: 'a.txt', content: 'gone for good\n' } })).ok).toBe(true);
    expect((await first.runner.call({ tool: 'write_file', args: { path: 'kept.txt', content: 'kept\n' } })).ok).toBe(true);
    expect((await first.runner.call({ tool: 'write_file', args: { path: 'dir/also-gone.txt', content: 'also gone\n' } })).ok).toBe(true);
    await first.session.close();
    // Pruned while no process held the bytes (the pin's own tree went too): the user's gc now fails on the pin.
    for (const content of ['gone for good\n', 'also gone\n']) removeLoose(repo.gitdir, blobOf(repo.dir, content));
    removeLoose(repo.gitdir, git(repo.dir, ['rev-parse', `refs/forge/pending/${id}`]).stdout.trim());
    expect(git(repo.dir, ['gc', '-q'], { allowFail: true }).status).not.toBe(0);

    const { session } = await openSession(repo.dir, nodeFs as unknown as GitFs, id);
    expect([...session.droppedOnOpen!].sort()).toEqual(['a.txt', 'dir/also-gone.txt']);
    expect(session.recoveryNotes().join('\n')).toMatch(/2 pending file\(s\) were dropped when the session was opened: .*a\.txt/);
    // Recovered: the pin names nothing missing, so git's own gc works again.
    expect(git(repo.dir, ['gc', '-q', '--prune=now'], { allowFail: true }).stderr).toBe('');
    expectFsckClean(repo.gitdir);

    const turn = await session.commitTurn();
    expect(turn.changes.map((c) => c.path)).toEqual(['kept.txt']);
    expect(git(repo.dir, ['show', `${turn.commit}:a.txt`]).stdout).toBe('a\n');
    expect(git(repo.dir, ['log', '-1', '--format=%B', turn.commit]).stdout).toContain('2 pending file(s) were dropped when the session was opened');
    expectFsckClean(repo.gitdir);
  });
});

describe('issue 23 §4: a pending blob pruned while the session is open', () => {
  it('one whose content this process does not hold is OBJECTS_MISSING at the commit, naming it; dropped there, and the next commit publishes the rest', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const id = 'lost-open';
    const first = await openSession(repo.dir, nodeFs as unknown as GitFs, id);
    expect((await first.runner.call({ tool: 'write_file', args: { path: 'gone.txt', content: 'gone while open\n' } })).ok).toBe(true);
    expect((await first.runner.call({ tool: 'write_file', args: { path: 'kept.txt', content: 'kept\n' } })).ok).toBe(true);
    await first.session.close();
    // Opened by a process that never held the blob's bytes; pruned after the open found it there.
    const { session } = await openSession(repo.dir, nodeFs as unknown as GitFs, id);
    expect(session.droppedOnOpen).toBeUndefined();
    removeLoose(repo.gitdir, blobOf(repo.dir, 'gone while open\n'));
    const failed = await session.commitTurn().then(
      () => null,
      (error: unknown) => error,
    );
    expect(isForgeError(failed, 'OBJECTS_MISSING')).toBe(true);
    expect((failed as { data: { dropped: string[] } }).data.dropped).toEqual(['gone.txt']);
    expectFsckClean(repo.gitdir);
    const turn = await session.commitTurn();
    expect(turn.changes.map((c) => c.path)).toEqual(['kept.txt']);
    expect(git(repo.dir, ['log', '-1', '--format=%B', turn.commit]).stdout).toContain('1 pending file(s) were dropped before this commit');
    expectFsckClean(repo.gitdir);
  });
});

describe('issue 23 §4: a killed journal rewrite leaves a .tmp file', () => {
  const pendingDir = (gitdir: string) => `${gitdir}/forge/pending`;
  const plant = (gitdir: string, name: string, ageSeconds: number) => {
    const path = `${pendingDir(gitdir)}/${name}`;
    nodeFs.writeFileSync(path, '{"v":1,"base":"half-written');
    const at = Date.now() / 1000 - ageSeconds;
    nodeFs.utimesSync(path, at, at);
    return path;
  };

  it('opening the session for writing removes the stale ones no live writer can own; a fresh one, another session\'s and a reader\'s open leave theirs', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const first = await openSession(repo.dir, nodeFs as unknown as GitFs, 's');
    expect((await first.runner.call({ tool: 'write_file', args: { path: 'n.txt', content: 'n\n' } })).ok).toBe(true);
    await first.session.close();
    const stale = plant(repo.gitdir, 's.jsonl.view-killed.tmp', 3600);
    const fresh = plant(repo.gitdir, 's.jsonl.view-writing.tmp', 0);
    const other = plant(repo.gitdir, 'other.jsonl.view-killed.tmp', 3600);

    await new SessionStore(await Repository.open({ fs: nodeFs as unknown as GitFs, dir: repo.dir, platform: nodePlatform })).open('s', { readOnly: true });
    expect(nodeFs.existsSync(stale)).toBe(true);

    const { session } = await openSession(repo.dir, nodeFs as unknown as GitFs, 's');
    expect(nodeFs.existsSync(stale)).toBe(false);
    expect(nodeFs.existsSync(fresh)).toBe(true);
    expect(nodeFs.existsSync(other)).toBe(true);
    // The journal itself is untouched: the pending edit is still there.
    expect(await session.vfs.exists('n.txt')).toBe(true);
    nodeFs.rmSync(fresh);
    nodeFs.rmSync(other);
    await session.commitTurn();
    expectFsckClean(repo.gitdir);
  });

  it('while a live process holds the session, its temporary files are left alone', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const first = await openSession(repo.dir, nodeFs as unknown as GitFs, 'busy');
    expect((await first.runner.call({ tool: 'write_file', args: { path: 'n.txt', content: 'n\n' } })).ok).toBe(true);
    await first.session.close();
    // The lease of a live process of this host (this test's own pid, another process's token).
    nodeFs.writeFileSync(`${pendingDir(repo.gitdir)}/busy.lease`, JSON.stringify({ pid: process.pid, host: (await import('node:os')).hostname(), token: 'another-process', since: new Date().toISOString() }) + '\n');
    const held = plant(repo.gitdir, 'busy.jsonl.view-live.tmp', 3600);
    const repository = await Repository.open({ fs: nodeFs as unknown as GitFs, dir: repo.dir, platform: nodePlatform });
    await new SessionStore(repository).open('busy').catch((error: unknown) => expect(codeOf(error)).toBe('SESSION_BUSY'));
    expect(nodeFs.existsSync(held)).toBe(true);
    nodeFs.rmSync(held);
    nodeFs.rmSync(`${pendingDir(repo.gitdir)}/busy.lease`);
    expectFsckClean(repo.gitdir);
  });
});

describe('issue 23 §4: a published commit that a prune left incomplete', () => {
  it('the session file\'s blob of the branch head pruned after the move: opening goes back to the parent, the head\'s surviving edits pending again, the next turn commits a complete tree', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const id = 'torn';
    const first = await openSession(repo.dir, nodeFs as unknown as GitFs, id);
    expect((await first.runner.call({ tool: 'write_file', args: { path: 'kept.txt', content: 'kept across the prune\n' } })).ok).toBe(true);
    const parent = first.session.head;
    const turn = await first.session.commitTurn();
    await first.session.close();
    // What a prune that walked the refs before the move and deleted after it leaves: the commit
    // is published, its session file is gone.
    removeLoose(repo.gitdir, git(repo.dir, ['rev-parse', `${turn.commit}:.forge/sessions/${id}.json`]).stdout.trim());
    expect(fsckReport(repo.gitdir).problems).not.toEqual([]);

    const { session, runner } = await openSession(repo.dir, nodeFs as unknown as GitFs, id);
    expect(session.head).toBe(parent);
    expect(session.prunedHead).toEqual({ missing: turn.commit, restored: parent });
    expect(session.recoveryNotes().join('\n')).toContain('is back at');
    expect(new TextDecoder().decode(await session.vfs.readFile('kept.txt'))).toBe('kept across the prune\n');
    expect((await runner.call({ tool: 'write_file', args: { path: 'more.txt', content: 'more\n' } })).ok).toBe(true);
    const next = await session.commitTurn();
    expect(git(repo.dir, ['show', `${next.commit}:kept.txt`]).stdout).toBe('kept across the prune\n');
    expect(git(repo.dir, ['rev-parse', `refs/heads/forge/session/${id}`]).stdout.trim()).toBe(next.commit);
    git(repo.dir, ['gc', '-q', '--prune=now']);
    expectFsckClean(repo.gitdir);
  });
});
