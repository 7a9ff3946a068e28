/**
 * `git diff --stat`'s line counts of two file versions, on their bytes: git's own diff (xdiff's
 * Myers with its cost heuristics, xdiff.ts), so the counts are git's where a minimal diff would
 * differ. Lines are records ending after '\n' (or at the end of the data), compared as bytes.
 * Counting needs no change compaction: sliding a change group keeps its size.
 *
 * A session's edits touch a few lines of each file, and classing every line of both versions
 * (a loop per line in a process too short-lived to compile it) cost more than jsdiff on the
 * trimmed texts. So UTF-8 texts are compared natively first: the common prefix and suffix lines
 * are cut off (xdiff's xdl_trim_ends, which cuts exactly those), and what xdiff still needs of
 * them, each file's line count and how often each class of the remaining lines occurs in the
 * cut-off lines (its discarding of lines frequent in the other file), is found by native
 * searches. Other content, or a change too wide for those searches, takes the whole-file way.
 */
import { bogosqrt, LineClassifier, lineStarts, myers, type Counts } from './xdiff';

export interface LineCounts {
  added: number;
  removed: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Characters of cut-off text searched per class of the remaining lines, at most, in all. */
const SEARCH_BUDGET = 8 * 1024 * 1024;
/** xdiff's XDL_MAX_EQLIMIT: a class this frequent in the other file counts as frequent. */
const MAX_EQLIMIT = 1024;

export function lineChangeCounts(before: Uint8Array, after: Uint8Array): LineCounts {
  const x = plain(before);
  const y = plain(after);
  if (x.length === y.length && sameBytes(x, y)) return { added: 0, removed: 0 };
  const a = decode(x);
  const b = a === null ? null : decode(y);
  return (a !== null && b !== null ? trimmedCounts(a, b) : null) ?? wholeCounts(x, y);
}

/** Every line of both versions classed and diffed (the reference the trimmed way must equal). */
export function wholeCounts(before: Uint8Array, after: Uint8Array): LineCounts {
  const x = plain(before);
  const y = plain(after);
  const classes = new LineClassifier();
  const a = classes.classify(x, lineStarts(x));
  const b = classes.classify(y, lineStarts(y));
  return changed(a, b, myers(a, b));
}

function changed(a: Int32Array, b: Int32Array, { rchg1, rchg2 }: { rchg1: Uint8Array; rchg2: Uint8Array }): LineCounts {
  let removed = 0;
  let added = 0;
  for (let i = 1; i <= a.length; i++) removed += rchg1[i]!;
  for (let i = 1; i <= b.length; i++) added += rchg2[i]!;
  return { added, removed };
}

function trimmedCounts(a: string, b: string): LineCounts | null {
  const shortest = Math.min(a.length, b.length);
  const prefix = commonPrefix(a, b, shortest);
  const headEnd = prefix === 0 ? 0 : a.lastIndexOf('\n', prefix - 1) + 1;
  // The common suffix, in whole lines of both, after the prefix in both (as xdl_trim_ends).
  let tailA = a.length - commonSuffix(a, b, shortest - headEnd);
  while (tailA < a.length) {
    const tailB = tailA + b.length - a.length;
    if ((tailA === 0 || a.charCodeAt(tailA - 1) === 10) && (tailB === 0 || b.charCodeAt(tailB - 1) === 10)) break;
    const next = a.indexOf('\n', tailA);
    tailA = next === -1 ? a.length : next + 1;
  }
  const tailB = tailA + b.length - a.length;
  const ids = new Map<string, number>();
  const lastIds = new Map<string, number>();
  const keys: string[] = [];
  const ca = classify(a.slice(headEnd, tailA), ids, lastIds, keys);
  const cb = classify(b.slice(headEnd, tailB), ids, lastIds, keys);
  // No line left on one side in common with the other's: xdiff can match none, all are changed.
  if (!sharesClass(ca, cb, keys.length)) return { added: cb.length, removed: ca.length };
  const head = a.slice(0, headEnd);
  const tail = a.slice(tailA);
  const cutLines = newlines(head) + newlines(tail) + (tail !== '' && !tail.endsWith('\n') ? 1 : 0);
  const lines1 = cutLines + ca.length;
  const lines2 = cutLines + cb.length;
  if (keys.length * (head.length + tail.length) > SEARCH_BUDGET) return null;
  // A class's occurrences in the cut-off lines (the same in both files), as far as xdiff looks.
  const enough = Math.min(Math.max(bogosqrt(lines1), bogosqrt(lines2)), MAX_EQLIMIT);
  const inCut = new Int32Array(keys.length);
  for (const [key, id] of ids) inCut[id] = occurrences(head, key, enough) + occurrences(tail, key, enough);
  // (A last line without its newline ends its file: when one is left, nothing was cut after it, and
  // the cut-off lines all end in a newline, so none equals it.)
  const inA = new Int32Array(keys.length);
  const inB = new Int32Array(keys.length);
  for (let i = 0; i < ca.length; i++) inA[ca[i]!]!++;
  for (let i = 0; i < cb.length; i++) inB[cb[i]!]!++;
  const inFile1: Counts = { get: (id) => inA[id]! + inCut[id]! };
  const inFile2: Counts = { get: (id) => inB[id]! + inCut[id]! };
  return changed(ca, cb, myers(ca, cb, { lines1, lines2, inFile1, inFile2 }));
}

function sharesClass(a: Int32Array, b: Int32Array, classes: number): boolean {
  if (a.length === 0 || b.length === 0) return false;
  const seen = new Uint8Array(classes);
  for (let i = 0; i < a.length; i++) seen[a[i]!] = 1;
  for (let i = 0; i < b.length; i++) if (seen[b[i]!] === 1) return true;
  return false;
}

/** Class ids of the lines of `text` (whole lines); a last line without its newline has classes of its own. */
function classify(text: string, ids: Map<string, number>, lastIds: Map<string, number>, keys: string[]): Int32Array {
  if (text === '') return new Int32Array(0);
  const parts = text.split('\n');
  const terminated = text.endsWith('\n');
  const count = terminated ? parts.length - 1 : parts.length;
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const map = i === count - 1 && !terminated ? lastIds : ids;
    const key = parts[i]!;
    let id = map.get(key);
    if (id === undefined) {
      id = keys.length;
      keys.push(key);
      map.set(key, id);
    }
    out[i] = id;
  }
  return out;
}

