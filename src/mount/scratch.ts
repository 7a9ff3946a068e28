/**
 * The scratch layer: paths the view's .gitignore files ignore (node_modules/, dist/, caches) live
 * on real disk in a per-session directory, never in the pending layer and never committed. The
 * core routes operations here; the real file system is behind this interface (`mount/node/`).
 * Paths are the view's ('a/b'); every call may reject with a Node-style errno error.
 */
import type { FileAttr } from './file-attr';

export interface ScratchLayer {
  lstat(path: string): Promise<FileAttr | null>;
  /** Names in a directory; [] when it does not exist. */
  readdir(path: string): Promise<string[]>;
  /** Creates the directory and any missing parents. */
  mkdir(path: string, mode: number): Promise<void>;
  /** Creates (parents as needed) and opens a file; returns a descriptor. */
  create(path: string, mode: number, flags: number): Promise<number>;
  open(path: string, flags: number): Promise<number>;
  read(fd: number, length: number, position: number): Promise<Uint8Array>;
  write(fd: number, data: Uint8Array, position: number): Promise<number>;
  ftruncate(fd: number, size: number): Promise<void>;
  truncate(path: string, size: number): Promise<void>;
  fsync(fd: number): Promise<void>;
  close(fd: number): Promise<void>;
  unlink(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  symlink(target: string, path: string): Promise<void>;
  readlink(path: string): Promise<string>;
  utimens(path: string, atime: Date, mtime: Date): Promise<void>;
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, bytes: Uint8Array, mode: number): Promise<void>;
  /** Removes a file or a whole directory. */
  remove(path: string): Promise<void>;
  /**
   * The real directory on disk that holds `path` and nothing else, so programs may use it
   * directly (the mount shows a symbolic link to it and FUSE is out of the way); null where the
   * layer itself must answer (a directory merged with the working tree's beneath it).
   */
  directPath(path: string): Promise<string | null>;
}
