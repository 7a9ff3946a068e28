/**
 * A pack's `.idx` (version 2): fan-out table, sorted oids, and offsets into the `.pack`.
 * Lookups are a binary search within the fan-out bucket, on the raw bytes, with no per-object
 * allocation.
 *
 * The index is read lazily, one fan-out bucket at a time, where the caller can read byte ranges
 * (`PackIndex.open`): git maps the file and touches a few pages, and a real repository's index is
 * megabytes (5-6 MB for ~200,000 objects, 35-55 ms to read whole), so opening it for one lookup
 * costs the 1 KB fan-out and the bucket(s) looked at. A full listing touches every bucket and
 * reads the same bytes as a whole read, in 512 reads.
 */
import { ForgeError } from '../errors';
import { toHex } from './platform';

/** Reads `length` bytes at `offset` of the index file (fewer only at its end). */
export type IndexRangeReader = (offset: number, length: number) => Uint8Array;

const HEADER_BYTES = 8 + 256 * 4;
const NAMES_START = HEADER_BYTES;

export class PackIndex {
  readonly count: number;
  private readonly fanout: Uint32Array;
  private readonly offsetsStart: number;
  private readonly largeOffsetsStart: number;
  /** Per fan-out bucket: its oids (20 bytes each) and its 4-byte offsets, loaded on first use. */
  private readonly names: (Uint8Array | undefined)[] = new Array(256);
  private readonly offsets: (DataView | undefined)[] = new Array(256);

  /** An index held whole in memory (the browser reads files whole). */
  constructor(bytes: Uint8Array, path: string);
  constructor(bytes: Uint8Array | null, path: string, readRange?: IndexRangeReader, size?: number);
  constructor(
    private readonly bytes: Uint8Array | null,
    readonly path: string,
    private readonly readRange: IndexRangeReader = (offset, length) => bytes!.subarray(offset, offset + length),
    size: number = bytes?.length ?? 0,
  ) {
    const header = this.range(0, HEADER_BYTES);
    const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
    if (header.length < HEADER_BYTES || view.getUint32(0) !== 0xff744f63 || view.getUint32(4) !== 2) {
      throw new ForgeError('UNSUPPORTED_REPOSITORY_FORMAT', `Pack index ${path} is not version 2; run "git repack -ad" to rewrite it.`, { data: { path } });
    }
    this.fanout = new Uint32Array(256);
    for (let i = 0; i < 256; i++) {
      this.fanout[i] = view.getUint32(8 + i * 4);
      if (i > 0 && this.fanout[i]! < this.fanout[i - 1]!) throw corrupt(path, 'its fan-out table is not ascending');
    }
    this.count = this.fanout[255]!;
    this.offsetsStart = NAMES_START + this.count * 24; // names (20) + crc32 (4)
    this.largeOffsetsStart = this.offsetsStart + this.count * 4;
    // Two trailing checksums (pack and index) follow the tables.
    if (size < this.largeOffsetsStart + 40) throw corrupt(path, `it is ${size} bytes, too short for ${this.count} objects`);
  }

  /** An index read through `readRange` as lookups need it (`size`: the file's size). */
  static open(path: string, size: number, readRange: IndexRangeReader, close?: () => void): PackIndex {
    const index = new PackIndex(null, path, readRange, size);
    index.closeSource = close;
    return index;
  }

  private closeSource: (() => void) | undefined;

  /** Lets go of the file (a later lookup of an unread bucket opens it again). */
  close(): void {
    this.closeSource?.();
  }

