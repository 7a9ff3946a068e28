/**
 * The Edit tool's line-range mode: replace exactly lines startLine..endLine (1-based, inclusive).
 *
 * Rules:
 * - Lines are counted like `cat -n`: a final newline does not start another line, an empty file has
 *   none. The range must satisfy 1 <= startLine <= endLine <= line count; anything else (including a
 *   range past the end, or startLine > endLine) is an error that states the file's line count.
 *   There is no insert form: to insert, replace a neighbouring line with itself plus the new lines.
 * - newContent is the text of the new lines. One trailing newline in it, if present, only ends its
 *   last line; that last line then gets the original terminator of line endLine, so the next line
 *   is never glued on and a file without a final newline keeps it that way. Newlines inside
 *   newContent are written in the file's dominant style.
 * - An empty newContent deletes the lines together with their terminators.
 * - Bytes outside the range are kept exactly, and so is a byte order mark before line 1.
 * - A final newline cannot be added or removed here (the last line keeps its ending): asking for
 *   one (new content ending in a newline, on a file without a final newline) is noted.
 */
import { editError, type EditError, type LineEditResult } from './edit-result';
import { TerminatedLines } from './lines';
import { analyzeNewlines, convertNewlines, toLF, type NewlineKind } from './newlines';
import { Utf8Lines } from './utf8-lines';

const BOM = '\ufeff';
const UTF8_BOM = [0xef, 0xbb, 0xbf];

export interface LineEditRequest {
  startLine: number;
  endLine: number;
  newContent: string;
}

/** What the edit needs of the file's lines, on its string or on its bytes alike. */
interface Lines {
  readonly count: number;
  /** Offset where 1-based `line` starts (count + 1: the end); in string or byte units. */
  start(line: number): number;
  terminator(line: number): '' | '\n' | '\r\n' | '\r';
}

/** The edit of `original`, as a splice of it (and the whole new text). */
export function applyLineEdit(original: string, request: LineEditRequest): LineEditResult {
  const lines = new TerminatedLines(original);
  const planned = planLineEdit(lines, original.startsWith(BOM), BOM.length, analyzeNewlines(original).dominant, request);
  if (planned.status === 'error') return planned;
  const { start, end, replacement } = planned.splice;
  return { ...planned, text: original.slice(0, start) + replacement + original.slice(end) };
}

/** A line-range edit planned on the file's bytes: the splice is in byte offsets. */
export type ByteLineEditResult = Omit<Extract<LineEditResult, { status: 'ok' }>, 'text'> | EditError;

/**
 * The same edit as applyLineEdit on the UTF-8 bytes of the text (valid UTF-8, checked by the
 * caller), never decoding the whole file: the splice's offsets are byte offsets, its replacement
 * the new lines' text. `lines` may be passed when the caller has indexed the bytes already.
 */
export function applyLineEditToBytes(bytes: Uint8Array, request: LineEditRequest, lines: Utf8Lines = new Utf8Lines(bytes)): ByteLineEditResult {
  const hasBom = bytes.length >= 3 && UTF8_BOM.every((b, i) => bytes[i] === b);
  return planLineEdit(lines, hasBom, UTF8_BOM.length, lines.newlines.dominant, request);
}

function planLineEdit(lines: Lines, hasBom: boolean, bomLength: number, newlineKind: NewlineKind, request: LineEditRequest): ByteLineEditResult {
  const { startLine, endLine, newContent } = request;
  const count = lines.count;
  if (!Number.isInteger(startLine) || !Number.isInteger(endLine) || startLine < 1 || endLine < 1) {
    return editError(
      'TEXT_LINE_RANGE_INVALID',
      `start_line and end_line must be whole numbers from 1 (got ${startLine} and ${endLine}); lines are 1-based and the file has ${count} line(s).`,
    );
  }
  if (startLine > endLine) {
    return editError(
      'TEXT_LINE_RANGE_INVALID',
      `start_line ${startLine} is after end_line ${endLine}; give start_line <= end_line (both inclusive). ` +
        'To insert lines, replace a neighbouring line with itself plus the new lines.',
    );
  }
  if (count === 0) {
    return editError(
      'TEXT_LINE_RANGE_INVALID',
      'the file is empty, so it has no lines to replace; write its whole content instead (for example with an overwrite patch).',
    );
  }
  if (endLine > count) {
    return editError(
      'TEXT_LINE_RANGE_INVALID',
      `lines ${startLine}-${endLine} go past the end of the file, which has ${count} line(s); use a range within 1-${count}.`,
    );
  }

  let startOffset = lines.start(startLine);
  const endOffset = lines.start(endLine + 1);
  // The byte order mark belongs to the file, not to line 1 (snippet mode and Patch keep it too).
  const keepsBom = startLine === 1 && hasBom;
  if (keepsBom) startOffset = bomLength;

  let replacement = '';
  let newLineCount = 0;
  const lf = toLF(keepsBom && newContent.startsWith(BOM) ? newContent.slice(BOM.length) : newContent);
  if (lf !== '') {
    const body = lf.endsWith('\n') ? lf.slice(0, -1) : lf;
    replacement = convertNewlines(body, newlineKind) + lines.terminator(endLine);
    newLineCount = body.split('\n').length;
  }
  const what = newLineCount === 0 ? 'deleted' : `replaced with ${newLineCount} line(s)`;
  const notes: string[] = [];
  if (keepsBom) notes.push("The file's byte order mark (U+FEFF) was kept before line 1.");
  if (endLine === count && lines.terminator(count) === '' && lf.endsWith('\n') && newLineCount > 0) {
    notes.push(
      'The file still ends without a final newline: line-range mode keeps the ending of the last line it replaces. ' +
        'To add one, use snippet mode with old_snippet = the last line and new_snippet = the same line followed by a newline.',
    );
  }
  return {
    status: 'ok',
    message: [`lines ${startLine}-${endLine} ${what} (newlines written as ${newlineKind}).`, ...notes].join(' '),
    startLine,
    endLine: startLine + newLineCount - 1,
    newlineKind,
    splice: { start: startOffset, end: endOffset, replacement },
  };
}
