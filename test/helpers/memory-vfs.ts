/**
 * A small, strict in-memory WritableVfs for tool tests (after jj's strict test backend): it
 * behaves like a git tree, so a test that passes here does not rely on a forgiving fake.
 * Directories exist only as prefixes of entries (an emptied directory disappears, as in git);
 * writing below a file fails with PATH_NOT_DIRECTORY; non-canonical paths fail with PATH_INVALID.
 * Every mutating call is counted, so a test can assert that a rejected call wrote nothing.
 */
import { ForgeError } from '../../src/errors';
import { joinBytes, type Bytes } from '../../src/git/byte-runs';
import type { EntryMode, FileMode, PendingChange, VfsEntry, VfsStat, WritableVfs, WriteOptions } from '../../src/vfs/types';

type StoredMode = FileMode | '160000';

interface Stored {
  mode: StoredMode;
  oid: string;
  /** Content (a symlink's target); empty for a submodule. */
  bytes: Uint8Array;
}

/** How a test describes a tree: text, bytes, or a typed entry. */
export type MemoryEntrySpec =
  | string
  | Uint8Array
  | { content: string | Uint8Array; mode?: '100644' | '100755' }
  | { symlink: string }
  | { submodule: string };

const encoder = new TextEncoder();

async function blobOid(bytes: Uint8Array): Promise<string> {
  const header = encoder.encode(`blob ${bytes.length}\0`);
  const all = new Uint8Array(header.length + bytes.length);
  all.set(header);
  all.set(bytes, header.length);
  const digest = await globalThis.crypto.subtle.digest('SHA-1', all);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

function entryType(mode: StoredMode): 'file' | 'symlink' | 'submodule' {
  return mode === '120000' ? 'symlink' : mode === '160000' ? 'submodule' : 'file';
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function checkCanonical(path: string, allowRoot: boolean): void {
  if (path === '') {
    if (allowRoot) return;
    throw new ForgeError('PATH_INVALID', 'The root is not a file path.', { data: { path } });
  }
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\0'))) {
    throw new ForgeError('PATH_INVALID', `Not a canonical repo-relative path: ${JSON.stringify(path)}`, { data: { path } });
  }
}

export class MemoryVfs implements WritableVfs {
  private entries = new Map<string, Stored>();
  private base = new Map<string, Stored>();
  private readonly history: Stored[] = [];
  /** Number of writeFile / deleteFile / discard calls that reached this view. */
  mutationCount = 0;

  static async create(spec: Record<string, MemoryEntrySpec> = {}): Promise<MemoryVfs> {
    const vfs = new MemoryVfs();
    for (const [path, entry] of Object.entries(spec)) {
      checkCanonical(path, false);
      vfs.entries.set(path, await toStored(entry));
    }
    // A spec with a file below another file is a broken test, not a tree.
    for (const path of vfs.entries.keys()) {
      if (vfs.blockingAncestor(path) !== null) throw new Error(`MemoryVfs spec: a parent of ${path} is not a directory`);
    }
    vfs.base = new Map(vfs.entries);
    return vfs;
  }

  async readFile(path: string): Promise<Uint8Array> {
    checkCanonical(path, true);
    const kind = this.kindAt(path);
    if (kind === null) throw new ForgeError('PATH_NOT_FOUND', `No file at ${path}.`, { data: { path } });
    if (kind === 'directory' || kind === 'submodule') {
      throw new ForgeError('PATH_IS_DIRECTORY', `${path || '(root)'} is a ${kind}, not a file.`, { data: { path } });
    }
    return this.entries.get(path)!.bytes.slice();
  }

  /** Every blob this view has held, by oid: the object store behind a real view keeps them too. */
  async readBlob(oid: string): Promise<Uint8Array> {
    for (const stored of [...this.entries.values(), ...this.base.values(), ...this.history]) {
      if (stored.oid === oid) return stored.bytes.slice();
    }
    throw new ForgeError('OBJECT_NOT_FOUND', `Object ${oid} is not in the repository.`, { data: { oid } });
  }

  async exists(path: string): Promise<boolean> {
    checkCanonical(path, true);
    return this.kindAt(path) !== null;
  }

  async stat(path: string): Promise<VfsStat | null> {
    checkCanonical(path, true);
    const kind = this.kindAt(path);
    if (kind === null) return null;
    if (kind === 'directory') return { name: baseName(path), path, type: 'directory', mode: '040000', oid: '' };
    const stored = this.entries.get(path)!;
    const stat: VfsStat = { name: baseName(path), path, type: kind, mode: stored.mode, oid: stored.oid };
    if (kind !== 'submodule') stat.size = stored.bytes.length;
    return stat;
  }

  async list(dir: string): Promise<VfsEntry[]> {
    checkCanonical(dir, true);
    const kind = this.kindAt(dir);
    if (kind === null) throw new ForgeError('PATH_NOT_FOUND', `No directory at ${dir}.`, { data: { path: dir } });
    if (kind !== 'directory') throw new ForgeError('PATH_NOT_DIRECTORY', `${dir} is not a directory.`, { data: { path: dir } });
    const prefix = dir === '' ? '' : `${dir}/`;
    const children = new Map<string, VfsEntry>();
    for (const [path, stored] of this.entries) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      const slash = rest.indexOf('/');
      const name = slash === -1 ? rest : rest.slice(0, slash);
      const childPath = prefix + name;
      if (slash === -1) {
        children.set(name, { name, path: childPath, type: entryType(stored.mode), mode: stored.mode as EntryMode, oid: stored.oid });
      } else if (!children.has(name)) {
        children.set(name, { name, path: childPath, type: 'directory', mode: '040000', oid: '' });
      }
    }
    return [...children.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async walk(dir = ''): Promise<VfsEntry[]> {
    checkCanonical(dir, true);
    const kind = this.kindAt(dir);
    if (kind === null) {
      if (dir === '') return [];
      throw new ForgeError('PATH_NOT_FOUND', `No directory at ${dir}.`, { data: { path: dir } });
    }
    if (kind !== 'directory') throw new ForgeError('PATH_NOT_DIRECTORY', `${dir} is not a directory.`, { data: { path: dir } });
    const prefix = dir === '' ? '' : `${dir}/`;
    const out: VfsEntry[] = [];
    for (const [path, stored] of this.entries) {
      if (path.startsWith(prefix)) {
        out.push({ name: baseName(path), path, type: entryType(stored.mode), mode: stored.mode, oid: stored.oid });
      }
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async writeFile(path: string, content: Bytes, options: WriteOptions = {}): Promise<void> {
    this.mutationCount++;
    checkCanonical(path, false);
    const blocker = this.blockingAncestor(path);
    if (blocker !== null) {
      throw new ForgeError('PATH_NOT_DIRECTORY', `Cannot write ${path}: ${blocker} is not a directory.`, { data: { path, parent: blocker } });
    }
    const kind = this.kindAt(path);
    if (kind === 'directory' || kind === 'submodule') {
      throw new ForgeError('PATH_IS_DIRECTORY', `Cannot write ${path}: it is a ${kind}.`, { data: { path } });
    }
    const existing = this.entries.get(path);
    const mode: FileMode = options.mode ?? (existing ? (existing.mode as FileMode) : '100644');
    const bytes = joinBytes(content).slice();
    const stored = { mode, bytes, oid: await blobOid(bytes) };
    this.history.push(stored);
    this.entries.set(path, stored);
  }

  async deleteFile(path: string): Promise<void> {
    this.mutationCount++;
    checkCanonical(path, false);
    const kind = this.kindAt(path);
    if (kind === null) throw new ForgeError('PATH_NOT_FOUND', `No file at ${path}.`, { data: { path } });
    if (kind === 'directory') throw new ForgeError('PATH_IS_DIRECTORY', `${path} is a directory.`, { data: { path } });
    this.entries.delete(path);
  }

  async diff(): Promise<PendingChange[]> {
    const paths = new Set([...this.base.keys(), ...this.entries.keys()]);
    const out: PendingChange[] = [];
    for (const path of [...paths].sort()) {
      const before = this.base.get(path);
      const after = this.entries.get(path);
      if (before && after && before.oid === after.oid && before.mode === after.mode) continue;
      const change: PendingChange = { path, kind: !before ? 'added' : !after ? 'deleted' : 'modified' };
      if (before) Object.assign(change, { oldOid: before.oid, oldMode: before.mode });
      if (after) Object.assign(change, { newOid: after.oid, newMode: after.mode });
      out.push(change);
    }
    return out;
  }

  async discard(): Promise<void> {
    this.mutationCount++;
    this.entries = new Map(this.base);
  }

  /** Test helper: the text of a file, a BOM kept as U+FEFF (throws like readFile). */
  async text(path: string): Promise<string> {
    return new TextDecoder('utf-8', { ignoreBOM: true }).decode(await this.readFile(path));
  }

  /** Test helper: every entry as `mode oid`, for before/after comparisons. */
  snapshot(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [path, stored] of [...this.entries].sort(([a], [b]) => (a < b ? -1 : 1))) out[path] = `${stored.mode} ${stored.oid}`;
    return out;
  }

  private kindAt(path: string): 'file' | 'symlink' | 'submodule' | 'directory' | null {
    if (path === '') return 'directory';
    const stored = this.entries.get(path);
    if (stored) return entryType(stored.mode);
    const prefix = `${path}/`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) return 'directory';
    return null;
  }

  /** The nearest proper ancestor that is not a directory (a file, symlink or submodule), if any. */
  private blockingAncestor(path: string): string | null {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const ancestor = parts.slice(0, i).join('/');
      if (this.entries.has(ancestor)) return ancestor;
    }
    return null;
  }
}

async function toStored(entry: MemoryEntrySpec): Promise<Stored> {
  if (typeof entry === 'string' || entry instanceof Uint8Array) {
    const bytes = typeof entry === 'string' ? encoder.encode(entry) : entry.slice();
    return { mode: '100644', bytes, oid: await blobOid(bytes) };
  }
  if ('symlink' in entry) {
    const bytes = encoder.encode(entry.symlink);
    return { mode: '120000', bytes, oid: await blobOid(bytes) };
  }
  if ('submodule' in entry) return { mode: '160000', bytes: new Uint8Array(), oid: entry.submodule };
  const bytes = typeof entry.content === 'string' ? encoder.encode(entry.content) : entry.content.slice();
  return { mode: entry.mode ?? '100644', bytes, oid: await blobOid(bytes) };
}
