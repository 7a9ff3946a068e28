/** Merge and rebase of session branches: planning (pure decisions) and applying (writes through git/). */
export { mergeLines, type LineMergeResult, type LineMergeLabels } from './line-merge';
export { diffLines, type DiffHunk } from './xdiff';
export { isBinary } from './binary';
export { similarity, spanCounts } from './similarity';
export { mergeBases, isAncestor, repositoryGraph, type CommitGraph } from './merge-base';
export { mergeTrees, writeMergedTree, type MergeSource, type TreeMergeResult, type TreeWriter, type RenameHints } from './tree-merge';
export { findRenameHazards } from './rename-hazards';
export {
  planMerge,
  applyMerge,
  mergeBranches,
  mergeSession,
  resolveTargetBranch,
  resolveSessionSource,
  singleMergeBase,
  type MergeOptions,
  type MergePlan,
  type MergeResult,
  type MergeSide,
  type MergeStatus,
} from './merge';
export { rebaseSession, type RebaseOptions, type RebaseResult, type ReplayedCommit } from './rebase';
export { sessionDiff, formatStat, type SessionDiff } from './session-diff';
export { findCheckout, BranchUpdate, type Checkout, type WorktreeSync, type WorktreeTransaction } from './worktree';
export type { ConflictKind, ConflictEntry, MergeConflict, MergeLabels, MergedNode, ConflictHunk, LineRange } from './types';
export { movedError } from './moved';
