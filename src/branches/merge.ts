/**
 * Merging a session branch (or any commit) into a branch: read, decide, then write.
 *
 * planMerge reads the commit graph and trees and decides: up-to-date, fast-forward, a merge
 * (the merged tree, computed in memory from the merge base) or a conflict (the structured
 * report, and the tree git would write with conflict markers). applyMerge writes: blobs and
 * trees, the merge commit with two parents, and the compare-and-swap of the target ref; on a
 * conflict nothing is written to the target (optionally, a conflict commit on a NEW branch).
 */
import { ForgeError } from '../errors';
import { ZERO_OID, type Repository, type Signature, type TreeEntry } from '../git';
import { SESSION_DIR, SESSION_REF_PREFIX, sessionRef, validateSessionId } from '../session/ids';
import { mergeBases, repositoryGraph } from './merge-base';
import { findRenameHazards } from './rename-hazards';
import { mergeTrees, writeMergedTree } from './tree-merge';
import type { MergeConflict, MergedNode, MergeLabels } from './types';
import { movedError } from './moved';
import { BranchUpdate, type WorktreeSync } from './worktree';

export type MergeStatus = 'up-to-date' | 'fast-forward' | 'merged' | 'conflict';

export interface MergeOptions {
  /** The branch to merge into (a name such as "main" or a full ref); default: the branch HEAD points at. */
  into?: string;
  /** Compute (and write the objects of) the result, move no ref. */
  dryRun?: boolean;
  /** Record a merge commit even when a fast-forward is possible. */
  noFf?: boolean;
  /** The merge commit's message (default: "Merge branch '<source>' into <target>"). */
  message?: string;
  /**
   * Leave out of the result the `.forge/sessions/` files the source brings (the target keeps its
   * own); a fast-forward that would bring them becomes a merge commit. Default: true into a
   * branch that is not a session's (users do not want transcripts in main; the conversation stays
   * reachable through the merge commit's second parent), false into a session branch.
   */
  dropSessionFiles?: boolean;
  /** On a conflict, write a commit holding git-style conflict markers to this NEW branch. */
  conflictBranch?: string;
  author?: Partial<Signature>;
  committer?: Partial<Signature>;
  /** Updates index and files when the target is checked out in this repository's working tree. */
  worktree?: WorktreeSync;
  now?: () => Date;
  /** Merge only if the target branch is at this commit (what a reviewer saw); REF_CAS_FAILED otherwise. */
  expectedTarget?: string;
}

export interface MergeSide {
  /** The ref (or revision) as resolved. */
  ref: string;
  /** The name used in messages and conflict markers. */
  label: string;
  oid: string;
}

export type MergePlan =
  | { kind: 'up-to-date'; source: MergeSide; target: MergeSide }
  | { kind: 'fast-forward'; source: MergeSide; target: MergeSide; base: string; tree: string }
  | { kind: 'merge'; source: MergeSide; target: MergeSide; base: string; root: MergedNode | null; fastForwardable: boolean }
  | { kind: 'conflict'; source: MergeSide; target: MergeSide; base: string; root: MergedNode | null; conflicts: MergeConflict[] };

export interface MergeResult {
  status: MergeStatus;
  source: { ref: string; oid: string };
  target: { ref: string; before: string; after: string };
  base?: string;
  /** The commit the target points to afterwards (or would, with dryRun; absent for a dry-run merge). */
  commit?: string;
  /** The tree of that commit (merged and dry-run results too). */
  tree?: string;
  conflicts?: MergeConflict[];
  /** The conflict commit written with conflictBranch. */
  conflictBranch?: { ref: string; commit: string; tree: string };
  dryRun: boolean;
  /** The target is checked out here and its index and files were updated. */
  worktreeUpdated: boolean;
}

/** "main" -> refs/heads/main; a full ref stays; undefined -> the branch HEAD points at. */
export async function resolveTargetBranch(repo: Repository, into?: string): Promise<MergeSide> {
  let ref: string;
  if (into === undefined || into === 'HEAD') {
    let head: string;
    try {
      head = (await repo.fs.promises.readFile(`${repo.gitdir}/HEAD`, 'utf8')).trim();
    } catch {
      head = '';
    }
    if (!head.startsWith('ref: refs/heads/')) {
      throw new ForgeError('MERGE_TARGET_INVALID', 'HEAD does not point at a branch; name the branch to merge into.', { hint: 'Pass --into <branch>.' });
    }
    ref = head.slice(5).trim();
  } else {
    ref = into.startsWith('refs/') ? into : `refs/heads/${into}`;
  }
  if (!ref.startsWith('refs/heads/')) {
    throw new ForgeError('MERGE_TARGET_INVALID', `${into} is not a branch (refs/heads/...); only branches can be merged into.`, { data: { into } });
  }
  const oid = await repo.refs.resolve(ref);
  if (oid === null) throw new ForgeError('REF_NOT_FOUND', `Branch ${ref.slice('refs/heads/'.length)} does not exist.`, { data: { ref } });
  return { ref, label: ref.slice('refs/heads/'.length), oid };
}

