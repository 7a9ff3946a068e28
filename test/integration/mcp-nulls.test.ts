/**
 * Issue 25, case 4: `commit_turn {"message": null}`. The server drops null-valued properties on
 * purpose (strict clients send null for an absent optional field), so what it advertises says so:
 * every optional input property of every listed tool allows null, as a strict client's schema
 * validator (ajv here, as the Python SDK's jsonschema) checks before it sends the call.
 */
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { copyFixture } from '../helpers/repos';
import { startMcp, type Json } from './mcp-harness';

type Schema = { properties?: Record<string, Schema>; required?: string[]; items?: Schema; anyOf?: Schema[]; type?: unknown };

/** Optional properties (at any depth) whose schema does not allow null. */
function notNullable(schema: Schema, at = ''): string[] {
  const out: string[] = [];
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const allowsNull = property.type === 'null' || (Array.isArray(property.type) && property.type.includes('null')) || (property.anyOf ?? []).some((s) => s.type === 'null');
    if (!required.has(name) && !allowsNull) out.push(`${at}.${name}`);
    for (const inner of [property, ...(property.anyOf ?? [])]) out.push(...notNullable(inner, `${at}.${name}`));
  }
  if (schema.items) out.push(...notNullable(schema.items, `${at}[]`));
  return [...new Set(out)];
}

describe('issue 25: null for an optional MCP tool argument', () => {
  it('every optional input property allows null; commit_turn {"message": null} passes a strict validator and commits with the default message', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'nulls']);
    for (const tool of mcp.tools) expect(notNullable(tool.inputSchema as Schema), tool.name).toEqual([]);

    const commitTurn = mcp.tools.find((t) => t.name === 'commit_turn')!;
    const validate = new Ajv({ strict: false }).compile(commitTurn.inputSchema as Json);
    expect(validate({ message: null })).toBe(true);
    expect(validate({ message: 'm' })).toBe(true);
    expect(validate({ message: 5 })).toBe(false);
    const read = mcp.tools.find((t) => t.name === 'read_file')!;
    expect(new Ajv({ strict: false }).compile(read.inputSchema as Json)({ path: 'README.md', start_line: null, end_line: null })).toBe(true);

    expect((await mcp.call('write_file', { path: 'n.txt', content: 'n\n' })).isError).toBeFalsy();
    const result = await mcp.call('commit_turn', { message: null });
    expect(result.isError).toBeFalsy();
    const head = git(repo.dir, ['rev-parse', 'forge/session/nulls']).stdout.trim();
    expect((result.structuredContent as { commit: string }).commit).toBe(head);
    expect(git(repo.dir, ['show', `${head}:n.txt`]).stdout).toBe('n\n');
    expectFsckClean(repo.gitdir);
  });
});
