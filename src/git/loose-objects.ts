/**
 * One `objects/` directory's loose objects, read and written with synchronous calls.
 * Which fan-out directories and files exist is listed once and kept (git's loose object cache),
 * so a lookup that misses costs a set lookup instead of a failed open; `invalidate()` drops the
 * listing when another process may have written since (the store retries a miss once).
 * Writes are crash-safe: deflate into `objects/tmp_obj_forge_*` (a name git's prune also cleans
 * up), then rename into `xx/`. The temporary file sits beside the fan-out directories, so one
 * listing of `objects/` finds a killed writer's leftovers, and a fan-out directory removed by
 * `git gc` since it was listed costs a retry, not a failed write.
 */
import { ForgeError, isForgeError, toForgeError } from '../errors';
import { errnoCode, joinPath, type FsSync } from './fs';
import { unframeObject } from './object-codec';
import type { RawObject } from './pack-reader';
import type { SyncPlatform } from './platform';

let tmpCounter = 0;

/** Our temporary objects: git's prefix (its prune removes old ones too), then ours. */
export const TEMP_OBJECT_PREFIX = 'tmp_obj_forge_';
/** git's own grace period for unreachable and temporary objects (gc.pruneExpire's default). */
export const TEMP_OBJECT_GRACE_MS = 14 * 24 * 3600 * 1000;

