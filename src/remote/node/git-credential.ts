/**
 * git's credential helper protocol, where a git binary exists: `git credential fill` with the
 * URL's protocol, host and path, never prompting (GIT_TERMINAL_PROMPT=0), asked only after the
 * server answered 401 (no git, no helper or no answer is "no credentials"); then, as git does,
 * `git credential approve` once the server took them and `git credential reject` when it refused
 * them, so a helper keeps what works and drops what does not.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import type { CredentialHelper, Credentials } from '../auth';

function describe(url: string, credentials?: Credentials): string {
  const parsed = new URL(url);
  const lines = [`protocol=${parsed.protocol.slice(0, -1)}`, `host=${parsed.host}`, `path=${parsed.pathname.replace(/^\//, '')}`];
  if (credentials) lines.push(`username=${credentials.username}`, `password=${credentials.password}`);
  return `${lines.join('\n')}\n\n`;
}

function gitCredential(action: 'fill' | 'approve' | 'reject', input: string): SpawnSyncReturns<string> {
  return spawnSync('git', ['credential', action], { input, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '' }, timeout: 10_000 });
}

export const gitCredentialHelper: CredentialHelper = {
  async fill(url) {
    const result = gitCredential('fill', describe(url));
    if (result.error || result.status !== 0) return null;
    const fields = new Map(result.stdout.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as [string, string]));
    const password = fields.get('password');
    return password === undefined ? null : { username: fields.get('username') ?? '', password };
  },
  async approve(url, credentials) {
    gitCredential('approve', describe(url, credentials));
  },
  async reject(url, credentials) {
    gitCredential('reject', describe(url, credentials));
  },
};
