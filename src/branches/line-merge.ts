/**
 * Three-way merge of text, git's way (xdiff/xmerge.c at level ZEALOUS, "merge" conflict style,
 * as ll-merge.c runs it for merge-ort): diff base->ours and base->theirs (histogram, see
 * xdiff.ts), walk both edit scripts; changes whose base ranges overlap OR TOUCH conflict unless
 * they are identical; conflicts are refined by diffing the two sides against each other (equal
 * parts become clean), and conflicts fewer than four lines apart are joined. A clean result is
 * byte-for-byte what git writes; a conflicted one carries git's markers (`<<<<<<< ours`,
 * `=======`, `>>>>>>> theirs`, CRLF when the file uses CRLF).
 *
 * Bytes are bytes: lines end after '\n', a last line without one is a different line, CR is
 * content. Whether a file is binary is decided by the caller (binary.ts).
 */
import { diffLines, lineStarts, LineClassifier, type DiffHunk } from './xdiff';

export interface LineRange {
  /** 1-based first line (for an empty range: the line it sits before). */
  start: number;
  count: number;
  text: string;
}

/** One conflicting region: what the base had there, and what each side made of it. */
export interface ConflictHunk {
  base: LineRange;
  ours: LineRange;
  theirs: LineRange;
}

export interface LineMergeLabels {
  ours: string;
  theirs: string;
  /** Length of the marker runs (git's conflict-marker-size); default 7. */
  markerSize?: number;
}

export interface LineMergeResult {
  clean: boolean;
  /** The merged bytes; when not clean, with conflict markers. */
  content: Uint8Array;
  /** The conflicting regions (base, ours, theirs), empty when clean. */
  conflicts: ConflictHunk[];
}

interface MergeHunk {
  /** 0 conflict, 1 take ours, 2 take theirs, 4 identical on both sides (refined away). */
  mode: number;
  i0: number;
  chg0: number;
  i1: number;
  chg1: number;
  i2: number;
  chg2: number;
  /** Index of the conflict (before refinement) this region comes from. */
  origin: number;
}

interface Side {
  bytes: Uint8Array;
  starts: number[];
  ids: Int32Array;
  count: number;
}

const utf8 = new TextEncoder();
const lenient = new TextDecoder('utf-8');

function side(bytes: Uint8Array, classifier: LineClassifier): Side {
  const starts = lineStarts(bytes);
  return { bytes, starts, ids: classifier.classify(bytes, starts), count: starts.length - 1 };
}

export function mergeLines(base: Uint8Array, ours: Uint8Array, theirs: Uint8Array, labels: LineMergeLabels): LineMergeResult {
  const classifier = new LineClassifier();
  const o = side(base, classifier);
  const a = side(ours, classifier);
  const b = side(theirs, classifier);
  const script1 = diffLines(o.ids, a.ids);
  const script2 = diffLines(o.ids, b.ids);
  if (script1.length === 0) return { clean: true, content: theirs, conflicts: [] };
  if (script2.length === 0) return { clean: true, content: ours, conflicts: [] };

  const changes = combine(script1, script2, a, b, o);
  const report = changes.filter((m) => m.mode === 0).map((m) => ({ ...m }));
  const refined = refine(changes, a, b);
  // Joining nearby conflicts below creates none, so the conflicts that remain come from these.
  const origins = new Set(refined.filter((m) => m.mode === 0).map((m) => m.origin));
  if (origins.size === 0) return { clean: true, content: fill(refined, o, a, b, null), conflicts: [] };
  simplifyNonConflicts(refined);
  return {
    clean: false,
    content: fill(refined, o, a, b, labels),
    conflicts: report.filter((m) => origins.has(m.origin)).map((m) => ({
      base: range(o, m.i0, m.chg0),
      ours: range(a, m.i1, m.chg1),
      theirs: range(b, m.i2, m.chg2),
    })),
  };
}

function range(file: Side, start: number, count: number): LineRange {
  const from = file.starts[Math.min(start, file.count)]!;
  const to = file.starts[Math.min(start + count, file.count)]!;
  return { start: start + 1, count, text: lenient.decode(file.bytes.subarray(from, to)) };
}

