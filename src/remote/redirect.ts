/**
 * Where a redirect may take a request, as git does by default (`http.followRedirects=initial`):
 * only the first request (the ref advertisement) is followed, and its target becomes the base of
 * every later request; a later redirect is refused. On every hop the rules of the remote URL hold
 * again - https or http to loopback (unless --allow-http) - and https never goes down to http;
 * at most MAX_REDIRECTS hops. Credentials are not this module's business: the transport sends
 * them only to the origin they were given for (see `http-transport.ts`). Pure.
 */
import { ForgeError, quoteRemote } from '../errors';
import { isLoopback } from './remote-url';

export const MAX_REDIRECTS = 5;
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export interface RedirectContext {
  /** The URL that answered with the redirect. */
  from: string;
  /** Its Location header (null: none). */
  location: string | null;
  /** Redirects already followed for this request. */
  hops: number;
  /** Whether this request may follow redirects at all (git: only the initial one). */
  followable: boolean;
  allowHttp: boolean;
  /** The remote as the user knows it, for messages. */
  label: string;
}

function refuse(context: RedirectContext, why: string, target?: string): ForgeError {
  return new ForgeError('REMOTE_REDIRECT_REFUSED', `Remote ${context.label} redirected ${target !== undefined ? `to ${quoteRemote(target)} ` : ''}and forge does not follow it: ${why}. Nothing was sent there and nothing changed locally.`, {
    data: { remote: context.label, ...(target !== undefined ? { location: quoteRemote(target) } : {}) },
    hint: 'If the repository moved, set its new https URL with `git remote set-url`; forge follows only the first request\'s redirects, as git does.',
  });
}

/** The URL to request next; throws REMOTE_REDIRECT_REFUSED when the redirect must not be followed. */
export function redirectTarget(context: RedirectContext): string {
  if (context.location === null || context.location === '') throw refuse(context, 'the answer has no Location');
  let next: URL;
  try {
    next = new URL(context.location, context.from);
  } catch {
    throw refuse(context, 'its Location is not a URL', context.location);
  }
  // What is shown never carries a user:password the server put in the Location.
  next.username = '';
  next.password = '';
  const shown = next.toString();
  if (!context.followable) throw refuse(context, 'only the first request of an operation may be redirected (git\'s http.followRedirects=initial)', shown);
  if (context.hops >= MAX_REDIRECTS) throw refuse(context, `more than ${MAX_REDIRECTS} redirects`, shown);
  if (next.protocol !== 'https:' && next.protocol !== 'http:') throw refuse(context, `${next.protocol.slice(0, -1)} is not http(s)`, shown);
  if (new URL(context.from).protocol === 'https:' && next.protocol === 'http:') throw refuse(context, 'it goes from https down to plain http', shown);
  if (next.protocol === 'http:' && !isLoopback(next.hostname) && !context.allowHttp) throw refuse(context, 'plain http to a host that is not loopback (pass --allow-http if this network is trusted)', shown);
  return shown;
}

/**
 * The new base URL after the advertisement was redirected to `target`: the target must still be
 * an advertisement (path ending in /info/refs, as git's update_url_from_redirect requires).
 */
export function baseAfterRedirect(target: string, context: RedirectContext): string {
  const url = new URL(target);
  if (!url.pathname.endsWith('/info/refs')) throw refuse(context, 'the new location is not a git advertisement (its path does not end in /info/refs)', target);
  return `${url.origin}${url.pathname.slice(0, -'/info/refs'.length)}`.replace(/\/+$/, '');
}
