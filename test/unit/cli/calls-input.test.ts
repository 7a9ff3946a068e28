import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openCalls, parseCalls } from '../../../src/cli/calls-input';
import { Utf8Text } from '../../../src/tools/utf8-text';

const dir = mkdtempSync(join(tmpdir(), 'forge-calls-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = (bytes: string | Buffer) => {
  const path = join(dir, `calls-${files++}.json`);
  writeFileSync(path, bytes);
  return path;
};

async function readAll(path: string): Promise<unknown[]> {
  const calls = await openCalls(path, { parseWholeUpTo: 0 });
  try {
    return Array.from({ length: calls.length }, (_, i) => calls.call(i));
  } finally {
    calls.close();
  }
}

/** What the whole parse answers: the calls, or its error message. */
function whole(bytes: Buffer): unknown {
  try {
    return { calls: parseCalls(bytes) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

async function perCall(path: string): Promise<unknown> {
  try {
    return { calls: await readAll(path) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const text = fc.string({ unit: fc.oneof(fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', 'é', '😀', '\n'), fc.string({ maxLength: 1 })) });
const call = fc.record({ tool: text, args: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 })), id: text }, { requiredKeys: ['tool'] });

describe('openCalls (forge turn --calls, checked whole, then parsed one call at a time)', () => {
  it('gives the calls of the whole parse, however the array is spaced', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { maxLength: 6 }), fc.constantFrom('', ' ', '\n', '\t\r\n '), async (calls, ws) => {
        // Spacing only outside strings: JSON.stringify of the spaced structure with a whitespace indent.
        const bytes = Buffer.from(ws === '' ? JSON.stringify(calls) : JSON.stringify(calls, null, ws.includes('\t') ? '\t' : 2));
        expect(await perCall(file(bytes))).toEqual(whole(bytes));
      }),
      { numRuns: 100 },
    );
  });

  it.each([
    ['not JSON', '[{"tool": "a"}, {"tool": "b"'],
    ['a trailing comma', '[{"tool": "a"},]'],
    ['an element that is not an object', '[{"tool": "a"}, 3]'],
    ['a nested array', '[[{"tool": "a"}]]'],
    ['a call without a tool', '[{"tool": "a"}, {"args": {}}]'],
    ['an unknown field', '[{"tool": "a", "other": 1}]'],
    ['an object, not an array', '{"tool": "a"}'],
    ['text after the array', '[{"tool": "a"}] x'],
    ['mismatched brackets', '[{"tool": "a"]]'],
    ['a bad escape', '[{"tool": "a\\q"}]'],
    ['an empty file', ''],
  ])('refuses %s with the whole parse\'s message', async (_label, json) => {
    const bytes = Buffer.from(json);
    const expected = whole(bytes) as { error?: string };
    expect(expected.error).toMatch(/^--calls (is not valid JSON|must be a JSON array)/);
    expect(await perCall(file(bytes))).toEqual(expected);
  });

  it('reads an empty array, spaced arrays and non-UTF-8 bytes as the whole parse does', async () => {
    for (const bytes of [Buffer.from('[]'), Buffer.from(' [ ] \n'), Buffer.concat([Buffer.from('[{"tool": "w", "args": {"content": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}]')])]) {
      expect(await perCall(file(bytes))).toEqual(whole(bytes));
    }
  });

  it('finds the calls in a file read in pieces, escapes and quotes across the pieces\' edges', async () => {
    // Each literal under 1 MiB (a plain string, compared fast), the file over three 1 MiB pieces.
    const calls = Array.from({ length: 6 }, (_, k) => ({ tool: `t${k}`, args: { content: `${'a\\"b\\\\'.repeat(60_000 + k * 7)}\\` } }));
    const bytes = Buffer.from(JSON.stringify(calls));
    expect(bytes.length).toBeGreaterThan(3 << 20);
    expect(await perCall(file(bytes))).toEqual(whole(bytes));
  });

  it('keeps a huge string as UTF-8 bytes, as the whole parse does', async () => {
    const content = 'ü'.repeat(600_000);
    const [first] = await readAll(file(JSON.stringify([{ tool: 'write_file', args: { path: 'a', content } }])));
    const value = (first as { args: { content: unknown } }).args.content;
    expect(value).toBeInstanceOf(Utf8Text);
    expect(String(value)).toBe(content);
  });

  it('past its first 4 MiB, parses each call from the file when it is asked for (a call changed since the check is refused, not run)', async () => {
    const many = Array.from({ length: 3000 }, (_, k) => ({ tool: 'w', args: { path: `f${k}`, content: 'c'.repeat(2000) } }));
    const json = JSON.stringify([...many, { tool: 'b' }]);
    const path = file(json);
    const calls = await openCalls(path);
    expect(calls.length).toBe(3001);
    expect(calls.call(0)).toEqual(many[0]);
    writeFileSync(path, json.replace('{"tool":"b"}', '{"tooL":"b"}'));
    expect(calls.call(2999)).toEqual(many[2999]);
    expect(() => calls.call(3000)).toThrow(/--calls changed while the turn ran: call 3000/);
    calls.close();
  });

  it('reads a call of a megabyte or more once: it is kept from the check until it runs', async () => {
    const content = 'x'.repeat(1 << 20);
    const path = file(JSON.stringify([{ tool: 'write_file', args: { path: 'big', content } }, { tool: 'small' }]));
    const calls = await openCalls(path, { parseWholeUpTo: 0 });
    writeFileSync(path, JSON.stringify([{ tool: 'WRITE_FILE', args: { path: 'big', content } }, { tool: 'small' }]));
    const first = calls.call(0) as { tool: string; args: { content: unknown } };
    expect(first.tool).toBe('write_file');
    expect(String(first.args.content)).toBe(content);
    expect(calls.call(1)).toEqual({ tool: 'small' });
    calls.close();
  });

  it('parses a usual turn\'s calls whole, once (a file up to 4 MiB)', async () => {
    const path = file(JSON.stringify([{ tool: 'a' }, { tool: 'b' }]));
    const calls = await openCalls(path);
    writeFileSync(path, JSON.stringify([{ tool: 'x' }, { tool: 'y' }]));
    expect([calls.call(0), calls.call(1)]).toEqual([{ tool: 'a' }, { tool: 'b' }]);
  });

  it('says a missing file is missing', async () => {
    await expect(openCalls(join(dir, 'none.json'))).rejects.toThrow(/Cannot read --calls .*no such file/);
  });
});
