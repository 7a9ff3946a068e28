/**
 * A pack's `.idx` (version 2): fan-out table, sorted oids, and offsets into the `.pack`.
 * Lookups are a binary search within the fan-out bucket, on the raw bytes, with no per-object
 * allocation, so opening a repository costs one file read per pack.
 */
import { ForgeError } from '../errors';
import { toHex } from './platform';

export class PackIndex {
  readonly count: number;
  private readonly fanout: Uint32Array;
  private readonly view: DataView;
  private readonly namesStart = 8 + 256 * 4;
  private readonly offsetsStart: number;
  private readonly largeOffsetsStart: number;

  constructor(
    private readonly bytes: Uint8Array,
    readonly path: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (this.view.getUint32(0) !== 0xff744f63 || this.view.getUint32(4) !== 2) {
      throw new ForgeError('UNSUPPORTED_REPOSITORY_FORMAT', `Pack index ${path} is not version 2; run "git repack -ad" to rewrite it.`, { data: { path } });
    }
    this.fanout = new Uint32Array(256);
    for (let i = 0; i < 256; i++) this.fanout[i] = this.view.getUint32(8 + i * 4);
    this.count = this.fanout[255]!;
    this.offsetsStart = this.namesStart + this.count * 24; // names (20) + crc32 (4)
    this.largeOffsetsStart = this.offsetsStart + this.count * 4;
  }

  /** Position of the oid (20 raw bytes) in the sorted table, or -1. */
  find(oid: Uint8Array): number {
    let lo = oid[0] === 0 ? 0 : this.fanout[oid[0]! - 1]!;
    let hi = this.fanout[oid[0]!]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const cmp = this.compareAt(mid, oid);
      if (cmp === 0) return mid;
      if (cmp < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private compareAt(position: number, oid: Uint8Array): number {
    const base = this.namesStart + position * 20;
    for (let k = 0; k < 20; k++) {
      const diff = this.bytes[base + k]! - oid[k]!;
      if (diff !== 0) return diff;
    }
    return 0;
  }

  offsetAt(position: number): number {
    const small = this.view.getUint32(this.offsetsStart + position * 4);
    if ((small & 0x80000000) === 0) return small;
    const slot = this.largeOffsetsStart + (small & 0x7fffffff) * 8;
    return this.view.getUint32(slot) * 2 ** 32 + this.view.getUint32(slot + 4);
  }

  oidAt(position: number): string {
    const base = this.namesStart + position * 20;
    return toHex(this.bytes.subarray(base, base + 20));
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
}
