export type { Vfs, WritableVfs, VfsEntry, VfsStat, FileMode, EntryMode, EntryType, PendingChange, ChangeKind, WriteOptions } from './types';
export { CommitVfs, entryType } from './commit-vfs';
export { WorkInProgressVfs, type PendingValue, type WorkInProgressOptions } from './work-in-progress-vfs';
export { PendingPin, PENDING_REF_PREFIX } from './pending-pin';
export { FsJournal, NullJournal, type Journal, type JournalContent, type JournalEntry } from './journal';
export { materialize, type MaterializeResult } from './materialize';
export { normalizePath, parentOf, nameOf, ancestorsOf, isUnder } from './paths';
