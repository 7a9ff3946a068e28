/**
 * The `fetch` of the remote commands in Node: node:http / node:https requests that
 * - trust the system's CA store as well as Node's bundled one, as git does through its TLS
 *   library (a company's private CA installed on the machine is trusted by `git push` and must
 *   be by `forge push`; Node 20's fetch knows only its own bundle). The store: the file
 *   SSL_CERT_FILE names (OpenSSL's and git's variable), else the first of the usual bundles
 *   (Debian/Ubuntu, Fedora/RHEL, openSUSE, Alpine/macOS);
 * - never follow a redirect: the 3xx answer goes back to the transport, which decides
 *   (`redirect.ts`) and sends credentials only to their own origin;
 * - enforce the TransferLimits, as curl does for git: connecting (TCP, TLS handshake) within
 *   connectTimeoutMs, and at least lowSpeedLimit bytes per second, both directions together,
 *   over every lowSpeedTimeMs window; otherwise the request is destroyed with a TransferTimeout.
 *   Bytes counted: request bytes the socket wrote, response headers and body bytes received (a
 *   server that trickles its body cannot hide behind TLS or chunk framing).
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { rootCertificates } from 'node:tls';
import { TransferTimeout, type FetchFunction, type TransferLimits } from '../http-transport';

export const SYSTEM_CA_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/ca-bundle.pem', '/etc/ssl/cert.pem'];
const NO_BODY = new Set([101, 204, 205, 304]);

/** The system's CA certificates (PEM), or null when no bundle is found. */
export function systemCaBundle(env: Record<string, string | undefined> = process.env, candidates = SYSTEM_CA_BUNDLES): string | null {
  for (const path of env.SSL_CERT_FILE ? [env.SSL_CERT_FILE] : candidates) {
    try {
      const pem = readFileSync(path, 'utf8');
      if (pem.includes('-----BEGIN CERTIFICATE-----')) return pem;
    } catch {
      // not this one
    }
  }
  return null;
}

export function createSystemCaFetch(env: Record<string, string | undefined> = process.env): FetchFunction {
  const bundle = systemCaBundle(env);
  const ca = bundle === null ? undefined : [...rootCertificates, bundle];
  return (url, init) => nodeFetch(url, init, ca);
}

function nodeFetch(url: string, init: Parameters<FetchFunction>[1], ca: string[] | undefined): Promise<Response> {
  const secure = url.startsWith('https:');
  const limits = init.limits;
  return new Promise((resolve, reject) => {
    let settled = false;
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    const finish = (action: () => void) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer), clearInterval(timer);
      action();
    };
    const options = { method: init.method, headers: init.headers, agent: false as const, ...(secure && ca ? { ca } : {}), ...(init.signal ? { signal: init.signal } : {}) };
    const req = (secure ? httpsRequest : httpRequest)(url, options, (res) => respond(res));
    const fail = (error: Error) => {
      req.destroy();
      finish(() => reject(error));
    };
    req.on('error', (error) => finish(() => reject(error)));

    let received = 0;
    if (limits && limits.connectTimeoutMs > 0) {
      const connect = setTimeout(() => fail(new TransferTimeout('connect', `no ${secure ? 'TLS ' : ''}connection to ${new URL(url).host} within ${limits.connectTimeoutMs / 1000} s (forge.connectTimeout)`)), limits.connectTimeoutMs);
      timers.push(connect);
      req.on('socket', (socket: Socket) => socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connect)));
    }
    if (limits && limits.lowSpeedLimit > 0 && limits.lowSpeedTimeMs > 0) {
      let last = 0;
      const window = setInterval(() => {
        const now = received + (req.socket?.bytesWritten ?? 0);
        const moved = now - last;
        last = now;
        if (moved < (limits.lowSpeedLimit * limits.lowSpeedTimeMs) / 1000) {
          fail(new TransferTimeout('low-speed', `${moved} bytes in the last ${limits.lowSpeedTimeMs / 1000} s, below http.lowSpeedLimit (${limits.lowSpeedLimit} bytes/s over http.lowSpeedTime ${limits.lowSpeedTimeMs / 1000} s)`));
        }
      }, limits.lowSpeedTimeMs);
      timers.push(window);
    }

    function respond(res: IncomingMessage): void {
      const status = res.statusCode ?? 0;
      received += res.rawHeaders.reduce((n, h) => n + h.length + 2, 0);
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        chunks.push(chunk);
      });
      res.on('error', (error) => fail(error));
      res.on('aborted', () => fail(new Error('the connection broke during the answer', { cause: { code: 'ECONNRESET' } })));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        finish(() => resolve(new Response(NO_BODY.has(status) ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers })));
      });
    }
    req.end(init.body);
  });
}
