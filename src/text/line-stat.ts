/**
 * `git diff --stat`'s line counts of two file versions, on their bytes: git's own diff (xdiff's
 * Myers with its cost heuristics, xdiff.ts), so the counts are git's where a minimal diff would
 * differ, with no decoding. Lines are records ending after '\n' (or at the end of the data),
 * compared as bytes, classed through one hash table for both versions. Counting needs no change
 * compaction: sliding a change group keeps its size.
 */
import { myers } from './xdiff';

export interface LineCounts {
  added: number;
  removed: number;
}

export function lineChangeCounts(before: Uint8Array, after: Uint8Array): LineCounts {
  if (sameBytes(before, after)) return { added: 0, removed: 0 };
  const a = lineBounds(before);
  const b = lineBounds(after);
  const table = new LineTable(a.length + b.length - 2);
  const ca = table.classify(before, a);
  const cb = table.classify(after, b);
  const { rchg1, rchg2 } = myers(ca, cb);
  let removed = 0;
  let added = 0;
  for (let i = 1; i <= ca.length; i++) removed += rchg1[i]!;
  for (let i = 1; i <= cb.length; i++) added += rchg2[i]!;
  return { added, removed };
}

function sameBytes(x: Uint8Array, y: Uint8Array): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** The start of each line, then the end of the data. */
function lineBounds(bytes: Uint8Array): Int32Array {
  let lines = 0;
  for (let at = 0; at < bytes.length; ) {
    const nl = bytes.indexOf(10, at);
    lines++;
    at = nl < 0 ? bytes.length : nl + 1;
  }
  const bounds = new Int32Array(lines + 1);
  let n = 0;
  for (let at = 0; at < bytes.length; ) {
    bounds[n++] = at;
    const nl = bytes.indexOf(10, at);
    at = nl < 0 ? bytes.length : nl + 1;
  }
  bounds[n] = bytes.length;
  return bounds;
}

/** Equal lines, equal small integers: open addressing on an FNV-1a hash, bytes compared on a hit. */
class LineTable {
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly hashes: Int32Array;
  private readonly sources: Uint8Array[] = [];
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private count = 0;

  constructor(maxLines: number) {
    let size = 16;
    while (size < 2 * maxLines) size *= 2;
    this.slots = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    this.hashes = new Int32Array(maxLines);
    this.starts = new Int32Array(maxLines);
    this.ends = new Int32Array(maxLines);
  }

  classify(bytes: Uint8Array, bounds: Int32Array): Int32Array {
    const ids = new Int32Array(bounds.length - 1);
    for (let i = 0; i < ids.length; i++) ids[i] = this.idOf(bytes, bounds[i]!, bounds[i + 1]!);
    return ids;
  }

  private idOf(bytes: Uint8Array, start: number, end: number): number {
    let hash = 0x811c9dc5 | 0;
    for (let k = start; k < end; k++) hash = Math.imul(hash ^ bytes[k]!, 16777619);
    const length = end - start;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const id = this.slots[slot]!;
      if (id < 0) {
        const fresh = this.count++;
        this.slots[slot] = fresh;
        this.hashes[fresh] = hash;
        this.sources[fresh] = bytes;
        this.starts[fresh] = start;
        this.ends[fresh] = end;
        return fresh;
      }
      if (this.hashes[id] !== hash || this.ends[id]! - this.starts[id]! !== length) continue;
      const other = this.sources[id]!;
      const at = this.starts[id]!;
      let k = 0;
      while (k < length && other[at + k] === bytes[start + k]) k++;
      if (k === length) return id;
    }
  }
}
