import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closeMatches, editDistance, unknownSessionHint } from '../../../src/cli/suggest';

/** The textbook recurrence, unoptimised: the model the bounded version is checked against. */
function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length]![b.length]!;
}

describe('editDistance', () => {
  it('is the Levenshtein distance, and more than the limit once it exceeds it', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), fc.nat(4), (a, b, limit) => {
        const exact = levenshtein(a, b);
        expect(editDistance(a, b)).toBe(exact);
        const bounded = editDistance(a, b, limit);
        if (exact <= limit) expect(bounded).toBe(exact);
        else expect(bounded).toBeGreaterThan(limit);
      }),
    );
  });
});

describe('closeMatches', () => {
  it('finds a typo, a case slip and a shortened id, closest first', () => {
    expect(closeMatches('s2', ['s1', 'main-task', 'other'])).toEqual(['s1']);
    expect(closeMatches('fix-tets', ['fix-test', 'fix-tests', 'docs'])).toEqual(['fix-tests', 'fix-test']);
    expect(closeMatches('Demo', ['demo'])).toEqual(['demo']);
    expect(closeMatches('3f2a9c', ['3f2a9c41-aaaa-4bbb-8ccc-123456789012', '77777777'])).toEqual(['3f2a9c41-aaaa-4bbb-8ccc-123456789012']);
    expect(closeMatches('completely-different', ['s1', 's2'])).toEqual([]);
    expect(closeMatches('s1', ['s1'])).toEqual([]);
  });
});

describe('unknownSessionHint', () => {
  it('names the close ids, then forge session list', () => {
    expect(unknownSessionHint([])).toBe('"forge session list" shows every session.');
    expect(unknownSessionHint(['s1'])).toBe('did you mean s1? "forge session list" shows every session.');
    expect(unknownSessionHint(['s1', 's3', 's4'])).toBe('did you mean s1, s3 or s4? "forge session list" shows every session.');
  });
});
