import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ForgeError } from '../../../src/errors';
import { BUILTIN_TOOLS, ToolRegistry, defineTool, type AnyToolDefinition } from '../../../src/tools';
import type { WritableVfs } from '../../../src/vfs/types';
import { expectError, expectOk, setup, text } from './harness';

/** A tool that writes, changes tool state, then fails: the registry must undo all of it. */
const faulty = defineTool({
  name: 'faulty_writer',
  description: 'Writes two files, records state, then fails. Test only.',
  input: z.strictObject({ fail: z.enum(['forge', 'plain']) }),
  sideEffects: true,
  async handler(input, ctx) {
    await ctx.vfs.writeFile('src/a.ts', text('overwritten\n'));
    await ctx.vfs.writeFile('new/dir/file.txt', text('new\n'));
    await ctx.vfs.deleteFile('README.md');
    ctx.state.readHashes['src/a.ts'] = 'bogus';
    ctx.state.clipboards.c = 'bogus';
    ctx.state.activeFiles.push('src/a.ts');
    ctx.state.mode = 'restricted';
    if (input.fail === 'forge') throw new ForgeError('TEXT_NO_MATCH', 'could not find it');
    throw new TypeError('boom');
  },
});

const tree = { 'README.md': '# hi\n', 'src/a.ts': 'a\n' };

