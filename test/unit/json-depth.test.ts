/** jsonNestingDepth (issue 24: a tool's result and schema are measured before the host walks them) against a recursive model. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonNestingDepth } from '../../src/tools/json-depth';

function modelDepth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(modelDepth));
}

describe('jsonNestingDepth', () => {
  it('equals the nesting depth of the value JSON.stringify wrote, strings with brackets and escapes included', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        const text = JSON.stringify(value);
        expect(jsonNestingDepth(text, 1000)).toBe(modelDepth(value));
      }),
    );
  });

  it('stops at stopAt + 1 on deep input', () => {
    const text = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(jsonNestingDepth(text, 512)).toBe(513);
    expect(jsonNestingDepth('["[[[[\\"", {"a": "}}}"}]', 10)).toBe(2);
  });
});
