/**
 * The turn loop on a memfs repository with the scripted provider (and small fakes): one commit
 * per turn with the exact conversation, failing tools, every limit, cancellation and
 * continuation, provider failures, commit messages from a cheap model, and the run plan.
 */
import { describe, expect, it } from 'vitest';
import { Agent, conversationOf, type AgentOptions } from '../../../src/agent/loop';
import type { AgentEvent } from '../../../src/agent/events';
import { ScriptSchema, ScriptedProvider, type ChatRequest, type ChatResponse, type Provider, type Script } from '../../../src/agent/providers';
import { planScript, planTask, runTurns } from '../../../src/agent/run';
import { ForgeError, isForgeError } from '../../../src/errors';
import { readStateAt, SessionStore, type Message, type Session } from '../../../src/session';
import { allowAll, allowReadOnly } from '../../../src/tools';
import { MEMFS_BACKENDS, text } from '../../helpers/engine-repos';

const MATH = 'export function average(values) {\n  return sum(values) / values.length;\n}\n';
const FILES = { 'src/math.js': MATH, 'README.md': '# demo\n' };

let clock = Date.parse('2024-06-01T10:00:00Z');
const tick = () => new Date((clock += 1000));

function script(turns: Script['turns']): Script {
  return ScriptSchema.parse({ turns });
}

const FIX_TURN = {
  user: 'Make average safe for an empty list.',
  replies: [
    { text: 'Reading it.', tool_calls: [{ tool: 'read_file', args: { path: 'src/math.js' } }] },
    { tool_calls: [{ tool: 'Edit', args: { path: 'src/math.js', old_snippet: '  return sum', new_snippet: '  if (values.length === 0) return 0;\n  return sum' } }] },
    { text: 'Done: average([]) is 0.' },
  ],
};

async function setup(files: Record<string, string> = FILES) {
  const r = await MEMFS_BACKENDS[0]!.make({ files });
  const repo = await r.open();
  const store = new SessionStore(repo, tick);
  const session = await store.create({ id: 's' });
  const start = session.head;
  /** The same session as a new process sees it. */
  const reopen = async () => new SessionStore(await r.open(), tick).open('s');
  return { r, repo, store, session, start, reopen };
}

function agent(session: Session, provider: Provider | Script, extra: Partial<AgentOptions> = {}) {
  const events: AgentEvent[] = [];
  const a = new Agent({
    session,
    provider: 'turns' in provider ? new ScriptedProvider(provider) : provider,
    approval: allowAll,
    persistSummaries: false,
    onEvent: (e) => events.push(e),
    ...extra,
  });
  return { agent: a, events };
}

/** Wraps a provider, keeping every request. */
class Recording implements Provider {
  readonly name: string;
  readonly requests: ChatRequest[] = [];
  constructor(
    private readonly inner: Provider,
    private readonly before?: (n: number, request: ChatRequest) => void | Promise<void>,
  ) {
    this.name = inner.name;
  }
  async complete(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(request);
    await this.before?.(this.requests.length, request);
    return this.inner.complete(request);
  }
}

const roles = (messages: Message[]) => messages.map((m) => m.role);

