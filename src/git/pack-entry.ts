/** A pack entry's header (git's pack format): shared by the pack readers and the unpacker of received packs. */

/**
 * The entry at `start`: its type code (1-4 objects, 6 OFS_DELTA, 7 REF_DELTA), its size (of the
 * object, or of the delta data for a delta) and the header's length in bytes.
 */
export function entryHeader(bytes: Uint8Array, start = 0): { typeCode: number; size: number; length: number } {
  let i = start;
  let byte = bytes[i++]!;
  const typeCode = (byte >> 4) & 7;
  let size = byte & 15;
  let shift = 4;
  while (byte & 0x80) {
    byte = bytes[i++]!;
    size += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  }
  return { typeCode, size, length: i - start };
}
