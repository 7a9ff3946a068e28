/**
 * The approvals file and the limits (issue 18): pure parsing and serialization. Property: any
 * set of approvals survives serialize -> parse unchanged, and the bytes do not depend on the
 * order approvals were added (reviewable, deterministic diffs).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ForgeError } from '../../../src/errors';
import { EMPTY_APPROVALS, parseApprovals, serializeApprovals, withApproval, type Approval } from '../../../src/tools/repo/approvals';
import { nameProblem, stateOf } from '../../../src/tools/repo/discover';
import { DEFAULT_REPO_TOOL_LIMITS, parseRepoToolLimits } from '../../../src/tools/repo/limits';

const hex = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });
const approval: fc.Arbitrary<Approval> = fc.record({ sha256: hex(64), blob: hex(40), approvedBy: fc.string(), approvedAt: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) });
const name = fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/).filter((n) => nameProblem(n, new Set()) === null);

describe('approvals file', () => {
  it('round-trips and serializes independently of insertion order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, approval), { selector: ([n]) => n, maxLength: 8 }), (entries) => {
        const forward = entries.reduce((file, [n, a]) => withApproval(file, n, a), EMPTY_APPROVALS);
        const backward = [...entries].reverse().reduce((file, [n, a]) => withApproval(file, n, a), EMPTY_APPROVALS);
        const bytes = serializeApprovals(forward);
        expect(bytes).toEqual(serializeApprovals(backward));
        expect(parseApprovals(bytes)).toEqual(forward);
      }),
    );
  });

  it('a tool named like an Object.prototype key is never approved by inheritance; __proto__ is refused', () => {
    const a: Approval = { sha256: 'a'.repeat(64), blob: 'b'.repeat(40), approvedBy: 'P <p@x>', approvedAt: '2026-01-01T00:00:00.000Z' };
    expect(nameProblem('__proto__', new Set())).toMatch(/reserved/);
    const file = withApproval(EMPTY_APPROVALS, 'fmt', a);
    expect(Object.keys(parseApprovals(serializeApprovals(file)).tools)).toEqual(['fmt']);
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) expect(stateOf(name, a.sha256, file, null, true)).toBe('unapproved');
  });

  it('a missing file approves nothing; a damaged one is an error naming the file', () => {
    expect(parseApprovals(null)).toEqual(EMPTY_APPROVALS);
    for (const text of ['not json', '{"version": 2, "tools": {}}', '{"version": 1, "tools": {"x": {"sha256": "short"}}}']) {
      const error = (() => {
        try {
          parseApprovals(new TextEncoder().encode(text));
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(ForgeError);
      expect((error as ForgeError).message).toContain('.forge/approved_tools.json');
    }
  });

  it('states: approved only for the exact hash; names of built-ins and invalid names are refused', () => {
    const file = withApproval(EMPTY_APPROVALS, 'fmt', { sha256: 'a'.repeat(64), blob: 'b'.repeat(40), approvedBy: 'P <p@x>', approvedAt: '2026-01-01T00:00:00.000Z' });
    expect(stateOf('fmt', 'a'.repeat(64), file, null, true)).toBe('approved');
    // Committed, but no person approved it on this machine: it does not run.
    expect(stateOf('fmt', 'a'.repeat(64), file, null, false)).toBe('untrusted');
    expect(stateOf('fmt', 'c'.repeat(64), file, null, true)).toBe('changed');
    expect(stateOf('other', 'a'.repeat(64), file, null, true)).toBe('unapproved');
    expect(nameProblem('write_file', new Set(['write_file']))).toMatch(/built-in/);
    expect(nameProblem('has space', new Set())).toMatch(/a-zA-Z0-9_-/);
    expect(nameProblem('fine_name', new Set(['write_file']))).toBeNull();
  });
});

describe('repository tool limits', () => {
  it('defaults, overrides and refusals', () => {
    expect(DEFAULT_REPO_TOOL_LIMITS).toEqual({ time_limit_ms: 2000, memory_limit_bytes: 64 << 20, output_limit_bytes: 1 << 20 });
    expect(parseRepoToolLimits({ time_limit_ms: 50 })).toMatchObject({ time_limit_ms: 50, memory_limit_bytes: 64 << 20 });
    expect(() => parseRepoToolLimits({ time_limit_ms: 0 })).toThrow(/time_limit_ms/);
    expect(() => parseRepoToolLimits({ memory_limit_bytes: 1000 })).toThrow(/memory_limit_bytes/);
    expect(() => parseRepoToolLimits({ unknown: 1 })).toThrow(ForgeError);
  });
});
