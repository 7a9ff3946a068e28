/**
 * A session as a file system: the operations FUSE asks for, answered from the session's live
 * view (base commit + pending layer) and applied to it through the one write path tools use
 * (SessionEditor). Pure of any binding: `mount/node/` adapts these methods to fuse-native.
 *
 * What the view cannot hold lives here: empty directories (git tracks none), files created and
 * not yet closed, and files unlinked while open. Ignored paths go to the scratch layer.
 */
import { symlinkNameProblem } from '../git';
import type { Session } from '../session';
import { DEFAULT_TOOLS_CONFIG, gitignoreRules, isGitignorePath, type IgnoredPredicate, type ToolsConfig } from '../tools';
import { ancestorsOf, isUnder, nameOf, parentOf } from '../vfs/paths';
import type { FileMode, VfsStat } from '../vfs/types';
import { fsError } from './errno';
import { isDirAttr, S_IFDIR, S_IFLNK, S_IFREG, type FileAttr } from './file-attr';
import { assertCreatable, assertVisible, isHiddenPath } from './mount-paths';
import { OpenFile } from './open-file';
import type { ScratchLayer } from './scratch';
import { SerialQueue } from '../session/serial-queue';
import { SessionEditor } from './session-edits';

export interface MountFsOptions {
  /** Where ignored paths live; without it they are pending edits like any other path. */
  scratch?: ScratchLayer;
  /** The tools' configuration: its denied paths are invisible in the mount too. */
  config?: ToolsConfig;
  now?: () => Date;
  /** Shared with tool calls made in the same process (forge mcp --mount). */
  queue?: SerialQueue;
  /**
   * Show a top-most ignored directory as a symbolic link to its real directory in the scratch
   * layer, so what programs do inside it never crosses FUSE (default true with a scratch layer).
   */
  bypass?: boolean;
}

type Found =
  | { where: 'open'; file: OpenFile }
  | { where: 'view'; stat: VfsStat }
  /** A directory the view does not have: the root of an empty view, or one made empty. */
  | { where: 'dir' }
  | { where: 'scratch'; attr: FileAttr };

interface Handle {
  file?: OpenFile;
  scratchFd?: number;
}

/** How long an ignored directory made by mkdir is served here before it shows as a link (see freshDirs). */
const FRESH_DIR_MS = 500;

/** libfuse's name for a file unlinked while open (its handles keep working; we never list it). */
const FUSE_HIDDEN = /^\.fuse_hidden/;

export class MountFs {
  readonly queue: SerialQueue;
  private readonly editor: SessionEditor;
  private readonly config: ToolsConfig;
  private readonly scratch: ScratchLayer | undefined;
  private readonly now: () => Date;
  private readonly started: Date;
  private readonly emptyDirs = new Set<string>();
  private readonly bypass: boolean;
  /**
   * Ignored directories just made by mkdir, and until when they answer as directories before
   * the link the bypass shows: the kernel checks that mkdir's reply is a directory (EIO
   * otherwise), and `mkdir -p` opens what it made with O_NOFOLLOW|O_DIRECTORY at once.
   */
  private readonly freshDirs = new Map<string, number>();
  /** Open tracked files by path (a file unlinked while open under libfuse's hidden name). */
  private readonly openFiles = new Map<string, OpenFile>();
  private readonly handles = new Map<number, Handle>();
  private nextHandle = 1;
  /** Times set by utimens or a write, in memory only (git keeps no times). */
  private readonly mtimes = new Map<string, Date>();
  /** Rebuilt when the head moves, a tool call is made in this process, or the mount changes a .gitignore. */
  private ignoreCache: { key: string; ignored: IgnoredPredicate } | null = null;

  constructor(
    private readonly session: Session,
    options: MountFsOptions = {},
  ) {
    this.queue = options.queue ?? new SerialQueue();
    this.editor = new SessionEditor(session);
    this.config = options.config ?? DEFAULT_TOOLS_CONFIG;
    this.scratch = options.scratch;
    this.bypass = options.scratch !== undefined && options.bypass !== false;
    this.now = options.now ?? (() => new Date());
    this.started = this.now();
  }

