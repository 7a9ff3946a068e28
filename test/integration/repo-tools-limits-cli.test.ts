/**
 * Issue 24, section 1, through the real CLI and `forge mcp`: a tool spinning in a native
 * built-in is stopped at its time limit by `forge turn` and does not stop `forge mcp` from
 * answering a ping meanwhile; MCP-reserved names cannot be approved. Read back with git; fsck
 * --strict on every repository.
 */
import { describe, expect, it } from 'vitest';
import { forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';
import { startMcp, textOf } from './mcp-harness';

function tool(body: string): string {
  return `export const description = 'test';\nexport const schema = { type: 'object', properties: {} };\nexport async function execute(vfs, args) {\n${body}\n}\n`;
}

const SPIN = tool("await vfs.writeFile('a.txt', 'partial'); return Array.prototype.includes.call({ length: 2 ** 53 - 1 }, 1);");
const CONFIG = (timeLimitMs: number) => `${JSON.stringify({ repo_tools: { time_limit_ms: timeLimitMs } })}\n`;

describe('issue 24: repository-tool limits in the CLI and forge mcp', { timeout: 300_000 }, () => {
  it('forge turn: a tool spinning in Array.prototype.includes is stopped with REPO_TOOL_TIMEOUT, its write discarded', () => {
    const repo = makeRepo({ files: { 'a.txt': 'original\n', 'tools/spin.js': SPIN, '.forge/config.json': CONFIG(500) } });
    expect(forge(['tools', 'approve', 'spin', '--repo', repo.dir]).status).toBe(0);
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 't1']).status).toBe(0);
    const turn = forge(['turn', '--repo', repo.dir, '--session', 't1', '--calls', '-', '--json'], { input: JSON.stringify([{ tool: 'spin', args: {} }]) });
    expect(`${turn.stdout}${turn.stderr}`).toContain('REPO_TOOL_TIMEOUT');
    expect(git(repo.dir, ['show', 'forge/session/t1:a.txt']).stdout).toBe('original\n');
    expectFsckClean(repo.gitdir);
  });

  it('forge mcp answers a ping while a tool spins in a native built-in, then the call fails with REPO_TOOL_TIMEOUT', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'original\n', 'tools/spin.js': SPIN, '.forge/config.json': CONFIG(8000) } });
    expect(forge(['tools', 'approve', 'spin', '--repo', repo.dir]).status).toBe(0);
    const mcp = await startMcp(repo, ['--session', 'p1']);
    let callDone = false;
    const call = mcp.call('spin').finally(() => {
      callDone = true;
    });
    // Give the server time to start the call, then ping: the answer comes while the tool still runs.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await mcp.client.ping();
    expect(callDone).toBe(false);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^REPO_TOOL_TIMEOUT: /);
    // The server goes on working: the file is untouched and a built-in answers.
    const read = await mcp.call('read_file', { path: 'a.txt' });
    expect(textOf(read)).toContain('original');
    await mcp.close();
    expectFsckClean(repo.gitdir);
  });

  for (const name of ['commit_turn', 'session_status']) {
    it(`forge tools approve ${name} (a name forge mcp reserves) fails with TOOL_NAME_CONFLICT and commits nothing; forge mcp still starts`, async () => {
      const repo = makeRepo({ files: { [`tools/${name}.js`]: tool('return 1;') } });
      const head = git(repo.dir, ['rev-parse', 'main']).stdout.trim();
      const run = forge(['tools', 'approve', name, '--repo', repo.dir, '--json']);
      expect(run.status).toBe(2);
      expect(run.json().error.code).toBe('TOOL_NAME_CONFLICT');
      expect(git(repo.dir, ['rev-parse', 'main']).stdout.trim()).toBe(head);
      const listed = forge(['tools', 'list', '--repo', repo.dir, '--json']).json().tools.find((t: { path?: string }) => t.path === `tools/${name}.js`);
      expect(listed).toMatchObject({ state: 'refused' });
      const mcp = await startMcp(repo, ['--session', 'r1']);
      expect(mcp.tools.filter((t) => t.name === name)).toHaveLength(1);
      await mcp.close();
      expectFsckClean(repo.gitdir);
    });
  }
});
