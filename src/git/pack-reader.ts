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
import { parseEntryHeader } from './pack-entry';
import { PackIndex } from './pack-index';
import type { SyncPlatform } from './platform';

export interface RawObject {
  type: ObjectType;
  content: Uint8Array;
}

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** First look at an object: its header and, for most trees and small blobs, all its data. */
const FIRST_READ = 4096;
/** From this inflated size an object's compressed stream is read up to the next object's offset. */
const BOUNDED_READ_BYTES = 1024 * 1024;
/**
 * The pack is read in aligned windows kept in an LRU, a small cousin of git's mmap windows:
 * objects read together (the trees of a commit's history, a delta and its base) often sit close
 * together, so one read serves several objects. Measured on the bench repository (trees
 * interleaved with 50,000 blobs): 16 KiB windows halve the reads of a merge against 4 KiB
 * single-object reads, while a full listing reads 2.9x the bytes (64 KiB windows: 6.4x, and slower).
 */
export const PACK_WINDOW_BYTES = 16 * 1024;
const WINDOW = PACK_WINDOW_BYTES;
/**
 * 256 windows, 4 MiB. An evicted window's buffer is reused for the next: a turn touching 1,000
 * files reads thousands of windows, and fresh buffers would pile up as garbage outside the heap
 * (peak RSS) until a collection.
 */
const MAX_WINDOWS = 256;
/** A first look that the window would cut shorter than this reads on its own instead. */
const MIN_HEADER = 64;
/**
 * Reads that move forward through the pack (a listing: git writes a commit's trees in the order
 * a walk of them meets them, among the blobs) are served by one stream buffer read 256 KiB at a
 * time, like the kernel's readahead: on the real-like profile a first listing needs ~3,400 of the
 * 16 KiB windows in 80 MB of pack, in order; read 16 at a time, 250 reads instead of 3,400 (each
 * read's fixed cost outweighed the bytes). The reads of a merge or a diff do not run forward long
 * enough to start one.
 */
const STREAM_BYTES = 256 * 1024;
/**
 * Window misses, each at most SEQUENTIAL_GAP windows past the one before, that start a stream:
 * a listing's misses are nearly consecutive (70% of the windows it spans hold a tree it needs);
 * a diff's or a merge's are not, and a looser rule let them stream 256 KiB for one object.
 */
const SEQUENTIAL_RUN = 8;
const SEQUENTIAL_GAP = 2;

/**
 * Shared across the packs of one repository: delta bases recently used, by pack and offset (a
 * number, see PackReader's cache keys; `path:offset` for the async reader).
 */
export type DeltaBaseCache = WeightedLru<string | number, RawObject>;

export function createDeltaBaseCache(maxBytes = 32 * 1024 * 1024): DeltaBaseCache {
  return new WeightedLru<string | number, RawObject>(maxBytes, (o) => o.content.length + 64);
}

/**
 * Each reader's cache keys are `serial * 2^40 + offset`: a number (a string key per object read
 * cost more than the lookup), unique to the reader while there are fewer than 8,192 readers and
 * packs under 1 TiB; beyond, `serial:offset` strings.
 */
const SERIAL_SCALE = 2 ** 40;
const MAX_NUMERIC_SERIAL = 2 ** 53 / SERIAL_SCALE;
let nextSerial = 0;

export class PackReader {
  private fd: number | null = null;
  private packSize = -1;
  /** Window number -> its bytes, least recently used first. */
  private readonly windows = new Map<number, Uint8Array>();
  /** The window read last: consecutive objects often share one, and then skip the map. */
  private lastWindow = -1;
  private lastBytes: Uint8Array | null = null;
  private readonly serial = nextSerial++;
  /** The stream buffer (made on first use) and the pack bytes it holds now. */
  private stream: Uint8Array | null = null;
  private streamStart = 0;
  private streamLength = 0;
  /** The furthest window missed (or streamed) so far, and how many forward misses led there. */
  private head = -1;
  private forwardRun = 0;

  constructor(
    readonly index: PackIndex,
    readonly packPath: string,
    private readonly fs: FsSync,
    private readonly zlib: SyncPlatform,
    private readonly baseCache: DeltaBaseCache,
    /** Resolves a REF_DELTA base that lives in another pack or loose (thin packs never land on disk, but be safe). */
    private readonly readExternal: (oid: string) => RawObject | null,
    private readonly maxWindows = MAX_WINDOWS,
  ) {}