describe('a turn', () => {
  it('goes user -> model -> tools -> model ... and commits code and conversation as ONE commit', async () => {
    const { r, repo, session, start } = await setup();
    const { agent: a, events } = agent(session, script([FIX_TURN]));
    const outcome = await a.runTurn(FIX_TURN.user);
    expect(outcome).toMatchObject({ status: 'completed', turn: 1, toolCalls: 2, modelCalls: 3, finalText: 'Done: average([]) is 0.' });
    const commit = outcome.commit!.commit;
    expect(await repo.refs.resolve('refs/heads/forge/session/s')).toBe(commit);
    expect((await repo.readCommit(commit)).parents).toEqual([start]);
    expect(outcome.commit!.changes.map((c) => c.path)).toEqual(['src/math.js']);
    expect(text(await session.vfs.readFile('src/math.js'))).toContain('if (values.length === 0) return 0;');

    const state = await readStateAt(repo, commit, 's');
    expect(state.turn).toBe(1);
    expect(roles(state.messages)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(state.messages[1]).toMatchObject({ content: 'Reading it.', toolCalls: [{ id: 'call_1_1', tool: 'read_file', args: { path: 'src/math.js' } }], turn: 1 });
    expect(state.messages[1]!.usage!.inputTokens).toBeGreaterThan(0);
    expect(state.messages[2]).toMatchObject({ role: 'tool', toolCallId: 'call_1_1' });
    expect(JSON.parse(state.messages[2]!.content)).toMatchObject({ path: 'src/math.js', total_lines: 3 });
    expect(state.messages[4]).toMatchObject({ role: 'tool', toolCallId: 'call_2_1' });
    expect(state.messages[4]!.isError).toBeUndefined();
    expect(state.toolCalls.map((c) => [c.id, c.tool, c.ok])).toEqual([
      ['call_1_1', 'read_file', true],
      ['call_2_1', 'Edit', true],
    ]);
    expect(state.undo).toMatchObject({ tool: 'Edit', turn: 1 });
    expect(state.model).toEqual({ provider: 'scripted' });
    expect(events.map((e) => e.type)).toEqual(['turn_start', 'assistant', 'tool_call', 'tool_result', 'assistant', 'tool_call', 'tool_result', 'assistant', 'commit']);
    expect(events.at(-1)).toMatchObject({ type: 'commit', turn: 1, messageSource: 'default', files: [{ path: 'src/math.js', kind: 'modified', added: 1, removed: 0 }] });
    expect((await repo.readCommit(commit)).message).toMatch(/^Make average safe for an empty list\.\n\nChanged:\n  src\/math\.js\n\nForge-Session: s\nForge-Turn: 1\n$/);
    r.fsck();
  });

  it('feeds a failing tool call back to the model, goes on, and commits; the failed call changed nothing', async () => {
    const { repo, session } = await setup();
    const { agent: a, events } = agent(
      session,
      script([
        {
          user: 'edit blindly',
          replies: [
            { tool_calls: [{ tool: 'Edit', args: { path: 'src/math.js', old_snippet: 'no such text', new_snippet: 'x' } }] },
            { tool_calls: [{ tool: 'write_file', args: { path: 'NOTES.md', content: 'notes\n' } }] },
            { text: 'Could not edit; wrote notes instead.' },
          ],
        },
      ]),
    );
    const outcome = await a.runTurn('edit blindly');
    expect(outcome.status).toBe('completed');
    const state = await readStateAt(repo, outcome.commit!.commit, 's');
    const failed = state.messages[2]!;
    expect(failed).toMatchObject({ role: 'tool', isError: true });
    expect(JSON.parse(failed.content).error.code).toBe('FILE_NOT_READ');
    expect(state.toolCalls.map((c) => c.ok)).toEqual([false, true]);
    expect(outcome.commit!.changes.map((c) => c.path)).toEqual(['NOTES.md']);
    expect(text(await session.vfs.readFile('src/math.js'))).toBe(MATH);
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ ok: false, ran: true, error: { code: 'FILE_NOT_READ' } });
  });

  it('sends the whole conversation, the tool schemas and the context with each request; turn 2 sees turn 1', async () => {
    const { session } = await setup();
    const provider = new Recording(new ScriptedProvider(script([FIX_TURN, { user: 'thanks', replies: [{ text: 'welcome' }] }])));
    const { agent: a } = agent(session, provider);
    await a.runTurn(FIX_TURN.user);
    await a.runTurn('thanks');
    expect(provider.requests).toHaveLength(4);
    const last = provider.requests[3]!;
    expect(last.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'user']);
    expect(last.messages[2]).toMatchObject({ role: 'tool', name: 'read_file', toolCallId: 'call_1_1' });
    expect(last.tools.openai.map((t) => t.function.name)).toContain('Edit');
    expect(last.tools.anthropic.map((t) => t.name)).toContain('read_file');
    expect(last.system).toContain('# Repository files (2)');
    expect(last.system).toContain('src/math.js (');
    expect(last.system).not.toContain('.forge/sessions');
    expect(session.state.turn).toBe(2);
  });

  it('counts active files shown in full as read: an Edit needs no read_file first', async () => {
    const { session } = await setup();
    const { agent: a } = agent(
      session,
      script([
        {
          user: 'use the context',
          replies: [
            { tool_calls: [{ tool: 'update_context', args: { add: ['src/math.js'] } }] },
            { tool_calls: [{ tool: 'Edit', args: { path: 'src/math.js', old_snippet: 'values.length;', new_snippet: '(values.length || 1);' } }] },
            { text: 'ok' },
          ],
        },
      ]),
    );
    const outcome = await a.runTurn('use the context');
    expect(session.state.toolCalls.map((c) => c.ok)).toEqual([true, true]);
    expect(outcome.context!.active).toMatchObject([{ path: 'src/math.js', shown: 'full' }]);
    expect(session.state.activeFiles).toEqual(['src/math.js']);
  });

  it('gives tool calls unique ids when the model repeats one or sends none usable', async () => {
    const { session } = await setup();
    let n = 0;
    const provider: Provider = {
      name: 'sloppy',
      async complete(): Promise<ChatResponse> {
        n++;
        const toolCalls = n === 1 ? [{ id: 'same', name: 'list_files', args: {} }, { id: 'same', name: 'list_files', args: {} }] : n === 2 ? [{ id: '', name: 'list_files', args: {} }, { id: 'has space', name: 'list_files', args: {} }] : [];
        return { text: '', toolCalls, finish: toolCalls.length ? 'tool_calls' : 'end_turn', usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    await agent(session, provider).agent.runTurn('ids');
    const ids = session.state.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id));
    expect(ids).toEqual(['same', 'call_t1_1', 'call_t1_2', 'call_t1_3']);
    expect(session.state.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId)).toEqual(ids);
    expect(session.state.toolCalls.map((c) => c.id)).toEqual(ids);
  });

  it('runs side-effecting calls only as the approval policy says, and records the denial', async () => {
    const { session } = await setup();
    const { agent: a } = agent(session, script([{ user: 'write', replies: [{ tool_calls: [{ tool: 'write_file', args: { path: 'x.txt', content: 'x' } }] }, { text: 'denied' }] }]), {
      approval: allowReadOnly(),
    });
    const outcome = await a.runTurn('write');
    expect(outcome.status).toBe('completed');
    expect(session.state.toolCalls[0]).toMatchObject({ tool: 'write_file', ok: false, error: { code: 'TOOL_DENIED' } });
    expect(outcome.commit!.changes).toEqual([]);
  });
});

