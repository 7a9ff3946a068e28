/**
 * One interface over a commit's tree and over the work-in-progress layer above it (after
 * isomorphic-git's walkers): tools read through Vfs and write through WritableVfs, and never
 * know whether a path comes from the base commit or from a pending write.
 * Paths are repo-relative POSIX paths without leading or trailing slash; '' is the root.
 */
import type { Bytes } from '../git/byte-runs';

/** Git file modes the engine writes. 160000 (gitlink) is only ever preserved, never created. */
export type FileMode = '100644' | '100755' | '120000';
export type EntryMode = FileMode | '040000' | '160000';
export type EntryType = 'file' | 'symlink' | 'directory' | 'submodule';

export interface VfsEntry {
  /** Last path component. */
  name: string;
  /** Full repo-relative path. */
  path: string;
  type: EntryType;
  mode: EntryMode;
  /** Blob, tree or commit oid (a pending directory built from writes has no oid yet: ''). */
  oid: string;
}

export interface VfsStat extends VfsEntry {
  /** Byte size for files and symlinks; undefined for directories and submodules. */
  size?: number;
}

export interface Vfs {
  /** Bytes of a file (a symlink's target for 120000). PATH_NOT_FOUND, PATH_IS_DIRECTORY otherwise. */
  readFile(path: string): Promise<Uint8Array>;
  exists(path: string): Promise<boolean>;
  /** null when nothing is at the path. */
  stat(path: string): Promise<VfsStat | null>;
  /** Direct children of a directory, sorted by name. PATH_NOT_FOUND / PATH_NOT_DIRECTORY. */
  list(dir: string): Promise<VfsEntry[]>;
  /** Every file, symlink and submodule below dir (default: everything), sorted by path. */
  walk(dir?: string): Promise<VfsEntry[]>;
  /** A blob of the object store behind the view, by oid (e.g. an undo entry's pre-edit content). */
  readBlob(oid: string): Promise<Uint8Array>;
}

export type ChangeKind = 'added' | 'modified' | 'deleted';

export interface PendingChange {
  path: string;
  kind: ChangeKind;
  oldOid?: string;
  oldMode?: EntryMode;
  newOid?: string;
  newMode?: FileMode;
}

export interface WriteOptions {
  /** Default: keep the existing file's mode, else 100644. */
  mode?: FileMode;
}

export interface WritableVfs extends Vfs {
  /**
   * Creates parent directories as needed; PATH_NOT_DIRECTORY when a parent is a file. Content
   * may be runs in order (a large file's new version around an edit, never joined).
   */
  writeFile(path: string, content: Bytes, options?: WriteOptions): Promise<void>;
  /** PATH_NOT_FOUND when missing; PATH_IS_DIRECTORY for a directory. */
  deleteFile(path: string): Promise<void>;
  /** Pending changes against the base, sorted by path. A file written back to its base content is not a change. */
  diff(): Promise<PendingChange[]>;
  /** Drops every pending change. */
  discard(): Promise<void>;
}
