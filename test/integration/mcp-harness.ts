/**
 * Starts `node dist/cli.js mcp ...` as a child process and connects the MCP SDK's own Client to
 * it over stdio, as Claude Code or Cursor would. The tool list is fetched at once, so every
 * later callTool has its structuredContent validated against the listed output schema by the
 * client itself. Servers are closed (or killed) when the test ends.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { onTestFinished } from 'vitest';
import { FORGE_BIN } from '../helpers/forge-cli';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { gitShowBytes, type RepoHandle } from '../helpers/repos';

export type Json = { [key: string]: unknown };

export interface McpRun {
  client: Client;
  tools: Tool[];
  /** Calls a tool; the result as the client returns it (validated against the output schema). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Everything the server printed on stderr so far. */
  stderr(): string;
  /** The server's process id. */
  pid: number;
  /** Closes stdin and waits for the server to exit. */
  close(): Promise<void>;
}

export async function startMcp(repo: RepoHandle, args: string[]): Promise<McpRun> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FORGE_BIN, 'mcp', '--repo', repo.dir, ...args],
    env: hermeticGitEnv(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'forge-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  onTestFinished(() => client.close());
  const { tools } = await client.listTools();
  return {
    client,
    tools,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    stderr: () => stderr,
    pid: transport.pid!,
    close: () => client.close(),
  };
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

/** The session branch's tip, or null when it does not exist. */
export function branchTip(repo: RepoHandle, session: string): string | null {
  const run = git(repo.dir, ['rev-parse', '--verify', '--quiet', `refs/heads/forge/session/${session}`], { allowFail: true });
  return run.status === 0 ? run.stdout.trim() : null;
}

/** The session file committed at `rev`. */
export function sessionState(repo: RepoHandle, rev: string, id: string): Json {
  return JSON.parse(gitShowBytes(repo.gitdir, rev, `.forge/sessions/${id}.json`).toString('utf8')) as Json;
}
