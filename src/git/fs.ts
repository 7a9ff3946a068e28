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

export interface FsPromises {
  readFile(path: string): Promise<Uint8Array>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  writeFile(path: string, data: Uint8Array | string, options?: { mode?: number; flag?: string } | string): Promise<void>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<unknown>;
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
  writeFileSync(path: string, data: Uint8Array, options?: { mode?: number }): void;
  renameSync(from: string, to: string): void;
  mkdirSync(path: string, options?: { recursive?: boolean }): unknown;
  chmodSync(path: string, mode: number): void;
  unlinkSync(path: string): void;
  appendFileSync(path: string, data: string | Uint8Array): void;
}

export interface GitFs extends Partial<FsSync> {
  promises: FsPromises;
}

export function hasSyncApi(fs: GitFs): fs is GitFs & FsSync {
  return (
    typeof fs.openSync === 'function' &&
    typeof fs.readSync === 'function' &&
    typeof fs.closeSync === 'function' &&
    typeof fs.readFileSync === 'function' &&
    typeof fs.existsSync === 'function' &&
    typeof fs.fstatSync === 'function' &&
    typeof fs.readdirSync === 'function' &&
    typeof fs.writeFileSync === 'function' &&
    typeof fs.renameSync === 'function' &&
    typeof fs.mkdirSync === 'function' &&
    typeof fs.chmodSync === 'function' &&
    typeof fs.unlinkSync === 'function' &&
    typeof fs.appendFileSync === 'function'
  );
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