describe('tool registry', () => {
  it('finds tools by name and alias', () => {
    const h = new ToolRegistry(BUILTIN_TOOLS);
    expect(h.get('Edit')).toBe(h.get('edit'));
    expect(h.get('Edit')!.name).toBe('Edit');
    expect(h.get('EDIT')).toBeUndefined();
  });

  it('rejects misdeclared tools at construction', () => {
    const base = { description: 'd', sideEffects: false, handler: async () => null } as const;
    const tool = (name: string, extra: Partial<AnyToolDefinition> = {}): AnyToolDefinition => ({ ...base, name, input: z.strictObject({}), ...extra });
    expect(() => new ToolRegistry([tool('a b')])).toThrow(/not 1-64 characters/);
    expect(() => new ToolRegistry([tool('x'.repeat(65))])).toThrow(/not 1-64 characters/);
    expect(() => new ToolRegistry([tool('a'), tool('b', { aliases: ['a'] })])).toThrow(/declared twice/);
    expect(() => new ToolRegistry([tool('u', { input: z.union([z.strictObject({}), z.strictObject({ a: z.string() })]) as never })])).toThrow(/one object/);
  });

  it('answers an unknown tool with TOOL_NOT_FOUND listing the tools', async () => {
    const h = await setup(tree);
    const error = expectError(await h.call('rm_rf', {}), 'TOOL_NOT_FOUND');
    expect(error.message).toContain('read_file');
    expect(error.message).toContain('Patch');
  });

  it('answers a configured-off tool with TOOL_DISABLED', async () => {
    const h = await setup(tree, { config: { disabled_tools: ['write_file'] } });
    expectError(await h.call('write_file', { path: 'x', content: '' }), 'TOOL_DISABLED');
    expect(h.vfs.mutationCount).toBe(0);
  });

  describe('input validation', () => {
    it('names unknown fields and lists the allowed ones', async () => {
      const h = await setup(tree);
      const error = expectError(await h.call('write_file', { path: 'x.txt', content: 'x', mode: '755' }), 'TOOL_INPUT_INVALID');
      expect(error.message).toContain('unknown field `mode`');
      expect(error.message).toContain('Allowed fields: path, content');
      expect(error.data?.issues).toEqual([expect.objectContaining({ field: 'mode' })]);
      expect(h.vfs.mutationCount).toBe(0);
    });

    it('names missing and mistyped fields', async () => {
      const h = await setup(tree);
      const missing = expectError(await h.call('write_file', { path: 'x.txt' }), 'TOOL_INPUT_INVALID');
      expect(missing.message).toContain('`content` is required (string)');
      const typed = expectError(await h.call('read_file', { path: 'src/a.ts', start_line: 'ten' }), 'TOOL_INPUT_INVALID');
      expect(typed.message).toContain('`start_line`: expected number, received string');
      const fractional = expectError(await h.call('Edit', { path: 'src/a.ts', start_line: 1.5, end_line: 2, new_content: 'x' }), 'TOOL_INPUT_INVALID');
      expect(fractional.message).toContain('`start_line`: expected a whole number');
      const low = expectError(await h.call('read_file', { path: 'src/a.ts', start_line: 0 }), 'TOOL_INPUT_INVALID');
      expect(low.message).toContain('`start_line`');
      expect(low.message).toContain('Fix these fields and call read_file again.');
    });

    it('accepts a JSON string of arguments and rejects other shapes', async () => {
      const h = await setup(tree);
      expect((await h.call('read_file', '{"path":"src/a.ts"}')).ok).toBe(true);
      expectError(await h.call('read_file', '{"path":'), 'TOOL_INPUT_INVALID');
      expectError(await h.call('read_file', ['src/a.ts']), 'TOOL_INPUT_INVALID');
      expectError(await h.call('read_file', 42), 'TOOL_INPUT_INVALID');
    });

    it('treats null optional fields as absent and null required fields as missing', async () => {
      const h = await setup(tree);
      expect((await h.call('list_files', { path: null, glob: null })).ok).toBe(true);
      const error = expectError(await h.call('read_file', { path: null }), 'TOOL_INPUT_INVALID');
      expect(error.message).toContain('`path` is required');
    });
  });

  it('reports what a successful call changed, in the shape of an undo entry', async () => {
    const h = await setup(tree);
    await h.read('src/a.ts');
    const before = await h.vfs.stat('src/a.ts');
    const edit = await h.call('Edit', { path: 'src/a.ts', old_snippet: 'a', new_snippet: 'b' });
    expect(edit.ok && edit.changes).toEqual([
      {
        path: 'src/a.ts',
        existedBefore: true,
        preOid: before!.oid,
        preMode: '100644',
        existsAfter: true,
        postSha256: await h.ctx.hashContent(text('b\n')),
        postMode: '100644',
      },
    ]);
    const created = await h.call('write_file', { path: 'docs/new.md', content: 'n' });
    expect(created.ok && created.changes).toEqual([
      { path: 'docs/new.md', existedBefore: false, existsAfter: true, postSha256: await h.ctx.hashContent(text('n')), postMode: '100644' },
    ]);
    const deleted = await h.call('delete_file', { path: 'docs/new.md' });
    expect(deleted.ok && deleted.changes).toEqual([
      { path: 'docs/new.md', existedBefore: true, preOid: expect.any(String), preMode: '100644', existsAfter: false },
    ]);
    const read = await h.call('read_file', { path: 'src/a.ts' });
    expect(read.ok && read.changes).toEqual([]);
  });

  it.each(['forge', 'plain'] as const)('rolls back the view and tool state when a handler fails (%s error)', async (fail) => {
    const h = await setup(tree, { registry: new ToolRegistry([...BUILTIN_TOOLS, faulty]) });
    await h.read('src/a.ts');
    const view = h.vfs.snapshot();
    const state = structuredClone(h.state);
    const error = expectError(await h.call('faulty_writer', { fail }), fail === 'forge' ? 'TEXT_NO_MATCH' : 'INTERNAL');
    if (fail === 'plain') expect(error.message).toBe('Internal error in faulty_writer: boom');
    expect(h.vfs.snapshot()).toEqual(view);
    expect(await h.vfs.exists('new')).toBe(false);
    expect(await h.vfs.diff()).toEqual([]);
    expect(h.state).toEqual(state);
  });

  it('reports INTERNAL with the touched paths when a rollback itself fails', async () => {
    const h = await setup(tree, { registry: new ToolRegistry([...BUILTIN_TOOLS, faulty]) });
    const broken: WritableVfs = Object.create(h.vfs);
    let writes = 0;
    broken.writeFile = async (path, content, options) => {
      // Let the tool's two writes through, then fail every restore.
      if (++writes > 2) throw new ForgeError('INTERNAL', 'disk gone');
      return h.vfs.writeFile(path, content, options);
    };
    h.ctx.vfs = broken;
    const error = expectError(await h.call('faulty_writer', { fail: 'forge' }), 'INTERNAL');
    expect(error.message).toContain('could not be undone');
    expect(error.data).toMatchObject({ cause: 'TEXT_NO_MATCH', paths: ['src/a.ts', 'new/dir/file.txt', 'README.md'] });
  });

  it('does not let a tool discard the turn', async () => {
    const discarding = defineTool({
      name: 'discarder',
      description: 'Tries to drop every pending change. Test only.',
      input: z.strictObject({}),
      sideEffects: true,
      handler: async (_input, ctx) => ctx.vfs.discard(),
    });
    const h = await setup(tree, { registry: new ToolRegistry([discarding]) });
    expectError(await h.call('discarder', {}), 'INTERNAL');
    expect(h.vfs.mutationCount).toBe(0);
  });

  it('keeps the error code of a failure from the view', async () => {
    const h = await setup({ 'a.txt': 'file\n' });
    const error = expectError(await h.call('write_file', { path: 'a.txt/b.txt', content: 'x' }), 'PATH_NOT_DIRECTORY');
    expect(error.message).toContain('a.txt');
    expect(await h.vfs.diff()).toEqual([]);
    expectOk(await h.call('list_files', {}));
  });
});
