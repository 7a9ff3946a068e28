/** A pack entry's type-and-size header (git's pack format), read by the pack readers and the unpacker and written by the pack writer. */
import type { ObjectType } from './object-codec';

/**
 * The entry at `start`: its type code (1-4 objects, 6 OFS_DELTA, 7 REF_DELTA), its size (of the
 * object, or of the delta data for a delta) and the header's length in bytes.
 */
export function parseEntryHeader(bytes: Uint8Array, start = 0): { typeCode: number; size: number; length: number } {
  let i = start;
  let byte = bytes[i++]!;
  const typeCode = (byte >> 4) & 7;
  let size = byte & 15;
  // A running scale, not 2 ** shift: optimized code calls pow() for that, once per object read.
  let scale = 16;
  while (byte & 0x80) {
    byte = bytes[i++]!;
    size += (byte & 0x7f) * scale;
    scale *= 128;
  }
  return { typeCode, size, length: i - start };
}

/** A pack entry's type code of each object type (gitformat-pack). */
export const PACK_TYPE_CODES: Readonly<Record<ObjectType, number>> = { commit: 1, tree: 2, blob: 3, tag: 4 };

/** The header of one entry of this type code and size. */
export function encodeEntryHeader(typeCode: number, size: number): Uint8Array {
  const bytes: number[] = [];
  let byte = (typeCode << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Uint8Array.from(bytes);
}