/** xdl_do_merge's first pass: both edit scripts in base order, overlapping or touching changes joined. */
function combine(x1: DiffHunk[], x2: DiffHunk[], a: Side, b: Side, o: Side): MergeHunk[] {
  const out: MergeHunk[] = [];
  let conflicts = 0;
  const append = (mode: number, i0: number, chg0: number, i1: number, chg1: number, i2: number, chg2: number) => {
    const m = out[out.length - 1];
    if (m && (i1 <= m.i1 + m.chg1 || i2 <= m.i2 + m.chg2)) {
      if (mode !== m.mode) {
        if (m.mode !== 0) m.origin = conflicts++;
        m.mode = 0;
      }
      m.chg0 = i0 + chg0 - m.i0;
      m.chg1 = i1 + chg1 - m.i1;
      m.chg2 = i2 + chg2 - m.i2;
    } else {
      out.push({ mode, i0, chg0, i1, chg1, i2, chg2, origin: mode === 0 ? conflicts++ : -1 });
    }
  };
  let p1 = 0;
  let p2 = 0;
  while (p1 < x1.length && p2 < x2.length) {
    const s1 = x1[p1]!;
    const s2 = x2[p2]!;
    if (s1.i1 + s1.chg1 < s2.i1) {
      append(1, s1.i1, s1.chg1, s1.i2, s1.chg2, s2.i2 - s2.i1 + s1.i1, s1.chg1);
      p1++;
      continue;
    }
    if (s2.i1 + s2.chg1 < s1.i1) {
      append(2, s2.i1, s2.chg1, s1.i2 - s1.i1 + s2.i1, s2.chg1, s2.i2, s2.chg2);
      p2++;
      continue;
    }
    if (s1.i1 !== s2.i1 || s1.chg1 !== s2.chg1 || s1.chg2 !== s2.chg2 || !sameLines(a, s1.i2, b, s2.i2, s1.chg2)) {
      const off = s1.i1 - s2.i1;
      const ffo = off + s1.chg1 - s2.chg1;
      let i0 = s1.i1;
      let i1 = s1.i2;
      let i2 = s2.i2;
      if (off > 0) {
        i0 -= off;
        i1 -= off;
      } else {
        i2 += off;
      }
      let chg0 = s1.i1 + s1.chg1 - i0;
      let chg1 = s1.i2 + s1.chg2 - i1;
      let chg2 = s2.i2 + s2.chg2 - i2;
      if (ffo < 0) {
        chg0 -= ffo;
        chg1 -= ffo;
      } else {
        chg2 += ffo;
      }
      append(0, i0, chg0, i1, chg1, i2, chg2);
    }
    const e1 = s1.i1 + s1.chg1;
    const e2 = s2.i1 + s2.chg1;
    if (e1 >= e2) p2++;
    if (e2 >= e1) p1++;
  }
  for (; p1 < x1.length; p1++) {
    const s1 = x1[p1]!;
    append(1, s1.i1, s1.chg1, s1.i2, s1.chg2, s1.i1 + b.count - o.count, s1.chg1);
  }
  for (; p2 < x2.length; p2++) {
    const s2 = x2[p2]!;
    append(2, s2.i1, s2.chg1, s2.i1 + a.count - o.count, s2.chg1, s2.i2, s2.chg2);
  }
  return out;
}

function sameLines(a: Side, i1: number, b: Side, i2: number, count: number): boolean {
  for (let k = 0; k < count; k++) if (a.ids[i1 + k] !== b.ids[i2 + k]) return false;
  return true;
}

/** xdl_refine_conflicts: diff the two sides of each conflict; only what differs stays in conflict. */
function refine(changes: MergeHunk[], a: Side, b: Side): MergeHunk[] {
  const out: MergeHunk[] = [];
  for (const m of changes) {
    if (m.mode !== 0 || m.chg1 === 0 || m.chg2 === 0) {
      out.push(m);
      continue;
    }
    const script = diffLines(a.ids.subarray(m.i1, m.i1 + m.chg1), b.ids.subarray(m.i2, m.i2 + m.chg2));
    if (script.length === 0) {
      out.push({ ...m, mode: 4 });
      continue;
    }
    for (const x of script) out.push({ ...m, i1: x.i1 + m.i1, chg1: x.chg1, i2: x.i2 + m.i2, chg2: x.chg2 });
  }
  return out;
}