describe('limits', () => {
  it('tool calls: the call over the limit is not run, the turn commits with a note and reports LIMIT_TOOL_CALLS', async () => {
    const { repo, session } = await setup();
    const provider = new Recording(
      new ScriptedProvider(
        script([
          {
            user: 'many calls',
            replies: [
              {
                tool_calls: [
                  { tool: 'write_file', args: { path: 'a.txt', content: 'a' } },
                  { tool: 'write_file', args: { path: 'b.txt', content: 'b' } },
                  { tool: 'write_file', args: { path: 'c.txt', content: 'c' } },
                ],
              },
              { text: 'never asked' },
            ],
          },
        ]),
      ),
    );
    const { agent: a, events } = agent(session, provider, { limits: { maxToolCalls: 2 } });
    const outcome = await a.runTurn('many calls');
    expect(outcome.status).toBe('limit');
    expect(outcome.error!.code).toBe('LIMIT_TOOL_CALLS');
    expect(provider.requests).toHaveLength(1);
    expect(outcome.commit!.changes.map((c) => c.path)).toEqual(['a.txt', 'b.txt']);
    const state = await readStateAt(repo, outcome.commit!.commit, 's');
    const notRun = state.messages.at(-1)!;
    expect(notRun).toMatchObject({ role: 'tool', toolCallId: 'call_1_3', isError: true });
    expect(JSON.parse(notRun.content).error).toMatchObject({ code: 'LIMIT_TOOL_CALLS' });
    expect(state.toolCalls).toHaveLength(2);
    expect(outcome.commit!.message).toContain('Stopped early: The turn reached its limit of 2 tool calls.');
    expect(events.filter((e) => e.type === 'error')).toEqual([expect.objectContaining({ code: 'LIMIT_TOOL_CALLS', committed: true })]);
    expect(events.find((e) => e.type === 'tool_result' && !e.ran)).toMatchObject({ id: 'call_1_3', summary: 'not run: LIMIT_TOOL_CALLS' });
  });

  it('tokens: no model call starts that would pass the limit', async () => {
    const { session } = await setup();
    let calls = 0;
    const provider: Provider = {
      name: 'fake',
      async complete(): Promise<ChatResponse> {
        calls++;
        return { text: '', toolCalls: [{ id: `c${calls}`, name: 'list_files', args: {} }], finish: 'tool_calls', usage: { inputTokens: 9000, outputTokens: 500 } };
      },
    };
    const { agent: a } = agent(session, provider, { limits: { maxTokens: 12_000 } });
    const outcome = await a.runTurn('spend');
    expect(calls).toBe(1);
    expect(outcome).toMatchObject({ status: 'limit', usage: { inputTokens: 9000, outputTokens: 500 } });
    expect(outcome.error!.code).toBe('LIMIT_TOKENS');
    expect(outcome.error!.message).toMatch(/token limit \(12000\): 9500 used/);
    expect(session.state.toolCalls).toHaveLength(1);
  });

  it('tokens: a request that alone exceeds the limit is never sent', async () => {
    const { session } = await setup();
    const provider = new Recording(new ScriptedProvider(script([{ user: 'x', replies: [] }])));
    const outcome = await agent(session, provider, { limits: { maxTokens: 50 } }).agent.runTurn('x');
    expect(provider.requests).toHaveLength(0);
    expect(outcome.status).toBe('limit');
    expect(outcome.commit).toBeDefined();
  });

  it('time: checked between steps (an injected clock)', async () => {
    const { session } = await setup();
    let now = 0;
    const provider = new Recording(
      new ScriptedProvider(script([{ user: 'slow', replies: [1, 2, 3, 4].map(() => ({ tool_calls: [{ tool: 'list_files', args: {} }] })) }])),
      () => void (now += 400),
    );
    const { agent: a } = agent(session, provider, { clock: () => now, limits: { maxTurnMs: 1000 } });
    const outcome = await a.runTurn('slow');
    expect(provider.requests).toHaveLength(3);
    expect(outcome.error!.code).toBe('LIMIT_TIME');
    // The third answer came after the deadline: its call was not run.
    expect(session.state.toolCalls).toHaveLength(2);
    expect(outcome.commit).toBeDefined();
  });

  it('time: a model request in flight is aborted at the deadline, and the turn commits', async () => {
    const { session } = await setup();
    const hanging: Provider = {
      name: 'hanging',
      complete: (request) =>
        new Promise((_resolve, reject) => request.signal!.addEventListener('abort', () => reject(new ForgeError('AGENT_CANCELLED', 'aborted')))),
    };
    const started = Date.now();
    const outcome = await agent(session, hanging, { limits: { maxTurnMs: 100 } }).agent.runTurn('wait');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(outcome).toMatchObject({ status: 'limit' });
    expect(outcome.error!.code).toBe('LIMIT_TIME');
    expect(outcome.commit!.turn).toBe(1);
  });

  it('refuses limits that are not positive', async () => {
    const { session } = await setup();
    expect(() => agent(session, script([FIX_TURN]), { limits: { maxToolCalls: 0 } })).toThrow(/maxToolCalls/);
  });
});

