/**
 * `forge mcp` end to end: the built CLI started as a child process and driven by the MCP SDK's
 * Client over stdio (see mcp-harness.ts). Tool listing (strict schemas, annotations, output
 * schemas), a turn committed with commit_turn and read back with the git CLI, Undo, errors as
 * isError results with their codes, restricted mode and the approval policy.
 */
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { renderOutputText } from '../../src/mcp/tool-results';
import { renderStatus, type SessionStatusOutput } from '../../src/mcp/turns';
import { BUILTIN_TOOLS } from '../../src/tools';
import { disabledInModeMessage } from '../../src/tools/modes';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { copyFixture, gitLsTree, gitShowBytes, snapshotWorkTree } from '../helpers/repos';
import { branchTip, sessionState, startMcp, textOf, type Json } from './mcp-harness';

/** Every way a JSON Schema is not "strict": an object without additionalProperties: false. */
function looseObjects(schema: Json, at = '(root)'): string[] {
  const out: string[] = [];
  const isObject = schema.type === 'object' || 'properties' in schema;
  if (isObject && schema.additionalProperties !== false) out.push(at);
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) out.push(...looseObjects(sub, `${at}.${name}`));
  if (schema.items && typeof schema.items === 'object') out.push(...looseObjects(schema.items as Json, `${at}[]`));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const members = schema[key];
    if (Array.isArray(members)) members.forEach((m, i) => out.push(...looseObjects(m as Json, `${at}|${i}`)));
  }
  return out;
}

describe('forge mcp: tools/list', () => {
  it('lists every registry tool once (no aliases) plus commit_turn and session_status, with strict input schemas, output schemas and annotations', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'list']);
    const names = mcp.tools.map((t) => t.name);
    expect(names).toEqual([...BUILTIN_TOOLS.map((t) => t.name), 'commit_turn', 'session_status']);
    expect(names).not.toContain('edit');

    for (const tool of mcp.tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.inputSchema, tool.name).not.toHaveProperty('anyOf');
      expect(tool.inputSchema, tool.name).not.toHaveProperty('$schema');
      expect(looseObjects(tool.inputSchema as Json), `${tool.name} input`).toEqual([]);
      expect(tool.outputSchema, `${tool.name} has an output schema`).toBeDefined();
      expect(looseObjects(tool.outputSchema as Json), `${tool.name} output`).toEqual([]);
      expect(tool.annotations?.openWorldHint, tool.name).toBe(false);
    }

    const hints = Object.fromEntries(
      mcp.tools.map((t) => [t.name, [t.annotations?.readOnlyHint, t.annotations?.destructiveHint, t.annotations?.idempotentHint]]),
    );
    const read = [true, undefined, undefined];
    const write = [false, true, undefined];
    expect(hints).toEqual({
      read_file: read,
      list_files: read,
      search: read,
      Edit: write,
      Patch: write,
      search_replace: write,
      write_file: [false, true, true],
      delete_file: [false, true, true],
      update_context: read,
      list_active_files: read,
      request_mode_upgrade: [false, false, true],
      Undo: write,
      commit_turn: [false, false, true],
      session_status: read,
    });

    const edit = mcp.tools.find((t) => t.name === 'Edit')!;
    expect(Object.keys(edit.inputSchema.properties ?? {})).toEqual(['path', 'old_snippet', 'new_snippet', 'match_hint', 'start_line', 'end_line', 'new_content', 'file_hash', 'region_id']);
    expect(edit.inputSchema.required).toEqual(['path']);
    expect(mcp.stderr()).toMatch(/^forge mcp: session list on forge\/session\/list at [0-9a-f]{12} \(new, /);
  });
});

