/**
 * `forge mount`'s library call: a session's live view at a directory through FUSE. Checks the
 * mount point (a mount left by a killed process is cleaned up first), takes the session's lease,
 * and serves MountFs through fuse-native until unmount().
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { ForgeError } from '../../errors';
import { pruneScratch, sessionIdsOf, type Session } from '../../session';
import type { ToolsConfig } from '../../tools';
import { MountFs } from '../mount-fs';
import { GuestQueue, type SerialQueue } from '../../session/serial-queue';
import { fuseOps } from './fuse-ops';
import { loadFuse, withFuseOptions, type FuseInstance } from './fuse-native';
import { forgeFsName, mountAt, parseForgeFsName } from './mount-table';
import { OverlayScratch } from './overlay-scratch';
import { ScratchDir, scratchDirOf } from './scratch-dir';
import { rememberMount } from './mounts-in-process';

const run = promisify(execFile);

export interface MountSessionOptions {
  /** Ignored paths on real disk in the session's scratch directory (default true). */
  scratch?: boolean;
  /**
   * The working tree's ignored directories (installed node_modules/) read-only beneath the
   * scratch layer, copied up on write (default: true for a non-bare repository). Needs the scratch layer.
   */
  worktreeIgnored?: boolean;
  /** The tools' configuration (its denied paths are invisible in the mount too). */
  config?: ToolsConfig;
  /** Shared with tool calls this process makes on the same session (forge mcp --mount). */
  queue?: SerialQueue;
  /** Where unexpected failures inside the file system are reported (default: stderr). */
  log?: (line: string) => void;
  /** Top-most ignored directories as links to the scratch directory, out of FUSE's way (default true). */
  bypass?: boolean;
  /**
   * For benchmarks (bench/mount-bench.mjs measures what each lever buys): kernel caching the
   * mount does not use, because Forge's tools change the view behind the kernel's back.
   */
  kernelCaching?: { entryTimeoutS?: number; attrTimeoutS?: number; kernelCache?: boolean; bigWrites?: boolean };
}

export interface MountedSession {
  readonly dir: string;
  readonly fs: MountFs;
  /** The scratch directory of ignored paths, when there is one. */
  readonly scratchDir?: string;
  /** The working tree whose ignored directories show beneath the scratch layer, when they do. */
  readonly lowerDir?: string;
  /** Writes what open files still buffer, then unmounts (lazily, if a process still has a file open). */
  unmount(): Promise<void>;
}

export async function mountSession(session: Session, dir: string, options: MountSessionOptions = {}): Promise<MountedSession> {
  const mountPoint = resolve(dir);
  // A guest of a shared queue: a run_command in this process can let the mount's operations in while it waits for them.
  if (options.queue !== undefined && !(options.queue instanceof GuestQueue)) options = { ...options, queue: new GuestQueue(options.queue) };
  if (process.platform === 'linux' && !existsSync('/dev/fuse')) {
    throw new ForgeError('MOUNT_UNAVAILABLE', 'There is no /dev/fuse on this machine, so a session cannot be mounted.', {
      hint: 'Load the fuse kernel module (modprobe fuse), or in a container pass --device /dev/fuse --cap-add SYS_ADMIN; or use forge mount --copy (a real directory synced at each turn).',
    });
  }
  const Fuse = loadFuse();
  await clearStaleMount(mountPoint);
  checkMountPoint(mountPoint);
  // The mount is a writer: another process writing the session is SESSION_BUSY now, not at the first write.
  await session.prepareCall();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let scratchDir: string | undefined;
  if (options.scratch !== false) {
    // Sessions deleted since (their branch is gone) leave their scratch directories here: removed now.
    await pruneScratch(session.repo.fs, session.repo.commonDir, await sessionIdsOf(session.repo.refs));
    scratchDir = scratchDirOf(session.repo.commonDir, session.id);
    mkdirSync(scratchDir, { recursive: true });
  }
  const lowerRoot = options.worktreeIgnored !== false ? session.repo.workdir : null;
  let fs: MountFs | undefined;
  const scratch = scratchDir === undefined ? undefined : lowerRoot === null ? new ScratchDir(scratchDir) : new OverlayScratch(scratchDir, resolve(lowerRoot), (path, isDir) => fs!.inIgnoredDir(path, isDir), mountPoint);
  fs = new MountFs(session, {
    ...(scratch !== undefined ? { scratch } : {}),
    ...(options.config !== undefined ? { config: options.config } : {}),
    ...(options.queue !== undefined ? { queue: options.queue } : {}),
    ...(options.bypass !== undefined ? { bypass: options.bypass } : {}),
  });
  const caching = options.kernelCaching ?? {};
  // big_writes: up to 128 KiB per write round trip instead of 4 KiB (a 100 MB write: 3.9 -> 2.6 s); no caching.
  const ForgeFuse = withFuseOptions(Fuse, ['atomic_o_trunc', ...((caching.bigWrites ?? true) ? ['big_writes'] : [])]);
  const fuse: FuseInstance = new ForgeFuse(mountPoint, fuseOps(fs, Fuse, { log }), {
    // Forge's tools change the view behind the kernel's back: nothing is cached past one call
    // (strings, as the binding skips a falsy 0), and a file's pages are dropped at each open.
    entryTimeout: String(caching.entryTimeoutS ?? 0),
    attrTimeout: String(caching.attrTimeoutS ?? 0),
    ...(caching.kernelCache ? { kernelCache: true } : {}),
    fsname: forgeFsName(session.id, process.pid),
    subtype: 'forge',
    // The binding gives up on an operation after this long; a large file's close can take a while.
    timeout: 120_000,
  });
  await new Promise<void>((done, fail) => fuse.mount((error) => (error ? fail(new ForgeError('MOUNT_FAILED', `Cannot mount at ${mountPoint}: ${error.message}.`)) : done())));
  let unmounted: Promise<void> | undefined;
  return rememberMount(session, {
    dir: mountPoint,
    fs,
    ...(scratchDir !== undefined ? { scratchDir } : {}),
    ...(scratch instanceof OverlayScratch ? { lowerDir: scratch.lowerRoot } : {}),
    unmount: () =>
      (unmounted ??= (async () => {
        await fs.flushAll();
        await new Promise<void>((done, fail) => fuse.unmount((error) => (error ? fail(new ForgeError('MOUNT_FAILED', `Cannot unmount ${mountPoint}: ${error.message}.`)) : done())));
      })()),
  });
}

