/**
 * Rebasing sessions (memfs): every commit replayed with its message, trailers (plus Forge-Replays) and author, the
 * session state recording the new base, one compare-and-swap at the end; a conflict leaves the
 * branch as it was. (Against a `git cherry-pick` chain: test/integration/rebase-oracle.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rebaseSession } from '../../../src/branches';
import { isForgeError } from '../../../src/errors';
import { parseTrailers, readStateAt, SessionStore, type Session } from '../../../src/session';
import { fixture, fsckFixtures, lines } from './build';

let clock = Date.parse('2024-06-01T10:00:00Z');
const now = () => new Date((clock += 1000));

async function turn(session: Session, files: Record<string, string | null>, message?: string) {
  for (const [path, content] of Object.entries(files)) {
    if (content === null) await session.vfs.deleteFile(path);
    else await session.vfs.writeFile(path, new TextEncoder().encode(content));
  }
  return session.commitTurn(message !== undefined ? { message } : {});
}

async function setup() {
  const fx = await fixture({ 'a.txt': lines(10), 'b.txt': 'b\n' });
  return { fx, store: new SessionStore(fx.repo, now) };
}


// Every commit and tree these tests write must pass git fsck --strict.
afterEach(fsckFixtures);

describe('rebaseSession', () => {
  it('replays every commit of the session onto the new base and moves the branch once', async () => {
    const { fx, store } = await setup();
    const s = await store.create({ id: 's1', base: 'main' });
    const t1 = await turn(s, { 'a.txt': lines(10, { 2: 'session' }) }, 'First change');
    const t2 = await turn(s, { 'c.txt': 'c\n' }, 'Second change');
    const mainBefore = (await fx.repo.refs.resolve('refs/heads/main'))!;
    const upstream = await fx.commit(mainBefore, { 'a.txt': lines(10, { 9: 'upstream' }) }, 'Upstream work\n');
    await fx.branch('main', upstream);

    const result = await rebaseSession(fx.repo, 's1', { onto: 'main', now });
    expect(result.status).toBe('rebased');
    expect(result.replayed.map((r) => r.subject)).toEqual(['Start forge session s1', 'First change', 'Second change']);
    const head = (await fx.repo.refs.resolve('refs/heads/forge/session/s1'))!;
    expect(result.after).toBe(head);

    // The chain: start commit on top of main, then the two turns, same messages and authors.
    const c3 = await fx.repo.readCommit(head);
    const c2 = await fx.repo.readCommit(c3.parents[0]!);
    const c1 = await fx.repo.readCommit(c2.parents[0]!);
    expect(c1.parents).toEqual([upstream]);
    const original2 = await fx.repo.readCommit(t2.commit);
    // The same message, with a Forge-Replays trailer naming the commit replayed (forge blame follows it).
    expect(c3.message).toBe(`${original2.message}Forge-Replays: ${t2.commit}\n`);
    expect(c3.author).toEqual(original2.author);
    expect(parseTrailers(c3.message)).toEqual({ 'Forge-Session': 's1', 'Forge-Turn': '2', 'Forge-Replays': t2.commit });
    expect(parseTrailers(c2.message)['Forge-Turn']).toBe('1');
    expect(`${(await fx.repo.readCommit(t1.commit)).message}Forge-Replays: ${t1.commit}\n`).toBe(c2.message);

    const files = await fx.files(head);
    expect(files['a.txt']).toBe(lines(10, { 2: 'session', 9: 'upstream' }));
    expect(files['c.txt']).toBe('c\n');
    // Every replayed commit's state records the new base; the rest of the state is the turn's own.
    for (const oid of [head, c3.parents[0]!]) {
      const state = await readStateAt(fx.repo, oid, 's1');
      expect(state.base).toEqual({ ref: 'main', commit: upstream });
    }
    expect((await readStateAt(fx.repo, head, 's1')).turn).toBe(2);
    // The session continues from the new head.
    const reopened = await store.open('s1');
    expect(reopened.head).toBe(head);
    await turn(reopened, { 'd.txt': 'd\n' });
    await fx.engine.fsck();
  });

  it('stops at a conflicting commit, reports it, and leaves the branch as it was', async () => {
    const { fx, store } = await setup();
    const s = await store.create({ id: 's1', base: 'main' });
    await turn(s, { 'b.txt': 'fine\n' }, 'Fine');
    const clash = await turn(s, { 'a.txt': lines(10, { 5: 'session' }) }, 'Clash');
    const before = (await fx.repo.refs.resolve('refs/heads/forge/session/s1'))!;
    const upstream = await fx.commit((await fx.repo.refs.resolve('refs/heads/main'))!, { 'a.txt': lines(10, { 5: 'upstream' }) });
    await fx.branch('main', upstream);

    const result = await rebaseSession(fx.repo, 's1', { onto: 'main', now });
    expect(result.status).toBe('conflict');
    expect(result.stoppedAt).toMatchObject({ commit: clash.commit, subject: 'Clash', index: 2 });
    expect(result.conflicts).toMatchObject([{ path: 'a.txt', kind: 'content', hunks: [{ ours: { text: 'upstream\n' }, theirs: { text: 'session\n' } }] }]);
    expect(await fx.repo.refs.resolve('refs/heads/forge/session/s1')).toBe(before);
  });

  it('is up to date when the session already sits on the new base', async () => {
    const { fx, store } = await setup();
    const s = await store.create({ id: 's1', base: 'main' });
    const t = await turn(s, { 'a.txt': 'x\n' });
    expect(await rebaseSession(fx.repo, 's1', { onto: 'main', now })).toMatchObject({ status: 'up-to-date', before: t.commit, after: t.commit, replayed: [] });
  });

  it('records the new base in one commit when the new base already holds all the session', async () => {
    const { fx, store } = await setup();
    const s = await store.create({ id: 's1', base: 'main' });
    const t = await turn(s, { 'a.txt': 'x\n' });
    const ahead = await fx.commit(t.commit, { 'z.txt': 'z\n' });
    await fx.branch('main', ahead);
    const result = await rebaseSession(fx.repo, 's1', { onto: 'main', now });
    expect(result.status).toBe('rebased');
    const head = await fx.repo.readCommit(result.after);
    expect(head.parents).toEqual([ahead]);
    expect((await readStateAt(fx.repo, result.after, 's1')).base).toEqual({ ref: 'main', commit: ahead });
  });

  it('refuses while the session has pending changes, and across merge commits', async () => {
    const { fx, store } = await setup();
    const s = await store.create({ id: 's1', base: 'main' });
    await turn(s, { 'a.txt': 'x\n' });
    const upstream = await fx.commit((await fx.repo.refs.resolve('refs/heads/main'))!, { 'q.txt': 'q\n' });
    await fx.branch('main', upstream);
    await s.vfs.writeFile('pending.txt', new TextEncoder().encode('p\n'));
    const pending = await rebaseSession(fx.repo, 's1', { onto: 'main', now }).catch((e: unknown) => e);
    expect(isForgeError(pending, 'REBASE_PENDING_CHANGES')).toBe(true);
    await s.discardPending();

    const head = (await fx.repo.refs.resolve('refs/heads/forge/session/s1'))!;
    const merge = await fx.commit([head, upstream], { 'm.txt': 'm\n' }, 'Merge main\n');
    await fx.branch('forge/session/s1', merge);
    const other = await fx.commit(upstream, { 'r.txt': 'r\n' });
    await fx.branch('main', other);
    const refused = await rebaseSession(fx.repo, 's1', { onto: 'main', now }).catch((e: unknown) => e);
    expect(isForgeError(refused, 'REBASE_MERGE_COMMIT') ? 'REBASE_MERGE_COMMIT' : String(refused)).toBe('REBASE_MERGE_COMMIT');
  });
});
