/** Issue 28: the agents' own transcripts become a session's messages and tool calls. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { claudeCodeLastTurn, claudeCodeTurns, codexTurns, turnsToCommit } from '../../../src/agents';

const claude = readFileSync('test/fixtures/agents/claude-code-2.1.197.jsonl', 'utf8');
const codex = readFileSync('test/fixtures/agents/codex-rollout.jsonl', 'utf8');

describe('Claude Code transcript converter (issue 28)', () => {
  it('a transcript written by Claude Code 2.1.197: prompt, text, tool_use/tool_result pairs, model', () => {
    const turns = claudeCodeTurns(claude);
    expect(turns).toHaveLength(1);
    const turn = turns[0]!;
    expect(turn).toMatchObject({ agent: 'claude-code', model: 'claude-mock-1', agentSessionId: 'a5e7f74a-4367-49c3-9d28-01d9940ad842' });
    expect(turn.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(turn.messages[0]!.content).toBe('fix add in math.js');
    // Text and the tool call of one API response (two transcript entries) are one message.
    expect(turn.messages[1]).toMatchObject({ content: 'Reading.', toolCalls: [{ id: 'toolu_1', tool: 'Read' }] });
    expect(turn.toolCalls.map((c) => [c.tool, c.ok])).toEqual([['Read', true], ['Edit', true], ['Bash', true]]);
    expect(String(turn.toolCalls[2]!.output)).toContain('PASS');
    expect(turn.messages.at(-1)!.content).toBe('Fixed add; the test passes.');
  });

  it('a turn per prompt; the last one is what the Stop hook commits; a committed key is not committed again', () => {
    const second = [
      { type: 'user', uuid: 'u2', sessionId: 's', message: { role: 'user', content: [{ type: 'text', text: 'and now?' }] } },
      { type: 'assistant', uuid: 'a2', sessionId: 's', message: { id: 'm9', role: 'assistant', model: 'claude-x', content: [{ type: 'thinking', thinking: '…' }, { type: 'tool_use', id: 't9', name: 'Bash', input: { command: 'false' } }], usage: { input_tokens: 5, output_tokens: 2 } } },
      { type: 'user', uuid: 'r2', sessionId: 's', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't9', content: [{ type: 'text', text: 'exit 1' }], is_error: true }] } },
      { type: 'user', isMeta: true, uuid: 'meta', message: { role: 'user', content: 'Caveat: local command' } },
    ].map((e) => JSON.stringify(e)).join('\n');
    const text = `${claude}\n${second}\n{"type":"assistant","mess`;
    const turns = claudeCodeTurns(text);
    expect(turns).toHaveLength(2);
    const last = claudeCodeLastTurn(text)!;
    expect(last).toMatchObject({ key: 'u2', model: 'claude-x' });
    expect(last.messages[1]).toMatchObject({ role: 'assistant', content: '', usage: { inputTokens: 5, outputTokens: 2 } });
    expect(last.toolCalls).toEqual([{ id: 't9', tool: 'Bash', args: { command: 'false' }, ok: false, error: { code: 'AGENT_TOOL_ERROR', message: 'exit 1' } }]);
    expect(turnsToCommit(turns, new Set([turns[0]!.key])).map((t) => t.key)).toEqual(['u2']);
  });
});

describe('Codex rollout converter (issue 28)', () => {
  it('prompts (not the environment context), function and custom tool calls with outputs, the model of turn_context', () => {
    const turns = codexTurns(codex);
    expect(turns).toHaveLength(2);
    const [first, second] = turns;
    expect(first).toMatchObject({ agent: 'codex', model: 'gpt-mock-codex', agentSessionId: '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' });
    expect(first!.messages[0]).toEqual({ role: 'user', content: 'fix add in math.js' });
    expect(first!.toolCalls.map((c) => [c.tool, c.ok])).toEqual([['shell', true], ['apply_patch', true], ['shell', true]]);
    expect(first!.toolCalls[0]!.args).toEqual({ command: ['bash', '-lc', 'cat math.js'] });
    expect(first!.toolCalls[1]!.args).toEqual({ input: expect.stringContaining('+export const add = (a, b) => a + b;') });
    expect(first!.toolCalls[2]!.output).toBe('PASS\n');
    expect(first!.messages.at(-1)).toEqual({ role: 'assistant', content: 'Fixed add; the test passes.' });
    expect(second!.messages).toEqual([{ role: 'user', content: 'second prompt: anything else?' }, { role: 'assistant', content: 'Nothing else.' }]);
  });
});

describe('Codex rollout written by Codex CLI 0.169.0 (issue 28)', () => {
  it('skips the developer and environment-context messages; the prompt, the answer, the model and the thread id remain', () => {
    const turns = codexTurns(readFileSync('test/fixtures/agents/codex-0.169.0-rollout.jsonl', 'utf8'));
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ agent: 'codex', model: 'gpt-mock', agentSessionId: '01a216dc-e07b-7f60-ae12-02784b0820a4', toolCalls: [] });
    expect(turns[0]!.messages).toEqual([{ role: 'user', content: 'say hi' }, { role: 'assistant', content: 'Hello from mock.' }]);
  });
});
