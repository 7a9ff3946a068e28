/**
 * The inspector's HTTP API without a browser: the server of `src/inspect/node/server.ts` on a
 * real repository, read back with the git CLI. Inputs are zod-validated and refused with the
 * CLI's stable codes; no parameter reaches a file outside the repository; the Host and token
 * guards; the actions (undo, resume, discard, rebase, merge) report the commit they made and
 * move exactly what the CLI would.
 */
import { resolve } from 'node:path';
import * as fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeWorktreeSync } from '../../src/branches/node/worktree-sync';
import { Repository, type GitFs } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { startInspectServer, type InspectServer } from '../../src/inspect/node/server';
import { SessionStore } from '../../src/session';
import { expectFsckClean } from '../helpers/fsck';
import { forge } from '../helpers/forge-cli';
import { git } from '../helpers/git-cli';
import { loginToInspector, type InspectClient } from '../helpers/inspect-client';
import { makeRepo, type RepoHandle } from '../helpers/repos';

let repo: RepoHandle;
let server: InspectServer;
let client: InspectClient;

const rev = (ref: string) => git(repo.dir, ['rev-parse', ref]).stdout.trim();

function turn(id: string, files: Record<string, string>) {
  const calls = Object.entries(files).flatMap(([path, content]) => [
    { tool: 'read_file', args: { path } },
    { tool: 'write_file', args: { path, content } },
  ]);
  const run = forge(['turn', '--repo', repo.dir, '--session', id, '--calls', '-', '--json'], { input: JSON.stringify(calls) });
  expect(run.status, run.stderr).toBe(0);
  return run.json().commit as string;
}

const api = (path: string, init: RequestInit & { token?: boolean } = {}) => client.api(path, init);
/** A POST body with the heads the page shows (the session's, and the target's for a merge). */
const shown = (body: Record<string, unknown> = {}, target?: string) => JSON.stringify({ head: rev('forge/session/s1'), ...(target ? { targetHead: rev(target) } : {}), ...body });

