/** The scripted provider: the script format, finding its place in a conversation, its replies. */
import { describe, expect, it } from 'vitest';
import { isForgeError } from '../../../src/errors';
import { NO_TOOLS, parseScript, ScriptedProvider, scriptPosition, type ChatMessage } from '../../../src/agent/providers';

const script = parseScript(
  JSON.stringify({
    turns: [
      { user: 'first', replies: [{ text: 'looking', tool_calls: [{ tool: 'read_file', args: { path: 'a' } }, { tool: 'list_files' }] }, { text: 'done 1' }] },
      { user: 'again', replies: [{ text: 'a1' }] },
      { user: 'again', replies: [{ text: 'a2' }] },
      { user: 'tools only', replies: [{ tool_calls: [{ tool: 'search', args: { pattern: 'x' } }] }] },
    ],
  }),
);

const ask = (provider: ScriptedProvider, messages: ChatMessage[]) => provider.complete({ system: 'sys', messages, tools: NO_TOOLS });

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('parseScript', () => {
  it('accepts the documented format with an optional description', () => {
    const parsed = parseScript('{"description": "d", "turns": [{"user": "u", "replies": [{"text": "t"}, {"tool_calls": [{"tool": "read_file", "args": {"path": "x"}}]}]}]}');
    expect(parsed.turns[0]!.replies).toHaveLength(2);
  });

  it('rejects text that is not JSON with SCRIPT_INVALID', () => {
    const error = thrown(() => parseScript('{"turns": [', 'x.json'));
    expect(isForgeError(error, 'SCRIPT_INVALID')).toBe(true);
    expect((error as Error).message).toMatch(/^x\.json is not valid JSON/);
  });

  it.each([
    ['no turns', '{"turns": []}', /turns/],
    ['an unknown key', '{"turns": [{"user": "u", "replies": [], "extra": 1}]}', /turns\[0\]/],
    ['a tool call without a name', '{"turns": [{"user": "u", "replies": [{"tool_calls": [{"args": {}}]}]}]}', /turns\[0\]\.replies\[0\]\.tool_calls\[0\]\.tool/],
    ['args that are not an object', '{"turns": [{"user": "u", "replies": [{"tool_calls": [{"tool": "t", "args": [1]}]}]}]}', /args/],
    ['an empty user message', '{"turns": [{"user": "", "replies": []}]}', /turns\[0\]\.user/],
  ])('rejects %s, naming where', (_label, text, where) => {
    const error = thrown(() => parseScript(text));
    expect(isForgeError(error, 'SCRIPT_INVALID')).toBe(true);
    expect((error as Error).message).toMatch(where);
  });
});

describe('scriptPosition', () => {
  it('maps the k-th occurrence of a user message to the k-th script turn with that text', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'again' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'again' },
    ];
    expect(scriptPosition(script, messages)).toEqual({ turn: 2, reply: 0, assistantMessages: 1 });
  });

  it('counts the assistant messages since the last user message as the reply index', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'looking', toolCalls: [{ id: 'c', name: 'read_file', args: {} }] },
      { role: 'tool', toolCallId: 'c', name: 'read_file', content: '{}' },
    ];
    expect(scriptPosition(script, messages)).toMatchObject({ turn: 0, reply: 1 });
  });

  it('fails with SCRIPT_MISMATCH for a user message the script does not have, or a third "again"', () => {
    expect(isForgeError(thrown(() => scriptPosition(script, [{ role: 'user', content: 'nope' }])), 'SCRIPT_MISMATCH')).toBe(true);
    const third: ChatMessage[] = [
      { role: 'user', content: 'again' },
      { role: 'user', content: 'again' },
      { role: 'user', content: 'again' },
    ];
    expect(isForgeError(thrown(() => scriptPosition(script, third)), 'SCRIPT_MISMATCH')).toBe(true);
    expect(isForgeError(thrown(() => scriptPosition(script, [])), 'SCRIPT_MISMATCH')).toBe(true);
  });
});

describe('ScriptedProvider', () => {
  const provider = new ScriptedProvider(script);

  it('replies with the scripted text and tool calls, with ids unique in the conversation and estimated usage', async () => {
    const first = await ask(provider, [{ role: 'user', content: 'first' }]);
    expect(first.text).toBe('looking');
    expect(first.finish).toBe('tool_calls');
    expect(first.toolCalls).toEqual([
      { id: 'call_1_1', name: 'read_file', args: { path: 'a' } },
      { id: 'call_1_2', name: 'list_files', args: {} },
    ]);
    expect(first.usage.inputTokens).toBeGreaterThan(0);
    expect(first.usage.outputTokens).toBeGreaterThan(0);
    const second = await ask(provider, [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'looking', toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'call_1_1', name: 'read_file', content: '{}' },
      { role: 'tool', toolCallId: 'call_1_2', name: 'list_files', content: '{}' },
    ]);
    expect(second).toMatchObject({ text: 'done 1', toolCalls: [], finish: 'end_turn' });
  });

  it('ends the turn with an empty answer when a turn runs out of replies', async () => {
    const out = await ask(provider, [
      { role: 'user', content: 'tools only' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'x', name: 'search', args: {} }] },
      { role: 'tool', toolCallId: 'x', name: 'search', content: '{}' },
    ]);
    expect(out).toMatchObject({ text: '', toolCalls: [], finish: 'end_turn' });
  });

  it('refuses a request whose signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(provider.complete({ system: '', messages: [{ role: 'user', content: 'first' }], tools: NO_TOOLS, signal: controller.signal })).rejects.toMatchObject({ code: 'AGENT_CANCELLED' });
  });
});