  /** The object at a position of the index. */
  readAt(position: number): RawObject {
    return this.readOffset(this.index.offsetAt(position), 0);
  }

  /**
   * The size of the object at a position without reading it: its entry header holds it, or, for
   * a delta, the delta's own header (the delta is inflated, its chain is not resolved).
   */
  sizeAt(position: number): number {
    const offset = this.index.offsetAt(position);
    const key = this.cacheKey(offset);
    const cached = this.baseCache.get(key);
    if (cached !== undefined) return cached.content.length;
    const head = this.readUpTo(offset, FIRST_READ);
    const { typeCode, size, length } = parseEntryHeader(head);
    let i = length;
    if (typeCode !== OFS_DELTA && typeCode !== REF_DELTA) return size;
    if (typeCode === OFS_DELTA) while (head[i++]! & 0x80);
    else i += 20;
    const delta = this.inflateAt(offset + i, size, head.subarray(i));
    let at = 0;
    while (delta[at++]! & 0x80); // the base's size
    let target = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = delta[at++]!;
      target += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return target;
  }

  close(): void {
    this.index.close();
    if (this.fd !== null) this.fs.closeSync(this.fd);
    this.fd = null;
    this.windows.clear();
    this.lastWindow = -1;
    this.lastBytes = null;
    this.stream = null;
    this.streamLength = 0;
    this.head = -1;
    this.forwardRun = 0;
  }

  private cacheKey(offset: number): number | string {
    return this.serial < MAX_NUMERIC_SERIAL && offset < SERIAL_SCALE ? this.serial * SERIAL_SCALE + offset : `${this.serial}:${offset}`;
  }

  private handle(): number {
    if (this.fd === null) {
      this.fd = this.fs.openSync(this.packPath, 'r');
      this.packSize = this.fs.fstatSync(this.fd).size;
    }
    return this.fd;
  }

  /** Bytes [position, position + length) of the pack's data (the trailing checksum excluded). */
  private read(position: number, length: number): Uint8Array {
    const end = Math.min(position + length, this.dataEnd());
    if (end <= position) return new Uint8Array(0);
    const inStream = position - this.streamStart;
    if (inStream >= 0 && end - this.streamStart <= this.streamLength) return this.stream!.subarray(inStream, end - this.streamStart);
    const first = Math.floor(position / WINDOW);
    const single = Math.floor((end - 1) / WINDOW) === first;
    // Starting in the stream and running past its end, or a forward run of misses: the stream moves on.
    const pastStream = inStream >= 0 && inStream < this.streamLength;
    if ((pastStream || (!(single && (first === this.lastWindow || this.windows.has(first))) && this.sequential(first))) && end - first * WINDOW <= STREAM_BYTES) {
      this.fillStream(first);
      return this.stream!.subarray(position - this.streamStart, end - this.streamStart);
    }
    if (single) return this.window(first).subarray(position - first * WINDOW, end - first * WINDOW);
    return this.readDirect(position, end - position);
  }

  /** Up to `length` bytes from `position`: fewer where its window (or the stream) ends (callers read on as needed). */
  private readUpTo(position: number, length: number): Uint8Array {
    const inStream = position - this.streamStart;
    const bufferEnd = inStream >= 0 && inStream < this.streamLength ? this.streamStart + this.streamLength : (Math.floor(position / WINDOW) + 1) * WINDOW;
    return this.read(position, bufferEnd - position >= MIN_HEADER ? Math.min(length, bufferEnd - position) : length);
  }

  /** Whether a miss at window `n` continues a forward run of misses; a miss behind the run (a delta's base) leaves it be. */
  private sequential(n: number): boolean {
    if (n <= this.head) return false;
    this.forwardRun = n - this.head <= SEQUENTIAL_GAP ? this.forwardRun + 1 : 0;
    this.head = n;
    return this.forwardRun >= SEQUENTIAL_RUN;
  }

  /** The stream buffer refilled from window `n` on. No caller keeps a view of it across another read (see readOffset). */
  private fillStream(n: number): void {
    this.stream ??= new Uint8Array(STREAM_BYTES);
    this.streamStart = n * WINDOW;
    this.streamLength = 0; // while reading (a failed read leaves no stale bytes in use)
    this.streamLength = this.readInto(this.stream, this.streamStart, Math.min(STREAM_BYTES, this.dataEnd() - this.streamStart)).length;
    this.head = n + Math.ceil(this.streamLength / WINDOW) - 1;
  }

  private dataEnd(): number {
    this.handle();
    return this.packSize - 20;
  }

