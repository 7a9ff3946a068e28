/**
 * A packfile (gitformat-pack, version 2) of whole objects and its index (version 2), as bytes:
 * what a batch of new objects becomes when written to `objects/pack/` in two files instead of
 * one loose file each (see staged-objects.ts). Pure encoding; the caller deflates, hashes and writes.
 */
import { ForgeError } from '../errors';
import { encodeEntryHeader } from './pack-entry';
import type { ObjectType } from './object-codec';

const TYPE_CODES: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
/**
 * Offsets from here on would need the index's 64-bit table, which this writer does not write: its
 * packs are a batch of small objects, a few MiB (ObjectStore's STAGED_BYTES).
 */
const LARGE_OFFSET = 0x80000000;

export interface PackEntryInput {
  /** The object's id, 20 bytes. */
  oid: Uint8Array;
  type: ObjectType;
  /** The object's content length (not the framed object's). */
  size: number;
  /** zlib stream of the content (no `type size\0` header: a pack entry has its own). */
  deflated: Uint8Array;
}

export interface EncodedPack {
  /** The pack's bytes in order (write them as one file); the last run is its SHA-1 trailer. */
  pack: Uint8Array[];
  /** The `.idx` file. */
  index: Uint8Array;
  /** Hex of the pack's trailer: git names the files `pack-<it>.pack` / `.idx`. */
  checksum: string;
}

/** `sha1` hashes the runs as one byte string (raw 20 bytes). */
export function encodePack(entries: readonly PackEntryInput[], sha1: (runs: readonly Uint8Array[]) => Uint8Array): EncodedPack {
  const header = new Uint8Array(12);
  header.set([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2]); // "PACK", version 2
  new DataView(header.buffer).setUint32(8, entries.length);
  const runs: Uint8Array[] = [header];
  const offsets: number[] = [];
  const crcs: number[] = [];
  let offset = header.length;
  for (const entry of entries) {
    const head = encodeEntryHeader(TYPE_CODES[entry.type], entry.size);
    if (offset >= LARGE_OFFSET) throw new ForgeError('INTERNAL', `A pack of staged objects reached ${offset} bytes: this writer writes packs under 2 GiB.`);
    offsets.push(offset);
    crcs.push(crc32(entry.deflated, crc32(head)));
    runs.push(head, entry.deflated);
    offset += head.length + entry.deflated.length;
  }
  const trailer = sha1(runs);
  runs.push(trailer);
  const index = encodeIndex(entries.map((e) => e.oid), crcs, offsets, trailer, sha1);
  return { pack: runs, index, checksum: toHex(trailer) };
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

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
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

function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}
