/**
 * Carrying a pending layer onto a branch head that moved under it (a lost compare-and-swap:
 * another process committed, or the branch was rebased or reset). Per pending path:
 *  - the head has what the old base had there: the change is re-applied on the head;
 *  - the head already has exactly the pending content: nothing to do;
 *  - both changed it differently: a conflict. The change is not applied (it would silently
 *    undo the other side's work); the whole pending layer as it was is kept in a rescue commit
 *    on `refs/forge/rescued/<session>/<time>` so that nothing acknowledged is ever lost.
 */
import { buildTree, type FileChange, type Repository, type TreeEntry } from '../git';
import { CommitVfs, type PendingValue } from '../vfs';
import { SessionStateSchema, type SessionState } from './state';
import { applyStateDeltas, type StateDelta } from './state-delta';

export const RESCUE_REF_PREFIX = 'refs/forge/rescued/';

export interface CarryOver {
  /** The changes to re-apply on the new head. */
  changes: Map<string, PendingValue>;
  reapplied: string[];
  alreadyThere: string[];
  conflicts: string[];
  /** Where the pending layer was kept when some of it conflicts. */
  rescue?: { ref: string; commit: string };
}

function same(entry: TreeEntry | null, value: PendingValue): boolean {
  if (entry === null || value === null) return entry === null && value === null;
  return entry.oid === value.oid && entry.mode === value.mode;
}

function sameEntry(a: TreeEntry | null, b: TreeEntry | null): boolean {
  return a === null || b === null ? a === b : a.oid === b.oid && a.mode === b.mode;
}

async function entryAt(view: CommitVfs, path: string): Promise<TreeEntry | null> {
  const entry = await view.entry(path).catch(() => null);
  return entry && entry.mode !== '040000' ? entry : null;
}

export async function carryPendingOnto(
  repo: Repository,
  sessionId: string,
  pending: ReadonlyMap<string, PendingValue>,
  oldBase: string,
  newHead: string,
  now: Date,
): Promise<CarryOver> {
  const oldTree = (await repo.readCommit(oldBase)).tree;
  const oldView = new CommitVfs(repo, oldBase, oldTree);
  const newView = new CommitVfs(repo, newHead, (await repo.readCommit(newHead)).tree);
  const out: CarryOver = { changes: new Map(), reapplied: [], alreadyThere: [], conflicts: [] };
  for (const [path, value] of pending) {
    const before = await entryAt(oldView, path);
    const head = await entryAt(newView, path);
    if (same(head, value)) out.alreadyThere.push(path);
    else if (sameEntry(head, before)) {
      out.changes.set(path, value);
      out.reapplied.push(path);
    } else out.conflicts.push(path);
  }
  if (out.conflicts.length > 0) {
    const tree = await buildTree(repo, oldTree, [...pending] as Array<[string, FileChange]>);
    const who = await repo.identity({}, now);
    const commit = await repo.writeCommit({
      tree,
      parents: [oldBase],
      author: who,
      committer: who,
      message: `forge: pending changes of session ${sessionId} kept aside\n\nThey were made on ${oldBase}; the branch moved to ${newHead}, which changed\nthe same files: ${out.conflicts.join(', ')}.\n`,
    });
    const ref = `${RESCUE_REF_PREFIX}${sessionId}/${now.getTime()}`;
    await repo.refs.update({ ref, newOid: commit, expectedOid: '0'.repeat(40), committer: who, reflogMessage: 'forge: rescued pending changes' });
    out.rescue = { ref, commit };
  }
  return out;
}

/** Journaled state records carried to a later turn: their messages and tool calls get that turn. */
export function renumberRecords(records: readonly unknown[], turn: number): unknown[] {
  return records.map((record) => {
    if (record === null || typeof record !== 'object' || !('delta' in record)) return record;
    const delta = (record as { delta: StateDelta }).delta;
    return {
      ...record,
      delta: {
        ...delta,
        ...(delta.messages ? { messages: delta.messages.map((m) => ({ ...m, turn })) } : {}),
        ...(delta.toolCalls ? { toolCalls: delta.toolCalls.map((c) => ({ ...c, turn })) } : {}),
      },
    };
  });
}

/** The committed state with the journaled in-turn records applied (a delta each; older journals held full snapshots). */
export function foldJournaledState(committed: SessionState, records: readonly unknown[]): SessionState {
  let state = committed;
  for (const record of records) {
    if (record !== null && typeof record === 'object' && 'delta' in record) state = applyStateDeltas(state, [(record as { delta: StateDelta }).delta]);
    else state = SessionStateSchema.parse(record);
  }
  return SessionStateSchema.parse(state);
}

/** Whether `head` is the commit of exactly this pending layer on `base` (its writer committed, then died before clearing its journal). */
export async function pendingAlreadyCommitted(repo: Repository, changes: ReadonlyMap<string, { oid: string; mode: string } | null>, base: string, head: string): Promise<boolean> {
  const commit = await repo.readCommit(head);
  if (commit.parents[0] !== base) return false;
  const view = new CommitVfs(repo, head, commit.tree);
  for (const [path, change] of changes) {
    const entry = await view.entry(path).catch(() => null);
    if (change === null ? entry !== null : entry?.oid !== change.oid || entry.mode !== change.mode) return false;
  }
  return true;
}