  private get vfs() {
    return this.session.vfs;
  }

  /** Forget the cached .gitignore rules (a tool call in this process may have changed a .gitignore). */
  invalidateIgnoreRules(): void {
    this.ignoreCache = null;
  }

  /** Writes every open file's buffered changes (before an unmount: a process may still hold one open). */
  flushAll(): Promise<void> {
    return this.queue.run(async () => {
      for (const file of [...this.openFiles.values()]) await this.flushFile(file);
    });
  }

  // Reads.

  async getattr(path: string): Promise<FileAttr> {
    assertVisible(path, this.config);
    const found = await this.find(path);
    if (found === null) throw fsError('ENOENT', `No such file: "${path}".`);
    const direct = await this.directPathOf(path, found);
    if (direct !== null && !this.isFresh(path)) return { mode: S_IFLNK | 0o777, size: new TextEncoder().encode(direct).length, mtime: (found as { attr: FileAttr }).attr.mtime };
    return this.attrOf(path, found);
  }

  async fgetattr(handle: number, path: string): Promise<FileAttr> {
    const h = this.handles.get(handle);
    if (h?.file) return this.attrOf(path, { where: 'open', file: h.file });
    return this.getattr(path);
  }

  async readdir(path: string): Promise<string[]> {
    assertVisible(path, this.config);
    const found = await this.find(path);
    if (found === null) throw fsError('ENOENT', `No such directory: "${path}".`);
    if (!isDirAttr(this.attrOf(path, found))) throw fsError('ENOTDIR', `"${path}" is not a directory.`);
    const names = new Set<string>();
    if (found.where === 'view' || path === '') {
      if (found.where !== 'view' || found.stat.type === 'directory') for (const entry of await this.vfs.list(path)) names.add(entry.name);
    }
    for (const dir of this.emptyDirs) if (dir !== path && parentOf(dir) === path) names.add(nameOf(dir));
    for (const [filePath, file] of this.openFiles) if (!file.detached && parentOf(filePath) === path) names.add(nameOf(filePath));
    if (this.scratch) for (const name of await this.scratch.readdir(path)) names.add(name);
    return [...names].filter((name) => !isHiddenPath(join(path, name), this.config)).sort();
  }

  async readlink(path: string): Promise<string> {
    assertVisible(path, this.config);
    const found = await this.find(path);
    if (found === null) throw fsError('ENOENT', `No such file: "${path}".`);
    if (found.where === 'scratch') return (await this.directPathOf(path, found)) ?? this.scratch!.readlink(path);
    if (found.where !== 'view' || found.stat.type !== 'symlink') throw fsError('EINVAL', `"${path}" is not a symbolic link.`);
    return new TextDecoder().decode(await this.vfs.readFile(path));
  }

  // Open files.

  async open(path: string, flags: { truncate: boolean; scratchFlags: number }): Promise<number> {
    assertVisible(path, this.config);
    const found = await this.find(path);
    if (found === null) throw fsError('ENOENT', `No such file: "${path}".`);
    if (found.where === 'scratch') return this.addHandle({ scratchFd: await this.scratch!.open(path, flags.scratchFlags) });
    if (isDirAttr(this.attrOf(path, found))) throw fsError('EISDIR', `"${path}" is a directory.`);
    if (found.where === 'view' && found.stat.type === 'symlink') throw fsError('ELOOP', `"${path}" is a symbolic link.`);
    let file = this.openFiles.get(path);
    if (!file) {
      const mode = found.where === 'view' ? (found.stat.mode as FileMode) : '100644';
      file = new OpenFile(path, mode, true, this.mtimeOf(path));
      this.openFiles.set(path, file);
    }
    if (flags.truncate) file.truncate(0, this.now());
    file.handles++;
    return this.addHandle({ file });
  }