describe('forge mcp: a turn', () => {
  it('read_file, then Edit, then commit_turn puts ONE commit with the change and the session file on forge/session/<id>; the working tree is untouched', async () => {
    const repo = copyFixture('example-app');
    const before = snapshotWorkTree(repo.dir);
    const mcp = await startMcp(repo, ['--session', 's1']);
    const start = branchTip(repo, 's1')!;
    expect(git(repo.dir, ['rev-parse', `${start}^`]).stdout.trim()).toBe(repo.head);

    const read = await mcp.call('read_file', { path: 'src/math.js' });
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toMatch(/^src\/math\.js: lines 1-10 of 10, file_hash [0-9a-f]{64}\n 1\t\/\*\* Sum of a list of numbers\. \*\/\n/);
    expect(read.structuredContent).toMatchObject({ path: 'src/math.js', type: 'file', total_lines: 10, start_line: 1, end_line: 10 });

    const edit = await mcp.call('Edit', {
      path: 'src/math.js',
      old_snippet: '  return sum(values) / values.length;',
      new_snippet: '  if (values.length === 0) return 0;\n  return sum(values) / values.length;',
    });
    expect(edit.isError).toBeFalsy();
    expect(edit.structuredContent).toMatchObject({ action: 'apply_snippet_edit', status: 'ok', newline_kind: 'LF' });
    expect(JSON.parse(textOf(edit))).toEqual(edit.structuredContent);
    // Nothing is on the branch before commit_turn.
    expect(branchTip(repo, 's1')).toBe(start);

    const status = await mcp.call('session_status');
    expect(status.structuredContent).toMatchObject({
      session: 's1',
      branch: 'forge/session/s1',
      head: start,
      turn: 0,
      pending: { files: [{ path: 'src/math.js', kind: 'modified', added: 1, removed: 0, binary: false }], insertions: 1, deletions: 0, tool_calls: 2 },
      undo: 'Edit src/math.js',
    });
    expect(textOf(status)).toContain(' M src/math.js | +1 -0');

    const commit = await mcp.call('commit_turn', { message: 'Guard average against an empty list' });
    expect(commit.isError).toBeFalsy();
    const tip = branchTip(repo, 's1')!;
    expect(commit.structuredContent).toEqual({
      committed: true,
      session: 's1',
      branch: 'forge/session/s1',
      commit: tip,
      turn: 1,
      files: [{ path: 'src/math.js', kind: 'modified' }],
      message: `Committed turn 1 as ${tip.slice(0, 12)} on forge/session/s1 (1 file changed).`,
    });

    // Read back with git: one commit on top of the session start, holding the edit and the session file.
    expect(git(repo.dir, ['rev-parse', `${tip}^`]).stdout.trim()).toBe(start);
    expect(git(repo.dir, ['diff', '--name-only', start, tip]).stdout.split('\n').filter(Boolean)).toEqual(['.forge/sessions/s1.json', 'src/math.js']);
    expect(gitShowBytes(repo.gitdir, tip, 'src/math.js').toString('utf8')).toContain('  if (values.length === 0) return 0;\n  return sum(values) / values.length;\n');
    const message = git(repo.dir, ['log', '-1', '--format=%B', tip]).stdout;
    expect(message).toMatch(/^Guard average against an empty list\n\n(.*\n)*Forge-Session: s1\nForge-Turn: 1\n/);
    const state = sessionState(repo, tip, 's1');
    expect(state).toMatchObject({ id: 's1', turn: 1, mode: 'unrestricted' });
    expect((state.toolCalls as Json[]).map((c) => [c.tool, c.ok, c.turn])).toEqual([
      ['read_file', true, 1],
      ['Edit', true, 1],
    ]);
    expect(gitLsTree(repo.gitdir, tip).some((e) => e.path === '.forge/sessions/s1.json')).toBe(true);

    // A second commit_turn with nothing pending commits nothing.
    const again = await mcp.call('commit_turn');
    expect(again.structuredContent).toMatchObject({ committed: false, commit: tip, turn: 1, files: [] });
    expect(branchTip(repo, 's1')).toBe(tip);

    expect(snapshotWorkTree(repo.dir)).toBe(before);
    await mcp.close();
    expectFsckClean(repo.gitdir);
  });

  it('accepts an alias on call (edit for Edit) and records the canonical name', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'alias']);
    await mcp.call('read_file', { path: 'README.md' });
    const edit = await mcp.call('edit', { path: 'README.md', start_line: 1, end_line: 1, new_content: '# Example app' });
    expect(edit.isError).toBeFalsy();
    await mcp.call('commit_turn');
    const tip = branchTip(repo, 'alias')!;
    expect(gitShowBytes(repo.gitdir, tip, 'README.md').toString('utf8')).toMatch(/^# Example app\n/);
    expect((sessionState(repo, tip, 'alias').toolCalls as Json[]).map((c) => c.tool)).toEqual(['read_file', 'Edit']);
  });
});

