/**
 * A remote as the user names it (`--remote NAME|URL`, default origin): its URL from
 * `remote.<name>.url`, credentials, and the transport that talks to it. Session branches keep
 * their names on the remote; what was last fetched of them lives in
 * `refs/remotes/<name>/forge/session/<id>`.
 */
import { ForgeError, quoteRemote } from '../errors';
import { refNameProblem, type Repository } from '../git';
import { credentialsFromEnvironment, type CredentialHelper } from './auth';
import { HttpTransport, type FetchFunction } from './http-transport';
import { parseRemoteUrl, redactUrl } from './remote-url';
import { transferLimits } from './transfer-config';

export const SESSION_HEADS = 'refs/heads/forge/session/';
export const DEFAULT_REMOTE = 'origin';

export interface RemoteOptions {
  /** A configured remote's name or an http(s) URL (default origin). */
  remote?: string;
  allowHttp?: boolean;
  /** Where FORGE_REMOTE_TOKEN / FORGE_REMOTE_USER and GIT_HTTP_LOW_SPEED_* are read (default: none). */
  env?: Record<string, string | undefined>;
  credentialHelper?: CredentialHelper;
  fetch?: FetchFunction;
}

export interface Remote {
  /** The configured name, or null for a bare URL (no remote-tracking refs then). */
  name: string | null;
  transport: HttpTransport;
}

export function sessionHead(id: string): string {
  return `${SESSION_HEADS}${id}`;
}

export function trackingRef(remote: string, id: string): string {
  return `refs/remotes/${remote}/forge/session/${id}`;
}

/** Why `id` cannot be a session id (null: it can): 1-64 letters, digits, ".", "_" or "-", a valid ref name. */
export function sessionIdProblem(id: string): string | null {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(id)) return 'a session id is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit';
  const problem = refNameProblem(sessionHead(id));
  return problem === null ? null : `it is not a valid ref name: ${problem}`;
}

export function checkSessionId(id: string): string {
  if (sessionIdProblem(id) !== null) {
    throw new ForgeError('INVALID_ARGUMENT', `Session id "${quoteRemote(id)}" is not valid: use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.`, { data: { id } });
  }
  return id;
}

export async function openRemote(repo: Repository, options: RemoteOptions = {}): Promise<Remote> {
  const spec = options.remote ?? DEFAULT_REMOTE;
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(spec) || /^[^/:]+@[^/:]+:/.test(spec);
  let name: string | null = null;
  let url = spec;
  if (!isUrl) {
    if (refNameProblem(`refs/remotes/${spec}/x`) !== null || spec.includes('/')) {
      throw new ForgeError('INVALID_ARGUMENT', `"${redactUrl(spec)}" is neither a remote name nor an http(s) URL.`, { data: { remote: redactUrl(spec) } });
    }
    const configured = await repo.config.getString(`remote.${spec}.url`);
    if (configured === undefined) {
      throw new ForgeError('REMOTE_NOT_FOUND', `No remote named "${spec}" in this repository (remote.${spec}.url is not set).`, {
        data: { remote: spec },
        hint: `Add it with \`git remote add ${spec} https://…\`, or pass --remote with a URL.`,
      });
    }
    name = spec;
    url = configured;
  }
  const endpoint = parseRemoteUrl(url, { allowHttp: options.allowHttp ?? false });
  const transport = new HttpTransport(endpoint, {
    credentials: credentialsFromEnvironment(endpoint, options.env ?? {}),
    ...(options.credentialHelper ? { credentialHelper: options.credentialHelper } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(name !== null ? { name } : {}),
    allowHttp: options.allowHttp ?? false,
    limits: await transferLimits(repo, options.env ?? {}),
  });
  return { name, transport };
}
