/**
 * Issue 23, section 2: credentials go only to the origin they were given for, on every hop.
 * A hostile server (https, its certificate signed by a private CA the test trusts through
 * SSL_CERT_FILE) answers with redirects; behind it, git http-backend over https and over http
 * on other ports (other origins) logs the Authorization header of every request it receives.
 * As git does by default (http.followRedirects=initial): the first request's redirect is
 * followed and becomes the base of the operation, without the URL's user:password or
 * FORGE_REMOTE_TOKEN; a later redirect, https -> http, plain http to a host that is not
 * loopback, and more than 5 hops are refused (REMOTE_REDIRECT_REFUSED, exit 6). A credential
 * helper's answer is approved after the server took it and rejected after it refused it.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectFsckClean } from '../../helpers/fsck';
import { git } from '../../helpers/git-cli';
import { forward, startHostileServer, type HostileServer } from '../../helpers/hostile-http';
import { startGitHttpServer, type GitHttpServer } from '../../helpers/http-backend';
import { makeRepo } from '../../helpers/repos';
import { makeTempDir } from '../../helpers/temp';
import { privateCa } from '../../helpers/tls';
import { forgeAsync, rev, USERS } from './remote-harness';

const PASSWORD = USERS.alice;
let root: string;
let serverRepo: string;
let tls: { ca: string; key: string; cert: string };
let httpsBackend: GitHttpServer;
let httpBackend: GitHttpServer;
let hostile: HostileServer | undefined;

beforeAll(async () => {
  root = makeTempDir('redirects');
  tls = privateCa(root);
  serverRepo = join(root, 'server.git');
  git(root, ['init', '-q', '--bare', serverRepo]);
  git(serverRepo, ['config', 'http.receivepack', 'true']);
  const seed = makeRepo({ files: { 'README.md': '# app\n' } });
  git(seed.dir, ['push', '-q', serverRepo, 'HEAD:refs/heads/main']);
  httpsBackend = await startGitHttpServer({ root, users: USERS, tls: { key: tls.key, cert: tls.cert } });
  httpBackend = await startGitHttpServer({ root, users: USERS });
});
afterAll(async () => {
  await httpsBackend.close();
  await httpBackend.close();
});
afterEach(async () => {
  await hostile?.close();
  hostile = undefined;
  httpsBackend.requests.length = 0;
  httpBackend.requests.length = 0;
});

/** A clone (shares no objects with later sessions) whose origin is `url`, with a session s1 made on the server after it. */
function cloneWithOrigin(name: string, url: string): string {
  const dir = join(makeTempDir('clone'), name);
  git(root, ['clone', '-q', '--no-local', '--single-branch', '--branch', 'main', serverRepo, dir]);
  git(dir, ['remote', 'set-url', 'origin', url]);
  const commit = git(serverRepo, ['commit-tree', 'main^{tree}', '-p', 'main', '-m', `session of ${name}`]).stdout.trim();
  git(serverRepo, ['update-ref', 'refs/heads/forge/session/s1', commit]);
  return dir;
}

/** A hostile server that answers every request with `status` to `target` + the same path. */
async function redirector(target: string, options: { https: boolean; status?: number }): Promise<HostileServer> {
  return startHostileServer(
    (req, _body, res) => {
      res.writeHead(options.status ?? 302, { Location: `${target}${req.url}` });
      res.end();
    },
    options.https ? { tls: { key: tls.key, cert: tls.cert } } : {},
  );
}

const trusted = () => ({ SSL_CERT_FILE: tls.ca });
const withPassword = (origin: string) => origin.replace('://', `://alice:${encodeURIComponent(PASSWORD)}@`);
const basic = `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`;

function errorOf(result: { stdout: string }): { code: string; kind: string; message: string } {
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!).error;
}

