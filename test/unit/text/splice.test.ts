/**
 * A line-range edit as a splice (issue "Real repositories": a one-line edit of a 50 MB file holds
 * the file once): the bytes spliceUtf8 writes equal the encoded result text, and the diff of the
 * changed lines equals the whole file's diff. The whole-text forms are the oracle.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyLineEdit, TerminatedLines, unifiedDiff, unifiedDiffOfSplice } from '../../../src/text';
import { spliceUtf8 } from '../../../src/tools/text-io';

const encoder = new TextEncoder();
const piece = fc.constantFrom('a', 'bc', ' ', '\t', 'é', '中', '😀', '\ud800', 'x y', '', 'same');
const newline = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r');
const line = fc.tuple(fc.array(piece, { maxLength: 4 }), newline).map(([parts, end]) => parts.join('') + end);
const text = fc.tuple(fc.boolean(), fc.array(line, { maxLength: 40 }), fc.array(piece, { maxLength: 2 })).map(([bom, lines, tail]) => (bom ? '\ufeff' : '') + lines.join('') + tail.join(''));

describe('line-range edits as splices', () => {
  it('TerminatedLines counts and cuts lines as a split on CRLF, CR and LF does', () => {
    fc.assert(
      fc.property(text, (t) => {
        const lines = new TerminatedLines(t);
        const split = t === '' ? [] : t.split(/\r\n|\r|\n/);
        if (split.at(-1) === '') split.pop();
        expect(lines.count).toBe(split.length);
        for (let i = 1; i <= lines.count; i++) expect(lines.content(i)).toBe(split[i - 1]);
        expect(lines.start(lines.count + 1)).toBe(t.length);
      }),
      { numRuns: 300 },
    );
  });

  it('gives the bytes and the diff of the whole result text', () => {
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), fc.array(line, { maxLength: 4 }), (t, a, b, newLines) => {
        const count = new TerminatedLines(t).count;
        if (count === 0) return;
        const startLine = 1 + (a % count);
        const endLine = startLine + (b % (count - startLine + 1));
        const result = applyLineEdit(t, { startLine, endLine, newContent: newLines.join('') });
        if (result.status !== 'ok') return;
        const { splice } = result;
        expect(t.slice(0, splice.start) + splice.replacement + t.slice(splice.end)).toBe(result.text);
        expect(Buffer.from(spliceUtf8(encoder.encode(t), t, splice))).toEqual(Buffer.from(encoder.encode(result.text)));
        expect(unifiedDiffOfSplice('f.txt', t, splice)).toBe(unifiedDiff('f.txt', t, result.text));
      }),
      { numRuns: 500 },
    );
  });

  it('diffs a one-line edit deep in a long file with the whole file\'s hunk header', () => {
    const t = Array.from({ length: 5000 }, (_, i) => `line ${i % 7}\n`).join('');
    const result = applyLineEdit(t, { startLine: 4000, endLine: 4000, newContent: 'changed\n' });
    if (result.status !== 'ok') throw new Error(result.message);
    const diff = unifiedDiffOfSplice('f.txt', t, result.splice);
    expect(diff).toBe(unifiedDiff('f.txt', t, result.text));
    expect(diff).toContain('@@ -3997,7 +3997,7 @@');
  });
});
