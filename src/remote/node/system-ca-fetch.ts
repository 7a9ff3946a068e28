/**
 * `fetch` for https remotes that trusts the system's CA store as well as Node's bundled one, as
 * git does through its TLS library: a company's private CA installed on the machine is trusted by
 * `git push` and must be by `forge push`. Node 20's fetch knows only its own bundle (and
 * NODE_EXTRA_CA_CERTS, read at start-up). The store: the file SSL_CERT_FILE names (OpenSSL's and
 * git's variable), else the first of the usual bundles (Debian/Ubuntu, Fedora/RHEL, openSUSE,
 * Alpine/macOS). Without one, or for http, the global fetch is used.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { FetchFunction } from '../http-transport';

export const SYSTEM_CA_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/ca-bundle.pem', '/etc/ssl/cert.pem'];
const MAX_REDIRECTS = 5;
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
  const globalFetch: FetchFunction = (url, init) => globalThis.fetch(url, init as RequestInit);
  if (bundle === null) return globalFetch;
  const ca = [...rootCertificates, bundle];
  return (url, init) => (url.startsWith('https:') ? httpsFetch(url, init, ca, 0) : globalFetch(url, init));
}

function httpsFetch(url: string, init: Parameters<FetchFunction>[1], ca: string[], redirects: number): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method, headers: init.headers, ca, ...(init.signal ? { signal: init.signal } : {}) }, (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      // As fetch does: follow redirects, a POST's only when the method is kept (307, 308).
      if (location && [301, 302, 303, 307, 308].includes(status) && (init.method === 'GET' || status >= 307)) {
        res.resume();
        if (redirects >= MAX_REDIRECTS) return reject(new Error(`too many redirects from ${url}`));
        const next = new URL(location, url).toString();
        const followed = next.startsWith('https:') ? httpsFetch(next, init, ca, redirects + 1) : globalThis.fetch(next, init as RequestInit);
        return followed.then(resolve, reject);
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve(new Response(NO_BODY.has(status) ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers }));
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
