import { describe, expect, it } from 'vitest';
import { expectError, expectOk, setup } from './harness';

describe('read_file', () => {
  it('returns numbered lines, the line count and the hash, and records the hash as seen', async () => {
    const h = await setup({ 'src/a.ts': 'one\ntwo\nthree\n' });
    const output = expectOk(await h.call('read_file', { path: 'src/a.ts' }));
    const hash = await h.ctx.hashContent(new TextEncoder().encode('one\ntwo\nthree\n'));
    expect(output).toEqual({ path: 'src/a.ts', file_hash: hash, type: 'file', content: '1\tone\n2\ttwo\n3\tthree', total_lines: 3, start_line: 1, end_line: 3 });
    expect(h.state.readHashes['src/a.ts']).toBe(hash);
  });

  it('numbers lines the way Edit counts them (CRLF and lone CR end lines)', async () => {
    const h = await setup({ 'w.txt': 'a\r\nb\rc\nd' });
    expect(expectOk(await h.call('read_file', { path: 'w.txt' }))).toMatchObject({ content: '1\ta\n2\tb\n3\tc\n4\td', total_lines: 4 });
  });

  it('returns a requested range, padded to the widest number', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n');
    const h = await setup({ 'f.txt': lines });
    const output = expectOk(await h.call('read_file', { path: 'f.txt', start_line: 9, end_line: 11 }));
    expect(output).toMatchObject({ content: ' 9\tline 9\n10\tline 10\n11\tline 11', start_line: 9, end_line: 11, total_lines: 12 });
    expect(output).not.toHaveProperty('next_start_line');
    expect(expectOk(await h.call('read_file', { path: 'f.txt', start_line: 12, end_line: 99 }))).toMatchObject({ content: '12\tline 12', end_line: 12 });
  });

  it('pages large files by line count and by bytes, saying where to continue', async () => {
    const body = Array.from({ length: 25 }, (_, i) => `L${i + 1}`).join('\n');
    const h = await setup({ 'big.txt': body }, { config: { read_file: { max_lines: 10 } } });
    const first = expectOk(await h.call('read_file', { path: 'big.txt' })) as Record<string, unknown>;
    expect(first).toMatchObject({ start_line: 1, end_line: 10, next_start_line: 11, total_lines: 25 });
    expect(first.message).toContain('start_line 11');
    const last = expectOk(await h.call('read_file', { path: 'big.txt', start_line: 21 }));
    expect(last).toMatchObject({ start_line: 21, end_line: 25 });
    expect(last).not.toHaveProperty('next_start_line');

    const wide = await setup({ 'w.txt': `${'x'.repeat(40)}\n`.repeat(10) }, { config: { read_file: { max_bytes: 100 } } });
    expect(expectOk(await wide.call('read_file', { path: 'w.txt' }))).toMatchObject({ end_line: 2, next_start_line: 3 });
  });

  it('cuts very long lines and marks the cut', async () => {
    const h = await setup({ 'min.js': `${'a'.repeat(50)}\nshort\n` }, { config: { read_file: { max_line_chars: 10 } } });
    const output = expectOk(await h.call('read_file', { path: 'min.js' })) as { content: string };
    expect(output.content).toBe('1\taaaaaaaaaa… [line cut: 40 more characters]\n2\tshort');
  });

  it('describes binary files instead of dumping them, and still records their hash', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const h = await setup({ 'logo.png': png, 'latin1.txt': new Uint8Array([0x63, 0x61, 0x66, 0xe9]) });
    const output = expectOk(await h.call('read_file', { path: 'logo.png' }));
    expect(output).toMatchObject({ binary: true, size: 12 });
    expect(output).not.toHaveProperty('content');
    expect(h.state.readHashes['logo.png']).toBe(await h.ctx.hashContent(png));
    expect(expectOk(await h.call('read_file', { path: 'latin1.txt' }))).toMatchObject({ binary: true, size: 4 });
  });

  it('shows a BOM as a flag, not as a character of line 1', async () => {
    const h = await setup({ 'bom.txt': '\ufeffhello\n' });
    expect(expectOk(await h.call('read_file', { path: 'bom.txt' }))).toMatchObject({ content: '1\thello', has_bom: true });
  });

  it('describes symlinks with their target', async () => {
    const h = await setup({ 'link': { symlink: 'docs/readme.md' } });
    expect(expectOk(await h.call('read_file', { path: 'link' }))).toMatchObject({ type: 'symlink', symlink_target: 'docs/readme.md' });
  });

  it('handles empty files and bad ranges with clear errors', async () => {
    const h = await setup({ 'empty.txt': '', 'f.txt': 'a\nb\n', 'dir/x': 'x' });
    expect(expectOk(await h.call('read_file', { path: 'empty.txt' }))).toMatchObject({ content: '', total_lines: 0 });
    expect(expectError(await h.call('read_file', { path: 'f.txt', start_line: 5 }), 'TOOL_INPUT_INVALID').message).toContain('has 2 lines');
    expect(expectError(await h.call('read_file', { path: 'f.txt', start_line: 2, end_line: 1 }), 'TOOL_INPUT_INVALID').message).toContain('`end_line`');
    expect(expectError(await h.call('read_file', { path: 'nope.txt' }), 'PATH_NOT_FOUND').message).toContain('list_files');
    expectError(await h.call('read_file', { path: 'dir' }), 'PATH_IS_DIRECTORY');
  });
});
