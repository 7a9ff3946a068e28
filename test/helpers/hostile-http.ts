/**
 * A hostile smart-HTTP server for tests, on 127.0.0.1 (http, or https with a given key and
 * certificate): every request is logged (method, path, the Authorization header it carried) and
 * answered by the test's handler, which may redirect, stall after the headers, trickle bytes,
 * or forward to a real `git http-backend` (see http-backend.ts) and rewrite what it answers:
 * extra ref lines in the advertisement, a pack of the test's making, a side-band error.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface HostileRequest {
  method: string;
  /** Path and query. */
  url: string;
  authorization: string | null;
}

export interface HostileServer {
  /** http(s)://127.0.0.1:<port> */
  origin: string;
  requests: HostileRequest[];
  close(): Promise<void>;
}

export type HostileHandler = (req: IncomingMessage, body: Buffer, res: ServerResponse) => void | Promise<void>;

export async function startHostileServer(handler: HostileHandler, options: { tls?: { key: string; cert: string } } = {}): Promise<HostileServer> {
  const requests: HostileRequest[] = [];
  const sockets = new Set<Socket>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', authorization: req.headers.authorization ?? null });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      Promise.resolve(handler(req, Buffer.concat(chunks), res)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(error));
      });
    });
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, handle) : createServer(handle);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Headers sent, then nothing: the connection stays open and silent. */
export function stallAfterHeaders(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/x-git-upload-pack-advertisement', 'Content-Length': '100000' });
  res.flushHeaders();
}

/** Headers, then one byte every `everyMs` (a declared length it never reaches). */
export function trickle(res: ServerResponse, everyMs: number): void {
  stallAfterHeaders(res);
  const timer = setInterval(() => {
    if (res.destroyed) clearInterval(timer);
    else res.write('0');
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}

/** Forwards a request to a plain-http backend (e.g. git http-backend); resolves with its answer. */
export function forward(backendOrigin: string, req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'accept', 'git-protocol', 'content-encoding']) if (req.headers[name]) headers[name] = String(req.headers[name]);
    const out = request(`${backendOrigin}${req.url}`, { method: req.method, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(answer.headers)) if (typeof v === 'string' && k !== 'content-length' && k !== 'transfer-encoding') h[k] = v;
        resolve({ status: answer.statusCode ?? 0, headers: h, body: Buffer.concat(chunks) });
      });
    });
    out.on('error', reject);
    out.end(body);
  });
}

export function pkt(payload: string | Buffer): Buffer {
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, '0')), bytes]);
}

/**
 * An upload-pack advertisement with `extra` ref lines added after git's own (before the final
 * flush): names a real server would never advertise.
 */
export function withExtraRefs(advertisement: Buffer, extra: ReadonlyArray<{ oid: string; ref: string }>): Buffer {
  if (!advertisement.subarray(advertisement.length - 4).equals(Buffer.from('0000'))) throw new Error('advertisement does not end with a flush');
  const lines = extra.map(({ oid, ref }) => pkt(`${oid} ${ref}\n`));
  return Buffer.concat([advertisement.subarray(0, advertisement.length - 4), ...lines, Buffer.from('0000')]);
}

/** An upload-pack answer (side-band-64k) carrying `pack` on band 1, or an error on band 3. */
export function uploadPackAnswer(content: { pack: Uint8Array } | { error: string }): Buffer {
  const parts = [pkt('NAK\n')];
  if ('pack' in content) {
    for (let at = 0; at < content.pack.length; at += 65000) parts.push(pkt(Buffer.concat([Buffer.from([1]), Buffer.from(content.pack.subarray(at, at + 65000))])));
  } else {
    parts.push(pkt(Buffer.concat([Buffer.from([3]), Buffer.from(content.error, 'utf8')])));
  }
  parts.push(Buffer.from('0000'));
  return Buffer.concat(parts);
}
