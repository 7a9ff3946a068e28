/**
 * Line diffs the way git's merge computes them, so that a clean merge is byte-for-byte git's.
 *
 * merge-ort hard-codes the HISTOGRAM algorithm for content merges (merge-ort.c merge_start:
 * `opt->xdl_opts = DIFF_WITH_ALG(opt, HISTOGRAM_DIFF)`), without the indent heuristic. This is a
 * port of xdiff's xhistogram.c, of the classic Myers diff it falls back to when every common
 * line is too frequent (xdiffi.c xdl_recs_cmp/xdl_split with xprepare.c's trimming and
 * discarding of unmatched lines), of xdl_change_compact (sliding change groups) and of
 * xdl_build_script. Lines are records ending after '\n' (or at the end of the file) and are
 * compared as bytes; callers pass them as integer classes (equal lines, equal class).
 * Not reproduced: xhistogram's failure when 64 distinct lines share one hash bucket (git then
 * aborts the merge; we diff on).
 */

/** One change: lines [i1, i1 + chg1) of the old file became [i2, i2 + chg2) of the new one (0-based). */
export interface DiffHunk {
  i1: number;
  chg1: number;
  i2: number;
  chg2: number;
}

/** Splits bytes into line records: the start offset of each line, plus the end of the data. */
export function lineStarts(bytes: Uint8Array): number[] {
  const starts: number[] = [];
  let start = 0;
  while (start < bytes.length) {
    starts.push(start);
    const nl = bytes.indexOf(10, start);
    start = nl < 0 ? bytes.length : nl + 1;
  }
  starts.push(bytes.length);
  return starts;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Gives equal lines equal small integers, across every file classified with the same instance.
 * Valid UTF-8 (nearly every text) is decoded natively and its lines looked up as strings (UTF-8
 * is one-to-one, so equal strings mean equal bytes); other bytes are hashed (FNV-1a) and
 * compared byte for byte within a bucket. A last line without its newline is never equal to the
 * same text with one, as in xdiff, whose records include the newline.
 */
export class LineClassifier {
  private readonly byText = new Map<string, number>();
  private readonly byTextNoNewline = new Map<string, number>();
  private readonly buckets = new Map<number, number[]>();
  private readonly byteLines: Array<Uint8Array | undefined> = [];
  private count = 0;

  /** Class ids of the lines of `bytes` (split at `starts`). */
  classify(bytes: Uint8Array, starts: readonly number[]): Int32Array {
    const ids = new Int32Array(starts.length - 1);
    let text: string | null = null;
    try {
      text = utf8.decode(bytes);
    } catch {
      text = null;
    }
    if (text === null) return this.classifyBytes(bytes, starts, ids);
    const parts = text.split('\n');
    const endsWithNewline = bytes.length > 0 && bytes[bytes.length - 1] === 10;
    for (let i = 0; i < ids.length; i++) {
      const map = i === ids.length - 1 && !endsWithNewline ? this.byTextNoNewline : this.byText;
      const key = parts[i]!;
      let id = map.get(key);
      if (id === undefined) {
        id = this.count++;
        map.set(key, id);
        this.byteLines.push(undefined);
      }
      ids[i] = id;
    }
    return ids;
  }

  /** Lines of bytes that are not UTF-8: hashed and compared as bytes. */
  private classifyBytes(bytes: Uint8Array, starts: readonly number[], ids: Int32Array): Int32Array {
    for (let i = 0; i < ids.length; i++) {
      const start = starts[i]!;
      const end = starts[i + 1]!;
      let hash = 0x811c9dc5;
      for (let at = start; at < end; at++) hash = Math.imul(hash ^ bytes[at]!, 0x01000193);
      let bucket = this.buckets.get(hash);
      let id = -1;
      if (bucket === undefined) {
        bucket = [];
        this.buckets.set(hash, bucket);
      } else {
        for (const candidate of bucket) {
          if (sameBytes(this.byteLines[candidate]!, bytes, start, end)) {
            id = candidate;
            break;
          }
        }
      }
      if (id < 0) {
        // A line that is valid UTF-8 on its own is keyed by its text, so it matches the same line of a UTF-8 file.
        const line = bytes.slice(start, end);
        let lineText: string | null = null;
        try {
          lineText = utf8.decode(line);
        } catch {
          lineText = null;
        }
        if (lineText !== null) {
          const newline = lineText.endsWith('\n');
          const map = newline ? this.byText : this.byTextNoNewline;
          const key = newline ? lineText.slice(0, -1) : lineText;
          id = map.get(key) ?? -1;
          if (id < 0) {
            id = this.count++;
            map.set(key, id);
            this.byteLines.push(undefined);
          }
        } else {
          id = this.count++;
          this.byteLines.push(line);
          bucket.push(id);
        }
      }
      ids[i] = id;
    }
    return ids;
  }
}

function sameBytes(line: Uint8Array, bytes: Uint8Array, start: number, end: number): boolean {
  if (line.length !== end - start) return false;
  for (let k = 0; k < line.length; k++) if (line[k] !== bytes[start + k]) return false;
  return true;
}

/**
 * The hunks turning `a` into `b` (histogram diff, compacted as git does). `a` and `b` are line
 * classes; hunks are in order.
 */
export function diffLines(a: Int32Array, b: Int32Array): DiffHunk[] {
  // changed flags with a zero sentinel before the first and after the last line (index i + 1).
  const rchg1 = new Uint8Array(a.length + 2);
  const rchg2 = new Uint8Array(b.length + 2);
  histogram({ a, b, rchg1, rchg2 }, 1, a.length, 1, b.length);
  changeCompact(a, rchg1, rchg2);
  changeCompact(b, rchg2, rchg1);
  return buildScript(a.length, b.length, rchg1, rchg2);
}

// ---------- histogram (xhistogram.c) ----------

interface Env {
  a: Int32Array;
  b: Int32Array;
  rchg1: Uint8Array;
  rchg2: Uint8Array;
}

interface Occurrences {
  /** First (lowest) line of A holding this record. */
  ptr: number;
  cnt: number;
}

const MAX_CHAIN_LENGTH = 64;

interface Lcs {
  begin1: number;
  end1: number;
  begin2: number;
  end2: number;
}

/** Lines are 1-based here, as in xhistogram.c. */
function histogram(env: Env, line1: number, count1: number, line2: number, count2: number): void {
  for (;;) {
    if (count1 <= 0 && count2 <= 0) return;
    if (count1 === 0) {
      for (let i = 0; i < count2; i++) env.rchg2[line2 + i] = 1;
      return;
    }
    if (count2 === 0) {
      for (let i = 0; i < count1; i++) env.rchg1[line1 + i] = 1;
      return;
    }
    const lcs: Lcs = { begin1: 0, end1: 0, begin2: 0, end2: 0 };
    const found = findLcs(env, lcs, line1, count1, line2, count2);
    if (found) {
      fallBackToMyers(env, line1, count1, line2, count2);
      return;
    }
    if (lcs.begin1 === 0 && lcs.begin2 === 0) {
      for (let i = 0; i < count1; i++) env.rchg1[line1 + i] = 1;
      for (let i = 0; i < count2; i++) env.rchg2[line2 + i] = 1;
      return;
    }
    histogram(env, line1, lcs.begin1 - line1, line2, lcs.begin2 - line2);
    const end1 = line1 + count1 - 1;
    const end2 = line2 + count2 - 1;
    count1 = end1 - lcs.end1;
    line1 = lcs.end1 + 1;
    count2 = end2 - lcs.end2;
    line2 = lcs.end2 + 1;
  }
}

/** true: fall back to the classic diff (every common line is too frequent). */
function findLcs(env: Env, lcs: Lcs, line1: number, count1: number, line2: number, count2: number): boolean {
  const { a, b } = env;
  const end1 = line1 + count1 - 1;
  const end2 = line2 + count2 - 1;
  const records = new Map<number, Occurrences>();
  const nextPtrs = new Int32Array(count1);
  const lineMap: Occurrences[] = new Array(count1);
  // scanA: from the last line up, so each record's chain lists its lines in ascending order.
  for (let ptr = end1; ptr >= line1; ptr--) {
    const id = a[ptr - 1]!;
    let rec = records.get(id);
    if (rec !== undefined) {
      nextPtrs[ptr - line1] = rec.ptr;
      rec.ptr = ptr;
      rec.cnt++;
    } else {
      rec = { ptr, cnt: 1 };
      records.set(id, rec);
    }
    lineMap[ptr - line1] = rec;
  }
  let indexCnt = MAX_CHAIN_LENGTH + 1;
  let hasCommon = false;
  for (let bPtr = line2; bPtr <= end2; ) {
    let bNext = bPtr + 1;
    const rec = records.get(b[bPtr - 1]!);
    if (rec !== undefined) {
      if (rec.cnt > indexCnt) {
        hasCommon = true;
      } else {
        hasCommon = true;
        let as = rec.ptr;
        for (;;) {
          const np0 = nextPtrs[as - line1]!;
          let bs = bPtr;
          let ae = as;
          let be = bs;
          let rc = rec.cnt;
          while (line1 < as && line2 < bs && a[as - 2] === b[bs - 2]) {
            as--;
            bs--;
            if (1 < rc) rc = Math.min(rc, lineMap[as - line1]!.cnt);
          }
          while (ae < end1 && be < end2 && a[ae] === b[be]) {
            ae++;
            be++;
            if (1 < rc) rc = Math.min(rc, lineMap[ae - line1]!.cnt);
          }
          if (bNext <= be) bNext = be + 1;
          if (lcs.end1 - lcs.begin1 < ae - as || rc < indexCnt) {
            lcs.begin1 = as;
            lcs.begin2 = bs;
            lcs.end1 = ae;
            lcs.end2 = be;
            indexCnt = rc;
          }
          let np = np0;
          if (np === 0) break;
          while (np <= ae) {
            np = nextPtrs[np - line1]!;
            if (np === 0) break;
          }
          if (np === 0) break;
          as = np;
        }
      }
    }
    bPtr = bNext;
  }
  return hasCommon && MAX_CHAIN_LENGTH < indexCnt;
}

/** xdl_fall_back_diff: the classic diff of the two ranges, as if they were whole files. */
function fallBackToMyers(env: Env, line1: number, count1: number, line2: number, count2: number): void {
  const a = env.a.subarray(line1 - 1, line1 - 1 + count1);
  const b = env.b.subarray(line2 - 1, line2 - 1 + count2);
  const { rchg1, rchg2 } = myers(a, b);
  env.rchg1.set(rchg1.subarray(1, count1 + 1), line1);
  env.rchg2.set(rchg2.subarray(1, count2 + 1), line2);
}

// ---------- classic Myers (xprepare.c + xdiffi.c) ----------

const XDL_MAX_EQLIMIT = 1024;
const XDL_SIMSCAN_WINDOW = 100;
const XDL_KPDIS_RUN = 4;
const XDL_MAX_COST_MIN = 256;
const XDL_HEUR_MIN_COST = 256;
const XDL_SNAKE_CNT = 20;
const XDL_K_HEUR = 4;
const XDL_LINE_MAX = Number.MAX_SAFE_INTEGER;

export function bogosqrt(n: number): number {
  let i = 1;
  for (; n > 0; n = Math.floor(n / 4)) i *= 2;
  return i;
}

/**
 * What the classic diff needs of the whole files when it is given only the lines between their
 * common prefix and suffix (line-stat.ts cuts those off first): each file's line count, and how
 * often each class occurs in the other whole file, at least up to `bogosqrt` of the line count.
 */
export interface WholeFiles {
  lines1: number;
  lines2: number;
  /** Occurrences in the whole second file of a class of the first, and the reverse. */
  inFile2: Counts;
  inFile1: Counts;
}

/** The classic diff of two whole files: changed flags (index i + 1 for line i). */
export function myers(a: Int32Array, b: Int32Array, whole?: WholeFiles): { rchg1: Uint8Array; rchg2: Uint8Array } {
  const n1 = a.length;
  const n2 = b.length;
  const rchg1 = new Uint8Array(n1 + 2);
  const rchg2 = new Uint8Array(n2 + 2);
  // xdl_trim_ends
  const lim = Math.min(n1, n2);
  let start = 0;
  while (start < lim && a[start] === b[start]) start++;
  let tail = 0;
  while (tail < lim - start && a[n1 - 1 - tail] === b[n2 - 1 - tail]) tail++;
  const dend1 = n1 - tail - 1;
  const dend2 = n2 - tail - 1;
  // xdl_cleanup_records
  const countA = whole?.inFile1 ?? occurrences(a, b);
  const countB = whole?.inFile2 ?? occurrences(b, a);
  const keep1 = discard(a, start, dend1, countB, Math.min(bogosqrt(whole?.lines1 ?? n1), XDL_MAX_EQLIMIT), rchg1);
  const keep2 = discard(b, start, dend2, countA, Math.min(bogosqrt(whole?.lines2 ?? n2), XDL_MAX_EQLIMIT), rchg2);
  const ha1 = new Int32Array(keep1.length);
  const ha2 = new Int32Array(keep2.length);
  for (let i = 0; i < keep1.length; i++) ha1[i] = a[keep1[i]!]!;
  for (let i = 0; i < keep2.length; i++) ha2[i] = b[keep2[i]!]!;
  const ndiags = keep1.length + keep2.length + 3;
  const ctx: MyersContext = {
    ha1,
    ha2,
    keep1,
    keep2,
    rchg1,
    rchg2,
    kvdf: new Float64Array(ndiags),
    kvdb: new Float64Array(ndiags),
    koff: keep2.length + 1,
    mxcost: Math.max(bogosqrt(ndiags), XDL_MAX_COST_MIN),
  };
  recsCmp(ctx, 0, keep1.length, 0, keep2.length, false);
  return { rchg1, rchg2 };
}

export type Counts = { get(line: number): number | undefined };

/**
 * How often each line class occurs in `recs`. Classes are small dense integers (a classifier's
 * ids), so a typed array indexed by class is used when it stays small beside the files; a Map
 * otherwise. (Counting was a quarter of a blame's time with Maps.)
 */
function occurrences(recs: Int32Array, other: Int32Array): Counts {
  let max = -1;
  for (let i = 0; i < recs.length; i++) if (recs[i]! > max) max = recs[i]!;
  for (let i = 0; i < other.length; i++) if (other[i]! > max) max = other[i]!;
  if (max >= 0 && max < 8 * (recs.length + other.length) + 4096) {
    const counts = new Int32Array(max + 1);
    for (let i = 0; i < recs.length; i++) counts[recs[i]!]!++;
    return { get: (line) => (line >= 0 && line <= max ? counts[line] : undefined) };
  }
  const counts = new Map<number, number>();
  for (let i = 0; i < recs.length; i++) counts.set(recs[i]!, (counts.get(recs[i]!) ?? 0) + 1);
  return counts;
}

/** Lines of [dstart, dend] worth diffing (their indexes); the others are marked changed outright. */
function discard(recs: Int32Array, dstart: number, dend: number, otherCount: Counts, mlim: number, rchg: Uint8Array): number[] {
  const dis = new Uint8Array(recs.length + 1);
  for (let i = dstart; i <= dend; i++) {
    const nm = otherCount.get(recs[i]!) ?? 0;
    dis[i] = nm === 0 ? 0 : nm >= mlim ? 2 : 1;
  }
  const keep: number[] = [];
  for (let i = dstart; i <= dend; i++) {
    if (dis[i] === 1 || (dis[i] === 2 && !cleanMultiMatch(dis, i, dstart, dend))) keep.push(i);
    else rchg[i + 1] = 1;
  }
  return keep;
}

/** xdl_clean_mmatch: whether a line with many matches sits in a run of unmatched lines. */
function cleanMultiMatch(dis: Uint8Array, i: number, s: number, e: number): boolean {
  if (i - s > XDL_SIMSCAN_WINDOW) s = i - XDL_SIMSCAN_WINDOW;
  if (e - i > XDL_SIMSCAN_WINDOW) e = i + XDL_SIMSCAN_WINDOW;
  let rdis0 = 0;
  let rpdis0 = 1;
  for (let r = 1; i - r >= s; r++) {
    const d = dis[i - r];
    if (!d) rdis0++;
    else if (d === 2) rpdis0++;
    else break;
  }
  if (rdis0 === 0) return false;
  let rdis1 = 0;
  let rpdis1 = 1;
  for (let r = 1; i + r <= e; r++) {
    const d = dis[i + r];
    if (!d) rdis1++;
    else if (d === 2) rpdis1++;
    else break;
  }
  if (rdis1 === 0) return false;
  rdis1 += rdis0;
  rpdis1 += rpdis0;
  return rpdis1 * XDL_KPDIS_RUN < rpdis1 + rdis1;
}

interface MyersContext {
  ha1: Int32Array;
  ha2: Int32Array;
  keep1: number[];
  keep2: number[];
  rchg1: Uint8Array;
  rchg2: Uint8Array;
  kvdf: Float64Array;
  kvdb: Float64Array;
  /** Offset of diagonal 0 in kvdf/kvdb (diagonals go negative). */
  koff: number;
  mxcost: number;
}

interface Split {
  i1: number;
  i2: number;
  minLo: boolean;
  minHi: boolean;
}

function recsCmp(ctx: MyersContext, off1: number, lim1: number, off2: number, lim2: number, needMin: boolean): void {
  const { ha1, ha2 } = ctx;
  // Iterative on the upper half, recursive on the lower, as deep as the C recursion goes.
  for (;;) {
    while (off1 < lim1 && off2 < lim2 && ha1[off1] === ha2[off2]) {
      off1++;
      off2++;
    }
    while (off1 < lim1 && off2 < lim2 && ha1[lim1 - 1] === ha2[lim2 - 1]) {
      lim1--;
      lim2--;
    }
    if (off1 === lim1) {
      for (; off2 < lim2; off2++) ctx.rchg2[ctx.keep2[off2]! + 1] = 1;
      return;
    }
    if (off2 === lim2) {
      for (; off1 < lim1; off1++) ctx.rchg1[ctx.keep1[off1]! + 1] = 1;
      return;
    }
    const spl = split(ctx, off1, lim1, off2, lim2, needMin);
    recsCmp(ctx, off1, spl.i1, off2, spl.i2, spl.minLo);
    off1 = spl.i1;
    off2 = spl.i2;
    needMin = spl.minHi;
  }
}

function split(ctx: MyersContext, off1: number, lim1: number, off2: number, lim2: number, needMin: boolean): Split {
  const { ha1, ha2, kvdf, kvdb, koff } = ctx;
  const dmin = off1 - lim2;
  const dmax = lim1 - off2;
  const fmid = off1 - off2;
  const bmid = lim1 - lim2;
  const odd = ((fmid - bmid) & 1) !== 0;
  let fmin = fmid;
  let fmax = fmid;
  let bmin = bmid;
  let bmax = bmid;
  kvdf[fmid + koff] = off1;
  kvdb[bmid + koff] = lim1;
  for (let ec = 1; ; ec++) {
    let gotSnake = false;
    if (fmin > dmin) kvdf[--fmin - 1 + koff] = -1;
    else ++fmin;
    if (fmax < dmax) kvdf[++fmax + 1 + koff] = -1;
    else --fmax;
    for (let d = fmax; d >= fmin; d -= 2) {
      let i1: number;
      if (kvdf[d - 1 + koff]! >= kvdf[d + 1 + koff]!) i1 = kvdf[d - 1 + koff]! + 1;
      else i1 = kvdf[d + 1 + koff]!;
      const prev1 = i1;
      let i2 = i1 - d;
      while (i1 < lim1 && i2 < lim2 && ha1[i1] === ha2[i2]) {
        i1++;
        i2++;
      }
      if (i1 - prev1 > XDL_SNAKE_CNT) gotSnake = true;
      kvdf[d + koff] = i1;
      if (odd && bmin <= d && d <= bmax && kvdb[d + koff]! <= i1) return { i1, i2, minLo: true, minHi: true };
    }
    if (bmin > dmin) kvdb[--bmin - 1 + koff] = XDL_LINE_MAX;
    else ++bmin;
    if (bmax < dmax) kvdb[++bmax + 1 + koff] = XDL_LINE_MAX;
    else --bmax;
    for (let d = bmax; d >= bmin; d -= 2) {
      let i1: number;
      if (kvdb[d - 1 + koff]! < kvdb[d + 1 + koff]!) i1 = kvdb[d - 1 + koff]!;
      else i1 = kvdb[d + 1 + koff]! - 1;
      const prev1 = i1;
      let i2 = i1 - d;
      while (i1 > off1 && i2 > off2 && ha1[i1 - 1] === ha2[i2 - 1]) {
        i1--;
        i2--;
      }
      if (prev1 - i1 > XDL_SNAKE_CNT) gotSnake = true;
      kvdb[d + koff] = i1;
      if (!odd && fmin <= d && d <= fmax && i1 <= kvdf[d + koff]!) return { i1, i2, minLo: true, minHi: true };
    }
    if (needMin) continue;
    if (gotSnake && ec > XDL_HEUR_MIN_COST) {
      let best = 0;
      let found: Split | null = null;
      for (let d = fmax; d >= fmin; d -= 2) {
        const dd = d > fmid ? d - fmid : fmid - d;
        const i1 = kvdf[d + koff]!;
        const i2 = i1 - d;
        const v = i1 - off1 + (i2 - off2) - dd;
        if (v > XDL_K_HEUR * ec && v > best && off1 + XDL_SNAKE_CNT <= i1 && i1 < lim1 && off2 + XDL_SNAKE_CNT <= i2 && i2 < lim2) {
          for (let k = 1; ha1[i1 - k] === ha2[i2 - k]; k++) {
            if (k === XDL_SNAKE_CNT) {
              best = v;
              found = { i1, i2, minLo: true, minHi: false };
              break;
            }
          }
        }
      }
      if (best > 0) return found!;
      best = 0;
      for (let d = bmax; d >= bmin; d -= 2) {
        const dd = d > bmid ? d - bmid : bmid - d;
        const i1 = kvdb[d + koff]!;
        const i2 = i1 - d;
        const v = lim1 - i1 + (lim2 - i2) - dd;
        if (v > XDL_K_HEUR * ec && v > best && off1 < i1 && i1 <= lim1 - XDL_SNAKE_CNT && off2 < i2 && i2 <= lim2 - XDL_SNAKE_CNT) {
          for (let k = 0; ha1[i1 + k] === ha2[i2 + k]; k++) {
            if (k === XDL_SNAKE_CNT - 1) {
              best = v;
              found = { i1, i2, minLo: false, minHi: true };
              break;
            }
          }
        }
      }
      if (best > 0) return found!;
    }
    if (ec >= ctx.mxcost) {
      let fbest = -1;
      let fbest1 = -1;
      for (let d = fmax; d >= fmin; d -= 2) {
        let i1 = Math.min(kvdf[d + koff]!, lim1);
        let i2 = i1 - d;
        if (lim2 < i2) {
          i1 = lim2 + d;
          i2 = lim2;
        }
        if (fbest < i1 + i2) {
          fbest = i1 + i2;
          fbest1 = i1;
        }
      }
      let bbest = XDL_LINE_MAX;
      let bbest1 = XDL_LINE_MAX;
      for (let d = bmax; d >= bmin; d -= 2) {
        let i1 = Math.max(off1, kvdb[d + koff]!);
        let i2 = i1 - d;
        if (i2 < off2) {
          i1 = off2 + d;
          i2 = off2;
        }
        if (i1 + i2 < bbest) {
          bbest = i1 + i2;
          bbest1 = i1;
        }
      }
      if (lim1 + lim2 - bbest < fbest - (off1 + off2)) return { i1: fbest1, i2: fbest - fbest1, minLo: true, minHi: false };
      return { i1: bbest1, i2: bbest - bbest1, minLo: false, minHi: true };
    }
  }
}

// ---------- compaction and the edit script (xdiffi.c) ----------

interface Group {
  start: number;
  end: number;
}

/**
 * Slides change groups as git does. rchg is offset by one. Merges do not set the indent
 * heuristic; `git diff` and `git blame` do (diff.indentHeuristic defaults to true): pass each
 * line's indentation (`lineIndents`) to slide a free group to the split git would choose.
 */
export function changeCompact(recs: Int32Array, rchg: Uint8Array, rchgo: Uint8Array, indents?: Int32Array): void {
  const nrec = recs.length;
  const nreco = rchgo.length - 2;
  const changed = (flags: Uint8Array, i: number) => flags[i + 1] === 1;
  const init = (flags: Uint8Array): Group => {
    const g = { start: 0, end: 0 };
    while (changed(flags, g.end)) g.end++;
    return g;
  };
  const next = (flags: Uint8Array, n: number, g: Group): boolean => {
    if (g.end === n) return false;
    g.start = g.end + 1;
    for (g.end = g.start; changed(flags, g.end); g.end++);
    return true;
  };
  const previous = (flags: Uint8Array, g: Group): boolean => {
    if (g.start === 0) return false;
    g.end = g.start - 1;
    for (g.start = g.end; changed(flags, g.start - 1); g.start--);
    return true;
  };
  const slideDown = (g: Group): boolean => {
    if (g.end < nrec && recs[g.start] === recs[g.end]) {
      rchg[g.start++ + 1] = 0;
      rchg[g.end++ + 1] = 1;
      while (changed(rchg, g.end)) g.end++;
      return true;
    }
    return false;
  };
  const slideUp = (g: Group): boolean => {
    if (g.start > 0 && recs[g.start - 1] === recs[g.end - 1]) {
      rchg[--g.start + 1] = 1;
      rchg[--g.end + 1] = 0;
      while (changed(rchg, g.start - 1)) g.start--;
      return true;
    }
    return false;
  };

  const g = init(rchg);
  const go = init(rchgo);
  for (;;) {
    if (g.end !== g.start) {
      let groupsize: number;
      let earliestEnd: number;
      let endMatchingOther: number;
      do {
        groupsize = g.end - g.start;
        endMatchingOther = -1;
        while (slideUp(g)) if (!previous(rchgo, go)) throw new Error('xdiff: group sync broken sliding up');
        earliestEnd = g.end;
        if (go.end > go.start) endMatchingOther = g.end;
        for (;;) {
          if (!slideDown(g)) break;
          if (!next(rchgo, nreco, go)) throw new Error('xdiff: group sync broken sliding down');
          if (go.end > go.start) endMatchingOther = g.end;
        }
      } while (groupsize !== g.end - g.start);
      if (g.end !== earliestEnd && endMatchingOther !== -1) {
        while (go.end === go.start) {
          if (!slideUp(g)) throw new Error('xdiff: match disappeared');
          if (!previous(rchgo, go)) throw new Error('xdiff: group sync broken sliding to match');
        }
      } else if (g.end !== earliestEnd && indents) {
        const best = bestIndentShift(indents, g.end, groupsize, earliestEnd);
        while (g.end > best) {
          if (!slideUp(g)) throw new Error('xdiff: best shift unreached');
          if (!previous(rchgo, go)) throw new Error('xdiff: group sync broken sliding to best shift');
        }
      }
    }
    if (!next(rchg, nrec, g)) break;
    if (!next(rchgo, nreco, go)) throw new Error('xdiff: group sync broken moving to next group');
  }
}

// ---------- the indent heuristic (xdiffi.c, diff.indentHeuristic) ----------

const MAX_INDENT = 200;
const MAX_BLANKS = 20;
const INDENT_HEURISTIC_MAX_SLIDING = 100;
// git's empirically tuned weights: a smaller score is a better place for a group to start or end.
const START_OF_FILE_PENALTY = 1;
const END_OF_FILE_PENALTY = 21;
const TOTAL_BLANK_WEIGHT = -30;
const POST_BLANK_WEIGHT = 6;
const RELATIVE_INDENT_PENALTY = -4;
const RELATIVE_INDENT_WITH_BLANK_PENALTY = 10;
const RELATIVE_OUTDENT_PENALTY = 24;
const RELATIVE_OUTDENT_WITH_BLANK_PENALTY = 17;
const RELATIVE_DEDENT_PENALTY = 23;
const RELATIVE_DEDENT_WITH_BLANK_PENALTY = 17;
const INDENT_WEIGHT = 60;

/** Each line's indentation in columns (a tab to the next multiple of 8), -1 for a blank line. */
export function lineIndents(bytes: Uint8Array, starts: readonly number[]): Int32Array {
  const out = new Int32Array(starts.length - 1);
  for (let i = 0; i < out.length; i++) {
    let columns = 0;
    let indent = -1;
    for (let at = starts[i]!; at < starts[i + 1]!; at++) {
      const c = bytes[at]!;
      // git's own isspace (ctype.c): space, \t, \n and \r only; space and tab add columns.
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) {
        indent = columns;
        break;
      }
      if (c === 32) columns += 1;
      else if (c === 9) columns += 8 - (columns % 8);
      if (columns >= MAX_INDENT) {
        indent = MAX_INDENT;
        break;
      }
    }
    out[i] = indent;
  }
  return out;
}