describe('cancellation and continuation', () => {
  const TWO_CALLS = {
    user: 'two writes',
    replies: [
      {
        tool_calls: [
          { tool: 'write_file', args: { path: 'one.txt', content: '1' } },
          { tool: 'write_file', args: { path: 'two.txt', content: '2' } },
        ],
      },
      { text: 'both written' },
    ],
  };

  it('keeps the pending layer and the conversation journaled, moves nothing; running again continues the turn', async () => {
    const { repo, session, start, reopen } = await setup();
    const controller = new AbortController();
    const { agent: a, events } = agent(session, script([TWO_CALLS]), {
      signal: controller.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'tool_result') controller.abort();
      },
    });
    const outcome = await a.runTurn('two writes');
    expect(outcome.status).toBe('cancelled');
    expect(outcome.error!.code).toBe('AGENT_CANCELLED');
    expect(outcome.commit).toBeUndefined();
    expect(await repo.refs.resolve('refs/heads/forge/session/s')).toBe(start);
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'AGENT_CANCELLED', committed: false });

    // A new process: the journal brings back the written file and the conversation so far.
    const again = await reopen();
    expect(text(await again.vfs.readFile('one.txt'))).toBe('1');
    expect(await again.vfs.exists('two.txt')).toBe(false);
    const { agent: b, events: later } = agent(again, script([TWO_CALLS]));
    expect(b.turnInProgress).toBe('two writes');
    const done = await b.runTurn();
    expect(done.status).toBe('completed');
    expect(later[0]).toMatchObject({ type: 'turn_start', continued: true, user: 'two writes' });
    expect(done.commit!.changes.map((c) => c.path)).toEqual(['one.txt', 'two.txt']);
    const state = await readStateAt(repo, done.commit!.commit, 's');
    expect(roles(state.messages)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(state.toolCalls.map((c) => c.id)).toEqual(['call_1_1', 'call_1_2']);
  });

  it('a call that ran before the stop gets its recorded result instead of running twice', async () => {
    const { session, reopen } = await setup();
    const { agent: a } = agent(session, script([TWO_CALLS]));
    // Simulate a crash between running a call and recording its result message.
    await session.recordUserMessage('two writes');
    await session.recordMessage({ role: 'assistant', content: '', toolCalls: [{ id: 'call_1_1', tool: 'write_file', args: { path: 'one.txt', content: '1' } }, { id: 'call_1_2', tool: 'write_file', args: { path: 'two.txt', content: '2' } }] });
    await a.runner.call({ tool: 'write_file', args: { path: 'one.txt', content: '1' }, id: 'call_1_1' });
    const { agent: b } = agent(await reopen(), script([TWO_CALLS]));
    const done = await b.runTurn('two writes');
    expect(done.status).toBe('completed');
    expect(b.session.state.toolCalls.map((c) => c.id)).toEqual(['call_1_1', 'call_1_2']);
    expect(roles(b.session.state.messages)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
  });

  it('does nothing when cancelled before it starts', async () => {
    const { session } = await setup();
    const controller = new AbortController();
    controller.abort();
    const outcome = await agent(session, script([FIX_TURN]), { signal: controller.signal }).agent.runTurn(FIX_TURN.user);
    expect(outcome.status).toBe('cancelled');
    expect(session.state.messages).toEqual([]);
  });

  it('refuses a different message while a turn is unfinished, and continuing when none is', async () => {
    const { session } = await setup();
    const { agent: a } = agent(session, script([FIX_TURN]));
    await expect(a.runTurn()).rejects.toMatchObject({ code: 'AGENT_NO_TURN_IN_PROGRESS' });
    await session.recordUserMessage('something else');
    await expect(a.runTurn(FIX_TURN.user)).rejects.toMatchObject({ code: 'AGENT_TURN_IN_PROGRESS' });
  });

  it('a provider failure commits nothing; the turn continues later with a working provider', async () => {
    const { repo, session, start } = await setup();
    const down: Provider = {
      name: 'down',
      complete: async () => {
        throw new ForgeError('PROVIDER_UNAVAILABLE', 'down after 4 attempts');
      },
    };
    const { agent: a, events } = agent(session, down);
    const failed = await a.runTurn(FIX_TURN.user);
    expect(failed).toMatchObject({ status: 'failed' });
    expect(failed.error!.code).toBe('PROVIDER_UNAVAILABLE');
    expect(await repo.refs.resolve('refs/heads/forge/session/s')).toBe(start);
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'PROVIDER_UNAVAILABLE', committed: false });
    const done = await agent(session, script([FIX_TURN])).agent.runTurn(FIX_TURN.user);
    expect(done.status).toBe('completed');
    expect(roles(session.state.messages)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  });
});

