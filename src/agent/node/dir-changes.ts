/**
 * A real directory holding a view (base + pending), and what a program changed in it: the one
 * change detection of run_command (its apply_changes) and of `forge agent --copy` (the agent's
 * working directory). What the directory holds: the visible files only (no .forge/, no denied
 * paths such as .env). New files ignored by the view's .gitignore files are not brought back
 * (nor walked), so `npm install` does not import node_modules/.
 */
import { createHash } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { lstat, readdir, readFile, readlink, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { toForgeError } from '../../errors';
import type { GitFs } from '../../git';
import { checkPath, isGitDirName, isVisiblePath, type ToolsConfig } from '../../tools';
import { gitignoreRules } from '../../tools/gitignore-rules';
import { materialize, type FileMode, type Vfs, type VfsEntry, type WritableVfs } from '../../vfs';

export interface DirChanges {
  added: string[];
  modified: string[];
  deleted: string[];
}

/** What the directory held when it was written: to compare against later. */
export interface DirSnapshot {
  before: Map<string, { oid: string; mode: FileMode }>;
  trackedDirs: Set<string>;
  ignored: (path: string, isDir: boolean) => boolean;
  /** Ignored directories linked in from the scratch directory (a symlink is not a directory to .gitignore). */
  linked?: Set<string>;
}

/** Writes the visible part of `vfs` into the empty directory `dir`. */
export async function materializeView(vfs: Vfs, config: ToolsConfig, dir: string): Promise<DirSnapshot> {
  const view = visibleView(vfs, config);
  await materialize(view, nodeFs as unknown as GitFs, dir);
  return snapshotOf(view);
}

/** The snapshot of a view already in a directory (after its changes were applied). */
export async function snapshotOf(view: Vfs): Promise<DirSnapshot> {
  const entries = (await view.walk('')).filter((e) => e.type === 'file' || e.type === 'symlink');
  const before = new Map(entries.map((e) => [e.path, { oid: e.oid, mode: e.mode as FileMode }]));
  const trackedDirs = new Set<string>();
  for (const path of before.keys()) for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) trackedDirs.add(path.slice(0, i));
  return { before, trackedDirs, ignored: await gitignoreRules(view, entries) };
}

/**
 * Files added, modified (content or mode) and deleted in `dir` since the snapshot. With a stat
 * cache (forge mount --copy) a file whose stat data matches its entry is not read (git's index).
 */
export async function detectChanges(dir: string, snapshot: DirSnapshot, cache?: StatCache): Promise<{ changes: DirChanges; disk: Map<string, DiskFile> }> {
  const { before } = snapshot;
  const linked = snapshot.linked ?? new Set<string>();
  const disk = await scanWorkDir(dir, before, snapshot.trackedDirs, (path, isDir) => linked.has(path) || snapshot.ignored(path, isDir), cache);
  const changes: DirChanges = { added: [], modified: [], deleted: [] };
  for (const [path, file] of disk) {
    const old = before.get(path);
    if (!old) changes.added.push(path);
    else if (old.oid !== file.oid || old.mode !== file.mode) changes.modified.push(path);
  }
  for (const path of before.keys()) if (!disk.has(path)) changes.deleted.push(path);
  return { changes, disk };
}

/**
 * Links the session's ignored files (its scratch directory: node_modules/, dist/) into a copy, so
 * a command finds its dependencies. Each ignored path the copy lacks becomes a symlink to the
 * scratch directory's (what the command writes through it stays there, as in the mount); ignored
 * paths are never walked by detectChanges, so nothing of them comes back into the view.
 */
export async function linkScratch(scratch: string, dir: string, snapshot: DirSnapshot): Promise<void> {
  const walk = async (rel: string): Promise<void> => {
    for (const name of await readdir(join(scratch, rel)).catch(() => [] as string[])) {
      if (isGitDirName(name)) continue;
      const path = rel === '' ? name : `${rel}/${name}`;
      const source = await lstat(join(scratch, path));
      const here = await lstat(join(dir, path)).catch(() => null);
      if (here === null) {
        if (!snapshot.ignored(path, source.isDirectory()) || snapshot.trackedDirs.has(path)) continue;
        await symlink(join(scratch, path), join(dir, path));
        (snapshot.linked ??= new Set()).add(path);
      } else if (here.isDirectory() && source.isDirectory()) {
        await walk(path);
      }
    }
  };
  await walk('');
}