  async create(path: string, mode: number, flags: { exclusive: boolean; scratchFlags: number }): Promise<number> {
    assertCreatable(path, this.config);
    const found = await this.find(path);
    if (found !== null) {
      if (flags.exclusive) throw fsError('EEXIST', `"${path}" exists.`);
      return this.open(path, { truncate: false, scratchFlags: flags.scratchFlags });
    }
    await this.assertParentDir(path);
    if (await this.isIgnoredNew(path, false)) return this.addHandle({ scratchFd: await this.scratch!.create(path, mode, flags.scratchFlags) });
    const file = new OpenFile(path, modeFromPermissions(mode), false, this.now());
    file.load(new Uint8Array(0), false);
    file.dirty = true;
    file.handles++;
    this.openFiles.set(path, file);
    return this.addHandle({ file });
  }

  async read(handle: number, length: number, position: number): Promise<Uint8Array> {
    const h = this.handleOf(handle);
    if (h.scratchFd !== undefined) return this.scratch!.read(h.scratchFd, length, position);
    await this.ensureLoaded(h.file!);
    return h.file!.read(length, position);
  }

  async write(handle: number, data: Uint8Array, position: number): Promise<number> {
    const h = this.handleOf(handle);
    if (h.scratchFd !== undefined) return this.scratch!.write(h.scratchFd, data, position);
    await this.ensureLoaded(h.file!);
    h.file!.write(data, position, this.now());
    return data.length;
  }

  async ftruncate(handle: number, size: number): Promise<void> {
    const h = this.handleOf(handle);
    if (h.scratchFd !== undefined) return this.scratch!.ftruncate(h.scratchFd, size);
    await this.ensureLoaded(h.file!);
    h.file!.truncate(size, this.now());
  }

  /** close() of one descriptor: the file's changes become one journaled edit before it returns. */
  async flush(handle: number): Promise<void> {
    const h = this.handleOf(handle);
    if (h.file) await this.queue.run(() => this.flushFile(h.file!));
  }

  async fsync(handle: number): Promise<void> {
    const h = this.handleOf(handle);
    if (h.scratchFd !== undefined) return this.scratch!.fsync(h.scratchFd);
    await this.queue.run(() => this.flushFile(h.file!));
  }

  async release(handle: number): Promise<void> {
    const h = this.handleOf(handle);
    this.handles.delete(handle);
    if (h.scratchFd !== undefined) return this.scratch!.close(h.scratchFd);
    const file = h.file!;
    try {
      await this.queue.run(() => this.flushFile(file));
    } finally {
      file.handles--;
      if (file.handles === 0 && this.openFiles.get(file.path) === file && (file.detached || !file.dirty)) this.openFiles.delete(file.path);
    }
  }

  // Changes to the tree.

  truncate(path: string, size: number): Promise<void> {
    return this.queue.run(async () => {
      assertVisible(path, this.config);
      const found = await this.find(path);
      if (found === null) throw fsError('ENOENT', `No such file: "${path}".`);
      if (found.where === 'scratch') return this.scratch!.truncate(path, size);
      if (isDirAttr(this.attrOf(path, found))) throw fsError('EISDIR', `"${path}" is a directory.`);
      const open = this.openFiles.get(path);
      if (open) {
        await this.ensureLoaded(open);
        open.truncate(size, this.now());
        return this.flushFile(open);
      }
      const stat = (found as { stat: VfsStat }).stat;
      const before = await this.vfs.readFile(path);
      const after = new Uint8Array(size);
      after.set(before.subarray(0, Math.min(size, before.length)));
      await this.editor.edit(`truncate ${path}`, (vfs) => vfs.writeFile(path, after, { mode: stat.mode as FileMode }));
      this.touch(path);
    });
  }