interface SplitScore {
  effectiveIndent: number;
  penalty: number;
}

/** Adds the badness of splitting the file just above line `split` to `score`. */
function scoreSplit(indents: Int32Array, split: number, score: SplitScore): void {
  const n = indents.length;
  const endOfFile = split >= n;
  const indentHere = endOfFile ? -1 : indents[split]!;
  let preBlank = 0;
  let preIndent = -1;
  for (let i = split - 1; i >= 0; i--) {
    preIndent = indents[i]!;
    if (preIndent !== -1) break;
    if (++preBlank === MAX_BLANKS) {
      preIndent = 0;
      break;
    }
  }
  let postBlankAfter = 0;
  let postIndent = -1;
  for (let i = split + 1; i < n; i++) {
    postIndent = indents[i]!;
    if (postIndent !== -1) break;
    if (++postBlankAfter === MAX_BLANKS) {
      postIndent = 0;
      break;
    }
  }
  if (preIndent === -1 && preBlank === 0) score.penalty += START_OF_FILE_PENALTY;
  if (endOfFile) score.penalty += END_OF_FILE_PENALTY;
  const postBlank = indentHere === -1 ? 1 + postBlankAfter : 0;
  const totalBlank = preBlank + postBlank;
  score.penalty += TOTAL_BLANK_WEIGHT * totalBlank + POST_BLANK_WEIGHT * postBlank;
  const indent = indentHere !== -1 ? indentHere : postIndent;
  const anyBlanks = totalBlank !== 0;
  score.effectiveIndent += indent;
  if (indent === -1 || preIndent === -1 || indent === preIndent) return;
  if (indent > preIndent) score.penalty += anyBlanks ? RELATIVE_INDENT_WITH_BLANK_PENALTY : RELATIVE_INDENT_PENALTY;
  else if (postIndent !== -1 && postIndent > indent) score.penalty += anyBlanks ? RELATIVE_OUTDENT_WITH_BLANK_PENALTY : RELATIVE_OUTDENT_PENALTY;
  else score.penalty += anyBlanks ? RELATIVE_DEDENT_WITH_BLANK_PENALTY : RELATIVE_DEDENT_PENALTY;
}

