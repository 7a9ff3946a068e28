/**
 * Issue 28: forge agent when things go wrong, without the real agents (a stand-in script is the
 * agent; the hooks are run as the agents run them). The agent's failure exits 8 naming its exit;
 * hostile hook payloads (a transcript path that climbs out of Claude Code's transcripts, a
 * symlink out of them, not JSON, over the size cap, a Codex thread id that is a path) are refused
 * with AGENT_HOOK_REFUSED before anything is read, committing nothing; Stop hooks racing on one
 * session commit each turn exactly once.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORGE_BIN } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

function run(args: string[], env: Record<string, string>, input?: string | Buffer): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [FORGE_BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // A refused payload is not read to its end: the hook may exit while we still write.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

function script(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** A Claude Code transcript of `prompts.length` turns (entries as Claude Code 2.1 writes them). */
function transcript(prompts: string[]): string {
  const lines: object[] = [];
  prompts.forEach((prompt, i) => {
    lines.push({ type: 'user', uuid: `u-${i}`, sessionId: 'cc-1', timestamp: `2026-11-27T10:0${i}:00Z`, message: { role: 'user', content: prompt } });
    lines.push({ type: 'assistant', uuid: `a-${i}`, sessionId: 'cc-1', message: { id: `msg-${i}`, role: 'assistant', model: 'claude-mock-1', content: [{ type: 'text', text: `answer ${i + 1}` }] } });
  });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

async function setup() {
  const repo = makeRepo({ files: { 'a.txt': 'one\n' } });
  const home = makeTempDir('agent-hooks-home');
  const bin = makeTempDir('agent-hooks-bin');
  const env: Record<string, string> = { ...hermeticGitEnv(), PATH: process.env.PATH ?? '', HOME: home, FORGE_CLAUDE_BIN: script(bin, 'claude-ok', 'exit 0') };
  const wd = join(makeTempDir('agent-hooks-wd'), 'work');
  const started = await run(['agent', 'claude', '--repo', repo.dir, '--copy', '--dir', wd, '--json'], env);
  expect(started.status, started.stderr).toBe(0);
  const { session } = JSON.parse(started.stdout.trim().split('\n').at(-1)!) as { session: string };
  const projects = join(home, '.claude', 'projects');
  const project = join(projects, wd.replace(/[^a-zA-Z0-9]/g, '-'));
  mkdirSync(project, { recursive: true });
  const head = () => git(repo.dir, ['rev-parse', `refs/heads/forge/session/${session}`]).stdout.trim();
  const hook = (kind: string, input: string | Buffer, extra: string[] = []) => run(['agent', 'hook', kind, '--repo', repo.dir, '--session', session, '--dir', wd, ...extra], env, input);
  return { repo, home, bin, env, wd, session, projects, project, head, hook };
}

describe('forge agent: the agent CLI fails', () => {
  it('exits 8 with AGENT_FAILED naming the exit code, or the signal; the report still says what was committed', async () => {
    const { repo, bin, env, wd, session } = await setup();
    const failing = { ...env, FORGE_CLAUDE_BIN: script(bin, 'claude-fail', 'exit 3') };
    const failed = await run(['agent', 'claude', '--repo', repo.dir, '--session', session, '--copy', '--dir', wd, '--json'], failing);
    expect(failed.status).toBe(8);
    expect(failed.stderr).toMatch(/forge: error AGENT_FAILED: claude exited 3; /);
    expect(JSON.parse(failed.stdout.trim().split('\n').at(-1)!)).toMatchObject({ session, exitCode: 3, turns: 0 });
    const killed = await run(['agent', 'claude', '--repo', repo.dir, '--session', session, '--copy', '--dir', wd], { ...env, FORGE_CLAUDE_BIN: script(bin, 'claude-killed', 'kill -TERM $$') });
    expect(killed.status).toBe(8);
    expect(killed.stderr).toContain('AGENT_FAILED: claude was killed by SIGTERM');
    const missing = await run(['agent', 'claude', '--repo', repo.dir, '--session', session, '--copy', '--dir', wd], { ...env, FORGE_CLAUDE_BIN: join(bin, 'no-such-claude') });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('AGENT_CLI_NOT_FOUND');
    expectFsckClean(repo.gitdir);
  }, 60_000);
});

describe('forge agent hook: hostile payloads', () => {
  it('refuses transcript paths outside Claude Code transcripts, symlinks out of them, non-JSON and oversized payloads, path-like thread ids; nothing is committed and each refusal is logged', async () => {
    const { repo, home, wd, project, head, hook, session } = await setup();
    const before = head();
    // A well-formed transcript, but outside Claude Code's transcripts directory.
    const outside = join(makeTempDir('agent-hooks-outside'), 'stolen.jsonl');
    writeFileSync(outside, transcript(['read /etc/shadow for me']));
    writeFileSync(join(wd, 'a.txt'), 'changed by the agent\n');
    const climbing = `${project}/${relative(project, outside)}`;
    expect(climbing).toContain('/../');
    symlinkSync(outside, join(project, 'link.jsonl'));
    const cases: Array<[string, string | Buffer, string[]?]> = [
      ['claude-stop', JSON.stringify({ transcript_path: outside })],
      ['claude-stop', JSON.stringify({ transcript_path: climbing })],
      ['claude-stop', JSON.stringify({ transcript_path: join(project, 'link.jsonl') })],
      ['claude-stop', JSON.stringify({ transcript_path: join(home, '.bashrc') })],
      ['claude-stop', JSON.stringify({ transcript_path: 42 })],
      ['claude-stop', 'not json {'],
      ['claude-stop', '[1,2,3]'],
      ['claude-stop', Buffer.alloc((1 << 20) + 10, 0x20)],
      ['codex-notify', '', [JSON.stringify({ type: 'agent-turn-complete', 'thread-id': '../../../../tmp/x' })]],
      // (Codex's payload is one argument: the kernel caps those at 128 KiB, under forge's cap.)
      ['codex-notify', '', [JSON.stringify({ type: 'agent-turn-complete', 'thread-id': 'a/b' })]],
    ];
    for (const [kind, input, extra] of cases) {
      const refused = await hook(kind, input, extra);
      // Claude Code's Stop hook: any failure exits 1 (its exit 2 would make Claude answer forge's error).
      expect(refused.status, `${kind} ${String(input).slice(0, 80)}: ${refused.stderr}`).toBe(kind === 'claude-stop' ? 1 : 2);
      expect(refused.stderr).toContain('AGENT_HOOK_REFUSED');
      expect(head()).toBe(before);
    }
    const log = readFileSync(join(repo.gitdir, 'forge', 'agents', `${session}.hooks.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(log.map((e) => [e.ok, e.error?.code])).toEqual(cases.map(() => [false, 'AGENT_HOOK_REFUSED']));
    // The stolen transcript's text is in no object.
    const objects = git(repo.dir, ['cat-file', '--batch-all-objects', '--batch']).stdout;
    expect(objects).not.toContain('/etc/shadow');
    expectFsckClean(repo.gitdir);
  }, 120_000);

  it('Stop hooks racing on one session commit each turn once, the files with the first', async () => {
    const { repo, project, head, hook, wd, session } = await setup();
    const before = head();
    const file = join(project, 'conversation.jsonl');
    writeFileSync(file, transcript(['first', 'second', 'third']));
    writeFileSync(join(wd, 'a.txt'), 'changed by the agent\n');
    const payload = JSON.stringify({ session_id: 'cc-1', transcript_path: file, hook_event_name: 'Stop' });
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => hook('claude-stop', payload)));
    for (const r of results) expect(r.status, r.stderr).toBe(0);
    const commits = git(repo.dir, ['rev-list', '--reverse', `${before}..${head()}`]).stdout.trim().split('\n');
    expect(commits).toHaveLength(3);
    const prompts = commits.map((c) => {
      const state = JSON.parse(git(repo.dir, ['show', `${c}:.forge/sessions/${session}.json`]).stdout);
      return state.messages.filter((m: any) => m.turn === state.turn && m.role === 'user').map((m: any) => m.content);
    });
    expect(prompts).toEqual([['first'], ['second'], ['third']]);
    const changed = commits.map((c) => git(repo.dir, ['diff', '--name-only', `${c}^`, c, '--', 'a.txt']).stdout.trim());
    expect(changed).toEqual(['a.txt', '', '']);
    expectFsckClean(repo.gitdir);
  }, 120_000);

  it("a Stop hook run before Claude Code wrote the answer to its transcript (anthropics/claude-code#15812) commits the answer from the payload's last_assistant_message; the file catching up later commits nothing twice", async () => {
    const { repo, project, head, hook, session } = await setup();
    const before = head();
    const file = join(project, 'conversation.jsonl');
    const whole = transcript(['first prompt']);
    // The file as the hook finds it: the prompt, not yet the answer.
    writeFileSync(file, whole.split('\n')[0] + '\n');
    const payload = JSON.stringify({ session_id: 'cc-1', transcript_path: file, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'answer 1' });
    const first = await hook('claude-stop', payload);
    expect(first.status, first.stderr).toBe(0);
    const commits = git(repo.dir, ['rev-list', '--reverse', `${before}..${head()}`]).stdout.trim().split('\n');
    expect(commits).toHaveLength(1);
    const state = JSON.parse(git(repo.dir, ['show', `${commits[0]}:.forge/sessions/${session}.json`]).stdout);
    expect(state.messages.filter((m: any) => m.turn === state.turn).map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'first prompt'],
      ['assistant', 'answer 1'],
    ]);
    // The answer reaches the file afterwards; the next hook (same turn) has nothing new to commit.
    writeFileSync(file, whole);
    expect((await hook('claude-stop', payload)).status).toBe(0);
    expect(git(repo.dir, ['rev-list', '--count', `${before}..${head()}`]).stdout.trim()).toBe('1');
    expectFsckClean(repo.gitdir);
  }, 120_000);

  it("a hostile last_assistant_message lands as text only: not a string is ignored, a token in it is redacted before any object is written", async () => {
    const { repo, project, head, hook, session } = await setup();
    const before = head();
    const file = join(project, 'conversation.jsonl');
    const prompts = transcript(['first', 'second']).split('\n');
    const token = 'ghp_' + 'Zk3pW9qT5vX1rN8mB2cD7fG4hJ6kL0sA9eYu';
    writeFileSync(file, prompts[0] + '\n');
    const notText = JSON.stringify({ session_id: 'cc-1', transcript_path: file, hook_event_name: 'Stop', last_assistant_message: { role: 'assistant', content: 'x' } });
    expect((await hook('claude-stop', notText)).status).toBe(0);
    writeFileSync(file, [prompts[0], prompts[1], prompts[2]].join('\n') + '\n');
    const secret = JSON.stringify({ session_id: 'cc-1', transcript_path: file, hook_event_name: 'Stop', last_assistant_message: `the key is ${token}` });
    expect((await hook('claude-stop', secret)).status).toBe(0);
    const commits = git(repo.dir, ['rev-list', '--reverse', `${before}..${head()}`]).stdout.trim().split('\n');
    const turns = commits.map((c) => {
      const state = JSON.parse(git(repo.dir, ['show', `${c}:.forge/sessions/${session}.json`]).stdout);
      return state.messages.filter((m: any) => m.turn === state.turn).map((m: any) => [m.role, m.content]);
    });
    expect(turns[0]).toEqual([['user', 'first']]);
    expect(turns[1]![0]).toEqual(['user', 'second']);
    expect(turns[1]![1]![1]).toMatch(/^the key is .*REDACTED/);
    expect(git(repo.dir, ['cat-file', '--batch-all-objects', '--batch']).stdout).not.toContain(token);
    expectFsckClean(repo.gitdir);
  }, 120_000);

  it('after forge undo, the copy directory is materialized again; with changes nobody committed it is refused (AGENT_WORKDIR_STALE), not synced back', async () => {
    const { repo, env, project, hook, wd, session } = await setup();
    const file = join(project, 'conversation.jsonl');
    writeFileSync(file, transcript(['change a']));
    writeFileSync(join(wd, 'a.txt'), 'changed by the agent\n');
    const payload = JSON.stringify({ transcript_path: file });
    expect((await hook('claude-stop', payload)).status).toBe(0);
    const undo = await run(['undo', '--repo', repo.dir, '--session', session, '--json'], env);
    expect(undo.status, undo.stderr).toBe(0);
    expect(JSON.parse(undo.stdout)).toMatchObject({ reverted: 1, paths: ['a.txt'] });
    // The directory still holds the undone edit: the next run must not bring it back.
    const again = await run(['agent', 'claude', '--repo', repo.dir, '--session', session, '--copy', '--dir', wd, '--json'], env);
    expect(again.status, again.stderr).toBe(0);
    expect(readFileSync(join(wd, 'a.txt'), 'utf8')).toBe('one\n');
    expect(JSON.parse(again.stdout.trim().split('\n').at(-1)!).pending).toEqual([]);
    // A second undo target: the agent's next turn, then an undo, then an edit nobody committed.
    writeFileSync(file, transcript(['change a', 'change a again']));
    writeFileSync(join(wd, 'a.txt'), 'second change\n');
    expect((await hook('claude-stop', payload)).status).toBe(0);
    expect((await run(['undo', '--repo', repo.dir, '--session', session], env)).status).toBe(0);
    writeFileSync(join(wd, 'b.txt'), 'work in progress\n');
    const stale = await run(['agent', 'claude', '--repo', repo.dir, '--session', session, '--copy', '--dir', wd], env);
    expect(stale.status).toBe(3);
    expect(stale.stderr).toContain('AGENT_WORKDIR_STALE');
    expect(readFileSync(join(wd, 'b.txt'), 'utf8')).toBe('work in progress\n');
    expect(git(repo.dir, ['show', `refs/heads/forge/session/${session}:a.txt`]).stdout).toBe('one\n');
    expectFsckClean(repo.gitdir);
  }, 120_000);
});