/** A session id -> its branch, as a merge source. */
export async function resolveSessionSource(repo: Repository, id: string): Promise<MergeSide> {
  validateSessionId(id);
  const ref = sessionRef(id);
  const oid = await repo.refs.resolve(ref);
  if (oid === null) throw new ForgeError('SESSION_NOT_FOUND', `No session ${id} (no branch forge/session/${id}).`, { data: { id } });
  return { ref, label: ref.slice('refs/heads/'.length), oid };
}

/** The single merge base of two commits; refuses unrelated and criss-cross histories. */
export async function singleMergeBase(repo: Repository, ours: MergeSide, theirs: MergeSide): Promise<string> {
  const bases = await mergeBases(repositoryGraph(repo), ours.oid, theirs.oid);
  if (bases.length === 0) {
    throw new ForgeError('MERGE_NO_BASE', `${theirs.label} and ${ours.label} have no common history; forge does not merge unrelated histories.`, {
      data: { ours: ours.oid, theirs: theirs.oid },
    });
  }
  if (bases.length > 1) {
    throw new ForgeError('MERGE_CRISS_CROSS', `${theirs.label} and ${ours.label} have ${bases.length} merge bases (a criss-cross history); forge does not build git's recursive virtual base.`, {
      data: { bases },
      hint: 'Merge one of the bases into the other branch first, or merge with git.',
    });
  }
  return bases[0]!;
}

