/**
 * The Edit tool's line-range mode works on the file's bytes (issue 30 item 4): what it writes and
 * answers must be what the string path (applyLineEdit on the decoded text, its text encoded, the
 * whole-file diff) gives, and a file that is not UTF-8 text is refused as before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyLineEdit, unifiedDiff } from '../../../src/text';
import { expectError, expectOk, setup, text } from './harness';

const piece = fc.constantFrom('a', 'bc', ' ', '\t', 'é', '中', '😀', '\ufeff', 'x y', '', '\r');
const newline = fc.constantFrom('\n', '\n', '\r\n', '\r');
const line = fc.tuple(fc.array(piece, { maxLength: 3 }), newline).map(([parts, end]) => parts.join('') + end);
const file = fc
  .tuple(fc.boolean(), fc.array(line, { minLength: 1, maxLength: 12 }), fc.array(piece, { maxLength: 2 }))
  .map(([bom, lines, tail]) => (bom ? '\ufeff' : '') + lines.join('') + tail.join(''));
const content = fc.tuple(fc.array(line, { maxLength: 3 }), fc.array(piece, { maxLength: 2 })).map(([lines, tail]) => lines.join('') + tail.join(''));

describe('Edit line-range mode on the bytes', () => {
  it('writes and answers what the string path gives (file bytes, diff, lines, message, errors)', async () => {
    await fc.assert(
      fc.asyncProperty(file, fc.integer({ min: 0, max: 14 }), fc.integer({ min: 0, max: 14 }), content, async (t, a, b, newContent) => {
        const h = await setup({ 'f.txt': t });
        await h.read('f.txt');
        const result = await h.call('Edit', { path: 'f.txt', start_line: Math.max(a, 1), end_line: Math.max(b, 1), new_content: newContent });
        const expected = applyLineEdit(t, { startLine: Math.max(a, 1), endLine: Math.max(b, 1), newContent });
        if (expected.status !== 'ok') {
          const error = expectError(result, expected.code);
          expect(error.message).toBe(expected.message);
          expect(h.vfs.mutationCount).toBe(0);
          return;
        }
        const output = expectOk(result) as Record<string, unknown>;
        expect(Buffer.from(await h.vfs.readFile('f.txt'))).toEqual(Buffer.from(text(expected.text)));
        expect(output).toMatchObject({
          status: 'ok',
          message: `f.txt: ${expected.message}`,
          newline_kind: expected.newlineKind,
          start_line: expected.startLine,
          end_line: expected.endLine,
          diff: expected.text === t ? '' : unifiedDiff('f.txt', t, expected.text),
        });
        if (expected.text === t) expect(h.vfs.mutationCount).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a file that is not UTF-8 text (a NUL byte, or an invalid sequence) with BINARY_FILE and writes nothing', async () => {
    const h = await setup({ 'nul.bin': new Uint8Array([0x61, 0x0a, 0x00, 0x0a]), 'bad.txt': new Uint8Array([0x61, 0x0a, 0xff, 0x62, 0x0a]) });
    for (const path of ['nul.bin', 'bad.txt']) {
      await h.read(path);
      const error = expectError(await h.call('Edit', { path, start_line: 1, end_line: 1, new_content: 'x\n' }), 'BINARY_FILE');
      expect(error.data).toMatchObject({ action: 'apply_line_edit', status: 'error', newline_kind: null });
    }
    expect(h.vfs.mutationCount).toBe(0);
  });
});
