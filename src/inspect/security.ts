/**
 * The inspector's two guards, pure: the Host header must name the address the server listens on
 * (a DNS-rebinding page reaches 127.0.0.1 under its own host name and is refused), and every
 * state-changing request must carry the random token the page received at start-up (a
 * cross-site form or fetch cannot read the page, so it cannot know the token).
 */
import { ForgeError } from '../errors';

/** The Host values a browser sends for this server: host:port, and localhost:port for the loopback address. */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set([`${host.includes(":") ? `[${host}]` : host}:${port}`.toLowerCase()]);
  if (host === '127.0.0.1' || host === '::1' || host === 'localhost') {
    for (const alias of ['127.0.0.1', 'localhost', '[::1]']) names.add(`${alias}:${port}`);
  }
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
function sameSecret(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

export const TOKEN_HEADER = 'x-forge-token';

export function checkToken(given: string | undefined, token: string): void {
  if (given !== undefined && sameSecret(given, token)) return;
  throw new ForgeError('INSPECT_TOKEN_INVALID', given === undefined ? 'This request changes the repository and needs the inspector token; none was sent.' : 'The inspector token sent with this request is not the one of this server.', {
    hint: `Send the token the page received at start-up in the ${TOKEN_HEADER} header; reload the page if the server was restarted.`,
  });
}
