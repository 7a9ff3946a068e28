import { describe, expect, it } from 'vitest';
import {
  BUILTIN_TOOLS,
  TOOL_NAME_PATTERN,
  exportToolSchemas,
  parseToolsConfig,
  strictSchemaProblems,
  type JsonSchema,
} from '../../../src/tools';
import { expectError, expectOk, setup } from './harness';

const schemas = exportToolSchemas();

function walkObjects(schema: JsonSchema, visit: (object: JsonSchema) => void): void {
  if (schema.type === 'object' || 'properties' in schema) visit(schema);
  for (const value of Object.values(schema)) {
    if (Array.isArray(value)) value.forEach((v) => v && typeof v === 'object' && walkObjects(v as JsonSchema, visit));
    else if (value && typeof value === 'object') walkObjects(value as JsonSchema, visit);
  }
}

describe('tool schema export', () => {
  it('exports every built-in tool once, under its canonical name, in both forms', () => {
    const names = BUILTIN_TOOLS.map((t) => t.name);
    expect(schemas.openai.map((t) => t.function.name)).toEqual(names);
    expect(schemas.anthropic.map((t) => t.name)).toEqual(names);
    expect(names).toEqual(expect.arrayContaining(['read_file', 'write_file', 'delete_file', 'list_files', 'search', 'Edit', 'Patch', 'search_replace', 'update_context', 'list_active_files', 'request_mode_upgrade']));
  });

  it.each(schemas.openai.map((t) => [t.function.name, t] as const))('%s: valid under OpenAI strict mode', (_name, tool) => {
    expect(tool.type).toBe('function');
    expect(tool.function.strict).toBe(true);
    expect(tool.function.name).toMatch(TOOL_NAME_PATTERN);
    expect(tool.function.description.length).toBeGreaterThan(40);
    expect(strictSchemaProblems(tool.function.parameters)).toEqual([]);
    expect(JSON.stringify(tool.function.parameters)).not.toContain('oneOf');
  });

  it.each(schemas.anthropic.map((t) => [t.name, t] as const))('%s: Anthropic form is one closed object', (_name, tool) => {
    expect(tool.input_schema.type).toBe('object');
    expect(tool.input_schema).not.toHaveProperty('anyOf');
    expect(tool.input_schema).not.toHaveProperty('oneOf');
    expect(tool.input_schema).not.toHaveProperty('$schema');
    walkObjects(tool.input_schema, (object) => expect(object.additionalProperties).toBe(false));
  });

  it('the strictness checker catches what strict mode rejects', () => {
    expect(strictSchemaProblems({ anyOf: [{ type: 'object' }] })).toContain('(root): the top level must be a single object');
    expect(strictSchemaProblems({ type: 'object', properties: { a: { type: 'string' } }, required: [], additionalProperties: false })).toEqual([
      '(root).a: not listed in required',
    ]);
    expect(strictSchemaProblems({ type: 'object', properties: {}, required: [] })).toEqual(['(root): object without additionalProperties: false']);
    expect(
      strictSchemaProblems({ type: 'object', properties: { a: { oneOf: [{ type: 'string' }], minLength: 1 } }, required: ['a'], additionalProperties: false }),
    ).toEqual(['(root).a: oneOf (use anyOf)', '(root).a: unsupported keyword minLength']);
  });

  it('optional fields are nullable in the OpenAI form, and null is accepted as absent', async () => {
    const edit = schemas.openai.find((t) => t.function.name === 'Edit')!.function.parameters as JsonSchema & { properties: Record<string, JsonSchema> };
    expect(edit.properties.path!.type).toBe('string');
    expect(edit.properties.file_hash!.type).toEqual(['string', 'null']);
    expect(edit.properties.match_hint!.anyOf).toContainEqual({ type: 'null' });

    // What a strict-mode model sends: every field, unused ones null.
    const h = await setup({ 'a.txt': 'one\ntwo\n' });
    await h.read('a.txt');
    const output = expectOk(
      await h.call('Edit', {
        path: 'a.txt',
        old_snippet: null,
        new_snippet: null,
        match_hint: null,
        start_line: 2,
        end_line: 2,
        new_content: 'TWO',
        file_hash: null,
        region_id: null,
      }),
    );
    expect(output).toMatchObject({ status: 'ok' });
    expect(await h.vfs.text('a.txt')).toBe('one\nTWO\n');
  });

  it('disabled tools are not exported', () => {
    const { openai } = exportToolSchemas(parseToolsConfig({ disabled_tools: ['search_replace'] }));
    expect(openai.map((t) => t.function.name)).not.toContain('search_replace');
  });

  it('REQ-PATCH-006: Patch schema has path, patches and the operation fields', () => {
    const patch = schemas.anthropic.find((t) => t.name === 'Patch')!.input_schema as any;
    expect(patch.required).toEqual(['path', 'patches']);
    expect(patch.properties.path.type).toBe('string');
    expect(patch.properties.patches.type).toBe('array');
    const op = patch.properties.patches.items;
    expect(op.required).toEqual(['operation']);
    expect(op.properties.operation.enum).toEqual(['replace', 'append_eof', 'prepend_bof', 'overwrite']);
    for (const field of ['oldText', 'newText', 'toClipboard', 'fromClipboard']) expect(op.properties[field].type).toBe('string');
    expect(Object.keys(op.properties.reindent.properties)).toEqual(['strip', 'add']);
    expect(op.additionalProperties).toBe(false);
    expect(op.properties.reindent.additionalProperties).toBe(false);

    const strict = schemas.openai.find((t) => t.function.name === 'Patch')!.function.parameters as any;
    expect(strict.properties.patches.items.required).toEqual(['operation', 'oldText', 'newText', 'toClipboard', 'fromClipboard', 'reindent']);
  });

  it('REQ-PATCH-006: Patch input validation rejects unknown keys and bad operations, naming the field', async () => {
    const h = await setup({});
    const unknown = expectError(await h.call('Patch', { path: 'a.txt', patches: [{ operation: 'overwrite', newText: 'x', old_text: 'y' }] }), 'TOOL_INPUT_INVALID');
    expect(unknown.message).toContain('`old_text`');
    expect(unknown.message).toContain('patches[0]');
    expect(unknown.message).toContain('oldText');
    const bad = expectError(await h.call('Patch', { path: 'a.txt', patches: [{ operation: 'insert', newText: 'x' }] }), 'TOOL_INPUT_INVALID');
    expect(bad.message).toContain('`patches[0].operation`');
    expect(bad.message).toContain('append_eof');
    expectError(await h.call('Patch', { path: 'a.txt', patches: [] }), 'TOOL_INPUT_INVALID');
    expectError(await h.call('Patch', { path: 'a.txt' }), 'TOOL_INPUT_INVALID');
    expect(h.vfs.mutationCount).toBe(0);
  });
});