  unlink(path: string): Promise<void> {
    return this.queue.run(async () => {
      assertVisible(path, this.config);
      const found = await this.find(path);
      if (found === null) throw fsError('ENOENT', `No such file: "${path}".`);
      if (found.where === 'scratch') {
        // The link the bypass shows is the directory itself: removing the link removes it (rm -rf dist).
        if ((await this.directPathOf(path, found)) !== null) {
          this.freshDirs.delete(path);
          return this.scratch!.remove(path);
        }
        return this.scratch!.unlink(path);
      }
      if (isDirAttr(this.attrOf(path, found))) throw fsError('EISDIR', `"${path}" is a directory.`);
      const open = this.openFiles.get(path);
      if (open?.detached) {
        this.openFiles.delete(path);
        return;
      }
      if (open) await this.detach(open);
      if (await this.vfs.exists(path)) await this.editor.edit(`delete ${path}`, (vfs) => vfs.deleteFile(path));
      this.keepParent(path);
      this.mtimes.delete(path);
    });
  }

  mkdir(path: string, mode: number): Promise<void> {
    return this.queue.run(async () => {
      assertCreatable(path, this.config);
      if ((await this.find(path)) !== null) throw fsError('EEXIST', `"${path}" exists.`);
      await this.assertParentDir(path);
      if (await this.isIgnoredNew(path, true)) {
        await this.scratch!.mkdir(path, mode);
        const found = await this.find(path);
        if (found !== null && (await this.directPathOf(path, found)) !== null) this.freshDirs.set(path, this.now().getTime() + FRESH_DIR_MS);
        return;
      }
      this.emptyDirs.add(path);
    });
  }

  rmdir(path: string): Promise<void> {
    return this.queue.run(async () => {
      assertVisible(path, this.config);
      const found = await this.find(path);
      if (found === null) throw fsError('ENOENT', `No such directory: "${path}".`);
      if (!isDirAttr(this.attrOf(path, found))) throw fsError('ENOTDIR', `"${path}" is not a directory.`);
      if (path === '') throw fsError('EBUSY', 'The root of the mount cannot be removed.');
      if ((await this.readdir(path)).length > 0) throw fsError('ENOTEMPTY', `"${path}" is not empty.`);
      this.emptyDirs.delete(path);
      if (this.scratch && (await this.scratch.lstat(path)) !== null) await this.scratch.rmdir(path);
      this.keepParent(path);
    });
  }

  symlink(target: string, path: string): Promise<void> {
    return this.queue.run(async () => {
      assertCreatable(path, this.config);
      if ((await this.find(path)) !== null) throw fsError('EEXIST', `"${path}" exists.`);
      await this.assertParentDir(path);
      const problem = symlinkNameProblem(nameOf(path));
      if (problem !== null) throw fsError('EPERM', `${problem} (git's fsck refuses it).`);
      if (await this.isIgnoredNew(path, false)) return this.scratch!.symlink(target, path);
      await this.editor.edit(`symlink ${path}`, (vfs) => vfs.writeFile(path, new TextEncoder().encode(target), { mode: '120000' }));
      this.touch(path);
    });
  }

  chmod(path: string, mode: number): Promise<void> {
    return this.queue.run(async () => {
      assertVisible(path, this.config);
      const found = await this.find(path);
      if (found === null) throw fsError('ENOENT', `No such file: "${path}".`);
      if (found.where === 'scratch') return this.scratch!.chmod(path, mode);
      const next = modeFromPermissions(mode);
      const open = this.openFiles.get(path);
      if (open && !open.detached) {
        open.mode = next;
        // Only the mode changed on a clean file: the view's bytes are the file's bytes.
        if (!open.dirty && open.inView) open.dirty = (await this.vfs.stat(path))?.mode !== next;
        return this.flushFile(open);
      }
      if (found.where !== 'view' || found.stat.type !== 'file' || found.stat.mode === next) return; // directories and links keep their modes
      const bytes = await this.vfs.readFile(path);
      await this.editor.edit(`chmod ${path}`, (vfs) => vfs.writeFile(path, bytes, { mode: next }));
    });
  }

