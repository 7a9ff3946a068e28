import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyLineEdit, type LineEditResult } from '../../../src/text';
import { fileArb, naiveDominant } from './arbitraries';

function ok(result: LineEditResult): string {
  if (result.status !== 'ok') throw new Error(`expected ok, got ${result.code}: ${result.message}`);
  return result.text;
}

describe('applyLineEdit', () => {
  it('replaces exactly the given lines, keeping every other byte', () => {
    expect(ok(applyLineEdit('a\nb\nc\nd\n', { startLine: 2, endLine: 3, newContent: 'X\nY\nZ\n' }))).toBe('a\nX\nY\nZ\nd\n');
  });

  it('a newContent without final newline gets the range terminator, so the next line is not glued on', () => {
    expect(ok(applyLineEdit('a\r\nb\r\nc\r\n', { startLine: 2, endLine: 2, newContent: 'B' }))).toBe('a\r\nB\r\nc\r\n');
  });

  it('keeps the lack of a final newline when the last line is replaced', () => {
    expect(ok(applyLineEdit('a\nb', { startLine: 2, endLine: 2, newContent: 'B\n' }))).toBe('a\nB');
    expect(ok(applyLineEdit('a\nb', { startLine: 2, endLine: 2, newContent: 'B1\nB2' }))).toBe('a\nB1\nB2');
  });

  it('writes inner newlines in the dominant style but keeps the replaced terminator', () => {
    // Dominant is CRLF; the replaced line 3 ended with a lone CR, which is kept.
    expect(ok(applyLineEdit('a\r\nb\r\nc\rd', { startLine: 3, endLine: 3, newContent: 'x\ny' }))).toBe('a\r\nb\r\nx\r\ny\rd');
  });

  it('an empty newContent deletes the lines with their terminators', () => {
    const result = applyLineEdit('a\nb\nc\n', { startLine: 2, endLine: 2, newContent: '' });
    expect(result).toMatchObject({ status: 'ok', text: 'a\nc\n', startLine: 2, endLine: 1 });
  });

  it('a newContent of one newline leaves one empty line', () => {
    expect(ok(applyLineEdit('a\nb\nc\n', { startLine: 2, endLine: 2, newContent: '\n' }))).toBe('a\n\nc\n');
  });

  it('rejects startLine > endLine with a clear error', () => {
    const result = applyLineEdit('a\nb\n', { startLine: 2, endLine: 1, newContent: 'x' });
    expect(result).toMatchObject({ status: 'error', code: 'TEXT_LINE_RANGE_INVALID' });
    if (result.status === 'error') expect(result.message).toContain('start_line 2 is after end_line 1');
  });

  it('rejects a range past the end and states the line count', () => {
    const result = applyLineEdit('a\nb\n', { startLine: 2, endLine: 3, newContent: 'x' });
    expect(result).toMatchObject({ status: 'error', code: 'TEXT_LINE_RANGE_INVALID' });
    if (result.status === 'error') expect(result.message).toContain('has 2 line(s)');
  });

  it('rejects lines below 1, fractions and an empty file', () => {
    expect(applyLineEdit('a', { startLine: 0, endLine: 1, newContent: 'x' }).status).toBe('error');
    expect(applyLineEdit('a', { startLine: 1.5, endLine: 2, newContent: 'x' }).status).toBe('error');
    expect(applyLineEdit('', { startLine: 1, endLine: 1, newContent: 'x' }).status).toBe('error');
  });

  it('property: line-range edits agree with a naive split/replace/join model', () => {
    const lineEditCase = fc.record({
      file: fileArb(),
      s: fc.nat(),
      len: fc.nat({ max: 4 }),
      newContent: fc.string({ maxLength: 10, unit: fc.constantFrom('n', 'é', '😀', '\t', '\n', '\r\n', '\r') }),
    });
    fc.assert(
      fc.property(lineEditCase, ({ file: { text }, s, len, newContent }) => {
        const lines = text.match(/[^\r\n]*(\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
        fc.pre(lines.length > 0);
        const startLine = (s % lines.length) + 1;
        const endLine = Math.min(lines.length, startLine + len);
        const result = applyLineEdit(text, { startLine, endLine, newContent });

        const terminator = /(\r\n|\r|\n)$/.exec(lines[endLine - 1])?.[0] ?? '';
        const nl = naiveDominant(text);
        let replacement: string[] = [];
        if (newContent !== '') {
          const parts = newContent.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
          replacement = parts.map((p, i) => p + (i === parts.length - 1 ? terminator : nl));
        }
        const expected = [...lines.slice(0, startLine - 1), ...replacement, ...lines.slice(endLine)].join('');
        expect(ok(result)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});