  /** Position of the oid (20 raw bytes) in the sorted table, or -1. */
  find(oid: Uint8Array): number {
    const bucket = oid[0]!;
    const first = bucket === 0 ? 0 : this.fanout[bucket - 1]!;
    const names = this.namesOf(bucket);
    let lo = 0;
    let hi = names.length / 20 - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const cmp = compareAt(names, mid * 20, oid);
      if (cmp === 0) return first + mid;
      if (cmp < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  offsetAt(position: number): number {
    const bucket = this.bucketOf(position);
    const first = bucket === 0 ? 0 : this.fanout[bucket - 1]!;
    const small = this.offsetsOf(bucket).getUint32((position - first) * 4);
    if ((small & 0x80000000) === 0) return small;
    const slot = this.range(this.largeOffsetsStart + (small & 0x7fffffff) * 8, 8);
    if (slot.length < 8) throw corrupt(this.path, `a large offset of object ${position} lies past its end`);
    const view = new DataView(slot.buffer, slot.byteOffset, 8);
    return view.getUint32(0) * 2 ** 32 + view.getUint32(4);
  }

  /** Every object's offset, ascending: read once, for nextOffsetAfter. */
  private sortedOffsets: Float64Array | null = null;

  /**
   * The smallest object offset greater than `offset`, or null when none is (the last object):
   * where the object at or before `offset` must end (git's reverse index answers the same). The
   * offset table is read and sorted on the first call (8 bytes an object, kept), for large objects
   * only, whose compressed stream would otherwise be read with a bound of its inflated size.
   */
  nextOffsetAfter(offset: number): number | null {
    const sorted = (this.sortedOffsets ??= this.readSortedOffsets());
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! > offset) hi = mid;
      else lo = mid + 1;
    }
    return lo < sorted.length ? sorted[lo]! : null;
  }

  private readSortedOffsets(): Float64Array {
    const table = this.exact(this.offsetsStart, this.count * 4);
    const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
    const sorted = new Float64Array(this.count);
    for (let i = 0; i < this.count; i++) {
      const small = view.getUint32(i * 4);
      sorted[i] = (small & 0x80000000) === 0 ? small : this.offsetAt(i);
    }
    return sorted.sort();
  }

  oidAt(position: number): string {
    const bucket = this.bucketOf(position);
    const start = (position - (bucket === 0 ? 0 : this.fanout[bucket - 1]!)) * 20;
    return toHex(this.namesOf(bucket).subarray(start, start + 20));
  }

  /** Oids starting with a hex prefix (for abbreviated revisions), at most `limit`. */
  findByPrefix(prefix: string, limit: number): string[] {
    const first = parseInt(prefix.slice(0, 2).padEnd(2, '0'), 16);
    const lo = first === 0 ? 0 : this.fanout[first - 1]!;
    const out: string[] = [];
    for (let i = lo; i < this.count && out.length < limit; i++) {
      const oid = this.oidAt(i);
      if (oid.startsWith(prefix)) out.push(oid);
      else if (oid > prefix) break;
    }
    return out;
  }

  /** The fan-out bucket (first oid byte) holding a position. */
  private bucketOf(position: number): number {
    if (!(position >= 0 && position < this.count)) throw new RangeError(`position ${position} is outside ${this.path} (${this.count} objects)`);
    let lo = 0;
    let hi = 255;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.fanout[mid]! > position) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private namesOf(bucket: number): Uint8Array {
    let names = this.names[bucket];
    if (names === undefined) {
      const first = bucket === 0 ? 0 : this.fanout[bucket - 1]!;
      const n = this.fanout[bucket]! - first;
      names = this.exact(NAMES_START + first * 20, n * 20);
      this.names[bucket] = names;
    }
    return names;
  }

  private offsetsOf(bucket: number): DataView {
    let offsets = this.offsets[bucket];
    if (offsets === undefined) {
      const first = bucket === 0 ? 0 : this.fanout[bucket - 1]!;
      const n = this.fanout[bucket]! - first;
      const bytes = this.exact(this.offsetsStart + first * 4, n * 4);
      offsets = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      this.offsets[bucket] = offsets;
    }
    return offsets;
  }

  private range(offset: number, length: number): Uint8Array {
    return this.bytes !== null ? this.bytes.subarray(offset, offset + length) : this.readRange(offset, length);
  }

  private exact(offset: number, length: number): Uint8Array {
    const bytes = this.range(offset, length);
    if (bytes.length !== length) throw corrupt(this.path, `it ends before byte ${offset + length}`);
    return bytes;
  }
}

function compareAt(names: Uint8Array, base: number, oid: Uint8Array): number {
  for (let k = 0; k < 20; k++) {
    const diff = names[base + k]! - oid[k]!;
    if (diff !== 0) return diff;
  }
  return 0;
}

function corrupt(path: string, problem: string): ForgeError {
  return new ForgeError('OBJECT_CORRUPT', `Pack index ${path} is damaged: ${problem}. Run "git fsck" and "git repack -ad".`, { data: { path } });
}
