export { Repository, DEFAULT_IDENTITY, type OpenRepositoryOptions, type IdentitySources, type IdentityRole, type Person } from './repository';
export { ObjectStore, type RawObject } from './object-store';
export { bytesLength, joinBytes, runsOf, type ByteRuns, type Bytes } from './byte-runs';
export { RefStore, ZERO_OID, type RefUpdate, type RefValue } from './refs';
export { gitdirsWithCheckout } from './checkouts';
export { refNameProblem, isValidRefName } from './ref-name';
export { buildTree, EMPTY_TREE_OID, type FileChange, type TreeIo } from './tree-builder';
export {
  parseCommit,
  serializeCommit,
  parseTree,
  serializeTree,
  encodeTree,
  type EncodedTree,
  formatSignature,
  parseSignature,
  type Commit,
  type Signature,
  type TreeEntry,
  type ObjectType,
} from './object-codec';
export { compareTreeEntries, treeNameProblem, symlinkNameProblem, isDotGitName, isHfsDotGit, isNtfsDotGit, type TreeMode } from './tree-names';
export { portablePlatform, toHex, fromHex, isUtf8, type ByteText, type GitPlatform, type ProcessInfo, type SyncPlatform } from './platform';
export { mkdirp, createExclusive, flushWrites } from './fs-capabilities';
export { hasSyncApi, withSyncPromises, errnoCode, joinPath, dirname, asGitFs, type GitFs, type GitFsInput, type FsPromises, type FsSync } from './fs';
export { listTreeFiles, FILE_MODES, type TreeFiles, type TreeBytesReader } from './tree-files';
export { diffTrees, type TreeChangeEntry, type TreeReader } from './tree-diff';
export { applyTreeChanges } from './tree-files-delta';
export { parseGitDate, formatZone, type GitDate } from './git-date';
