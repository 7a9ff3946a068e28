/**
 * Line bookkeeping shared by the edit and patch engines: 1-based line numbers of canonical
 * offsets, and where the lines of an original text start whatever their terminators.
 */

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

/**
 * Where each line starts when LF, CRLF and a lone CR all end a line (the line-range tools'
 * counting: a final newline does not open another line, an empty text has none), found with
 * native searches and kept as offsets: a 50 MB file's 800,000 lines cost 6 MB of numbers, not
 * 800,000 strings.
 */
export class TerminatedLines {
  /** starts[i] is where line i + 1 starts; starts[count] is the end of the text. */
  private readonly starts: Float64Array;
  readonly count: number;

  constructor(readonly text: string) {
    const starts: number[] = [0];
    if (text.indexOf('\r') === -1) {
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    } else {
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 10) starts.push(i + 1);
        else if (c === 13) {
          if (text.charCodeAt(i + 1) === 10) i++;
          starts.push(i + 1);
        }
      }
    }
    // A text ending in a newline (or empty) has no line after its last terminator.
    if (starts[starts.length - 1] !== text.length) starts.push(text.length);
    this.count = starts.length - 1;
    this.starts = Float64Array.from(starts);
  }

  /** Offset where 1-based `line` starts (count + 1: the end of the text). */
  start(line: number): number {
    return this.starts[line - 1]!;
  }

  /** Offset where the terminator of 1-based `line` starts (its end when it has none). */
  contentEnd(line: number): number {
    const next = this.starts[line]!;
    if (next === this.starts[line - 1]) return next;
    const text = this.text;
    if (text.charCodeAt(next - 1) === 10) return text.charCodeAt(next - 2) === 13 && next - 2 >= this.starts[line - 1]! ? next - 2 : next - 1;
    return text.charCodeAt(next - 1) === 13 ? next - 1 : next;
  }

  /** The terminator that ends 1-based `line` ('' for a last line without one). */
  terminator(line: number): '' | '\n' | '\r\n' | '\r' {
    return this.text.slice(this.contentEnd(line), this.starts[line]!) as '' | '\n' | '\r\n' | '\r';
  }

  content(line: number): string {
    return this.text.slice(this.start(line), this.contentEnd(line));
  }
}
