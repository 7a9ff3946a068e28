import { describe, expect, it } from 'vitest';
import { ForgeError } from '../../../src/errors';
import type { WritableVfs } from '../../../src/vfs/types';
import { expectError, expectOk, setup, text } from './harness';

const source = 'function greet(name) {\n  return "hi " + name;\n}\n\nfunction bye() {\n  return "bye";\n}\n';

describe('Edit', () => {
  it('IT-SFE-E2E-01: snippet edit succeeds with canonical LF input', async () => {
    const h = await setup({ 'src/greet.js': source });
    const { file_hash } = await h.read('src/greet.js');
    const output = expectOk(
      await h.call('Edit', {
        path: 'src/greet.js',
        old_snippet: '  return "hi " + name;\n',
        new_snippet: '  return `hello ${name}`;\n',
        file_hash,
        region_id: 'r1',
      }),
    );
    const after = source.replace('"hi " + name', '`hello ${name}`');
    expect(output).toEqual({
      action: 'apply_snippet_edit',
      status: 'ok',
      message: expect.stringContaining('replaced lines 2-2'),
      current_file_hash: await h.ctx.hashContent(text(after)),
      newline_kind: 'LF',
      region_id: 'r1',
      start_line: 2,
      end_line: 2,
      diff: expect.stringContaining('+  return `hello ${name}`;'),
    });
    expect(await h.vfs.text('src/greet.js')).toBe(after);
  });

  it('IT-SFE-E2E-01: LF snippets match a CRLF file, and the replacement is written in CRLF (T-SFE-NL-01)', async () => {
    const crlf = source.replace(/\n/g, '\r\n');
    const h = await setup({ 'win.js': crlf });
    await h.read('win.js');
    const output = expectOk(await h.call('Edit', { path: 'win.js', old_snippet: 'function bye() {\n  return "bye";', new_snippet: 'function bye() {\n  return "ciao";' }));
    expect(output).toMatchObject({ status: 'ok', newline_kind: 'CRLF' });
    expect(await h.vfs.text('win.js')).toBe(crlf.replace('"bye"', '"ciao"'));
  });

  it('IT-SFE-LINE-01: line-range edit replaces exact lines', async () => {
    const h = await setup({ 'src/greet.js': source });
    await h.read('src/greet.js');
    const output = expectOk(await h.call('edit', { path: 'src/greet.js', start_line: 5, end_line: 7, new_content: 'const bye = () => "bye";\n', region_id: 'x' }));
    expect(output).toMatchObject({ action: 'apply_line_edit', status: 'ok', newline_kind: 'LF', region_id: 'x', start_line: 5, end_line: 5 });
    expect(await h.vfs.text('src/greet.js')).toBe('function greet(name) {\n  return "hi " + name;\n}\n\nconst bye = () => "bye";\n');
  });

  it('IT-SFE-LINE-01: line numbers are the ones read_file shows', async () => {
    const h = await setup({ 'm.txt': 'a\r\nb\rc\nd\n' });
    const read = (await h.read('m.txt')) as { content: string };
    expect(read.content.split('\n')[2]).toBe('3\tc');
    expectOk(await h.call('Edit', { path: 'm.txt', start_line: 3, end_line: 3, new_content: 'C' }));
    expect(await h.vfs.text('m.txt')).toBe('a\r\nb\rC\nd\n');
  });

  it('keeps a UTF-8 BOM and every byte outside the edit', async () => {
    const h = await setup({ 'bom.cs': '\ufeffclass A {}\n' });
    await h.read('bom.cs');
    expectOk(await h.call('Edit', { path: 'bom.cs', old_snippet: 'class A', new_snippet: 'class B' }));
    const bytes = await h.vfs.readFile('bom.cs');
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(await h.vfs.text('bom.cs')).toBe('\ufeffclass B {}\n');
  });

  describe('T-SFE-ATOM-01: a failed edit leaves the file unchanged', () => {
    it('no match: status no_match with candidates, nothing written', async () => {
      const h = await setup({ 'src/greet.js': source });
      const { file_hash } = await h.read('src/greet.js');
      const error = expectError(await h.call('Edit', { path: 'src/greet.js', old_snippet: 'return "hello";', new_snippet: 'x', region_id: 'r9' }), 'TEXT_NO_MATCH');
      expect(error.data).toMatchObject({ action: 'apply_snippet_edit', status: 'no_match', current_file_hash: file_hash, newline_kind: 'LF', region_id: 'r9' });
      expect(error.data?.candidates).toEqual(expect.arrayContaining([expect.objectContaining({ line: expect.any(Number) })]));
      expect(h.vfs.mutationCount).toBe(0);
    });

    it('ambiguous snippet: reported as no_match with the competing lines; a match_hint picks one', async () => {
      const h = await setup({ 'd.txt': 'x = 1\ny = 2\nx = 1\n' });
      await h.read('d.txt');
      const error = expectError(await h.call('Edit', { path: 'd.txt', old_snippet: 'x = 1', new_snippet: 'x = 3' }), 'TEXT_AMBIGUOUS_MATCH');
      expect(error.data).toMatchObject({ status: 'no_match', candidates: [1, 3] });
      expect(h.vfs.mutationCount).toBe(0);
      expectOk(await h.call('Edit', { path: 'd.txt', old_snippet: 'x = 1', new_snippet: 'x = 3', match_hint: { start_line: 2, end_line: 3 } }));
      expect(await h.vfs.text('d.txt')).toBe('x = 1\ny = 2\nx = 3\n');
    });

    it('a range past the end: status error, nothing written', async () => {
      const h = await setup({ 'd.txt': 'a\nb\n' });
      await h.read('d.txt');
      const error = expectError(await h.call('Edit', { path: 'd.txt', start_line: 2, end_line: 5, new_content: 'z' }), 'TEXT_LINE_RANGE_INVALID');
      expect(error.data).toMatchObject({ action: 'apply_line_edit', status: 'error' });
      expect(h.vfs.mutationCount).toBe(0);
    });

    it('a view that fails half-way through the write is restored', async () => {
      const h = await setup({ 'src/greet.js': source });
      await h.read('src/greet.js');
      const before = h.vfs.snapshot();
      const flaky: WritableVfs = Object.create(h.vfs);
      let failNext = true;
      flaky.writeFile = async (path, content, options) => {
        await h.vfs.writeFile(path, content, options);
        // The bytes landed, then the store failed: the registry must put the old bytes back.
        if (failNext) {
          failNext = false;
          throw new ForgeError('INTERNAL', 'journal write failed');
        }
      };
      h.ctx.vfs = flaky;
      expectError(await h.call('Edit', { path: 'src/greet.js', old_snippet: 'function bye()', new_snippet: 'function later()' }), 'INTERNAL');
      expect(h.vfs.snapshot()).toEqual(before);
      expect(await h.vfs.diff()).toEqual([]);
      expect(h.state.readHashes['src/greet.js']).toBe(await h.ctx.hashContent(text(source)));
    });
  });

  describe('modes of the one input object', () => {
    it('rejects mixed modes with a clear message', async () => {
      const h = await setup({ 'a.txt': 'a\n' });
      await h.read('a.txt');
      const error = expectError(await h.call('Edit', { path: 'a.txt', old_snippet: 'a', new_snippet: 'b', start_line: 1 }), 'TOOL_INPUT_INVALID');
      expect(error.message).toContain('Mixed modes');
      expect(error.message).toContain('`old_snippet`, `new_snippet` belong to snippet mode but `start_line` belong');
      expect(error.message).toContain('not both');
      expect(h.vfs.mutationCount).toBe(0);
    });

    it('names the field a mode is missing', async () => {
      const h = await setup({ 'a.txt': 'a\n' });
      expect(expectError(await h.call('Edit', { path: 'a.txt', old_snippet: 'a' }), 'TOOL_INPUT_INVALID').message).toContain('`new_snippet`: is required in snippet mode');
      const line = expectError(await h.call('Edit', { path: 'a.txt', start_line: 1, new_content: 'x' }), 'TOOL_INPUT_INVALID');
      expect(line.message).toContain('`end_line`: is required in line-range mode');
      expect(expectError(await h.call('Edit', { path: 'a.txt' }), 'TOOL_INPUT_INVALID').message).toContain('No edit given');
      expect(expectError(await h.call('Edit', { path: 'a.txt', match_hint: { start_line: 1, end_line: 1, col: 2 }, old_snippet: 'a', new_snippet: 'b' }), 'TOOL_INPUT_INVALID').message).toContain('`col`');
    });
  });

  describe('configuration', () => {
    it('enforces max_snippet_bytes and max_line_edit_bytes', async () => {
      const h = await setup({ 'a.txt': 'a\n' }, { config: { edit: { max_snippet_bytes: 8, max_line_edit_bytes: 4 } } });
      await h.read('a.txt');
      const snippet = expectError(await h.call('Edit', { path: 'a.txt', old_snippet: 'a', new_snippet: 'ééééé' }), 'EDIT_TOO_LARGE');
      expect(snippet.message).toContain('`new_snippet` is 10 bytes');
      expect(snippet.data).toMatchObject({ status: 'error' });
      expectError(await h.call('Edit', { path: 'a.txt', start_line: 1, end_line: 1, new_content: 'abcde' }), 'EDIT_TOO_LARGE');
      expectOk(await h.call('Edit', { path: 'a.txt', start_line: 1, end_line: 1, new_content: 'abcd' }));
    });

    it('require_file_hash refuses edits without file_hash', async () => {
      const h = await setup({ 'a.txt': 'a\n' }, { config: { edit: { require_file_hash: true } } });
      const { file_hash } = await h.read('a.txt');
      expect(expectError(await h.call('Edit', { path: 'a.txt', old_snippet: 'a', new_snippet: 'b' }), 'FILE_HASH_REQUIRED').data).toMatchObject({ status: 'error' });
      expectOk(await h.call('Edit', { path: 'a.txt', old_snippet: 'a', new_snippet: 'b', file_hash }));
    });
  });

  it('refuses missing and binary files with status error', async () => {
    const h = await setup({ 'img.bin': new Uint8Array([1, 0, 2]) });
    const missing = expectError(await h.call('Edit', { path: 'new.txt', old_snippet: 'a', new_snippet: 'b' }), 'PATH_NOT_FOUND');
    expect(missing.data).toMatchObject({ status: 'error', current_file_hash: null, newline_kind: null });
    expect(missing.message).toContain('write_file');
    await h.read('img.bin');
    expect(expectError(await h.call('Edit', { path: 'img.bin', old_snippet: 'a', new_snippet: 'b' }), 'BINARY_FILE').data).toMatchObject({ status: 'error' });
    expect(h.vfs.mutationCount).toBe(0);
  });

  it('stale_file and not-read both carry status stale_file', async () => {
    const h = await setup({ 'a.txt': 'a\n' });
    expect(expectError(await h.call('Edit', { path: 'a.txt', old_snippet: 'a', new_snippet: 'b' }), 'FILE_NOT_READ').data).toMatchObject({
      action: 'apply_snippet_edit',
      status: 'stale_file',
      current_file_hash: await h.ctx.hashContent(text('a\n')),
    });
  });
});