beforeEach(async () => {
  repo = makeRepo({ files: { 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n' } });
  expect(forge(['session', 'new', '--repo', repo.dir, '--id', 's1', '--base', 'main']).status).toBe(0);
  turn('s1', { 'a.txt': 'one\nTWO\nthree\n' });
  const opened = await Repository.open({ fs: fs as unknown as GitFs, dir: repo.dir, platform: nodePlatform });
  // As `forge inspect` does: a checked-out target's index and files follow a merge.
  server = await startInspectServer({ repo: opened, assetsDir: resolve('dist/inspect'), worktree: nodeWorktreeSync() });
  client = await loginToInspector(server.url);
});

afterEach(async () => {
  await server.close();
});

describe('inspector API', () => {
  it('streams the sessions list as JSON lines with base, turns, head and pending changes', async () => {
    const res = await client.fetch('/api/sessions');
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const rows = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(rows).toEqual([expect.objectContaining({ id: 's1', turns: 1, head: rev('forge/session/s1'), base: { ref: 'main', commit: rev('main') }, pending: 0 })]);
  });

  it('refuses invalid input with INVALID_ARGUMENT and unknown things with their NOT_FOUND codes', async () => {
    expect(await api('/sessions/s1/merge', { method: 'POST', body: shown({ into: 'main', force: true }, 'main') })).toMatchObject({ status: 400, body: { error: { code: 'INVALID_ARGUMENT' } } });
    expect(await api('/sessions/s1/merge', { method: 'POST', body: shown({ into: '../../etc' }, 'main') })).toMatchObject({ status: 400, body: { error: { code: 'INVALID_ARGUMENT' } } });
    expect(await api('/sessions/..%2F..%2Fx/timeline')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_ARGUMENT' } } });
    expect(await api('/sessions/nope/timeline')).toMatchObject({ status: 404, body: { error: { code: 'SESSION_NOT_FOUND' } } });
    expect(await api('/commits/main/file?path=../../../etc/passwd')).toMatchObject({ status: 400, body: { error: { code: 'PATH_INVALID' } } });
    expect(await api('/commits/main/file?path=%2Fetc%2Fpasswd')).toMatchObject({ body: { error: { code: expect.stringMatching(/^PATH_(INVALID|NOT_FOUND)$/) } } });
    expect(await api('/commits/..%2F..%2Fconfig/tree')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_ARGUMENT' } } });
    expect(await api('/nothing')).toMatchObject({ status: 404, body: { error: { code: 'INSPECT_ROUTE_NOT_FOUND' } } });
    expect((await client.fetch('/app.js/../../package.json')).status).not.toBe(200);
  });

  it('refuses a state-changing request without the token, and moves nothing', async () => {
    const before = [rev('main'), rev('forge/session/s1')];
    expect(await api('/sessions/s1/merge', { method: 'POST', body: shown({}, 'main'), token: false })).toMatchObject({ status: 403, body: { error: { code: 'INSPECT_TOKEN_INVALID' } } });
    expect(await api('/sessions/s1/undo', { method: 'POST', body: shown(), token: false })).toMatchObject({ status: 403 });
    expect([rev('main'), rev('forge/session/s1')]).toEqual(before);
    // The page carries its token (to a holder of the access cookie only); it is not the printed secret.
    expect(await (await client.fetch('/')).text()).toContain(`content="${client.pageToken}"`);
    expect(client.pageToken).not.toBe(server.token);
  });

  it('undoes the last edit, resumes from a commit, and reports the commits it made', async () => {
    const turn1 = rev('forge/session/s1');
    const undo = await api('/sessions/s1/undo', { method: 'POST', body: shown() });
    expect(undo.status).toBe(200);
    expect(undo.body).toMatchObject({ session: 's1', turn: 2, reverted: 1, paths: ['a.txt'], commit: rev('forge/session/s1') });
    expect(git(repo.dir, ['show', 'forge/session/s1:a.txt']).stdout).toBe('one\ntwo\nthree\n');
    const resumed = await api('/resume', { method: 'POST', body: JSON.stringify({ from: turn1, id: 's2' }) });
    expect(resumed.body).toMatchObject({ id: 's2', branch: 'forge/session/s2', commit: rev('forge/session/s2') });
    expect(rev('forge/session/s2^')).toBe(turn1);
    expect(await api('/resume', { method: 'POST', body: JSON.stringify({ from: turn1, id: 's2' }) })).toMatchObject({ status: 409, body: { error: { code: 'SESSION_EXISTS' } } });
    expectFsckClean(repo.gitdir);
  });

  it('previews a merge without moving anything, then merges and reports the commit', async () => {
    const before = rev('main');
    const preview = await api('/sessions/s1/merge-preview?into=main');
    // Session files stay out of main by default (as with forge merge): a fast-forward becomes a merge commit.
    expect(preview.body).toMatchObject({ status: 'merged', dryRun: true });
    expect(rev('main')).toBe(before);
    const merged = await api('/sessions/s1/merge', { method: 'POST', body: shown({ into: 'main', noFf: true }, 'main') });
    expect(merged.body).toMatchObject({ status: 'merged', commit: rev('main') });
    expect(git(repo.dir, ['rev-parse', 'main^1', 'main^2']).stdout.trim().split('\n')).toEqual([before, rev('forge/session/s1')]);
    expect(git(repo.dir, ['status', '--porcelain']).stdout).toBe('');
    expectFsckClean(repo.gitdir);
  });

  it('rebases onto a moved branch and discards pending changes', async () => {
    git(repo.dir, ['commit', '-q', '--allow-empty', '-m', 'main moves']);
    const rebased = await api('/sessions/s1/rebase', { method: 'POST', body: shown({ onto: 'main' }) });
    expect(rebased.body).toMatchObject({ status: 'rebased', after: rev('forge/session/s1') });
    expect(rev('forge/session/s1~2')).toBe(rev('main'));
    // A pending (uncommitted) edit, as a tool call leaves it before the turn commits.
    const other = await Repository.open({ fs: fs as unknown as GitFs, dir: repo.dir, platform: nodePlatform });
    await (await new SessionStore(other).open('s1')).vfs.writeFile('b.txt', new TextEncoder().encode('pending\n'));
    other.close();
    const head = rev('forge/session/s1');
    expect((await api('/sessions/s1/timeline')).body.pending).toEqual(['b.txt']);
    expect(await api('/sessions/s1/discard', { method: 'POST', body: shown(), token: false })).toMatchObject({ status: 403 });
    expect((await api('/sessions/s1/timeline')).body.pending).toEqual(['b.txt']);
    const discard = await api('/sessions/s1/discard', { method: 'POST', body: shown({ pending: ['b.txt'] }) });
    expect(discard.body).toMatchObject({ session: 's1', discarded: ['b.txt'], commit: head });
    expect((await api('/sessions/s1/timeline')).body.pending).toEqual([]);
    expect(rev('forge/session/s1')).toBe(head);
    expect(git(repo.dir, ['show', 'forge/session/s1:b.txt']).stdout).toBe('b\n');
    expectFsckClean(repo.gitdir);
  });

  it('summarizes binary and very large files instead of sending them', async () => {
    const before = rev('main');
    fs.writeFileSync(`${repo.dir}/blob.bin`, Buffer.from([0x89, 0x50, 0x00, 0xff, 0x00, 0x01]));
    fs.writeFileSync(`${repo.dir}/huge.txt`, 'line of a very large file\n'.repeat(70_000));
    git(repo.dir, ['add', 'blob.bin', 'huge.txt']);
    git(repo.dir, ['commit', '-q', '-m', 'binary and large']);
    const compare = await api(`/compare?from=${before}&to=main`);
    const byPath = Object.fromEntries(compare.body.files.map((f: { path: string }) => [f.path, f]));
    expect(byPath['blob.bin']).toMatchObject({ binary: true, large: false, patch: 'Binary files /dev/null and b/blob.bin differ\n' });
    expect(byPath['huge.txt']).toMatchObject({ binary: false, large: true, added: 70_000, removed: 0 });
    expect(byPath['huge.txt'].patch).toMatch(/^Large file: 70000 line\(s\) added, 0 removed; the diff is not shown/);
    expect((await api('/commits/main/file?path=blob.bin')).body).toMatchObject({ binary: true, size: 6 });
    expect((await api('/commits/main/file?path=blob.bin')).body.text).toBeUndefined();
  });

  it('shows time travel and comparisons: a file at a commit, CRLF flagged, the diff of two commits', async () => {
    const start = rev('forge/session/s1~1');
    const file = await api(`/commits/${start}/file?path=a.txt`);
    expect(file.body).toMatchObject({ path: 'a.txt', text: 'one\ntwo\nthree\n', crlf: false, binary: false });
    const compare = await api(`/compare?from=${start}&to=forge/session/s1`);
    expect(compare.body.files).toEqual([expect.objectContaining({ path: 'a.txt', added: 1, removed: 1, patch: '--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n' })]);
    const timeline = await api('/sessions/s1/timeline');
    expect(timeline.body.turns.map((t: { turn: number; files: unknown[] }) => [t.turn, t.files])).toEqual([
      [0, []],
      [1, [{ path: 'a.txt', kind: 'modified', added: 1, removed: 1, binary: false }]],
    ]);
  });
});
