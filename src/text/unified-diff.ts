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

/** The middle that differs, with `context` shared lines kept on each side, and how many lines were cut in front. */
function trimShared(before: string, after: string, context: number): { before: string; after: string; cut: number } {
  const a = splitKeepingEnds(before);
  const b = splitKeepingEnds(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const cut = Math.max(0, head - context);
  const cutEnd = Math.max(0, tail - context);
  if (cut === 0 && cutEnd === 0) return { before, after, cut: 0 };
  return { before: a.slice(cut, a.length - cutEnd).join(''), after: b.slice(cut, b.length - cutEnd).join(''), cut };
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
  if (trimmed.cut === 0) return patch;
  return patch.replace(/^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@/gm, (_m, a: string, ac: string | undefined, b: string, bc: string | undefined) => {
    return `@@ -${Number(a) + trimmed.cut}${ac ?? ''} +${Number(b) + trimmed.cut}${bc ?? ''} @@`;
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
