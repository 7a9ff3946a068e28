import { describe, expect, it } from 'vitest';
import { parseTrailers, subjectOf, summarizeLine, turnCommitMessage } from '../../../src/session';

describe('turnCommitMessage', () => {
  it('summarizes the turn: first non-empty line of the user message, the changed paths, then the trailers', () => {
    expect(turnCommitMessage({ sessionId: 's', turn: 3, userMessage: '\n  Fix the bug  \nmore', changedPaths: ['a', 'b/c'] })).toBe(
      'Fix the bug\n\nChanged:\n  a\n  b/c\n\nForge-Session: s\nForge-Turn: 3\n',
    );
  });

  it('lists at most 50 paths and says how many more', () => {
    const paths = Array.from({ length: 53 }, (_, i) => `f${i}`);
    const message = turnCommitMessage({ sessionId: 's', turn: 1, changedPaths: paths });
    expect(message).toContain('  f49\n  … and 3 more\n');
    expect(message).not.toContain('  f50\n');
    expect(message.split('\n')[0]).toBe('Forge turn 1');
  });

  it('uses the caller\'s message as is (trailing space trimmed) and still adds notes and trailers', () => {
    expect(turnCommitMessage({ sessionId: 'x', turn: 2, message: 'Mine\n\nbody\n\n', notes: ['Undo of turn 1'], changedPaths: ['a'] })).toBe(
      'Mine\n\nbody\n\nUndo of turn 1\n\nForge-Session: x\nForge-Turn: 2\n',
    );
  });

  it('shortens a long subject to 72 characters with an ellipsis', () => {
    const line = summarizeLine('x'.repeat(100));
    expect(line).toHaveLength(72);
    expect(line.endsWith('…')).toBe(true);
  });
});

describe('parseTrailers / subjectOf', () => {
  it('reads the trailers of the last paragraph only', () => {
    const message = turnCommitMessage({ sessionId: 'abc', turn: 7, userMessage: 'Key: not a trailer', changedPaths: [] });
    expect(parseTrailers(message)).toEqual({ 'Forge-Session': 'abc', 'Forge-Turn': '7' });
    expect(subjectOf(message)).toBe('Key: not a trailer');
    expect(parseTrailers('no trailers here')).toEqual({});
  });
});

describe('withReplaysTrailer', () => {
  it('joins a message’s trailer block, starts one after a plain message, and keeps the first original', async () => {
    const { withReplaysTrailer, parseTrailers: trailers } = await import('../../../src/session');
    const turnMessage = 'Fix it\n\nChanged:\n  a.txt\n\nForge-Session: s1\nForge-Turn: 2\n';
    const once = withReplaysTrailer(turnMessage, 'a'.repeat(40));
    expect(once).toBe(`${turnMessage}Forge-Replays: ${'a'.repeat(40)}\n`);
    expect(withReplaysTrailer(once, 'b'.repeat(40))).toBe(once);
    expect(trailers(withReplaysTrailer('A person fixes a typo\n', 'c'.repeat(40)))).toEqual({ 'Forge-Replays': 'c'.repeat(40) });
    expect(withReplaysTrailer('A person fixes a typo\n', 'c'.repeat(40)).split('\n')[1]).toBe('');
  });
});
