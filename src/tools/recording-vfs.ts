/**
 * The view a handler writes through. It remembers what each path held before the call's first
 * write to it, so the registry can (1) report the call's changes in the shape an undo entry
 * needs and (2) put everything back when the call fails: a failed call never changes the view.
 */
import { ForgeError } from '../errors';
import type { Bytes } from '../git/byte-runs';
import type { UndoFile } from '../session/state';
import type { FileMode, PendingChange, VfsEntry, VfsStat, WritableVfs, WriteOptions } from '../vfs/types';

type Before =
  | { kind: 'absent' }
  /** By oid: the blob is in the object store (holding a 100 MB file's bytes for a rollback would double it). */
  | { kind: 'entry'; oid: string; mode: FileMode }
  /** A directory or submodule: the write fails, so there is nothing to restore. */
  | { kind: 'other' };

export type FileChange = UndoFile;

function isFileLike(stat: VfsStat | null): stat is VfsStat & { mode: FileMode } {
  return stat !== null && (stat.type === 'file' || stat.type === 'symlink');
}

export class RecordingVfs implements WritableVfs {
  /** What this call last wrote at each path (a delete forgets it). */
  private readonly written = new Map<string, Bytes>();
  private readonly before = new Map<string, Before>();

  constructor(private readonly inner: WritableVfs) {}

  readFile(path: string): Promise<Uint8Array> {
    return this.inner.readFile(path);
  }
  exists(path: string): Promise<boolean> {
    return this.inner.exists(path);
  }
  stat(path: string): Promise<VfsStat | null> {
    return this.inner.stat(path);
  }
  list(dir: string): Promise<VfsEntry[]> {
    return this.inner.list(dir);
  }
  walk(dir?: string): Promise<VfsEntry[]> {
    return this.inner.walk(dir);
  }
  readBlob(oid: string): Promise<Uint8Array> {
    return this.inner.readBlob(oid);
  }
  diff(): Promise<PendingChange[]> {
    return this.inner.diff();
  }

  async writeFile(path: string, content: Bytes, options?: WriteOptions): Promise<void> {
    await this.remember(path);
    await this.inner.writeFile(path, content, options);
    this.written.set(path, content);
  }

  async deleteFile(path: string): Promise<void> {
    await this.remember(path);
    await this.inner.deleteFile(path);
    this.written.delete(path);
  }

  /** Dropping the whole turn is the session's decision, never a tool's. */
  async discard(): Promise<void> {
    throw new ForgeError('INTERNAL', 'A tool tried to discard every pending change of the turn.');
  }

  /** Paths written or deleted during the call, in order. */
  get touched(): string[] {
    return [...this.before.keys()];
  }

  /** Restores every touched path to what it held before the call, last write first. */
  async rollback(): Promise<void> {
    for (const [path, before] of [...this.before].reverse()) {
      if (before.kind === 'entry') {
        await this.inner.writeFile(path, await this.inner.readBlob(before.oid), { mode: before.mode });
      } else if (before.kind === 'absent' && isFileLike(await this.inner.stat(path))) {
        await this.inner.deleteFile(path);
      }
    }
    this.before.clear();
  }

  /** What the call changed, as undo needs it; a path written back to its old content is left out. */
  async changes(hash: (bytes: Bytes) => Promise<string>): Promise<FileChange[]> {
    const out: FileChange[] = [];
    for (const [path, before] of this.before) {
      if (before.kind === 'other') continue;
      const after = await this.inner.stat(path);
      const existsAfter = isFileLike(after);
      if (before.kind === 'entry' && existsAfter && after.oid === before.oid && after.mode === before.mode) continue;
      if (before.kind === 'absent' && !existsAfter) continue;
      const change: FileChange = { path, existedBefore: before.kind === 'entry', existsAfter };
      if (before.kind === 'entry') Object.assign(change, { preOid: before.oid, preMode: before.mode });
      // The bytes this call wrote are at hand: reading them back would inflate a large file again.
      if (existsAfter) Object.assign(change, { postSha256: await hash(this.written.get(path) ?? (await this.inner.readFile(path))), postMode: after.mode });
      out.push(change);
    }
    return out;
  }

  private async remember(path: string): Promise<void> {
    if (this.before.has(path)) return;
    const stat = await this.inner.stat(path);
    if (stat === null) this.before.set(path, { kind: 'absent' });
    else if (isFileLike(stat)) this.before.set(path, { kind: 'entry', oid: stat.oid, mode: stat.mode });
    else this.before.set(path, { kind: 'other' });
  }
}
