/**
 * The lines of UTF-8 text indexed on its bytes, as TerminatedLines (src/text) counts them on the
 * string: LF, CRLF and a lone CR each end a line. The terminators are ASCII bytes, which never
 * occur inside a multi-byte UTF-8 sequence, so byte offsets split exactly where string offsets
 * do; only the lines asked for become strings (a page of a 50 MB file decodes that page).
 */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const LF = 10;
const CR = 13;

export class Utf8Lines {
  /** starts[i] is where line i + 1 starts; starts[count] is the end. */
  private readonly starts: Uint32Array | Float64Array;
  readonly count: number;

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
    starts[count++] = from;
    if (!hasCr) {
      for (let i = bytes.indexOf(LF, from); i !== -1; i = bytes.indexOf(LF, i + 1)) starts[count++] = i + 1;
    } else {
      for (let i = from; i < bytes.length; i++) {
        const c = bytes[i];
        if (c === LF) starts[count++] = i + 1;
        else if (c === CR) {
          if (bytes[i + 1] === LF) i++;
          starts[count++] = i + 1;
        }
      }
    }
    // Text ending in a newline (or empty) has no line after its last terminator.
    if (starts[count - 1] !== bytes.length) starts[count++] = bytes.length;
    this.count = count - 1;
    this.starts = starts;
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
