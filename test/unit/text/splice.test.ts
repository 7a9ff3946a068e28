/**
 * A line-range edit as a splice (issue "Real repositories": a one-line edit of a 50 MB file holds
 * the file once): the splice gives the result text, the bytes spliceBytes writes from the byte
 * form of the edit equal the encoded result text, and the diff of the changed lines equals the
 * whole file's diff. The whole-text forms are the oracle (line-edit-bytes.property.test.ts also
 * compares every field of the two forms).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyLineEdit, applyLineEditToBytes, TerminatedLines, unifiedDiff, unifiedDiffOfByteSplice } from '../../../src/text';
import { splicedContent, spliceBytes } from '../../../src/tools/text-io';

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
        const request = { startLine, endLine, newContent: newLines.join('') };
        const result = applyLineEdit(t, request);
        if (result.status !== 'ok') return;
        const { splice } = result;
        expect(t.slice(0, splice.start) + splice.replacement + t.slice(splice.end)).toBe(result.text);
        // The tool sees the file's bytes: a lone surrogate in the text is U+FFFD in them.
        const bytes = encoder.encode(t);
        const seen = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
        const expected = applyLineEdit(seen, request);
        const byBytes = applyLineEditToBytes(bytes, request);
        if (expected.status !== 'ok' || byBytes.status !== 'ok') throw new Error('the byte form refused an edit');
        expect(Buffer.from(spliceBytes(bytes, byBytes.splice))).toEqual(Buffer.from(encoder.encode(expected.text)));
        if (expected.text !== seen) expect(unifiedDiffOfByteSplice('f.txt', bytes, byBytes.splice)).toBe(unifiedDiff('f.txt', seen, expected.text));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a large file\'s splice as runs over its bytes (never assembled), a small one\'s joined; both are spliceBytes\'s bytes', () => {
    for (const size of [1000, (1 << 20) + 1000]) {
      const bytes = new Uint8Array(size).map((_, i) => (i % 40 === 39 ? 10 : 97 + (i % 26)));
      const splice = { start: 400, end: 440, replacement: 'changed ü\n' };
      const content = splicedContent(bytes, splice);
      const expected = Buffer.from(spliceBytes(bytes, splice));
      if (size < 1 << 20) {
        expect(content).toBeInstanceOf(Uint8Array);
        expect(Buffer.from(content as Uint8Array)).toEqual(expected);
      } else {
        expect(content).not.toBeInstanceOf(Uint8Array);
        const runs = content as Uint8Array[];
        expect(runs[0]!.buffer).toBe(bytes.buffer);
        expect(runs[2]!.buffer).toBe(bytes.buffer);
        expect(Buffer.concat(runs)).toEqual(expected);
      }
    }
  });

  it('diffs a one-line edit deep in a long file with the whole file\'s hunk header', () => {
    const t = Array.from({ length: 5000 }, (_, i) => `line ${i % 7}\n`).join('');
    const result = applyLineEdit(t, { startLine: 4000, endLine: 4000, newContent: 'changed\n' });
    if (result.status !== 'ok') throw new Error(result.message);
    const bytes = applyLineEditToBytes(encoder.encode(t), { startLine: 4000, endLine: 4000, newContent: 'changed\n' });
    if (bytes.status !== 'ok') throw new Error(bytes.message);
    const diff = unifiedDiffOfByteSplice('f.txt', encoder.encode(t), bytes.splice);
    expect(diff).toBe(unifiedDiff('f.txt', t, result.text));
    expect(diff).toContain('@@ -3997,7 +3997,7 @@');
  });
});
