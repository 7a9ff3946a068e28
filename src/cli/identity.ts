/**
 * Commit identities as git finds them, resolved here (the adapter) and passed to the engine,
 * which reads no environment or home directory: GIT_AUTHOR_* / GIT_COMMITTER_* variables above
 * the repository's config; the system, XDG and ~/.gitconfig files (the later winning, as in git)
 * and then $EMAIL below it. The repository's own config the engine reads itself.
 * GIT_AUTHOR_DATE / GIT_COMMITTER_DATE fix each role's date (git's date formats, git-date.ts), and
 * the committer's (else the author's) is the clock of the whole command, so the session file a
 * turn writes is stamped alike and the same turn gives the same commit oid every time.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ForgeError } from '../errors';
import { parseGitConfig } from '../git/config-parser';
import { parseGitDate, type GitDate } from '../git/git-date';
import type { IdentitySources, Person } from '../git';

type Env = Readonly<Record<string, string | undefined>>;

/** The config files git reads below the repository's, lowest precedence first (git-config(1) FILES). */
export function userConfigFiles(env: Env, home: string): string[] {
  const system = env.GIT_CONFIG_NOSYSTEM ? [] : [env.GIT_CONFIG_SYSTEM || '/etc/gitconfig'];
  if (env.GIT_CONFIG_GLOBAL) return [...system, env.GIT_CONFIG_GLOBAL];
  const xdg = join(env.XDG_CONFIG_HOME || join(home, '.config'), 'git', 'config');
  return [...system, xdg, join(home, '.gitconfig')];
}

function person(name: string | undefined, email: string | undefined, date?: GitDate): Person | undefined {
  const out: Person = {};
  if (name) out.name = name;
  if (email) out.email = email;
  if (date) out.date = date;
  return out.name !== undefined || out.email !== undefined || out.date !== undefined ? out : undefined;
}

/** A GIT_*_DATE variable's date; unset or empty: none; not a date git reads: INVALID_ARGUMENT, as git refuses it. */
export function envDate(env: Env, variable: 'GIT_AUTHOR_DATE' | 'GIT_COMMITTER_DATE'): GitDate | undefined {
  const text = env[variable];
  if (text === undefined || text.trim() === '') return undefined;
  const date = parseGitDate(text);
  if (date === null) {
    throw new ForgeError('INVALID_ARGUMENT', `${variable} is not a date git reads: "${text}".`, {
      data: { variable, value: text },
      hint: 'Use "@<unix-seconds> <+hhmm>", RFC 2822 ("Thu, 07 Apr 2005 22:13:13 +0200") or ISO 8601 ("2005-04-07T22:13:13+02:00").',
    });
  }
  return date;
}

/** The command's clock when GIT_COMMITTER_DATE (else GIT_AUTHOR_DATE) fixes it; undefined: the system's. */
export function fixedClock(sources: IdentitySources): (() => Date) | undefined {
  const date = sources.committer?.date ?? sources.author?.date;
  return date === undefined ? undefined : () => new Date(date.timestamp * 1000);
}

/** Pure: the sources from the environment and the texts of the user config files (lowest first). */
export function identitySources(env: Env, configTexts: readonly string[]): IdentitySources {
  let name: string | undefined;
  let email: string | undefined;
  for (const text of configTexts) {
    const config = parseGitConfig(text);
    const last = (key: string) => {
      const value = config.get(key)?.at(-1);
      return typeof value === 'string' ? value : undefined;
    };
    name = last('user.name') ?? name;
    email = last('user.email') ?? email;
  }
  const sources: IdentitySources = {};
  const author = person(env.GIT_AUTHOR_NAME, env.GIT_AUTHOR_EMAIL, envDate(env, 'GIT_AUTHOR_DATE'));
  const committer = person(env.GIT_COMMITTER_NAME, env.GIT_COMMITTER_EMAIL, envDate(env, 'GIT_COMMITTER_DATE'));
  const defaults = person(name, email ?? env.EMAIL);
  if (author) sources.author = author;
  if (committer) sources.committer = committer;
  if (defaults) sources.defaults = defaults;
  return sources;
}

export function readIdentitySources(env: Env = process.env, home: string = homedir()): IdentitySources {
  const texts = userConfigFiles(env, home).flatMap((file) => {
    try {
      return [readFileSync(file, 'utf8')];
    } catch {
      return []; // absent or unreadable, as git skips it
    }
  });
  return identitySources(env, texts);
}
