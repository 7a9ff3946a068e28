import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SESSION_STATE_VERSION, type SessionState } from '../../../src/session/state';
import { StateDeltaTracker, applyStateDeltas, type StateDelta } from '../../../src/session/state-delta';

function committed(): SessionState {
  return {
    version: SESSION_STATE_VERSION,
    id: 's',
    branch: 'forge/session/s',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    base: { commit: 'a'.repeat(40) },
    model: { provider: 'scripted' },
    mode: 'unrestricted',
    turn: 1,
    messages: [{ role: 'user', content: 'old', turn: 1, at: 't' }],
    toolCalls: [],
    activeFiles: ['a'],
    readHashes: { a: 'h1', b: 'h2' },
    clipboards: {},
    undo: null,
  };
}

type Mutation = (s: SessionState) => void;
const key = fc.constantFrom('a', 'b', 'c', 'd/e');
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.string().map((content) => (s: SessionState) => void s.messages.push({ role: 'assistant', content, turn: 2, at: 't' })),
  fc.string().map((tool) => (s: SessionState) => void s.toolCalls.push({ id: tool, turn: 2, tool, args: { x: tool }, ok: true, at: 't' })),
  fc.tuple(key, fc.string()).map(([k, v]) => (s: SessionState) => void (s.readHashes[k] = v)),
  key.map((k) => (s: SessionState) => void delete s.readHashes[k]),
  fc.tuple(key, fc.string()).map(([k, v]) => (s: SessionState) => void (s.clipboards[k] = v)),
  key.map((k) => (s: SessionState) => void delete s.clipboards[k]),
  fc.array(key).map((files) => (s: SessionState) => void (s.activeFiles = files)),
  fc.constantFrom<SessionState['mode']>('restricted', 'unrestricted').map((mode) => (s: SessionState) => void (s.mode = mode)),
  fc.option(key, { nil: null }).map((path) => (s: SessionState) => {
    s.undo = path === null ? null : { tool: 'write_file', turn: 2, summary: path, files: [{ path, existedBefore: false, existsAfter: true, postSha256: 'x' }] };
  }),
  fc.constant((s: SessionState) => void delete s.model),
);

describe('session state deltas', () => {
  it('folding the journaled deltas over the committed state gives the live state, through JSON', () => {
    fc.assert(
      fc.property(fc.array(fc.array(mutation, { maxLength: 4 }), { maxLength: 12 }), (batches) => {
        const start = committed();
        const live = structuredClone(start);
        const tracker = new StateDeltaTracker(start);
        const journal: StateDelta[] = [];
        for (const batch of batches) {
          for (const mutate of batch) mutate(live);
          const delta = tracker.take(live);
          if (delta) journal.push(JSON.parse(JSON.stringify(delta)) as StateDelta);
        }
        expect(applyStateDeltas(start, journal)).toEqual(live);
        expect(start).toEqual(committed());
      }),
      { numRuns: 300 },
    );
  });

  it('a record holds only what changed since the previous one', () => {
    const state = committed();
    const tracker = new StateDeltaTracker(state);
    expect(tracker.take(state)).toBeNull();
    state.toolCalls.push({ id: '1', turn: 2, tool: 'read_file', args: {}, ok: true, at: 't' });
    state.readHashes.c = 'h3';
    expect(tracker.take(state)).toEqual({ toolCalls: [state.toolCalls[0]], set: { readHashes: { c: 'h3' } } });
    state.toolCalls.push({ id: '2', turn: 2, tool: 'read_file', args: {}, ok: true, at: 't' });
    expect(tracker.take(state)).toEqual({ toolCalls: [state.toolCalls[1]] });
  });
});
