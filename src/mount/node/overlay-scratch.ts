/**
 * The scratch layer over the working tree's ignored directories (overlay semantics, unprivileged):
 * where the user's working tree already has an ignored directory (their installed node_modules/),
 * the mount shows it read-only beneath the session's scratch directory. Reads fall through to the
 * working tree; the first write to a file copies it up into the scratch directory; a removal
 * leaves a whiteout. Nothing is ever written into the working tree.
 *
 * Whiteouts are AUFS's (and OCI image layers') spelling, so no privilege is needed: an empty file
 * `.wh.<name>` in the scratch directory hides the working tree's `<name>` and all below it; where
 * the scratch directory also has `<name>`, that one shows alone (an opaque directory). Names
 * starting with `.wh.` are therefore neither listed nor creatable in an ignored directory.
 *
 * Only what lies in an ignored directory is shown from below (the predicate, the mount's
 * .gitignore rules): the working tree's tracked files and its ignored single files (.env) never are.
 */
import { constants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fsError } from '../errno';
import { S_IFMT, S_IFDIR, S_IFLNK, type FileAttr } from '../file-attr';
import { isMissing, ScratchDir } from './scratch-dir';

const WHITEOUT = '.wh.';

/** Whether a view path lies in (or is) an ignored directory of the view. */
export type InIgnoredDir = (path: string, isDir: boolean) => Promise<boolean>;

export class OverlayScratch extends ScratchDir {
  constructor(
    root: string,
    /** The working tree (the lower layer, never written). */
    readonly lowerRoot: string,
    private readonly inIgnoredDir: InIgnoredDir,
    /** The mount point, never shown from below (a mount inside the working tree would show itself). */
    private readonly mountPoint: string,
  ) {
    super(root);
  }

  override async lstat(path: string): Promise<FileAttr | null> {
    if (isWhiteoutName(path)) return null;
    return (await super.lstat(path)) ?? (await this.lowerAttr(path));
  }

  override async readdir(path: string): Promise<string[]> {
    const names = new Set((await super.readdir(path)).filter((name) => !name.startsWith(WHITEOUT)));
    const upperAttr = path === '' ? null : await super.lstat(path);
    // Below the lower directory only where the scratch directory's is not opaque (or absent).
    if (upperAttr === null || !(await this.whitedOut(path))) {
      for (const name of await this.lowerNames(path)) if (!names.has(name) && (await this.lowerAttr(join(path, name))) !== null) names.add(name);
    }
    return [...names];
  }

  override async mkdir(path: string, mode: number): Promise<void> {
    this.assertName(path);
    await super.mkdir(path, mode);
  }

  override async create(path: string, mode: number, flags: number): Promise<number> {
    this.assertName(path);
    return super.create(path, mode, flags);
  }

  override async open(path: string, flags: number): Promise<number> {
    if ((await super.lstat(path)) === null && (await this.lowerAttr(path)) !== null) {
      const writes = (flags & (constants.O_WRONLY | constants.O_RDWR | constants.O_TRUNC | constants.O_APPEND)) !== 0;
      if (!writes) return this.keep(await fsp.open(join(this.lowerRoot, path), constants.O_RDONLY));
      await this.copyUp(path);
    }
    return super.open(path, flags);
  }

  override async truncate(path: string, size: number): Promise<void> {
    await this.copyUp(path);
    return super.truncate(path, size);
  }

  override async unlink(path: string): Promise<void> {
    const lower = await this.lowerAttr(path);
    if ((await super.lstat(path)) !== null) await super.unlink(path);
    if (lower !== null) await this.whiteout(path);
  }

  /** The mount checked it is empty as shown; the scratch directory may still hold whiteouts. */
  override async rmdir(path: string): Promise<void> {
    const lower = await this.lowerAttr(path);
    if ((await super.lstat(path)) !== null) await fsp.rm(this.real(path), { recursive: true, force: true });
    if (lower !== null) await this.whiteout(path);
  }

  override async rename(from: string, to: string): Promise<void> {
    this.assertName(to);
    const lowerFrom = await this.lowerAttr(from);
    // As overlayfs without redirect_dir: a directory the working tree has a part of is not renamed
    // in place (EXDEV); mv and most tools copy it and remove the original instead.
    if (lowerFrom !== null && (lowerFrom.mode & S_IFMT) === S_IFDIR) throw Object.assign(new Error(`"${from}" is in the working tree's ignored directory`), { code: 'EXDEV' });
    if (lowerFrom !== null) await this.copyUp(from);
    const lowerTo = await this.lowerAttr(to);
    await super.rename(from, to);
    if (lowerFrom !== null) await this.whiteout(from);
    if (lowerTo !== null) await this.whiteout(to); // what was below `to` stays hidden under what moved there
  }

