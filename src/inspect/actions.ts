/**
 * What the page can change, each the library call its CLI command makes: merge (and its dry run,
 * the merge preview), rebase, undo of the last edit, resume into a new session, discard of the
 * pending changes. Each result names the commit it produced. Every action that moves a branch
 * or drops work carries what the page showed (the session's head, the target's head, the
 * pending paths) and is refused with REF_CAS_FAILED, naming the new head, when it moved: a turn
 * committed while the confirmation dialog was open is never merged unseen.
 */
import { SessionToolRunner } from '../agent/tool-calls';
import { mergeBranches, mergeSession, movedError, rebaseSession, resolveSessionSource, type MergeResult, type MergeSide, type RebaseResult, type WorktreeSync } from '../branches';
import { ForgeError } from '../errors';
import type { Repository } from '../git';
import { SessionStore, sessionRef } from '../session';
import { allowAll } from '../tools';
import { assertNotSessionBranch, defaultTarget } from './merge-target';

export interface ActionContext {
  repo: Repository;
  /** Brings a checked-out target's index and files along (the CLI's node adapter); absent in a bare setting. */
  worktree?: WorktreeSync;
}

export async function mergePreview(ctx: ActionContext, id: string, into?: string): Promise<MergeResult> {
  const target = into ?? (await defaultTarget(ctx.repo, (await new SessionStore(ctx.repo).at(sessionRef(id))).state.base));
  if (target !== undefined) assertNotSessionBranch(target);
  return mergeSession(ctx.repo, id, { ...(target !== undefined ? { into: target } : {}), dryRun: true });
}

/** What the page showed when the person confirmed: the session's head, and the target's. */
export interface Shown {
  head: string;
}

/** The session's branch as the page showed it, or REF_CAS_FAILED naming its head now. */
async function shownSource(ctx: ActionContext, id: string, shown: Shown): Promise<MergeSide> {
  const source = await resolveSessionSource(ctx.repo, id);
  if (source.oid !== shown.head) throw movedError(`Session ${id}`, source.ref, shown.head, source.oid);
  return source;
}

/**
 * Merges exactly the commit the page showed (not whatever the branch holds when the request
 * arrives) into the target, if the target is still at the head the page showed.
 */
export async function merge(ctx: ActionContext, id: string, options: { into?: string; noFf?: boolean; head: string; targetHead: string }): Promise<MergeResult> {
  const into = options.into ?? (await defaultTarget(ctx.repo, (await new SessionStore(ctx.repo).at(sessionRef(id))).state.base));
  if (into !== undefined) assertNotSessionBranch(into);
  const source = await shownSource(ctx, id, options);
  return mergeBranches(ctx.repo, source, {
    ...(into !== undefined ? { into } : {}),
    noFf: options.noFf ?? false,
    expectedTarget: options.targetHead,
    ...(ctx.worktree ? { worktree: ctx.worktree } : {}),
  });
}

export async function rebase(ctx: ActionContext, id: string, options: { onto?: string; head: string; ontoHead?: string }): Promise<RebaseResult> {
  const onto = options.onto ?? (await defaultTarget(ctx.repo, (await new SessionStore(ctx.repo).at(sessionRef(id))).state.base));
  if (onto !== undefined) assertNotSessionBranch(onto);
  return rebaseSession(ctx.repo, id, {
    ...(onto !== undefined ? { onto } : {}),
    expectedHead: options.head,
    ...(options.ontoHead !== undefined ? { expectedOnto: options.ontoHead } : {}),
    ...(ctx.worktree ? { worktree: ctx.worktree } : {}),
  });
}

export interface UndoResult {
  session: string;
  commit: string;
  turn: number;
  reverted: number;
  paths: string[];
}

/** `forge undo --session <id>`: the last edit reverted (hash-verified) and committed as a turn of its own. */
export async function undoLastEdit(ctx: ActionContext, id: string, shown: Shown): Promise<UndoResult> {
  const session = await new SessionStore(ctx.repo).open(id);
  if (session.head !== shown.head) throw movedError(`Session ${id}`, sessionRef(id), shown.head, session.head);
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

/** Drops the pending changes the page listed, if the session is still at the head it showed and has exactly those. */
export async function discard(ctx: ActionContext, id: string, shown: Shown & { pending?: string[] }): Promise<{ session: string; discarded: string[]; commit: string }> {
  const session = await new SessionStore(ctx.repo).open(id);
  if (session.head !== shown.head) throw movedError(`Session ${id}`, sessionRef(id), shown.head, session.head);
  const changes = await session.vfs.diff();
  const paths = changes.map((c) => c.path);
  if (shown.pending !== undefined && [...paths].sort().join('\0') !== [...shown.pending].sort().join('\0')) {
    throw new ForgeError('REF_CAS_FAILED', `Session ${id}'s pending changes are not the ones shown: they are now ${paths.join(', ') || 'none'}. Nothing was discarded; review them, then confirm again.`, {
      data: { session: id, pending: paths, shown: shown.pending },
      hint: 'Reload the view to see the pending changes.',
    });
  }
  await session.discardPending();
  return { session: id, discarded: changes.map((c) => c.path), commit: session.head };
}