describe('commit messages', () => {
  function cheap(answer: string | Error) {
    const requests: ChatRequest[] = [];
    const provider: Provider = {
      name: 'cheap',
      model: 'mini',
      async complete(request) {
        requests.push(request);
        if (answer instanceof Error) throw answer;
        return { text: answer, toolCalls: [], finish: 'end_turn', usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    return { provider, requests };
  }

  it('come from the cheap model when one is configured, with the diff in the request', async () => {
    const { session, repo } = await setup();
    const model = cheap('```\nGuard average against empty lists\n\nReturns 0 for [].\nForge-Turn: 99\n```');
    const { agent: a, events } = agent(session, script([FIX_TURN]), { commitMessages: model.provider });
    const outcome = await a.runTurn(FIX_TURN.user);
    expect((await repo.readCommit(outcome.commit!.commit)).message).toBe('Guard average against empty lists\n\nReturns 0 for [].\n\nForge-Session: s\nForge-Turn: 1\n');
    expect(model.requests[0]!.messages[0]!.content).toContain('+  if (values.length === 0) return 0;');
    expect(model.requests[0]!.tools.openai).toEqual([]);
    expect(events.find((e) => e.type === 'commit')).toMatchObject({ messageSource: 'model', subject: 'Guard average against empty lists' });
  });

  it('fall back to the deterministic summary when the cheap model fails, and skip it without code changes', async () => {
    const { session } = await setup();
    const failing = cheap(new Error('down'));
    const first = await agent(session, script([FIX_TURN]), { commitMessages: failing.provider }).agent.runTurn(FIX_TURN.user);
    expect(first.commit!.message.split('\n')[0]).toBe('Make average safe for an empty list.');
    const quiet = cheap('unused');
    const second = await agent(session, script([{ user: 'just talk', replies: [{ text: 'hi' }] }]), { commitMessages: quiet.provider }).agent.runTurn('just talk');
    expect(quiet.requests).toHaveLength(0);
    expect(second.commit!.message).toMatch(/^just talk\n\nNo code changes\./);
  });
});

describe('runs and plans', () => {
  const S = script([
    { user: 'one', replies: [{ text: '1' }] },
    { user: 'two', replies: [{ text: '2' }] },
    { user: 'three', replies: [{ text: '3' }] },
  ]);

  it('runs planned turns up to maxTurns and reports the rest; a later run skips what the session has', async () => {
    const { session } = await setup();
    const { agent: a, events } = agent(session, S);
    const first = await runTurns(a, planScript(S, session.state, a.turnInProgress), { maxTurns: 2, onEvent: (e) => events.push(e) });
    expect(first).toMatchObject({ status: 'completed', committed: 2, remainingTurns: 1 });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', turns: 2, remainingTurns: 1, head: session.head, session: 's' });
    const plan = planScript(S, session.state, a.turnInProgress);
    expect(plan).toEqual({ continuePending: false, messages: ['three'], skipped: 2 });
    const second = await runTurns(a, plan);
    expect(second).toMatchObject({ committed: 1, remainingTurns: 0 });
    expect(session.state.turn).toBe(3);
  });

  it('plans to continue an unfinished script turn, and refuses an unfinished turn from elsewhere', async () => {
    const { session } = await setup();
    await session.recordUserMessage('one');
    expect(planScript(S, session.state, 'one')).toEqual({ continuePending: true, messages: ['two', 'three'], skipped: 0 });
    expect(planTask('one', session.state, 'one')).toEqual({ continuePending: true, messages: [], skipped: 0 });
    expect(planTask(undefined, session.state, 'one')).toEqual({ continuePending: true, messages: [], skipped: 0 });
    expect(() => planTask('other', session.state, 'one')).toThrow(expect.objectContaining({ code: 'AGENT_TURN_IN_PROGRESS' }));
    const other = await setup();
    await other.session.recordUserMessage('not in the script');
    expect(() => planScript(S, other.session.state, 'not in the script')).toThrow(expect.objectContaining({ code: 'AGENT_TURN_IN_PROGRESS' }));
    const fresh = (await setup()).session.state;
    expect(() => planTask(undefined, fresh, null)).toThrow(expect.objectContaining({ code: 'AGENT_NO_TURN_IN_PROGRESS' }));
  });

  it('stops at the first turn that does not complete and says so in done', async () => {
    const { session } = await setup();
    const events: AgentEvent[] = [];
    const { agent: a } = agent(session, S, { limits: { maxTokens: 50 } });
    const result = await runTurns(a, planScript(S, session.state, null), { onEvent: (e) => events.push(e) });
    expect(result).toMatchObject({ status: 'limit', committed: 1, remainingTurns: 2 });
    expect(isForgeError(result.error, 'LIMIT_TOKENS')).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'limit', turns: 1 });
  });
});

describe('conversationOf', () => {
  it('maps the state to provider messages and leaves out results of unknown calls', () => {
    const at = '2024-01-01T00:00:00Z';
    const messages: Message[] = [
      { role: 'user', content: 'u', turn: 1, at },
      { role: 'tool', content: 'orphan', toolCallId: 'zz', turn: 1, at },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', tool: 'read_file', args: { path: 'a' } }], turn: 1, at },
      { role: 'tool', content: '{"error":{}}', toolCallId: 'c1', isError: true, turn: 1, at },
      { role: 'assistant', content: 'done', turn: 1, at },
    ];
    expect(conversationOf(messages)).toEqual([
      { role: 'user', content: 'u' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'a' } }] },
      { role: 'tool', toolCallId: 'c1', name: 'read_file', content: '{"error":{}}', isError: true },
      { role: 'assistant', content: 'done' },
    ]);
  });
});
