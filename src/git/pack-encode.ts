/**
 * A packfile (gitformat-pack, version 2) of whole objects and its index (version 2), as bytes:
 * what a batch of new objects becomes when written to `objects/pack/` in two files instead of
 * one loose file each (see staged-objects.ts). Pure encoding; the caller deflates, hashes and writes.
 */
import { ForgeError } from '../errors';
import { encodeEntryHeader, PACK_TYPE_CODES } from './pack-entry';
import type { ObjectType } from './object-codec';
import { toHex } from './platform';
import { compareBytes } from './tree-names';
/**
 * Offsets from here on would need the index's 64-bit table, which this writer does not write: its
 * packs are a batch of small objects, a few MiB (ObjectStore's STAGED_BYTES).
 */
const LARGE_OFFSET = 0x80000000;

export interface PackEntryInput {
  /** The object's id, 20 bytes. */
  oid: Uint8Array;
  type: ObjectType;
  /** The object's content (not framed: a pack entry has its own header). */
  content: Uint8Array;
}

export interface EncodedPack {
  /** The pack file; its last 20 bytes are its SHA-1 trailer. */
  pack: Uint8Array;
  /** The `.idx` file. */
  index: Uint8Array;
  /** Hex of the pack's trailer: git names the files `pack-<it>.pack` / `.idx`. */
  checksum: string;
}

/**
 * `deflate` makes a zlib stream of a content; `sha1` hashes runs as one byte string (raw 20
 * bytes). Each entry is copied into the pack as it is deflated, so the deflate outputs are
 * garbage at once (a batch's thousands of small outputs held until the end cost more memory
 * than the pack).
 */
export function encodePack(entries: readonly PackEntryInput[], deflate: (content: Uint8Array) => Uint8Array, sha1: (runs: readonly Uint8Array[]) => Uint8Array): EncodedPack {
  let contentBytes = 0;
  for (const entry of entries) contentBytes += entry.content.length;
  let pack = new Uint8Array(12 + entries.length * 16 + (contentBytes >>> 1) + 20);
  pack.set([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2]); // "PACK", version 2
  new DataView(pack.buffer).setUint32(8, entries.length);
  const offsets: number[] = [];
  const crcs: number[] = [];
  let offset = 12;
  const append = (bytes: Uint8Array) => {
    if (offset + bytes.length + 20 > pack.length) {
      const grown = new Uint8Array(Math.max(pack.length * 2, offset + bytes.length + 20));
      grown.set(pack.subarray(0, offset));
      pack = grown;
    }
    pack.set(bytes, offset);
    offset += bytes.length;
  };
  for (const entry of entries) {
    if (offset >= LARGE_OFFSET) throw new ForgeError('INTERNAL', `A pack of staged objects reached ${offset} bytes: this writer writes packs under 2 GiB.`);
    const head = encodeEntryHeader(PACK_TYPE_CODES[entry.type], entry.content.length);
    const deflated = deflate(entry.content);
    offsets.push(offset);
    crcs.push(crc32(deflated, crc32(head)));
    append(head);
    append(deflated);
  }
  const trailer = sha1([pack.subarray(0, offset)]);
  pack.set(trailer, offset);
  const index = encodeIndex(entries.map((e) => e.oid), crcs, offsets, trailer, sha1);
  return { pack: pack.subarray(0, offset + 20), index, checksum: toHex(trailer) };
}

/** gitformat-pack's `.idx` version 2: fan-out, sorted names, CRC-32s, offsets (all under 2 GiB), the two checksums. */
function encodeIndex(oids: readonly Uint8Array[], crcs: readonly number[], offsets: readonly number[], packChecksum: Uint8Array, sha1: (runs: readonly Uint8Array[]) => Uint8Array): Uint8Array {
  const order = oids.map((_, i) => i).sort((a, b) => compareBytes(oids[a]!, oids[b]!));
  const n = oids.length;
  const body = new Uint8Array(8 + 256 * 4 + n * 28 + 20);
  const view = new DataView(body.buffer);
  body.set([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]); // "\377tOc", version 2
  const fanout = new Uint32Array(256);
  for (const oid of oids) fanout[oid[0]!]!++;
  let total = 0;
  for (let i = 0; i < 256; i++) view.setUint32(8 + i * 4, (total += fanout[i]!));
  const names = 8 + 1024;
  const crcAt = names + n * 20;
  const offsetAt = crcAt + n * 4;
  order.forEach((from, i) => {
    body.set(oids[from]!, names + i * 20);
    view.setUint32(crcAt + i * 4, crcs[from]!);
    view.setUint32(offsetAt + i * 4, offsets[from]!);
  });
  body.set(packChecksum, offsetAt + n * 4);
  const checksum = sha1([body]);
  const out = new Uint8Array(body.length + 20);
  out.set(body);
  out.set(checksum, body.length);
  return out;
}

let crcTable: Int32Array | null = null;

/** CRC-32 (IEEE, as zlib's): what the index keeps of each entry's raw bytes. `crc`: the CRC so far. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  const table = (crcTable ??= makeCrcTable());
  let c = ~crc;
  for (let i = 0; i < bytes.length; i++) c = table[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

function makeCrcTable(): Int32Array {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
}
