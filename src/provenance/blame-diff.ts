/**
 * The line diff `git blame` takes between a parent's version of a file and the version it
 * blames: xdiff's Myers with the indent heuristic (blame honours diff.indentHeuristic, on by
 * default) and no context, after git's trim of the common tail (xdiff-interface.c
 * trim_common_tail: whole 1 KiB blocks from the end, given back up to the first newline).
 */
import { buildScript, changeCompact, lineIndents, myers, type DiffHunk } from '../branches/xdiff';

const TAIL_BLOCK = 1024;

/** A file's lines as git's diff sees them: classes (equal lines, equal class) and indentation. */
export interface BlameLines {
  bytes: Uint8Array;
  /** Start offset of each line, plus the end of the data. */
  starts: number[];
  classes: Int32Array;
  indents: Int32Array;
}

/** How many bytes at the end of both files blame's diff leaves out (whole lines, common to both). */
export function commonTailBytes(a: Uint8Array, b: Uint8Array): number {
  const smaller = Math.min(a.length, b.length);
  let trimmed = 0;
  while (trimmed + TAIL_BLOCK <= smaller && sameBlock(a, b, trimmed)) trimmed += TAIL_BLOCK;
  let recovered = 0;
  const at = a.length - trimmed;
  while (recovered < trimmed) if (a[at + recovered++] === 10) break;
  return trimmed - recovered;
}

function sameBlock(a: Uint8Array, b: Uint8Array, trimmed: number): boolean {
  const ea = a.length - trimmed - TAIL_BLOCK;
  const eb = b.length - trimmed - TAIL_BLOCK;
  for (let i = 0; i < TAIL_BLOCK; i++) if (a[ea + i] !== b[eb + i]) return false;
  return true;
}

/** The number of lines that start before byte `end`. */
function linesBefore(starts: readonly number[], end: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! < end) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The hunks turning `parent` into `target`, 0-based line numbers, in order. */
export function blameHunks(parent: BlameLines, target: BlameLines): DiffHunk[] {
  const tail = commonTailBytes(parent.bytes, target.bytes);
  // starts ends with the data's length, never below the cut: it is not counted.
  const n1 = linesBefore(parent.starts, parent.bytes.length - tail);
  const n2 = linesBefore(target.starts, target.bytes.length - tail);
  const a = parent.classes.subarray(0, n1);
  const b = target.classes.subarray(0, n2);
  const { rchg1, rchg2 } = myers(a, b);
  changeCompact(a, rchg1, rchg2, parent.indents.subarray(0, n1));
  changeCompact(b, rchg2, rchg1, target.indents.subarray(0, n2));
  return buildScript(n1, n2, rchg1, rchg2);
}

export { lineIndents };
