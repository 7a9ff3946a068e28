/**
 * The OpenAI-compatible provider against a local mock server speaking chat completions: a
 * whole agent turn with tool-call round trips, the exact wire format both ways, usage, and the
 * error paths (401, 400, 429/5xx retries, dropped connections, cancellation).
 */
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/loop';
import { OpenAiProvider, NO_TOOLS } from '../../src/agent/providers';
import { SessionStore } from '../../src/session';
import { allowAll } from '../../src/tools';
import { MEMFS_BACKENDS, text } from '../helpers/engine-repos';
import { AVERAGE_JS, openAiCompletion, withMockServer, type MockServer } from '../helpers/mock-llm-server';

const MATH = AVERAGE_JS;
let server: MockServer;
withMockServer((s) => (server = s));

function provider(extra: Partial<ConstructorParameters<typeof OpenAiProvider>[0]> = {}) {
  return new OpenAiProvider({ apiKey: 'test-key', model: 'gpt-test', baseUrl: `${server.url}/v1`, retry: { baseDelayMs: 1, maxAttempts: 3 }, ...extra });
}

async function session() {
  const r = await MEMFS_BACKENDS[0]!.make({ files: { 'src/math.js': MATH } });
  const repo = await r.open();
  return { r, repo, session: await new SessionStore(repo).create({ id: 'oa' }) };
}

const ask = (p: OpenAiProvider, signal?: AbortSignal) => p.complete({ system: 'sys', messages: [{ role: 'user', content: 'hi' }], tools: NO_TOOLS, ...(signal ? { signal } : {}) });

