/**
 * Line bookkeeping shared by the edit and patch engines: 1-based line numbers of canonical
 * offsets, and the split of an original text into lines that keep their own terminators.
 */

/** A line of the original text and the exact newline bytes that end it ('' for a last line without one). */
export interface LineWithEnd {
  content: string;
  terminator: '' | '\n' | '\r\n' | '\r';
}

/** Splits `text` into lines, each with its own terminator; a final newline does not start an extra line. */
export function splitLinesKeepEnds(text: string): LineWithEnd[] {
  const lines: LineWithEnd[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      lines.push({ content: text.slice(start, i), terminator: '\n' });
      start = i + 1;
    } else if (c === 13) {
      const crlf = text.charCodeAt(i + 1) === 10;
      lines.push({ content: text.slice(start, i), terminator: crlf ? '\r\n' : '\r' });
      if (crlf) i++;
      start = i + 1;
    }
  }
  if (start < text.length) lines.push({ content: text.slice(start), terminator: '' });
  return lines;
}

/** Start offsets of the lines of an LF-only text, for offset -> line lookups. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  /** Number of lines; a final LF does not open another line, an empty text has none. */
  get lineCount(): number {
    const n = this.starts.length;
    return this.starts[n - 1] === this.text.length ? n - 1 : n;
  }

  /** The 1-based line that holds the character at `offset`. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** The 1-based first and last lines covered by the non-empty range [start, end). */
  lineRange(start: number, end: number): { startLine: number; endLine: number } {
    return { startLine: this.lineOf(start), endLine: this.lineOf(Math.max(start, end - 1)) };
  }

  /** Offset where 1-based `line` starts. */
  lineStart(line: number): number {
    return this.starts[line - 1];
  }

  /** Offset just before the LF that ends 1-based `line` (or the end of the text). */
  lineContentEnd(line: number): number {
    const next = this.starts[line];
    return next === undefined ? this.text.length : next - 1;
  }

  /** Whether 1-based `line` is followed by an LF. */
  hasTerminator(line: number): boolean {
    return line < this.starts.length;
  }

  lineText(line: number): string {
    return this.text.slice(this.lineStart(line), this.lineContentEnd(line));
  }
}

/** True when `offset` falls between the two halves of a surrogate pair (an astral character). */
export function splitsSurrogatePair(text: string, offset: number): boolean {
  if (offset <= 0 || offset >= text.length) return false;
  const before = text.charCodeAt(offset - 1);
  const after = text.charCodeAt(offset);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}

/** Whether a line holds anything besides whitespace. */
export function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** Shortens a line for a message, keeping its start. */
export function preview(line: string, max = 160): string {
  return line.length <= max ? line : `${line.slice(0, max)}…`;
}
