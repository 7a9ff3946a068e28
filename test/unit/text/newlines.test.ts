import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { analyzeNewlines, convertNewlines, newlineSequence, toLF } from '../../../src/text';
import { fileArb, naiveDominant } from './arbitraries';

describe('analyzeNewlines', () => {
  it('counts CRLF as one newline, never as CR plus LF', () => {
    expect(analyzeNewlines('a\r\nb\nc\rd\r\n')).toEqual({ lf: 1, crlf: 2, cr: 1, dominant: 'CRLF' });
  });

  it('FR-SFE-07: picks the most frequent kind', () => {
    expect(analyzeNewlines('a\nb\nc\r\n').dominant).toBe('LF');
    expect(analyzeNewlines('a\rb\rc\n').dominant).toBe('CR');
    expect(analyzeNewlines('a\r\nb\r\nc\n').dominant).toBe('CRLF');
  });

  it('FR-SFE-09: breaks ties CRLF > LF > CR', () => {
    expect(analyzeNewlines('a\nb\r\n').dominant).toBe('CRLF');
    expect(analyzeNewlines('a\rb\r\n').dominant).toBe('CRLF');
    expect(analyzeNewlines('a\rb\n').dominant).toBe('LF');
    expect(analyzeNewlines('a\r\nb\nc\r').dominant).toBe('CRLF');
  });

  it('a text without newline is LF', () => {
    expect(analyzeNewlines('').dominant).toBe('LF');
    expect(analyzeNewlines('no newline here').dominant).toBe('LF');
  });

  it('agrees with an independent count on random files', () => {
    fc.assert(
      fc.property(fileArb(), ({ text }) => {
        expect(newlineSequence(analyzeNewlines(text).dominant)).toBe(naiveDominant(text));
      }),
      { numRuns: 200 },
    );
  });
});

describe('convertNewlines', () => {
  it('rewrites every newline style into the target style', () => {
    expect(convertNewlines('a\nb\r\nc\rd', 'CRLF')).toBe('a\r\nb\r\nc\r\nd');
    expect(convertNewlines('a\nb\r\nc\rd', 'CR')).toBe('a\rb\rc\rd');
    expect(toLF('a\r\n\r\rb')).toBe('a\n\n\nb');
  });
});
