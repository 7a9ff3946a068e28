/**
 * `forge turn --calls`: the hand-written check of the common case (isCallList, no copy of the
 * calls) accepts exactly what the schema accepts, and parseCalls answers as the schema did:
 * the same calls, or INVALID_ARGUMENT with the schema's message.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isCallList, parseCalls } from '../../../src/cli/turn-calls';

const schema = z.array(z.strictObject({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()).optional(), id: z.string().optional() }));

const value = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 4 }), fc.constant([]), fc.constant({}), fc.constant({ path: 'a.txt' }));
const call = fc.record(
  {
    tool: fc.oneof(fc.constant('write_file'), fc.constant(''), fc.integer(), fc.constant(null)),
    args: fc.oneof(fc.dictionary(fc.oneof(fc.constant('path'), fc.constant('content'), fc.string({ maxLength: 3 })), value, { maxKeys: 3 }), value),
    id: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()),
    extra: value,
  },
  { requiredKeys: [] },
);
const input = fc.oneof(fc.array(call, { maxLength: 4 }), value, fc.array(value, { maxLength: 3 }));

describe('forge turn --calls', () => {
  it('isCallList accepts exactly what the schema accepts', () => {
    fc.assert(
      fc.property(input, (raw) => {
        expect(isCallList(raw)).toBe(schema.safeParse(raw).success);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts objects without a prototype as the schema does (a property run\'s counterexample)', () => {
    const raw = [{ tool: 'write_file', args: Object.create(null) as Record<string, unknown> }];
    expect(schema.safeParse(raw).success).toBe(true);
    expect(isCallList(raw)).toBe(true);
  });

  it('parseCalls gives the schema\'s calls or its message', () => {
    fc.assert(
      fc.property(input, (raw) => {
        const bytes = Buffer.from(JSON.stringify(raw) ?? 'null');
        const expected = schema.safeParse(JSON.parse(bytes.toString('utf8')));
        if (expected.success) expect(parseCalls(bytes)).toEqual(expected.data);
        else {
          const issue = expected.error.issues[0]!;
          expect(() => parseCalls(bytes)).toThrow(`at ${issue.path.join('.') || 'top level'}: ${issue.message}.`);
        }
      }),
      { numRuns: 500 },
    );
  });
});
