/**
 * git's credential helper protocol, where a git binary exists: `git credential fill` with the
 * URL's protocol, host and path, never prompting (GIT_TERMINAL_PROMPT=0). Asked only after the
 * server answered 401; no git, no helper or no answer is "no credentials".
 */
import { spawnSync } from 'node:child_process';
import type { CredentialHelper } from '../auth';

export const gitCredentialHelper: CredentialHelper = async (url) => {
  const parsed = new URL(url);
  const input = `protocol=${parsed.protocol.slice(0, -1)}\nhost=${parsed.host}\npath=${parsed.pathname.replace(/^\//, '')}\n\n`;
  const result = spawnSync('git', ['credential', 'fill'], { input, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '' }, timeout: 10_000 });
  if (result.error || result.status !== 0) return null;
  const fields = new Map(result.stdout.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as [string, string]));
  const password = fields.get('password');
  return password === undefined ? null : { username: fields.get('username') ?? '', password };
};
