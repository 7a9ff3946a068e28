/**
 * What the page can change, each the library call its CLI command makes: merge (and its dry run,
 * the merge preview), rebase, undo of the last edit, resume into a new session, discard of the
 * pending changes. Each result names the commit it produced.
 */
import { SessionToolRunner } from '../agent/tool-calls';
import { mergeSession, rebaseSession, type MergeResult, type RebaseResult, type WorktreeSync } from '../branches';
import { ForgeError } from '../errors';
import type { Repository } from '../git';
import { SessionStore, sessionRef } from '../session';
import { allowAll } from '../tools';

export interface ActionContext {
  repo: Repository;
  /** Brings a checked-out target's index and files along (the CLI's node adapter); absent in a bare setting. */
  worktree?: WorktreeSync;
}

/** The branch a session merges into by default: the branch it started from when that was a branch name, else HEAD's. */
export function defaultTarget(base: { ref?: string }): string | undefined {
  const ref = base.ref;
  if (ref === undefined || ref === 'HEAD' || /^[0-9a-f]{7,40}$/.test(ref) || /[~^]/.test(ref)) return undefined;
  return ref;
}

export async function mergePreview(ctx: ActionContext, id: string, into?: string): Promise<MergeResult> {
  const target = into ?? defaultTarget((await new SessionStore(ctx.repo).at(sessionRef(id))).state.base);
  return mergeSession(ctx.repo, id, { ...(target !== undefined ? { into: target } : {}), dryRun: true });
}

export async function merge(ctx: ActionContext, id: string, options: { into?: string; noFf?: boolean }): Promise<MergeResult> {
  return mergeSession(ctx.repo, id, {
    ...(options.into !== undefined ? { into: options.into } : {}),
    noFf: options.noFf ?? false,
    ...(ctx.worktree ? { worktree: ctx.worktree } : {}),
  });
}

export async function rebase(ctx: ActionContext, id: string, onto?: string): Promise<RebaseResult> {
  return rebaseSession(ctx.repo, id, { ...(onto !== undefined ? { onto } : {}), ...(ctx.worktree ? { worktree: ctx.worktree } : {}) });
}

export interface UndoResult {
  session: string;
  commit: string;
  turn: number;
  reverted: number;
  paths: string[];
}

/** `forge undo --session <id>`: the last edit reverted (hash-verified) and committed as a turn of its own. */
export async function undoLastEdit(ctx: ActionContext, id: string): Promise<UndoResult> {
  const session = await new SessionStore(ctx.repo).open(id);
  const pending = await session.vfs.diff();
  if (pending.length > 0) {
    throw new ForgeError('SESSION_HAS_PENDING', `Session ${session.id} has ${pending.length} uncommitted change(s); commit them or discard them before undoing.`, {
      data: { session: session.id, paths: pending.map((c) => c.path) },
    });
  }
  const entry = session.state.undo;
  // The person confirmed this undo in the page: the approval is theirs.
  const result = await new SessionToolRunner(session, { approval: allowAll }).call({ tool: 'Undo' });
  if (!result.ok) throw new ForgeError(result.error.code, result.error.message, result.error.data ? { data: result.error.data } : {});
  const turn = await session.commitTurn({ message: `Undo: ${entry!.summary}` });
  const output = result.output as { reverted: number; paths: string[] };
  return { session: session.id, commit: turn.commit, turn: turn.turn, reverted: output.reverted, paths: output.paths };
}

export async function resume(ctx: ActionContext, from: string, id?: string): Promise<{ id: string; branch: string; commit: string; parent: unknown }> {
  const session = await new SessionStore(ctx.repo).resume({ from, ...(id !== undefined ? { id } : {}) });
  return { id: session.id, branch: session.branch, commit: session.head, parent: session.state.parent };
}

export async function discard(ctx: ActionContext, id: string): Promise<{ session: string; discarded: string[]; commit: string }> {
  const session = await new SessionStore(ctx.repo).open(id);
  const changes = await session.vfs.diff();
  await session.discardPending();
  return { session: id, discarded: changes.map((c) => c.path), commit: session.head };
}
