/**
 * The Edit tool's line-range mode runs on the file's bytes (applyLineEditToBytes, Utf8Lines,
 * spliceBytes, unifiedDiffOfByteSplice) so a one-line edit of a 50 MB file never holds the file as
 * a string (issue 30 item 4). The string forms are the oracle: for any file (LF, CRLF, lone CR, no
 * final newline, a byte order mark, multi-byte characters) and any range, valid or not, the result,
 * the new bytes and the diff are the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyLineEdit, applyLineEditToBytes, unifiedDiff, unifiedDiffOfByteSplice } from '../../../src/text';
import { decodeRange, spliceBytes } from '../../../src/tools/text-io';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const piece = fc.constantFrom('a', 'bc', ' ', '\t', 'é', 'ß', '中', '😀', '\ufeff', 'x y', '', 'same', '\r');
const newline = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r', '\r\r\n');
const line = fc.tuple(fc.array(piece, { maxLength: 4 }), newline).map(([parts, end]) => parts.join('') + end);
const text = fc
  .tuple(fc.boolean(), fc.array(line, { maxLength: 30 }), fc.array(piece, { maxLength: 2 }))
  .map(([bom, lines, tail]) => (bom ? '\ufeff' : '') + lines.join('') + tail.join(''));
const newContent = fc.oneof(
  fc.array(line, { maxLength: 4 }).map((lines) => lines.join('')),
  fc.tuple(fc.array(line, { maxLength: 3 }), fc.array(piece, { maxLength: 3 })).map(([lines, tail]) => lines.join('') + tail.join('')),
  fc.constantFrom('', '\n', '\ufeffx\n', 'same\n', '\ud800\n'),
);
/** Any range: mostly within the file, sometimes reversed, zero, fractional or past the end. */
const range = fc.tuple(fc.integer({ min: -1, max: 35 }), fc.integer({ min: -1, max: 35 }), fc.constantFrom(0, 0, 0, 0.5));

describe('line-range Edit on the bytes equals the edit on the string', () => {
  it('gives the same result, the same bytes and the same diff', () => {
    fc.assert(
      fc.property(text, range, newContent, (t, [a, b, frac], content) => {
        const bytes = encoder.encode(t);
        const request = { startLine: a + frac, endLine: b, newContent: content };
        const byString = applyLineEdit(t, request);
        const byBytes = applyLineEditToBytes(bytes, request);
        if (byString.status !== 'ok') {
          expect(byBytes).toEqual(byString);
          return;
        }
        if (byBytes.status !== 'ok') throw new Error(`bytes path refused what the string path did: ${byBytes.message}`);
        const { text: newText, splice, ...rest } = byString;
        expect({ ...byBytes, splice: undefined }).toEqual({ ...rest, splice: undefined });
        expect(byBytes.splice.replacement).toBe(splice.replacement);
        // The splice's offsets are the string's, counted in bytes.
        expect(byBytes.splice.start).toBe(encoder.encode(t.slice(0, splice.start)).length);
        expect(byBytes.splice.end).toBe(encoder.encode(t.slice(0, splice.end)).length);
        expect(Buffer.from(spliceBytes(bytes, byBytes.splice))).toEqual(Buffer.from(encoder.encode(newText)));
        const unchanged = decodeRange(bytes, byBytes.splice.start, byBytes.splice.end) === byBytes.splice.replacement;
        expect(unchanged).toBe(newText === t);
        if (!unchanged) expect(unifiedDiffOfByteSplice('f.txt', bytes, byBytes.splice)).toBe(unifiedDiff('f.txt', t, newText));
        expect(decoder.decode(bytes)).toBe(t);
      }),
      { numRuns: 2000 },
    );
  });

  it("diffs a one-line edit deep in a long file with the whole file's hunk header", () => {
    const t = Array.from({ length: 5000 }, (_, i) => `línea ${i % 7}\r\n`).join('');
    const bytes = encoder.encode(t);
    const result = applyLineEditToBytes(bytes, { startLine: 4000, endLine: 4000, newContent: 'changed\n' });
    if (result.status !== 'ok') throw new Error(result.message);
    const expected = applyLineEdit(t, { startLine: 4000, endLine: 4000, newContent: 'changed\n' });
    if (expected.status !== 'ok') throw new Error(expected.message);
    const diff = unifiedDiffOfByteSplice('f.txt', bytes, result.splice);
    expect(diff).toBe(unifiedDiff('f.txt', t, expected.text));
    expect(diff).toContain('@@ -3997,7 +3997,7 @@');
    expect(Buffer.from(spliceBytes(bytes, result.splice))).toEqual(Buffer.from(encoder.encode(expected.text)));
  });
});
