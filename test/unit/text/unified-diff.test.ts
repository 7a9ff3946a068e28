import { describe, expect, it } from 'vitest';
import { diffStat, unifiedDiff } from '../../../src/text';

describe('unifiedDiff (REQ-PATCH-007)', () => {
  it('REQ-PATCH-007: git-style headers and 3 lines of context', () => {
    const before = 'l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n';
    const after = before.replace('l5', 'L5');
    expect(unifiedDiff('src/a.txt', before, after)).toBe(
      '--- a/src/a.txt\n+++ b/src/a.txt\n@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+L5\n l6\n l7\n l8\n',
    );
  });

  it('uses /dev/null for created and deleted files', () => {
    expect(unifiedDiff('n.txt', null, 'x\n')).toMatch(/^--- \/dev\/null\n\+\+\+ b\/n\.txt\n/);
    expect(unifiedDiff('n.txt', 'x\n', null)).toMatch(/^--- a\/n\.txt\n\+\+\+ \/dev\/null\n/);
  });

  it('is empty when nothing changed, and marks a missing final newline', () => {
    expect(unifiedDiff('a', 'same\n', 'same\n')).toBe('');
    expect(unifiedDiff('a', 'x\n', 'x')).toContain('\\ No newline at end of file');
  });
});

describe('diffStat', () => {
  it('counts added and removed lines', () => {
    expect(diffStat('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual({ added: 2, removed: 1 });
    expect(diffStat(null, 'a\nb\n')).toEqual({ added: 2, removed: 0 });
    expect(diffStat('a\n', null)).toEqual({ added: 0, removed: 1 });
    expect(diffStat('a', 'a')).toEqual({ added: 0, removed: 0 });
  });
});
