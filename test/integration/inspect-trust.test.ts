/**
 * Issue 24 §3 over HTTP: an inspector safe to leave open. Actions carry the heads the page
 * showed and are refused (naming the new head) when either moved; access needs the secret the
 * server prints (traded for an HttpOnly cookie); binding beyond loopback needs a flag; the Host
 * allow-list lets the person at the machine in; revisions name only oids, refs/ and HEAD (never
 * a file of .git, and no file content in the error); the default merge target is the base
 * branch, else HEAD's; a 50 MB file is described, not read; session branches are no merge
 * target; "." components are one rule; branches that are no session id are not listed.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeWorktreeSync } from '../../src/branches/node/worktree-sync';
import { Repository, type GitFs } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { startInspectServer, type InspectServer } from '../../src/inspect/node/server';
import { SessionStore } from '../../src/session';
import { expectFsckClean } from '../helpers/fsck';
import { forge, FORGE_BIN } from '../helpers/forge-cli';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { loginToInspector, type InspectClient } from '../helpers/inspect-client';
import { makeRepo, type RepoHandle } from '../helpers/repos';

let repo: RepoHandle;
let opened: Repository;
let server: InspectServer;
let client: InspectClient;

const rev = (ref: string) => git(repo.dir, ['rev-parse', ref]).stdout.trim();

function turn(id: string, files: Record<string, string>): string {
  const calls = Object.entries(files).flatMap(([path, content]) => [
    { tool: 'read_file', args: { path } },
    { tool: 'write_file', args: { path, content } },
  ]);
  const run = forge(['turn', '--repo', repo.dir, '--session', id, '--calls', '-', '--json'], { input: JSON.stringify(calls) });
  expect(run.status, run.stderr).toBe(0);
  return run.json().commit as string;
}

const post = (path: string, body: unknown) => client.api(path, { method: 'POST', body: JSON.stringify(body) });

/** A raw request with any Host header (fetch will not forge one; a DNS-rebinding page's request looks like this). */
function rawGet(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => done({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', fail);
    req.end();
  });
}

async function serve(options: { host?: string } = {}) {
  opened = await Repository.open({ fs: fs as unknown as GitFs, dir: repo.dir, platform: nodePlatform });
  server = await startInspectServer({ repo: opened, assetsDir: resolve('dist/inspect'), worktree: nodeWorktreeSync(), ...options });
  client = await loginToInspector(server.url);
}

