import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applySnippetEdit, convertNewlines, analyzeNewlines } from '../../../src/text';
import { countOccurrences, fileArb, naiveLF, safeOffsets } from './arbitraries';

const CRLF_FILE = 'line one\r\nline two\r\nline three\r\n';

describe('applySnippetEdit: newline preservation', () => {
  it('T-SFE-NL-01: CRLF file preserves CRLF after edit', () => {
    const result = applySnippetEdit(CRLF_FILE, { oldSnippet: 'line two\n', newSnippet: 'line 2a\nline 2b\n' });
    expect(result.status).toBe('ok');
    if (result.status !== 'ok') return;
    expect(result.text).toBe('line one\r\nline 2a\r\nline 2b\r\nline three\r\n');
    expect(result.newlineKind).toBe('CRLF');
    expect(result.matchStartLine).toBe(2);
    expect(result.matchEndLine).toBe(2);
  });

  it('T-SFE-NL-01: a CRLF snippet matches an LF file and is written as LF', () => {
    const result = applySnippetEdit('a\nb\nc\n', { oldSnippet: 'a\r\nb', newSnippet: 'x\r\ny\r\nz' });
    expect(result).toMatchObject({ status: 'ok', text: 'x\ny\nz\nc\n', newlineKind: 'LF' });
  });

  it('T-SFE-NL-02: mixed newlines choose dominant style', () => {
    // Two CRLF, one LF, one CR: the replacement is written with CRLF; the other lines keep their bytes.
    const original = 'a\r\nb\nc\r\nd\re';
    const result = applySnippetEdit(original, { oldSnippet: 'b\nc', newSnippet: 'B1\nB2\rB3' });
    expect(result).toMatchObject({ status: 'ok', text: 'a\r\nB1\r\nB2\r\nB3\r\nd\re', newlineKind: 'CRLF' });
  });

  it('T-SFE-NL-02: an LF majority with a CRLF minority writes LF', () => {
    const result = applySnippetEdit('a\nb\nc\r\nd', { oldSnippet: 'd', newSnippet: 'd\ne' });
    expect(result).toMatchObject({ status: 'ok', text: 'a\nb\nc\r\nd\ne', newlineKind: 'LF' });
  });

  it('a CR-only file keeps CR', () => {
    const result = applySnippetEdit('x\ry\rz\r', { oldSnippet: 'y\n', newSnippet: 'Y\nY\n' });
    expect(result).toMatchObject({ status: 'ok', text: 'x\rY\rY\rz\r', newlineKind: 'CR' });
  });
});

