/**
 * Reads objects out of one `.pack` over an fs with only whole-file promise reads (a browser's
 * lightning-fs), with the platform's async inflate (DecompressionStream) and no Buffer.
 * The pack is read once, whole, when its first object is asked for, and kept: lightning-fs has
 * no positional reads, and it keeps files as whole IndexedDB values anyway. Each entry is then
 * read by offset, as git does. DecompressionStream rejects bytes after the end of a zlib stream,
 * so every entry is inflated from exactly its own bytes: an entry ends where the next one (in
 * offset order, from the `.idx`) starts, or at the pack's trailing checksum.
 */
import { ForgeError } from '../errors';
import { applyDelta } from './delta';
import type { ObjectType } from './object-codec';
import { parseEntryHeader } from './pack-entry';
import type { PackIndex } from './pack-index';
import type { DeltaBaseCache, RawObject } from './pack-reader';
import { toHex, type GitPlatform } from './platform';

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;
const MAX_DELTA_DEPTH = 10_000;

export class AsyncPackReader {
  private bytes: Promise<Uint8Array> | null = null;
  private sortedOffsets: Float64Array | null = null;

  constructor(
    readonly index: PackIndex,
    private readonly packPath: string,
    private readonly readWholeFile: (path: string) => Promise<Uint8Array>,
    private readonly platform: GitPlatform,
    private readonly baseCache: DeltaBaseCache,
    /** Resolves a REF_DELTA base that is not in this pack. */
    private readonly readExternal: (oid: string) => Promise<RawObject | null>,
  ) {}

  /** The object at a position of the index. */
  readAt(position: number): Promise<RawObject> {
    return this.readOffset(this.index.offsetAt(position), 0);
  }

  private pack(): Promise<Uint8Array> {
    this.bytes ??= this.readWholeFile(this.packPath).catch((error: unknown) => {
      this.bytes = null;
      throw error;
    });
    return this.bytes;
  }

  /** Where the entry at `offset` ends: the next entry's offset, or the start of the checksum. */
  private entryEnd(offset: number, pack: Uint8Array): number {
    if (this.sortedOffsets === null) {
      const offsets = new Float64Array(this.index.count);
      for (let i = 0; i < offsets.length; i++) offsets[i] = this.index.offsetAt(i);
      this.sortedOffsets = offsets.sort();
    }
    const offsets = this.sortedOffsets;
    let lo = 0;
    let hi = offsets.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (offsets[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo < offsets.length ? offsets[lo]! : pack.length - 20;
  }

  private async readOffset(offset: number, depth: number): Promise<RawObject> {
    if (depth > MAX_DELTA_DEPTH) throw new ForgeError('OBJECT_CORRUPT', `Delta chain too deep in ${this.packPath}.`);
    const key = `${this.packPath}:${offset}`;
    const cached = this.baseCache.get(key);
    if (cached !== undefined) return cached;

    const pack = await this.pack();
    const end = this.entryEnd(offset, pack);
    if (offset < 12 || end > pack.length - 20 || end <= offset) throw this.corrupt(offset, 'offset outside the pack');
    const { typeCode, size, length } = parseEntryHeader(pack, offset);
    let i = offset + length;
    let byte: number;

    let result: RawObject;
    if (typeCode === OFS_DELTA) {
      byte = pack[i++]!;
      let back = byte & 0x7f;
      while (byte & 0x80) {
        byte = pack[i++]!;
        back = (back + 1) * 128 + (byte & 0x7f);
      }
      const delta = await this.inflate(pack, offset, i, end, size);
      const base = await this.readOffset(offset - back, depth + 1);
      result = { type: base.type, content: applyDelta(base.content, delta) };
    } else if (typeCode === REF_DELTA) {
      const baseOid = toHex(pack.subarray(i, i + 20));
      i += 20;
      const delta = await this.inflate(pack, offset, i, end, size);
      const base = await this.readByOid(baseOid, depth + 1);
      result = { type: base.type, content: applyDelta(base.content, delta) };
    } else {
      const type = TYPES[typeCode];
      if (type === undefined) throw this.corrupt(offset, `unknown object type ${typeCode}`);
      result = { type, content: await this.inflate(pack, offset, i, end, size) };
    }
    // Like git's delta base cache: keep what served as a base; callers cache what they asked for.
    if (depth > 0) this.baseCache.set(key, result);
    return result;
  }

  private async readByOid(oid: string, depth: number): Promise<RawObject> {
    const raw = new Uint8Array(20);
    for (let k = 0; k < 20; k++) raw[k] = parseInt(oid.slice(k * 2, k * 2 + 2), 16);
    const position = this.index.find(raw);
    if (position >= 0) return this.readOffset(this.index.offsetAt(position), depth);
    const external = await this.readExternal(oid);
    if (external === null) throw new ForgeError('OBJECT_NOT_FOUND', `Delta base ${oid} is missing from ${this.packPath}.`, { data: { oid } });
    return external;
  }

  private async inflate(pack: Uint8Array, offset: number, start: number, end: number, size: number): Promise<Uint8Array> {
    let content: Uint8Array;
    try {
      content = await this.platform.inflate(pack.subarray(start, end));
    } catch (error) {
      throw this.corrupt(offset, (error as Error).message);
    }
    if (content.length !== size) throw this.corrupt(offset, `inflated to ${content.length} bytes, the entry declares ${size}`);
    return content;
  }

  private corrupt(offset: number, detail: string): ForgeError {
    return new ForgeError('OBJECT_CORRUPT', `Cannot read the object at ${offset} of ${this.packPath}: ${detail}.`);
  }
}
