/**
 * Unified diffs for display (REQ-PATCH-007), git-style: `--- a/path` / `+++ b/path`, `/dev/null`
 * for a created or deleted file, 3 lines of context. Newline bytes are kept as they are, so a CRLF
 * file shows its CRs like git does.
 */
import { FILE_HEADERS_ONLY, createTwoFilesPatch, diffLines } from 'diff';

const CONTEXT_LINES = 3;

/** The diff from `before` to `after` (null: the file does not exist); '' when nothing changed. */
export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  if (before === after) return '';
  const clean = path.replace(/^\/+/, '');
  return createTwoFilesPatch(
    before === null ? '/dev/null' : `a/${clean}`,
    after === null ? '/dev/null' : `b/${clean}`,
    before ?? '',
    after ?? '',
    undefined,
    undefined,
    { context: CONTEXT_LINES, headerOptions: FILE_HEADERS_ONLY },
  );
}

/** Lines added and removed between two versions (null counts as empty). */
export function diffStat(before: string | null, after: string | null): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  if (before === after) return { added, removed };
  for (const change of diffLines(before ?? '', after ?? '')) {
    if (change.added) added += change.count;
    else if (change.removed) removed += change.count;
  }
  return { added, removed };
}
