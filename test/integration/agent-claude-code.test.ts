/**
 * Issue 28, "Done when": the real Claude Code CLI (@anthropic-ai/claude-code, headless -p)
 * against a loopback mock of the Anthropic Messages API, run by `forge agent claude --copy`.
 * A scripted model reads a file, edits it with Claude Code's Edit tool, runs the test with its
 * Bash tool and answers; then a second prompt (--continue) that writes a file and changes one
 * with its shell. Two turn commits hold the edits and each turn's conversation; the working tree
 * and index are untouched; a secret in a file the agent reads and in the prompt never reaches any
 * object. `forge undo` reverts the second turn; `forge resume --from` the first turn, then
 * `forge agent claude --session <new>` continues Claude Code's own conversation as of that turn
 * (the model is sent the first turn's messages, not the second's), in a directory that holds the
 * first turn's files again.
 */
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FORGE_BIN } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { hermeticGitEnv } from '../helpers/git-cli';
import { startAnthropicMock, type ScriptedAnswer } from '../helpers/mock-anthropic-stream';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const CLAUDE = resolve('node_modules/.bin/claude');
const AWS = 'AKIA' + 'Q4WZ7R2XKP9LM3TD';
const GH = 'ghp_' + 'Zk3pW9qT5vX1rN8mB2cD7fG4hJ6kL0sA9eYu';

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

/** The messages of the request's current turn: from the last prompt (a user message that is not tool results). */
function currentTurn(messages: any[]): any[] {
  let i = messages.length - 1;
  const isPrompt = (m: any) => m.role === 'user' && (typeof m.content === 'string' || !m.content.some((b: any) => b.type === 'tool_result'));
  while (i > 0 && !isPrompt(messages[i])) i--;
  return messages.slice(i);
}

