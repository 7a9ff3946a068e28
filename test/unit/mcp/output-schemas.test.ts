/**
 * The MCP output schemas against what the tools really return: every output of every kind
 * (pages, binary, symlink, empty files, matches, diffs) must parse under the strict schema, and
 * the compile-time exactness check must reject a schema that drifts from its output type.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { exact, OUTPUT_SCHEMAS } from '../../../src/mcp/output-schemas';
import { BUILTIN_TOOLS } from '../../../src/tools';
import type { WriteFileOutput } from '../../../src/tools/builtin/write-file';
import { expectOk, setup } from '../tools/harness';

function expectConforms(tool: string, output: unknown): void {
  const schema = OUTPUT_SCHEMAS[tool];
  expect(schema, `${tool} has an output schema`).toBeDefined();
  const parsed = schema!.safeParse(output);
  expect(parsed.success ? [] : parsed.error.issues, `${tool} output ${JSON.stringify(output)}`).toEqual([]);
}

describe('MCP output schemas', () => {
  it('name only tools of the registry', () => {
    const names = new Set(BUILTIN_TOOLS.map((t) => t.name));
    expect(Object.keys(OUTPUT_SCHEMAS).filter((n) => !names.has(n))).toEqual([]);
  });

  it('accept every shape of output the tools produce', async () => {
    const h = await setup(
      {
        'src/a.ts': 'one\ntwo\nthree\n',
        'bom.txt': '\ufeffhello\n',
        'empty.txt': '',
        'bin.dat': new Uint8Array([0, 1, 2, 0]),
        'link': { symlink: 'src/a.ts' },
        'crlf.txt': 'a\r\nb\r\n',
      },
      { config: { read_file: { max_lines: 2 } } },
    );
    const run = async (tool: string, args: unknown) => expectConforms(tool, expectOk(await h.call(tool, args)));
    await run('read_file', { path: 'src/a.ts' }); // a page with next_start_line
    await run('read_file', { path: 'src/a.ts', start_line: 3 });
    await run('read_file', { path: 'bom.txt' });
    await run('read_file', { path: 'empty.txt' });
    await run('read_file', { path: 'bin.dat' });
    await run('read_file', { path: 'link' });
    await run('list_files', {});
    await run('list_files', { glob: '*.txt' });
    await run('search', { pattern: 't', glob: '*.ts' });
    await run('search', { pattern: 'hello' });
    await run('Edit', { path: 'src/a.ts', old_snippet: 'two', new_snippet: 'TWO', region_id: 'r1' });
    await run('Edit', { path: 'src/a.ts', start_line: 1, end_line: 1, new_content: 'ONE' });
    await h.read('crlf.txt');
    await run('Patch', { path: 'crlf.txt', patches: [{ operation: 'replace', oldText: 'a', newText: 'A', toClipboard: 'c' }] });
    await run('Patch', { path: 'new.txt', patches: [{ operation: 'overwrite', newText: 'x\n' }] });
    await run('search_replace', { path: 'new.txt', blocks: '<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n' });
    await run('write_file', { path: 'docs/b.md', content: 'b\n' });
    await run('write_file', { path: 'docs/b.md', content: 'b\n' });
    await run('delete_file', { path: 'docs/b.md' });
    await run('update_context', { add: ['src/a.ts', 'empty.txt'], remove: ['nope.txt'] });
    await run('list_active_files', {});
    await run('request_mode_upgrade', { reason: 'already unrestricted' });
    h.state.mode = 'restricted';
    await run('request_mode_upgrade', { reason: 'now it changes' });
  });

  it('accept what Undo returns', async () => {
    const h = await setup({ 'a.txt': 'a\n' });
    h.state.undo = { tool: 'write_file', turn: 1, summary: 'write_file b.txt', files: [{ path: 'b.txt', existedBefore: false, existsAfter: true, postSha256: await h.ctx.hashContent(new TextEncoder().encode('b\n')), postMode: '100644' }] };
    expectOk(await h.call('write_file', { path: 'b.txt', content: 'b\n' }));
    expectConforms('Undo', expectOk(await h.call('Undo', {})));
  });

  it('are exact at compile time: a missing, extra, or retyped field does not type-check', () => {
    const ok = exact<WriteFileOutput>()(z.strictObject({ path: z.string(), created: z.boolean(), bytes: z.number(), file_hash: z.string() }));
    // @ts-expect-error -- file_hash missing
    exact<WriteFileOutput>()(z.strictObject({ path: z.string(), created: z.boolean(), bytes: z.number() }));
    // @ts-expect-error -- an extra optional field
    exact<WriteFileOutput>()(z.strictObject({ path: z.string(), created: z.boolean(), bytes: z.number(), file_hash: z.string(), note: z.string().optional() }));
    // @ts-expect-error -- created optional instead of required
    exact<WriteFileOutput>()(z.strictObject({ path: z.string(), created: z.boolean().optional(), bytes: z.number(), file_hash: z.string() }));
    expect(ok.shape.file_hash).toBeDefined();
  });
});
