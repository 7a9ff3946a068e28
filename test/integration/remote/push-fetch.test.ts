/**
 * Sessions through a real git server (git http-backend behind a CGI adapter on 127.0.0.1, basic
 * auth for push): push, fetch on another machine, continue there, push back, fetch on the first,
 * merge; refusals (non-fast-forward, lost lease, wrong credentials) that leave both sides as
 * they were; the server going away mid-push. What landed is read back with the git CLI.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Repository, type GitFs } from '../../../src/git';
import { nodePlatform } from '../../../src/git/node/platform';
import { SessionStore } from '../../../src/session';
import { expectFsckClean } from '../../helpers/fsck';
import { git } from '../../helpers/git-cli';
import { forgeAsync, forgeOk, rev, startWorld, USERS, writeScript, type World } from './remote-harness';

let world: World;

beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.server.close();
});

const turn = (n: number, path = `notes/${n}.md`) => ({ user: `turn ${n}`, path, content: `note ${n}\n` });

async function runTurns(repo: string, id: string, turns: ReturnType<typeof turn>[], extra: string[] = []) {
  const script = writeScript(repo, id, turns);
  const existing = rev(repo, `refs/heads/forge/session/${id}`) !== null;
  return forgeOk(['run', '--repo', repo, '--script', script, '--approve', 'all', ...(existing ? ['--session', id] : ['--id', id]), ...extra]);
}

describe('push, fetch, continue elsewhere, push back, merge', { timeout: 300_000 }, () => {
  it('carries a session between two machines through the server, readable with plain git there', async () => {
    const a = world.clone('a');
    await runTurns(a, 's1', [turn(1), turn(2)]);
    const aHead = rev(a, 'forge/session/s1')!;
    const pushed = JSON.parse((await forgeOk(['push', '--repo', a, 's1', '--json'])).stdout);
    expect(pushed.sessions).toEqual([{ session: 's1', ref: 'refs/heads/forge/session/s1', status: 'created', before: null, after: aHead }]);
    // Only the session's new objects travelled: 3 commits (turns 0-2), their trees and blobs, not main's.
    expect(pushed.objects).toBeLessThan(20);
    expect(rev(world.serverRepo, 'refs/heads/forge/session/s1')).toBe(aHead);
    expect(rev(a, 'refs/remotes/origin/forge/session/s1')).toBe(aHead);
    expect(git(world.serverRepo, ['log', '--format=%s', 'forge/session/s1']).stdout).toContain('turn 2');
    expect(git(world.serverRepo, ['show', 'forge/session/s1:notes/2.md']).stdout).toBe('note 2\n');
    expect(JSON.parse(git(world.serverRepo, ['show', 'forge/session/s1:.forge/sessions/s1.json']).stdout)).toMatchObject({ id: 's1', turn: 2 });
    expectFsckClean(world.serverRepo);

    const b = world.clone('b');
    const fetched = JSON.parse((await forgeOk(['fetch', '--repo', b, '--json'])).stdout);
    expect(fetched.sessions).toMatchObject([{ session: 's1', status: 'new', after: aHead }]);
    expect(rev(b, 'refs/remotes/origin/forge/session/s1')).toBe(aHead);
    expect(JSON.parse((await forgeOk(['session', 'list', '--repo', b, '--json'])).stdout).remote).toMatchObject([{ remote: 'origin', session: 's1', state: 'remote-only' }]);
    expectFsckClean(join(b, '.git'));

    const pulled = JSON.parse((await forgeOk(['session', 'pull', 's1', '--repo', b, '--json'])).stdout);
    expect(pulled).toMatchObject({ status: 'created', after: aHead });
    await runTurns(b, 's1', [turn(1), turn(2), turn(3)]);
    const bHead = rev(b, 'forge/session/s1')!;
    expect(git(b, ['rev-list', '--count', `${aHead}..${bHead}`]).stdout.trim()).toBe('1');
    const back = JSON.parse((await forgeOk(['push', '--repo', b, 's1', '--json'])).stdout);
    expect(back.sessions[0]).toMatchObject({ status: 'fast-forward', before: aHead, after: bHead });

    await forgeOk(['fetch', '--repo', a]);
    expect(rev(a, 'refs/remotes/origin/forge/session/s1')).toBe(bHead);
    const list = JSON.parse((await forgeOk(['session', 'list', '--repo', a, '--json'])).stdout);
    expect(list.remote).toMatchObject([{ session: 's1', state: 'behind', behind: 1, ahead: 0 }]);
    const text = (await forgeOk(['session', 'list', '--repo', a])).stdout;
    expect(text).toContain('origin/s1');
    expect(text).toContain('local behind by 1');
    await forgeOk(['session', 'pull', 's1', '--repo', a]);
    expect(rev(a, 'forge/session/s1')).toBe(bHead);
    expectFsckClean(join(a, '.git'));

    // Merge on the server's repository, and of the fetched session on a machine.
    const c = world.clone('c', { bare: true });
    await forgeOk(['fetch', '--repo', c]);
    const expected = git(world.serverRepo, ['merge-tree', '--write-tree', 'main', 'forge/session/s1']).stdout.split('\n')[0];
    await forgeOk(['merge', 's1', '--into', 'main', '--keep-session-files', '--repo', world.serverRepo]);
    expect(rev(world.serverRepo, 'main^{tree}')).toBe(expected);
    expect(git(world.serverRepo, ['show', 'main:notes/3.md']).stdout).toBe('note 3\n');
    expectFsckClean(world.serverRepo);
    const merged = JSON.parse((await forgeOk(['merge', 'origin/s1', '--into', 'main', '--keep-session-files', '--repo', c, '--json'])).stdout);
    expect(merged.status).toMatch(/fast-forward|merged/);
    expect(rev(c, 'main^{tree}')).toBe(rev(world.serverRepo, 'forge/session/s1^{tree}'));
    expectFsckClean(c);
  });
});

describe('refusals leave both sides as they were', { timeout: 300_000 }, () => {
  async function diverged() {
    const a = world.clone('a');
    await runTurns(a, 's1', [turn(1)]);
    await forgeOk(['push', '--repo', a, 's1']);
    const b = world.clone('b');
    await forgeOk(['session', 'pull', 's1', '--repo', b]);
    await runTurns(b, 's1', [turn(1), turn(2, 'from-b.md')]);
    await forgeOk(['push', '--repo', b, 's1']);
    await runTurns(a, 's1', [turn(1), turn(2, 'from-a.md')]);
    return { a, b, base: rev(a, 'refs/remotes/origin/forge/session/s1')!, aHead: rev(a, 'forge/session/s1')!, bHead: rev(b, 'forge/session/s1')! };
  }

  it('refuses a push that is not a fast-forward, and a pull over local turns', async () => {
    const { a, base, aHead, bHead } = await diverged();
    const refused = await forgeAsync(['push', '--repo', a, 's1']);
    expect(refused.status).toBe(3);
    expect(refused.stderr).toContain('REMOTE_REJECTED');
    expect(refused.stderr).toContain('non-fast-forward');
    expect(refused.stderr).not.toContain(USERS.alice);
    expect(rev(world.serverRepo, 'forge/session/s1')).toBe(bHead);
    expect(rev(a, 'forge/session/s1')).toBe(aHead);
    expect(rev(a, 'refs/remotes/origin/forge/session/s1')).toBe(base);

    await forgeOk(['fetch', '--repo', a]);
    const list = JSON.parse((await forgeOk(['session', 'list', '--repo', a, '--json'])).stdout);
    expect(list.remote).toMatchObject([{ session: 's1', state: 'diverged', ahead: 1, behind: 1 }]);
    const pull = await forgeAsync(['session', 'pull', 's1', '--repo', a]);
    expect(pull.status).toBe(3);
    expect(pull.stderr).toContain('PULL_NOT_FAST_FORWARD');
    expect(pull.stderr).toContain(`forge resume --from ${bHead}`);
    expect(rev(a, 'forge/session/s1')).toBe(aHead);
    // The advice works: the remote turns continue in a new session.
    await forgeOk(['resume', '--from', bHead, '--id', 's1-b', '--repo', a]);
    expect(git(a, ['show', 'forge/session/s1-b:from-b.md']).stdout).toBe('note 2\n');
    expectFsckClean(world.serverRepo);
    expectFsckClean(join(a, '.git'));
  });

  it('refuses a pull while the local session has pending changes', async () => {
    const a = world.clone('a');
    await runTurns(a, 's1', [turn(1)]);
    await forgeOk(['push', '--repo', a, 's1']);
    const b = world.clone('b');
    await forgeOk(['session', 'pull', 's1', '--repo', b]);
    await runTurns(b, 's1', [turn(1), turn(2)]);
    await forgeOk(['push', '--repo', b, 's1']);
    // A pending edit on a, not committed: it must not be stranded on a moved base.
    const repo = await Repository.open({ fs: fs as unknown as GitFs, dir: a, platform: nodePlatform });
    await (await new SessionStore(repo).open('s1')).vfs.writeFile('pending.txt', new TextEncoder().encode('not committed\n'));
    repo.close();
    const before = rev(a, 'forge/session/s1');
    const pending = await forgeAsync(['session', 'pull', 's1', '--repo', a]);
    expect(pending.status).toBe(3);
    expect(pending.stderr).toContain('PULL_NOT_FAST_FORWARD');
    expect(pending.stderr).toContain('pending');
    expect(rev(a, 'forge/session/s1')).toBe(before);
  });

  it('--force-with-lease loses to a push it has not fetched, and to one racing it', async () => {
    const { a, base, aHead, bHead } = await diverged();
    const lost = await forgeAsync(['push', '--repo', a, 's1', '--force-with-lease']);
    expect(lost.status).toBe(3);
    expect(lost.stderr).toContain('REMOTE_LEASE_LOST');
    expect(rev(world.serverRepo, 'forge/session/s1')).toBe(bHead);
    expect(rev(a, 'refs/remotes/origin/forge/session/s1')).toBe(base);

    // Fetched now (the lease is bHead), but another push lands between our look and our update:
    // the server's own compare-and-swap refuses ours.
    await forgeOk(['fetch', '--repo', a]);
    const racer = world.clone('racer');
    git(racer, ['fetch', '-q', world.serverRepo, 'refs/heads/forge/session/s1:refs/heads/forge/session/s1']);
    git(racer, ['checkout', '-q', 'forge/session/s1']);
    git(racer, ['commit', '-q', '--allow-empty', '-m', 'racing push']);
    const racing = rev(racer, 'HEAD')!;
    world.server.beforeNextPush(() => git(racer, ['push', '-q', world.serverRepo, 'HEAD:refs/heads/forge/session/s1']));
    const raced = await forgeAsync(['push', '--repo', a, 's1', '--force-with-lease']);
    expect(raced.status).toBe(3);
    expect(raced.stderr).toContain('REMOTE_REJECTED');
    expect(rev(world.serverRepo, 'forge/session/s1')).toBe(racing);
    expect(rev(a, 'refs/remotes/origin/forge/session/s1')).toBe(bHead);
    expect(rev(a, 'forge/session/s1')).toBe(aHead);

    // With an up-to-date lease it overwrites.
    await forgeOk(['fetch', '--repo', a]);
    await forgeOk(['push', '--repo', a, 's1', '--force-with-lease']);
    expect(rev(world.serverRepo, 'forge/session/s1')).toBe(aHead);
    expectFsckClean(world.serverRepo);
  });

  it('wrong or missing credentials are a coded error naming the remote, never echoing the secret', async () => {
    const a = world.clone('a', { user: null });
    await runTurns(a, 's1', [turn(1)]);
    const none = await forgeAsync(['push', '--repo', a, 's1']);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('REMOTE_AUTH_FAILED');
    expect(none.stderr).toContain(`origin (${world.server.origin}/server.git)`);
    expect(none.stderr).toContain('FORGE_REMOTE_TOKEN');

    git(a, ['remote', 'set-url', 'origin', `http://alice:not-the-password@${world.server.origin.slice(7)}/server.git`]);
    const wrong = await forgeAsync(['push', '--repo', a, 's1', '--json']);
    expect(wrong.status).toBe(2);
    expect(JSON.parse(wrong.stdout).error.code).toBe('REMOTE_AUTH_FAILED');
    expect(wrong.stderr + wrong.stdout).not.toContain('not-the-password');
    expect(rev(world.serverRepo, 'forge/session/s1')).toBeNull();

    // A token from the environment, with the user name the server wants.
    git(a, ['remote', 'set-url', 'origin', `${world.server.origin}/server.git`]);
    await forgeOk(['push', '--repo', a, 's1'], { FORGE_REMOTE_TOKEN: USERS.alice, FORGE_REMOTE_USER: 'alice' });
    expect(rev(world.serverRepo, 'forge/session/s1')).toBe(rev(a, 'forge/session/s1'));
  });

  it('forge run --push with a remote that cannot take the push fails before any session or turn is made', async () => {
    const a = world.clone('a', { user: null });
    const script = writeScript(a, 'r', [turn(1)]);
    const run = (extra: string[], env: Record<string, string> = {}) => forgeAsync(['run', '--repo', a, '--script', script, '--approve', 'all', '--id', 'r', ...extra], env);
    const nowhere = await run(['--push', 'nowhere']);
    expect(nowhere.status).toBe(2);
    expect(nowhere.stderr).toContain('REMOTE_NOT_FOUND');
    const refused = await run(['--push'], { FORGE_REMOTE_TOKEN: 'wrong', FORGE_REMOTE_USER: 'alice' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('REMOTE_AUTH_FAILED');
    expect(rev(a, 'refs/heads/forge/session/r')).toBeNull();
    expect(rev(world.serverRepo, 'refs/heads/forge/session/r')).toBeNull();
  });

  it("asks git's credential helpers after a 401 (git credential fill), as git would", async () => {
    const a = world.clone('a', { user: null });
    await runTurns(a, 's1', [turn(1)]);
    const store = join(world.root, 'credentials');
    fs.writeFileSync(store, `http://alice:${encodeURIComponent(USERS.alice)}@${world.server.origin.slice('http://'.length)}\n`);
    const helper = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'credential.helper', GIT_CONFIG_VALUE_0: `store --file=${store}` };
    await forgeOk(['push', '--repo', a, 's1'], helper);
    expect(rev(world.serverRepo, 'forge/session/s1')).toBe(rev(a, 'forge/session/s1'));
    expect(world.server.requests.some((r) => r.status === 401)).toBe(true);
  });

  it('the server going away mid-push leaves both sides consistent, and a later push completes', async () => {
    const a = world.clone('a');
    await runTurns(a, 's1', [turn(1)]);
    await forgeOk(['push', '--repo', a, 's1']);
    const old = rev(a, 'forge/session/s1')!;
    await runTurns(a, 's1', [turn(1), { user: 'big', path: 'big.txt', content: 'x'.repeat(200_000) + Math.random() }]);
    const head = rev(a, 'forge/session/s1')!;

    world.server.killNextPush(300);
    const cut = await forgeAsync(['push', '--repo', a, 's1']);
    expect(cut.status).toBe(3);
    expect(cut.stderr).toContain('REMOTE_UNREACHABLE');
    expect(rev(world.serverRepo, 'forge/session/s1')).toBe(old);
    expect(rev(a, 'refs/remotes/origin/forge/session/s1')).toBe(old);
    expect(rev(a, 'forge/session/s1')).toBe(head);
    expectFsckClean(world.serverRepo);
    expectFsckClean(join(a, '.git'));

    await world.server.close();
    const gone = await forgeAsync(['push', '--repo', a, 's1']);
    expect(gone.status).toBe(3);
    expect(gone.stderr).toContain('REMOTE_UNREACHABLE');

    await world.restart();
    git(a, ['remote', 'set-url', 'origin', world.server.url('server.git', 'alice')]);
    await forgeOk(['push', '--repo', a, 's1']);
    expect(rev(world.serverRepo, 'forge/session/s1')).toBe(head);
    expect(git(world.serverRepo, ['cat-file', '-s', 'forge/session/s1:big.txt']).stdout.trim()).not.toBe('0');
    expectFsckClean(world.serverRepo);
  });
});
