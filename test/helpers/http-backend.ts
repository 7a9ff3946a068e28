/**
 * A real git server for tests: git's own `git http-backend` (smart HTTP) behind a small CGI
 * adapter listening on 127.0.0.1. Push (receive-pack) requires HTTP basic authentication with
 * one of the given users; fetch is anonymous unless `authForFetch`. `killNextPush` makes the
 * server go away in the middle of the next receive-pack request: the backend is killed (SIGKILL)
 * after part of the request body reached it and the connection is dropped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { hermeticGitEnv } from './git-cli';

export interface GitHttpServerOptions {
  /** The directory holding the served repositories (GIT_PROJECT_ROOT). */
  root: string;
  /** user -> password allowed to push. */
  users: Record<string, string>;
  authForFetch?: boolean;
  /** Serve https with this key and certificate (PEM) instead of http. */
  tls?: { key: string; cert: string };
}

export interface RequestLog {
  method: string;
  path: string;
  service: string | null;
  user: string | null;
  /** The Authorization header the request carried (null: none), to prove where credentials went. */
  authorization: string | null;
  status: number;
  bytesIn: number;
}

export interface GitHttpServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** `http://127.0.0.1:<port>/<repo>`, with `user:password@` when a user is given. */
  url(repo: string, user?: string): string;
  requests: RequestLog[];
  /** The next receive-pack POST: pass this many body bytes to the backend, then kill it and drop the connection. */
  killNextPush(afterBytes: number): void;
  /** Run just before the next receive-pack POST reaches the backend (e.g. another client's push). */
  beforeNextPush(hook: () => void): void;
  close(): Promise<void>;
}

function unauthorized(res: ServerResponse): void {
  res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="forge-test"', 'Content-Type': 'text/plain' });
  res.end('authentication required\n');
}

function userOf(req: IncomingMessage, users: Record<string, string>): string | null | false {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Basic (.+)$/.exec(header);
  if (!match) return false;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = decoded.slice(0, colon);
  return colon > 0 && users[user] !== undefined && users[user] === decoded.slice(colon + 1) ? user : false;
}

export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const requests: RequestLog[] = [];
  const sockets = new Set<Socket>();
  const children = new Set<ChildProcess>();
  let killAfter: number | null = null;
  let beforePush: (() => void) | null = null;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const service = url.searchParams.get('service') ?? (url.pathname.endsWith('/git-receive-pack') ? 'git-receive-pack' : url.pathname.endsWith('/git-upload-pack') ? 'git-upload-pack' : null);
    const log: RequestLog = { method: req.method ?? 'GET', path: url.pathname, service, user: null, authorization: req.headers.authorization ?? null, status: 0, bytesIn: 0 };
    requests.push(log);
    const user = userOf(req, options.users);
    const needsAuth = service === 'git-receive-pack' || options.authForFetch === true;
    if (user === false || (needsAuth && user === null)) {
      log.status = 401;
      req.resume();
      unauthorized(res);
      return;
    }
    log.user = user;
    const isPushPost = req.method === 'POST' && service === 'git-receive-pack';
    if (isPushPost && beforePush) {
      const hook = beforePush;
      beforePush = null;
      hook();
    }
    const kill = isPushPost ? killAfter : null;
    if (isPushPost) killAfter = null;
    const env: Record<string, string> = {
      ...hermeticGitEnv(),
      GIT_PROJECT_ROOT: options.root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: url.pathname,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: '127.0.0.1',
      GATEWAY_INTERFACE: 'CGI/1.1',
      ...(user ? { REMOTE_USER: user } : {}),
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
    };
    const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(child);
    child.on('exit', () => children.delete(child));
    child.stdin.on('error', () => {});
    child.stderr.resume();
    req.on('data', (chunk: Buffer) => {
      if (kill !== null && log.bytesIn + chunk.length >= kill) {
        child.stdin.write(chunk.subarray(0, Math.max(0, kill - log.bytesIn)));
        log.bytesIn = kill;
        log.status = -1;
        child.kill('SIGKILL');
        req.socket.destroy();
        return;
      }
      log.bytesIn += chunk.length;
      child.stdin.write(chunk);
    });
    req.on('end', () => child.stdin.end());
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.on('close', () => {
      if (log.status === -1 || res.destroyed) return;
      const all = Buffer.concat(out);
      let split = all.indexOf('\r\n\r\n');
      let sep = 4;
      if (split < 0) {
        split = all.indexOf('\n\n');
        sep = 2;
      }
      if (split < 0) {
        log.status = 502;
        res.writeHead(502).end('bad CGI output\n');
        return;
      }
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of all.subarray(0, split).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = parseInt(value, 10);
        else headers[name] = value;
      }
      log.status = status;
      res.writeHead(status, headers);
      res.end(all.subarray(split + sep));
    });
  };

  const server: Server = options.tls ? createHttpsServer(options.tls, handle) : createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const scheme = options.tls ? 'https' : 'http';
  const origin = `${scheme}://127.0.0.1:${port}`;
  return {
    origin,
    url: (repo, user) => (user ? `${scheme}://${encodeURIComponent(user)}:${encodeURIComponent(options.users[user] ?? 'wrong')}@127.0.0.1:${port}/${repo}` : `${origin}/${repo}`),
    requests,
    killNextPush: (afterBytes) => {
      killAfter = afterBytes;
    },
    beforeNextPush: (hook) => {
      beforePush = hook;
    },
    close: async () => {
      for (const child of children) child.kill('SIGKILL');
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