describe('forge mcp: Undo', () => {
  it('reverts the last edit through the same runner, and the next commit says so', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'undo']);
    const start = branchTip(repo, 'undo')!;
    await mcp.call('read_file', { path: 'package.json' });
    await mcp.call('Edit', { path: 'package.json', old_snippet: '"version": "1.0.0"', new_snippet: '"version": "2.0.0"' });
    const undo = await mcp.call('Undo');
    expect(undo.isError).toBeFalsy();
    expect(undo.structuredContent).toEqual({ reverted: 1, paths: ['package.json'], undid: { tool: 'Edit', turn: 1, summary: 'Edit package.json' }, message: 'Reverted 1 file: package.json.' });
    expect((await mcp.call('session_status')).structuredContent).toMatchObject({ pending: { files: [] }, undo: null });
    const again = await mcp.call('Undo');
    expect(textOf(again)).toBe('UNDO_NOTHING_TO_UNDO: No edits have been applied to any file with this session.');
    await mcp.call('commit_turn');
    const tip = branchTip(repo, 'undo')!;
    expect(git(repo.dir, ['diff', '--name-only', start, tip]).stdout.trim()).toBe('.forge/sessions/undo.json');
    expect(git(repo.dir, ['log', '-1', '--format=%B', tip]).stdout).toContain('Undo of turn 1: Edit package.json');
  });
});

describe('forge mcp: failures are isError results with their stable code', () => {
  it('keeps the code and the model-recoverable message, changes nothing, and keeps serving', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'errors']);
    const start = branchTip(repo, 'errors');

    const escape = await mcp.call('read_file', { path: '../outside.txt' });
    expect(escape.isError).toBe(true);
    expect(escape.structuredContent).toBeUndefined();
    expect(textOf(escape)).toMatch(/^PATH_ESCAPES_ROOT: /);
    expect(escape._meta?.['forge/error']).toMatchObject({ code: 'PATH_ESCAPES_ROOT' });

    await mcp.call('read_file', { path: 'src/math.js' });
    const stale = await mcp.call('Edit', { path: 'src/math.js', old_snippet: 'sum', new_snippet: 'total', file_hash: '0'.repeat(64) });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toMatch(/^STALE_FILE: file_hash does not match the current content of src\/math\.js/);
    // The Edit failure payload (FR-SFE-04) comes along for the model.
    expect(textOf(stale)).toMatch(/\nDetails: \{"action":"apply_snippet_edit","status":"stale_file",/);

    const invalid = await mcp.call('Edit', { path: 'src/math.js', old_snippet: 'x', new_snippet: 'y', start_line: 1 });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/^TOOL_INPUT_INVALID: Invalid arguments for Edit:\n- Mixed modes: /);

    const unknownField = await mcp.call('read_file', { path: 'src/math.js', lines: 3 });
    expect(textOf(unknownField)).toMatch(/^TOOL_INPUT_INVALID: .*unknown field `lines`/s);

    const noTool = await mcp.call('rm_rf', {});
    expect(noTool.isError).toBe(true);
    expect(textOf(noTool)).toMatch(/^TOOL_NOT_FOUND: There is no tool named "rm_rf"\. Available tools: read_file, /);

    const noMatch = await mcp.call('Edit', { path: 'src/math.js', old_snippet: 'no such text anywhere', new_snippet: 'y' });
    expect(textOf(noMatch)).toMatch(/^TEXT_NO_MATCH: /);

    const commitBad = await mcp.call('commit_turn', { message: 42 });
    expect(textOf(commitBad)).toMatch(/^TOOL_INPUT_INVALID: Invalid arguments for commit_turn:\n- `message`: /);

    const status = await mcp.call('session_status');
    expect(status.structuredContent).toMatchObject({ pending: { files: [] } });
    expect(branchTip(repo, 'errors')).toBe(start);
    // Failed calls are part of the record too.
    await mcp.call('commit_turn');
    const calls = sessionState(repo, branchTip(repo, 'errors')!, 'errors').toolCalls as Json[];
    expect(calls.map((c) => [c.tool, c.ok, (c.error as Json | undefined)?.code])).toEqual([
      ['read_file', false, 'PATH_ESCAPES_ROOT'],
      ['read_file', true, undefined],
      ['Edit', false, 'STALE_FILE'],
      ['Edit', false, 'TOOL_INPUT_INVALID'],
      ['read_file', false, 'TOOL_INPUT_INVALID'],
      ['rm_rf', false, 'TOOL_NOT_FOUND'],
      ['Edit', false, 'TEXT_NO_MATCH'],
    ]);
    expectFsckClean(repo.gitdir);
  });
});

