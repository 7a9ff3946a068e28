/**
 * Remote URLs: which transports are spoken (https; http to loopback or with allowHttp), the
 * credentials a URL carries (taken out of it: fetch refuses URLs with credentials, and they must
 * never be printed), and the redacted form used in every message. Pure.
 */
import { ForgeError } from '../errors';

export interface RemoteEndpoint {
  /** The URL without credentials, query or fragment, without a trailing slash. */
  url: string;
  /** `url` safe to print: the same, as credentials were removed (kept separate to make intent plain). */
  display: string;
  username?: string;
  password?: string;
}

export interface EndpointOptions {
  /** Allow plain http to hosts other than loopback. */
  allowHttp?: boolean;
}

/**
 * A URL with any user:password replaced by "***", for messages about an unparsed URL. Up to the
 * last "@": a password may hold an unencoded "/" or "@" (redacting too much is harmless). A
 * spec without a scheme loses a leading "user:password@" too.
 */
export function redactUrl(url: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url.replace(/^([a-z][a-z0-9+.-]*:\/\/).*@/i, '$1***@');
  return url.replace(/^[^@]*:.*@/, '***@');
}

const SCP_LIKE = /^[^/:]+@[^/:]+:/;

export function parseRemoteUrl(raw: string, options: EndpointOptions = {}): RemoteEndpoint {
  const shown = redactUrl(raw);
  if (/^ssh:\/\//i.test(raw) || /^git\+ssh:\/\//i.test(raw) || SCP_LIKE.test(raw)) {
    throw new ForgeError('REMOTE_PROTOCOL_UNSUPPORTED', `Remote ${shown} is an ssh remote; forge speaks git's smart HTTP only.`, {
      data: { url: shown },
      hint: 'Use the https URL of the repository (with a token in FORGE_REMOTE_TOKEN), or push with git itself.',
    });
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ForgeError('REMOTE_PROTOCOL_UNSUPPORTED', `Remote ${shown} is not an http(s) URL; forge speaks git's smart HTTP only (no file paths or git://).`, {
      data: { url: shown },
      hint: 'Give an https:// URL, or a remote name configured with `git remote add NAME URL`.',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ForgeError('REMOTE_PROTOCOL_UNSUPPORTED', `Remote ${shown} uses ${url.protocol.slice(0, -1)}; forge speaks git's smart HTTP only: use https.`, { data: { url: shown } });
  }
  let username: string | undefined;
  let password: string | undefined;
  try {
    username = url.username !== '' ? decodeURIComponent(url.username) : undefined;
    password = url.password !== '' ? decodeURIComponent(url.password) : undefined;
  } catch {
    throw new ForgeError('REMOTE_URL_INVALID', `Remote ${shown} has a user name or password that is not valid percent-encoding.`, {
      data: { url: shown },
      hint: 'Encode "%" as %25 (and "@", ":" and "/" as %40, %3A, %2F), or pass the token in FORGE_REMOTE_TOKEN.',
    });
  }
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  const clean = url.toString().replace(/\/+$/, '');
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !options.allowHttp) {
    throw new ForgeError('REMOTE_INSECURE_HTTP', `Remote ${clean} is plain http to a host that is not loopback: credentials and code would travel unencrypted.`, {
      data: { url: clean },
      hint: 'Use https, or pass --allow-http if this network is trusted.',
    });
  }
  return { url: clean, display: clean, ...(username !== undefined ? { username } : {}), ...(password !== undefined ? { password } : {}) };
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
