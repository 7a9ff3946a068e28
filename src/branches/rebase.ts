/**
 * Rebasing a session onto a new base: each commit of the session (from the merge base up, along
 * first parents) is replayed with a three-way merge (base: its parent, ours: the new parent,
 * theirs: the commit), as a `git cherry-pick` chain does, keeping message, trailers and author,
 * and adding a Forge-Replays trailer that names the commit replayed (for `forge blame`).
 * The session's own state file `.forge/sessions/<id>.json` is not merged: each replayed commit
 * carries that commit's state, with `base` recording the new base. The branch moves by one
 * compare-and-swap after every step succeeded; on a conflict nothing moves and the report says
 * which commit stopped the chain.
 */
import { ForgeError } from '../errors';
import { buildTree, type Repository, type Signature, type TreeEntry } from '../git';
import { decodeState, StateRedaction, sessionRef, sessionStatePath, subjectOf, turnCommitMessage, validateSessionId, withReplaysTrailer, type SessionState } from '../session';
import { FsJournal } from '../vfs';
import { repositoryGraph, mergeBases } from './merge-base';
import { findRenameHazards } from './rename-hazards';
import { mergeTrees, writeMergedTree } from './tree-merge';
import type { MergeConflict, MergedNode } from './types';
import { movedError } from './moved';
import { BranchUpdate, type WorktreeSync } from './worktree';

export interface RebaseOptions {
  /** The new base (a branch, tag or commit); default HEAD. */
  onto?: string;
  /** Rebase only if the session's head is this commit (what a reviewer saw); REF_CAS_FAILED otherwise. */
  expectedHead?: string;
  /** Rebase only if `onto` resolves to this commit; REF_CAS_FAILED otherwise. */
  expectedOnto?: string;
  committer?: Partial<Signature>;
  worktree?: WorktreeSync;
  now?: () => Date;
}

export interface ReplayedCommit {
  from: string;
  to: string;
  subject: string;
}

export interface RebaseResult {
  status: 'up-to-date' | 'rebased' | 'conflict';
  session: string;
  ref: string;
  onto: { ref: string; commit: string };
  before: string;
  after: string;
  /** The merge base the replayed commits started from. */
  base: string;
  replayed: ReplayedCommit[];
  /** On a conflict: the commit that could not be replayed, and why. */
  stoppedAt?: { commit: string; subject: string; index: number };
  conflicts?: MergeConflict[];
  worktreeUpdated: boolean;
}

/** The commits after `base` up to `head` along first parents, oldest first; merges are refused. */
async function commitsToReplay(repo: Repository, base: string, head: string): Promise<string[]> {
  const out: string[] = [];
  for (let oid = head; oid !== base; ) {
    const commit = await repo.readCommit(oid);
    if (commit.parents.length !== 1) {
      throw new ForgeError(
        commit.parents.length === 0 ? 'INTERNAL' : 'REBASE_MERGE_COMMIT',
        commit.parents.length === 0 ? `Commit ${oid} has no parent before reaching the merge base ${base}.` : `Commit ${oid.slice(0, 12)} (${subjectOf(commit.message)}) is a merge; forge rebases linear session histories only.`,
        { data: { commit: oid } },
      );
    }
    out.push(oid);
    oid = commit.parents[0]!;
  }
  return out.reverse();
}

