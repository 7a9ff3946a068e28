/**
 * The filesystem the engine works through: the promise API that node's fs, memfs and
 * lightning-fs share, plus the optional synchronous calls that node's fs and memfs have.
 * When the sync calls are there (and the platform has sync zlib/sha1), the object store reads
 * packs by offset like git does; without them (a browser), it falls back to isomorphic-git.
 */

export interface FsStat {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  size: number;
  mode: number;
  mtimeMs?: number;
}

/** What the engine passes to writeFile: a file mode, and `wx` for exclusive creation (locks). */
export interface WriteOptions {
  mode?: number;
  flag?: string;
}

export interface FsPromises {
  readFile(path: string): Promise<Uint8Array>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  // `| {}`: lightning-fs types its options with a required `mode`, node's fs rejects a bare
  // string there; `{}` is what all of them accept, the first member what the engine passes.
  writeFile(path: string, data: Uint8Array | string, options?: WriteOptions | {}): Promise<void>;
  // `mode`: lightning-fs's options type requires it (and has no `recursive`).
  mkdir(path: string, options?: { recursive?: boolean; mode?: number }): Promise<unknown>;
  readdir(path: string): Promise<string[]>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  rmdir(path: string, options?: { recursive?: boolean }): Promise<void>;
  stat(path: string): Promise<FsStat>;
  lstat(path: string): Promise<FsStat>;
  readlink(path: string): Promise<string>;
  symlink(target: string, path: string): Promise<void>;
  chmod?(path: string, mode: number): Promise<void>;
  appendFile?(path: string, data: Uint8Array | string): Promise<void>;
  truncate?(path: string, length: number): Promise<void>;
  /**
   * Where the fs buffers what it wrote (lightning-fs keeps its directory tree in memory and
   * saves it to IndexedDB 500 ms after the last write): save it now. See flushWrites.
   */
  flush?(): Promise<void>;
}

/** Synchronous calls used by the fast paths (node's fs and memfs both have them). */
export interface FsSync {
  openSync(path: string, flags: string | number, mode?: number): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  closeSync(fd: number): void;
  readFileSync(path: string): Uint8Array;
  existsSync(path: string): boolean;
  fstatSync(fd: number): { size: number };
  readdirSync(path: string): string[];
  writeFileSync(path: string, data: Uint8Array | string, options?: { mode?: number; flag?: string }): void;
  renameSync(from: string, to: string): void;
  mkdirSync(path: string, options?: { recursive?: boolean }): unknown;
  chmodSync(path: string, mode: number): void;
  unlinkSync(path: string): void;
  appendFileSync(path: string, data: string | Uint8Array): void;
  /** Optional: git's freshen (touch an existing object); without it, existence is checked. */
  utimesSync?(path: string, atime: number, mtime: number): void;
  /** Optional: cutting a torn journal append back; without it, the journal is rewritten whole. */
  truncateSync?(path: string, length: number): void;
  statSync?(path: string): FsStat;
}

/** Sync forms the promise API can also be served by, where the fs has them (node's fs and memfs do). */
interface ExtraSync {
  statSync(path: string): FsStat;
  lstatSync(path: string): FsStat;
  readlinkSync(path: string): string;
  symlinkSync(target: string, path: string): void;
  rmdirSync(path: string, options?: { recursive?: boolean }): void;
}

export interface GitFs extends Partial<FsSync> {
  promises: FsPromises;
}

/**
 * What callers may pass for a GitFs: node's fs, memfs or lightning-fs as their own type
 * declarations describe them. memfs types readdir's and readFile's results by their options
 * (names or Dirents, strings or Buffers); called as the engine calls them (no encoding for
 * readdir, none or 'utf8' for readFile) they return what GitFs says, so asGitFs only narrows
 * the declared types.
 */
export interface GitFsInput extends Omit<Partial<FsSync>, 'readdirSync' | 'readFileSync'> {
  promises: Omit<FsPromises, 'readdir' | 'readFile' | 'readlink' | 'stat' | 'lstat'> & {
    readdir(path: string): Promise<unknown[]>;
    readlink(path: string): Promise<unknown>;
    // Two signatures, not one with an optional encoding: @types/node 24+ declares node's
    // readFile as overloads none of which takes `'utf8' | undefined`, but each of these two
    // is met by one of them (and by memfs's and lightning-fs's).
    readFile(path: string): Promise<unknown>;
    readFile(path: string, encoding: 'utf8'): Promise<unknown>;
    // memfs's stats may hold bigints (with the bigint option, which the engine never passes).
    stat(path: string): Promise<FsStatInput>;
    lstat(path: string): Promise<FsStatInput>;
  };
  readdirSync?(path: string): unknown[];
  readFileSync?(path: string): unknown;
}

type FsStatInput = Omit<FsStat, 'size' | 'mode' | 'mtimeMs'> & { size: number | bigint; mode: number | bigint; mtimeMs?: number | bigint };

