/**
 * Credentials for a remote, in git users' order: user:password in the URL, else a token from the
 * environment (FORGE_REMOTE_TOKEN, with FORGE_REMOTE_USER or "x-access-token" as the user name,
 * which GitHub, GitLab and Gitea accept for tokens), else an optional helper (the CLI asks
 * `git credential fill`). Only ever turned into an Authorization header, sent only to the origin
 * they were given for (the transport checks it on every request); never printed.
 */
import type { RemoteEndpoint } from './remote-url';

export interface Credentials {
  username: string;
  password: string;
}

/**
 * git's credential helper protocol (the CLI runs `git credential fill|approve|reject`): `fill`
 * asks for credentials for a URL (null: none); after the server took them `approve` lets the
 * helper store them, after it refused them `reject` lets the helper forget them, as git does.
 */
export interface CredentialHelper {
  fill(url: string): Promise<Credentials | null>;
  approve?(url: string, credentials: Credentials): Promise<void>;
  reject?(url: string, credentials: Credentials): Promise<void>;
}

export const TOKEN_ENV = 'FORGE_REMOTE_TOKEN';
export const TOKEN_USER_ENV = 'FORGE_REMOTE_USER';
const TOKEN_DEFAULT_USER = 'x-access-token';

export function credentialsFromEnvironment(endpoint: RemoteEndpoint, env: Record<string, string | undefined>): Credentials | null {
  if (endpoint.password !== undefined || endpoint.username !== undefined) {
    return { username: endpoint.username ?? '', password: endpoint.password ?? '' };
  }
  const token = env[TOKEN_ENV];
  if (token !== undefined && token !== '') return { username: env[TOKEN_USER_ENV] || TOKEN_DEFAULT_USER, password: token };
  return null;
}

export function basicAuthorization(credentials: Credentials): string {
  const bytes = new TextEncoder().encode(`${credentials.username}:${credentials.password}`);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `Basic ${btoa(binary)}`;
}
