/**
 * `forge inspect`'s web server (Node's http): the page's files, the JSON API of `../routes.ts`,
 * and server-sent events for live updates. Binds 127.0.0.1 unless told otherwise; every
 * request's Host is checked; every request needs the access cookie, which only the secret URL
 * printed on the terminal (`/?token=…`) sets; every state-changing request also needs the page
 * token, which only the page served to a cookie holder contains. The page's files are read once
 * from the build's folder and served from a fixed table: no part of a URL becomes a file-system
 * path.
 */
import { randomBytes } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { WorktreeSync } from '../../branches';
import { ForgeError } from '../../errors';
import type { Repository } from '../../git';
import { errorResponse, handleApi, isStateChanging, type ApiResponse } from '../routes';
import { accessCookie, accessCookieName, allowedHosts, checkAccess, checkHost, checkToken, cookieValue, isWildcard, sameSecret, TOKEN_HEADER } from '../security';
import { warmSessionRows } from '../session-rows';
import { LiveRefs } from './live';

export interface InspectServerOptions {
  repo: Repository;
  /** The folder holding the built page (index.html, app.js, app.css). */
  assetsDir: string;
  host?: string;
  /** 0 (default): any free port. */
  port?: number;
  worktree?: WorktreeSync;
  /** The secret of the printed URL (tests may fix it); default 32 random bytes. */
  token?: string;
  liveIntervalMs?: number;
}

export interface InspectServer {
  /** The URL to open: the origin with `?token=<secret>`, which sets the access cookie. */
  url: string;
  /** The origin alone (`http://host:port/`): refused without the access cookie. */
  origin: string;
  /** The secret of `url`. */
  token: string;
  /** The access cookie's name (per port). */
  cookieName: string;
  server: Server;
  close(): Promise<void>;
}

const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

const MAX_BODY = 1024 * 1024;
/** A JSON-lines response goes out in chunks of about this size, or of what came in this long. */
const NDJSON_CHUNK_BYTES = 32 * 1024;
const NDJSON_CHUNK_MS = 15;

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
};

function send(res: ServerResponse, status: number, type: string, body: string | Uint8Array): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

async function writeApi(res: ServerResponse, response: ApiResponse): Promise<void> {
  if (response.kind === 'json') {
    send(res, response.status, 'application/json; charset=utf-8', JSON.stringify(response.body));
    return;
  }
  // Rows are written as they come, gathered into chunks (a write per row made 1,000 chunks of
  // 300 bytes for the browser to take in one by one): a chunk goes out when it is large or has
  // waited long enough, so the first rows still arrive at once. A failure after the first row
  // ends the stream with an error line.
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' });
  let chunk = '';
  let since = performance.now();
  const flush = async () => {
    const ready = res.write(chunk);
    chunk = '';
    since = performance.now();
    if (ready || res.destroyed) return;
    // The socket's buffer is full: wait until it drains, or until the page goes away.
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  };
  try {
    let first = true;
    for await (const row of response.rows) {
      // The page stopped reading (it left the view): stop reading the repository for it.
      if (res.destroyed) break;
      chunk += JSON.stringify(row) + '\n';
      if (first || chunk.length >= NDJSON_CHUNK_BYTES || performance.now() - since >= NDJSON_CHUNK_MS) await flush();
      first = false;
    }
  } catch (error) {
    const failure = errorResponse(error);
    chunk += JSON.stringify(failure.kind === 'json' ? failure.body : {}) + '\n';
  }
  if (res.destroyed) return;
  if (chunk) res.write(chunk);
  res.end();
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ForgeError('INVALID_ARGUMENT', `Request body over ${MAX_BODY} bytes.`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ForgeError('INVALID_ARGUMENT', 'The request body is not JSON.');
  }
}

/** The names a browser on the network may use for this machine: its addresses and host name. */
function machineNames(): string[] {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
  return [...addresses, hostname()];
}

export async function startInspectServer(options: InspectServerOptions): Promise<InspectServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(32).toString('base64url');
  // The cookie's value and the page token are secrets of their own: neither is the printed one.
  const access = randomBytes(32).toString('base64url');
  const pageToken = randomBytes(32).toString('base64url');
  const files = new Map(Object.entries(ASSETS).map(([path, asset]) => [path, { type: asset.type, body: readFileSync(join(options.assetsDir, asset.file)) }]));
  const index = files.get('/')!;
  index.body = Buffer.from(index.body.toString('utf8').replace('__FORGE_TOKEN__', pageToken));
  let cookieName = '';
  const ctx = { repo: options.repo, ...(options.worktree ? { worktree: options.worktree } : {}) };
  const live = new LiveRefs(options.repo, options.liveIntervalMs);
  let hosts = new Set<string>();
  /** API requests being answered (the session summaries' warm-up waits while there are any). */
  let answering = 0;

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://inspector.invalid');
      try {
        checkHost(req.headers.host, hosts);
        const secret = url.searchParams.get('token');
        if (secret !== null && url.pathname === '/' && req.method === 'GET') {
          // The printed URL: trade its secret for the access cookie, and leave the secret out of the address bar and history.
          if (!sameSecret(secret, token)) checkAccess(undefined, access);
          res.writeHead(303, { ...SECURITY_HEADERS, location: '/', 'set-cookie': accessCookie(cookieName, access), 'cache-control': 'no-store' });
          return void res.end();
        }
        checkAccess(cookieValue(req.headers.cookie, cookieName), access);
        if (url.pathname.startsWith('/api/')) {
          if (isStateChanging(req.method ?? 'GET')) {
            const given = req.headers[TOKEN_HEADER];
            checkToken(typeof given === 'string' ? given : undefined, pageToken);
          }
          if (url.pathname === '/api/events' && req.method === 'GET') return await live.add(res);
          answering++;
          try {
            const body = req.method === 'POST' ? await readBody(req) : undefined;
            const query = Object.fromEntries(url.searchParams.entries());
            return await writeApi(res, await handleApi(ctx, { method: req.method ?? 'GET', path: url.pathname.slice('/api'.length), query, body }));
          } finally {
            answering--;
          }
        }
        const asset = req.method === 'GET' ? files.get(url.pathname) : undefined;
        if (!asset) throw new ForgeError('INSPECT_ROUTE_NOT_FOUND', `No page at ${req.method} ${url.pathname}.`, { data: { path: url.pathname } });
        send(res, 200, asset.type, asset.body);
      } catch (error) {
        if (res.headersSent) return void res.end();
        await writeApi(res, errorResponse(error));
      }
    })();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  cookieName = accessCookieName(port);
  hosts = allowedHosts(host, port, isWildcard(host) ? machineNames() : []);
  let closed = false;
  void warmSessionRows(options.repo, () => closed, () => answering > 0);
  // A wildcard address is no place to browse to: the person at the machine uses loopback.
  const shownHost = isWildcard(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const origin = `http://${shownHost}:${port}/`;
  return {
    url: `${origin}?token=${token}`,
    origin,
    token,
    cookieName,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        live.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
