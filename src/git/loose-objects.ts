/**
 * One `objects/` directory's loose objects, read and written with synchronous calls.
 * Which fan-out directories and files exist is listed once and kept (git's loose object cache),
 * so a lookup that misses costs a set lookup instead of a failed open; `invalidate()` drops the
 * listing when another process may have written since (the store retries a miss once).
 * Writes are crash-safe: deflate into `xx/tmp_obj_*` (the name git's gc cleans up), then rename.
 */
import { ForgeError, toForgeError } from '../errors';
import { errnoCode, joinPath, type FsSync } from './fs';
import { unframeObject } from './object-codec';
import type { RawObject } from './pack-reader';
import type { SyncPlatform } from './platform';

let tmpCounter = 0;

export function tempObjectName(): string {
  return `tmp_obj_${Date.now().toString(36)}${(tmpCounter++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

export class LooseObjects {
  private subdirs: Set<string> | null = null;
  private createReadOnly = true;
  private readonly names = new Map<string, Set<string>>();

  constructor(
    private readonly fs: FsSync,
    readonly path: string,
    private readonly zlib: SyncPlatform,
  ) {}

  /**
   * One set lookup when the fan-out directory does not exist (every object of a packed
   * repository), else one `existsSync`: cheaper than listing the directory for a single check.
   */
  has(oid: string): boolean {
    const fan = oid.slice(0, 2);
    if (!this.listSubdirs().has(fan)) return false;
    const listed = this.names.get(fan);
    if (listed !== undefined && listed.has(oid.slice(2))) return true;
    return this.fs.existsSync(joinPath(this.path, fan, oid.slice(2)));
  }

  /** Packs are searched first, so a read here nearly always finds its file: no existence check first. */
  read(oid: string): RawObject | null {
    const fan = oid.slice(0, 2);
    if (!this.listSubdirs().has(fan)) return null;
    const listed = this.names.get(fan);
    if (listed !== undefined && !listed.has(oid.slice(2))) return null;
    let compressed: Uint8Array;
    try {
      compressed = this.fs.readFileSync(joinPath(this.path, fan, oid.slice(2)));
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null; // not there, or pruned since listed
      throw toForgeError(error);
    }
    let inflated: Uint8Array;
    try {
      inflated = this.zlib.inflate(compressed);
    } catch (error) {
      throw new ForgeError('OBJECT_CORRUPT', `Loose object ${oid} cannot be inflated: ${(error as Error).message}`, { data: { oid } });
    }
    return unframeObject(inflated, oid);
  }

  /** Writes the (already deflated) object under its final name through a temporary file. */
  write(oid: string, compressed: Uint8Array): void {
    const fan = oid.slice(0, 2);
    const dir = joinPath(this.path, fan);
    const tmp = joinPath(dir, tempObjectName());
    try {
      if (!this.listSubdirs().has(fan)) {
        this.fs.mkdirSync(dir, { recursive: true });
        this.listSubdirs().add(fan);
      }
      this.writeReadOnly(tmp, compressed);
      this.fs.renameSync(tmp, joinPath(dir, oid.slice(2)));
    } catch (error) {
      try {
        this.fs.unlinkSync(tmp);
      } catch {
        // The temporary file was never created.
      }
      throw new ForgeError('INTERNAL', `Could not write object ${oid}: ${(error as Error).message}`, { cause: error, data: { oid } });
    }
    this.names.get(fan)?.add(oid.slice(2));
  }

  /**
   * Read-only as git leaves loose objects: created 0444 in one call, or written then chmod-ed
   * where the fs refuses to write into a file it creates read-only (memfs).
   */
  private writeReadOnly(path: string, data: Uint8Array): void {
    if (this.createReadOnly) {
      try {
        this.fs.writeFileSync(path, data, { mode: 0o444 });
        return;
      } catch (error) {
        if (errnoCode(error) !== 'EACCES') throw error;
        this.createReadOnly = false;
        // memfs created the file before refusing to write into it.
        this.fs.unlinkSync(path);
      }
    }
    this.fs.writeFileSync(path, data);
    this.fs.chmodSync(path, 0o444);
  }

  /** Full oids of loose objects starting with an abbreviation. */
  findByPrefix(prefix: string): string[] {
    const fan = prefix.slice(0, 2);
    return [...this.namesIn(fan)].map((name) => fan + name).filter((oid) => /^[0-9a-f]{40}$/.test(oid) && oid.startsWith(prefix));
  }

  invalidate(): void {
    this.subdirs = null;
    this.names.clear();
  }

  private listSubdirs(): Set<string> {
    this.subdirs ??= new Set(this.readdir(this.path).filter((name) => /^[0-9a-f]{2}$/.test(name)));
    return this.subdirs;
  }

  private namesIn(fan: string): Set<string> {
    let names = this.names.get(fan);
    if (names === undefined) {
      names = this.listSubdirs().has(fan) ? new Set(this.readdir(joinPath(this.path, fan))) : new Set();
      this.names.set(fan, names);
    }
    return names;
  }

  private readdir(path: string): string[] {
    try {
      return this.fs.readdirSync(path);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return [];
      throw toForgeError(error);
    }
  }
}
