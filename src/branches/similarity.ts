/**
 * git's rename similarity (diffcore-delta.c hash_chars/count_changes, diffcore-rename.c
 * estimate_similarity): files are cut into chunks that end at '\n' or after 64 bytes (a CR
 * before LF is skipped in text), each chunk is hashed, and the score is the number of bytes of
 * the destination whose chunks also appear in the source, over the larger size. git calls a
 * deletion plus an addition a rename at 50% (30000 of 60000).
 */
import { isBinary } from './binary';

export const MAX_SCORE = 60000;
export const DEFAULT_RENAME_SCORE = 30000;
const HASHBASE = 107927;

/** hash value -> bytes covered by chunks with that hash. */
export type SpanCounts = Map<number, number>;

export function spanCounts(bytes: Uint8Array): SpanCounts {
  const text = !isBinary(bytes);
  const counts: SpanCounts = new Map();
  let n = 0;
  let accum1 = 0;
  let accum2 = 0;
  const add = () => {
    // (accum1 + accum2 * 0x61) in unsigned 32-bit arithmetic, then mod HASHBASE.
    const hash = ((accum1 + Math.imul(accum2, 0x61)) >>> 0) % HASHBASE;
    counts.set(hash, (counts.get(hash) ?? 0) + n);
    n = 0;
    accum1 = 0;
    accum2 = 0;
  };
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (text && c === 13 && i + 1 < bytes.length && bytes[i + 1] === 10) continue;
    const old1 = accum1;
    accum1 = ((accum1 << 7) ^ (accum2 >>> 25)) >>> 0;
    accum2 = ((accum2 << 7) ^ (old1 >>> 25)) >>> 0;
    accum1 = (accum1 + c) >>> 0;
    if (++n < 64 && c !== 10) continue;
    add();
  }
  if (n > 0) add();
  return counts;
}

/** The similarity score (0..MAX_SCORE) of a destination to a source, both regular files. */
export function similarity(src: Uint8Array, dst: Uint8Array, srcCounts?: SpanCounts, dstCounts?: SpanCounts, minimumScore = DEFAULT_RENAME_SCORE): number {
  const maxSize = Math.max(src.length, dst.length);
  const baseSize = Math.min(src.length, dst.length);
  const delta = maxSize - baseSize;
  if (maxSize * (MAX_SCORE - minimumScore) < delta * MAX_SCORE) return 0;
  if (dst.length === 0) return 0;
  const s = srcCounts ?? spanCounts(src);
  const d = dstCounts ?? spanCounts(dst);
  let copied = 0;
  for (const [hash, count] of s) {
    const other = d.get(hash);
    if (other !== undefined) copied += Math.min(count, other);
  }
  return Math.floor((copied * MAX_SCORE) / maxSize);
}