describe('forge mcp: modes and approval', () => {
  it('--mode restricted refuses every write tool with the REQ-PATCH-009 wording; request_mode_upgrade (approved by the client) lifts it', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'ro', '--mode', 'restricted']);
    expect((await mcp.call('read_file', { path: 'src/math.js' })).isError).toBeFalsy();
    const edit = await mcp.call('Edit', { path: 'src/math.js', old_snippet: 'sum', new_snippet: 'total' });
    expect(edit.isError).toBe(true);
    expect(edit.content[0]).toEqual({ type: 'text', text: `TOOL_DISABLED_IN_MODE: ${disabledInModeMessage('Edit')}` });
    expect(edit._meta?.['forge/error']).toEqual({ code: 'TOOL_DISABLED_IN_MODE', message: 'Edit tool is disabled in Restricted mode. Use request_mode_upgrade to request write access.', data: { tool: 'Edit', mode: 'restricted' } });
    const patch = await mcp.call('Patch', { path: 'x.txt', patches: [{ operation: 'overwrite', newText: 'x' }] });
    // REQ-PATCH-009, byte for byte.
    expect(patch.content[0]).toEqual({ type: 'text', text: 'TOOL_DISABLED_IN_MODE: Patch tool is disabled in Restricted mode. Use request_mode_upgrade to request write access.' });
    expect((await mcp.call('session_status')).structuredContent).toMatchObject({ mode: 'restricted', pending: { files: [] } });

    const upgrade = await mcp.call('request_mode_upgrade', { reason: 'fix average' });
    expect(upgrade.structuredContent).toEqual({ mode: 'unrestricted', changed: true, message: 'Write access granted: write tools are now available.' });
    expect((await mcp.call('Edit', { path: 'src/math.js', old_snippet: '// TODO', new_snippet: '// NOTE' })).isError).toBeFalsy();
  });

  it('--approve none keeps the configured policy: side-effecting calls are denied, reads run', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'strict', '--mode', 'restricted', '--approve', 'none']);
    const upgrade = await mcp.call('request_mode_upgrade', { reason: 'please' });
    expect(textOf(upgrade)).toMatch(/^TOOL_DENIED: request_mode_upgrade needs approval and no approver is available in this run\./);
    expect((await mcp.call('list_files', { glob: '*.js' })).structuredContent).toMatchObject({ path: '', truncated: false });
    expect((await mcp.call('session_status')).structuredContent).toMatchObject({ mode: 'restricted' });
  });
});

