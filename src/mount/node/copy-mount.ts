/**
 * `forge mount --copy`: the mount's contract on a real directory, where there is no FUSE. The
 * view is materialized into the directory once; after that the directory and the session are
 * brought together at each sync (forge turn, forge undo, forge session discard, forge mount
 * --copy again): what changed in the directory since the last sync is found by comparing stat
 * data with a stat cache and hashing only what changed (as git's index does), and comes into the
 * pending layer as ONE edit through the mount's write path (Undo reverts it); then what the
 * session changed (forge's tools, a commit, a discard) is written back into the directory. Ignored
 * paths (node_modules/, dist/) stay in the directory, untouched and never committed.
 *
 * The change detection is run_command's and `forge agent --copy`'s (dir-changes.ts), with the
 * stat cache; the record (directory and stat cache) is `<commondir>/forge/copies/<session>.json`.
 */
import { chmod, lstat, mkdir, readdir, readFile, rename, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { applyChanges, detectChanges, statEntry, visibleView, type DirChanges, type DiskFile, type StatCache, type StatEntry } from '../../agent/node/dir-changes';
import { ForgeError } from '../../errors';
import type { Session } from '../../session';
import { DEFAULT_TOOLS_CONFIG, type ToolsConfig } from '../../tools';
import { gitignoreRules } from '../../tools/gitignore-rules';
import type { FileMode } from '../../vfs';
import { SessionEditor } from '../session-edits';

interface CopyRecord {
  dir: string;
  trustedBefore: number;
  files: Record<string, StatEntry>;
}

export interface CopySync {
  /** What changed in the directory since the last sync and is now pending in the session. */
  imported: DirChanges;
  /** Changed paths the sandbox refused (denied paths), with why. */
  skipped: Array<{ path: string; code: string; message: string }>;
  /** Files of the session written into the directory, and removed from it. */
  written: number;
  removed: number;
}

export function copyRecordPath(commonDir: string, sessionId: string): string {
  return join(commonDir, 'forge', 'copies', `${sessionId}.json`);
}

export class CopyMount {
  private constructor(
    private readonly session: Session,
    readonly dir: string,
    private cache: StatCache,
    private readonly config: ToolsConfig,
  ) {}

  /** The session's copy directory, if `forge mount --copy` made one. */
  static async find(session: Session, config: ToolsConfig = DEFAULT_TOOLS_CONFIG): Promise<CopyMount | null> {
    const record = await readRecord(session);
    return record ? new CopyMount(session, record.dir, { files: new Map(Object.entries(record.files)), trustedBefore: record.trustedBefore }, config) : null;
  }

  /**
   * Materializes the session into the empty directory `dir`, or, when `dir` is already its copy,
   * syncs it. A session has one copy directory.
   */
  static async mount(session: Session, dir: string, config: ToolsConfig = DEFAULT_TOOLS_CONFIG): Promise<{ copy: CopyMount; created: boolean; sync: CopySync }> {
    const target = resolve(dir);
    const existing = await CopyMount.find(session, config);
    if (existing && existing.dir === target) return { copy: existing, created: false, sync: await existing.sync() };
    if (existing) {
      throw new ForgeError('MOUNT_POINT_BUSY', `Session ${session.id} is already copied to ${existing.dir}.`, { hint: `Use that directory, or forget it first: forge mount --unmount ${existing.dir}` });
    }
    const st = await lstat(target).catch(() => null);
    if (st === null) throw new ForgeError('MOUNT_POINT_INVALID', `Cannot copy the session to ${target}: no such directory.`, { hint: `Create it first: mkdir -p ${target}` });
    if (!st.isDirectory()) throw new ForgeError('MOUNT_POINT_INVALID', `Cannot copy the session to ${target}: it is not a directory.`);
    if ((await readdir(target)).length > 0) throw new ForgeError('MOUNT_POINT_INVALID', `Cannot copy the session to ${target}: the directory is not empty.`, { hint: 'Copy it into an empty directory.' });
    const copy = new CopyMount(session, target, { files: new Map(), trustedBefore: 0 }, config);
    const written = await copy.writeBack();
    return { copy, created: true, sync: { imported: { added: [], modified: [], deleted: [] }, skipped: [], ...written } };
  }

  /** Forgets the session's copy (the directory stays as it is). */
  static async forget(session: Session): Promise<string | null> {
    const record = await readRecord(session);
    await rm(copyRecordPath(session.repo.commonDir, session.id), { force: true });
    return record?.dir ?? null;
  }

  /** Brings the directory's changes into the pending layer (one edit), then the session's into the directory. */
  async sync(): Promise<CopySync> {
    const { changes, disk } = await this.scan();
    const count = changes.added.length + changes.modified.length + changes.deleted.length;
    let skipped: CopySync['skipped'] = [];
    if (count > 0) {
      await this.session.prepareCall();
      const summary = `${count} change(s) in ${this.dir}`;
      await new SessionEditor(this.session).edit(summary, async (vfs) => {
        skipped = await applyChanges(vfs, this.config, changes, disk, 'copy');
      });
    }
    return { imported: changes, skipped, ...(await this.writeBack(disk)) };
  }

  /**
   * Makes the directory hold the session's view again (its non-ignored files): what differs is
   * rewritten, what the view lacks removed; then the stat cache is renewed.
   */
  async writeBack(known?: Map<string, DiskFile>): Promise<{ written: number; removed: number }> {
    const disk = known ?? (await this.scan()).disk;
    const view = visibleView(this.session.vfs, this.config);
    const entries = (await view.walk('')).filter((e) => e.type === 'file' || e.type === 'symlink');
    const wanted = new Map(entries.map((e) => [e.path, e]));
    let removed = 0;
    for (const path of disk.keys()) {
      if (wanted.has(path)) continue;
      await rm(join(this.dir, path), { force: true });
      removed++;
      await this.removeEmptyParents(path);
    }
    let written = 0;
    for (const entry of entries) {
      const have = disk.get(entry.path);
      if (have && have.oid === entry.oid && have.mode === entry.mode) continue;
      await this.place(entry.path, await view.readBlob(entry.oid), entry.mode as FileMode);
      written++;
    }
    // The stat cache: what each file of the view is now on disk.
    const trustedBefore = Date.now();
    const files = new Map<string, StatEntry>();
    for (const entry of entries) {
      const st = await lstat(join(this.dir, entry.path)).catch(() => null);
      if (st) files.set(entry.path, statEntry(st, entry.oid));
    }
    this.cache = { files, trustedBefore };
    await this.save();
    return { written, removed };
  }

  /** The directory against the stat cache: what changed since the last sync. */
  private async scan(): Promise<{ changes: DirChanges; disk: Map<string, DiskFile> }> {
    const view = visibleView(this.session.vfs, this.config);
    const entries = await view.walk('');
    const before = new Map([...this.cache.files].map(([path, e]) => [path, { oid: e.oid, mode: e.mode }]));
    const trackedDirs = new Set<string>();
    for (const path of [...before.keys(), ...entries.map((e) => e.path)]) for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) trackedDirs.add(path.slice(0, i));
    return detectChanges(this.dir, { before, trackedDirs, ignored: await gitignoreRules(view, entries) }, this.cache);
  }

  /** Writes one file of the view, replacing whatever is in its way (a file where a directory goes, or the reverse). */
  private async place(path: string, bytes: Uint8Array, mode: FileMode): Promise<void> {
    const abs = join(this.dir, path);
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = join(this.dir, ...parts.slice(0, i));
      const st = await lstat(dir).catch(() => null);
      if (st && !st.isDirectory()) await rm(dir, { force: true });
    }
    await mkdir(dirname(abs), { recursive: true });
    const st = await lstat(abs).catch(() => null);
    if (st?.isDirectory()) await rm(abs, { recursive: true, force: true });
    if (mode === '120000') {
      await rm(abs, { force: true });
      await symlink(new TextDecoder().decode(bytes), abs);
      return;
    }
    // Written aside and renamed: a program reading the file never sees it half-written.
    const temp = `${abs}.forge-${process.pid}.tmp`;
    await writeFile(temp, bytes);
    await chmod(temp, mode === '100755' ? 0o755 : 0o644);
    await rename(temp, abs);
  }

  private async removeEmptyParents(path: string): Promise<void> {
    const parts = path.split('/');
    for (let i = parts.length - 1; i > 0; i--) {
      try {
        await rmdir(join(this.dir, ...parts.slice(0, i)));
      } catch {
        return; // not empty (ignored files, other files) or gone
      }
    }
  }

  private async save(): Promise<void> {
    const path = copyRecordPath(this.session.repo.commonDir, this.session.id);
    await mkdir(dirname(path), { recursive: true });
    const record: CopyRecord = { dir: this.dir, trustedBefore: this.cache.trustedBefore, files: Object.fromEntries(this.cache.files) };
    await writeFile(`${path}.tmp`, JSON.stringify(record));
    await rename(`${path}.tmp`, path);
  }
}

async function readRecord(session: Session): Promise<CopyRecord | null> {
  try {
    return JSON.parse(await readFile(copyRecordPath(session.repo.commonDir, session.id), 'utf8')) as CopyRecord;
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw new ForgeError('MOUNT_POINT_INVALID', `The record of session ${session.id}'s copy directory cannot be read: ${(error as Error).message}`, {
      hint: `Forget it (forge mount --unmount <dir>) and copy the session again.`,
    });
  }
}
