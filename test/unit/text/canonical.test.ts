import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isForgeError } from '../../../src/errors';
import { canonicalize } from '../../../src/text';
import { fileArb, naiveLF } from './arbitraries';

describe('canonicalize (FR-SFE-05/06)', () => {
  it('turns CRLF and lone CR into LF', () => {
    expect(canonicalize('a\r\nb\rc\nd').canonical).toBe('a\nb\nc\nd');
  });

  it('maps an offset after a CRLF-born LF past both bytes, and the one before it before the CR', () => {
    const view = canonicalize('a\r\nb');
    expect(view.canonical).toBe('a\nb');
    expect([0, 1, 2, 3].map(view.toOriginal)).toEqual([0, 1, 3, 4]);
  });

  it('maps lone CR one to one', () => {
    const view = canonicalize('a\rb\r');
    expect([0, 1, 2, 3, 4].map(view.toOriginal)).toEqual([0, 1, 2, 3, 4]);
  });

  it('rejects offsets outside the canonical text with a ForgeError', () => {
    const view = canonicalize('ab');
    for (const offset of [-1, 3, 1.5]) {
      let thrown: unknown = null;
      try {
        view.toOriginal(offset);
      } catch (e) {
        thrown = e;
      }
      expect(isForgeError(thrown, 'INTERNAL'), `offset ${offset}`).toBe(true);
    }
  });

  it('property: canonical equals an independent LF conversion, and mapping is exact and monotonic', () => {
    fc.assert(
      fc.property(fileArb(), ({ text }) => {
        const { canonical, toOriginal } = canonicalize(text);
        expect(canonical).toBe(naiveLF(text));
        expect(toOriginal(0)).toBe(0);
        expect(toOriginal(canonical.length)).toBe(text.length);
        for (let i = 0; i < canonical.length; i++) {
          const o = toOriginal(i);
          expect(toOriginal(i + 1)).toBeGreaterThan(o);
          if (canonical[i] === '\n') expect(['\n', '\r']).toContain(text[o]);
          else expect(text[o]).toBe(canonical[i]);
          // A mapped offset never falls between the CR and LF of a CRLF.
          expect(text[o - 1] === '\r' && text[o] === '\n').toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('property: any canonical range maps to an original range with the same canonical text', () => {
    fc.assert(
      fc.property(fileArb(), fc.nat(), fc.nat(), ({ text }, x, y) => {
        const { canonical, toOriginal } = canonicalize(text);
        const a = x % (canonical.length + 1);
        const b = y % (canonical.length + 1);
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(naiveLF(text.slice(toOriginal(lo), toOriginal(hi)))).toBe(canonical.slice(lo, hi));
      }),
      { numRuns: 200 },
    );
  });
});