describe('forge mcp: what a client that shows only structuredContent gives the model', () => {
  it('every success carries in structuredContent all its text says; a failure has no structuredContent and its text carries code, message and hint', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'structured']);
    const sameAsText = (name: string, result: CallToolResult) => {
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
      expect(result.structuredContent, name).toBeDefined();
      // The text is rendered from the structured result alone: nothing is only in the text.
      expect(textOf(result), name).toBe(renderOutputText(name, result.structuredContent));
    };
    const read = await mcp.call('read_file', { path: 'src/math.js', start_line: 2, end_line: 4 });
    sameAsText('read_file', read);
    // Numbered lines, the hash to edit with and the range are all structured.
    expect(read.structuredContent).toMatchObject({ path: 'src/math.js', file_hash: expect.stringMatching(/^[0-9a-f]{64}$/), start_line: 2, end_line: 4, total_lines: expect.any(Number) });
    expect(String(read.structuredContent!.content).split('\n').map((l) => l.split('\t')[0])).toEqual(['2', '3', '4']);
    sameAsText('list_files', await mcp.call('list_files', { glob: '**/*.js' }));
    sameAsText('search', await mcp.call('search', { pattern: 'average' }));
    await mcp.call('read_file', { path: 'src/math.js' });
    sameAsText('Edit', await mcp.call('Edit', { path: 'src/math.js', old_snippet: '// TODO', new_snippet: '// NOTE' }));
    sameAsText('write_file', await mcp.call('write_file', { path: 'notes.txt', content: 'n\n' }));
    sameAsText('update_context', await mcp.call('update_context', { add: ['notes.txt'] }));
    sameAsText('list_active_files', await mcp.call('list_active_files'));
    sameAsText('Undo', await mcp.call('Undo'));
    const status = await mcp.call('session_status');
    expect(textOf(status)).toBe(renderStatus(status.structuredContent as SessionStatusOutput));
    const commit = await mcp.call('commit_turn');
    expect(textOf(commit)).toBe((commit.structuredContent as { message: string }).message);

    const failure = await mcp.call('read_file', { path: '../outside.txt' });
    expect(failure.isError).toBe(true);
    // No structuredContent on a failure (it would have to fit the success schema): clients then
    // show the text, which starts with the stable code and ends with the hint when there is one.
    expect(failure.structuredContent).toBeUndefined();
    expect(textOf(failure)).toMatch(/^PATH_ESCAPES_ROOT: .+\nHint: Write the path from the repository root without "\.\."\./s);
  });

  it('Undo with arguments says it takes none', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'noargs']);
    const undo = await mcp.call('Undo', { x: 1 });
    expect(textOf(undo)).toMatch(/^TOOL_INPUT_INVALID: .*unknown field `x`\. This tool takes no arguments: pass \{\}\./s);
    expect(textOf(undo)).not.toMatch(/Allowed fields/);
  });

  it('an unknown resource is -32002 with the MCP prefix once', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'res']);
    const error = await mcp.client.readResource({ uri: 'forge://session/res/nope' }).then(
      () => null,
      (e: unknown) => e as { code: number; message: string },
    );
    expect(error?.code).toBe(-32002);
    // The client adds "MCP error -32002: " to what the server sent.
    expect(error?.message).toMatch(/^MCP error -32002: Resource not found: forge:\/\/session\/res\/nope\. This server offers /);
  });
});

describe('forge mcp: the tool list follows the mode', () => {
  it('restricted mode lists only the tools it allows; request_mode_upgrade sends tools/list_changed and the write tools appear', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'listed', '--mode', 'restricted']);
    const names = (tools: { name: string }[]) => tools.map((t) => t.name);
    const restricted = names(mcp.tools);
    const writeTools = BUILTIN_TOOLS.filter((t) => t.sideEffects && !(t.allowedInRestricted ?? false)).map((t) => t.name);
    expect(writeTools.length).toBeGreaterThan(3);
    expect(restricted.filter((n) => writeTools.includes(n))).toEqual([]);
    expect(restricted).toEqual(expect.arrayContaining(['read_file', 'list_files', 'search', 'request_mode_upgrade', 'commit_turn', 'session_status']));
    expect(mcp.client.getServerCapabilities()?.tools?.listChanged).toBe(true);

    let changed = 0;
    mcp.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    // A call that does not change the mode sends nothing.
    await mcp.call('read_file', { path: 'src/math.js' });
    expect((await mcp.call('request_mode_upgrade', { reason: 'fix average' })).structuredContent).toMatchObject({ changed: true });
    await expect.poll(() => changed).toBe(1);
    const unrestricted = names((await mcp.client.listTools()).tools);
    expect(unrestricted).toEqual(expect.arrayContaining(writeTools));
    // Listing is stable within a mode (built once), and asking again changes nothing.
    expect(names((await mcp.client.listTools()).tools)).toEqual(unrestricted);
    await mcp.call('request_mode_upgrade', { reason: 'again' });
    expect(changed).toBe(1);
  });
});
