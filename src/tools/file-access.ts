/**
 * The steps every file-changing tool shares: load the current content with the stale checks,
 * and write new content while recording its hash as seen (the model knows what it wrote).
 */
import { ForgeError } from '../errors';
import type { Bytes } from '../git/byte-runs';
import type { FileMode, WriteOptions } from '../vfs/types';
import type { ToolContext } from './context';
import { assertFresh, recordSeen } from './read-tracking';

export interface CurrentFile {
  bytes: Uint8Array;
  hash: string;
  mode: FileMode;
}

/** The file at `path`, or null when nothing is there. Directories and submodules are errors. */
export async function loadFile(ctx: ToolContext, path: string): Promise<CurrentFile | null> {
  const stat = await ctx.vfs.stat(path);
  if (stat === null) return null;
  if (stat.type === 'directory') {
    throw new ForgeError('PATH_IS_DIRECTORY', `${path} is a directory, not a file. Use list_files to see what it contains.`, { data: { path } });
  }
  if (stat.type === 'submodule') throw new ForgeError('PATH_IS_SUBMODULE', `${path} is a submodule, not a file.`, { data: { path } });
  const bytes = await ctx.vfs.readFile(path);
  return { bytes, hash: await ctx.hashContent(bytes), mode: stat.mode as FileMode };
}

/**
 * What a tool that replaces a file whole needs of the current one: its hash (after the
 * FILE_NOT_READ / STALE_FILE checks) and mode, or null when nothing is there. A large file whose
 * hash is known by its blob oid is not read: overwriting a 100 MB file does not inflate it.
 */
export async function checkForReplace(ctx: ToolContext, path: string, toolName: string): Promise<{ hash: string; mode: FileMode } | null> {
  const stat = await ctx.vfs.stat(path);
  const known = stat !== null && stat.type === 'file' && stat.oid && ctx.hashOfBlob ? await ctx.hashOfBlob(stat.oid) : null;
  if (known === null || stat === null) {
    const file = await loadForChange(ctx, path, toolName);
    return file === null ? null : { hash: file.hash, mode: file.mode };
  }
  assertFresh(ctx.state, path, known, toolName);
  return { hash: known, mode: stat.mode as FileMode };
}

/** The file at `path` if it exists, after FILE_NOT_READ / STALE_FILE checks; null when it does not exist. */
export async function loadForChange(ctx: ToolContext, path: string, toolName: string, givenHash?: string): Promise<CurrentFile | null> {
  const file = await loadFile(ctx, path);
  if (file !== null) assertFresh(ctx.state, path, file.hash, toolName, givenHash);
  return file;
}

export function notFound(path: string): ForgeError {
  return new ForgeError('PATH_NOT_FOUND', `No file at ${path}. Use list_files or search to find the right path.`, { data: { path } });
}

/** Writes and remembers the new content as seen (one buffer or runs in order); returns its hash. */
export async function writeSeen(ctx: ToolContext, path: string, bytes: Bytes, options?: WriteOptions): Promise<string> {
  await ctx.vfs.writeFile(path, bytes, options);
  const hash = await ctx.hashContent(bytes);
  recordSeen(ctx.state, path, hash);
  return hash;
}