describe('OpenAI-compatible provider', () => {
  it('runs a turn with tool-call round trips over the wire format, and records usage', async () => {
    const { r, repo, session: s } = await session();
    server.plan(
      { json: openAiCompletion({ content: null, tool_calls: [{ id: 'call_a', name: 'read_file', arguments: '{"path":"src/math.js"}' }] }, { prompt_tokens: 120, completion_tokens: 15 }) },
      {
        json: openAiCompletion(
          {
            content: 'Fixing it.',
            tool_calls: [
              { id: 'call_b', name: 'Edit', arguments: JSON.stringify({ path: 'src/math.js', old_snippet: '  return sum', new_snippet: '  if (values.length === 0) return 0;\n  return sum', match_hint: null, start_line: null, end_line: null, new_content: null, file_hash: null, region_id: null }) },
              { id: 'call_c', name: 'list_files', arguments: '{}' },
            ],
          },
          { prompt_tokens: 300, completion_tokens: 40 },
        ),
      },
      { json: openAiCompletion({ content: 'Done.' }, { prompt_tokens: 400, completion_tokens: 5 }) },
    );
    const agent = new Agent({ session: s, provider: provider(), approval: allowAll, persistSummaries: false });
    const outcome = await agent.runTurn('Make average safe.');
    expect(outcome).toMatchObject({ status: 'completed', toolCalls: 3, modelCalls: 3, usage: { inputTokens: 820, outputTokens: 60 }, finalText: 'Done.' });
    expect(server.requests).toHaveLength(3);
    expect(server.unexpected).toBe(0);

    const [first, second, third] = server.requests;
    expect(first!.method).toBe('POST');
    expect(first!.path).toBe('/v1/chat/completions');
    expect(first!.headers.authorization).toBe('Bearer test-key');
    expect(first!.headers['content-type']).toBe('application/json');
    expect(first!.body.model).toBe('gpt-test');
    expect(first!.body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(first!.body.messages[0].content).toContain('# Repository files (1)');
    expect(first!.body.messages[1]).toEqual({ role: 'user', content: 'Make average safe.' });
    const edit = first!.body.tools.find((t: { function: { name: string } }) => t.function.name === 'Edit');
    expect(edit).toMatchObject({ type: 'function', function: { strict: true, parameters: { type: 'object', additionalProperties: false } } });

    expect(second!.body.messages.slice(2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/math.js"}' } }] },
      { role: 'tool', tool_call_id: 'call_a', content: expect.stringContaining('"total_lines":3') },
    ]);
    const tail = third!.body.messages.slice(4);
    expect(tail[0]).toMatchObject({ role: 'assistant', content: 'Fixing it.', tool_calls: [{ id: 'call_b' }, { id: 'call_c' }] });
    expect(tail.slice(1).map((m: { role: string; tool_call_id: string }) => [m.role, m.tool_call_id])).toEqual([
      ['tool', 'call_b'],
      ['tool', 'call_c'],
    ]);
    expect(JSON.parse(tail[1].content)).toMatchObject({ status: 'ok' });

    expect(text(await s.vfs.readFile('src/math.js'))).toContain('if (values.length === 0) return 0;');
    expect(s.state.messages.filter((m) => m.role === 'assistant').map((m) => m.usage)).toEqual([
      { inputTokens: 120, outputTokens: 15 },
      { inputTokens: 300, outputTokens: 40 },
      { inputTokens: 400, outputTokens: 5 },
    ]);
    expect(s.state.model).toEqual({ provider: 'openai', model: 'gpt-test' });
    expect(await repo.refs.resolve('refs/heads/forge/session/oa')).toBe(outcome.commit!.commit);
    r.fsck();
  });

  it('feeds arguments that are not JSON back as a tool error and goes on', async () => {
    const { session: s } = await session();
    server.plan({ json: openAiCompletion({ tool_calls: [{ id: 'bad', name: 'read_file', arguments: '{"path": "src/ma' }] }) }, { json: openAiCompletion({ content: 'Sorry.' }) });
    const outcome = await new Agent({ session: s, provider: provider(), approval: allowAll, persistSummaries: false }).runTurn('read');
    expect(outcome.status).toBe('completed');
    const toolMessage = server.requests[1]!.body.messages.at(-1);
    expect(toolMessage.tool_call_id).toBe('bad');
    expect(JSON.parse(toolMessage.content).error).toMatchObject({ code: 'TOOL_INPUT_INVALID' });
    expect(s.state.toolCalls[0]).toMatchObject({ ok: false, args: '{"path": "src/ma' });
  });

  it('maps 401 to PROVIDER_AUTH with one request, and the agent keeps the turn pending', async () => {
    const { repo, session: s } = await session();
    const start = s.head;
    server.plan({ status: 401, json: { error: { message: 'Incorrect API key provided: test-***', type: 'invalid_request_error' } } });
    const outcome = await new Agent({ session: s, provider: provider(), approval: allowAll, persistSummaries: false }).runTurn('hello');
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatchObject({ code: 'PROVIDER_AUTH', hint: expect.stringContaining('OPENAI_API_KEY') });
    expect(outcome.error!.message).toContain('Incorrect API key provided');
    expect(server.requests).toHaveLength(1);
    expect(await repo.refs.resolve('refs/heads/forge/session/oa')).toBe(start);
  });

  it('maps 400 to PROVIDER_BAD_REQUEST with the server message, without retrying', async () => {
    server.plan({ status: 400, json: { error: { message: "The model 'gpt-test' does not exist", type: 'invalid_request_error' } } });
    await expect(ask(provider())).rejects.toMatchObject({ code: 'PROVIDER_BAD_REQUEST', message: expect.stringContaining("The model 'gpt-test' does not exist") });
    expect(server.requests).toHaveLength(1);
  });

  it('retries 429 (Retry-After) and 5xx, then answers; usage counts only the answer', async () => {
    server.plan({ status: 429, headers: { 'retry-after': '0' }, json: { error: { message: 'rate limited' } } }, { status: 502, text: 'bad gateway' }, { json: openAiCompletion({ content: 'hello' }, { prompt_tokens: 7, completion_tokens: 3 }) });
    expect(await ask(provider())).toMatchObject({ text: 'hello', finish: 'end_turn', usage: { inputTokens: 7, outputTokens: 3 }, model: 'mock-model' });
    expect(server.requests).toHaveLength(3);
  });

  it('gives PROVIDER_UNAVAILABLE after the last attempt', async () => {
    server.plan({ status: 500, text: 'boom' }, { status: 503, text: 'busy' }, { status: 500, json: { error: { message: 'still down' } } });
    await expect(ask(provider())).rejects.toMatchObject({ code: 'PROVIDER_UNAVAILABLE', message: expect.stringContaining('after 3 attempt(s); last: HTTP 500: still down') });
    expect(server.requests).toHaveLength(3);
    expect(server.unexpected).toBe(0);
  });

  it('retries a dropped connection', async () => {
    server.plan({ drop: true }, { json: openAiCompletion({ content: 'back' }) });
    expect((await ask(provider())).text).toBe('back');
    expect(server.requests).toHaveLength(2);
  });

  it('is cancelled in flight by the signal', async () => {
    server.plan({ delayMs: 5000, json: openAiCompletion({ content: 'late' }) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await expect(ask(provider(), controller.signal)).rejects.toMatchObject({ code: 'AGENT_CANCELLED' });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(server.requests).toHaveLength(1);
  });

  it('reads a cut-off answer, missing usage, and an answer that is not a completion', async () => {
    server.plan(
      { json: { choices: [{ message: { content: 'cut' }, finish_reason: 'length' }] } },
      { json: { object: 'error', detail: 'proxy says hi' } },
    );
    expect(await ask(provider())).toMatchObject({ text: 'cut', finish: 'max_tokens', usage: { inputTokens: 0, outputTokens: 0 } });
    await expect(ask(provider())).rejects.toMatchObject({ code: 'PROVIDER_BAD_RESPONSE' });
  });

  it('sends max_tokens and extra headers when asked, and needs a key and a model', async () => {
    server.plan({ json: openAiCompletion({ content: 'x' }) });
    const p = provider({ baseUrl: `${server.url}/v1/`, headers: { 'X-Title': 'forge' } });
    await p.complete({ system: '', messages: [{ role: 'user', content: 'hi' }], tools: NO_TOOLS, maxOutputTokens: 50 });
    expect(server.requests[0]!.path).toBe('/v1/chat/completions');
    expect(server.requests[0]!.headers['x-title']).toBe('forge');
    expect(server.requests[0]!.body).toEqual({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 });
    expect(() => new OpenAiProvider({ apiKey: '', model: 'm' })).toThrow(expect.objectContaining({ code: 'PROVIDER_NOT_CONFIGURED' }));
    expect(() => new OpenAiProvider({ apiKey: 'k', model: '' })).toThrow(expect.objectContaining({ code: 'PROVIDER_NOT_CONFIGURED' }));
  });
});
