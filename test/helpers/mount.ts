/**
 * Mounted sessions for tests. A test that needs FUSE is skipped, with the reason printed, where
 * there is no /dev/fuse or no fuse-native binding; with FORGE_REQUIRE_FUSE=1 (CI) that skip is a
 * failure instead.
 *
 * The mount is served by THIS process's event loop: everything a test does in the mount must be
 * asynchronous (fs/promises, execFile), never a *Sync call or spawnSync, which would block the
 * loop that has to answer the kernel.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, onTestFinished } from 'vitest';
import { Repository } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { mountSession, type MountedSession } from '../../src/mount/node/mount-session';
import { SessionStore, type Session } from '../../src/session';
import { makeRepo, type MakeRepoOptions, type RepoHandle } from './repos';
import { makeTempDir } from './temp';
import * as nodeFs from 'node:fs';

export const run = promisify(execFile);

function fuseProblem(): string | null {
  if (process.platform !== 'linux') return `FUSE tests run on Linux only (this is ${process.platform})`;
  if (!existsSync('/dev/fuse')) return 'there is no /dev/fuse';
  try {
    createRequire(import.meta.url)('fuse-native');
  } catch (error) {
    return `the optional fuse-native binding does not load (${(error as Error).message.split('\n')[0]})`;
  }
  if (!['/bin/fusermount', '/usr/bin/fusermount'].some((p) => existsSync(p))) return 'fusermount is not installed (apt-get install fuse)';
  return null;
}

export const FUSE_PROBLEM = fuseProblem();

if (FUSE_PROBLEM !== null) {
  if (process.env.FORGE_REQUIRE_FUSE === '1') throw new Error(`FORGE_REQUIRE_FUSE=1 but the mount tests cannot run: ${FUSE_PROBLEM}`);
  console.warn(`Skipping the mount tests: ${FUSE_PROBLEM}.`);
}

/** describe() where FUSE works, describe.skip() (with the reason on the console) where not. */
export const describeMount: typeof describe = (FUSE_PROBLEM === null ? describe : describe.skip) as typeof describe;

export interface MountFixture {
  repo: RepoHandle;
  store: SessionStore;
  session: Session;
  mount: MountedSession;
  /** The mount point. */
  dir: string;
  /** An absolute path inside the mount. */
  at(path: string): string;
}

export async function openSession(repo: RepoHandle, id = 'm'): Promise<{ store: SessionStore; session: Session }> {
  const store = new SessionStore(await Repository.open({ fs: nodeFs, dir: repo.dir, platform: nodePlatform }));
  const session = await store.create({ id, base: 'main' });
  return { store, session };
}

/** A repository with these files, a session on it, mounted; unmounted when the test ends. */
export async function mountedRepo(
  files: MakeRepoOptions['files'],
  options: { scratch?: boolean; worktreeIgnored?: boolean; /** Runs on the repository before the mount (untracked files in its working tree). */ before?: (repo: RepoHandle) => Promise<void> } = {},
): Promise<MountFixture> {
  const repo = makeRepo({ files });
  await options.before?.(repo);
  const { store, session } = await openSession(repo);
  const dir = join(makeTempDir('mnt'), 'view');
  await fsp.mkdir(dir);
  const mount = await mountSession(session, dir, { scratch: options.scratch ?? true, ...(options.worktreeIgnored !== undefined ? { worktreeIgnored: options.worktreeIgnored } : {}) });
  onTestFinished(async () => {
    await mount.unmount();
    await session.close();
  });
  return { repo, store, session, mount, dir, at: (path) => join(dir, path) };
}

/**
 * Runs a shell script in a directory, asynchronously (the mount needs this process's event loop).
 * The child changes into the directory itself: with spawn's `cwd` the chdir happens before exec,
 * while libuv's spawn holds this process's loop waiting for that exec, and a chdir into our own
 * mount would wait for the loop forever.
 */
export async function sh(cwd: string, script: string): Promise<string> {
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', `cd -- "$1"\n${script}`, 'sh', cwd], { cwd: '/', maxBuffer: 64 << 20 });
  return stdout;
}
