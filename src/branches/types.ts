/** The shapes shared by merge, rebase and their reports. */
import type { TreeEntry } from '../git';
import type { ConflictHunk } from './line-merge';

export type { ConflictHunk, LineRange } from './line-merge';

/**
 * - content: both sides changed a text file (or a symlink, or a submodule) and the changes overlap;
 * - add/add: both sides added the path with different content;
 * - modify/delete: one side changed the file, the other deleted it;
 * - mode: the executable bit (or the file type: file, symlink, submodule) changed differently;
 * - binary: both sides changed a binary file (a NUL in its first 8000 bytes) differently;
 * - file/directory: one side has a file where the other has a directory with files in it;
 * - rename: git's rename detection could pair a deletion and an addition here and conflict
 *   (forge does not follow renames; see docs/MERGE.md).
 */
export type ConflictKind = 'content' | 'add/add' | 'modify/delete' | 'mode' | 'binary' | 'file/directory' | 'rename';

export interface ConflictEntry {
  mode: string;
  oid: string;
}

export interface MergeConflict {
  path: string;
  kind: ConflictKind;
  message: string;
  base?: ConflictEntry;
  ours?: ConflictEntry;
  theirs?: ConflictEntry;
  /** True when a side is binary (content was not merged line by line). */
  binary?: boolean;
  /** Text conflicts: each conflicting region with the base, ours and theirs lines. */
  hunks?: ConflictHunk[];
  /** Where the conflict tree (--conflict-branch) holds this path's file when not at `path`. */
  conflictPath?: string;
}

/** Names for the two sides, used in conflict markers and messages (git uses the branch names). */
export interface MergeLabels {
  ours: string;
  theirs: string;
}

/** A directory of a merge result: existing objects are reused by oid, new content is kept until written. */
export type MergedNode =
  | { kind: 'entry'; entry: Omit<TreeEntry, 'name'> }
  | { kind: 'blob'; mode: '100644' | '100755' | '120000'; content: Uint8Array }
  | { kind: 'dir'; children: Map<string, MergedNode> };
