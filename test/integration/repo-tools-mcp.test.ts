/**
 * Repository tools over MCP (issue 18): approved tools are listed (with their JSON Schema and
 * annotations) and callable through the real `forge mcp`; a call that changes tools/ updates the
 * list and sends notifications/tools/list_changed.
 */
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';
import { startMcp, textOf } from './mcp-harness';

const RENAME_TOOL = readFileSync('examples/repo-tools/tools/rename_symbol.js', 'utf8');

describe('repository tools over MCP', { timeout: 300_000 }, () => {
  it('lists and runs an approved tool; changing tools/ updates the list and notifies the client', async () => {
    const repo = makeRepo({ files: { 'tools/rename_symbol.js': RENAME_TOOL, 'src/a.js': 'let oldName = 1;\n' } });
    expect(forge(['tools', 'approve', 'rename_symbol', '--repo', repo.dir]).status).toBe(0);
    const mcp = await startMcp(repo, ['--session', 'm1']);
    let notified = 0;
    mcp.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified++;
    });
    const listed = mcp.tools.find((t) => t.name === 'rename_symbol');
    expect(listed).toMatchObject({ inputSchema: { type: 'object', required: ['from', 'to', 'dir', 'extensions'] }, annotations: { readOnlyHint: false, destructiveHint: true } });

    const result = await mcp.call('rename_symbol', { from: 'oldName', to: 'newName', dir: 'src', extensions: ['.js'] });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ result: { files: 1 } });

    // The agent edits the tool: it is no longer approved, so it leaves the list.
    await mcp.call('read_file', { path: 'tools/rename_symbol.js' });
    const edited = await mcp.call('write_file', { path: 'tools/rename_symbol.js', content: RENAME_TOOL.replace('whole words only', 'whole words') });
    expect(edited.isError ?? false).toBe(false);
    await expect.poll(() => notified).toBe(1);
    expect((await mcp.client.listTools()).tools.map((t) => t.name)).not.toContain('rename_symbol');
    const refused = await mcp.call('rename_symbol', { from: 'newName', to: 'x', dir: 'src', extensions: ['.js'] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^TOOL_NOT_APPROVED: /);

    // Undo brings the approved source back, and the tool with it.
    expect((await mcp.call('Undo', {})).isError ?? false).toBe(false);
    await expect.poll(() => notified).toBe(2);
    expect((await mcp.client.listTools()).tools.map((t) => t.name)).toContain('rename_symbol');

    expect((await mcp.call('commit_turn', { message: 'rename' })).isError ?? false).toBe(false);
    expect(git(repo.dir, ['show', 'forge/session/m1:src/a.js']).stdout).toBe('let newName = 1;\n');
    await mcp.close();
    expectFsckClean(repo.gitdir);
  });
});
