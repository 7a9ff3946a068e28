/**
 * Where run_command runs for a session: in its mount. A mount this process already has (forge
 * mcp --mount, a library's mountSession) is used as it is; otherwise the session is mounted on
 * first use in a private temporary directory, kept for the process's life (a second command
 * costs no mount) and unmounted when it ends. Where FUSE is missing the answer is null and the
 * command runs in a copy, with the session's scratch directory (its ignored files) linked in.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, rmdirSync } from 'node:fs';
import { mkdtemp, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { CommandMount, CommandWorkspace } from '../../agent/node/run-command';
import { ForgeError } from '../../errors';
import type { Session } from '../../session';
import { GuestQueue } from '../../session/serial-queue';
import type { ToolsConfig } from '../../tools';
import type { WritableVfs } from '../../vfs/types';
import { lendView } from '../session-edits';
import { isAlive, mountSession, type MountedSession } from './mount-session';
import { parseForgeFsName, mountsStartingWith } from './mount-table';
import { mountOf } from './mounts-in-process';
import { scratchDirOf } from './scratch-dir';

const run = promisify(execFile);
const PRIVATE_PREFIX = 'forge-run-mount-';

/**
 * The private mounts of processes that were killed (their mount points answer ENOTCONN): each
 * is detached and its directory removed, so killed runs do not pile up stale mount points.
 */
async function clearStalePrivateMounts(prefix: string): Promise<void> {
  for (const entry of mountsStartingWith(prefix)) {
    const owner = parseForgeFsName(entry.source);
    if (owner === null || isAlive(owner.pid)) continue;
    const [cmd, args] = process.platform === 'darwin' ? ['umount', ['-f', entry.dir]] : ['fusermount', ['-uz', entry.dir]];
    await run(cmd, args).catch(() => undefined);
    await rmdir(entry.dir).catch(() => undefined);
  }
}


export interface SessionCommandWorkspaceOptions {
  /** Where the private mount point is made. Default os.tmpdir(). */
  tmpDir?: string;
  /** false: never mount, always copy (as without FUSE). */
  mount?: boolean;
  /** Where unexpected failures inside the mount's file system are reported (default: stderr). */
  log?: (line: string) => void;
}

export class SessionCommandWorkspace implements CommandWorkspace {
  private own: Promise<MountedSession | null> | null = null;
  private ownDir: string | null = null;
  /** Why the session cannot be mounted here (no /dev/fuse, no binding): the command runs in a copy. */
  unavailable: string | null = null;
  private readonly onExit = () => this.detachNow();

  constructor(
    private readonly session: Session,
    private readonly options: SessionCommandWorkspaceOptions = {},
  ) {
    if (options.mount === false) this.unavailable = 'mounting is turned off';
  }

  async mount(config: ToolsConfig): Promise<CommandMount | null> {
    // The command may read the repository itself (git): a batch's staged objects are written first.
    this.session.repo.objects.flushStaged();
    const mounted = mountOf(this.session) ?? (this.unavailable === null ? await (this.own ??= this.mountPrivately(config)) : null);
    return mounted ? this.lender(mounted) : null;
  }

  scratchDir(): string | undefined {
    const dir = scratchDirOf(this.session.repo.commonDir, this.session.id);
    return existsSync(dir) ? dir : undefined;
  }

  /** Unmounts the private mount (if one was made) and removes its directory. */
  async close(): Promise<void> {
    const own = await this.own?.catch(() => null);
    this.own = null;
    if (!own) return;
    process.off('exit', this.onExit);
    await own.unmount();
    await rmdir(own.dir).catch(() => undefined);
  }

  private async mountPrivately(config: ToolsConfig): Promise<MountedSession | null> {
    const prefix = join(this.options.tmpDir ?? tmpdir(), PRIVATE_PREFIX);
    await clearStalePrivateMounts(prefix);
    const dir = await mkdtemp(prefix);
    try {
      const mounted = await mountSession(this.session, dir, { config, ...(this.options.log ? { log: this.options.log } : {}) });
      this.ownDir = dir;
      // An exit without close() (an error, process.exit): detached lazily, which needs no answer from this process.
      process.once('exit', this.onExit);
      return mounted;
    } catch (error) {
      await rmdir(dir).catch(() => undefined);
      // No FUSE here, or libfuse cannot mount (a container without the capability): commands run in a copy.
      if (error instanceof ForgeError && (error.code === 'MOUNT_UNAVAILABLE' || error.code === 'MOUNT_FAILED')) {
        this.unavailable = error.message;
        return null;
      }
      this.own = null; // another call may try again
      throw error;
    }
  }

  private detachNow(): void {
    if (this.ownDir === null) return;
    const [cmd, args] = process.platform === 'darwin' ? ['umount', ['-f', this.ownDir]] : ['fusermount', ['-uz', this.ownDir]];
    spawnSync(cmd, args, { stdio: 'ignore', timeout: 5000 });
    try {
      rmdirSync(this.ownDir);
    } catch {
      // Still busy: the next mount there would clean it; it is a temporary directory.
    }
  }

  private lender(mounted: MountedSession): CommandMount {
    const { session } = this;
    return {
      dir: mounted.dir,
      async lend<T>(vfs: WritableVfs, body: () => Promise<T>): Promise<T> {
        const giveBack = lendView(session, vfs);
        try {
          // The call may have changed a .gitignore: the scratch layer must route by the current rules.
          mounted.fs.invalidateIgnoreRules();
          const inside = async () => {
            try {
              return await body();
            } finally {
              // What the command's processes left buffered (killed before their close) is the command's too.
              await mounted.fs.flushAll();
            }
          };
          const queue = mounted.fs.queue;
          return queue instanceof GuestQueue ? await queue.admit(inside) : await inside();
        } finally {
          giveBack();
        }
      },
    };
  }
}