describe('issue 23 §2: credentials and redirects', { timeout: 180_000 }, () => {
  it('a first-request redirect to another origin is followed without the URL password or FORGE_REMOTE_TOKEN', async () => {
    hostile = await redirector(httpsBackend.origin, { https: true });
    const dir = cloneWithOrigin('a', `${withPassword(hostile.origin)}/server.git`);
    const fetched = await forgeAsync(['fetch', '--repo', dir], trusted());
    expect(fetched.status, fetched.stderr).toBe(0);
    expect(fetched.stderr).toContain(`forge: warning: redirected to ${httpsBackend.origin}/server.git`);
    expect(rev(dir, 'refs/remotes/origin/forge/session/s1')).toBe(rev(serverRepo, 'refs/heads/forge/session/s1'));
    // The origin the password was given for got it; the other origin never did.
    expect(hostile.requests[0]!.authorization).toBe(basic);
    expect(httpsBackend.requests.length).toBeGreaterThan(0);
    expect(httpsBackend.requests.every((r) => r.authorization === null)).toBe(true);

    git(dir, ['remote', 'set-url', 'origin', `${hostile.origin}/server.git`]);
    git(serverRepo, ['update-ref', 'refs/heads/forge/session/s2', 'refs/heads/forge/session/s1']);
    const token = await forgeAsync(['fetch', '--repo', dir], { ...trusted(), FORGE_REMOTE_TOKEN: 'tok-3n', FORGE_REMOTE_USER: 'alice' });
    expect(token.status, token.stderr).toBe(0);
    expect(httpsBackend.requests.every((r) => r.authorization === null)).toBe(true);
    expectFsckClean(join(dir, '.git'));
  });

  it('a push redirected to another origin takes no credentials there: that origin refuses it, and nothing moves', async () => {
    hostile = await redirector(httpsBackend.origin, { https: true });
    const dir = cloneWithOrigin('a', `${withPassword(hostile.origin)}/server.git`);
    expect((await forgeAsync(['session', 'new', '--repo', dir, '--id', 'p1'])).status).toBe(0);
    const pushed = await forgeAsync(['push', '--repo', dir, 'p1', '--json'], trusted());
    expect(pushed.status).toBe(2);
    expect(errorOf(pushed).code).toBe('REMOTE_AUTH_FAILED');
    expect(pushed.stdout + pushed.stderr).not.toContain(PASSWORD);
    expect(httpsBackend.requests.every((r) => r.authorization === null)).toBe(true);
    expect(rev(serverRepo, 'refs/heads/forge/session/p1')).toBeNull();
    expectFsckClean(serverRepo);
  });

  it('https -> http is refused: the http server is never asked, the password never travels in clear', async () => {
    hostile = await redirector(httpBackend.origin, { https: true });
    const dir = cloneWithOrigin('a', `${withPassword(hostile.origin)}/server.git`);
    const result = await forgeAsync(['fetch', '--repo', dir, '--json'], trusted());
    expect(result.status).toBe(6);
    expect(errorOf(result)).toMatchObject({ code: 'REMOTE_REDIRECT_REFUSED', kind: 'remote' });
    expect(errorOf(result).message).toContain('from https down to plain http');
    expect(httpBackend.requests).toEqual([]);
    expect(git(dir, ['for-each-ref', 'refs/remotes/origin/forge/']).stdout).toBe('');
  });

  it('plain http to a host that is not loopback is refused on a redirect hop too, and so is the sixth hop', async () => {
    hostile = await redirector('http://10.255.255.1', { https: false });
    const dir = cloneWithOrigin('a', `${withPassword(hostile.origin)}/server.git`);
    const away = await forgeAsync(['fetch', '--repo', dir, '--json']);
    expect(away.status).toBe(6);
    expect(errorOf(away).code).toBe('REMOTE_REDIRECT_REFUSED');
    expect(errorOf(away).message).toContain('not loopback');
    await hostile.close();

    // A server that redirects to itself forever.
    hostile = await startHostileServer(
      (req, _body, res) => {
        res.writeHead(302, { Location: `${req.url}` });
        res.end();
      },
      { tls: { key: tls.key, cert: tls.cert } },
    );
    git(dir, ['remote', 'set-url', 'origin', `${hostile.origin}/server.git`]);
    const loop = await forgeAsync(['fetch', '--repo', dir, '--json'], trusted());
    expect(loop.status).toBe(6);
    expect(errorOf(loop).code).toBe('REMOTE_REDIRECT_REFUSED');
    expect(errorOf(loop).message).toContain('more than 5 redirects');
    expect(hostile.requests).toHaveLength(6);
  });

  it('a redirect after the first request is refused (git: http.followRedirects=initial); the other origin gets nothing', async () => {
    hostile = await startHostileServer(
      async (req, body, res) => {
        if (req.method === 'GET') {
          const answer = await forward(httpBackend.origin, req, body);
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body);
          return;
        }
        res.writeHead(307, { Location: `${httpsBackend.origin}${req.url}` });
        res.end();
      },
      { tls: { key: tls.key, cert: tls.cert } },
    );
    const dir = cloneWithOrigin('a', `${withPassword(hostile.origin)}/server.git`);
    const result = await forgeAsync(['fetch', '--repo', dir, '--json'], trusted());
    expect(result.status).toBe(6);
    expect(errorOf(result).code).toBe('REMOTE_REDIRECT_REFUSED');
    expect(errorOf(result).message).toContain('only the first request');
    expect(httpsBackend.requests).toEqual([]);
    expect(git(dir, ['for-each-ref', 'refs/remotes/origin/forge/']).stdout).toBe('');
    expectFsckClean(join(dir, '.git'));
  });

  it('a credential helper is told approve after the server took its answer, reject after it refused it', async () => {
    const dir = cloneWithOrigin('a', `${httpBackend.origin}/server.git`);
    expect((await forgeAsync(['session', 'new', '--repo', dir, '--id', 'h1'])).status).toBe(0);
    const log = join(root, 'helper.log');
    const passwordFile = join(root, 'helper.password');
    const helper = join(root, 'helper.sh');
    writeFileSync(helper, `#!/bin/sh\nwhile read line; do [ -z "$line" ] && break; case "$line" in host=*) echo "$1 $line" >> '${log}';; esac; done\n[ "$1" = get ] && { echo username=alice; echo "password=$(cat '${passwordFile}')"; }\nexit 0\n`);
    chmodSync(helper, 0o755);
    const env = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'credential.helper', GIT_CONFIG_VALUE_0: helper };
    const host = `host=${new URL(httpBackend.origin).host}`;

    writeFileSync(passwordFile, 'not-the-password');
    writeFileSync(log, '');
    const refused = await forgeAsync(['push', '--repo', dir, 'h1'], env);
    expect(refused.status).toBe(2);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([`get ${host}`, `erase ${host}`]);

    writeFileSync(passwordFile, PASSWORD);
    writeFileSync(log, '');
    const taken = await forgeAsync(['push', '--repo', dir, 'h1'], env);
    expect(taken.status, taken.stderr).toBe(0);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([`get ${host}`, `store ${host}`]);
    expect(rev(serverRepo, 'refs/heads/forge/session/h1')).toBe(rev(dir, 'refs/heads/forge/session/h1'));
    expectFsckClean(serverRepo);
  });
});
