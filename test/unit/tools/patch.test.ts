import { describe, expect, it } from 'vitest';
import { expectError, expectOk, setup } from './harness';

const code = 'export function add(a, b) {\n  return a + b;\n}\n\nexport function sub(a, b) {\n  return a - b;\n}\n';

describe('Patch', () => {
  it('applies a replace and answers with a unified diff', async () => {
    const h = await setup({ 'src/math.js': code });
    await h.read('src/math.js');
    const output = expectOk(await h.call('Patch', { path: 'src/math.js', patches: [{ operation: 'replace', oldText: '  return a + b;', newText: '  return b + a;' }] }));
    expect(output).toMatchObject({ path: 'src/math.js', created: false, changed: true, newline_kind: 'LF', notes: [], warnings: [] });
    const { diff } = output as { diff: string };
    expect(diff).toContain('--- a/src/math.js');
    expect(diff).toContain('+++ b/src/math.js');
    expect(diff).toContain('-  return a + b;\n+  return b + a;');
    expect(await h.vfs.text('src/math.js')).toBe(code.replace('a + b', 'b + a'));
  });

  it('applies several patches against the original content at once', async () => {
    const h = await setup({ 'src/math.js': code });
    await h.read('src/math.js');
    expectOk(
      await h.call('Patch', {
        path: 'src/math.js',
        patches: [
          { operation: 'replace', oldText: 'return a - b;', newText: 'return a - b - 0;' },
          { operation: 'prepend_bof', newText: "'use strict';\n" },
          { operation: 'append_eof', newText: 'export const zero = 0;\n' },
          { operation: 'replace', oldText: 'return a + b;', newText: 'return a + b + 0;' },
        ],
      }),
    );
    expect(await h.vfs.text('src/math.js')).toBe(`'use strict';\n${code.replace('a + b;', 'a + b + 0;').replace('a - b;', 'a - b - 0;')}export const zero = 0;\n`);
  });

  it('REQ-PATCH-002: one failing patch rejects the whole call and leaves file and clipboards unchanged', async () => {
    const h = await setup({ 'src/math.js': code });
    await h.read('src/math.js');
    const error = expectError(
      await h.call('Patch', {
        path: 'src/math.js',
        patches: [
          { operation: 'replace', oldText: 'return a + b;', newText: 'X', toClipboard: 'saved' },
          { operation: 'replace', oldText: 'return a * b;', newText: 'Y' },
        ],
      }),
      'TEXT_NO_MATCH',
    );
    expect(error.message).toContain('old text not found');
    expect(h.vfs.mutationCount).toBe(0);
    expect(h.state.clipboards).toEqual({});
  });

  it('REQ-PATCH-003: clipboards move text across files and calls, kept in the session state', async () => {
    const h = await setup({ 'src/math.js': code, 'src/other.js': '// other\n' });
    await h.read('src/math.js');
    await h.read('src/other.js');
    expectOk(
      await h.call('Patch', {
        path: 'src/math.js',
        patches: [{ operation: 'replace', oldText: '\nexport function sub(a, b) {\n  return a - b;\n}\n', newText: '', toClipboard: 'sub' }],
      }),
    );
    expect(h.state.clipboards.sub).toBe('\nexport function sub(a, b) {\n  return a - b;\n}\n');
    expectOk(await h.call('Patch', { path: 'src/other.js', patches: [{ operation: 'append_eof', fromClipboard: 'sub' }] }));
    expect(await h.vfs.text('src/other.js')).toBe('// other\n\nexport function sub(a, b) {\n  return a - b;\n}\n');
    expectError(await h.call('Patch', { path: 'src/other.js', patches: [{ operation: 'append_eof', fromClipboard: 'nope' }] }), 'PATCH_CLIPBOARD_MISSING');
  });

  it('REQ-PATCH-004: reindent strips and adds prefixes on inserted text', async () => {
    const h = await setup({ 'a.py': 'def f():\n    pass\n' });
    await h.read('a.py');
    expectOk(await h.call('Patch', { path: 'a.py', patches: [{ operation: 'append_eof', newText: '    x = 1\n    y = 2\n', reindent: { strip: '    ', add: '' } }] }));
    expect(await h.vfs.text('a.py')).toBe('def f():\n    pass\nx = 1\ny = 2\n');
    expectError(await h.call('Patch', { path: 'a.py', patches: [{ operation: 'append_eof', newText: 'z\n', reindent: { strip: '\t' } }] }), 'PATCH_REINDENT_FAILED');
  });

  it('REQ-PATCH-005: a whitespace-tolerant match is applied and reported in notes', async () => {
    const h = await setup({ 'a.js': 'class A {\n    m() {\n        go();\n    }\n}\n' });
    await h.read('a.js');
    const output = expectOk(await h.call('Patch', { path: 'a.js', patches: [{ operation: 'replace', oldText: 'm() {\n    go();\n}', newText: 'm() {\n    stop();\n}' }] }));
    expect((output as { notes: string[] }).notes.join('\n')).toContain('did not match exactly');
    expect(await h.vfs.text('a.js')).toBe('class A {\n    m() {\n        stop();\n    }\n}\n');
  });

  it('REQ-PATCH-001: creates a missing file (and its directories) with overwrite, but refuses replace on it', async () => {
    const h = await setup({});
    const output = expectOk(await h.call('Patch', { path: 'docs/new/notes.md', patches: [{ operation: 'overwrite', newText: '# Notes\n' }] }));
    expect(output).toMatchObject({ created: true, changed: true });
    expect((output as { diff: string }).diff).toContain('--- /dev/null');
    expect(await h.vfs.text('docs/new/notes.md')).toBe('# Notes\n');
    expectError(await h.call('Patch', { path: 'missing.md', patches: [{ operation: 'replace', oldText: 'a', newText: 'b' }] }), 'PATCH_FILE_MISSING');
  });

  it('REQ-PATCH-007: warns about a generated file while still applying', async () => {
    const h = await setup({ 'api.pb.go': '// Code generated by protoc-gen-go. DO NOT EDIT.\npackage api\n' });
    await h.read('api.pb.go');
    const output = expectOk(await h.call('Patch', { path: 'api.pb.go', patches: [{ operation: 'append_eof', newText: '// extra\n' }] }));
    expect((output as { warnings: string[] }).warnings).toEqual([expect.stringContaining('looks generated')]);
    expect(await h.vfs.text('api.pb.go')).toContain('// extra\n');
  });

  it('REQ-PATCH-008: input over about 60k tokens is rejected with the suggestion to split, before the file is looked at', async () => {
    const h = await setup({ 'big.txt': 'x\n' });
    const error = expectError(await h.call('Patch', { path: 'big.txt', patches: [{ operation: 'overwrite', newText: 'y'.repeat(240_004) }] }), 'PATCH_TOO_LARGE');
    expect(error.message).toMatch(/Break the change into several smaller patch calls/);
    expect(h.vfs.mutationCount).toBe(0);
    await h.read('big.txt');
    expectOk(await h.call('Patch', { path: 'big.txt', patches: [{ operation: 'overwrite', newText: 'y'.repeat(240_000) }] }));
  });

  it('keeps CRLF line endings of the file', async () => {
    const h = await setup({ 'w.txt': 'one\r\ntwo\r\n' });
    await h.read('w.txt');
    expectOk(await h.call('Patch', { path: 'w.txt', patches: [{ operation: 'replace', oldText: 'two\n', newText: 'two\nthree\n' }] }));
    expect(await h.vfs.text('w.txt')).toBe('one\r\ntwo\r\nthree\r\n');
  });

  it('refuses a binary file', async () => {
    const h = await setup({ 'x.bin': new Uint8Array([0, 1, 2]) });
    await h.read('x.bin');
    expectError(await h.call('Patch', { path: 'x.bin', patches: [{ operation: 'append_eof', newText: 'a' }] }), 'BINARY_FILE');
    expect(h.vfs.mutationCount).toBe(0);
  });

  it('writes nothing when the result equals the current content', async () => {
    const h = await setup({ 'a.txt': 'same\n' });
    await h.read('a.txt');
    const output = expectOk(await h.call('Patch', { path: 'a.txt', patches: [{ operation: 'overwrite', newText: 'same\n' }] }));
    expect(output).toMatchObject({ changed: false, diff: '' });
    expect(h.vfs.mutationCount).toBe(0);
  });
});