  async utimens(path: string, mtime: Date, atime: Date): Promise<void> {
    assertVisible(path, this.config);
    const found = await this.find(path);
    if (found === null) throw fsError('ENOENT', `No such file: "${path}".`);
    if (found.where === 'scratch') return this.scratch!.utimens(path, atime, mtime);
    if (found.where === 'open') found.file.mtime = mtime;
    this.mtimes.set(path, mtime);
  }

  rename(from: string, to: string): Promise<void> {
    return this.queue.run(() => this.renameNow(from, to));
  }

  /** Hard links, device files, FIFOs and sockets: a git tree cannot hold them. */
  refuseSpecial(what: string, path: string): never {
    throw fsError('EPERM', `${what} cannot be created in a mounted session ("${path}"): git stores only files, symlinks and directories.`);
  }

  // Internals.

  private async renameNow(from: string, to: string): Promise<void> {
    assertVisible(from, this.config);
    assertCreatable(to, this.config);
    const src = await this.find(from);
    if (src === null) throw fsError('ENOENT', `No such file: "${from}".`);
    if (from === to) return;
    if (from === '' || isUnder(to, from)) throw fsError('EINVAL', `Cannot move "${from}" into itself.`);
    const open = this.openFiles.get(from);
    if (open && FUSE_HIDDEN.test(nameOf(to))) {
      // libfuse keeps a file unlinked while open under a hidden name: it leaves the view now.
      await this.detach(open);
      this.openFiles.set(to, open);
      open.path = to;
      if (await this.vfs.exists(from)) await this.editor.edit(`delete ${from}`, (vfs) => vfs.deleteFile(from));
      this.keepParent(from);
      return;
    }
    const srcIsDir = isDirAttr(this.attrOf(from, src));
    let dst = await this.find(to);
    if (dst !== null && srcIsDir && (await this.directPathOf(to, dst)) !== null && (await this.directPathOf(from, src)) !== null) {
      // Programs see two links: a rename replaces the target, the directory it shows included.
      await this.scratch!.remove(to);
      dst = null;
    }
    if (dst !== null) {
      const dstIsDir = isDirAttr(this.attrOf(to, dst));
      if (srcIsDir && !dstIsDir) throw fsError('ENOTDIR', `"${to}" is not a directory.`);
      if (!srcIsDir && dstIsDir) throw fsError('EISDIR', `"${to}" is a directory.`);
      if (dstIsDir && (await this.readdir(to)).length > 0) throw fsError('ENOTEMPTY', `"${to}" is not empty.`);
    } else {
      await this.assertParentDir(to);
    }
    // Bytes still in an open file's buffer move with it: write them first.
    for (const file of this.openFilesUnder(from)) await this.flushFile(file);
    // A file open at the target is replaced: its handles keep the old file, which leaves the tree.
    const replaced = this.openFiles.get(to);
    if (replaced && !replaced.detached && !srcIsDir) await this.detach(replaced);
    if (src.where === 'scratch' && (await this.isIgnoredNew(to, srcIsDir))) {
      await this.removeTarget(to, dst);
      await this.scratch!.rename(from, to);
    } else {
      await this.moveAcrossLayers(from, to, dst, srcIsDir);
    }
    for (const file of this.openFilesUnder(from)) {
      this.openFiles.delete(file.path);
      file.path = to + file.path.slice(from.length);
      this.openFiles.set(file.path, file);
    }
    for (const dir of [...this.emptyDirs]) {
      if (isUnder(dir, from)) {
        this.emptyDirs.delete(dir);
        this.emptyDirs.add(to + dir.slice(from.length));
      }
    }
    for (const [path, time] of [...this.mtimes]) {
      if (isUnder(path, from)) {
        this.mtimes.delete(path);
        this.mtimes.set(to + path.slice(from.length), time);
      }
    }
    if (srcIsDir) this.emptyDirs.add(to);
    this.keepParent(from);
    if (srcIsDir || isGitignorePath(from) || isGitignorePath(to)) this.ignoreCache = null;
  }

