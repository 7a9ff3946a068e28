/**
 * Runs the real git binary, the oracle of our tests, in a hermetic environment: no system or
 * user config, no inherited GIT_* variables (a test run started from a git hook would otherwise
 * point every command at the wrong repository), a fixed identity, fixed dates and the C locale.
 * So what a test sees does not depend on the machine, and commits made with it have stable oids.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_AUTHOR, TEST_GIT_DATE } from './test-identity';

export interface GitOptions {
  /** Standard input. */
  input?: string | Buffer;
  /** Extra variables, applied over the hermetic ones (e.g. another GIT_AUTHOR_DATE). */
  env?: Record<string, string>;
  /** Return a non-zero status instead of throwing. */
  allowFail?: boolean;
}

export interface GitResult {
  stdout: string;
  stderr: string;
  status: number;
  stdoutBuffer: Buffer;
}

/** Runs `git <args>` in cwd synchronously. Throws (with stderr) on failure unless allowFail. */
export function git(cwd: string, args: string[], opts: GitOptions = {}): GitResult {
  const result = spawnSync('git', args, {
    cwd,
    env: { ...hermeticGitEnv(), ...opts.env },
    input: opts.input,
    maxBuffer: 1024 * 1024 * 1024,
  });
  if (result.error) throw new Error(`could not run git ${args.join(' ')}: ${result.error.message}`);
  const stdoutBuffer = result.stdout;
  const out: GitResult = {
    stdout: stdoutBuffer.toString('utf8'),
    stderr: result.stderr.toString('utf8'),
    // null when killed by a signal
    status: result.status ?? -1,
    stdoutBuffer,
  };
  if (out.status !== 0 && !opts.allowFail) {
    const signal = result.signal ? ` (signal ${result.signal})` : '';
    throw new Error(`git ${args.join(' ')} failed in ${cwd} with status ${out.status}${signal}:\n${out.stderr || out.stdout}`);
  }
  return out;
}

/** The environment git() runs with; exported for helpers that spawn git some other way. */
export function hermeticGitEnv(): Record<string, string> {
  const home = testHome();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_DATE: TEST_GIT_DATE,
    GIT_COMMITTER_DATE: TEST_GIT_DATE,
    GIT_TERMINAL_PROMPT: '0',
    GIT_EDITOR: 'true',
    GIT_PAGER: 'cat',
    LC_ALL: 'C',
    LANG: 'C',
    TZ: 'UTC',
  };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  return env;
}

const GITCONFIG = `[user]
\tname = ${TEST_AUTHOR.name}
\temail = ${TEST_AUTHOR.email}
[init]
\tdefaultBranch = main
[core]
\tautocrlf = false
[commit]
\tgpgsign = false
[advice]
\tdetachedHead = false
[gc]
\t# Never repack behind a test's back: tests inspect the object store as the engine left it.
\tauto = 0
[maintenance]
\tauto = false
`;

let home: string | undefined;

/**
 * The HOME holding only the config above: os.tmpdir()/forge-test-home-<uid>-<hash of config>,
 * shared by every worker and run and never removed (vitest kills workers before exit handlers
 * run). Published by renaming a complete directory into place, so no worker sees it half written.
 */
function testHome(): string {
  if (home) return home;
  const root = realpathSync(tmpdir());
  const hash = createHash('sha256').update(GITCONFIG).digest('hex').slice(0, 12);
  const dir = join(root, `forge-test-home-${process.getuid?.() ?? 0}-${hash}`);
  if (!existsSync(join(dir, '.gitconfig'))) {
    const staging = mkdtempSync(`${dir}.staging-`);
    mkdirSync(join(staging, '.config'));
    writeFileSync(join(staging, '.gitconfig'), GITCONFIG);
    try {
      renameSync(staging, dir);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another worker won the race
    }
  }
  if (readFileSync(join(dir, '.gitconfig'), 'utf8') !== GITCONFIG) throw new Error(`unexpected git config in ${dir}`);
  home = dir;
  return dir;
}
