import { describe, expect, it } from 'vitest';
import { isForgeError } from '../../../src/errors';
import { decodeState, encodeState, sessionBranch, sessionRef, sessionStatePath, validateSessionId, type SessionState } from '../../../src/session';

const state: SessionState = {
  version: 2,
  id: 's1',
  branch: 'forge/session/s1',
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
  base: { ref: 'HEAD', commit: 'a'.repeat(40) },
  mode: 'unrestricted',
  turn: 0,
  messages: [{ role: 'user', content: 'héllo\r\n', turn: 1, at: '2024-01-01T00:00:01.000Z' }],
  toolCalls: [],
  activeFiles: [],
  readHashes: {},
  clipboards: {},
  undo: null,
};

describe('session state codec', () => {
  it('round-trips, and equal states give byte-equal files whatever the key order', () => {
    const reordered = Object.fromEntries(Object.entries(state).reverse()) as SessionState;
    expect(Buffer.from(encodeState(reordered)).equals(Buffer.from(encodeState(state)))).toBe(true);
    expect(decodeState(encodeState(state), 'test')).toEqual(state);
  });

  it('reads version 1 (every turn\'s calls in one file) as it was written', () => {
    const v1 = { ...state, version: 1 as const };
    expect(decodeState(encodeState(v1), 'test')).toEqual(v1);
  });

  it.each([
    ['not JSON', new TextEncoder().encode('{')],
    ['another version', new TextEncoder().encode(JSON.stringify({ ...state, version: 3 }))],
    ['an unknown field', new TextEncoder().encode(JSON.stringify({ ...state, extra: 1 }))],
    ['a missing field', new TextEncoder().encode(JSON.stringify({ ...state, messages: undefined }))],
  ])('refuses %s with SESSION_STATE_INVALID', (_label, data) => {
    let caught: unknown;
    try {
      decodeState(data, 'test');
    } catch (error) {
      caught = error;
    }
    expect(isForgeError(caught, 'SESSION_STATE_INVALID')).toBe(true);
  });
});

describe('session ids', () => {
  it.each(['abc', 'A-1_b.c', '0', 'x'.repeat(64), '123e4567-e89b-12d3-a456-426614174000'])('accepts %j', (id) => {
    expect(validateSessionId(id)).toBe(id);
    expect(sessionRef(id)).toBe(`refs/heads/forge/session/${id}`);
    expect(sessionBranch(id)).toBe(`forge/session/${id}`);
    expect(sessionStatePath(id)).toBe(`.forge/sessions/${id}.json`);
  });

  it.each(['', '-x', '.x', 'a/b', 'a..b', 'a.lock', 'a.', 'x'.repeat(65), 'a b', 'a~1', 'é'])('refuses %j with INVALID_ARGUMENT', (id) => {
    let caught: unknown;
    try {
      validateSessionId(id);
    } catch (error) {
      caught = error;
    }
    expect(isForgeError(caught, 'INVALID_ARGUMENT')).toBe(true);
  });
});
