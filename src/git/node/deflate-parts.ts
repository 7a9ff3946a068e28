/**
 * One zlib stream of several byte runs without concatenating them (large objects: a git object
 * is its header and its content, and framing a 100 MB blob to deflate it copied it whole).
 * Each run but the last is raw-deflated with a sync flush, which ends it on a byte boundary
 * with a non-final block, so the next run's raw deflate can follow it: the runs together are one
 * valid deflate stream. Around them: zlib's two-byte header for level 1 (git's level for loose
 * objects) and the Adler-32 of all the bytes.
 */
import { Buffer } from 'node:buffer';
import { constants, deflateRawSync } from 'node:zlib';
import { DEFLATE_LEVEL } from './zlib-contexts';

/** CMF 0x78 (deflate, 32 KiB window), FLG 0x01 (fastest, check bits): 0x7801 % 31 === 0. */
const ZLIB_HEADER = Uint8Array.of(0x78, 0x01);

export function deflateParts(parts: readonly Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [ZLIB_HEADER];
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    out.push(deflateRawSync(part, { level: DEFLATE_LEVEL, finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH }));
  });
  if (parts.length === 0) out.push(deflateRawSync(new Uint8Array(0), { level: DEFLATE_LEVEL }));
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(adler32(parts), 0);
  out.push(checksum);
  return out;
}

/** Adler-32 over the runs in order (RFC 1950), summed in blocks small enough not to overflow. */
export function adler32(parts: readonly Uint8Array[]): number {
  const MOD = 65521;
  const NMAX = 5552;
  let a = 1;
  let b = 0;
  for (const part of parts) {
    let i = 0;
    while (i < part.length) {
      const end = Math.min(part.length, i + NMAX);
      for (; i < end; i++) {
        a += part[i]!;
        b += a;
      }
      a %= MOD;
      b %= MOD;
    }
  }
  return ((b << 16) | a) >>> 0;
}