  private window(n: number): Uint8Array {
    if (n === this.lastWindow) return this.lastBytes!;
    let bytes = this.windows.get(n);
    if (bytes !== undefined) {
      this.windows.delete(n);
      this.windows.set(n, bytes);
      this.lastWindow = n;
      this.lastBytes = bytes;
      return bytes;
    }
    let buffer: Uint8Array | undefined;
    if (this.windows.size >= this.maxWindows) {
      const [oldest, old] = this.windows.entries().next().value as [number, Uint8Array];
      this.windows.delete(oldest);
      // Safe to overwrite: no caller keeps a view of a window across another read (see readOffset).
      if (old.length === WINDOW) buffer = old;
    }
    const length = Math.min(WINDOW, this.dataEnd() - n * WINDOW);
    bytes = this.readInto(buffer ?? new Uint8Array(WINDOW), n * WINDOW, length);
    this.windows.set(n, bytes);
    // (The last window may just have been evicted and its buffer reused: it is replaced here.)
    this.lastWindow = n;
    this.lastBytes = bytes;
    return bytes;
  }

  private readDirect(position: number, n: number): Uint8Array {
    return this.readInto(new Uint8Array(n), position, n);
  }

  /** Reads `n` bytes at `position` into the start of `buffer`; the bytes read, as a view. */
  private readInto(buffer: Uint8Array, position: number, n: number): Uint8Array {
    const fd = this.handle();
    let done = 0;
    while (done < n) {
      const got = this.fs.readSync(fd, buffer, done, n - done, position + done);
      if (got === 0) break;
      done += got;
    }
    return done === buffer.length ? buffer : buffer.subarray(0, done);
  }

  private readOffset(offset: number, depth: number): RawObject {
    if (depth > 10_000) throw new ForgeError('OBJECT_CORRUPT', `Delta chain too deep in ${this.packPath}.`);
    const key = this.cacheKey(offset);
    const cached = this.baseCache.get(key);
    if (cached !== undefined) return cached;

    const head = this.readUpTo(offset, FIRST_READ);
    const { typeCode, size, length } = parseEntryHeader(head);
    let i = length;
    let byte: number;

    let result: RawObject;
    if (typeCode === OFS_DELTA) {
      byte = head[i++]!;
      let back = byte & 0x7f;
      while (byte & 0x80) {
        byte = head[i++]!;
        back = (back + 1) * 128 + (byte & 0x7f);
      }
      // The delta before its base: reading the base may reuse the window `head` views.
      const delta = this.inflateAt(offset + i, size, head.subarray(i));
      const base = this.readOffset(offset - back, depth + 1);
      result = { type: base.type, content: applyDelta(base.content, delta) };
    } else if (typeCode === REF_DELTA) {
      const baseOid = Array.from(head.subarray(i, i + 20), (b) => b.toString(16).padStart(2, '0')).join('');
      i += 20;
      const delta = this.inflateAt(offset + i, size, head.subarray(i));
      const base = this.readByOid(baseOid, depth + 1);
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
   * Inflates `size` bytes starting at a position. `already` holds the bytes from `position` that
   * the first look brought in: a compressed stream is usually much shorter than `size`, so they
   * are tried first. Otherwise the compressed length is bounded like zlib's deflateBound.
   */
  private inflateAt(position: number, size: number, already: Uint8Array): Uint8Array {
    const atEnd = position + already.length >= this.dataEnd();
    try {
      return this.zlib.inflateSized(already, size);
    } catch (error) {
      if (atEnd) throw this.corrupt(position, error);
    }
    let window = size + (size >>> 12) + (size >>> 14) + (size >>> 25) + 64;
    // A large object's stream ends where the next object starts: read that much, not the bound
    // of its inflated size (a 50 MB text file's 16 MB stream was read as 50 MB, issue 30).
    if (size >= BOUNDED_READ_BYTES) window = Math.min(window, (this.index.nextOffsetAfter(position) ?? this.dataEnd()) - position);
    for (;;) {
      const compressed = this.read(position, window);
      try {
        return this.zlib.inflateSized(compressed, size);
      } catch (error) {
        // A compressor with a worse bound than zlib's: widen the window until the pack ends.
        if (compressed.length < window) throw this.corrupt(position, error);
        window *= 2;
      }
    }
  }

  private corrupt(position: number, error: unknown): ForgeError {
    return new ForgeError('OBJECT_CORRUPT', `Cannot inflate object at ${position} of ${this.packPath}: ${(error as Error).message}`);
  }
}