describe('search_replace', () => {
  const block = (search: string, replace: string) => `<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n`;

  it('applies one or more blocks to one file, with a diff', async () => {
    const h = await setup({ 'src/math.js': code });
    await h.read('src/math.js');
    const output = expectOk(
      await h.call('search_replace', {
        path: 'src/math.js',
        blocks: `src/math.js\n\`\`\`\n${block('  return a + b;\n', '  return b + a;\n')}${block('  return a - b;\n', '  return -(b - a);\n')}\`\`\`\n`,
      }),
    );
    expect((output as { diff: string }).diff).toContain('+  return -(b - a);');
    expect(await h.vfs.text('src/math.js')).toBe(code.replace('a + b', 'b + a').replace('a - b', '-(b - a)'));
  });

  it('is atomic: a block that does not match leaves the file unchanged', async () => {
    const h = await setup({ 'src/math.js': code });
    await h.read('src/math.js');
    expectError(await h.call('search_replace', { path: 'src/math.js', blocks: block('  return a + b;\n', 'X\n') + block('nothing like this\n', 'Y\n') }), 'TEXT_NO_MATCH');
    expect(h.vfs.mutationCount).toBe(0);
  });

  it('uses the same matching engine as Patch (uniqueness, whitespace recovery)', async () => {
    const h = await setup({ 'd.txt': 'x\ny\nx\n', 'i.py': 'def f():\n    return 1\n' });
    await h.read('d.txt');
    await h.read('i.py');
    expectError(await h.call('search_replace', { path: 'd.txt', blocks: block('x\n', 'z\n') }), 'TEXT_AMBIGUOUS_MATCH');
    expectOk(await h.call('search_replace', { path: 'i.py', blocks: block('return 1\n', 'return 2\n') }));
    expect(await h.vfs.text('i.py')).toBe('def f():\n    return 2\n');
  });

  it('rejects malformed blocks before looking at the file', async () => {
    const h = await setup({ 'a.txt': 'a\n' });
    const error = expectError(await h.call('search_replace', { path: 'a.txt', blocks: '<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n' }), 'SEARCH_REPLACE_MALFORMED');
    expect(error.message).toContain('=======');
    expect(h.vfs.mutationCount).toBe(0);
  });

  it('creates a missing file from an empty SEARCH section', async () => {
    const h = await setup({});
    expectOk(await h.call('search_replace', { path: 'new/file.txt', blocks: block('', 'hello\n') }));
    expect(await h.vfs.text('new/file.txt')).toBe('hello\n');
  });

  it('needs the file to have been read', async () => {
    const h = await setup({ 'a.txt': 'a\n' });
    expectError(await h.call('search_replace', { path: 'a.txt', blocks: block('a\n', 'b\n') }), 'FILE_NOT_READ');
  });
});
