/**
 * Issue 30: a batch (`forge turn`, Session.pinPerBatch) holds its journal records and appends
 * them in one write per pin, checks the lease at its first call, each pin and the commit, and a
 * pin in its middle that fails (a full disk) fails neither the call that reached it nor the calls
 * before; a call whose record fails is rolled back alone. Nothing of a batch is acknowledged
 * before its commit, so a kill before a pin loses only unacknowledged calls
 * (batch-pin-faults.test.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionToolRunner } from '../../src/agent/tool-calls';
import { Repository, type GitFs } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { SessionStore } from '../../src/session';
import { allowAll } from '../../src/tools';
import { forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeRepo, type RepoHandle } from '../helpers/repos';

const journalRecords = (repo: RepoHandle, id: string): number | null => {
  const file = join(repo.gitdir, 'forge', 'pending', `${id}.jsonl`);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length - 1 : null;
};
const looseObjects = (repo: RepoHandle) => readdirSync(join(repo.gitdir, 'objects')).filter((d) => /^[0-9a-f]{2}$/.test(d)).flatMap((d) => readdirSync(join(repo.gitdir, 'objects', d)).map((n) => d + n)).sort();
const lsTree = (repo: RepoHandle, rev: string) => git(repo.dir, ['ls-tree', '-r', '--name-only', rev]).stdout.split('\n').filter(Boolean);

async function batchSession(repo: RepoHandle, id: string, fs: GitFs = nodeFs as unknown as GitFs) {
  const r = await Repository.open({ fs, dir: repo.dir, platform: nodePlatform });
  const session = await new SessionStore(r).create({ id });
  session.pinPerBatch();
  return { session, runner: new SessionToolRunner(session, { approval: allowAll }) };
}

describe('issue 30: a batch journals once per pin', () => {
  it('holds its records until a pin (none on disk after its calls); a call whose record fails is rolled back alone; the commit holds the others', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const { session, runner } = await batchSession(repo, 'held');
    for (let k = 0; k < 5; k++) expect((await runner.call({ tool: 'write_file', args: { path: `f${k}.txt`, content: `${k}\n` } })).ok).toBe(true);
    expect(journalRecords(repo, 'held') ?? 0).toBe(0);
    // What the journal holds, as the session reads it back, includes the held records.
    expect([...(await session.vfs.loadJournal())!.changes.keys()].sort()).toEqual(['f0.txt', 'f1.txt', 'f2.txt', 'f3.txt', 'f4.txt']);
    // The journal refuses the sixth call's record: that call alone is rolled back.
    const journalState = session.vfs.journalState.bind(session.vfs);
    session.vfs.journalState = async () => {
      throw new Error('simulated: the record could not be journaled');
    };
    await expect(runner.call({ tool: 'write_file', args: { path: 'f5.txt', content: '5\n' } })).rejects.toThrow('simulated');
    session.vfs.journalState = journalState;
    expect([...session.vfs.pendingSet.keys()].sort()).toEqual(['f0.txt', 'f1.txt', 'f2.txt', 'f3.txt', 'f4.txt']);
    expect(session.state.toolCalls.map((c) => (c.args as { path: string }).path)).toEqual(['f0.txt', 'f1.txt', 'f2.txt', 'f3.txt', 'f4.txt']);
    const turn = await session.commitTurn();
    const files = lsTree(repo, turn.commit);
    for (let k = 0; k < 5; k++) expect(files).toContain(`f${k}.txt`);
    expect(files).not.toContain('f5.txt');
    expectFsckClean(repo.gitdir);
  });

  it('a pin in the middle of the batch that fails (a full disk) fails no call; the commit pins and publishes them all', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    let full = true;
    const refuse = (path: unknown) => {
      if (full && typeof path === 'string' && /tmp_pack_|refs\/forge\/pending\//.test(path)) throw Object.assign(new Error(`ENOSPC: simulated, open '${path}'`), { code: 'ENOSPC' });
    };
    const fs = {
      ...nodeFs,
      writeFileSync: (path: string, ...rest: unknown[]) => (refuse(path), (nodeFs.writeFileSync as (...a: unknown[]) => void)(path, ...rest)),
      promises: { ...nodeFs.promises, writeFile: (path: string, ...rest: unknown[]) => (refuse(path), (nodeFs.promises.writeFile as (...a: unknown[]) => Promise<void>)(path, ...rest)) },
    } as unknown as GitFs;
    const { session, runner } = await batchSession(repo, 'full', fs);
    // Nine files of ~1 MB (each under the size that is written at once): the pin at 8 MiB fails.
    const big = (k: number) => `${k}`.padEnd(1_000_000, '.');
    for (let k = 0; k < 9; k++) {
      const result = await runner.call({ tool: 'write_file', args: { path: `big/${k}.txt`, content: big(k) } });
      expect(result.ok, JSON.stringify(result).slice(0, 300)).toBe(true);
    }
    expect(git(repo.dir, ['rev-parse', '--verify', '--quiet', 'refs/forge/pending/full'], { allowFail: true }).stdout).toBe('');
    expect(session.vfs.pendingSet.size).toBe(9);
    full = false;
    const turn = await session.commitTurn();
    for (let k = 0; k < 9; k++) expect(git(repo.dir, ['cat-file', '-s', `${turn.commit}:big/${k}.txt`]).stdout.trim()).toBe('1000000');
    expectFsckClean(repo.gitdir);
  });

  it('the commit writes the batch as ONE pack: its blobs, the turn\'s trees, state and commit, and the pin\'s one root (it holds the turn\'s tree, not a fan-out tree of blobs); no loose object', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    git(repo.dir, ['repack', '-adq']);
    const { session, runner } = await batchSession(repo, 'pack');
    const base = session.head;
    const packsBefore = readdirSync(join(repo.gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.pack'));
    const looseBefore = looseObjects(repo);
    for (let k = 0; k < 150; k++) expect((await runner.call({ tool: 'write_file', args: { path: `d${k % 7}/f${k}.txt`, content: `file ${k}\n` } })).ok).toBe(true);
    const turn = await session.commitTurn();
    const added = readdirSync(join(repo.gitdir, 'objects', 'pack')).filter((f) => f.endsWith('.pack') && !packsBefore.includes(f));
    expect(added).toHaveLength(1);
    expect(looseObjects(repo)).toEqual(looseBefore);
    const inPack = git(repo.dir, ['verify-pack', '-v', join(repo.gitdir, 'objects', 'pack', added[0]!)]).stdout.split('\n').filter((l) => / (blob|tree|commit) /.test(l)).length;
    const reachable = git(repo.dir, ['rev-list', '--objects', turn.commit, '--not', base]).stdout.split('\n').filter(Boolean).length;
    expect(inPack).toBe(reachable + 1);
    expect(git(repo.dir, ['for-each-ref', 'refs/forge/pending/']).stdout).toBe('');
    expectFsckClean(repo.gitdir);
  });

  it('a session discarded by another process in the middle of a batch: the commit fails with PENDING_DISCARDED and publishes none of it', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const { session, runner } = await batchSession(repo, 'gone');
    expect((await runner.call({ tool: 'write_file', args: { path: 'before.txt', content: 'before\n' } })).ok).toBe(true);
    expect(forge(['session', 'discard', 'gone', '--force', '--repo', repo.dir]).status).toBe(0);
    // The lease is checked at the pins and the commit, not per call.
    expect((await runner.call({ tool: 'write_file', args: { path: 'after.txt', content: 'after\n' } })).ok).toBe(true);
    const head = git(repo.dir, ['rev-parse', 'forge/session/gone']).stdout.trim();
    await expect(session.commitTurn()).rejects.toMatchObject({ code: 'PENDING_DISCARDED' });
    expect(git(repo.dir, ['rev-parse', 'forge/session/gone']).stdout.trim()).toBe(head);
    expect(journalRecords(repo, 'gone')).toBe(null);
    expect(session.vfs.pendingSet.size).toBe(0);
    expectFsckClean(repo.gitdir);
  });
});