describe('applySnippetEdit: matching', () => {
  it('refuses several matches without a hint and lists the 1-based lines', () => {
    const result = applySnippetEdit('x = 1\ny = 2\nx = 1\n', { oldSnippet: 'x = 1', newSnippet: 'x = 3' });
    expect(result.status).toBe('ambiguous');
    if (result.status !== 'ambiguous') return;
    expect(result.candidateLines).toEqual([1, 3]);
    expect(result.code).toBe('TEXT_AMBIGUOUS_MATCH');
    expect(result.message).toContain('match_hint');
    expect('text' in result).toBe(false);
  });

  it('counts overlapping occurrences as separate matches', () => {
    expect(applySnippetEdit('aaa', { oldSnippet: 'aa', newSnippet: 'b' }).status).toBe('ambiguous');
  });

  it('T-SFE-HINT-01: match hint restricts replacements to the hinted range', () => {
    const original = 'x = 1\ny = 2\nx = 1\nz = 3\n';
    const result = applySnippetEdit(original, { oldSnippet: 'x = 1', newSnippet: 'x = 9', matchHint: { startLine: 2, endLine: 4 } });
    expect(result).toMatchObject({ status: 'ok', text: 'x = 1\ny = 2\nx = 9\nz = 3\n', matchStartLine: 3, matchEndLine: 3 });
  });

  it('T-SFE-HINT-01: a hint never falls back to a match outside its range', () => {
    const original = 'x = 1\ny = 2\nz = 3\n';
    const result = applySnippetEdit(original, { oldSnippet: 'x = 1', newSnippet: 'x = 9', matchHint: { startLine: 2, endLine: 3 } });
    expect(result.status).toBe('no_match');
    if (result.status !== 'no_match') return;
    expect(result.message).toContain('line(s) 1');
    expect(result.message).toContain('never falls back');
    expect('text' in result).toBe(false);
  });

  it('T-SFE-HINT-01: a match that only partly lies in the hint does not count', () => {
    const result = applySnippetEdit('a\nb\nc\n', { oldSnippet: 'b\nc', newSnippet: 'B', matchHint: { startLine: 1, endLine: 2 } });
    expect(result.status).toBe('no_match');
  });

  it('T-SFE-HINT-01: several matches inside the hint are still ambiguous', () => {
    const result = applySnippetEdit('k\nk\nk\n', { oldSnippet: 'k', newSnippet: 'K', matchHint: { startLine: 2, endLine: 3 } });
    expect(result).toMatchObject({ status: 'ambiguous', candidateLines: [2, 3] });
  });

  it('T-SFE-HINT-01: rejects a malformed hint', () => {
    expect(applySnippetEdit('a', { oldSnippet: 'a', newSnippet: 'b', matchHint: { startLine: 3, endLine: 2 } })).toMatchObject({
      status: 'error',
      code: 'TEXT_MATCH_HINT_INVALID',
    });
    expect(applySnippetEdit('a', { oldSnippet: 'a', newSnippet: 'b', matchHint: { startLine: 0, endLine: 2 } })).toMatchObject({
      status: 'error',
      code: 'TEXT_MATCH_HINT_INVALID',
    });
  });

  it('an empty old_snippet is an error result with a clear message', () => {
    const result = applySnippetEdit('abc', { oldSnippet: '', newSnippet: 'x' });
    expect(result).toMatchObject({ status: 'error', code: 'TEXT_EMPTY_SNIPPET' });
    if (result.status === 'error') expect(result.message).toContain('old_snippet is empty');
  });

  it('FR-SFE-12: no match returns a limited set of nearest candidate lines', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `const value${i} = compute(${i});`);
    const original = `${lines.join('\n')}\n`;
    const result = applySnippetEdit(original, { oldSnippet: 'const value7 = compute(8);', newSnippet: 'x' });
    expect(result.status).toBe('no_match');
    if (result.status !== 'no_match') return;
    expect(result.candidates.length).toBeGreaterThan(0);
    expect(result.candidates.length).toBeLessThanOrEqual(5);
    expect(result.candidates[0]).toEqual({ line: 8, preview: 'const value7 = compute(7);' });
    expect(result.message).toContain('line 8: const value7 = compute(7);');
  });

  it('no match says where a whitespace-insensitive match is, and how its whitespace differs', () => {
    // Whitespace inside a line is not something the recovery ladder tolerates.
    const original = 'function f() {\n\treturn 1;\n}\n';
    const result = applySnippetEdit(original, { oldSnippet: 'function f()  {\n    return 1;', newSnippet: 'x' });
    expect(result.status).toBe('no_match');
    if (result.status !== 'no_match') return;
    expect(result.message).toContain('Lines 1-2 match if whitespace is ignored');
    expect(result.message).toContain('line 2: indentation "\\t" in the file, "    " in the old text');
    expect(result.message).toContain('line 1: whitespace inside the line differs');
  });

  it('never splits an astral character', () => {
    const original = '😀';
    // A lone high surrogate is a broken snippet; it must not match half of the emoji.
    const result = applySnippetEdit(original, { oldSnippet: '\ud83d', newSnippet: 'x' });
    expect(result.status).toBe('no_match');
    expect(applySnippetEdit('a😀b', { oldSnippet: '😀', newSnippet: '𝄞' })).toMatchObject({ status: 'ok', text: 'a𝄞b' });
  });
});

describe('applySnippetEdit: properties', () => {
  it('property: a snippet edit changes exactly the matched region, byte for byte', () => {
    fc.assert(
      fc.property(fileArb(), fc.nat(), fc.nat(), fc.string({ maxLength: 8, unit: fc.constantFrom('x', 'y', '\n', '\r\n', '😀', '\t') }), ({ text }, x, y, newSnippet) => {
        const offsets = safeOffsets(text);
        const a = offsets[x % offsets.length];
        const b = offsets[y % offsets.length];
        fc.pre(a !== b);
        const [lo, hi] = a < b ? [a, b] : [b, a];
        const oldSnippet = text.slice(lo, hi);
        // A one-line snippet starting after a line's indentation re-indents the new lines (tested on its own).
        fc.pre(!/(^|[\r\n])[ \t]+$/.test(text.slice(0, lo)));
        const occurrences = countOccurrences(naiveLF(text), naiveLF(oldSnippet));
        const result = applySnippetEdit(text, { oldSnippet, newSnippet });
        if (occurrences > 1) {
          expect(result.status).toBe('ambiguous');
          return;
        }
        expect(result.status).toBe('ok');
        if (result.status !== 'ok') return;
        const replacement = convertNewlines(newSnippet, analyzeNewlines(text).dominant);
        expect(result.text).toBe(text.slice(0, lo) + replacement + text.slice(hi));
      }),
      { numRuns: 300 },
    );
  });

  it('property: a failed snippet edit returns no text', () => {
    fc.assert(
      fc.property(fileArb(), ({ text }) => {
        const result = applySnippetEdit(text, { oldSnippet: '§ not in the alphabet', newSnippet: 'x' });
        expect(result.status).toBe('no_match');
        expect('text' in result).toBe(false);
      }),
      { numRuns: 100 },
    );
  });
});
