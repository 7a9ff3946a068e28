/**
 * Read tracking and stale protection. The session remembers, per path, the hash of the content
 * the model last saw (read_file, or its own successful write). Changing an existing file the
 * model has not seen, or that changed since, is refused: the model would be editing from a
 * memory of the file that is not the file. The hashes live in the session state, so this holds
 * across turns and processes.
 */
import { ForgeError, type ErrorCode } from '../errors';
import type { ToolState } from './context';

export function recordSeen(state: ToolState, path: string, hash: string): void {
  state.readHashes[path] = hash;
}

export function forgetSeen(state: ToolState, path: string): void {
  delete state.readHashes[path];
}

export interface FreshnessProblem {
  code: Extract<ErrorCode, 'FILE_NOT_READ' | 'STALE_FILE'>;
  message: string;
}

/**
 * Why an existing file with content hash `current` may not be changed now, or null when it may.
 * `givenHash` is the caller's file_hash, checked against the current content.
 */
export function freshnessProblem(state: ToolState, path: string, current: string, toolName: string, givenHash?: string): FreshnessProblem | null {
  if (givenHash !== undefined && givenHash.trim().toLowerCase() !== current) {
    return {
      code: 'STALE_FILE',
      message: `file_hash does not match the current content of ${path}: it changed since that hash was taken. Read it again with read_file, then retry the ${toolName} call with the new file_hash.`,
    };
  }
  const seen = state.readHashes[path];
  if (seen === undefined) {
    return { code: 'FILE_NOT_READ', message: `${path} has not been read in this session. Read it with read_file first, then retry the ${toolName} call.` };
  }
  if (seen !== current) {
    return {
      code: 'STALE_FILE',
      message: `${path} changed since you last read it. Read it again with read_file, then retry the ${toolName} call against the current content.`,
    };
  }
  return null;
}

/** Throws FILE_NOT_READ or STALE_FILE (with the current hash in data) unless the file may be changed. */
export function assertFresh(state: ToolState, path: string, current: string, toolName: string, givenHash?: string): void {
  const problem = freshnessProblem(state, path, current, toolName, givenHash);
  if (problem) throw new ForgeError(problem.code, problem.message, { data: { path, current_file_hash: current } });
}