function gitBlobOid(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** The view as the command may see it: .forge/, .git spellings and denied paths left out. */
export function visibleView(view: Vfs, config: ToolsConfig): Vfs {
  return {
    readFile: (path) => view.readFile(path),
    exists: (path) => view.exists(path),
    stat: (path) => view.stat(path),
    list: (dir) => view.list(dir),
    walk: async (dir) => (await view.walk(dir)).filter((e) => isVisiblePath(e.path, config)),
    readBlob: (oid) => view.readBlob(oid),
  };
}

export interface DiskFile {
  /** Absent when the stat cache vouched for the file (read on use: diskBytes). */
  bytes?: Uint8Array;
  /** Where it is on disk. */
  abs: string;
  mode: FileMode;
  oid: string;
}

/** A file's bytes (a symlink's target), read now if the scan did not. */
export async function diskBytes(file: DiskFile): Promise<Uint8Array> {
  if (file.bytes) return file.bytes;
  return file.mode === '120000' ? new TextEncoder().encode(await readlink(file.abs)) : new Uint8Array(await readFile(file.abs));
}

/**
 * What a directory's files were when last hashed (as git's index keeps): a file whose size,
 * mtime, ctime, inode and kind are unchanged still has that oid. `trustedBefore`: entries are
 * only trusted for files last modified before this time (a write in the same clock tick as the
 * hashing would not change the stat data: git's racy-clean rule).
 */
export interface StatCache {
  files: Map<string, StatEntry>;
  trustedBefore: number;
}

export interface StatEntry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: FileMode;
  oid: string;
}

export function statEntry(st: nodeFs.Stats, oid: string): StatEntry {
  return { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, mode: modeOf(st), oid };
}

function modeOf(st: nodeFs.Stats): FileMode {
  return st.isSymbolicLink() ? '120000' : st.mode & 0o100 ? '100755' : '100644';
}

function cachedOid(cache: StatCache | undefined, path: string, st: nodeFs.Stats): string | null {
  const entry = cache?.files.get(path);
  if (!entry || st.mtimeMs >= cache!.trustedBefore || st.ctimeMs >= cache!.trustedBefore) return null;
  const same = entry.size === st.size && entry.mtimeMs === st.mtimeMs && entry.ctimeMs === st.ctimeMs && entry.ino === st.ino && entry.mode === modeOf(st);
  return same ? entry.oid : null;
}

/** Files and symlinks under root that are tracked, or new and not ignored. */
async function scanWorkDir(
  root: string,
  tracked: ReadonlyMap<string, unknown>,
  trackedDirs: ReadonlySet<string>,
  ignored: (path: string, isDir: boolean) => boolean,
  cache?: StatCache,
): Promise<Map<string, DiskFile>> {
  const out = new Map<string, DiskFile>();
  const walk = async (rel: string): Promise<void> => {
    const names = (await readdir(join(root, rel))).sort();
    for (const name of names) {
      if (isGitDirName(name)) continue;
      const path = rel === '' ? name : `${rel}/${name}`;
      const abs = join(root, path);
      const st = await lstat(abs);
      if (st.isDirectory()) {
        if (!trackedDirs.has(path) && ignored(path, true)) continue;
        await walk(path);
      } else if (st.isSymbolicLink() || st.isFile()) {
        if (!tracked.has(path) && ignored(path, false)) continue;
        const mode = modeOf(st);
        const oid = cachedOid(cache, path, st);
        if (oid !== null) {
          out.set(path, { abs, mode, oid });
          continue;
        }
        const bytes = st.isSymbolicLink() ? new TextEncoder().encode(await readlink(abs)) : new Uint8Array(await readFile(abs));
        out.set(path, { bytes, abs, mode, oid: gitBlobOid(bytes) });
      }
    }
  };
  await walk('');
  return out;
}

/** Brings the changes into the view's pending layer; a path the sandbox refuses is skipped, with why. */
export async function applyChanges(
  vfs: WritableVfs,
  config: ToolsConfig,
  changes: DirChanges,
  disk: ReadonlyMap<string, DiskFile>,
  field: string,
): Promise<Array<{ path: string; code: string; message: string }>> {
  const skipped: Array<{ path: string; code: string; message: string }> = [];
  // Deletions first: a file replaced by a directory (or the reverse) needs the old one gone.
  for (const path of changes.deleted) {
    try {
      await checkPath(vfs, config, { field, path, role: 'delete' });
      await vfs.deleteFile(path);
    } catch (error) {
      const e = toForgeError(error);
      skipped.push({ path, code: e.code, message: e.message });
    }
  }
  for (const path of [...changes.added, ...changes.modified].sort()) {
    const file = disk.get(path)!;
    try {
      await checkPath(vfs, config, { field, path, role: 'write' });
      await vfs.writeFile(path, await diskBytes(file), { mode: file.mode });
    } catch (error) {
      const e = toForgeError(error);
      skipped.push({ path, code: e.code, message: e.message });
    }
  }
  return skipped;
}

