/**
 * Claude Code transcripts of an interactive run: local slash commands (/exit and its "Bye!")
 * are not turns (an interactive run committed them as two empty turns); a custom command the
 * model answered is. The transcript cut for a resumed session stops at the first turn not kept,
 * never at a local command.
 */
import { describe, expect, it } from 'vitest';
import { claudeCodeTranscriptUpTo, claudeCodeTurns } from '../../../src/agents/claude-code';

const user = (uuid: string, content: string, extra: object = {}) => ({ type: 'user', uuid, sessionId: 's', message: { role: 'user', content }, ...extra });
const assistant = (uuid: string, text: string) => ({ type: 'assistant', uuid, sessionId: 's', message: { id: `m-${uuid}`, role: 'assistant', model: 'claude-x', content: [{ type: 'text', text }] } });
const jsonl = (entries: object[]) => entries.map((e) => JSON.stringify(e)).join('\n') + '\n';

const EXIT = '<command-name>/exit</command-name>\n            <command-message>exit</command-message>\n            <command-args></command-args>';

describe('Claude Code slash commands', () => {
  const text = jsonl([
    user('p1', 'first'),
    assistant('a1', 'one'),
    user('c0', '<local-command-caveat>Caveat: local commands below.</local-command-caveat>', { isMeta: true }),
    user('c1', '<command-name>/model</command-name>'),
    user('c2', '<local-command-stdout>Set model to x</local-command-stdout>'),
    user('r1', '<command-name>/review</command-name>\n<command-args>src</command-args>'),
    assistant('a2', 'reviewed'),
    user('p3', 'third'),
    assistant('a3', 'three'),
    user('c3', EXIT),
    user('c4', '<local-command-stdout>Bye!</local-command-stdout>'),
  ]);

  it('local commands and their output are no turns; an answered custom command is', () => {
    expect(claudeCodeTurns(text).map((t) => [t.key, t.messages.map((m) => m.content)])).toEqual([
      ['p1', ['first', 'one']],
      ['r1', ['<command-name>/review</command-name>\n<command-args>src</command-args>', 'reviewed']],
      ['p3', ['third', 'three']],
    ]);
  });

  it('the transcript as of a turn ends before the next turn, past local commands', () => {
    const upTo = (keep: string[]) => {
      const cut = claudeCodeTranscriptUpTo(text, new Set(keep));
      return [cut.keys, cut.entries.map((e) => e['uuid'])];
    };
    expect(upTo(['p1'])).toEqual([['p1'], ['p1', 'a1', 'c0', 'c1', 'c2']]);
    expect(upTo(['p1', 'r1'])).toEqual([['p1', 'r1'], ['p1', 'a1', 'c0', 'c1', 'c2', 'r1', 'a2']]);
    expect(upTo(['p1', 'r1', 'p3'])[1]).toHaveLength(11);
    expect(upTo([])).toEqual([[], []]);
  });
});
