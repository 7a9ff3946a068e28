/**
 * `git diff --stat`'s line counts of two file versions, on their bytes: git's own diff (xdiff's
 * Myers with its cost heuristics, xdiff.ts), so the counts are git's where a minimal diff would
 * differ. Lines are records ending after '\n' (or at the end of the data), compared as bytes
 * (classed by xdiff.ts's LineClassifier: UTF-8 decoded natively and looked up as strings, which
 * in a fresh process beat hashing bytes in a loop not yet compiled). Counting needs no change
 * compaction: sliding a change group keeps its size.
 */
import { LineClassifier, lineStarts, myers } from './xdiff';

export interface LineCounts {
  added: number;
  removed: number;
}

export function lineChangeCounts(before: Uint8Array, after: Uint8Array): LineCounts {
  const x = plain(before);
  const y = plain(after);
  if (sameBytes(x, y)) return { added: 0, removed: 0 };
  const classes = new LineClassifier();
  const a = classes.classify(x, lineStarts(x));
  const b = classes.classify(y, lineStarts(y));
  const { rchg1, rchg2 } = myers(a, b);
  let removed = 0;
  let added = 0;
  for (let i = 1; i <= a.length; i++) removed += rchg1[i]!;
  for (let i = 1; i <= b.length; i++) added += rchg2[i]!;
  return { added, removed };
}

/** A plain Uint8Array view: Node's Buffer.indexOf goes through a slower JavaScript wrapper. */
function plain(bytes: Uint8Array): Uint8Array {
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function sameBytes(x: Uint8Array, y: Uint8Array): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
