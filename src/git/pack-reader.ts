/**
 * Reads objects out of one `.pack` by offset, the way git does: positional reads of just the
 * bytes an object needs, native inflate, delta chains resolved through a bounded base cache.
 * Needs synchronous random access and zlib (node's fs or memfs with the Node platform).
 */
import { ForgeError } from '../errors';
import type { FsSync } from './fs';
import { applyDelta } from './delta';
import { WeightedLru } from './lru';
import type { ObjectType } from './object-codec';
import { PackIndex } from './pack-index';
import type { SyncPlatform } from './platform';

export interface RawObject {
  type: ObjectType;
  content: Uint8Array;
}

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** First read at an object: its header and, for most trees and small blobs, all its data (one syscall). */
const FIRST_READ = 4096;

/** Shared across the packs of one repository: delta bases recently used, by pack and offset. */
export type DeltaBaseCache = WeightedLru<string, RawObject>;

export function createDeltaBaseCache(maxBytes = 32 * 1024 * 1024): DeltaBaseCache {
  return new WeightedLru<string, RawObject>(maxBytes, (o) => o.content.length + 64);
}

export class PackReader {
  private fd: number | null = null;
  private packSize = -1;

  constructor(
    readonly index: PackIndex,
    private readonly packPath: string,
    private readonly fs: FsSync,
    private readonly zlib: SyncPlatform,
    private readonly baseCache: DeltaBaseCache,
    /** Resolves a REF_DELTA base that lives in another pack or loose (thin packs never land on disk, but be safe). */
    private readonly readExternal: (oid: string) => RawObject | null,
  ) {}

  /** The object at a position of the index. */
  readAt(position: number): RawObject {
    return this.readOffset(this.index.offsetAt(position), 0);
  }

  close(): void {
    if (this.fd !== null) this.fs.closeSync(this.fd);
    this.fd = null;
  }

  private handle(): number {
    if (this.fd === null) {
      this.fd = this.fs.openSync(this.packPath, 'r');
      this.packSize = this.fs.fstatSync(this.fd).size;
    }
    return this.fd;
  }

  private read(position: number, length: number): Uint8Array {
    const fd = this.handle();
    const n = Math.max(0, Math.min(length, this.packSize - 20 - position));
    const buffer = new Uint8Array(n);
    let done = 0;
    while (done < n) {
      const got = this.fs.readSync(fd, buffer, done, n - done, position + done);
      if (got === 0) break;
      done += got;
    }
    return done === n ? buffer : buffer.subarray(0, done);
  }

  private readOffset(offset: number, depth: number): RawObject {
    if (depth > 10_000) throw new ForgeError('OBJECT_CORRUPT', `Delta chain too deep in ${this.packPath}.`);
    const key = `${this.packPath}:${offset}`;
    const cached = this.baseCache.get(key);
    if (cached !== undefined) return cached;

    const head = this.read(offset, FIRST_READ);
    let i = 0;
    let byte = head[i++]!;
    const typeCode = (byte >> 4) & 7;
    let size = byte & 15;
    let shift = 4;
    while (byte & 0x80) {
      byte = head[i++]!;
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }

    let result: RawObject;
    if (typeCode === OFS_DELTA) {
      byte = head[i++]!;
      let back = byte & 0x7f;
      while (byte & 0x80) {
        byte = head[i++]!;
        back = (back + 1) * 128 + (byte & 0x7f);
      }
      const base = this.readOffset(offset - back, depth + 1);
      const delta = this.inflateAt(offset + i, size, head.subarray(i));
      result = { type: base.type, content: applyDelta(base.content, delta) };
    } else if (typeCode === REF_DELTA) {
      const baseOid = Array.from(head.subarray(i, i + 20), (b) => b.toString(16).padStart(2, '0')).join('');
      i += 20;
      const base = this.readByOid(baseOid, depth + 1);
      const delta = this.inflateAt(offset + i, size, head.subarray(i));
      result = { type: base.type, content: applyDelta(base.content, delta) };
    } else {
      const type = TYPES[typeCode];
      if (type === undefined) throw new ForgeError('OBJECT_CORRUPT', `Unknown object type ${typeCode} at offset ${offset} of ${this.packPath}.`);
      result = { type, content: this.inflateAt(offset + i, size, head.subarray(i)) };
    }
    // Like git's delta base cache: keep what served as a base; callers cache what they asked for.
    if (depth > 0) this.baseCache.set(key, result);
    return result;
  }

  private readByOid(oid: string, depth: number): RawObject {
    const raw = new Uint8Array(20);
    for (let k = 0; k < 20; k++) raw[k] = parseInt(oid.slice(k * 2, k * 2 + 2), 16);
    const position = this.index.find(raw);
    if (position >= 0) return this.readOffset(this.index.offsetAt(position), depth);
    const external = this.readExternal(oid);
    if (external === null) throw new ForgeError('OBJECT_NOT_FOUND', `Delta base ${oid} is missing from ${this.packPath}.`, { data: { oid } });
    return external;
  }

  /**
   * Inflates `size` bytes starting at a position; the compressed length is bounded like zlib's
   * deflateBound. `already` holds the bytes from `position` that the first read brought in.
   */
  private inflateAt(position: number, size: number, already: Uint8Array): Uint8Array {
    let window = size + (size >>> 12) + (size >>> 14) + (size >>> 25) + 64;
    const packEnd = this.packSize - 20;
    for (;;) {
      const covered = already.length >= window || position + already.length >= packEnd;
      const compressed = covered ? already : this.read(position, window);
      try {
        const data = this.zlib.inflate(compressed);
        if (data.length !== size) throw new ForgeError('OBJECT_CORRUPT', `Object at ${position} of ${this.packPath} inflated to ${data.length} bytes, expected ${size}.`);
        return data;
      } catch (error) {
        // A compressor with a worse bound than zlib's: widen the window until the pack ends.
        if (error instanceof ForgeError || compressed.length < window) throw error instanceof ForgeError ? error : new ForgeError('OBJECT_CORRUPT', `Cannot inflate object at ${position} of ${this.packPath}: ${(error as Error).message}`);
        window *= 2;
      }
    }
  }
}