function compareScores(a: SplitScore, b: SplitScore): number {
  const byIndent = Number(a.effectiveIndent > b.effectiveIndent) - Number(a.effectiveIndent < b.effectiveIndent);
  return INDENT_WEIGHT * byIndent + (a.penalty - b.penalty);
}

/** The end the group (slid fully down to `end`) should have: the lowest score, the last on ties. */
function bestIndentShift(indents: Int32Array, end: number, groupsize: number, earliestEnd: number): number {
  const first = Math.max(earliestEnd, end - groupsize - 1, end - INDENT_HEURISTIC_MAX_SLIDING);
  let best = -1;
  let bestScore: SplitScore = { effectiveIndent: 0, penalty: 0 };
  for (let shift = first; shift <= end; shift++) {
    const score = { effectiveIndent: 0, penalty: 0 };
    scoreSplit(indents, shift, score);
    scoreSplit(indents, shift - groupsize, score);
    if (best === -1 || compareScores(score, bestScore) <= 0) {
      best = shift;
      bestScore = score;
    }
  }
  return best;
}

export function buildScript(n1: number, n2: number, rchg1: Uint8Array, rchg2: Uint8Array): DiffHunk[] {
  const out: DiffHunk[] = [];
  // rchg[i] is line i - 1; index 0 is the sentinel before the first line.
  for (let i1 = n1, i2 = n2; i1 >= 0 || i2 >= 0; i1--, i2--) {
    if ((i1 >= 0 && rchg1[i1] === 1) || (i2 >= 0 && rchg2[i2] === 1)) {
      const l1 = i1;
      const l2 = i2;
      while (i1 >= 0 && rchg1[i1] === 1) i1--;
      while (i2 >= 0 && rchg2[i2] === 1) i2--;
      out.push({ i1, chg1: l1 - i1, i2, chg2: l2 - i2 });
    }
  }
  return out.reverse();
}
