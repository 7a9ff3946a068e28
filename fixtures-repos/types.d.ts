/**
 * The shape of a fixture definition: a linear history of commits on one branch, with every
 * byte, mode, identity and date spelled out, so the built repository (and so every oid) is the
 * same on every machine.
 */

/** The file modes a fixture may use (directories are implied by paths). */
export type FixtureFileMode = '100644' | '100755' | '120000';

/** One file written (added or replaced) by a commit. Exactly one of `text` or `base64`. */
export interface FixtureFile {
  /** Slash-separated, relative, no `.`/`..`/`.git` components. */
  path: string;
  /** Default '100644'. For '120000' the content is the symlink target. */
  mode?: FixtureFileMode;
  /** Content as UTF-8 text (escapes such as \r\n are kept byte for byte). */
  text?: string;
  /** Content as base64, for bytes that are not valid UTF-8. */
  base64?: string;
}

export interface FixtureIdentity {
  name: string;
  email: string;
}

export interface FixtureCommit {
  /** ISO 8601 with an explicit zone: '2024-01-01T09:00:00Z' or '2024-01-01T09:00:00+02:00'. */
  date: string;
  /** A trailing newline is added when missing, as `git commit` does. */
  message: string;
  /** Defaults to the definition's author. */
  author?: FixtureIdentity;
  /** Defaults to this commit's author. */
  committer?: FixtureIdentity;
  files?: FixtureFile[];
  /** Paths removed by this commit (applied before `files`). */
  deletions?: string[];
}

export interface FixtureDefinition {
  name: string;
  description: string;
  /** Default 'main'. */
  branch?: string;
  author: FixtureIdentity;
  /** Oldest first; each commit's parent is the one before it. */
  commits: FixtureCommit[];
}

/** A file of the tree at some commit, with its exact bytes. */
export interface FixtureTreeEntry {
  path: string;
  mode: FixtureFileMode;
  content: Buffer;
}