/**
 * xdl_simplify_non_conflicts: conflicts at most three lines apart become one (at level ZEALOUS
 * whatever those lines hold).
 */
function simplifyNonConflicts(list: MergeHunk[]): void {
  let k = 0;
  while (k + 1 < list.length) {
    const m = list[k]!;
    const next = list[k + 1]!;
    const begin = m.i1 + m.chg1;
    const end = next.i1;
    if (m.mode !== 0 || next.mode !== 0 || end - begin > 3) {
      k++;
    } else {
      m.chg1 = next.i1 + next.chg1 - m.i1;
      m.chg2 = next.i2 + next.chg2 - m.i2;
      list.splice(k + 1, 1);
    }
  }
}

class Output {
  private readonly parts: Uint8Array[] = [];
  size = 0;

  lines(file: Side, start: number, count: number, addNewline: boolean, needsCr: boolean): void {
    if (count < 1) return;
    const chunk = file.bytes.subarray(file.starts[start]!, file.starts[start + count]!);
    this.push(chunk);
    if (addNewline && (chunk.length === 0 || chunk[chunk.length - 1] !== 10)) this.push(utf8.encode(needsCr ? '\r\n' : '\n'));
  }

  marker(char: string, size: number, label: string | null, needsCr: boolean): void {
    this.push(utf8.encode(char.repeat(size) + (label !== null ? ` ${label}` : '') + (needsCr ? '\r\n' : '\n')));
  }

  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.parts.push(bytes);
    this.size += bytes.length;
  }

  bytes(): Uint8Array {
    if (this.parts.length === 1) return this.parts[0]!;
    const out = new Uint8Array(this.size);
    let offset = 0;
    for (const part of this.parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }
}

/** is_eol_crlf: 1 CRLF, 0 LF, -1 cannot tell. */
function eolCrlf(file: Side, i: number): number {
  const endsCrlf = (line: number) => {
    const from = file.starts[line]!;
    const to = file.starts[line + 1]!;
    return to - from > 1 && file.bytes[to - 2] === 13 ? 1 : 0;
  };
  if (i < file.count - 1) return endsCrlf(i);
  if (file.count === 0) return -1;
  const last = file.bytes[file.starts[i + 1]! - 1];
  if (file.starts[i + 1]! > file.starts[i]! && last === 10) return endsCrlf(i);
  if (i === 0) return -1;
  return endsCrlf(i - 1);
}

function needsCr(a: Side, b: Side, base: Side, m: MergeHunk): boolean {
  let cr = eolCrlf(a, m.i1 ? m.i1 - 1 : 0);
  if (cr) cr = eolCrlf(b, m.i2 ? m.i2 - 1 : 0);
  if (cr) cr = eolCrlf(base, 0);
  return cr > 0;
}

/** xdl_fill_merge_buffer, "merge" style. */
function fill(list: MergeHunk[], base: Side, a: Side, b: Side, labels: LineMergeLabels | null): Uint8Array {
  const out = new Output();
  let i = 0;
  for (const m of list) {
    if (m.mode === 0) {
      const cr = needsCr(a, b, base, m);
      const size = labels?.markerSize ?? 7;
      out.lines(a, i, m.i1 - i, false, false);
      out.marker('<', size, labels?.ours ?? null, cr);
      out.lines(a, m.i1, m.chg1, true, cr);
      out.marker('=', size, null, cr);
      out.lines(b, m.i2, m.chg2, true, cr);
      out.marker('>', size, labels?.theirs ?? null, cr);
    } else if (m.mode === 1 || m.mode === 2) {
      out.lines(a, i, m.i1 - i, false, false);
      if (m.mode === 1) out.lines(a, m.i1, m.chg1, false, false);
      else out.lines(b, m.i2, m.chg2, false, false);
    } else {
      continue;
    }
    i = m.i1 + m.chg1;
  }
  out.lines(a, i, a.count - i, false, false);
  return out.bytes();
}