beforeEach(() => {
  repo = makeRepo({ files: { 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n', 'src/x.txt': 'x\n' } });
  expect(forge(['session', 'new', '--repo', repo.dir, '--id', 's1', '--base', 'main']).status).toBe(0);
  turn('s1', { 'a.txt': 'one\nTWO\nthree\n' });
});

afterEach(async () => {
  await server?.close();
  opened?.close();
});

describe('issue 24 §3: actions carry the heads the page showed', { timeout: 120_000 }, () => {
  it('a turn committed after the page read the session: merge refused naming the new head, nothing moved', async () => {
    await serve();
    const shownHead = (await client.api('/sessions/s1/timeline')).body.head as string;
    const shownTarget = (await client.api('/branches')).body.heads.main as string;
    expect(shownTarget).toBe(rev('main'));
    const newHead = turn('s1', { 'b.txt': 'unseen\n' });
    const mainBefore = rev('main');

    const refused = await post('/sessions/s1/merge', { into: 'main', head: shownHead, targetHead: shownTarget });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'REF_CAS_FAILED', data: { shown: shownHead, now: newHead } } } });
    expect(refused.body.error.message).toContain(`its head is now ${newHead}`);
    expect(rev('main')).toBe(mainBefore);

    // The target moved instead: refused naming the target's new head.
    git(repo.dir, ['commit', '-q', '--allow-empty', '-m', 'main moves']);
    const targetMoved = await post('/sessions/s1/merge', { into: 'main', head: newHead, targetHead: mainBefore });
    expect(targetMoved).toMatchObject({ status: 409, body: { error: { code: 'REF_CAS_FAILED', data: { shown: mainBefore, now: rev('main') } } } });
    expect(targetMoved.body.error.message).toContain('Branch main moved');

    // A request without the heads is refused as invalid input.
    expect(await post('/sessions/s1/merge', { into: 'main' })).toMatchObject({ status: 400, body: { error: { code: 'INVALID_ARGUMENT' } } });
    // With the heads as they are, it merges exactly the commit shown.
    const merged = await post('/sessions/s1/merge', { into: 'main', noFf: true, head: newHead, targetHead: rev('main') });
    expect(merged.body).toMatchObject({ status: 'merged', commit: rev('main') });
    expect(rev('main^2')).toBe(newHead);
    expectFsckClean(repo.gitdir);
  });

  it('rebase, undo and discard are refused with a moved head too', async () => {
    await serve();
    const shownHead = rev('forge/session/s1');
    const newHead = turn('s1', { 'b.txt': 'unseen\n' });
    git(repo.dir, ['commit', '-q', '--allow-empty', '-m', 'main moves']);
    for (const [action, body] of [
      ['rebase', { onto: 'main', head: shownHead }],
      ['undo', { head: shownHead }],
      ['discard', { head: shownHead }],
    ] as const) {
      const refused = await post(`/sessions/s1/${action}`, body);
      expect([action, refused.status, refused.body.error?.code, refused.body.error?.data?.now]).toEqual([action, 409, 'REF_CAS_FAILED', newHead]);
    }
    expect(rev('forge/session/s1')).toBe(newHead);
    // Rebase onto a target that moved since shown.
    const ontoMoved = await post('/sessions/s1/rebase', { onto: 'main', head: newHead, ontoHead: rev('main~1') });
    expect(ontoMoved).toMatchObject({ status: 409, body: { error: { code: 'REF_CAS_FAILED', data: { now: rev('main') } } } });
    // Discard refuses pending changes other than the ones shown.
    const other = await Repository.open({ fs: fs as unknown as GitFs, dir: repo.dir, platform: nodePlatform });
    await (await new SessionStore(other).open('s1')).vfs.writeFile('b.txt', new TextEncoder().encode('pending\n'));
    other.close();
    expect(await post('/sessions/s1/discard', { head: newHead, pending: [] })).toMatchObject({ status: 409, body: { error: { code: 'REF_CAS_FAILED' } } });
    expect(await post('/sessions/s1/discard', { head: newHead, pending: ['b.txt'] })).toMatchObject({ status: 200, body: { discarded: ['b.txt'] } });
    expectFsckClean(repo.gitdir);
  });
});

