/**
 * read_file indexes lines on the bytes (Utf8Lines) and checks UTF-8 in chunks (isUtf8Text) so a
 * large file never becomes one string: both must agree with the string forms they replace
 * (TerminatedLines on the decoded text, decodeText), for any mix of LF, CRLF, lone CR,
 * multi-byte characters and invalid bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TerminatedLines } from '../../../src/text';
import { decodeText, isUtf8Text } from '../../../src/tools/text-io';
import { Utf8Lines } from '../../../src/text/utf8-lines';

const piece = fc.oneof(fc.constantFrom('\n', '\r\n', '\r', '\r\r\n', 'é', '€', '😀', '\ufeff', 'a', ' '), fc.string({ maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 4 }));
const text = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''));

describe('Utf8Lines and isUtf8Text agree with the string forms', () => {
  it('every line and the count equal TerminatedLines on the decoded text (a BOM skipped as read_file does)', () => {
    fc.assert(
      fc.property(text, (t) => {
        const bytes = new TextEncoder().encode(t);
        const hasBom = t.startsWith('\ufeff');
        const expected = new TerminatedLines(hasBom ? t.slice(1) : t);
        const lines = new Utf8Lines(bytes, hasBom ? 3 : 0);
        expect(lines.count).toBe(expected.count);
        for (let line = 1; line <= expected.count; line++) expect(lines.content(line)).toBe(expected.content(line));
      }),
      { numRuns: 500 },
    );
  });

  it('isUtf8Text(bytes) === (decodeText(bytes) !== null), across chunk boundaries too', () => {
    const bytes = fc.oneof(
      text.map((t) => new TextEncoder().encode(t)),
      fc.uint8Array({ maxLength: 64 }),
      // A multi-byte character (or a cut one) straddling the 1 MiB chunk boundary.
      fc.tuple(fc.constantFrom('é', '€', '😀'), fc.integer({ min: 0, max: 3 }), fc.boolean()).map(([ch, shift, cut]) => {
        const enc = new TextEncoder().encode(ch);
        const out = new Uint8Array((1 << 20) - shift + (cut ? enc.length - 1 : enc.length)).fill(97);
        out.set(cut ? enc.subarray(0, enc.length - 1) : enc, (1 << 20) - shift);
        return out;
      }),
    );
    fc.assert(
      fc.property(bytes, (b) => {
        expect(isUtf8Text(b)).toBe(decodeText(b) !== null);
      }),
      { numRuns: 300 },
    );
  });
});
