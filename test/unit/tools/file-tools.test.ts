import { describe, expect, it } from 'vitest';
import { expectError, expectOk, setup, text } from './harness';

describe('write_file', () => {
  it('creates a file with its parent directories', async () => {
    const h = await setup({ 'README.md': 'r' });
    const output = expectOk(await h.call('write_file', { path: 'src/deep/new.ts', content: 'export {};\n' }));
    expect(output).toEqual({ path: 'src/deep/new.ts', created: true, bytes: 11, file_hash: await h.ctx.hashContent(text('export {};\n')) });
    expect(await h.vfs.text('src/deep/new.ts')).toBe('export {};\n');
  });

  it('replaces a file it has read, keeping its mode', async () => {
    const h = await setup({ 'run.sh': { content: '#!/bin/sh\n', mode: '100755' } });
    await h.read('run.sh');
    expect(expectOk(await h.call('write_file', { path: 'run.sh', content: '#!/bin/sh\necho hi\n' }))).toMatchObject({ created: false });
    expect((await h.vfs.stat('run.sh'))!.mode).toBe('100755');
  });

  it('fails cleanly when a parent is a file or the path is a directory', async () => {
    const h = await setup({ 'a.txt': 'x', 'dir/f': 'y' });
    expectError(await h.call('write_file', { path: 'a.txt/b', content: '' }), 'PATH_NOT_DIRECTORY');
    expectError(await h.call('write_file', { path: 'dir', content: '' }), 'PATH_IS_DIRECTORY');
    expect(await h.vfs.diff()).toEqual([]);
  });
});

describe('delete_file', () => {
  it('deletes a file and drops it from read tracking and the active files', async () => {
    const h = await setup({ 'a/b.txt': 'x', 'a/c.txt': 'y' });
    await h.read('a/b.txt');
    expectOk(await h.call('update_context', { add: ['a/b.txt', 'a/c.txt'] }));
    expect(expectOk(await h.call('delete_file', { path: 'a/b.txt' }))).toEqual({ path: 'a/b.txt', deleted: true });
    expect(await h.vfs.exists('a/b.txt')).toBe(false);
    expect(h.state.readHashes).toEqual({});
    expect(h.state.activeFiles).toEqual(['a/c.txt']);
  });

  it('refuses missing files and directories', async () => {
    const h = await setup({ 'dir/f': 'y' });
    expectError(await h.call('delete_file', { path: 'nope' }), 'PATH_NOT_FOUND');
    expectError(await h.call('delete_file', { path: 'dir' }), 'PATH_IS_DIRECTORY');
    expect(h.vfs.mutationCount).toBe(0);
  });
});