  override async chmod(path: string, mode: number): Promise<void> {
    await this.copyUp(path);
    return super.chmod(path, mode);
  }

  override async symlink(target: string, path: string): Promise<void> {
    this.assertName(path);
    return super.symlink(target, path);
  }

  override async readlink(path: string): Promise<string> {
    if ((await super.lstat(path)) === null && (await this.lowerAttr(path)) !== null) return fsp.readlink(join(this.lowerRoot, path));
    return super.readlink(path);
  }

  override async utimens(path: string, atime: Date, mtime: Date): Promise<void> {
    await this.copyUp(path);
    return super.utimens(path, atime, mtime);
  }

  override async readFile(path: string): Promise<Uint8Array> {
    if ((await super.lstat(path)) === null && (await this.lowerAttr(path)) !== null) return fsp.readFile(join(this.lowerRoot, path));
    return super.readFile(path);
  }

  override async writeFile(path: string, bytes: Uint8Array, mode: number): Promise<void> {
    this.assertName(path);
    return super.writeFile(path, bytes, mode);
  }

  override async remove(path: string): Promise<void> {
    const lower = await this.lowerAttr(path);
    await super.remove(path);
    if (lower !== null) await this.whiteout(path);
  }

  /** A directory only in the scratch layer may be used directly; one merged with the working tree's may not. */
  override async directPath(path: string): Promise<string | null> {
    return (await this.lowerAttr(path)) !== null ? null : super.directPath(path);
  }

  /** The working tree's entry at `path` as the mount shows it, or null (absent, hidden, whited out, not ignored). */
  private async lowerAttr(path: string): Promise<FileAttr | null> {
    if (path === '' || isWhiteoutName(path) || join(this.lowerRoot, path) === this.mountPoint) return null;
    let st;
    try {
      st = await fsp.lstat(join(this.lowerRoot, path));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    if (!(await this.inIgnoredDir(path, st.isDirectory())) || (await this.whitedOut(path))) return null;
    return { mode: st.mode & (S_IFMT | 0o7777), size: st.size, mtime: st.mtime };
  }

  private async lowerNames(path: string): Promise<string[]> {
    try {
      return await fsp.readdir(join(this.lowerRoot, path));
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  /** Whether a whiteout hides `path` or a directory above it from the working tree. */
  private async whitedOut(path: string): Promise<boolean> {
    for (let at = path; at !== '.' && at !== ''; at = parentPath(at)) {
      if ((await super.lstat(join(parentPath(at), `${WHITEOUT}${basename(at)}`))) !== null) return true;
    }
    return false;
  }

  private async whiteout(path: string): Promise<void> {
    await super.writeFile(join(parentPath(path), `${WHITEOUT}${basename(path)}`), new Uint8Array(0), 0o644);
  }

  /** The working tree's file (or link, or directory itself) into the scratch directory, before a change. */
  private async copyUp(path: string): Promise<void> {
    if ((await super.lstat(path)) !== null) return;
    const lower = await this.lowerAttr(path);
    if (lower === null) return;
    const type = lower.mode & S_IFMT;
    if (type === S_IFDIR) await super.mkdir(path, lower.mode & 0o7777);
    else if (type === S_IFLNK) await super.symlink(await fsp.readlink(join(this.lowerRoot, path)), path);
    else {
      await fsp.mkdir(dirname(this.real(path)), { recursive: true });
      await fsp.copyFile(join(this.lowerRoot, path), this.real(path));
      await fsp.chmod(this.real(path), lower.mode & 0o7777);
    }
  }

  private assertName(path: string): void {
    if (isWhiteoutName(path)) throw fsError('EPERM', `"${path}": names starting with ${WHITEOUT} mark removed files of the working tree's ignored directories and cannot be created there.`);
  }
}

function isWhiteoutName(path: string): boolean {
  return basename(path).startsWith(WHITEOUT);
}

function parentPath(path: string): string {
  const parent = dirname(path);
  return parent === '.' ? '' : parent;
}