  /**
   * A move that is not a plain rename inside the scratch directory: every file below `from`
   * is written at its new path in the layer that path belongs to, tracked ones as ONE edit.
   */
  private async moveAcrossLayers(from: string, to: string, dst: Found | null, srcIsDir: boolean): Promise<void> {
    const items = await this.collect(from, srcIsDir);
    const toScratch: Array<{ target: string; source: string; scratch: boolean; mode: number | null }> = [];
    const viewWrites: Array<{ target: string; bytes: () => Promise<Uint8Array>; mode: FileMode }> = [];
    const viewDeletes: string[] = [];
    const scratchRemovals: string[] = [];
    const dirs: string[] = [];
    for (const item of items) {
      const target = to + item.path.slice(from.length);
      const ignored = await this.isIgnoredNew(target, item.kind === 'dir');
      if (item.kind === 'dir') {
        if (ignored) toScratch.push({ target, source: item.path, scratch: false, mode: null });
        else dirs.push(target);
        continue;
      }
      const readSource = item.layer === 'scratch' ? () => this.scratch!.readFile(item.path) : () => this.vfs.readFile(item.path);
      if (item.layer === 'scratch') scratchRemovals.push(item.path);
      else viewDeletes.push(item.path);
      if (ignored) {
        toScratch.push({ target, source: item.path, scratch: item.layer === 'scratch', mode: item.mode === '120000' ? -1 : item.mode === '100755' ? 0o755 : 0o644 });
      } else {
        viewWrites.push({ target, bytes: readSource, mode: item.mode });
      }
    }
    // Into the scratch directory first (read from the view before the edit deletes the sources).
    for (const move of toScratch) {
      if (move.mode === null) await this.scratch!.mkdir(move.target, 0o755);
      else if (move.mode === -1) await this.scratch!.symlink(new TextDecoder().decode(await this.vfs.readFile(move.source)), move.target);
      else await this.scratch!.writeFile(move.target, move.scratch ? await this.scratch!.readFile(move.source) : await this.vfs.readFile(move.source), move.mode);
    }
    const written = new Set(viewWrites.map((w) => w.target));
    const dstInView = dst !== null && dst.where === 'view' && !srcIsDir && !written.has(to);
    if (dst !== null && dst.where === 'scratch') await this.scratch!.remove(to);
    const contents = await Promise.all(viewWrites.map(async (w) => ({ ...w, content: await w.bytes() })));
    if (contents.length > 0 || viewDeletes.length > 0 || dstInView) {
      await this.editor.edit(`move ${from} to ${to}`, async (vfs) => {
        if (dstInView) await vfs.deleteFile(to);
        for (const path of viewDeletes) await vfs.deleteFile(path);
        for (const w of contents) await vfs.writeFile(w.target, w.content, { mode: w.mode });
      });
    }
    for (const path of scratchRemovals) await this.scratch!.unlink(path);
    if (srcIsDir && this.scratch && (await this.scratch.lstat(from)) !== null) await this.scratch.remove(from);
    if (dst !== null && dst.where !== 'scratch' && srcIsDir) this.emptyDirs.delete(to);
    for (const dir of dirs) this.emptyDirs.add(dir);
  }

  /** Every file, symlink and directory at or below `path` (directories before what they hold). */
  private async collect(path: string, isDir: boolean): Promise<Array<{ path: string; kind: 'file' | 'dir'; layer: 'view' | 'scratch'; mode: FileMode }>> {
    if (!isDir) {
      const found = await this.find(path);
      if (found?.where === 'scratch') {
        const kind = (found.attr.mode & 0o170000) === S_IFLNK ? '120000' : found.attr.mode & 0o100 ? '100755' : '100644';
        return [{ path, kind: 'file', layer: 'scratch', mode: kind }];
      }
      const stat = found?.where === 'view' ? found.stat : await this.vfs.stat(path);
      return stat ? [{ path, kind: 'file', layer: 'view', mode: stat.mode as FileMode }] : [];
    }
    const out: Array<{ path: string; kind: 'file' | 'dir'; layer: 'view' | 'scratch'; mode: FileMode }> = [{ path, kind: 'dir', layer: 'view', mode: '100644' }];
    for (const name of await this.readdir(path)) {
      const child = join(path, name);
      const found = await this.find(child);
      if (found === null) continue;
      out.push(...(await this.collect(child, isDirAttr(this.attrOf(child, found)))));
    }
    return out;
  }

