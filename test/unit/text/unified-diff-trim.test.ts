import { applyPatch, createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitKeepingEnds, unifiedDiff } from '../../../src/text';
import { trimShared } from '../../../src/text/unified-diff';

const line = fc.constantFrom('alpha\n', 'beta\n', 'gamma\n', 'delta\r\n', '\n', 'x', 'omega\n');
const text = fc.array(line, { maxLength: 40 }).map((lines) => lines.join(''));

describe('unified diffs of large files diff only the changed middle', () => {
  it('REQ-PATCH-007: the diff applies to the old text and gives the new one', () => {
    fc.assert(
      fc.property(text, fc.array(line, { maxLength: 6 }), fc.nat(), fc.nat(3), (before, inserted, at, removed) => {
        const lines = before.match(/[^\n]*\n|[^\n]+$/g) ?? [];
        const i = lines.length === 0 ? 0 : at % (lines.length + 1);
        const after = [...lines.slice(0, i), ...inserted, ...lines.slice(i + removed)].join('');
        const patch = unifiedDiff('f.txt', before, after);
        if (before === after) expect(patch).toBe('');
        else expect(applyPatch(before, patch)).toBe(after);
      }),
      { numRuns: 400 },
    );
  });

  it('gives the same hunks as diffing the whole file when the change is in one place', () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}\n`);
    const before = lines.join('');
    const after = [...lines.slice(0, 1000), 'changed\n', ...lines.slice(1001)].join('');
    const whole = createTwoFilesPatch('a/f.txt', 'b/f.txt', before, after, undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY });
    expect(unifiedDiff('f.txt', before, after)).toBe(whole);
  });

  /** The line-array form the string scan replaced: the model it must agree with. */
  function trimByLines(before: string, after: string, context: number) {
    const a = splitKeepingEnds(before);
    const b = splitKeepingEnds(after);
    let head = 0;
    while (head < a.length && head < b.length && a[head] === b[head]) head++;
    let tail = 0;
    while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
    const cut = Math.max(0, head - context);
    const cutEnd = Math.max(0, tail - context);
    if (cut === 0 && cutEnd === 0) return { before, after, cut: 0 };
    return { before: a.slice(cut, a.length - cutEnd).join(''), after: b.slice(cut, b.length - cutEnd).join(''), cut };
  }

  it('sets aside exactly the shared whole lines that splitting into lines would (any texts, any context)', () => {
    const small = fc.array(fc.constantFrom('a\n', 'a', 'b\n', '\n', '\r\n', 'ab\n', 'b'), { maxLength: 12 }).map((l) => l.join(''));
    fc.assert(
      fc.property(small, small, small, fc.nat(4), (shared, x, y, context) => {
        for (const [before, after] of [[shared + x + shared, shared + y + shared], [x + shared, y + shared], [shared + x, shared + y], [x, y]] as const) {
          expect(trimShared(before, after, context)).toEqual(trimByLines(before, after, context));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('finds the shared lines across its comparison chunks (texts of 100,000 lines)', () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `line ${i} ${'x'.repeat(i % 7)}\n`);
    for (const at of [0, 1, 4095, 50_000, 99_999]) {
      const before = lines.join('');
      const after = [...lines.slice(0, at), 'changed\n', ...lines.slice(at + 1)].join('');
      expect(trimShared(before, after, 3)).toEqual(trimByLines(before, after, 3));
    }
  });
});