/** How often `line` + '\n' is a whole line of `text` (whole lines), counted up to `limit`. */
function occurrences(text: string, line: string, limit: number): number {
  if (text === '') return 0;
  // Matches of "\n" + line + "\n" start a line (one after a newline); the first line is checked on its own.
  let count = text.startsWith(`${line}\n`) ? 1 : 0;
  const needle = `\n${line}\n`;
  for (let at = text.indexOf(needle); at !== -1 && count < limit; at = text.indexOf(needle, at + 1)) count++;
  return count;
}

/** Newlines in `text`, natively (a loop per line is what this module avoids). */
function newlines(text: string): number {
  return text === '' ? 0 : text.split('\n').length - 1;
}

function decode(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Characters compared a slice at a time (native equality): whole chunks, then halving the first
 * unequal one down to a few characters compared one by one.
 */
const CHUNK = 1 << 12;
const FEW = 16;

function commonPrefix(a: string, b: string, limit: number): number {
  let i = 0;
  while (i + CHUNK <= limit && a.slice(i, i + CHUNK) === b.slice(i, i + CHUNK)) i += CHUNK;
  for (let size = CHUNK >> 1; size >= FEW; size >>= 1) if (i + size <= limit && a.slice(i, i + size) === b.slice(i, i + size)) i += size;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function commonSuffix(a: string, b: string, limit: number): number {
  const same = (i: number, size: number) => a.slice(a.length - i - size, a.length - i) === b.slice(b.length - i - size, b.length - i);
  let i = 0;
  while (i + CHUNK <= limit && same(i, CHUNK)) i += CHUNK;
  for (let size = CHUNK >> 1; size >= FEW; size >>= 1) if (i + size <= limit && same(i, size)) i += size;
  while (i < limit && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}

/** A plain Uint8Array view: Node's Buffer.indexOf goes through a slower JavaScript wrapper. */
function plain(bytes: Uint8Array): Uint8Array {
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function sameBytes(x: Uint8Array, y: Uint8Array): boolean {
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