export async function planMerge(repo: Repository, source: MergeSide, target: MergeSide, options: Pick<MergeOptions, 'noFf' | 'dropSessionFiles'> = {}): Promise<MergePlan> {
  const base = await singleMergeBase(repo, target, source);
  if (base === source.oid) return { kind: 'up-to-date', source, target };
  const [baseTree, oursTree, theirsTree] = await Promise.all([base, target.oid, source.oid].map(async (oid) => (await repo.readCommit(oid)).tree));
  const labels: MergeLabels = { ours: target.label, theirs: source.label };
  const dropSessionFiles = options.dropSessionFiles ?? !target.ref.startsWith(SESSION_REF_PREFIX);
  if (base === target.oid) {
    let root: MergedNode | null = { kind: 'entry', entry: { mode: '040000', oid: theirsTree! } };
    if (dropSessionFiles) root = await keepTargetSessionFiles(repo, root, oursTree!);
    const plain = root !== null && root.kind === 'entry' && root.entry.oid === theirsTree;
    if (plain && !options.noFf) return { kind: 'fast-forward', source, target, base, tree: theirsTree! };
    return { kind: 'merge', source, target, base, root, fastForwardable: true };
  }
  const merged = await mergeTrees(repo, baseTree!, oursTree!, theirsTree!, labels);
  let conflicts = merged.conflicts;
  const hazards = await findRenameHazards(repo, baseTree!, oursTree!, theirsTree!, labels, merged.renameHints);
  if (hazards.length > 0) {
    const seen = new Set(conflicts.map((c) => c.path));
    conflicts = [...conflicts, ...hazards.filter((h) => !seen.has(h.path))].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  let root = merged.root;
  if (dropSessionFiles) {
    root = await keepTargetSessionFiles(repo, root, oursTree!);
    conflicts = conflicts.filter((c) => !c.path.startsWith(`${SESSION_DIR}/`));
  }
  if (conflicts.length > 0) return { kind: 'conflict', source, target, base, root, conflicts };
  return { kind: 'merge', source, target, base, root, fastForwardable: false };
}

export async function applyMerge(repo: Repository, plan: MergePlan, options: MergeOptions = {}, update?: BranchUpdate): Promise<MergeResult> {
  const now = options.now ?? (() => repo.now());
  const dryRun = options.dryRun ?? false;
  const result: MergeResult = {
    status: plan.kind === 'merge' ? 'merged' : plan.kind,
    source: { ref: plan.source.ref, oid: plan.source.oid },
    target: { ref: plan.target.ref, before: plan.target.oid, after: plan.target.oid },
    dryRun,
    worktreeUpdated: false,
  };
  if (plan.kind !== 'up-to-date') result.base = plan.base;
  const when = now();
  const author = await repo.identity(options.author, when);
  const committer = await repo.identity(options.committer ?? options.author, when, 'committer');
  const move = async (newOid: string, tree: string, reflog: string) => {
    if (dryRun) return;
    const branch = update ?? (await BranchUpdate.prepare(repo, plan.target.ref, plan.target.oid, options.worktree));
    await branch.move({ ref: plan.target.ref, expectedOid: plan.target.oid, newOid, committer, reflogMessage: reflog }, tree);
    result.target.after = newOid;
    result.worktreeUpdated = branch.updatesWorktree;
  };

  switch (plan.kind) {
    case 'up-to-date':
      await update?.abandon();
      return result;
    case 'fast-forward':
      result.commit = plan.source.oid;
      result.tree = plan.tree;
      await move(plan.source.oid, plan.tree, `forge merge ${plan.source.label}: Fast-forward`);
      return result;
    case 'merge': {
      const tree = await writeMergedTree(repo, plan.root);
      result.tree = tree;
      if (dryRun) return result;
      const message = options.message?.trim() ? `${options.message.trimEnd()}\n` : `Merge branch '${plan.source.label}' into ${plan.target.label}\n`;
      const commit = await repo.writeCommit({ tree, parents: [plan.target.oid, plan.source.oid], author, committer, message });
      result.commit = commit;
      await move(commit, tree, `forge merge ${plan.source.label}: Merge made by forge.`);
      return result;
    }
    case 'conflict': {
      await update?.abandon();
      result.conflicts = plan.conflicts;
      if (options.conflictBranch !== undefined && !dryRun) {
        result.conflictBranch = await writeConflictBranch(repo, plan, options.conflictBranch, author, committer);
      }
      return result;
    }
  }
}

/** Plans and applies in one call; a checked-out target is checked for a clean working tree first. */
export async function mergeBranches(repo: Repository, source: MergeSide, options: MergeOptions = {}): Promise<MergeResult> {
  const target = await resolveTargetBranch(repo, options.into);
  if (options.expectedTarget !== undefined && options.expectedTarget !== target.oid) throw movedError(`Branch ${target.label}`, target.ref, options.expectedTarget, target.oid);
  const update = options.dryRun ? undefined : await BranchUpdate.prepare(repo, target.ref, target.oid, options.worktree);
  try {
    const plan = await planMerge(repo, source, target, options);
    return await applyMerge(repo, plan, options, update);
  } catch (error) {
    await update?.abandon().catch(() => undefined);
    throw error;
  }
}

/** `forge merge <session>`: merges the session's branch. */
export async function mergeSession(repo: Repository, sessionId: string, options: MergeOptions = {}): Promise<MergeResult> {
  return mergeBranches(repo, await resolveSessionSource(repo, sessionId), options);
}

async function writeConflictBranch(repo: Repository, plan: Extract<MergePlan, { kind: 'conflict' }>, name: string, author: Signature, committer: Signature) {
  const ref = name.startsWith('refs/') ? name : `refs/heads/${name}`;
  if (!ref.startsWith('refs/heads/')) throw new ForgeError('INVALID_ARGUMENT', `--conflict-branch must name a branch, not ${name}.`, { data: { name } });
  if ((await repo.refs.resolve(ref)) !== null) {
    throw new ForgeError('CONFLICT_BRANCH_EXISTS', `Branch ${ref.slice('refs/heads/'.length)} already exists; the conflict branch must be new.`, { data: { ref } });
  }
  const tree = await writeMergedTree(repo, plan.root);
  const lines = plan.conflicts.map((c) => `  ${c.path} (${c.kind})`);
  const message = `Conflicted merge of ${plan.source.label} into ${plan.target.label}\n\nResolve the conflict markers, commit, then merge this branch into ${plan.target.label}.\n\nConflicts:\n${lines.join('\n')}\n`;
  const commit = await repo.writeCommit({ tree, parents: [plan.target.oid, plan.source.oid], author, committer, message });
  await repo.refs.update({ ref, newOid: commit, expectedOid: ZERO_OID, committer, reflogMessage: `forge merge ${plan.source.label}: conflicts` });
  return { ref, commit, tree };
}

/** The result with `.forge/sessions` exactly as the target has it. */
async function keepTargetSessionFiles(repo: Repository, root: MergedNode | null, targetTree: string): Promise<MergedNode | null> {
  const wanted = await entryAt(repo, targetTree, SESSION_DIR);
  return setPath(repo, root, SESSION_DIR.split('/'), wanted);
}

async function entryAt(repo: Repository, tree: string, path: string): Promise<Omit<TreeEntry, 'name'> | null> {
  let current: Omit<TreeEntry, 'name'> = { mode: '040000', oid: tree };
  for (const name of path.split('/')) {
    if (current.mode !== '040000') return null;
    const entry = (await repo.readTree(current.oid)).find((e) => e.name === name);
    if (entry === undefined) return null;
    current = { mode: entry.mode, oid: entry.oid };
  }
  return current;
}

async function setPath(repo: Repository, node: MergedNode | null, names: string[], value: Omit<TreeEntry, 'name'> | null): Promise<MergedNode | null> {
  if (names.length === 0) {
    if (value !== null && node?.kind === 'entry' && node.entry.oid === value.oid && node.entry.mode === value.mode) return node;
    return value === null ? null : { kind: 'entry', entry: value };
  }
  let children: Map<string, MergedNode>;
  if (node === null || node.kind === 'blob' || (node.kind === 'entry' && node.entry.mode !== '040000')) {
    if (value === null) return node;
    children = new Map();
  } else if (node.kind === 'entry') {
    children = new Map((await repo.readTree(node.entry.oid)).map((e) => [e.name, { kind: 'entry', entry: { mode: e.mode, oid: e.oid } } as MergedNode]));
  } else {
    children = new Map(node.children);
  }
  const [name, ...rest] = names;
  const current = children.get(name!) ?? null;
  const child = await setPath(repo, current, rest, value);
  if (child === current) return node; // nothing to change here: keep the node (and its oid) as it is
  if (child === null) children.delete(name!);
  else children.set(name!, child);
  return children.size === 0 ? null : { kind: 'dir', children };
}
