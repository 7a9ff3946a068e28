import type { EntryType } from './types';

/** What a git mode stands for in a view. */
export function entryType(mode: string): EntryType {
  if (mode === '040000') return 'directory';
  if (mode === '120000') return 'symlink';
  if (mode === '160000') return 'submodule';
  return 'file';
}
