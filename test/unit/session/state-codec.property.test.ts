import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionStateSchema, type SessionState } from '../../../src/session/state';
import { encodeState, utf8Length } from '../../../src/session/state-codec';

/** What the state file was before the tool calls were encoded one at a time. */
const wholeDocument = (state: SessionState) => new TextEncoder().encode(JSON.stringify(SessionStateSchema.parse(state), null, 2) + '\n');

// Strings with every kind of UTF-16 unit: ASCII, two- and three-byte characters, pairs and lone surrogates, newlines.
const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', '\n', '"', '\\', 'é', '€', '\u2028', '😀', '\ud800', '\udc00'), fc.string({ maxLength: 1 })) });
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(text, tie('value'), { maxKeys: 3 })),
})).value;

const record = fc.record(
  {
    id: text,
    turn: fc.nat(9),
    tool: text,
    args: json,
    ok: fc.boolean(),
    output: json,
    error: fc.record({ code: text, message: text }),
    at: text,
  },
  { requiredKeys: ['id', 'turn', 'tool', 'args', 'ok', 'at'] },
);

const stateArb: fc.Arbitrary<SessionState> = fc.record({
  version: fc.constantFrom(1 as const, 2 as const),
  id: text,
  branch: text,
  createdAt: text,
  updatedAt: text,
  base: fc.record({ ref: text, commit: text }, { requiredKeys: ['commit'] }),
  mode: fc.constantFrom('restricted' as const, 'unrestricted' as const),
  turn: fc.nat(9),
  messages: fc.array(fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const, 'tool' as const), content: text, turn: fc.nat(9), at: text }), { maxLength: 3 }),
  toolCalls: fc.array(record, { maxLength: 6 }),
  activeFiles: fc.array(text, { maxLength: 3 }),
  readHashes: fc.dictionary(text, text, { maxKeys: 3 }),
  clipboards: fc.dictionary(text, text, { maxKeys: 3 }),
  undo: fc.constant(null),
}) as fc.Arbitrary<SessionState>;

describe('encodeState (the tool calls encoded one at a time)', () => {
  it('writes the bytes of the whole document parsed and stringified at once', () => {
    fc.assert(
      fc.property(stateArb, (state) => {
        expect(Buffer.from(encodeState(state)).equals(Buffer.from(wholeDocument(state)))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the bytes when the records are too many to keep as strings between its passes', () => {
    const base = fc.sample(stateArb, { numRuns: 1, seed: 7 })[0]!;
    const big = 'ü'.repeat(3000);
    const state = { ...base, toolCalls: Array.from({ length: 1500 }, (_, k) => ({ id: `call_${k}`, turn: 1, tool: 'write_file', args: { path: `f${k}`, content: big }, ok: true, output: `wrote f${k}`, at: 'now' })) };
    expect(Buffer.from(encodeState(state)).equals(Buffer.from(wholeDocument(state)))).toBe(true);
  });

  it('fails as the whole document\'s parse does (its paths from the top)', () => {
    const base = fc.sample(stateArb, { numRuns: 1, seed: 3 })[0]!;
    const bad = { ...base, toolCalls: [{ id: 'a', turn: 1, tool: 't', args: {}, ok: 'yes', at: 'now' }] } as unknown as SessionState;
    expect(() => encodeState(bad)).toThrow(/toolCalls/);
    expect(() => encodeState({ ...base, mode: 'other' } as unknown as SessionState)).toThrow(/mode/);
  });

  it('counts UTF-8 bytes as TextEncoder writes them', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
      }),
    );
  });
});
