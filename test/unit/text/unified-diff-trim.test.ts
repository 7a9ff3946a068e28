import { applyPatch, createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../src/text';

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
});
