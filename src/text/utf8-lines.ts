/**
 * The lines of UTF-8 text indexed on its bytes, as TerminatedLines counts them on the string:
 * LF, CRLF and a lone CR each end a line. The terminators are ASCII bytes, which never
 * occur inside a multi-byte UTF-8 sequence, so byte offsets split exactly where string offsets
 * do; only the lines asked for become strings (a page of a 50 MB file decodes that page).
 */
import { newlineStats, type NewlineStats } from './newlines';

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const LF = 10;
const CR = 13;

export class Utf8Lines {
  /** starts[i] is where line i + 1 starts; starts[count] is the end. */
  private readonly starts: Uint32Array | Float64Array;
  readonly count: number;
  /** The text's newlines as analyzeNewlines counts them on the string. */
  readonly newlines: NewlineStats;

  /** `from`: where the text starts in `bytes` (after a byte order mark). */
  constructor(
    private readonly bytes: Uint8Array,
    from = 0,
  ) {
    // Counted first, then stored in an index of exactly that size: a JS array of a million
    // numbers copied into the index (or a doubled one) was several times the index in garbage.
    const hasCr = bytes.indexOf(CR, from) !== -1;
    let terminators = 0;
    if (!hasCr) for (let i = bytes.indexOf(LF, from); i !== -1; i = bytes.indexOf(LF, i + 1)) terminators++;
    else for (let i = from; i < bytes.length; i++) if (bytes[i] === LF || (bytes[i] === CR && bytes[i + 1] !== LF)) terminators++;
    const starts = bytes.length < 2 ** 32 ? new Uint32Array(terminators + 2) : new Float64Array(terminators + 2);
    let count = 0;
    let crlf = 0;
    let cr = 0;
    starts[count++] = from;
    if (!hasCr) {
      for (let i = bytes.indexOf(LF, from); i !== -1; i = bytes.indexOf(LF, i + 1)) starts[count++] = i + 1;
    } else {
      for (let i = from; i < bytes.length; i++) {
        const c = bytes[i];
        if (c === LF) starts[count++] = i + 1;
        else if (c === CR) {
          if (bytes[i + 1] === LF) {
            i++;
            crlf++;
          } else cr++;
          starts[count++] = i + 1;
        }
      }
    }
    this.newlines = newlineStats(terminators - crlf - cr, crlf, cr);
    // Text ending in a newline (or empty) has no line after its last terminator.
    if (starts[count - 1] !== bytes.length) starts[count++] = bytes.length;
    this.count = count - 1;
    this.starts = starts;
  }

  /** Byte offset where 1-based `line` starts (count + 1: the end of the text). */
  start(line: number): number {
    return this.starts[line - 1]!;
  }

  /** The terminator that ends 1-based `line` ('' for a last line without one). */
  terminator(line: number): '' | '\n' | '\r\n' | '\r' {
    const start = this.starts[line - 1]!;
    const end = this.starts[line]!;
    if (end === start) return '';
    if (this.bytes[end - 1] === LF) return end - 2 >= start && this.bytes[end - 2] === CR ? '\r\n' : '\n';
    return this.bytes[end - 1] === CR ? '\r' : '';
  }

  /** 1-based `line` without its terminator. */
  content(line: number): string {
    const start = this.starts[line - 1]!;
    let end = this.starts[line]!;
    if (end > start && this.bytes[end - 1] === LF) end--;
    if (end > start && this.bytes[end - 1] === CR) end--;
    return decoder.decode(this.bytes.subarray(start, end));
  }
}
