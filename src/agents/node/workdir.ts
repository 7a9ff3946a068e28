/**
 * The agent's working directory: a directory that is the session's live view (branch head +
 * pending). Two ways to have one: `copy` materializes the view into a directory and, at each
 * turn's end, brings what changed there back into the pending layer (run_command's change
 * detection, src/agent/node/dir-changes.ts); `mount` is `forge mount` (a FUSE view whose writes
 * go straight into the pending layer), supplied by the mount adapter when the build has one.
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { applyChanges, detectChanges, materializeView, snapshotOf, visibleView, type DirChanges } from '../../agent/node/dir-changes';
import { ForgeError } from '../../errors';
import type { Session } from '../../session';
import { DEFAULT_TOOLS_CONFIG, type ToolsConfig } from '../../tools';
import { CommitVfs } from '../../vfs';

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
    const synced = await readSynced(session, dir);
    if (synced === null || (synced.session === session.id && synced.commit === session.head)) {
      // Left by an earlier run of this session: what changed there since its last turn is kept (pending), not lost.
      await workdir.sync(session);
      await markSynced(session, dir);
      return workdir;
    }
    // The directory holds another commit than the session's head (an undo, a resume from an
    // older turn, another session): syncing would bring that commit's files back as edits.
    await refreshStale(session, dir, config, synced);
    return workdir;
  }
  await mkdir(dir, { recursive: true });
  await materializeView(session.vfs, config, dir);
  await markSynced(session, dir);
  return workdir;
}

/** Which session and commit a copy directory last matched (kept in the repository, not in the directory the agent sees). */
interface SyncedRecord {
  session: string;
  commit: string;
}

function syncedFile(session: Session, dir: string): string {
  const key = createHash('sha256').update(resolve(dir)).digest('hex').slice(0, 16);
  return join(session.repo.commonDir, 'forge', 'agents', 'workdirs', `${key}.json`);
}

async function readSynced(session: Session, dir: string): Promise<SyncedRecord | null> {
  try {
    const parsed = JSON.parse(await readFile(syncedFile(session, dir), 'utf8')) as Partial<SyncedRecord>;
    return typeof parsed.session === 'string' && typeof parsed.commit === 'string' ? { session: parsed.session, commit: parsed.commit } : null;
  } catch {
    return null;
  }
}

/** After a turn was committed from the directory (or it was materialized): it matches the session's head. */
export async function markSynced(session: Session, dir: string): Promise<void> {
  const file = syncedFile(session, dir);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(`${file}.tmp`, JSON.stringify({ session: session.id, commit: session.head, dir: resolve(dir) }) + '\n');
  await rename(`${file}.tmp`, file);
}

/**
 * A directory that matched another commit: unchanged since then, it is materialized again from
 * the session's view; with changes nobody committed, it is left alone and the run refused, so
 * neither that work nor the session's history is overwritten.
 */
async function refreshStale(session: Session, dir: string, config: ToolsConfig, synced: SyncedRecord): Promise<void> {
  const { repo } = session;
  const commit = await repo.readCommit(synced.commit).catch(() => null);
  const leftover = commit === null ? null : (await detectChanges(dir, await snapshotOf(visibleView(new CommitVfs(repo, synced.commit, commit.tree), config)))).changes;
  const count = leftover === null ? -1 : leftover.added.length + leftover.modified.length + leftover.deleted.length;
  if (count !== 0) {
    throw new ForgeError('AGENT_WORKDIR_STALE', `The working directory ${dir} holds ${count < 0 ? 'files of a commit this repository no longer has' : `${count} uncommitted change(s) made on top of commit ${synced.commit.slice(0, 12)} of session ${synced.session}`}, not session ${session.id} at ${session.head.slice(0, 12)}.`, {
      data: { dir, session: session.id, head: session.head, synced },
      hint: `Give another --dir, or remove ${dir} to let forge materialize the session there again.`,
    });
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await materializeView(session.vfs, config, dir);
  await markSynced(session, dir);
}

/** Copy mode: the directory is compared with the session's view, which it held after the last sync. */
export function copyWorkdir(dir: string, config: ToolsConfig): AgentWorkdir {
  return {
    mode: 'copy',
    dir,
    async sync(session) {
      // A directory gone (removed by hand, a tmp cleaner) would read as every file deleted.
      const st = await stat(dir).catch(() => null);
      if (st === null || !st.isDirectory()) {
        throw new ForgeError('AGENT_WORKDIR_MISSING', `The agent's working directory ${dir} is gone; nothing was brought back from it.`, {
          data: { dir },
          hint: `Run forge agent again: it materializes the session's files there.`,
        });
      }
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
