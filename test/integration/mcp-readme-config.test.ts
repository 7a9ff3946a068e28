/**
 * The README's MCP client configurations, as written: the JSON server entry (Claude Code's
 * .mcp.json, Cursor) is started with the MCP TypeScript SDK's client (the one client that runs
 * offline here) with only the two placeholder paths replaced, and used for a turn. The Codex
 * entry must start the same command and carry the settings the README explains, and the Claude
 * Code command line the setting it needs.
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FORGE_BIN } from '../helpers/forge-cli';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { expectFsckClean } from '../helpers/fsck';
import { copyFixture } from '../helpers/repos';

const README = readFileSync('README.md', 'utf8');
const MCP_SECTION = README.slice(README.indexOf('## MCP:'), README.indexOf('## The library'));

function fenced(language: string): string[] {
  return [...MCP_SECTION.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

const FORGE_PLACEHOLDER = '/abs/path/to/forge/dist/cli.js';
const REPO_PLACEHOLDER = '/abs/path/to/repo';

describe('README: MCP client configurations', () => {
  it('the JSON server entry, started as written by the TypeScript SDK client, serves a turn', async () => {
    const [json] = fenced('json');
    const entry = (JSON.parse(json!) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers.forge!;
    expect(entry.command).toBe('node');
    const repo = copyFixture('example-app');
    const args = entry.args.map((a) => (a === FORGE_PLACEHOLDER ? FORGE_BIN : a === REPO_PLACEHOLDER ? repo.dir : a));
    const transport = new StdioClientTransport({ command: process.execPath, args, env: hermeticGitEnv(), stderr: 'ignore' });
    const client = new Client({ name: 'readme-config', version: '1.0.0' });
    await client.connect(transport);
    onTestFinished(() => client.close());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['read_file', 'Edit', 'write_file', 'commit_turn', 'session_status']));
    const write = await client.callTool({ name: 'write_file', arguments: { path: 'from-readme.txt', content: 'ok\n' } });
    expect(write.isError).toBeFalsy();
    const commit = await client.callTool({ name: 'commit_turn', arguments: {} });
    expect(commit.structuredContent).toMatchObject({ committed: true, branch: 'forge/session/my-task' });
    expect(git(repo.dir, ['show', 'forge/session/my-task:from-readme.txt']).stdout).toBe('ok\n');
    expectFsckClean(repo.gitdir);
  });

  it('the Codex entry runs the same command, required, with tool approval set; Claude Code grants forge\'s tools (issue 28)', () => {
    const [toml] = fenced('toml');
    const [json] = fenced('json');
    const jsonEntry = (JSON.parse(json!) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers.forge!;
    expect(toml).toMatch(/^\[mcp_servers\.forge\]$/m);
    expect(toml).toMatch(/^command = "node"$/m);
    expect(JSON.parse(/^args = (\[.*\])$/m.exec(toml!)![1]!)).toEqual(jsonEntry.args);
    expect(toml).toMatch(/^required = true$/m);
    expect(toml).toMatch(/^default_tools_approval_mode = "approve"$/m);
    const [sh] = fenced('sh');
    expect(sh).toContain(`claude mcp add forge -- node ${jsonEntry.args.join(' ')}`);
    // Issue 28: without the grant, every forge call is refused in -p and nothing is committed.
    expect(sh).toMatch(/^claude -p "\.\.\." --allowedTools "mcp__forge__\*"$/m);
  });
});