  private async removeTarget(path: string, found: Found | null): Promise<void> {
    if (found === null) return;
    if (found.where === 'view' && found.stat.type !== 'directory') await this.editor.edit(`delete ${path}`, (vfs) => vfs.deleteFile(path));
    else if (found.where === 'scratch') await this.scratch!.remove(path);
    this.emptyDirs.delete(path);
  }

  private openFilesUnder(path: string): OpenFile[] {
    return [...this.openFiles.values()].filter((file) => !file.detached && isUnder(file.path, path));
  }

  /** Writes an open file's changes as one edit (close, fsync, release, truncate, chmod). */
  private async flushFile(file: OpenFile): Promise<void> {
    if (!file.dirty || file.detached) return;
    await this.ensureLoaded(file); // a chmod marks a file never read dirty: its bytes are the view's
    const bytes = file.content().slice(); // the view keeps these bytes; later writes must not change them
    const { path, mode } = file;
    file.dirty = false;
    try {
      await this.editor.edit(`write ${path}`, (vfs) => vfs.writeFile(path, bytes, { mode }));
    } catch (error) {
      file.dirty = true;
      throw error;
    }
    file.inView = true;
    this.mtimes.set(path, file.mtime);
    if (isGitignorePath(path)) this.ignoreCache = null;
  }

  /** The file leaves the tree; its open handles keep its bytes. */
  private async detach(file: OpenFile): Promise<void> {
    await this.ensureLoaded(file);
    file.detached = true;
    file.dirty = false;
    this.openFiles.delete(file.path);
    if (isGitignorePath(file.path)) this.ignoreCache = null;
  }

  private async ensureLoaded(file: OpenFile): Promise<void> {
    if (file.loaded) return;
    if (!file.inView) return file.load(new Uint8Array(0), false);
    file.load(await this.vfs.readFile(file.path), true);
  }

  private async find(path: string): Promise<Found | null> {
    if (path === '') return { where: 'dir' };
    const open = this.openFiles.get(path);
    if (open && (open.detached || open.dirty || !open.inView)) return { where: 'open', file: open };
    const stat = await this.vfs.stat(path);
    if (stat !== null) return { where: 'view', stat };
    if (this.emptyDirs.has(path)) {
      if (await this.parentIsDir(path)) return { where: 'dir' };
      this.emptyDirs.delete(path); // its parent went away (a tool deleted the files around it)
    }
    if (this.scratch) {
      const attr = await this.scratch.lstat(path);
      if (attr !== null) return { where: 'scratch', attr };
    }
    return null;
  }

  /**
   * The real directory a top-most ignored directory is shown as a link to (null: served here).
   * Only where the parent is the view's: below a directory the scratch layer serves, the
   * directory is a plain one (npm would take a link in node_modules/ for `npm link`).
   */
  private async directPathOf(path: string, found: Found): Promise<string | null> {
    if (!this.bypass || found.where !== 'scratch' || !isDirAttr(found.attr)) return null;
    const parent = parentOf(path);
    if (parent !== '') {
      const above = await this.find(parent);
      if (above === null || above.where === 'scratch') return null;
    }
    return this.scratch!.directPath(path);
  }

  private isFresh(path: string): boolean {
    const until = this.freshDirs.get(path);
    if (until === undefined) return false;
    if (this.now().getTime() < until) return true;
    this.freshDirs.delete(path);
    return false;
  }

