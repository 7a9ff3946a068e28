/**
 * A Bloom filter of the paths a commit changed against its first parent, as git's commit-graph
 * keeps them (commit-graph.txt, "changed-path Bloom filters"): every changed file's path and
 * each of its leading directories, 10 bits per entry, 7 hashes from two murmur3 seeds. A path
 * the filter does not hold (or one of whose directories it does not hold) was surely unchanged;
 * one it holds may have changed (a false positive only costs reading the trees). A commit that
 * changed more than `MAX_CHANGED_PATHS` keeps no bits: everything may have changed. Pure.
 */

export const MAX_CHANGED_PATHS = 512;
const BITS_PER_ENTRY = 10;
const HASHES = 7;
const SEED_0 = 0x293ae76f;
const SEED_1 = 0x7e646e2c;
const encoder = new TextEncoder();

/** Bits of a filter; `null` bits: too many changes, every path may have changed. */
export type ChangedPathFilter = Uint8Array | null;

/** murmur3's 32-bit hash of `data` (x86 variant, as git's bloom.c). */
export function murmur3(seed: number, data: Uint8Array): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h = seed >>> 0;
  const blocks = data.length >>> 2;
  for (let i = 0; i < blocks; i++) {
    let k = data[i * 4]! | (data[i * 4 + 1]! << 8) | (data[i * 4 + 2]! << 16) | (data[i * 4 + 3]! << 24);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = blocks * 4;
  const rest = data.length & 3;
  if (rest > 0) {
    let k = 0;
    if (rest === 3) k ^= data[tail + 2]! << 16;
    if (rest >= 2) k ^= data[tail + 1]! << 8;
    k ^= data[tail]!;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
  }
  h ^= data.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Every path and each of its leading directories (`a/b/c` -> `a`, `a/b`, `a/b/c`), once. */
export function withDirectories(paths: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const path of paths) {
    let slash = path.indexOf('/');
    while (slash >= 0) {
      out.add(path.slice(0, slash));
      slash = path.indexOf('/', slash + 1);
    }
    out.add(path);
  }
  return out;
}

function bitPositions(path: string, bits: number): number[] {
  const bytes = encoder.encode(path);
  const h0 = murmur3(SEED_0, bytes);
  const h1 = murmur3(SEED_1, bytes);
  const out: number[] = new Array(HASHES);
  for (let i = 0; i < HASHES; i++) out[i] = ((h0 + Math.imul(i, h1)) >>> 0) % bits;
  return out;
}

/** The filter of a commit's changed file paths (their directories are added here); null: too many. */
export function buildChangedPathFilter(changedFiles: readonly string[] | null): ChangedPathFilter {
  if (changedFiles === null) return null;
  const entries = withDirectories(changedFiles);
  if (entries.size > MAX_CHANGED_PATHS) return null;
  const filter = new Uint8Array(Math.max(1, Math.ceil((entries.size * BITS_PER_ENTRY) / 8)));
  const bits = filter.length * 8;
  for (const entry of entries) for (const p of bitPositions(entry, bits)) filter[p >>> 3] = filter[p >>> 3]! | (1 << (p & 7));
  return filter;
}

function holds(filter: Uint8Array, entry: string): boolean {
  const bits = filter.length * 8;
  for (const p of bitPositions(entry, bits)) if ((filter[p >>> 3]! & (1 << (p & 7))) === 0) return false;
  return true;
}

/** True when `path` may have changed; false only when it surely did not (no false negatives). */
export function mayHaveChanged(filter: ChangedPathFilter, path: string): boolean {
  if (filter === null) return true;
  let slash = path.indexOf('/');
  while (slash >= 0) {
    if (!holds(filter, path.slice(0, slash))) return false;
    slash = path.indexOf('/', slash + 1);
  }
  return holds(filter, path);
}
