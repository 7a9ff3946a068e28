/** Rendering registry results as MCP results, annotations from definitions, and the call queue. */
import { describe, expect, it } from 'vitest';
import { ForgeError } from '../../../src/errors';
import { SerialQueue } from '../../../src/session/serial-queue';
import { toolAnnotations } from '../../../src/mcp/tool-list';
import { errorResult, renderOutputText, successResult, toToolError } from '../../../src/mcp/tool-results';

describe('tool results', () => {
  it('renders read_file as its numbered lines under a header with the hash, other outputs as JSON', () => {
    const page = { path: 'a.ts', file_hash: 'h1', type: 'file', content: '1\tone\n2\ttwo', total_lines: 3, start_line: 1, end_line: 2, next_start_line: 3, message: 'Showing lines 1-2 of 3. Call read_file again with start_line 3 for more.' };
    expect(renderOutputText('read_file', page)).toBe('a.ts: lines 1-2 of 3, file_hash h1\n1\tone\n2\ttwo\nShowing lines 1-2 of 3. Call read_file again with start_line 3 for more.');
    expect(renderOutputText('read_file', { path: 'b.bin', file_hash: 'h2', type: 'file', binary: true, size: 4, message: 'b.bin is a binary file (4 bytes); its content is not shown.' })).toBe(
      'b.bin: file_hash h2\nb.bin is a binary file (4 bytes); its content is not shown.',
    );
    expect(renderOutputText('read_file', { path: 'e', file_hash: 'h3', type: 'file', content: '', total_lines: 0, message: 'e is empty.' })).toBe('e: file_hash h3\ne is empty.');
    expect(renderOutputText('write_file', { path: 'x', created: true })).toBe('{"path":"x","created":true}');
  });

  it('gives structuredContent only for object outputs', () => {
    expect(successResult('t', { a: 1 })).toEqual({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
    expect(successResult('t', [1, 2])).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
    expect(successResult('t', null)).toEqual({ content: [{ type: 'text', text: 'null' }] });
  });

  it('turns a failure into isError: code first, then hint and data, the whole error under _meta', () => {
    const error = { code: 'UNDO_REFUSED' as const, message: 'Undo refused: hash mismatch: a.txt changed after the edit. Nothing was reverted.', data: { reason: 'hash mismatch', path: 'a.txt' }, hint: 'Read it and fix it with Edit instead.' };
    expect(errorResult(error)).toEqual({
      isError: true,
      content: [
        { type: 'text', text: 'UNDO_REFUSED: Undo refused: hash mismatch: a.txt changed after the edit. Nothing was reverted.\nHint: Read it and fix it with Edit instead.' },
        { type: 'text', text: 'Details: {"reason":"hash mismatch","path":"a.txt"}' },
      ],
      _meta: { 'forge/error': error },
    });
    expect(errorResult({ code: 'TOOL_DENIED', message: 'No.' })).toEqual({ isError: true, content: [{ type: 'text', text: 'TOOL_DENIED: No.' }], _meta: { 'forge/error': { code: 'TOOL_DENIED', message: 'No.' } } });
  });

  it('keeps the code of a thrown ForgeError and calls anything else INTERNAL', () => {
    expect(toToolError(new ForgeError('REF_CAS_FAILED', 'moved', { data: { ref: 'r' } }))).toEqual({ code: 'REF_CAS_FAILED', message: 'moved', data: { ref: 'r' } });
    expect(toToolError(new TypeError('x is undefined'))).toEqual({ code: 'INTERNAL', message: 'x is undefined' });
  });
});

describe('annotations from the tool definition', () => {
  it('maps sideEffects, destructive and idempotent to MCP hints', () => {
    expect(toolAnnotations({ sideEffects: false })).toEqual({ readOnlyHint: true, openWorldHint: false });
    // Read-only tools get no destructive/idempotent hints (MCP: meaningful only when not read-only).
    expect(toolAnnotations({ sideEffects: false, idempotent: true, destructive: true })).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(toolAnnotations({ sideEffects: true })).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    expect(toolAnnotations({ sideEffects: true, idempotent: true })).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    expect(toolAnnotations({ sideEffects: true, destructive: false, idempotent: false })).toEqual({ readOnlyHint: false, destructiveHint: false, openWorldHint: false });
  });
});

describe('SerialQueue', () => {
  it('runs operations one at a time in arrival order; a failure does not stop the next', async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    const op = (name: string, ms: number, fail = false) => () =>
      new Promise<string>((resolve, reject) => {
        events.push(`start ${name}`);
        setTimeout(() => {
          events.push(`end ${name}`);
          if (fail) reject(new Error(name));
          else resolve(name);
        }, ms);
      });
    const results = await Promise.allSettled([queue.run(op('a', 20)), queue.run(op('b', 1, true)), queue.run(op('c', 5))]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['a', 'b', 'c']);
    expect(results[1]!.status).toBe('rejected');
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    await queue.idle();
  });
});