  private async parentIsDir(path: string): Promise<boolean> {
    const parent = parentOf(path);
    if (parent === '') return true;
    const found = await this.find(parent);
    return found !== null && isDirAttr(this.attrOf(parent, found));
  }

  private async assertParentDir(path: string): Promise<void> {
    const parent = parentOf(path);
    if (parent === '') return;
    const found = await this.find(parent);
    if (found === null) throw fsError('ENOENT', `No such directory: "${parent}".`);
    if (!isDirAttr(this.attrOf(parent, found))) throw fsError('ENOTDIR', `"${parent}" is not a directory.`);
  }

  private attrOf(path: string, found: Found): FileAttr {
    switch (found.where) {
      case 'open':
        return { mode: S_IFREG | permissionsOf(found.file.mode), size: found.file.size, mtime: found.file.mtime };
      case 'dir':
        return { mode: S_IFDIR | 0o755, size: 4096, mtime: this.mtimeOf(path) };
      case 'scratch':
        return found.attr;
      case 'view': {
        const { stat } = found;
        if (stat.type === 'directory' || stat.type === 'submodule') return { mode: S_IFDIR | 0o755, size: 4096, mtime: this.mtimeOf(path) };
        if (stat.type === 'symlink') return { mode: S_IFLNK | 0o777, size: stat.size ?? 0, mtime: this.mtimeOf(path) };
        return { mode: S_IFREG | permissionsOf(stat.mode as FileMode), size: stat.size ?? 0, mtime: this.mtimeOf(path) };
      }
    }
  }

  private mtimeOf(path: string): Date {
    return this.mtimes.get(path) ?? this.started;
  }

  private touch(path: string): void {
    this.mtimes.set(path, this.now());
    if (isGitignorePath(path)) this.ignoreCache = null;
  }

  /** POSIX keeps a directory when its last entry goes; the view does not, so the mount remembers it. */
  private keepParent(path: string): void {
    const parent = parentOf(path);
    if (parent !== '') this.emptyDirs.add(parent);
  }

  /**
   * Whether an existing path lies in an ignored directory of the view (or is one): what of the
   * working tree's ignored directories the scratch layer may show beneath it.
   */
  async inIgnoredDir(path: string, isDir: boolean): Promise<boolean> {
    const ignored = await this.ignoreRules();
    return ancestorsOf(path).some((dir) => ignored(dir, true)) || (isDir && ignored(path, true));
  }

  /** Whether a path being created belongs in the scratch layer (it or a directory above it is ignored). */
  private async isIgnoredNew(path: string, isDir: boolean): Promise<boolean> {
    if (!this.scratch) return false;
    const ignored = await this.ignoreRules();
    if (ancestorsOf(path).some((dir) => ignored(dir, true))) return true;
    return ignored(path, isDir);
  }

  private async ignoreRules(): Promise<IgnoredPredicate> {
    const key = `${this.session.head}:${this.session.state.toolCalls.length}`;
    if (this.ignoreCache?.key === key) return this.ignoreCache.ignored;
    const entries = (await this.vfs.walk('')).filter((entry) => isGitignorePath(entry.path));
    const ignored = await gitignoreRules(this.vfs, entries);
    this.ignoreCache = { key, ignored };
    return ignored;
  }

  private addHandle(handle: Handle): number {
    const id = this.nextHandle++;
    this.handles.set(id, handle);
    return id;
  }

  private handleOf(handle: number): Handle {
    const h = this.handles.get(handle);
    if (!h) throw fsError('EBADF', `No open file with handle ${handle}.`);
    return h;
  }
}

function join(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/** git keeps one bit of a file's permissions: executable by its owner or not. */
function modeFromPermissions(mode: number): FileMode {
  return mode & 0o100 ? '100755' : '100644';
}

function permissionsOf(mode: FileMode): number {
  return mode === '100755' ? 0o755 : mode === '120000' ? 0o777 : 0o644;
}
