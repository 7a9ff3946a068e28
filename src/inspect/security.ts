/**
 * The inspector's guards, pure:
 * - Host: the Host header must name an address the server answers on (a DNS-rebinding page
 *   reaches 127.0.0.1 under its own host name and is refused). Loopback names always work, so
 *   the person at the machine gets in whatever address the server is bound to.
 * - Access: every request needs the access cookie, which the server sets only on a request that
 *   carries the secret printed on its terminal (`/?token=...`, as Jupyter does). Nothing served
 *   to a request without the cookie reveals a secret.
 * - Cross-site writes: every state-changing request also carries the page's own token (in the
 *   page's HTML, which only a holder of the cookie receives, and which another site's page
 *   cannot read) in a header a cross-site form cannot set.
 */
import { ForgeError } from '../errors';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Whether an address to listen on stays on this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** Listening on every address (0.0.0.0, ::): the machine's own addresses name it. */
export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

const hostPort = (host: string, port: number) => `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`.toLowerCase();

/**
 * The Host values a browser sends for this server: the bound address, the loopback names, and
 * for a wildcard bind the machine's own addresses and names (`machineNames`).
 */
export function allowedHosts(host: string, port: number, machineNames: readonly string[] = []): Set<string> {
  const names = new Set([...LOOPBACK_NAMES, ...(isWildcard(host) ? machineNames : [])].map((n) => hostPort(n, port)));
  if (!isWildcard(host)) names.add(hostPort(host, port));
  return names;
}

export function checkHost(header: string | undefined, allowed: ReadonlySet<string>): void {
  if (header !== undefined && allowed.has(header.toLowerCase())) return;
  throw new ForgeError('INSPECT_HOST_REFUSED', `Refused a request for host "${header ?? ''}": this inspector answers only ${[...allowed].join(', ')}.`, {
    data: { host: header ?? null },
    hint: 'Open the URL that forge inspect printed.',
  });
}

/** Compares in time independent of where the strings differ. */
export function sameSecret(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

export const TOKEN_HEADER = 'x-forge-token';

/** The access cookie's name: per port, since browsers share cookies between ports of a host. */
export function accessCookieName(port: number): string {
  return `forge-inspect-${port}`;
}

/** The value of one cookie of a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Set-Cookie for the access cookie: not readable by scripts, never sent by other sites' requests. */
export function accessCookie(name: string, value: string): string {
  return `${name}=${value}; HttpOnly; SameSite=Strict; Path=/`;
}

export function checkAccess(given: string | undefined, secret: string): void {
  if (given !== undefined && sameSecret(given, secret)) return;
  throw new ForgeError('INSPECT_ACCESS_DENIED', 'This inspector answers only the browser that opened the URL forge inspect printed on its terminal (it carries a secret token).', {
    hint: 'Open the URL forge inspect printed (http://…/?token=…); after a restart of forge inspect, open its new URL.',
  });
}

export function checkToken(given: string | undefined, token: string): void {
  if (given !== undefined && sameSecret(given, token)) return;
  throw new ForgeError('INSPECT_TOKEN_INVALID', given === undefined ? 'This request changes the repository and needs the inspector token; none was sent.' : 'The inspector token sent with this request is not the one of this server.', {
    hint: `Send the token the page received at start-up in the ${TOKEN_HEADER} header; reload the page if the server was restarted.`,
  });
}
