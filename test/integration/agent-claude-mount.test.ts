/**
 * forge agent where FUSE works: the session is mounted (the default), Claude Code edits through
 * the mount, and its Stop hook hands the turn's end to forge agent (which holds the mounted
 * session) over a socket. Real Claude Code CLI, headless, against the loopback Anthropic mock.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { FORGE_BIN } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { hermeticGitEnv } from '../helpers/git-cli';
import { startAnthropicMock, type ScriptedAnswer } from '../helpers/mock-anthropic-stream';
import { describeMount } from '../helpers/mount';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const CLAUDE = resolve('node_modules/.bin/claude');

function run(args: string[], env: Record<string, string>, cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [FORGE_BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

describeMount('forge agent claude on a mount', () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it.skipIf(!existsSync(CLAUDE))('mounts by default; the hook commits through forge agent; undo reverts the turn', async () => {
    const repo = makeRepo({
      files: {
        'math.js': 'export const add = (a, b) => a - b;\n',
        'test.mjs': 'import { add } from "./math.js";\nif (add(2, 3) !== 5) { console.log("FAIL"); process.exit(1); }\nconsole.log("PASS");\n',
        'package.json': '{"type":"module"}\n',
      },
    });
    const wd = join(makeTempDir('agent-mnt'), 'view');
    const mock = await startAnthropicMock((body): ScriptedAnswer => {
      if (!Array.isArray(body.tools) || body.tools.length === 0) return { blocks: [{ text: 'A title' }], stop: 'end_turn' };
      const results = JSON.stringify(body.messages).split('"tool_result"').length - 1;
      const steps: ScriptedAnswer[] = [
        { blocks: [{ id: 'toolu_read', name: 'Read', input: { file_path: `${wd}/math.js` } }], stop: 'tool_use' },
        { blocks: [{ id: 'toolu_edit', name: 'Edit', input: { file_path: `${wd}/math.js`, old_string: 'a - b', new_string: 'a + b' } }], stop: 'tool_use' },
        { blocks: [{ id: 'toolu_test', name: 'Bash', input: { command: 'node test.mjs', description: 'run the test' } }], stop: 'tool_use' },
        { blocks: [{ text: 'Fixed add; the test passes.' }], stop: 'end_turn' },
      ];
      return steps[Math.min(results, steps.length - 1)]!;
    });
    servers.push(mock);
    const env: Record<string, string> = {
      ...hermeticGitEnv(),
      PATH: process.env.PATH ?? '',
      HOME: makeTempDir('agent-mnt-home'),
      ANTHROPIC_BASE_URL: mock.url,
      ANTHROPIC_API_KEY: 'sk-mock-not-a-key',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      FORGE_CLAUDE_BIN: CLAUDE,
    };
    const before = execFileSync('git', ['-C', repo.dir, 'status', '--porcelain=v2'], { encoding: 'utf8' });
    const first = await run(['agent', 'claude', '--repo', repo.dir, '--dir', wd, '--json', '--', '-p', 'fix add', '--allowedTools', 'Read,Edit,Bash', '--model', 'claude-mock-1'], env, repo.dir);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toContain(`works in ${wd} (mount)`);
    const report = JSON.parse(first.stdout.trim().split('\n').at(-1)!);
    expect(report).toMatchObject({ mode: 'mount', turns: 1, caughtUp: [], pending: [] });
    expect(report.hooks).toEqual([{ kind: 'claude-stop', ok: true, turns: [1] }]);
    const ref = `refs/heads/forge/session/${report.session}`;
    expect(execFileSync('git', ['-C', repo.dir, 'show', `${ref}:math.js`], { encoding: 'utf8' })).toBe('export const add = (a, b) => a + b;\n');
    const state = JSON.parse(execFileSync('git', ['-C', repo.dir, 'show', `${ref}:.forge/sessions/${report.session}.json`], { encoding: 'utf8' }));
    expect(state.toolCalls.map((c: any) => [c.tool, c.ok])).toEqual([['Read', true], ['Edit', true], ['Bash', true]]);
    expect(JSON.stringify(state.toolCalls[2].output)).toContain('PASS');
    // Unmounted when the agent exited.
    expect(execFileSync('sh', ['-c', `grep -c " ${wd} " /proc/mounts || true`], { encoding: 'utf8' }).trim()).toBe('0');
    const undo = await run(['undo', '--repo', repo.dir, '--session', report.session, '--json'], env, repo.dir);
    expect(undo.status, undo.stderr).toBe(0);
    expect(execFileSync('git', ['-C', repo.dir, 'show', `${ref}:math.js`], { encoding: 'utf8' })).toBe('export const add = (a, b) => a - b;\n');
    expect(execFileSync('git', ['-C', repo.dir, 'status', '--porcelain=v2'], { encoding: 'utf8' })).toBe(before);
    expectFsckClean(repo.gitdir);
  }, 240_000);
});