export function tempObjectName(): string {
  return `${TEMP_OBJECT_PREFIX}${Date.now().toString(36)}${(tmpCounter++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/** An object write that failed: the file system's condition keeps its own code (DISK_FULL, READ_ONLY_FS, ...). */
export function objectWriteError(oid: string, error: unknown): ForgeError {
  const mapped = toForgeError(error);
  if (isForgeError(error) || mapped.code !== 'INTERNAL') return new ForgeError(mapped.code, `Could not write object ${oid}: ${mapped.message}`, { cause: error, data: { ...mapped.data, oid }, ...(mapped.hint ? { hint: mapped.hint } : {}) });
  return new ForgeError('INTERNAL', `Could not write object ${oid}: ${mapped.message}`, { cause: error, data: { oid } });
}

/**
 * An object's compressed bytes: whole, as runs in order, or made a run at a time into the file
 * (a large object's stream, never held whole; called again from the start when a write is retried).
 */
export type CompressedObject = Uint8Array | readonly Uint8Array[] | ((write: (run: Uint8Array) => void) => void);

/** How many times a write is retried when git's gc removed a directory or file under it. */
const WRITE_ATTEMPTS = 3;

/** Compressed bytes read for a header: zlib's 2-byte header and a few deflate blocks hold it. */
const HEADER_READ = 512;

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

  /**
   * An object's size from its header: the first bytes of the file inflated, not the object
   * (a 50 MB blob's size costs a 1 KiB read). Null where there is no such object.
   */
  sizeOf(oid: string): number | null {
    const fan = oid.slice(0, 2);
    if (!this.listSubdirs().has(fan)) return null;
    let fd: number;
    try {
      fd = this.fs.openSync(joinPath(this.path, fan, oid.slice(2)), 'r');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw toForgeError(error);
    }
    try {
      const head = new Uint8Array(HEADER_READ);
      const got = this.fs.readSync(fd, head, 0, head.length, 0);
      let inflated: Uint8Array;
      try {
        inflated = this.zlib.inflatePrefix(head.subarray(0, got));
      } catch (error) {
        throw new ForgeError('OBJECT_CORRUPT', `Loose object ${oid} cannot be inflated: ${(error as Error).message}`, { data: { oid } });
      }
      const nul = inflated.indexOf(0);
      if (nul < 0 && got === HEADER_READ) return this.read(oid)?.content.length ?? null; // a header past the first bytes: read it whole
      const match = nul < 0 ? null : /^(?:blob|tree|commit|tag) (\d+)$/.exec(String.fromCharCode(...inflated.subarray(0, nul)));
      if (match === null) throw new ForgeError('OBJECT_CORRUPT', `Loose object ${oid} has no valid header.`, { data: { oid } });
      return Number(match[1]);
    } finally {
      this.fs.closeSync(fd);
    }
  }

  /**
   * Writes the (already deflated) object under its final name through a temporary file. A
   * fan-out directory (or our temporary file) removed by a concurrent `git gc`/`prune` since
   * it was listed is an ENOENT: forget the listing, create the directory, and try again.
   */
  write(oid: string, compressed: CompressedObject): void {
    const fan = oid.slice(0, 2);
    const dir = joinPath(this.path, fan);
    for (let attempt = 1; ; attempt++) {
      const tmp = joinPath(this.path, tempObjectName());
      try {
        this.writeReadOnly(tmp, compressed);
        if (!this.listSubdirs().has(fan)) this.makeFanout(fan, dir);
        this.fs.renameSync(tmp, joinPath(dir, oid.slice(2)));
        break;
      } catch (error) {
        try {
          this.fs.unlinkSync(tmp);
        } catch {
          // The temporary file was never created, or is gone already.
        }
        if (errnoCode(error) !== 'ENOENT' || attempt >= WRITE_ATTEMPTS) throw objectWriteError(oid, error);
        this.invalidate();
      }
    }
    this.names.get(fan)?.add(oid.slice(2));
  }

  /** Whether the object's file is there now (the file asked, not a listing; nothing touched). */
  present(oid: string): boolean {
    return this.fs.existsSync(joinPath(this.path, oid.slice(0, 2), oid.slice(2)));
  }

  /**
   * git's freshen: whether the object is here, touching it so that a `git gc` with the default
   * grace period does not prune it while we rely on it. A listing may be stale (gc pruned or
   * packed the file since): the file itself answers. `trustAbsent` (a writer that writes the
   * object when this says false): the fan-out listing may answer "absent" without a syscall.
   */
  freshen(oid: string, trustAbsent = false): boolean {
    const fan = oid.slice(0, 2);
    if (!this.listSubdirs().has(fan)) return false;
    // About to write it when absent: a listing that lacks it saves the failed utimes of a new
    // object (one per blob of a long turn). A stale listing only means writing it once more.
    if (trustAbsent && !this.namesIn(fan).has(oid.slice(2))) return false;
    const path = joinPath(this.path, fan, oid.slice(2));
    if (this.fs.utimesSync) {
      const now = Date.now() / 1000;
      try {
        this.fs.utimesSync(path, now, now);
        return true;
      } catch (error) {
        const code = errnoCode(error);
        if (code === 'ENOENT' || code === 'ENOTDIR') {
          this.names.get(fan)?.delete(oid.slice(2));
          return false;
        }
        // Not ours to touch (another user's file, a read-only alternate): present is enough.
      }
    }
    return this.fs.existsSync(path);
  }

  private makeFanout(fan: string, dir: string): void {
    this.fs.mkdirSync(dir, { recursive: true });
    this.listSubdirs().add(fan);
  }

  /**
   * Read-only as git leaves loose objects: created 0444 in one call, or written then chmod-ed
   * where the fs refuses to write into a file it creates read-only (memfs).
   */
  private writeReadOnly(path: string, data: CompressedObject): void {
    if (this.createReadOnly) {
      try {
        this.writeRuns(path, data, 0o444);
        return;
      } catch (error) {
        if (errnoCode(error) !== 'EACCES') throw error;
        this.createReadOnly = false;
        // memfs created the file before refusing to write into it.
        this.fs.unlinkSync(path);
      }
    }
    this.writeRuns(path, data);
    this.fs.chmodSync(path, 0o444);
  }

  /** One buffer in one call; several runs (a large object's stream) appended in order. */
  private writeRuns(path: string, data: CompressedObject, mode?: number): void {
    if (typeof data === 'function') {
      this.fs.writeFileSync(path, new Uint8Array(0), mode === undefined ? {} : { mode });
      data((run) => this.fs.appendFileSync(path, run));
      return;
    }
    const runs = data instanceof Uint8Array ? [data] : data;
    this.fs.writeFileSync(path, runs[0] ?? new Uint8Array(0), mode === undefined ? {} : { mode });
    for (const run of runs.slice(1)) this.fs.appendFileSync(path, run);
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
    if (this.subdirs === null) {
      const names = this.readdir(this.path);
      this.subdirs = new Set(names.filter((name) => /^[0-9a-f]{2}$/.test(name)));
      this.removeStaleTemporaries(names);
    }
    return this.subdirs;
  }

  /**
   * A killed writer leaves its temporary file behind: remove ours once they are older than git's
   * own grace period (a live writer's file is seconds old). Found in the listing made anyway.
   */
  private removeStaleTemporaries(names: string[]): void {
    const cutoff = Date.now() - TEMP_OBJECT_GRACE_MS;
    for (const name of names) {
      if (!name.startsWith(TEMP_OBJECT_PREFIX)) continue;
      const path = joinPath(this.path, name);
      try {
        const mtime = this.fs.statSync?.(path).mtimeMs;
        if (mtime !== undefined && mtime < cutoff) this.fs.unlinkSync(path);
      } catch {
        // Gone already, or not ours to remove: git's prune will see to it.
      }
    }
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
