/**
 * The Anthropic provider against a local mock server speaking the Messages API: a whole agent
 * turn with tool_use / tool_result round trips, alternating roles, usage with cache tokens, and
 * the error paths (401, 400, 529 and 5xx retries).
 */
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/loop';
import { AnthropicProvider, NO_TOOLS, toAnthropicMessages } from '../../src/agent/providers';
import { SessionStore } from '../../src/session';
import { allowAll } from '../../src/tools';
import { MEMFS_BACKENDS, text } from '../helpers/engine-repos';
import { AVERAGE_JS, anthropicMessage, withMockServer, type MockServer } from '../helpers/mock-llm-server';

const MATH = AVERAGE_JS;
let server: MockServer;
withMockServer((s) => (server = s));

function provider(extra: Partial<ConstructorParameters<typeof AnthropicProvider>[0]> = {}) {
  return new AnthropicProvider({ apiKey: 'ant-key', model: 'claude-test', baseUrl: server.url, retry: { baseDelayMs: 1, maxAttempts: 3 }, ...extra });
}

const ask = (p: AnthropicProvider) => p.complete({ system: 'sys', messages: [{ role: 'user', content: 'hi' }], tools: NO_TOOLS });

describe('Anthropic provider', () => {
  it('runs a turn with tool_use / tool_result round trips over the wire format, and records usage', async () => {
    const r = await MEMFS_BACKENDS[0]!.make({ files: { 'src/math.js': MATH } });
    const repo = await r.open();
    const session = await new SessionStore(repo).create({ id: 'an' });
    server.plan(
      { json: anthropicMessage([{ text: 'Reading.' }, { id: 'toolu_1', name: 'read_file', input: { path: 'src/math.js' } }], { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 50, cache_creation_input_tokens: 5 }) },
      {
        json: anthropicMessage([
          { id: 'toolu_2', name: 'Edit', input: { path: 'src/math.js', old_snippet: '  return sum', new_snippet: '  if (values.length === 0) return 0;\n  return sum' } },
          { id: 'toolu_3', name: 'Edit', input: { path: 'src/math.js', old_snippet: 'not there', new_snippet: 'x' } },
        ]),
      },
      { json: anthropicMessage([{ text: 'Done; the second edit was not needed.' }], { input_tokens: 300, output_tokens: 12 }) },
    );
    const outcome = await new Agent({ session, provider: provider(), approval: allowAll, persistSummaries: false }).runTurn('Make average safe.');
    expect(outcome).toMatchObject({ status: 'completed', toolCalls: 3, usage: { inputTokens: 555, outputTokens: 42 } });
    expect(server.requests).toHaveLength(3);
    expect(server.unexpected).toBe(0);

    const [first, second, third] = server.requests;
    expect(first!.path).toBe('/v1/messages');
    expect(first!.headers['x-api-key']).toBe('ant-key');
    expect(first!.headers['anthropic-version']).toBe('2023-06-01');
    expect(first!.headers.authorization).toBeUndefined();
    expect(first!.body).toMatchObject({ model: 'claude-test', max_tokens: 8192 });
    expect(first!.body.system).toContain('# Repository files (1)');
    expect(first!.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Make average safe.' }] }]);
    const read = first!.body.tools.find((t: { name: string }) => t.name === 'read_file');
    expect(read).toMatchObject({ description: expect.any(String), input_schema: { type: 'object', properties: { path: { type: 'string' } } } });

    expect(second!.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/math.js' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: expect.stringContaining('"total_lines":3') }] },
    ]);
    const results = third!.body.messages.at(-1);
    expect(results.role).toBe('user');
    expect(results.content.map((b: { type: string; tool_use_id: string; is_error?: boolean }) => [b.type, b.tool_use_id, b.is_error ?? false])).toEqual([
      ['tool_result', 'toolu_2', false],
      ['tool_result', 'toolu_3', true],
    ]);
    expect(JSON.parse(results.content[1].content).error.code).toBe('TEXT_NO_MATCH');

    expect(text(await session.vfs.readFile('src/math.js'))).toContain('if (values.length === 0) return 0;');
    expect(session.state.messages.find((m) => m.role === 'assistant')!.usage).toEqual({ inputTokens: 155, outputTokens: 10 });
    r.fsck();
  });

  it('maps 401 to PROVIDER_AUTH and 400 to PROVIDER_BAD_REQUEST, one request each', async () => {
    server.plan(
      { status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } },
      { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'messages: roles must alternate' } } },
    );
    await expect(ask(provider())).rejects.toMatchObject({ code: 'PROVIDER_AUTH', message: expect.stringContaining('authentication_error: invalid x-api-key'), hint: expect.stringContaining('ANTHROPIC_API_KEY') });
    await expect(ask(provider())).rejects.toMatchObject({ code: 'PROVIDER_BAD_REQUEST', message: expect.stringContaining('roles must alternate') });
    expect(server.requests).toHaveLength(2);
  });

  it('retries 529 (overloaded) and 500, then gives PROVIDER_UNAVAILABLE after the last attempt', async () => {
    server.plan({ status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }, { json: anthropicMessage([{ text: 'ok' }]) });
    expect((await ask(provider())).text).toBe('ok');
    server.plan({ status: 500 }, { status: 529 }, { status: 500, json: { type: 'error', error: { type: 'api_error', message: 'Internal' } } });
    await expect(ask(provider())).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE', message: expect.stringContaining('api_error: Internal') });
    expect(server.requests).toHaveLength(5);
  });

  it('accepts a base URL that already ends in /v1, and reads max_tokens stops', async () => {
    server.plan({ json: anthropicMessage([{ text: 'cut' }], { input_tokens: 1, output_tokens: 2 }, 'max_tokens') });
    expect(await ask(provider({ baseUrl: `${server.url}/v1/`, maxOutputTokens: 64 }))).toMatchObject({ text: 'cut', finish: 'max_tokens' });
    expect(server.requests[0]!.path).toBe('/v1/messages');
    expect(server.requests[0]!.body.max_tokens).toBe(64);
    expect(server.requests[0]!.body.tools).toBeUndefined();
  });
});

describe('toAnthropicMessages', () => {
  it('merges consecutive messages of one role, puts tool results first, and drops empty text', () => {
    expect(
      toAnthropicMessages([
        { role: 'user', content: 'first' },
        { role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'read_file', args: 'not an object' }] },
        { role: 'tool', toolCallId: 't1', name: 'read_file', content: 'r1', isError: true },
        { role: 'user', content: 'next turn' },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'again' },
      ]),
    ).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'r1', is_error: true },
          { type: 'text', text: 'next turn' },
          { type: 'text', text: 'again' },
        ],
      },
    ]);
  });
});
