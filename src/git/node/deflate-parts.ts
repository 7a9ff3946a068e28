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

/** The size of each raw deflate run. */
const RUN_BYTES = 4 * 1024 * 1024;

export function* deflateParts(parts: readonly Uint8Array[]): Generator<Uint8Array> {
  yield ZLIB_HEADER;
  for (const [i, part] of parts.entries()) {
    const last = i === parts.length - 1;
    // A few MiB at a time, each run's output yielded (and written) before the next is made: zlib's
    // sync call gathers its output in 16 KiB chunks and concatenates them, so one call on a 50 MB
    // part held its whole output twice, and all of it until the file was written.
    for (let at = 0; at < part.length || (at === 0 && last); at += RUN_BYTES) {
      const end = Math.min(part.length, at + RUN_BYTES);
      const flush = last && end === part.length ? constants.Z_FINISH : constants.Z_SYNC_FLUSH;
      yield deflateRawSync(part.subarray(at, end), { level: DEFLATE_LEVEL, finishFlush: flush });
    }
  }
  if (parts.length === 0) yield deflateRawSync(new Uint8Array(0), { level: DEFLATE_LEVEL });
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(adler32(parts), 0);
  yield checksum;
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