describe('issue 24 §3: access needs the printed secret', { timeout: 120_000 }, () => {
  it('nothing without the access cookie; the printed URL sets an HttpOnly cookie; the page token is served only with it', async () => {
    await serve();
    const port = Number(new URL(server.origin).port);
    for (const path of ['/', '/app.js', '/api/sessions', '/api/branches', '/api/events']) {
      const res = await fetch(new URL(path, server.origin));
      expect([path, res.status]).toEqual([path, 403]);
      const body = await res.text();
      expect(body).not.toContain(server.token);
      expect(body).not.toContain(client.pageToken);
    }
    const post = await fetch(new URL('/api/sessions/s1/undo', server.origin), { method: 'POST', headers: { 'content-type': 'application/json', 'x-forge-token': client.pageToken }, body: JSON.stringify({ head: rev('forge/session/s1') }) });
    expect(post.status).toBe(403);
    // A wrong secret sets nothing.
    const wrong = await fetch(`${server.origin}?token=guess`, { redirect: 'manual' });
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    // The right one: a redirect to the bare origin (the secret leaves the address bar) with the cookie.
    const entry = await fetch(server.url, { redirect: 'manual' });
    expect(entry.status).toBe(303);
    expect(entry.headers.get('location')).toBe('/');
    expect(entry.headers.get('set-cookie')).toMatch(new RegExp(`^forge-inspect-${port}=[^;]+; HttpOnly; SameSite=Strict; Path=/$`));
    expect(entry.headers.get('set-cookie')).not.toContain(server.token);
    expect((await client.fetch('/api/branches')).status).toBe(200);
  });

  it('bound to 0.0.0.0: the person at the machine gets in by 127.0.0.1 and localhost; Host 0.0.0.0 without the cookie gets nothing', async () => {
    await serve({ host: '0.0.0.0' });
    const port = Number(new URL(server.origin).port);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const res = await rawGet(port, '/api/branches', { host, cookie: client.cookie });
      expect([host, res.status]).toEqual([host, 200]);
    }
    const forged = await rawGet(port, '/', { host: `0.0.0.0:${port}` });
    expect(forged.status).toBe(403);
    expect(forged.body).not.toContain(client.pageToken);
    const noCookie = await rawGet(port, '/', { host: `127.0.0.1:${port}` });
    expect(noCookie.status).toBe(403);
    expect(noCookie.body).not.toContain(client.pageToken);
    expect((await rawGet(port, '/', { host: `attacker.example:${port}`, cookie: client.cookie })).status).toBe(403);
  });

  it('forge inspect --host 0.0.0.0 needs --allow-remote, and then warns on the terminal', async () => {
    // Refused before listening: a server that started would run until killed (the timeout ends it, failing the test).
    const refused = forge(['inspect', '--repo', repo.dir, '--host', '0.0.0.0'], { timeoutMs: 30_000 });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('--allow-remote');
    const child = spawn(process.execPath, [FORGE_BIN, 'inspect', '--repo', repo.dir, '--host', '0.0.0.0', '--allow-remote'], { env: { ...hermeticGitEnv(), PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    await new Promise<void>((done, fail) => {
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        if (/forge inspect: http:\/\/\S+\?token=\S+/.test(stdout)) done();
      });
      child.once('exit', (code) => fail(new Error(`exited ${code}: ${stderr}`)));
    });
    await new Promise<void>((done) => {
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
    expect(stderr).toContain('forge: warning: listening on 0.0.0.0');
    expect(stderr).toContain('reachable from other machines');
  });
});

describe('issue 24 §3: revisions name only oids, refs/ and HEAD', { timeout: 120_000 }, () => {
  it('/api/commits/config/tree and logs%2FHEAD do not read .git files, and no error quotes a file', async () => {
    fs.writeFileSync(join(repo.gitdir, 'notes-secret'), 'token-8c1e2f-do-not-leak\n');
    await serve();
    for (const name of ['config', 'logs%2FHEAD', 'notes-secret', 'description', 'packed-refs', 'refs%2F..%2Fconfig']) {
      for (const route of ['tree', 'turn']) {
        const res = await client.api(`/commits/${name}/${route}`);
        expect([name, route, res.status]).toEqual([name, route, expect.any(Number)]);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        const text = JSON.stringify(res.body);
        expect(text).not.toContain('token-8c1e2f');
        expect(text).not.toContain('[core]');
        expect(text).not.toContain('repositoryformatversion');
      }
    }
    expect((await client.api('/commits/config/tree')).body.error.code).toBe('REF_NOT_FOUND');
    // What git resolves still resolves: a branch, HEAD, refs/..., an oid.
    for (const good of ['main', 'HEAD', 'refs%2Fheads%2Fmain', rev('main'), 'forge%2Fsession%2Fs1~1']) expect([good, (await client.api(`/commits/${good}/tree`)).status]).toEqual([good, 200]);
  });

  it('forge cat --rev <a .git file> is a user error (exit 2) that quotes nothing', () => {
    fs.writeFileSync(join(repo.gitdir, 'notes-secret'), 'token-8c1e2f-do-not-leak\n');
    for (const name of ['notes-secret', 'config', 'logs/HEAD']) {
      const run = forge(['cat', '--repo', repo.dir, '--rev', name, 'a.txt']);
      expect([name, run.status]).toEqual([name, 2]);
      expect(run.stderr).toContain('REF_NOT_FOUND');
      expect(run.stderr + run.stdout).not.toContain('token-8c1e2f');
      expect(run.stderr + run.stdout).not.toContain('[core]');
    }
    expect(forge(['cat', '--repo', repo.dir, '--rev', 'main', 'a.txt']).stdout).toBe('one\ntwo\nthree\n');
  });
});

describe('issue 24 §3: the default target, large files, and the smaller cases', { timeout: 120_000 }, () => {
  it('a session based on "HEAD" merges into the branch HEAD names, not the alphabetically first branch', async () => {
    git(repo.dir, ['branch', 'archive/v0', 'main']);
    git(repo.dir, ['commit', '-q', '--allow-empty', '-m', 'main moves']);
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'h1', '--base', 'HEAD']).status).toBe(0);
    turn('h1', { 'b.txt': 'h1\n' });
    await serve();
    const header = (await client.api('/sessions/h1/timeline')).body;
    expect(header.base.ref).toBe('HEAD');
    const lines = (await (await client.fetch('/api/sessions/h1/turns')).text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0].timeline.target).toBe('main');
    const preview = await client.api('/sessions/h1/merge-preview');
    expect(preview.body.target).toMatchObject({ ref: 'refs/heads/main' });
    // A session based on a branch keeps that branch.
    const s1 = (await (await client.fetch('/api/sessions/s1/turns')).text()).split('\n')[0]!;
    expect(JSON.parse(s1).timeline.target).toBe('main');
  });

  it('a 50 MB file is described without being read (file view and diff)', async () => {
    fs.writeFileSync(join(repo.dir, 'big.txt'), Buffer.alloc(50 * 1024 * 1024, 'a'));
    git(repo.dir, ['add', 'big.txt']);
    git(repo.dir, ['commit', '-q', '-m', 'big']);
    const oid = rev('main:big.txt');
    await serve();
    const read: string[] = [];
    const readBlob = opened.readBlob.bind(opened);
    opened.readBlob = (o: string) => (read.push(o), readBlob(o));
    const view = await client.api('/commits/main/file?path=big.txt');
    expect(view.body).toMatchObject({ size: 50 * 1024 * 1024, large: true, oid });
    expect(view.body.text).toBeUndefined();
    expect(read).not.toContain(oid);
    // Its diff (a turn, a comparison) is summarized from the object's header too.
    const compare = await client.api(`/compare?from=${rev('main~1')}&to=main`);
    expect(compare.body.files).toEqual([expect.objectContaining({ path: 'big.txt', large: true, binary: false })]);
    expect(compare.body.files[0].patch).toMatch(/^Large file: 52428800 bytes; the diff is not computed/);
    expect(read).not.toContain(oid);
    expect((await client.api('/commits/main/file?path=a.txt')).body.text).toBe('one\ntwo\nthree\n');
  });

  it('merging a session into another session\'s branch is refused by the API', async () => {
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 's2', '--base', 'main']).status).toBe(0);
    await serve();
    const before = rev('forge/session/s2');
    for (const into of ['forge/session/s2', 'refs/heads/forge/session/s2']) {
      const refused = await post('/sessions/s1/merge', { into, head: rev('forge/session/s1'), targetHead: before });
      expect([into, refused.status, refused.body.error?.code]).toEqual([into, 400, 'MERGE_TARGET_INVALID']);
    }
    expect((await client.api('/sessions/s1/merge-preview?into=forge%2Fsession%2Fs2')).body.error.code).toBe('MERGE_TARGET_INVALID');
    expect((await post('/sessions/s1/rebase', { onto: 'forge/session/s2', head: rev('forge/session/s1') })).body.error.code).toBe('MERGE_TARGET_INVALID');
    expect(rev('forge/session/s2')).toBe(before);
  });

  it('path=./a.txt and src/./x.txt are treated alike (one path rule)', async () => {
    await serve();
    for (const [path, text] of [
      ['./a.txt', 'one\ntwo\nthree\n'],
      ['src/./x.txt', 'x\n'],
      ['./src/./x.txt', 'x\n'],
    ]) {
      const res = await client.api(`/commits/main/file?path=${encodeURIComponent(path!)}`);
      expect([path, res.status, res.body.text]).toEqual([path, 200, text]);
    }
    for (const path of ['src/../a.txt', 'src//x.txt']) expect((await client.api(`/commits/main/file?path=${encodeURIComponent(path)}`)).body.error.code).toBe('PATH_INVALID');
  });

  it('session branches whose name is not a valid session id are not listed', async () => {
    git(repo.dir, ['update-ref', 'refs/heads/forge/session/nested/name', rev('forge/session/s1')]);
    git(repo.dir, ['update-ref', 'refs/heads/forge/session/_under', rev('forge/session/s1')]);
    await serve();
    const rows = (await (await client.fetch('/api/sessions')).text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.map((r: { id: string }) => r.id)).toEqual(['s1']);
  });
});