describe.skipIf(!existsSync(CLAUDE))('forge agent claude with the real Claude Code CLI (issue 28)', () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('two prompts become two turn commits with the edit and the conversation; secrets never reach an object', async () => {
    const repo = makeRepo({
      files: {
        'math.js': 'export const add = (a, b) => a - b;\n',
        'test.mjs': 'import { add } from "./math.js";\nif (add(2, 3) !== 5) { console.log("FAIL"); process.exit(1); }\nconsole.log("PASS");\n',
        'package.json': '{"type":"module"}\n',
      },
    });
    const outside = makeTempDir('agent-secret');
    const secretFile = join(outside, 'deploy.env');
    execFileSync('sh', ['-c', `printf 'AWS_ACCESS_KEY_ID=${AWS}\\n' > ${secretFile}`]);
    const wd = join(makeTempDir('agent-wd'), 'work.dir_1');
    const third: any[][] = [];
    const mock = await startAnthropicMock((body): ScriptedAnswer => {
      if (!Array.isArray(body.tools) || body.tools.length === 0) return { blocks: [{ text: 'A title' }], stop: 'end_turn' };
      const turn = currentTurn(body.messages);
      const results = turn.filter((m) => Array.isArray(m.content)).flatMap((m) => m.content.filter((b: any) => b.type === 'tool_result')).length;
      const prompt = JSON.stringify(turn[0]?.content);
      if (prompt.includes('second prompt')) {
        const second: ScriptedAnswer[] = [
          { blocks: [{ id: 'toolu_notes', name: 'Write', input: { file_path: `${wd}/NOTES.md`, content: 'add was subtracting\n' } }], stop: 'tool_use' },
          { blocks: [{ id: 'toolu_sed', name: 'Bash', input: { command: "sed -i 's/a + b/b + a/' math.js", description: 'swap operands' } }], stop: 'tool_use' },
          { blocks: [{ text: 'Second answer: notes written, operands swapped.' }], stop: 'end_turn' },
        ];
        return second[Math.min(results, second.length - 1)]!;
      }
      if (prompt.includes('third prompt')) {
        third.push(body.messages);
        if (results === 0) return { blocks: [{ id: 'toolu_look', name: 'Bash', input: { command: 'cat math.js; ls', description: 'look around' } }], stop: 'tool_use' };
        return { blocks: [{ text: 'Third answer: we fixed add in the first turn.' }], stop: 'end_turn' };
      }
      const steps: ScriptedAnswer[] = [
        { blocks: [{ text: 'Reading the code.' }, { id: 'toolu_read', name: 'Read', input: { file_path: `${wd}/math.js` } }], stop: 'tool_use' },
        { blocks: [{ id: 'toolu_env', name: 'Bash', input: { command: `cat ${secretFile}`, description: 'read deploy env' } }], stop: 'tool_use' },
        { blocks: [{ id: 'toolu_edit', name: 'Edit', input: { file_path: `${wd}/math.js`, old_string: 'a - b', new_string: 'a + b' } }], stop: 'tool_use' },
        { blocks: [{ id: 'toolu_test', name: 'Bash', input: { command: 'node test.mjs', description: 'run the test' } }], stop: 'tool_use' },
        { blocks: [{ text: 'Fixed add in math.js; the test passes.' }], stop: 'end_turn' },
      ];
      return steps[Math.min(results, steps.length - 1)]!;
    });
    servers.push(mock);
    const env: Record<string, string> = {
      ...hermeticGitEnv(),
      PATH: process.env.PATH ?? '',
      HOME: makeTempDir('agent-home'),
      ANTHROPIC_BASE_URL: mock.url,
      ANTHROPIC_API_KEY: 'sk-mock-not-a-key',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      FORGE_CLAUDE_BIN: CLAUDE,
    };
    const statusBefore = execFileSync('git', ['-C', repo.dir, 'status', '--porcelain=v2'], { encoding: 'utf8' });
    const claudeArgs = ['--allowedTools', 'Read,Edit,Write,Bash', '--model', 'claude-mock-1'];
    const first = await run(['agent', 'claude', '--repo', repo.dir, '--copy', '--dir', wd, '--json', '--', '-p', `fix add in math.js; deploy key ${GH}`, ...claudeArgs], env, repo.dir);
    expect(first.status, first.stderr).toBe(0);
    // Claude's own output comes first (it shares stdout); forge's JSON report is the last line.
    const { session } = JSON.parse(first.stdout.trim().split('\n').at(-1)!) as { session: string };
    const second = await run(['agent', 'claude', '--repo', repo.dir, '--session', session, '--copy', '--dir', wd, '--json', '--', '-p', 'second prompt: anything else?', '--continue', ...claudeArgs], env, repo.dir);
    expect(second.status, second.stderr).toBe(0);

    const ref = `refs/heads/forge/session/${session}`;
    const log = execFileSync('git', ['-C', repo.dir, 'log', '--format=%H%x09%s', ref], { encoding: 'utf8' }).trim().split('\n');
    // Two turns on top of the session's start commit.
    expect(log.length).toBe(4);
    const [turn2, turn1] = log.map((l) => l.split('\t')[0]!);
    expect(execFileSync('git', ['-C', repo.dir, 'show', `${turn1}:math.js`], { encoding: 'utf8' })).toBe('export const add = (a, b) => a + b;\n');
    const state1 = JSON.parse(execFileSync('git', ['-C', repo.dir, 'show', `${turn1}:.forge/sessions/${session}.json`], { encoding: 'utf8' }));
    expect(state1.model).toEqual({ provider: 'claude-code', model: 'claude-mock-1' });
    const turn1Messages = state1.messages.filter((m: any) => m.turn === 1);
    expect(turn1Messages[0]).toMatchObject({ role: 'user' });
    expect(turn1Messages[0].content).toContain('[REDACTED:github-token]');
    expect(state1.toolCalls.map((c: any) => c.tool)).toEqual(['Read', 'Bash', 'Edit', 'Bash']);
    expect(state1.toolCalls.every((c: any) => c.ok)).toBe(true);
    expect(JSON.stringify(state1.toolCalls[1].output)).toContain('[REDACTED:aws-access-key]');
    expect(JSON.stringify(state1.toolCalls[3].output)).toContain('PASS');
    expect(turn1Messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Fixed add in math.js; the test passes.' });
    const state2 = JSON.parse(execFileSync('git', ['-C', repo.dir, 'show', `${turn2}:.forge/sessions/${session}.json`], { encoding: 'utf8' }));
    const turn2Messages = state2.messages.filter((m: any) => m.turn === 2);
    expect(turn2Messages[0]).toMatchObject({ role: 'user', content: 'second prompt: anything else?' });
    expect(turn2Messages.at(-1).content).toContain('Second answer');
    expect(execFileSync('git', ['-C', repo.dir, 'diff', '--name-only', turn1, turn2], { encoding: 'utf8' }).trim().split('\n')).toEqual(['.forge/sessions/' + session + '.json', 'NOTES.md', 'math.js']);
    expect(execFileSync('git', ['-C', repo.dir, 'show', `${turn2}:math.js`], { encoding: 'utf8' })).toBe('export const add = (a, b) => b + a;\n');
    // Claude Code's project directory for the working directory: forge writes a resumed transcript there.
    const projects = readdirSync(join(env.HOME!, '.claude', 'projects'));
    expect(projects).toEqual([wd.replace(/[^a-zA-Z0-9]/g, '-')]);

    // forge undo reverts the second turn (both files), as a commit of its own.
    const undo = await run(['undo', '--repo', repo.dir, '--session', session, '--json'], env, repo.dir);
    expect(undo.status, undo.stderr).toBe(0);
    expect(JSON.parse(undo.stdout)).toMatchObject({ session, turn: 3, reverted: 2, paths: ['NOTES.md', 'math.js'] });
    const undone = execFileSync('git', ['-C', repo.dir, 'rev-parse', ref], { encoding: 'utf8' }).trim();
    expect(execFileSync('git', ['-C', repo.dir, 'diff', '--name-only', turn1, undone, '--', '.', ':!.forge'], { encoding: 'utf8' })).toBe('');
    expect(execFileSync('git', ['-C', repo.dir, 'log', '-1', '--format=%s', undone], { encoding: 'utf8' })).toMatch(/Undo|undo/);

    // Resume from the first turn; Claude Code continues its own conversation as of that turn.
    const resumed = await run(['resume', '--repo', repo.dir, '--from', turn1, '--json'], env, repo.dir);
    expect(resumed.status, resumed.stderr).toBe(0);
    const child = (JSON.parse(resumed.stdout) as { id: string }).id;
    const third_ = await run(['agent', 'claude', '--repo', repo.dir, '--session', child, '--copy', '--dir', wd, '--json', '--', '-p', 'third prompt: what did we do?', ...claudeArgs], env, repo.dir);
    expect(third_.status, third_.stderr).toBe(0);
    expect(third_.stderr).toContain('resumes its conversation as of');
    expect(third.length).toBeGreaterThan(0);
    const sent = JSON.stringify(third[0]);
    expect(sent).toContain('fix add in math.js');
    expect(sent).toContain('Fixed add in math.js; the test passes.');
    expect(sent).not.toContain('second prompt');
    const childRef = `refs/heads/forge/session/${child}`;
    const childLog = execFileSync('git', ['-C', repo.dir, 'log', '--format=%H', `${turn1}..${childRef}`], { encoding: 'utf8' }).trim().split('\n');
    // The resume's start commit and one turn: the first turn is not committed again.
    expect(childLog.length).toBe(2);
    const state3 = JSON.parse(execFileSync('git', ['-C', repo.dir, 'show', `${childLog[0]}:.forge/sessions/${child}.json`], { encoding: 'utf8' }));
    expect(state3.parent).toMatchObject({ session, turn: 1, commit: turn1 });
    expect(state3.messages.filter((m: any) => m.turn === 1).length).toBe(turn1Messages.length);
    expect(state3.messages.filter((m: any) => m.turn === 2).map((m: any) => m.content)[0]).toBe('third prompt: what did we do?');
    // The directory was the second turn's; it holds the first turn's files again (NOTES.md gone).
    const look = JSON.stringify(state3.toolCalls.find((c: any) => c.tool === 'Bash').output);
    expect(look).toContain('a + b');
    expect(look).not.toContain('NOTES.md');
    // A turn that changed no file still commits its conversation.
    expect(execFileSync('git', ['-C', repo.dir, 'diff', '--name-only', childLog[1]!, childLog[0]!], { encoding: 'utf8' }).trim()).toBe(`.forge/sessions/${child}.json`);

    expect(execFileSync('git', ['-C', repo.dir, 'status', '--porcelain=v2'], { encoding: 'utf8' })).toBe(statusBefore);
    expect(execFileSync('git', ['-C', repo.dir, 'show', 'HEAD:math.js'], { encoding: 'utf8' })).toContain('a - b');
    const objects = execFileSync('git', ['-C', repo.dir, 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 1 << 28 }).toString('latin1');
    expect(objects).not.toContain(AWS);
    expect(objects).not.toContain(GH);
    expectFsckClean(repo.gitdir);
  }, 240_000);
});
