/** Codes of the branches layer (merge, rebase, and the checked-out working tree they may update). */
export const BRANCHES_CODES = {
  MERGE_CONFLICT: { kind: 'conflict', summary: 'The merge or rebase step conflicts; nothing was written to the target branch.' },
  MERGE_NO_BASE: { kind: 'user', summary: 'The two histories have no common commit (unrelated histories are not merged).' },
  MERGE_CRISS_CROSS: { kind: 'unsupported', summary: 'The two commits have several merge bases (criss-cross history); forge does not build a virtual base.' },
  MERGE_TARGET_INVALID: { kind: 'user', summary: 'The merge or rebase target is not a branch (or HEAD is detached).' },
  CONFLICT_BRANCH_EXISTS: { kind: 'user', summary: 'The branch asked for with --conflict-branch already exists.' },
  REBASE_MERGE_COMMIT: { kind: 'unsupported', summary: 'The commits to replay include a merge commit; rebase replays linear histories only.' },
  REBASE_PENDING_CHANGES: { kind: 'user', summary: 'The session has pending (uncommitted) changes; commit or discard them before rebasing.' },
  BRANCH_CHECKED_OUT_ELSEWHERE: { kind: 'user', summary: 'The branch is checked out in another working tree of the repository.' },
  WORKTREE_DIRTY: { kind: 'user', summary: 'The branch is checked out and its index or working tree has changes; nothing was changed.' },
  WORKTREE_IN_THE_WAY: { kind: 'user', summary: 'Untracked or ignored files in the working tree would be overwritten; nothing was changed.' },
  WORKTREE_UNSUPPORTED: { kind: 'unsupported', summary: 'The checked-out working tree uses an index feature the engine cannot update (split or sparse index, submodules).' },
  WORKTREE_SYNC_UNAVAILABLE: { kind: 'unsupported', summary: 'The branch is checked out, and no working-tree adapter was given to update it.' },
  INDEX_LOCKED: { kind: 'conflict', summary: 'The index is locked (index.lock exists): another git or forge process is using it.' },
} as const;
