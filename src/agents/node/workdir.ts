/**
 * The agent's working directory: a directory that is the session's live view (branch head +
 * pending). Two ways to have one: `copy` materializes the view into a directory and, at each
 * turn's end, brings what changed there back into the pending layer (run_command's change
 * detection, src/agent/node/dir-changes.ts); `mount` is `forge mount` (a FUSE view whose writes
 * go straight into the pending layer), supplied by the mount adapter when the build has one.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyChanges, detectChanges, materializeView, snapshotOf, visibleView, type DirChanges } from '../../agent/node/dir-changes';
import { ForgeError } from '../../errors';
import type { Session } from '../../session';
import { DEFAULT_TOOLS_CONFIG, type ToolsConfig } from '../../tools';

export type WorkdirMode = 'copy' | 'mount';

export interface SyncResult {
  changes: DirChanges;
  skipped: Array<{ path: string; code: string; message: string }>;
}

export interface AgentWorkdir {
  readonly mode: WorkdirMode;
  readonly dir: string;
  /** Brings what changed in the directory into the session's pending layer (a mount: nothing to do). */
  sync(session: Session): Promise<SyncResult>;
  /** Leaves the directory in place (the next run continues in it); a mount is unmounted. */
  close(): Promise<void>;
}

/** What a build with `forge mount` provides: the session mounted at `dir`. */
export type MountProvider = (session: Session, dir: string) => Promise<AgentWorkdir>;

export interface OpenWorkdirOptions {
  mode: WorkdirMode;
  /** Where the directory is; default workdirFor(repo, session). */
  dir?: string;
  config?: ToolsConfig;
  /** The mount adapter; absent in this build. */
  mount?: MountProvider;
}

/** A stable place per repository and session, outside the repository (agents key their own state by cwd). */
export function workdirFor(commonDir: string, sessionId: string, base = tmpdir()): string {
  const repoKey = createHash('sha256').update(commonDir).digest('hex').slice(0, 12);
  return join(base, 'forge-agent', repoKey, sessionId);
}

export async function openWorkdir(session: Session, options: OpenWorkdirOptions): Promise<AgentWorkdir> {
  const dir = options.dir ?? workdirFor(session.repo.commonDir, session.id);
  if (options.mode === 'mount') {
    if (!options.mount) {
      throw new ForgeError('MOUNT_UNAVAILABLE', 'forge mount is not available in this build.', { hint: 'Run with --copy: the session is materialized into a directory and each turn brings its changes back.' });
    }
    return options.mount(session, dir);
  }
  const config = options.config ?? DEFAULT_TOOLS_CONFIG;
  const workdir = copyWorkdir(dir, config);
  const existing = await readdir(dir).catch(() => null);
  if (existing !== null && existing.length > 0) {
    // Left by an earlier run: what changed there since its last turn is kept (pending), not lost.
    await workdir.sync(session);
    return workdir;
  }
  await mkdir(dir, { recursive: true });
  await materializeView(session.vfs, config, dir);
  return workdir;
}

/** Copy mode: the directory is compared with the session's view, which it held after the last sync. */
export function copyWorkdir(dir: string, config: ToolsConfig): AgentWorkdir {
  return {
    mode: 'copy',
    dir,
    async sync(session) {
      const snapshot = await snapshotOf(visibleView(session.vfs, config));
      const { changes, disk } = await detectChanges(dir, snapshot);
      const count = changes.added.length + changes.modified.length + changes.deleted.length;
      if (count === 0) return { changes, skipped: [] };
      await session.prepareCall();
      const skipped = await applyChanges(session.vfs, config, changes, disk, 'working directory');
      return { changes, skipped };
    },
    async close() {},
  };
}

/** Removes a copy working directory (forge session discard of an agent session). */
export async function removeWorkdir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
