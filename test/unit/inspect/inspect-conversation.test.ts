/**
 * The review page's conversation order (src/inspect/conversation.ts): text and tool calls
 * interleaved as they happened, each call summarized; checked on examples and as a property
 * (nothing lost or repeated, each sequence's own order kept).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interleave, summarizeCall, type ConversationItem } from '../../../src/inspect/conversation';
import type { Message, ToolCallRecord } from '../../../src/session';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const call = (id: string, s: number, tool = 'read_file', args: unknown = { path: 'a.txt' }, ok = true): ToolCallRecord => ({ id, turn: 1, tool, args, ok, at: at(s), ...(ok ? { output: 'x' } : { error: { code: 'PATH_NOT_FOUND', message: 'no' } }) });
const msg = (role: Message['role'], content: string, s: number, extra: Partial<Message> = {}): Message => ({ role, content, turn: 1, at: at(s), ...extra });
const shape = (items: ConversationItem[]) => items.map((i) => (i.kind === 'message' ? `${i.role}:${i.text}` : `call:${i.index}`));

describe('interleave', () => {
  it("puts each assistant message's calls right after it, and leaves out the tool results of recorded calls", () => {
    const calls = [call('c1', 2), call('c2', 4), call('c3', 5)];
    const messages = [
      msg('user', 'fix it', 0),
      msg('assistant', 'first I read', 1, { toolCalls: [{ id: 'c1', tool: 'read_file', args: {} }] }),
      msg('tool', 'contents', 2, { toolCallId: 'c1' }),
      msg('assistant', 'now two more', 3, { toolCalls: [{ id: 'c3', tool: 'read_file', args: {} }, { id: 'c2', tool: 'read_file', args: {} }] }),
      msg('tool', 'r3', 5, { toolCallId: 'c3' }),
      msg('tool', 'r2', 5, { toolCallId: 'c2' }),
      msg('assistant', 'done', 6),
    ];
    // The old page showed every text first and every call after: ['user', 'assistant', 'assistant', 'assistant', calls...].
    expect(shape(interleave(messages, calls))).toEqual(['user:fix it', 'assistant:first I read', 'call:0', 'assistant:now two more', 'call:2', 'call:1', 'assistant:done']);
  });

  it('places calls no message names (a scripted turn) by their time', () => {
    const calls = [call('a', 2), call('b', 3)];
    const messages = [msg('user', 'go', 1), msg('assistant', 'after the calls', 4)];
    expect(shape(interleave(messages, calls))).toEqual(['user:go', 'call:0', 'call:1', 'assistant:after the calls']);
    expect(shape(interleave([msg('user', 'go', 1)], [call('late', 9)]))).toEqual(['user:go', 'call:0']);
  });

  it('keeps a tool message whose call is not recorded, and drops empty text', () => {
    expect(shape(interleave([msg('assistant', '  ', 1), msg('tool', 'orphan result', 2, { toolCallId: 'gone' })], []))).toEqual(['tool:orphan result']);
  });

  it('loses nothing and repeats nothing, and keeps the order of the messages and of the calls', () => {
    const arb = fc
      .record({
        calls: fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 12 }),
        messages: fc.array(fc.record({ role: fc.constantFrom<Message['role']>('user', 'assistant', 'tool'), s: fc.integer({ min: 0, max: 50 }), names: fc.array(fc.nat(15), { maxLength: 3 }), result: fc.nat(15), empty: fc.boolean() }), { maxLength: 12 }),
      })
      .map(({ calls, messages }) => {
        const records = calls.map((s, i) => call(`c${i}`, s));
        const ms = [...messages]
          .sort((a, b) => a.s - b.s)
          .map((m, i) =>
            msg(m.role, m.empty ? '' : `m${i}`, m.s, m.role === 'assistant' ? { toolCalls: m.names.map((n) => ({ id: `c${n}`, tool: 'read_file', args: {} })) } : m.role === 'tool' ? { toolCallId: `c${m.result}` } : {}),
          );
        return { records, ms };
      });
    fc.assert(
      fc.property(arb, ({ records, ms }) => {
        const items = interleave(ms, records);
        const callIndexes = items.filter((i) => i.kind === 'call').map((i) => (i as { index: number }).index);
        expect([...callIndexes].sort((a, b) => a - b)).toEqual(records.map((_, i) => i));
        const ids = new Set(records.map((r) => r.id));
        const expectedMessages = ms.filter((m) => m.content.trim() !== '' && !(m.role === 'tool' && m.toolCallId !== undefined && ids.has(m.toolCallId))).map((m) => m.content);
        expect(items.filter((i) => i.kind === 'message').map((i) => (i as { text: string }).text)).toEqual(expectedMessages);
        // A call named by an assistant message comes after that message.
        items.forEach((item, position) => {
          if (item.kind !== 'call') return;
          const namer = ms.findIndex((m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.id === records[item.index]!.id));
          if (namer === -1 || ms[namer]!.content.trim() === '') return;
          const namerPosition = items.findIndex((i) => i.kind === 'message' && i.text === ms[namer]!.content);
          expect(namerPosition).toBeLessThan(position);
        });
      }),
    );
  });
});

describe('summarizeCall', () => {
  it('says the tool, the path, what changed and ok or the error code', () => {
    expect(summarizeCall(call('w', 0, 'write_file', { path: 'src/a.ts', content: 'a\nb\nc\n' }))).toEqual({ tool: 'write_file', path: 'src/a.ts', change: 'wrote 3 lines', ok: true, error: null });
    expect(summarizeCall(call('e', 0, 'Edit', { path: 'a', old_snippet: 'x\ny', new_snippet: 'z' })).change).toBe('replaced 2 lines with 1');
    expect(summarizeCall(call('e', 0, 'Edit', { path: 'a', start_line: 3, end_line: 5, new_content: 'q\n' })).change).toBe('replaced lines 3–5 with 1 line');
    expect(summarizeCall(call('p', 0, 'Patch', { path: 'a', patches: [{ operation: 'append_eof', newText: 'x' }, { operation: 'replace', oldText: 'a', newText: 'b' }] })).change).toBe('2 patches (append_eof, replace)');
    expect(summarizeCall(call('r', 0, 'run_command', { command: 'node   --test\n  --watch' })).change).toBe('node --test --watch');
    expect(summarizeCall(call('f', 0, 'read_file', { path: 'missing' }, false))).toEqual({ tool: 'read_file', path: 'missing', change: 'read', ok: false, error: 'PATH_NOT_FOUND' });
    expect(summarizeCall(call('g', 0, 'grep', { pattern: 'TODO', path: 'src' })).change).toBe('pattern: TODO');
    expect(summarizeCall(call('n', 0, 'odd', null))).toEqual({ tool: 'odd', path: null, change: '', ok: true, error: null });
    expect(summarizeCall(call('l', 0, 'run_command', { command: 'x'.repeat(200) })).change).toHaveLength(80);
  });

  it("counts a long write from the turn's commit, not from the start the session record kept of it", () => {
    // boundForRecord keeps 512 characters of a long string and says how many more there were.
    const cut = { path: 'big.txt', content: `${'line\n'.repeat(102)}li… [24488 more characters not kept in the session record]` };
    expect(summarizeCall(call('w', 0, 'write_file', cut), new Map([['big.txt', { added: 5000, removed: 0 }]])).change).toBe('wrote the file (+5000 -0 this turn)');
    expect(summarizeCall(call('w', 0, 'write_file', cut)).change).toBe('wrote 25000 characters');
  });
});
