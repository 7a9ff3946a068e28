/** fast-check generators of file texts for the text-engine property tests. */
import fc from 'fast-check';

export type NewlineStyle = 'LF' | 'CRLF' | 'CR' | 'mixed';

const NEWLINES: Record<Exclude<NewlineStyle, 'mixed'>, string> = { LF: '\n', CRLF: '\r\n', CR: '\r' };

/** A small alphabet, so snippets repeat often enough to exercise ambiguity; includes tabs, accents and astral characters. */
export const CONTENT_UNITS = ['a', 'b', 'c', ' ', '\t', 'é', '中', '😀', '𝄞', '{', '}', ';', '='];

export const lineContent = fc.string({ unit: fc.constantFrom(...CONTENT_UNITS), maxLength: 10 });

export interface GeneratedFile {
  text: string;
  style: NewlineStyle;
}

/** Builds a file from lines, a newline style and whether the last line is terminated. */
export function buildFile(lines: string[], style: NewlineStyle, finalNewline: boolean, picks: string[]): string {
  return lines
    .map((line, i) => {
      const last = i === lines.length - 1;
      if (last && !finalNewline) return line;
      return line + (style === 'mixed' ? picks[i % picks.length] : NEWLINES[style]);
    })
    .join('');
}

export const newlineStyle = fc.constantFrom<NewlineStyle>('LF', 'CRLF', 'CR', 'mixed');

export const fileArb = (maxLines = 12): fc.Arbitrary<GeneratedFile> =>
  fc
    .record({
      style: newlineStyle,
      lines: fc.array(lineContent, { maxLength: maxLines }),
      finalNewline: fc.boolean(),
      picks: fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 1, maxLength: 8 }),
    })
    .map(({ style, lines, finalNewline, picks }) => ({ text: buildFile(lines, style, finalNewline, picks), style }));

/** Offsets of `text` that split neither a CRLF nor a surrogate pair. */
export function safeOffsets(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i <= text.length; i++) {
    const before = text.charCodeAt(i - 1);
    const after = text.charCodeAt(i);
    if (before === 13 && after === 10) continue;
    if (before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff) continue;
    out.push(i);
  }
  return out;
}

/** Independent LF conversion for the oracle side of the properties. */
export function naiveLF(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** Counts occurrences of `needle` in `haystack`, overlapping ones included. */
export function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = 0; i + needle.length <= haystack.length; i++) if (haystack.startsWith(needle, i)) n++;
  return n;
}

/** Independent dominant newline: most frequent, ties CRLF > LF > CR, none -> LF. */
export function naiveDominant(text: string): '\n' | '\r\n' | '\r' {
  const crlf = (text.match(/\r\n/g) ?? []).length;
  const cr = (text.match(/\r(?!\n)/g) ?? []).length;
  const lf = (text.match(/(?<!\r)\n/g) ?? []).length;
  if (crlf >= lf && crlf >= cr && crlf > 0) return '\r\n';
  if (lf >= cr) return '\n';
  return '\r';
}
