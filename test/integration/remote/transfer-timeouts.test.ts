/**
 * Issue 23, section 3: a server that stops after the headers, or sends a byte now and then,
 * no longer holds `forge fetch`, `push`, `session pull` or `run --push` forever: below
 * http.lowSpeedLimit bytes/s over http.lowSpeedTime seconds the request is abandoned with
 * REMOTE_TIMEOUT (kind remote, exit 6) saying which limit; a server that accepts the connection
 * but never completes the TLS handshake hits forge.connectTimeout. Small limits are configured
 * in the repository (1 s) so nothing waits long; nothing local changes.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectFsckClean } from '../../helpers/fsck';
import { git } from '../../helpers/git-cli';
import { stallAfterHeaders, startHostileServer, trickle, type HostileServer } from '../../helpers/hostile-http';
import { makeRepo } from '../../helpers/repos';
import { forgeAsync, rev, writeScript } from './remote-harness';

let server: HostileServer | undefined;
let silent: { server: Server; sockets: Set<Socket> } | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (silent) {
    for (const socket of silent.sockets) socket.destroy();
    await new Promise<void>((resolve) => silent!.server.close(() => resolve()));
    silent = undefined;
  }
});

function repoWithRemote(url: string): string {
  const { dir } = makeRepo({ files: { 'README.md': '# app\n' } });
  git(dir, ['remote', 'add', 'origin', url]);
  git(dir, ['config', 'http.lowSpeedLimit', '1000']);
  git(dir, ['config', 'http.lowSpeedTime', '1']);
  git(dir, ['config', 'forge.connectTimeout', '1']);
  return dir;
}

function expectTimeout(result: { status: number; stdout: string; stderr: string }, which: 'low-speed' | 'connect'): void {
  expect(result.status, result.stderr).toBe(6);
  expect(result.stderr).toContain('REMOTE_TIMEOUT');
  expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!).error).toMatchObject({ code: 'REMOTE_TIMEOUT', kind: 'remote', data: { timeout: which } });
}

describe('issue 23 §3: connect and low-speed timeouts', { timeout: 120_000 }, () => {
  it('a server that stops after the headers: fetch and session pull end with REMOTE_TIMEOUT (low-speed)', async () => {
    server = await startHostileServer((_req, _body, res) => stallAfterHeaders(res));
    const dir = repoWithRemote(`${server.origin}/repo.git`);
    expectTimeout(await forgeAsync(['fetch', '--repo', dir, '--json']), 'low-speed');
    expectTimeout(await forgeAsync(['session', 'pull', 's1', '--repo', dir, '--json']), 'low-speed');
    expect(git(dir, ['for-each-ref', 'refs/remotes/']).stdout).toBe('');
    expectFsckClean(join(dir, '.git'));
  });

  it('a server that sends a byte every 200 ms: push and run --push end with REMOTE_TIMEOUT (low-speed), no turn made', async () => {
    server = await startHostileServer((_req, _body, res) => trickle(res, 200));
    const dir = repoWithRemote(`${server.origin}/repo.git`);
    expect((await forgeAsync(['session', 'new', '--repo', dir, '--id', 's1'])).status).toBe(0);
    const pushed = await forgeAsync(['push', '--repo', dir, 's1', '--json']);
    expectTimeout(pushed, 'low-speed');
    expect(pushed.stderr).toMatch(/sent too slowly: \d+ bytes in the last 1 s/);

    const script = writeScript(dir, 'r', [{ user: 'turn 1', path: 'a.md', content: 'a\n' }]);
    const run = await forgeAsync(['run', '--repo', dir, '--script', script, '--approve', 'all', '--id', 'r', '--push', '--json']);
    expect(run.status, run.stderr).toBe(6);
    expect(run.stderr + run.stdout).toContain('REMOTE_TIMEOUT');
    expect(rev(dir, 'refs/heads/forge/session/r')).toBeNull();
    expectFsckClean(join(dir, '.git'));
  });

  it('a server that accepts the connection but never completes the TLS handshake: REMOTE_TIMEOUT (connect)', async () => {
    const sockets = new Set<Socket>();
    const tcp = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    silent = { server: tcp, sockets };
    const port = (tcp.address() as { port: number }).port;
    const dir = repoWithRemote(`https://127.0.0.1:${port}/repo.git`);
    expectTimeout(await forgeAsync(['fetch', '--repo', dir, '--json']), 'connect');
    expectFsckClean(join(dir, '.git'));
  });
});
