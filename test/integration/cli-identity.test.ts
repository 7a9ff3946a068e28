/**
 * The identity of the commits the CLI writes follows git: GIT_AUTHOR_* / GIT_COMMITTER_*, the
 * repository's config, the global config (~/.gitconfig, $XDG_CONFIG_HOME/git/config), the system
 * config, then Forge <forge@localhost>. Read back with git log.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

interface Setup {
  home?: string;
  xdg?: string;
  system?: string;
  repo?: string;
  env?: Record<string, string>;
}

/** A fresh HOME, XDG dir and system file holding only what the case gives; the author and committer of `forge session new`. */
function identities(setup: Setup): string {
  const root = makeTempDir('identity');
  const home = join(root, 'home');
  const xdg = join(root, 'xdg');
  mkdirSync(join(xdg, 'git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  if (setup.home) writeFileSync(join(home, '.gitconfig'), setup.home);
  if (setup.xdg) writeFileSync(join(xdg, 'git', 'config'), setup.xdg);
  const env: Record<string, string> = { HOME: home, XDG_CONFIG_HOME: xdg, ...setup.env };
  if (setup.system) {
    writeFileSync(join(root, 'system'), setup.system);
    env.GIT_CONFIG_SYSTEM = join(root, 'system');
    env.GIT_CONFIG_NOSYSTEM = '';
  }
  const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
  if (setup.repo) appendFileSync(join(repo.gitdir, 'config'), setup.repo);
  const run = forge(['session', 'new', '--repo', repo.dir, '--id', 'who'], { env });
  expect(run.stderr).toBe('');
  expectFsckClean(repo.gitdir);
  return git(repo.dir, ['log', '-1', '--format=%an <%ae> / %cn <%ce>', 'forge/session/who']).stdout.trim();
}

const user = (name: string, email: string) => `[user]\n\tname = ${name}\n\temail = ${email}\n`;

describe('commit identity', () => {
  it('falls back to Forge <forge@localhost> when git has none', () => {
    expect(identities({})).toBe('Forge <forge@localhost> / Forge <forge@localhost>');
  });

  it('takes ~/.gitconfig, $XDG_CONFIG_HOME/git/config and the system config, ~/.gitconfig over XDG over system', () => {
    expect(identities({ system: user('Sys', 'sys@x') })).toBe('Sys <sys@x> / Sys <sys@x>');
    expect(identities({ xdg: user('Xdg', 'xdg@x'), system: user('Sys', 'sys@x') })).toBe('Xdg <xdg@x> / Xdg <xdg@x>');
    expect(identities({ home: user('Home', 'home@x'), xdg: user('Xdg', 'xdg@x') })).toBe('Home <home@x> / Home <home@x>');
  });

  it("the repository's config wins over the user's", () => {
    expect(identities({ home: user('Home', 'home@x'), repo: user('Repo', 'repo@x') })).toBe('Repo <repo@x> / Repo <repo@x>');
  });

  it('GIT_AUTHOR_* and GIT_COMMITTER_* win over every config, each for its role', () => {
    const env = { GIT_AUTHOR_NAME: 'Env Author', GIT_AUTHOR_EMAIL: 'author@x', GIT_COMMITTER_NAME: 'Env Committer' };
    expect(identities({ repo: user('Repo', 'repo@x'), env })).toBe('Env Author <author@x> / Env Committer <repo@x>');
  });
});
