/**
 * Issue 28, "Done when", Codex side: the real Codex CLI (@openai/codex, `codex exec`) against a
 * loopback mock of the OpenAI Responses API (a model provider set with -c), run by
 * `forge agent codex --copy`. The scripted model reads a file, edits it (apply_patch through
 * its shell tool, which Codex intercepts), runs the test and answers; then a second prompt that
 * writes a file with its shell. Each turn is committed by Codex's own turn-complete notification
 * (`notify`, logged per run), not only by the catch-up when Codex exits; `forge undo` reverts the
 * second turn; `forge resume --from` the first turn, then `forge agent codex --session <new>`
 * continues Codex's own thread as of that turn (`exec resume` of a rollout forge wrote).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORGE_BIN } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { hermeticGitEnv } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const CODEX = resolve('node_modules/.bin/codex');

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

async function eventually<T>(probe: () => T | null, timeoutMs = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = probe();
    if (value !== null) return value;
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

type Out = { text: string } | { call: string; cmd: string };

async function responsesMock(script: (input: any[]) => Out): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = JSON.parse(body || '{}');
      const out = script(json.input ?? []);
      const item =
        'text' in out
          ? { type: 'message', role: 'assistant', id: `msg_${Date.now()}`, status: 'completed', content: [{ type: 'output_text', text: out.text, annotations: [] }] }
          : { type: 'function_call', id: `fc_${out.call}`, call_id: out.call, name: 'exec_command', arguments: JSON.stringify({ cmd: out.cmd }), status: 'completed' };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const ev = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      ev('response.created', { response: { id: 'resp' } });
      ev('response.output_item.done', { output_index: 0, item });
      ev('response.completed', { response: { id: 'resp', output: [item], usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } } });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() };
}

describe.skipIf(!existsSync(CODEX))('forge agent codex with the real Codex CLI (issue 28)', () => {
  it('two prompts become two turn commits holding the edit and each conversation; the working tree is untouched', async () => {
    const repo = makeRepo({
      files: {
        'math.js': 'export const add = (a, b) => a - b;\n',
        'test.mjs': 'import { add } from "./math.js";\nif (add(2, 3) !== 5) { console.log("FAIL"); process.exit(1); }\nconsole.log("PASS");\n',
        'package.json': '{"type":"module"}\n',
      },
    });
    const patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: math.js\n@@\n-export const add = (a, b) => a - b;\n+export const add = (a, b) => a + b;\n*** End Patch\nEOF";
    const third: any[][] = [];
    const mock = await responsesMock((input) => {
      let i = input.length - 1;
      const isPrompt = (m: any) => m.type === 'message' && m.role === 'user' && !/^\s*</.test(m.content?.[0]?.text ?? '');
      while (i > 0 && !isPrompt(input[i])) i--;
      const prompt = input[i]?.content?.[0]?.text ?? '';
      const outputs = input.slice(i).filter((m: any) => m.type === 'function_call_output').length;
      if (prompt.includes('third prompt')) {
        third.push(input);
        return { text: 'Third answer: we fixed add.' };
      }
      if (prompt.includes('second prompt')) return outputs === 0 ? { call: 'call_notes', cmd: 'printf "add was subtracting\\n" > NOTES.md' } : { text: 'Second answer: notes written.' };
      const steps: Out[] = [{ call: 'call_read', cmd: 'cat math.js' }, { call: 'call_edit', cmd: patch }, { call: 'call_test', cmd: 'node test.mjs' }, { text: 'Fixed add in math.js; the test passes.' }];
      return steps[Math.min(outputs, steps.length - 1)]!;
    });
    try {
      const home = makeTempDir('codex-home');
      const env: Record<string, string> = { ...hermeticGitEnv(), PATH: process.env.PATH ?? '', CODEX_HOME: home, OPENAI_API_KEY: 'sk-mock-not-a-key', FORGE_CODEX_BIN: CODEX };
      const codexArgs = ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '-c', 'model_provider="mock"', '-c', `model_providers.mock={name="mock",base_url="${mock.url}",wire_api="responses",env_key="OPENAI_API_KEY"}`, '-c', 'model="gpt-mock"'];
      const wd = join(makeTempDir('codex-wd'), 'work');
      const before = execFileSync('git', ['-C', repo.dir, 'status', '--porcelain=v2'], { encoding: 'utf8' });
      const first = await run(['agent', 'codex', '--repo', repo.dir, '--copy', '--dir', wd, '--json', '--', ...codexArgs, 'fix add in math.js'], env, repo.dir);
      expect(first.status, first.stderr).toBe(0);
      const { session } = JSON.parse(first.stdout.trim().split('\n').at(-1)!) as { session: string };
      const second = await run(['agent', 'codex', '--repo', repo.dir, '--session', session, '--copy', '--dir', wd, '--json', '--', ...codexArgs, 'second prompt: anything else?'], env, repo.dir);
      expect(second.status, second.stderr).toBe(0);
      const log = execFileSync('git', ['-C', repo.dir, 'log', '--format=%H', `refs/heads/forge/session/${session}`], { encoding: 'utf8' }).trim().split('\n');
      expect(log.length).toBe(4);
      const [turn2, turn1] = log;
      expect(execFileSync('git', ['-C', repo.dir, 'show', `${turn1}:math.js`], { encoding: 'utf8' })).toBe('export const add = (a, b) => a + b;\n');
      const state1 = JSON.parse(execFileSync('git', ['-C', repo.dir, 'show', `${turn1}:.forge/sessions/${session}.json`], { encoding: 'utf8' }));
      expect(state1.model).toEqual({ provider: 'codex', model: 'gpt-mock' });
      expect(state1.toolCalls.map((c: any) => c.tool)).toEqual(['exec_command', 'exec_command', 'exec_command']);
      expect(JSON.stringify(state1.toolCalls[2].output)).toContain('PASS');
      const state2 = JSON.parse(execFileSync('git', ['-C', repo.dir, 'show', `${turn2}:.forge/sessions/${session}.json`], { encoding: 'utf8' }));
      expect(state2.messages.filter((m: any) => m.turn === 2).map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(execFileSync('git', ['-C', repo.dir, 'show', `${turn2}:NOTES.md`], { encoding: 'utf8' })).toBe('add was subtracting\n');
      expect(execFileSync('git', ['-C', repo.dir, 'status', '--porcelain=v2'], { encoding: 'utf8' })).toBe(before);

      // Codex's notify ran the hook at the end of each turn (Codex does not wait for it: the log
      // may be written after forge agent reported). Each turn was committed once, by one of them.
      const hookLog = join(repo.gitdir, 'forge', 'agents', `${session}.hooks.jsonl`);
      const hooks = await eventually(() => {
        const entries = existsSync(hookLog) ? readFileSync(hookLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [];
        return entries.length >= 2 ? entries : null;
      });
      expect(hooks.map((h: any) => [h.kind, h.ok])).toEqual([['codex-notify', true], ['codex-notify', true]]);
      const reports = [first, second].map((r) => JSON.parse(r.stdout.trim().split('\n').at(-1)!));
      const byHook = hooks.flatMap((h: any) => h.turns);
      const byCatchUp = reports.flatMap((r) => r.caughtUp.map((c: any) => c.turn));
      expect([...byHook, ...byCatchUp].sort()).toEqual([1, 2]);

      // forge undo reverts the second turn: NOTES.md is gone again.
      const undo = await run(['undo', '--repo', repo.dir, '--session', session, '--json'], env, repo.dir);
      expect(undo.status, undo.stderr).toBe(0);
      expect(JSON.parse(undo.stdout)).toMatchObject({ reverted: 1, paths: ['NOTES.md'] });
      expect(execFileSync('git', ['-C', repo.dir, 'ls-tree', '--name-only', `refs/heads/forge/session/${session}`], { encoding: 'utf8' }).split('\n')).not.toContain('NOTES.md');

      // Resume from the first turn: Codex is sent its first thread, not the second.
      const resumed = await run(['resume', '--repo', repo.dir, '--from', turn1!, '--json'], env, repo.dir);
      expect(resumed.status, resumed.stderr).toBe(0);
      const child = (JSON.parse(resumed.stdout) as { id: string }).id;
      const wd2 = join(makeTempDir('codex-wd2'), 'work');
      const next = await run(['agent', 'codex', '--repo', repo.dir, '--session', child, '--copy', '--dir', wd2, '--json', '--', ...codexArgs, 'third prompt: what did we do?'], env, repo.dir);
      expect(next.status, next.stderr).toBe(0);
      expect(next.stderr).toContain('codex resumes its conversation as of');
      expect(third.length).toBeGreaterThan(0);
      const sent = JSON.stringify(third[0]);
      expect(sent).toContain('fix add in math.js');
      expect(sent).toContain('Fixed add in math.js; the test passes.');
      expect(sent).not.toContain('second prompt');
      const childLog = execFileSync('git', ['-C', repo.dir, 'log', '--format=%H', `${turn1}..refs/heads/forge/session/${child}`], { encoding: 'utf8' }).trim().split('\n');
      expect(childLog.length).toBe(2);
      const state3 = JSON.parse(execFileSync('git', ['-C', repo.dir, 'show', `${childLog[0]}:.forge/sessions/${child}.json`], { encoding: 'utf8' }));
      expect(state3.messages.filter((m: any) => m.turn === 2).map((m: any) => [m.role, m.content])).toEqual([
        ['user', 'third prompt: what did we do?'],
        ['assistant', 'Third answer: we fixed add.'],
      ]);
      expectFsckClean(repo.gitdir);
    } finally {
      mock.close();
    }
  }, 240_000);
});
