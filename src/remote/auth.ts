/**
 * Credentials for a remote, in git users' order: user:password in the URL, else a token from the
 * environment (FORGE_REMOTE_TOKEN, with FORGE_REMOTE_USER or "x-access-token" as the user name,
 * which GitHub, GitLab and Gitea accept for tokens), else an optional helper (the CLI asks
 * `git credential fill`). Only ever turned into an Authorization header; never printed.
 */
import type { RemoteEndpoint } from './remote-url';

export interface Credentials {
  username: string;
  password: string;
}

/** Asks for credentials for a URL (git's credential helper protocol in the CLI); null: none. */
export type CredentialHelper = (url: string) => Promise<Credentials | null>;

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
