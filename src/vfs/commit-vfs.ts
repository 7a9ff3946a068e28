/**
 * Read-only view of one commit's tree. Trees are read lazily, one directory at a time, and
 * each directory's entries are kept in a map by path for the life of the view, so a read by
 * path after the first costs a few map lookups (the "path map per base commit").
 */
import { ForgeError } from '../errors';
import { applyTreeChanges, diffTrees, fromHex, type Repository, type TreeEntry, type TreeFiles } from '../git';
import { entryType } from './entry-type';
import { fileEntries, filePathBytes } from './file-entries';
import { PathMapCache } from './path-map-cache';
import { comparePaths, isUnder, nameOf, normalizePath } from './paths';
import type { EntryMode, Vfs, VfsEntry, VfsStat } from './types';

export { entryType };

const encoder = new TextEncoder();
/** How many first-parent ancestors a listing looks through for a stored one to derive from. */
const DERIVE_DEPTH = 8;

function toVfsEntry(dir: string, entry: TreeEntry): VfsEntry {
  return { name: entry.name, path: dir ? `${dir}/${entry.name}` : entry.name, type: entryType(entry.mode), mode: entry.mode as EntryMode, oid: entry.oid };
}

export class CommitVfs implements Vfs {
  private readonly dirs = new Map<string, Map<string, TreeEntry>>();
  /** Every file of the tree, once listed (from the on-disk path map or a walk of every tree). */
  private rootColumns: Promise<{ files: TreeFiles; stored: boolean }> | null = null;
  private allFiles: Promise<VfsEntry[]> | null = null;

  constructor(
    readonly repo: Repository,
    /** The commit this view shows (null for a view of a bare tree). */
    readonly commit: string | null,
    readonly rootTree: string,
  ) {}

  static async open(repo: Repository, revision: string): Promise<CommitVfs> {
    const commit = await repo.resolveCommit(revision);
    return new CommitVfs(repo, commit, (await repo.readCommit(commit)).tree);
  }

  /** The tree entry at a path, or null ('' is the root, returned as a directory entry). */
  async entry(path: string): Promise<TreeEntry | null> {
    const p = normalizePath(path, { allowRoot: true });
    if (p === '') return { name: '', mode: '040000', oid: this.rootTree };
    const slash = p.lastIndexOf('/');
    const dir = slash < 0 ? '' : p.slice(0, slash);
    const entries = await this.directory(dir);
    return entries?.get(p.slice(slash + 1)) ?? null;
  }

  async readFile(path: string): Promise<Uint8Array> {
    const entry = await this.entry(path);
    if (entry === null) throw new ForgeError('PATH_NOT_FOUND', `No file at "${path}".`, { data: { path } });
    if (entry.mode === '040000') throw new ForgeError('PATH_IS_DIRECTORY', `"${path}" is a directory, not a file.`, { data: { path } });
    if (entry.mode === '160000') throw new ForgeError('PATH_IS_DIRECTORY', `"${path}" is a submodule; its files are not in this repository.`, { data: { path } });
    return this.repo.readBlob(entry.oid);
  }

  async exists(path: string): Promise<boolean> {
    return (await this.entry(path)) !== null;
  }

  readBlob(oid: string): Promise<Uint8Array> {
    return this.repo.readBlob(oid);
  }

  async stat(path: string): Promise<VfsStat | null> {
    const p = normalizePath(path, { allowRoot: true });
    const entry = await this.entry(p);
    if (entry === null) return null;
    const stat: VfsStat = { name: nameOf(p), path: p, type: entryType(entry.mode), mode: entry.mode as EntryMode, oid: entry.oid };
    if (entry.mode !== '040000' && entry.mode !== '160000') stat.size = await this.repo.blobSize(entry.oid);
    return stat;
  }

  async list(dir: string): Promise<VfsEntry[]> {
    const p = normalizePath(dir, { allowRoot: true });
    const entries = await this.directory(p);
    if (entries === null) {
      const entry = await this.entry(p);
      if (entry !== null) throw new ForgeError('PATH_NOT_DIRECTORY', `"${dir}" is a file, not a directory.`, { data: { path: dir } });
      throw new ForgeError('PATH_NOT_FOUND', `No directory at "${dir}".`, { data: { path: dir } });
    }
    return [...entries.values()].map((e) => toVfsEntry(p, e)).sort((a, b) => comparePaths(a.name, b.name));
  }