/**
 * Ends the mount at `dir` from another process: the mounting process (its pid is in the mount's
 * name) is asked to stop (SIGTERM: it writes what it buffers, unmounts and gives the lease up);
 * a mount whose process is gone is detached at once.
 */
export async function unmountDir(dir: string, { waitMs = 15_000 } = {}): Promise<{ dir: string; stale: boolean }> {
  const mountPoint = resolve(dir);
  const entry = mountAt(mountPoint);
  if (entry === null) throw new ForgeError('MOUNT_POINT_INVALID', `Nothing is mounted at ${mountPoint}.`);
  const owner = parseForgeFsName(entry.source);
  if (owner === null) throw new ForgeError('MOUNT_POINT_INVALID', `${mountPoint} is not a forge mount (it is ${entry.source}, ${entry.fsType}); unmount it with umount.`);
  if (owner.pid !== process.pid && isAlive(owner.pid)) {
    process.kill(owner.pid, 'SIGTERM');
    const deadline = Date.now() + waitMs;
    while (mountAt(mountPoint) !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (mountAt(mountPoint) === null) return { dir: mountPoint, stale: false };
  }
  await detach(mountPoint);
  return { dir: mountPoint, stale: true };
}

/** A mount at the mount point whose process was killed answers ENOTCONN: it is detached so the point can be used again. */
async function clearStaleMount(mountPoint: string): Promise<void> {
  const entry = mountAt(mountPoint);
  let connected = true;
  try {
    statSync(mountPoint);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOTCONN') return; // missing: checkMountPoint says so
    connected = false;
  }
  if (entry === null && connected) return;
  const owner = entry ? parseForgeFsName(entry.source) : null;
  if (connected && !(owner && !isAlive(owner.pid))) {
    throw new ForgeError('MOUNT_POINT_BUSY', `${mountPoint} is already a mount point${owner ? ` (session ${owner.session}, process ${owner.pid})` : ''}.`, {
      hint: owner ? `Unmount it first: forge mount --unmount ${mountPoint}` : 'Choose an empty directory that is not a mount point.',
    });
  }
  await detach(mountPoint);
}

async function detach(mountPoint: string): Promise<void> {
  try {
    await run(process.platform === 'darwin' ? 'umount' : 'fusermount', process.platform === 'darwin' ? ['-f', mountPoint] : ['-uz', mountPoint]);
  } catch (error) {
    if (mountAt(mountPoint) === null) return;
    throw new ForgeError('MOUNT_FAILED', `Cannot detach the mount at ${mountPoint}: ${(error as Error).message.split('\n')[0]}`, { hint: `Try: umount -l ${mountPoint}` });
  }
}

function checkMountPoint(mountPoint: string): void {
  let isDir = false;
  try {
    isDir = statSync(mountPoint).isDirectory();
  } catch {
    throw new ForgeError('MOUNT_POINT_INVALID', `Cannot mount at ${mountPoint}: no such directory.`, { hint: `Create it first: mkdir -p ${mountPoint}` });
  }
  if (!isDir) throw new ForgeError('MOUNT_POINT_INVALID', `Cannot mount at ${mountPoint}: it is not a directory.`);
  if (readdirSync(mountPoint).length > 0) {
    throw new ForgeError('MOUNT_POINT_INVALID', `Cannot mount at ${mountPoint}: the directory is not empty (its files would be hidden under the mount).`, { hint: 'Mount on an empty directory.' });
  }
}

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