describe('list_files', () => {
  const tree = {
    'README.md': 'r',
    'src/a.ts': 'a',
    'src/b.test.ts': 'b',
    'src/lib/c.ts': 'c',
    'docs/guide.md': 'g',
    '.env': 'SECRET=1',
    'config/prod.key': 'k',
    '.forge/sessions/s.json': '{}',
    'link': { symlink: 'src' },
  };

  it('lists every visible file recursively, hiding secrets and .forge/', async () => {
    const h = await setup(tree);
    const output = expectOk(await h.call('list_files', {})) as { entries: Array<{ path: string; type: string }> };
    expect(output.entries).toEqual([
      { path: 'README.md', type: 'file' },
      { path: 'docs/guide.md', type: 'file' },
      { path: 'link', type: 'symlink' },
      { path: 'src/a.ts', type: 'file' },
      { path: 'src/b.test.ts', type: 'file' },
      { path: 'src/lib/c.ts', type: 'file' },
    ]);
  });

  it('lists below a directory and filters with a gitignore-style glob', async () => {
    const h = await setup(tree);
    const paths = async (args: object) => ((expectOk(await h.call('list_files', args)) as { entries: Array<{ path: string }> }).entries.map((e) => e.path));
    expect(await paths({ path: 'src' })).toEqual(['src/a.ts', 'src/b.test.ts', 'src/lib/c.ts']);
    expect(await paths({ glob: '*.ts' })).toEqual(['src/a.ts', 'src/b.test.ts', 'src/lib/c.ts']);
    expect(await paths({ glob: 'src/**/*.test.ts' })).toEqual(['src/b.test.ts']);
    // Globs match repo-relative paths: `lib/` matches at any depth, `/lib/` only at the root.
    expect(await paths({ path: 'src', glob: 'lib/' })).toEqual(['src/lib/c.ts']);
    expect(await paths({ path: 'src', glob: '/lib/' })).toEqual([]);
    expect(await paths({ glob: 'src/lib/' })).toEqual(['src/lib/c.ts']);
    expect(await paths({ path: 'src/a.ts' })).toEqual(['src/a.ts']);
  });

  it('truncates at the configured limit and reports the total', async () => {
    const files = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}.txt`, 'x']));
    const h = await setup(files, { config: { list_files: { max_entries: 5 } } });
    expect(expectOk(await h.call('list_files', {}))).toMatchObject({ total: 8, truncated: true, entries: expect.any(Array) });
    expect(((expectOk(await h.call('list_files', {})) as { entries: unknown[] }).entries)).toHaveLength(5);
  });

  it('answers a missing directory with PATH_NOT_FOUND', async () => {
    const h = await setup(tree);
    expectError(await h.call('list_files', { path: 'nope' }), 'PATH_NOT_FOUND');
  });
});

describe('search', () => {
  const tree = {
    'src/a.ts': 'const x = 1;\n// TODO: remove\nexport function parse() {}\n',
    'src/b.ts': 'import { parse } from "./a";\nparse();\n',
    'docs/notes.md': 'TODO write docs\r\nparse everything\r\n',
    'bin.dat': new Uint8Array([0x54, 0x4f, 0x44, 0x4f, 0, 1]),
    '.env': 'TODO=secret',
  };

  it('finds regex matches line by line across text files, skipping binaries and secrets', async () => {
    const h = await setup(tree);
    const output = expectOk(await h.call('search', { pattern: 'TODO' }));
    expect(output).toEqual({
      pattern: 'TODO',
      matches: [
        { path: 'docs/notes.md', line: 1, text: 'TODO write docs' },
        { path: 'src/a.ts', line: 2, text: '// TODO: remove' },
      ],
      files_searched: 3,
      files_with_matches: 2,
      truncated: false,
      skipped: { binary: 1, too_large: 0 },
    });
  });

  it('refuses a pattern with nested quantifiers (catastrophic backtracking) before searching anything', async () => {
    const h = await setup({ ...tree, 'long.txt': `${'a'.repeat(40)}!\n` });
    for (const pattern of ['(a+)+$', '^(\\w+\\s?)*$']) {
      const result = await h.call('search', { pattern });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe('TOOL_INPUT_INVALID');
        expect(result.error.message).toContain('nests quantifiers');
      }
    }
    // Plain patterns with one level of repetition are fine.
    expectOk(await h.call('search', { pattern: 'a+!' }));
  });

  it('narrows by path and glob', async () => {
    const h = await setup(tree);
    const lines = async (args: object) => ((expectOk(await h.call('search', args)) as { matches: Array<{ path: string; line: number }> }).matches.map((m) => `${m.path}:${m.line}`));
    expect(await lines({ pattern: 'parse\\(', path: 'src' })).toEqual(['src/a.ts:3', 'src/b.ts:2']);
    expect(await lines({ pattern: 'parse', glob: '*.md' })).toEqual(['docs/notes.md:2']);
    expect(await lines({ pattern: '^import', path: 'src/b.ts' })).toEqual(['src/b.ts:1']);
  });

  it('bounds results and cuts long lines', async () => {
    const many = Array.from({ length: 30 }, () => 'hit').join('\n');
    const h = await setup({ 'a.txt': many, 'b.txt': many, 'long.txt': `hit ${'y'.repeat(100)}` }, {
      config: { search: { max_matches: 25, max_matches_per_file: 10, max_line_chars: 8 } },
    });
    const output = expectOk(await h.call('search', { pattern: 'hit' })) as { matches: Array<{ path: string; text: string }>; truncated: boolean };
    expect(output.truncated).toBe(true);
    expect(output.matches.filter((m) => m.path === 'a.txt')).toHaveLength(10);
    expect(output.matches.filter((m) => m.path === 'b.txt')).toHaveLength(10);
    expect(output.matches.find((m) => m.path === 'long.txt')!.text).toBe('hit yyyy…');
    const capped = await setup({ 'a.txt': many }, { config: { search: { max_matches: 5 } } });
    expect(expectOk(await capped.call('search', { pattern: 'hit' }))).toMatchObject({ truncated: true, matches: expect.any(Array) });
  });

  it('skips files over the size limit and counts them', async () => {
    const h = await setup({ 'big.txt': 'hit\n'.repeat(100), 'small.txt': 'hit\n' }, { config: { search: { max_file_bytes: 50 } } });
    expect(expectOk(await h.call('search', { pattern: 'hit' }))).toMatchObject({ files_searched: 1, skipped: { binary: 0, too_large: 1 } });
  });

  it('rejects an invalid regular expression naming the field', async () => {
    const h = await setup(tree);
    const error = expectError(await h.call('search', { pattern: 'parse(' }), 'TOOL_INPUT_INVALID');
    expect(error.message).toContain('`pattern`');
    expectError(await h.call('search', { pattern: '' }), 'TOOL_INPUT_INVALID');
  });
});

describe('update_context and list_active_files', () => {
  it('adds and removes active files, reporting what changed', async () => {
    const h = await setup({ 'a.ts': 'a', 'b.ts': 'b', 'c.ts': 'c' });
    expect(expectOk(await h.call('update_context', { add: ['a.ts', 'b.ts'] }))).toEqual({ active_files: ['a.ts', 'b.ts'], added: ['a.ts', 'b.ts'], removed: [], unchanged: [] });
    expect(expectOk(await h.call('update_context', { add: ['b.ts', 'c.ts'], remove: ['a.ts', 'zz.ts'] }))).toEqual({
      active_files: ['b.ts', 'c.ts'],
      added: ['c.ts'],
      removed: ['a.ts'],
      unchanged: ['b.ts', 'zz.ts'],
    });
    expect(h.state.activeFiles).toEqual(['b.ts', 'c.ts']);
    await h.vfs.deleteFile('c.ts');
    expect(expectOk(await h.call('list_active_files', {}))).toEqual({ active_files: [{ path: 'b.ts', exists: true }, { path: 'c.ts', exists: false }] });
  });

  it('is all or nothing: one bad path leaves the list unchanged', async () => {
    const h = await setup({ 'a.ts': 'a', 'dir/x.ts': 'x' });
    expectError(await h.call('update_context', { add: ['a.ts', 'missing.ts'] }), 'PATH_NOT_FOUND');
    expectError(await h.call('update_context', { add: ['a.ts', 'dir'] }), 'PATH_IS_DIRECTORY');
    expect(h.state.activeFiles).toEqual([]);
  });

  it('needs at least one path', async () => {
    const h = await setup({});
    expect(expectError(await h.call('update_context', {}), 'TOOL_INPUT_INVALID').message).toContain('at least one path');
    expectError(await h.call('list_active_files', { extra: 1 }), 'TOOL_INPUT_INVALID');
  });
});