  async walk(dir = ''): Promise<VfsEntry[]> {
    const p = normalizePath(dir, { allowRoot: true });
    const entry = await this.entry(p);
    if (entry === null) return [];
    if (entry.mode !== '040000') return [toVfsEntry(p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '', { ...entry, name: nameOf(p) })];
    if (p === '' || this.allFiles !== null) {
      const all = await this.listAll();
      return p === '' ? all.slice() : all.filter((e) => isUnder(e.path, p));
    }
    return fileEntries(await this.repo.listFiles(entry.oid, p), this.repo.platform.text?.hex);
  }

  /**
   * The paths of every file below a directory, in git's order, as UTF-8 bytes, each but the last
   * followed by the `separator` byte: what `walk` lists, as one buffer to print, without an
   * object or a string per file (for 50,000 files they cost more than the printing).
   */
  async pathBytes(dir = '', separator = 0x0a): Promise<Uint8Array> {
    const p = normalizePath(dir, { allowRoot: true });
    if (p === '' && this.allFiles === null) return this.decodeRoot((files) => filePathBytes(files, separator, this.repo.platform.text?.isUtf8));
    return encoder.encode((await this.walk(p)).map((e) => e.path).join(String.fromCharCode(separator)));
  }

  private listAll(): Promise<VfsEntry[]> {
    this.allFiles ??= this.decodeRoot((files) => fileEntries(files, this.repo.platform.text?.hex)).catch((error: unknown) => {
      this.allFiles = null; // a failure (an unreadable tree) is not kept: the next call tries again
      throw error;
    });
    return this.allFiles;
  }

  /**
   * Every file of the tree, decoded: from the stored path map, else from every tree (then
   * stored). A stored map that does not decode (damaged) is replaced by a fresh listing.
   */
  private async decodeRoot<T>(decode: (files: TreeFiles) => T): Promise<T> {
    this.rootColumns ??= this.readRootFiles();
    const { files, stored } = await this.rootColumns.catch((error: unknown) => {
      this.rootColumns = null;
      throw error;
    });
    try {
      return decode(files);
    } catch (error) {
      if (!stored) throw error;
      this.rootColumns = this.readRootFiles({ ignoreStored: true });
      return decode((await this.rootColumns).files);
    }
  }

  private async readRootFiles({ ignoreStored = false } = {}): Promise<{ files: TreeFiles; stored: boolean }> {
    const cache = new PathMapCache(this.repo.fs, this.repo.commonDir);
    const stored = ignoreStored ? null : await cache.load(this.rootTree);
    if (stored !== null) return { files: stored, stored: true };
    // Derived from a stored parent listing (checked when decoded, like a stored one).
    const derived = ignoreStored ? null : await this.deriveFromParent(cache);
    const files = derived ?? (await this.repo.listFiles(this.rootTree));
    await cache.store(this.rootTree, files);
    return { files, stored: derived !== null };
  }

  /**
   * The listing of this commit's tree from its first parent's stored listing and the diff of the
   * two trees, which reads only the trees along changed paths: a turn's commit (or any commit
   * after a listed one) lists in the time of a stored listing, not of a walk of every tree.
   */
  private async deriveFromParent(cache: PathMapCache): Promise<TreeFiles | null> {
    if (this.commit === null) return null;
    // The nearest listed ancestor along first parents (a session's start commit, a turn or two
    // listed by nobody), within a few commits: further back the diff would approach a walk.
    let commit = this.commit;
    for (let depth = 0; depth < DERIVE_DEPTH; depth++) {
      const parent = (await this.repo.readCommit(commit)).parents[0];
      if (parent === undefined) return null;
      const parentTree = (await this.repo.readCommit(parent)).tree;
      const parentFiles = await cache.load(parentTree);
      if (parentFiles !== null) {
        const hexToBytes = this.repo.platform.text?.hexToBytes ?? fromHex;
        return applyTreeChanges(parentFiles, await diffTrees(this.repo, parentTree, this.rootTree), hexToBytes);
      }
      commit = parent;
    }
    return null;
  }

  /** A directory's entries by name; null when the path is not a directory of this tree. */
  async directory(dir: string): Promise<Map<string, TreeEntry> | null> {
    const cached = this.dirs.get(dir);
    if (cached !== undefined) return cached;
    let treeOid: string;
    if (dir === '') {
      treeOid = this.rootTree;
    } else {
      const slash = dir.lastIndexOf('/');
      const parent = await this.directory(slash < 0 ? '' : dir.slice(0, slash));
      const entry = parent?.get(dir.slice(slash + 1));
      if (!entry || entry.mode !== '040000') return null;
      treeOid = entry.oid;
    }
    const map = new Map<string, TreeEntry>();
    for (const entry of await this.repo.readTree(treeOid)) map.set(entry.name, entry);
    this.dirs.set(dir, map);
    return map;
  }
}
