/**
 * Unified diffs for display (REQ-PATCH-007), git-style: `--- a/path` / `+++ b/path`, `/dev/null`
 * for a created or deleted file, 3 lines of context. Newline bytes are kept as they are, so a CRLF
 * file shows its CRs like git does. Lines both versions share at the start and the end are set
 * aside before diffing (keeping the context), so an edit in a 1 MB file diffs a few lines, not
 * the whole file; hunk line numbers are shifted back.
 */
import { FILE_HEADERS_ONLY, createTwoFilesPatch, diffLines } from 'diff';

const CONTEXT_LINES = 3;

/** Lines with their newline bytes kept (a last line without one stays as it is). */
export function splitKeepingEnds(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    out.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/**
 * The middle that differs, with `context` shared lines kept on each side, and how many lines were
 * cut in front: whole lines both share at the start and at the end are set aside. Found on the
 * strings themselves (native comparisons of large slices, then newline searches), without
 * splitting either into lines: on a 50 MB file with one line changed, splitting both cost ~75 ms
 * and two arrays of a million strings.
 */
export function trimShared(before: string, after: string, context: number): { before: string; after: string; cut: number } {
  if (before === after) {
    // Every line shared (callers return before this): keep the last `context` lines, as a line split would.
    const lines = splitKeepingEnds(before);
    const cut = Math.max(0, lines.length - context);
    return cut === 0 ? { before, after, cut: 0 } : { before: lines.slice(cut).join(''), after: lines.slice(cut).join(''), cut };
  }
  const shortest = Math.min(before.length, after.length);
  // Shared whole lines in front end where the line holding the first differing character starts.
  const prefix = commonPrefix(before, after, shortest);
  const headEnd = prefix === 0 ? 0 : before.lastIndexOf('\n', prefix - 1) + 1;
  // Shared whole lines at the end start at a line start of both, after headEnd in both.
  const suffix = commonSuffix(before, after, shortest - headEnd);
  let tailBefore = before.length - suffix;
  while (tailBefore < before.length) {
    const tailAfter = tailBefore + after.length - before.length;
    if ((tailBefore === 0 || before[tailBefore - 1] === '\n') && (tailAfter === 0 || after[tailAfter - 1] === '\n')) break;
    const next = before.indexOf('\n', tailBefore);
    tailBefore = next === -1 ? before.length : next + 1;
  }
  let cutAt = headEnd;
  for (let n = 0; n < context && cutAt > 0; n++) cutAt = cutAt < 2 ? 0 : before.lastIndexOf('\n', cutAt - 2) + 1;
  let keepTo = tailBefore;
  for (let n = 0; n < context && keepTo < before.length; n++) {
    const next = before.indexOf('\n', keepTo);
    keepTo = next === -1 ? before.length : next + 1;
  }
  if (cutAt === 0 && keepTo === before.length) return { before, after, cut: 0 };
  let cut = 0;
  for (let i = before.indexOf('\n'); i !== -1 && i < cutAt; i = before.indexOf('\n', i + 1)) cut++;
  return { before: before.slice(cutAt, keepTo), after: after.slice(cutAt, keepTo + after.length - before.length), cut };
}

/** Characters compared a slice at a time: native equality of slices, then a loop within the first unequal one. */
const COMPARE_CHUNK = 1 << 14;

function commonPrefix(a: string, b: string, limit: number): number {
  let i = 0;
  while (i + COMPARE_CHUNK <= limit && a.slice(i, i + COMPARE_CHUNK) === b.slice(i, i + COMPARE_CHUNK)) i += COMPARE_CHUNK;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function commonSuffix(a: string, b: string, limit: number): number {
  let n = 0;
  while (n + COMPARE_CHUNK <= limit && a.slice(a.length - n - COMPARE_CHUNK, a.length - n) === b.slice(b.length - n - COMPARE_CHUNK, b.length - n)) n += COMPARE_CHUNK;
  while (n < limit && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  return n;
}

/** The diff from `before` to `after` (null: the file does not exist); '' when nothing changed. */
export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  if (before === after) return '';
  const clean = path.replace(/^\/+/, '');
  const trimmed = before !== null && after !== null ? trimShared(before, after, CONTEXT_LINES) : { before: before ?? '', after: after ?? '', cut: 0 };
  const patch = createTwoFilesPatch(before === null ? '/dev/null' : `a/${clean}`, after === null ? '/dev/null' : `b/${clean}`, trimmed.before, trimmed.after, undefined, undefined, {
    context: CONTEXT_LINES,
    headerOptions: FILE_HEADERS_ONLY,
  });
  return shiftHunks(patch, trimmed.cut);
}

/**
 * unifiedDiff(path, the file, the spliced file) for a splice of UTF-8 `bytes` (valid UTF-8;
 * offsets in bytes), computed on the lines around the splice only: the changed lines with more
 * than the context on both sides give the same hunk as the whole file, its header shifted by the
 * lines before. Only that window is decoded; LF is one byte that never occurs inside a multi-byte
 * character, so the window and the line numbers are those of the decoded text.
 */
export function unifiedDiffOfByteSplice(path: string, bytes: Uint8Array, splice: { start: number; end: number; replacement: string }): string {
  let from = splice.start;
  for (let n = 0; n <= CONTEXT_LINES + 1 && from > 0; n++) from = from < 2 ? 0 : bytes.lastIndexOf(LF, from - 2) + 1;
  let to = splice.end;
  for (let n = 0; n <= CONTEXT_LINES + 1 && to < bytes.length; n++) {
    const next = bytes.indexOf(LF, to);
    to = next === -1 ? bytes.length : next + 1;
  }
  const decode = (a: number, b: number): string => windowDecoder.decode(bytes.subarray(a, b));
  const before = decode(from, to);
  const after = decode(from, splice.start) + splice.replacement + decode(splice.end, to);
  let shift = 0;
  for (let i = bytes.indexOf(LF); i !== -1 && i < from; i = bytes.indexOf(LF, i + 1)) shift++;
  return shiftHunks(unifiedDiff(path, before, after), shift);
}

const LF = 10;
const windowDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** A patch of a text's lines from `by` + 1 on, its hunk headers numbered as in the whole text. */
function shiftHunks(patch: string, by: number): string {
  if (by === 0) return patch;
  return patch.replace(/^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@/gm, (_m, a: string, ac: string | undefined, b: string, bc: string | undefined) => {
    return `@@ -${Number(a) + by}${ac ?? ''} +${Number(b) + by}${bc ?? ''} @@`;
  });
}

/** Lines added and removed between two versions (null counts as empty). */
export function diffStat(before: string | null, after: string | null): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  if (before === after) return { added, removed };
  const trimmed = before !== null && after !== null ? trimShared(before, after, 0) : { before: before ?? '', after: after ?? '' };
  for (const change of diffLines(trimmed.before, trimmed.after)) {
    if (change.added) added += change.count;
    else if (change.removed) removed += change.count;
  }
  return { added, removed };
}

