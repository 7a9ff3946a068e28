/** Applies a git delta (pack-format.txt "Deltified representation") to its base. Pure. */
import { ForgeError } from '../errors';

/** A size varint; -1 when it runs past the end or past 2^53. */
function readVarint(delta: Uint8Array, pos: { i: number }): number {
  let result = 0;
  let scale = 1; // 2 ** shift, kept by multiplying (optimized code calls pow() for **)
  let byte: number;
  do {
    if (pos.i >= delta.length || scale > 2 ** 49) return -1;
    byte = delta[pos.i++]!;
    result += (byte & 0x7f) * scale;
    scale *= 128;
  } while (byte & 0x80);
  return result;
}

/** The base and result sizes a delta declares, or null when its header is cut short. */
export function deltaSizes(delta: Uint8Array): { base: number; result: number } | null {
  const pos = { i: 0 };
  const base = readVarint(delta, pos);
  const result = base < 0 ? -1 : readVarint(delta, pos);
  return result < 0 ? null : { base, result };
}

/**
 * The most a delta of this many bytes can produce: one instruction byte copies at most 64 KiB.
 * A declared result beyond it is a lie, refused before the result is allocated.
 */
export function maxDeltaResult(deltaLength: number): number {
  return deltaLength * 0x10000;
}

export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  const pos = { i: 0 };
  const baseSize = readVarint(delta, pos);
  if (baseSize !== base.length) {
    throw new ForgeError('OBJECT_CORRUPT', `Delta expects a base of ${baseSize} bytes but the base has ${base.length}.`);
  }
  const targetSize = readVarint(delta, pos);
  if (targetSize < 0 || targetSize > maxDeltaResult(delta.length - pos.i)) {
    throw new ForgeError('OBJECT_CORRUPT', `Delta declares a result of ${targetSize} bytes that its instructions cannot produce.`);
  }
  const out = new Uint8Array(targetSize);
  let o = 0;
  let i = pos.i;
  while (i < delta.length) {
    const op = delta[i++]!;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      if (op & 0x01) offset |= delta[i++]!;
      if (op & 0x02) offset |= delta[i++]! << 8;
      if (op & 0x04) offset |= delta[i++]! << 16;
      if (op & 0x08) offset += delta[i++]! * 0x1000000;
      if (op & 0x10) size |= delta[i++]!;
      if (op & 0x20) size |= delta[i++]! << 8;
      if (op & 0x40) size |= delta[i++]! << 16;
      if (size === 0) size = 0x10000;
      if (offset + size > base.length || o + size > targetSize) throw new ForgeError('OBJECT_CORRUPT', 'Delta copy instruction is out of bounds.');
      out.set(base.subarray(offset, offset + size), o);
      o += size;
    } else if (op !== 0) {
      if (i + op > delta.length || o + op > targetSize) throw new ForgeError('OBJECT_CORRUPT', 'Delta insert instruction is out of bounds.');
      out.set(delta.subarray(i, i + op), o);
      i += op;
      o += op;
    } else {
      throw new ForgeError('OBJECT_CORRUPT', 'Delta has a reserved zero instruction.');
    }
  }
  if (o !== targetSize) throw new ForgeError('OBJECT_CORRUPT', `Delta produced ${o} bytes, expected ${targetSize}.`);
  return out;
}
