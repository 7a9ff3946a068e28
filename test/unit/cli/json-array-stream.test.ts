import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeJsonWithArray } from '../../../src/cli/json-array-stream';

afterEach(() => vi.restoreAllMocks());

function captured(run: () => void): { text: string; writes: number } {
  const pieces: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    pieces.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  });
  run();
  vi.restoreAllMocks();
  return { text: pieces.join(''), writes: pieces.length };
}

describe('writeJsonWithArray (forge turn --json, written a piece at a time)', () => {
  it('writes the bytes of JSON.stringify of the whole document and a newline', () => {
    const item = (v: unknown) => (typeof v === 'object' && v !== null && 'skip' in v ? undefined : { wrapped: v });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.oneof(fc.jsonValue(), fc.constant({ skip: true }))), (head, items) => {
        const { text } = captured(() => writeJsonWithArray(head, 'results', items, item));
        expect(text).toBe(`${JSON.stringify({ ...head, results: items.map(item) })}\n`);
      }),
    );
  });

  it('writes a long array in several pieces, never as one string', () => {
    const items = Array.from({ length: 5000 }, (_, k) => ({ tool: 'write_file', ok: true, output: `wrote gen/f${k}.txt (${k} bytes) ${'x'.repeat(40)}` }));
    const { text, writes } = captured(() => writeJsonWithArray({ session: 's', commit: 'c' }, 'results', items, (v) => v));
    expect(JSON.parse(text)).toEqual({ session: 's', commit: 'c', results: items });
    expect(writes).toBeGreaterThan(3);
  });
});