export async function rebaseSession(repo: Repository, id: string, options: RebaseOptions = {}): Promise<RebaseResult> {
  validateSessionId(id);
  const ref = sessionRef(id);
  const head = await repo.refs.resolve(ref);
  if (head === null) throw new ForgeError('SESSION_NOT_FOUND', `No session ${id} (no branch forge/session/${id}).`, { data: { id } });
  const ontoName = options.onto ?? 'HEAD';
  const onto = await repo.resolveCommit(ontoName);
  if (options.expectedHead !== undefined && options.expectedHead !== head) throw movedError(`Session ${id}`, ref, options.expectedHead, head);
  if (options.expectedOnto !== undefined && options.expectedOnto !== onto) throw movedError(ontoName, ontoName, options.expectedOnto, onto);
  const now = options.now ?? (() => repo.now());

  // Pending work sits on the head (a journal on an older head is a finished or lost turn).
  const pending = await new FsJournal(repo.fs, repo.commonDir, id).load();
  if (pending !== null && pending.base === head && (pending.changes.size > 0 || pending.states.length > 0)) {
    throw new ForgeError('REBASE_PENDING_CHANGES', `Session ${id} has pending changes or an unfinished turn; rebasing would strand them.`, {
      data: { id },
      hint: `Commit the turn, or drop it with "forge session discard ${id}".`,
    });
  }

  const bases = await mergeBases(repositoryGraph(repo), onto, head);
  if (bases.length !== 1) {
    throw new ForgeError(bases.length === 0 ? 'MERGE_NO_BASE' : 'MERGE_CRISS_CROSS', bases.length === 0 ? `Session ${id} and ${ontoName} have no common history.` : `Session ${id} and ${ontoName} have ${bases.length} merge bases (a criss-cross history); forge does not rebase across it.`, {
      data: { bases },
    });
  }
  const base = bases[0]!;
  const result: RebaseResult = { status: 'up-to-date', session: id, ref, onto: { ref: ontoName, commit: onto }, before: head, after: head, base, replayed: [], worktreeUpdated: false };
  if (base === onto) return result;

  const update = await BranchUpdate.prepare(repo, ref, head, options.worktree);
  try {
    const when = now();
    const committer = await repo.identity(options.committer, when, 'committer');
    const statePath = sessionStatePath(id);
    const newBase = { ref: ontoName, commit: onto };
    let parent = onto;
    let parentTree = (await repo.readCommit(onto)).tree;
    const commits = await commitsToReplay(repo, base, head);
    // Rewritten states are written again: through the same redaction as every other writer.
    const redaction = new StateRedaction(repo);
    const encode = async (state: SessionState) => (await redaction.encode(state)).bytes;

    if (commits.length === 0) {
      // The session's commits are all in the new base already: one commit recording the move.
      const state = { ...(await stateAt(repo, head, statePath)), base: newBase } as SessionState;
      const tree = await buildTree(repo, parentTree, [[statePath, { oid: await repo.writeBlob(await encode(state), { keep: false }), mode: '100644' }]]);
      const message = turnCommitMessage({ sessionId: id, turn: state.turn, message: `Rebase forge session ${id} onto ${ontoName}\n\nOnto: ${onto}`, changedPaths: [] });
      parent = await repo.writeCommit({ tree, parents: [onto], author: committer, committer, message });
      parentTree = tree;
      result.replayed.push({ from: head, to: parent, subject: subjectOf(message) });
    }

    for (const [index, oid] of commits.entries()) {
      const commit = await repo.readCommit(oid);
      const pickBase = (await repo.readCommit(commit.parents[0]!)).tree;
      const labels = { ours: ontoName, theirs: `${oid.slice(0, 7)} (${subjectOf(commit.message)})` };
      const merged = await mergeTrees(repo, pickBase, parentTree, commit.tree, labels);
      const hazards = await findRenameHazards(repo, pickBase, parentTree, commit.tree, labels, merged.renameHints);
      const conflicts = [...merged.conflicts, ...hazards.filter((h) => !merged.conflicts.some((c) => c.path === h.path))].filter((c) => c.path !== statePath);
      if (conflicts.length > 0) {
        await update.abandon();
        conflicts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        return { ...result, status: 'conflict', stoppedAt: { commit: oid, subject: subjectOf(commit.message), index }, conflicts };
      }
      let root = merged.root;
      const state = await stateEntry(repo, commit.tree, statePath);
      if (state !== null) {
        const rewritten = { ...decodeState(await repo.readBlob(state.oid), `${statePath} at ${oid.slice(0, 12)}`), base: newBase };
        root = await withFile(repo, root, statePath.split('/'), { mode: '100644', oid: await repo.writeBlob(await encode(rewritten), { keep: false }) });
      }
      const tree = await writeMergedTree(repo, root);
      parent = await repo.writeCommit({ tree, parents: [parent], author: commit.author, committer, message: withReplaysTrailer(commit.message, oid), ...(commit.extraHeaders ? { extraHeaders: commit.extraHeaders.filter(([key]) => key !== 'gpgsig') } : {}) });
      parentTree = tree;
      result.replayed.push({ from: oid, to: parent, subject: subjectOf(commit.message) });
    }

    await update.move({ ref, expectedOid: head, newOid: parent, committer, reflogMessage: `forge rebase ${id} onto ${ontoName}` }, parentTree);
    return { ...result, status: 'rebased', after: parent, worktreeUpdated: update.updatesWorktree };
  } catch (error) {
    await update.abandon().catch(() => undefined);
    throw error;
  }
}

async function stateEntry(repo: Repository, tree: string, path: string): Promise<Omit<TreeEntry, 'name'> | null> {
  let current: Omit<TreeEntry, 'name'> = { mode: '040000', oid: tree };
  for (const name of path.split('/')) {
    if (current.mode !== '040000') return null;
    const entry = (await repo.readTree(current.oid)).find((e) => e.name === name);
    if (entry === undefined) return null;
    current = { mode: entry.mode, oid: entry.oid };
  }
  return current.mode === '040000' ? null : current;
}

async function stateAt(repo: Repository, commit: string, path: string): Promise<SessionState> {
  const entry = await stateEntry(repo, (await repo.readCommit(commit)).tree, path);
  if (entry === null) throw new ForgeError('SESSION_STATE_INVALID', `Commit ${commit} has no ${path}.`, { data: { commit } });
  return decodeState(await repo.readBlob(entry.oid), `${path} at ${commit.slice(0, 12)}`);
}

/** Sets one file of a merge result (creating directories along the way). */
async function withFile(repo: Repository, node: MergedNode | null, names: string[], entry: Omit<TreeEntry, 'name'>): Promise<MergedNode> {
  if (names.length === 0) return { kind: 'entry', entry };
  let children: Map<string, MergedNode>;
  if (node === null || node.kind === 'blob' || (node.kind === 'entry' && node.entry.mode !== '040000')) children = new Map();
  else if (node.kind === 'entry') children = new Map((await repo.readTree(node.entry.oid)).map((e) => [e.name, { kind: 'entry', entry: { mode: e.mode, oid: e.oid } } as MergedNode]));
  else children = new Map(node.children);
  const [name, ...rest] = names;
  children.set(name!, await withFile(repo, children.get(name!) ?? null, rest, entry));
  return { kind: 'dir', children };
}
