/**
 * Merging session branches (memfs): up-to-date, fast-forward, --no-ff, dry-run, merge commits,
 * conflicts (nothing written to the target), the conflict branch, session files, criss-cross
 * and unrelated histories, and the compare-and-swap of the target.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyMerge, mergeBranches, mergeSession, planMerge, resolveSessionSource, resolveTargetBranch } from '../../../src/branches';
import { isForgeError } from '../../../src/errors';
import { SessionStore, type Session } from '../../../src/session';
import { fixture, fsckFixtures, lines, type Fixture } from './build';

let clock = Date.parse('2024-06-01T10:00:00Z');
const now = () => new Date((clock += 1000));

async function setup(files: Record<string, string> = { 'a.txt': lines(10), 'b.txt': 'b\n' }) {
  const fx = await fixture(files);
  const store = new SessionStore(fx.repo, now);
  return { fx, store };
}

async function turn(session: Session, files: Record<string, string | null>, message?: string) {
  for (const [path, content] of Object.entries(files)) {
    if (content === null) await session.vfs.deleteFile(path);
    else await session.vfs.writeFile(path, new TextEncoder().encode(content));
  }
  return session.commitTurn(message !== undefined ? { message } : {});
}

const main = (fx: Fixture) => fx.repo.refs.resolve('refs/heads/main');

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'success',
    (e: unknown) => (isForgeError(e) ? e.code : `non-forge: ${String(e)}`),
  );
}


// Every commit and tree these tests write must pass git fsck --strict.
afterEach(fsckFixtures);

describe('mergeSession', () => {
  it('fast-forwards the target when it has not moved', async () => {
    const { fx, store } = await setup();
    const s = await store.create({ id: 's1', base: 'main' });
    const t = await turn(s, { 'a.txt': lines(10, { 1: 'one' }) });
    const result = await mergeSession(fx.repo, 's1', { into: 'main', dropSessionFiles: false, now });
    expect(result).toMatchObject({ status: 'fast-forward', commit: t.commit, tree: t.tree, dryRun: false });
    expect(await main(fx)).toBe(t.commit);
    await fx.engine.fsck();
  });

  it('is up to date when the target already contains the session', async () => {
    const { fx, store } = await setup();
    const s = await store.create({ id: 's1', base: 'main' });
    await turn(s, { 'a.txt': 'x\n' });
    await mergeSession(fx.repo, 's1', { into: 'main', now });
    const before = await main(fx);
    expect(await mergeSession(fx.repo, 's1', { into: 'main', now })).toMatchObject({ status: 'up-to-date' });
    expect(await main(fx)).toBe(before);
  });

  it('--no-ff records a merge commit with both parents even when a fast-forward is possible', async () => {
    const { fx, store } = await setup();
    const base = (await main(fx))!;
    const s = await store.create({ id: 's1', base: 'main' });
    const t = await turn(s, { 'b.txt': 'B\n' });
    const result = await mergeSession(fx.repo, 's1', { into: 'main', noFf: true, dropSessionFiles: false, now });
    expect(result.status).toBe('merged');
    const commit = await fx.repo.readCommit(result.commit!);
    expect(commit.parents).toEqual([base, t.commit]);
    expect(commit.tree).toBe(t.tree);
    expect(commit.message).toBe("Merge branch 'forge/session/s1' into main\n");
    expect(await main(fx)).toBe(result.commit);
  });

  it('merges two sessions into main: the second one by a three-way merge commit', async () => {
    const { fx, store } = await setup();
    const s1 = await store.create({ id: 's1', base: 'main' });
    const s2 = await store.create({ id: 's2', base: 'main' });
    await turn(s1, { 'a.txt': lines(10, { 2: 'from s1' }) });
    await turn(s2, { 'a.txt': lines(10, { 9: 'from s2' }), 'c.txt': 'c\n' });
    expect((await mergeSession(fx.repo, 's1', { into: 'main', dropSessionFiles: false, now })).status).toBe('fast-forward');
    const result = await mergeSession(fx.repo, 's2', { into: 'main', message: 'Bring in s2', dropSessionFiles: false, now });
    expect(result.status).toBe('merged');
    const files = await fx.files(result.commit!);
    expect(files['a.txt']).toBe(lines(10, { 2: 'from s1', 9: 'from s2' }));
    expect(files['c.txt']).toBe('c\n');
    // Kept on request: both sessions' state files.
    expect(Object.keys(files).filter((p) => p.startsWith('.forge/sessions/')).sort()).toEqual(['.forge/sessions/s1.json', '.forge/sessions/s2.json']);
    expect((await fx.repo.readCommit(result.commit!)).message).toBe('Bring in s2\n');
    await fx.engine.fsck();
  });

  it('by default leaves session files out of a branch that is not a session branch, and keeps them into a session branch', async () => {
    const { fx, store } = await setup();
    const s1 = await store.create({ id: 's1', base: 'main' });
    const t1 = await turn(s1, { 'a.txt': 'a\n' });
    const intoMain = await mergeSession(fx.repo, 's1', { into: 'main', now });
    expect(intoMain.status).toBe('merged');
    expect((await fx.repo.readCommit(intoMain.commit!)).parents[1]).toBe(t1.commit);
    expect(Object.keys(await fx.files(intoMain.commit!)).filter((p) => p.startsWith('.forge/'))).toEqual([]);
    // Into another session's branch: both sessions' files, as the record of each.
    const s2 = await store.create({ id: 's2', base: 'main' });
    await turn(s2, { 'b.txt': 'b\n' });
    const s3 = await store.create({ id: 's3', base: 'main' });
    await turn(s3, { 'c.txt': 'c\n' });
    const intoSession = await mergeSession(fx.repo, 's3', { into: 'forge/session/s2', now });
    expect(intoSession.status).toBe('merged');
    expect(Object.keys(await fx.files(intoSession.commit!)).filter((p) => p.startsWith('.forge/')).sort()).toEqual(['.forge/sessions/s2.json', '.forge/sessions/s3.json']);
    await fx.engine.fsck();
  });

  it('--drop-session-files leaves the session files out, the target keeping its own', async () => {
    const { fx, store } = await setup();
    const s1 = await store.create({ id: 's1', base: 'main' });
    await turn(s1, { 'a.txt': 'a\n' });
    const result = await mergeSession(fx.repo, 's1', { into: 'main', dropSessionFiles: true, now });
    // The fast-forward would bring the state file, so it becomes a merge commit.
    expect(result.status).toBe('merged');
    const files = await fx.files(result.commit!);
    expect(files['a.txt']).toBe('a\n');
    expect(Object.keys(files).some((p) => p.startsWith('.forge/'))).toBe(false);
  });

  it('--drop-session-files changes nothing for a branch without session files (still a fast-forward)', async () => {
    const { fx } = await setup();
    const next = await fx.commit((await main(fx))!, { 'b.txt': 'B\n' });
    await fx.branch('feature', next);
    const result = await mergeBranches(fx.repo, { ref: 'refs/heads/feature', label: 'feature', oid: next }, { into: 'main', dropSessionFiles: true, now });
    expect(result).toMatchObject({ status: 'fast-forward', commit: next });
  });

  it('--dry-run computes and writes the tree, reports it, and moves nothing', async () => {
    const { fx, store } = await setup();
    const s1 = await store.create({ id: 's1', base: 'main' });
    const s2 = await store.create({ id: 's2', base: 'main' });
    await turn(s1, { 'a.txt': lines(10, { 1: 'x' }) });
    await turn(s2, { 'b.txt': 'y\n' });
    await mergeSession(fx.repo, 's1', { into: 'main', now });
    const before = await main(fx);
    const dry = await mergeSession(fx.repo, 's2', { into: 'main', dryRun: true, now });
    expect(dry).toMatchObject({ status: 'merged', dryRun: true });
    expect(dry.commit).toBeUndefined();
    expect(await fx.repo.objects.has(dry.tree!)).toBe(true);
    expect(await main(fx)).toBe(before);
    const real = await mergeSession(fx.repo, 's2', { into: 'main', now });
    expect(real.tree).toBe(dry.tree);
  });

  it('on a conflict writes nothing to the target and reports the conflicts', async () => {
    const { fx, store } = await setup();
    const s1 = await store.create({ id: 's1', base: 'main' });
    const s2 = await store.create({ id: 's2', base: 'main' });
    await turn(s1, { 'a.txt': lines(10, { 5: 'one way' }) });
    await turn(s2, { 'a.txt': lines(10, { 5: 'other way' }) });
    await mergeSession(fx.repo, 's1', { into: 'main', now });
    const before = await main(fx);
    const result = await mergeSession(fx.repo, 's2', { into: 'main', now });
    expect(result.status).toBe('conflict');
    expect(result.conflicts).toMatchObject([{ path: 'a.txt', kind: 'content', hunks: [{ ours: { text: 'one way\n' }, theirs: { text: 'other way\n' } }] }]);
    expect(result.commit).toBeUndefined();
    expect(await main(fx)).toBe(before);
  });

  it('--conflict-branch writes the merge with conflict markers to a new branch, parents target and session', async () => {
    const { fx, store } = await setup();
    const s1 = await store.create({ id: 's1', base: 'main' });
    const s2 = await store.create({ id: 's2', base: 'main' });
    await turn(s1, { 'a.txt': lines(10, { 5: 'one way' }) });
    const t2 = await turn(s2, { 'a.txt': lines(10, { 5: 'other way' }) });
    await mergeSession(fx.repo, 's1', { into: 'main', now });
    const target = (await main(fx))!;
    const result = await mergeSession(fx.repo, 's2', { into: 'main', conflictBranch: 'resolve/s2', now });
    expect(result.conflictBranch?.ref).toBe('refs/heads/resolve/s2');
    expect(await fx.repo.refs.resolve('refs/heads/resolve/s2')).toBe(result.conflictBranch!.commit);
    const commit = await fx.repo.readCommit(result.conflictBranch!.commit);
    expect(commit.parents).toEqual([target, t2.commit]);
    expect((await fx.files(result.conflictBranch!.commit))['a.txt']).toBe(lines(10, { 5: '<<<<<<< main\none way\n=======\nother way\n>>>>>>> forge/session/s2' }));
    expect(await main(fx)).toBe(target);
    expect(await codeOf(mergeSession(fx.repo, 's2', { into: 'main', conflictBranch: 'resolve/s2', now }))).toBe('CONFLICT_BRANCH_EXISTS');
    await fx.engine.fsck();
  });

  it('moves the target by compare-and-swap: a target that moved meanwhile is REF_CAS_FAILED', async () => {
    const { fx, store } = await setup();
    const s1 = await store.create({ id: 's1', base: 'main' });
    const s2 = await store.create({ id: 's2', base: 'main' });
    await turn(s1, { 'a.txt': lines(10, { 1: 'x' }) });
    await turn(s2, { 'b.txt': 'y\n' });
    const plan = await planMerge(fx.repo, await resolveSessionSource(fx.repo, 's2'), await resolveTargetBranch(fx.repo, 'main'));
    await mergeSession(fx.repo, 's1', { into: 'main', now });
    const moved = await main(fx);
    expect(await codeOf(applyMerge(fx.repo, plan, { now }))).toBe('REF_CAS_FAILED');
    expect(await main(fx)).toBe(moved);
  });

  it('merges into the branch HEAD points at by default, and into other sessions', async () => {
    const { fx, store } = await setup();
    const s1 = await store.create({ id: 's1', base: 'main' });
    const s2 = await store.create({ id: 's2', base: 'main' });
    await turn(s1, { 'a.txt': lines(10, { 1: 'x' }) });
    const t2 = await turn(s2, { 'b.txt': 'y\n' });
    expect((await mergeSession(fx.repo, 's1', { now })).target.ref).toBe('refs/heads/main');
    const into = await mergeSession(fx.repo, 's2', { into: 'forge/session/s1', now });
    expect(into.status).toBe('merged');
    expect((await fx.repo.readCommit(into.commit!)).parents[1]).toBe(t2.commit);
  });

  it('refuses unrelated histories, criss-cross histories and targets that are not branches', async () => {
    const { fx, store } = await setup();
    const root = await fx.repo.writeCommit({ tree: await fx.repo.writeTree([]), parents: [], author: sig, committer: sig, message: 'orphan\n' });
    await fx.branch('orphan', root);
    await store.create({ id: 's1', base: 'main' });
    expect(await codeOf(mergeSession(fx.repo, 's1', { into: 'orphan', now }))).toBe('MERGE_NO_BASE');
    expect(await codeOf(mergeSession(fx.repo, 's1', { into: 'refs/tags/v1', now }))).toBe('MERGE_TARGET_INVALID');
    expect(await codeOf(mergeSession(fx.repo, 'nope', { into: 'main', now }))).toBe('SESSION_NOT_FOUND');

    // Criss-cross: two branches that each merged the other's first commit.
    const base = (await main(fx))!;
    const a1 = await fx.commit(base, { 'x.txt': 'a1\n' });
    const b1 = await fx.commit(base, { 'y.txt': 'b1\n' });
    const a2 = await fx.commit([a1, b1], { 'x.txt': 'a2\n' });
    const b2 = await fx.commit([b1, a1], { 'y.txt': 'b2\n' });
    await fx.branch('cc-a', a2);
    await fx.branch('forge/session/cc', b2);
    const error = await mergeSession(fx.repo, 'cc', { into: 'cc-a', now }).catch((e: unknown) => e);
    expect(isForgeError(error, 'MERGE_CRISS_CROSS')).toBe(true);
    expect((error as { data: { bases: string[] } }).data.bases.sort()).toEqual([a1, b1].sort());
  });
});

const sig = { name: 'T', email: 't@example.invalid', timestamp: 1_704_067_200, timezoneOffset: 0 };