export function asGitFs(fs: GitFsInput): GitFs {
  return fs as GitFs;
}

/** The calls of FsSync, by name: what the fast paths need, and what withSyncPromises passes on. */
const SYNC_CALLS = [
  'openSync',
  'readSync',
  'closeSync',
  'readFileSync',
  'existsSync',
  'fstatSync',
  'readdirSync',
  'writeFileSync',
  'renameSync',
  'mkdirSync',
  'chmodSync',
  'unlinkSync',
  'appendFileSync',
] as const satisfies ReadonlyArray<keyof FsSync>;

/** Sync calls used where the fs has them, passed on by withSyncPromises too. */
const OPTIONAL_SYNC_CALLS = ['utimesSync', 'truncateSync', 'statSync'] as const;

export function hasSyncApi(fs: GitFs): fs is GitFs & FsSync {
  return SYNC_CALLS.every((name) => typeof fs[name] === 'function');
}

// ignoreBOM keeps a BOM in the text, as node's readFile(path, 'utf8') does.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The same fs, with its promise API served by the synchronous calls where it has them (node's
 * fs, memfs). The engine's file operations are small (a ref, a lock, a journal line, an object):
 * a thread-pool round trip per call costs more than the call and, under load, far more, and a
 * ref update or a tool call makes several in a row. Calls the fs lacks a sync form of stay
 * asynchronous.
 */
export function withSyncPromises(fs: GitFs): GitFs {
  if (!hasSyncApi(fs)) return fs;
  // Read when first needed: node's fs.promises getter loads fs/promises (and readline), ~1-2 ms
  // of a `forge cat` that never calls it.
  let promisesApi: FsPromises | undefined;
  const p = (): FsPromises => (promisesApi ??= fs.promises);
  const extra = fs as Partial<ExtraSync>;
  const promises: FsPromises = {
    readFile: (async (path: string, options?: unknown) => {
      const encoding = typeof options === 'string' ? options : (options as { encoding?: string } | undefined)?.encoding;
      if (encoding === undefined || encoding === null) return fs.readFileSync(path);
      if (encoding === 'utf8' || encoding === 'utf-8') return utf8.decode(fs.readFileSync(path));
      return p().readFile(path, options as 'utf8');
    }) as FsPromises['readFile'],
    writeFile: async (path, data, options) => fs.writeFileSync(path, data, typeof options === 'string' ? undefined : options),
    mkdir: async (path, options) => fs.mkdirSync(path, options),
    readdir: async (path) => fs.readdirSync(path),
    rename: async (from, to) => fs.renameSync(from, to),
    unlink: async (path) => fs.unlinkSync(path),
    chmod: async (path, mode) => fs.chmodSync(path, mode),
    appendFile: async (path, data) => fs.appendFileSync(path, data),
    ...(fs.truncateSync ? { truncate: async (path: string, length: number) => fs.truncateSync!(path, length) } : p().truncate ? { truncate: (path: string, length: number) => p().truncate!(path, length) } : {}),
    rmdir: extra.rmdirSync ? async (path, options) => extra.rmdirSync!(path, options) : (path, options) => p().rmdir(path, options),
    stat: extra.statSync ? async (path) => extra.statSync!(path) : (path) => p().stat(path),
    lstat: extra.lstatSync ? async (path) => extra.lstatSync!(path) : (path) => p().lstat(path),
    readlink: extra.readlinkSync ? async (path) => extra.readlinkSync!(path) : (path) => p().readlink(path),
    symlink: extra.symlinkSync ? async (target, path) => extra.symlinkSync!(target, path) : (target, path) => p().symlink(target, path),
    flush: async () => {
      await p().flush?.();
    },
  };
  // Bound: memfs's calls are methods of its volume.
  const calls = Object.fromEntries(SYNC_CALLS.map((name) => [name, (fs[name] as (...args: unknown[]) => unknown).bind(fs)])) as unknown as FsSync;
  const optional = Object.fromEntries(OPTIONAL_SYNC_CALLS.filter((name) => typeof fs[name] === 'function').map((name) => [name, (fs[name] as (...args: unknown[]) => unknown).bind(fs)]));
  return { ...calls, ...optional, promises };
}

/** The errno code of a filesystem error, whatever fs produced it. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

export async function pathExists(fs: GitFs, path: string): Promise<boolean> {
  try {
    await fs.promises.lstat(path);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return false;
    throw error;
  }
}

export function joinPath(...parts: string[]): string {
  const joined = parts.filter((p) => p !== '').join('/');
  return joined.replace(/\/{2,}/g, '/');
}

export function dirname(path: string): string {
  const i = path.lastIndexOf('/');
  if (i < 0) return '.';
  if (i === 0) return '/';
  return path.slice(0, i);
}
