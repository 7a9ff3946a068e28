/**
 * `forge run` end to end on temporary copies of fixture repositories, with the scripted
 * provider: one commit per turn, the session file as expected, `git fsck --strict` clean, the
 * working tree untouched; readable and JSON Lines output; failing tools; every limit; approval;
 * --max-turns and continuing; Ctrl-C and continuing; argument errors.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { forge, FORGE_BIN } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { copyFixture, gitLsTree, gitShowBytes, snapshotWorkTree, type RepoHandle } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const FIX_AVERAGE = resolve('examples/fix-average/script.json');
const RENAME = resolve('examples/rename-format-price/script.json');

let repo: RepoHandle;
let before: string;

beforeEach(() => {
  repo = copyFixture('example-app');
  before = snapshotWorkTree(repo.dir);
});

function scriptFile(turns: unknown[]): string {
  const file = join(makeTempDir('script'), 'script.json');
  writeFileSync(file, JSON.stringify({ turns }));
  return file;
}

function run(args: string[]) {
  return forge(['run', '--repo', repo.dir, ...args]);
}

function events(stdout: string): Array<Record<string, any>> {
  const lines = stdout.split('\n').filter((l) => l !== '');
  const parsed = lines.map((l) => JSON.parse(l) as Record<string, any>);
  for (const e of parsed) expect(typeof e.type).toBe('string');
  return parsed;
}

function stateAt(rev: string, id: string) {
  return JSON.parse(gitShowBytes(repo.gitdir, rev, `.forge/sessions/${id}.json`).toString('utf8'));
}

function commitsOnSession(id: string): string[] {
  return git(repo.dir, ['rev-list', '--reverse', `main..forge/session/${id}`]).stdout.trim().split('\n');
}

function expectUntouched(): void {
  expect(snapshotWorkTree(repo.dir)).toBe(before);
  expect(git(repo.dir, ['status', '--porcelain']).stdout).toBe('');
  expectFsckClean(repo.gitdir);
}

describe('forge run --script (the examples)', () => {
  it('fix-average: two turns, two commits, the exact conversation in the session file, tests passing on the result', () => {
    const out = run(['--script', FIX_AVERAGE, '--approve', 'all', '--id', 'demo']);
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('session demo on forge/session/demo (base 82689c76110f), provider scripted\n');
    expect(out.stdout).toContain('\nturn 1: average([]) returns NaN.');
    expect(out.stdout).toContain('  → run_command node --test\n      exit 1 in ');
    expect(out.stdout).toContain('  → Edit src/math.js\n      src/math.js: replaced lines 8-9');
    expect(out.stdout).toMatch(/ {2}commit [0-9a-f]{12} \(turn 1 on forge\/session\/demo\): average\(\[\]\) returns NaN/);
    expect(out.stdout).toContain('   src/math.js       | 2 +-\n   test/math.test.js | 4 ++++\n   2 files changed, 5 insertions(+), 1 deletion(-)\n');
    expect(out.stdout).toMatch(/\ncompleted: 2 turn\(s\) committed on forge\/session\/demo, head [0-9a-f]{12}; tokens in \d+, out \d+\n$/);

    const [start, turn1, turn2] = commitsOnSession('demo');
    expect(commitsOnSession('demo')).toHaveLength(3);
    expect(git(repo.dir, ['log', '--format=%(trailers:key=Forge-Turn,valueonly)', '-3', 'forge/session/demo']).stdout.split('\n').filter(Boolean)).toEqual(['2', '1', '0']);
    expect(git(repo.dir, ['diff', '--name-only', start!, turn1!]).stdout.split('\n').filter(Boolean)).toEqual(['.forge/sessions/demo.json', 'src/math.js', 'test/math.test.js']);
    expect(git(repo.dir, ['diff', '--name-only', turn1!, turn2!]).stdout.split('\n').filter(Boolean)).toEqual(['.forge/sessions/demo.json', 'CHANGELOG.md']);
    expect(gitShowBytes(repo.gitdir, turn1!, 'src/math.js').toString()).toContain('  if (values.length === 0) return 0;\n');

    const state = stateAt(turn2!, 'demo');
    expect(state).toMatchObject({ version: 2, id: 'demo', turn: 2, mode: 'unrestricted', model: { provider: 'scripted' } });
    const turn1Messages = state.messages.filter((m: { turn: number }) => m.turn === 1);
    expect(turn1Messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'tool', 'tool', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant']);
    expect(turn1Messages.at(-1).content).toMatch(/^Done: average\(\[\]\) now returns 0\./);
    // A state file holds its own turn's calls: turn 1's are in turn 1's commit.
    expect(state.toolCalls.length).toBeGreaterThan(0);
    expect(state.toolCalls.every((c: { turn: number }) => c.turn === 2)).toBe(true);
    const turn1Calls = stateAt(turn1!, 'demo').toolCalls;
    const runs = turn1Calls.filter((c: { tool: string }) => c.tool === 'run_command');
    expect(runs.map((c: { output: { exit_code: number } }) => c.output.exit_code)).toEqual([0, 1, 0]);
    expect(runs[1].output.output).toContain('average of an empty list is 0');
    expect([...turn1Calls, ...state.toolCalls].every((c: { ok: boolean }) => c.ok)).toBe(true);
    expect(state.messages.filter((m: { turn: number }) => m.turn === 2).map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    // Time travel: the commit of turn 1 has the conversation up to turn 1 only.
    expect(stateAt(turn1!, 'demo').messages.every((m: { turn: number }) => m.turn === 1)).toBe(true);

    expectUntouched();
    const work = join(makeTempDir('materialized'), 'files');
    expect(forge(['materialize', work, '--session', 'demo', '--repo', repo.dir]).status).toBe(0);
    const tests = spawnSync(process.execPath, ['--test'], { cwd: work, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(tests.stdout).toMatch(/# pass 4\b/);
    expect(tests.status).toBe(0);
  });

  it('rename-format-price with --json: JSON Lines events, files moved and renamed, nothing of the old name left', () => {
    const out = run(['--script', RENAME, '--approve', 'all', '--id', 'rename', '--json']);
    expect(out.status).toBe(0);
    const all = events(out.stdout);
    expect(all[0]).toEqual({ type: 'turn_start', session: 'rename', turn: 1, user: expect.stringMatching(/^Rename formatPrice/), continued: false });
    expect(all.filter((e) => e.type === 'tool_call').map((e) => e.tool)).toEqual(['search', 'run_command', 'read_file', 'read_file', 'read_file', 'Edit', 'Patch', 'Patch', 'search', 'run_command']);
    expect(all.filter((e) => e.type === 'tool_result').every((e) => e.ok && e.ran)).toBe(true);
    const mv = all.find((e) => e.type === 'tool_result' && e.tool === 'run_command')!;
    expect(mv.changedPaths.sort()).toEqual(['src/format.js', 'src/money.js', 'test/format.test.js', 'test/money.test.js']);
    const commit = all.find((e) => e.type === 'commit')!;
    expect(commit).toMatchObject({ turn: 1, session: 'rename', branch: 'forge/session/rename', messageSource: 'default' });
    expect(commit.files.map((f: { path: string; kind: string }) => `${f.kind} ${f.path}`)).toEqual(['deleted src/format.js', 'modified src/index.js', 'added src/money.js', 'deleted test/format.test.js', 'added test/money.test.js']);
    expect(all.at(-1)).toMatchObject({ type: 'done', status: 'completed', turns: 1, remainingTurns: 0, head: commit.commit });
    expect(all.at(-1)!.usage.inputTokens).toBeGreaterThan(0);

    const paths = gitLsTree(repo.gitdir, 'forge/session/rename').map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['src/money.js', 'test/money.test.js']));
    expect(paths).not.toContain('src/format.js');
    expect(git(repo.dir, ['grep', '-n', 'formatPrice', 'forge/session/rename', '--', 'src', 'test'], { allowFail: true }).status).toBe(1);
    expect(gitShowBytes(repo.gitdir, 'forge/session/rename', 'src/index.js').toString()).toContain("import { formatMoney } from './money.js';");
    expectUntouched();
  });
});

describe('forge run: turns that do not go as planned', () => {
  it('a turn with a failing tool still commits the conversation, and the code stays consistent', () => {
    const script = scriptFile([
      {
        user: 'Edit without reading',
        replies: [
          { tool_calls: [{ tool: 'Edit', args: { path: 'src/math.js', old_snippet: 'return sum', new_snippet: 'return 0 + sum' } }] },
          { tool_calls: [{ tool: 'delete_file', args: { path: 'no/such.js' } }] },
          { text: 'Both failed; nothing changed.' },
        ],
      },
    ]);
    const out = run(['--script', script, '--approve', 'all', '--id', 'fail']);
    // Committed, but the exit code says that tool calls failed.
    expect(out.status).toBe(5);
    expect(out.stderr).toBe('forge: 2 of 2 tool call(s) failed; the turns are committed with their errors (exit 5)\n');
    expect(out.stdout).toContain('  → Edit src/math.js\n      FAILED FILE_NOT_READ: ');
    expect(out.stdout).toContain('  → delete_file no/such.js\n      FAILED PATH_NOT_FOUND: ');
    expect(out.stdout).toContain('   no code changes\n');
    const state = stateAt('forge/session/fail', 'fail');
    expect(state.toolCalls.map((c: { ok: boolean; error?: { code: string } }) => c.error?.code)).toEqual(['FILE_NOT_READ', 'PATH_NOT_FOUND']);
    expect(state.messages.map((m: { role: string; isError?: boolean }) => `${m.role}${m.isError ? '!' : ''}`)).toEqual(['user', 'assistant', 'tool!', 'assistant', 'tool!', 'assistant']);
    expect(git(repo.dir, ['diff', '--name-only', 'main', 'forge/session/fail']).stdout.trim()).toBe('.forge/sessions/fail.json');
    expectUntouched();
  });

  it('reports the tool-call limit (exit 2, error event), and commits the turn with a note', () => {
    const out = run(['--script', FIX_AVERAGE, '--approve', 'all', '--id', 'lim', '--max-tool-calls', '2', '--json']);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/^forge: error LIMIT_TOOL_CALLS: The turn reached its limit of 2 tool calls\./);
    const all = events(out.stdout);
    expect(all.filter((e) => e.type === 'tool_result').map((e) => `${e.tool}:${e.ran ? 'ran' : 'not run'}`)).toEqual(['run_command:ran', 'read_file:ran', 'Patch:not run', 'run_command:not run']);
    expect(all.find((e) => e.type === 'commit')).toMatchObject({ turn: 1, stoppedBy: 'LIMIT_TOOL_CALLS' });
    expect(all.find((e) => e.type === 'error')).toMatchObject({ code: 'LIMIT_TOOL_CALLS', kind: 'user', committed: true });
    expect(all.at(-1)).toMatchObject({ type: 'done', status: 'limit', turns: 1, remainingTurns: 1 });
    expect(git(repo.dir, ['log', '-1', '--format=%B', 'forge/session/lim']).stdout).toContain('Stopped early: The turn reached its limit of 2 tool calls.');
    expectUntouched();
  });

  it('reports the token limit', () => {
    const out = run(['--script', FIX_AVERAGE, '--approve', 'all', '--id', 'tok', '--max-tokens', '100']);
    expect(out.status).toBe(2);
    expect(out.stdout).toContain('  stopped: LIMIT_TOKENS: The turn reached its token limit (100)');
    expect(out.stdout).toContain('(turn committed)');
    expect(out.stderr).toMatch(/^forge: error LIMIT_TOKENS: /);
    expect(commitsOnSession('tok')).toHaveLength(2);
  });

  it('--max-turns leaves the rest of a script for a later run, which skips what the session has', () => {
    const first = run(['--script', FIX_AVERAGE, '--approve', 'all', '--id', 'half', '--max-turns', '1']);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/completed: 1 turn\(s\) committed .*; 1 turn\(s\) not run\n$/);
    expect(commitsOnSession('half')).toHaveLength(2);
    const second = run(['--session', 'half', '--script', FIX_AVERAGE, '--approve', 'all']);
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('skipping 1 script turn(s) the session already has\n');
    expect(second.stdout).toContain('\nturn 2: Add a CHANGELOG entry for this fix.\n');
    expect(commitsOnSession('half')).toHaveLength(3);
    expect(stateAt('forge/session/half', 'half').turn).toBe(2);
    const third = run(['--session', 'half', '--script', FIX_AVERAGE, '--approve', 'all', '--json']);
    expect(events(third.stdout)).toEqual([expect.objectContaining({ type: 'done', turns: 0, remainingTurns: 0 })]);
    expectUntouched();
  });
});

describe('forge run: approval', () => {
  const WRITE = [{ user: 'write and run', replies: [{ tool_calls: [{ tool: 'write_file', args: { path: 'new.txt', content: 'x\n' } }, { tool: 'run_command', args: { command: 'echo hi' } }] }, { text: 'ok' }] }];

  // A denied call is a failed one: the turn is committed and the run exits 5.
  it.each([
    ['none', ['--approve', 'none'], ['TOOL_DENIED', 'TOOL_DENIED'], 5],
    ['a list', ['--approve', 'write_file'], [undefined, 'TOOL_DENIED'], 5],
    ['all', ['--approve', 'all'], [undefined, undefined], 0],
  ])('--approve %s', (_label, flags, codes, status) => {
    const out = run(['--script', scriptFile(WRITE), '--id', 'ap', ...flags]);
    expect(out.status).toBe(status);
    const state = stateAt('forge/session/ap', 'ap');
    expect(state.toolCalls.map((c: { error?: { code: string } }) => c.error?.code)).toEqual(codes);
    if (codes[0] === 'TOOL_DENIED') expect(state.toolCalls[0].error.message).toMatch(/^write_file needs approval and no approver is available in this run\./);
  });

  it('--approve ask without a terminal (the default) fails before anything starts, saying how to approve', () => {
    const out = run(['--script', scriptFile(WRITE), '--id', 'ap']);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/^forge: error APPROVAL_REQUIRED: /);
    expect(git(repo.dir, ['rev-parse', '--verify', '--quiet', 'refs/heads/forge/session/ap'], { allowFail: true }).status).not.toBe(0);
  });
});

function spawnForge(args: string[], env: Record<string, string>, command: string[] = [process.execPath, FORGE_BIN]) {
  const child = spawn(command[0]!, [...command.slice(1), ...args], { env: { ...hermeticGitEnv(), PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const w of [...waiters]) if (w.pattern.test(stdout)) w.resolve();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolveExit) => child.on('close', (code) => resolveExit(code)));
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    waitFor: (pattern: RegExp) =>
      new Promise<void>((resolveWait, reject) => {
        if (pattern.test(stdout)) return resolveWait();
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; stdout so far:\n${stdout}\nstderr:\n${stderr}`)), 20_000);
        waiters.push({ pattern, resolve: () => (clearTimeout(timer), resolveWait()) });
      }),
  };
}

describe('forge run --approve ask on a terminal', () => {
  it('asks before each side-effecting call and runs only what was approved', async () => {
    const script = scriptFile([
      {
        user: 'two writes',
        replies: [{ tool_calls: [{ tool: 'write_file', args: { path: 'yes.txt', content: 'y' } }, { tool: 'write_file', args: { path: 'no.txt', content: 'n' } }, { tool: 'read_file', args: { path: 'README.md' } }] }, { text: 'ok' }],
      },
    ]);
    // util-linux script(1) gives the command a pseudo-terminal: stdin.isTTY is true there.
    const line = [process.execPath, FORGE_BIN, 'run', '--repo', repo.dir, '--script', script, '--id', 'ask'].map((a) => `'${a}'`).join(' ');
    const running = spawnForge(['-qec', line, '/dev/null'], {}, ['script']);
    await running.waitFor(/allow write_file yes\.txt\? \[y\/N\]/);
    running.child.stdin.write('y\n');
    await running.waitFor(/allow write_file no\.txt\? \[y\/N\]/);
    running.child.stdin.write('n\n');
    // The declined call is a failed one: committed, exit 5.
    expect(await running.exited).toBe(5);
    expect(running.output().stdout).not.toMatch(/allow read_file/);
    const state = stateAt('forge/session/ask', 'ask');
    expect(state.toolCalls.map((c: { tool: string; ok: boolean; error?: { message: string } }) => [c.tool, c.ok, c.error?.message.split('.')[0]])).toEqual([
      ['write_file', true, undefined],
      ['write_file', false, 'The user declined the write_file call'],
      ['read_file', true, undefined],
    ]);
    expect(gitLsTree(repo.gitdir, 'forge/session/ask').map((e) => e.path)).toContain('yes.txt');
    expect(gitLsTree(repo.gitdir, 'forge/session/ask').map((e) => e.path)).not.toContain('no.txt');
  });
});

describe('forge run: Ctrl-C', () => {
  it('cancels: exit 130, nothing committed, the command killed and its directory removed; running again continues the turn', async () => {
    const script = scriptFile([
      {
        user: 'write, then wait',
        replies: [
          { tool_calls: [{ tool: 'write_file', args: { path: 'kept.txt', content: 'kept\n' } }] },
          { text: 'Now a long command.', tool_calls: [{ tool: 'run_command', args: { command: 'sleep 30', timeout_s: 60 } }] },
          { text: 'All done.' },
        ],
      },
    ]);
    const tmp = makeTempDir('forge-tmpdir');
    const args = ['run', '--repo', repo.dir, '--script', script, '--approve', 'all', '--id', 'c', '--json'];
    const running = spawnForge(args, { TMPDIR: tmp });
    await running.waitFor(/"type":"tool_call"[^\n]*"tool":"run_command"/);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    running.child.kill('SIGINT');
    const code = await running.exited;
    expect(Date.now() - started).toBeLessThan(10_000);
    const { stdout, stderr } = running.output();
    expect(code).toBe(130);
    expect(stderr).toContain('forge: cancelling (the turn stays pending');
    expect(stderr).toMatch(/forge: error AGENT_CANCELLED: The run was cancelled during turn 1; nothing was committed/);
    const all = events(stdout);
    expect(all.find((e) => e.type === 'tool_result' && e.tool === 'run_command')).toMatchObject({ ok: false, error: { code: 'AGENT_CANCELLED' } });
    expect(all.slice(-2)).toEqual([
      expect.objectContaining({ type: 'error', code: 'AGENT_CANCELLED', committed: false }),
      expect.objectContaining({ type: 'done', status: 'cancelled', turns: 0, remainingTurns: 1 }),
    ]);
    expect(commitsOnSession('c')).toHaveLength(1);
    expect(readdirSync(tmp).filter((n) => n.startsWith('forge-run-'))).toEqual([]);
    expect(forge(['cat', 'kept.txt', '--session', 'c', '--repo', repo.dir]).stdout).toBe('kept\n');

    const again = forge(['run', '--repo', repo.dir, '--session', 'c', '--script', script, '--approve', 'all']);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('\nturn 1 (continued): write, then wait\n  model: All done.\n');
    expect(commitsOnSession('c')).toHaveLength(2);
    const state = stateAt('forge/session/c', 'c');
    expect(state.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(JSON.parse(state.messages[4].content).error.code).toBe('AGENT_CANCELLED');
    expect(gitShowBytes(repo.gitdir, 'forge/session/c', 'kept.txt').toString()).toBe('kept\n');
    expectUntouched();
  });
});

describe('forge run: argument errors', () => {
  it.each([
    ['a task without a model provider', ['--task', 'do it'], 'PROVIDER_NOT_CONFIGURED', 2],
    ['both --session and --base', ['--session', 'x', '--base', 'main', '--task', 't'], 'INVALID_ARGUMENT', 2],
    ['neither task nor script', [], 'INVALID_ARGUMENT', 2],
    ['an unknown provider', ['--provider', 'llama', '--task', 't'], 'INVALID_ARGUMENT', 2],
    ['an unknown session', ['--session', 'nope', '--task', 't'], 'SESSION_NOT_FOUND', 2],
    ['a bad limit', ['--script', FIX_AVERAGE, '--max-tool-calls', '0'], 'INVALID_ARGUMENT', 2],
    ['a bad mode', ['--script', FIX_AVERAGE, '--mode', 'root'], 'INVALID_ARGUMENT', 2],
    ['--summaries model without --cheap-model', ['--script', FIX_AVERAGE, '--summaries', 'model'], 'INVALID_ARGUMENT', 2],
  ])('refuses %s', (_label, args, code, status) => {
    const out = run([...args, '--json']);
    expect(out.status).toBe(status);
    expect(out.stderr).toMatch(new RegExp(`^forge: error ${code}: `));
    expect(events(out.stdout)).toEqual([expect.objectContaining({ type: 'error', code, committed: false })]);
  });

  it('refuses a script that is not valid, naming the problem', () => {
    const out = run(['--script', scriptFile([{ user: 'x', replies: [{ tool_calls: [{ args: {} }] }] }])]);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/^forge: error SCRIPT_INVALID: --script .* turns\[0\]\.replies\[0\]\.tool_calls\[0\]\.tool/);
  });

  it('refuses an unknown session, and continuing a session that has no unfinished turn', () => {
    expect(run(['--session', 'nope', '--script', FIX_AVERAGE]).stderr).toMatch(/^forge: error SESSION_NOT_FOUND: /);
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'idle']).status).toBe(0);
    const idle = run(['--session', 'idle']);
    expect(idle.status).toBe(2);
    expect(idle.stderr).toMatch(/^forge: error AGENT_NO_TURN_IN_PROGRESS: /);
  });
});

describe('npm run demo (the README main job)', () => {
  it('runs the fix-average example on a temporary copy and passes every check', () => {
    const demo = spawnSync(process.execPath, ['scripts/demo.mjs'], { encoding: 'utf8', env: { ...hermeticGitEnv(), PATH: process.env.PATH ?? '' } });
    expect(demo.stderr).toBe('');
    expect(demo.status).toBe(0);
    expect(demo.stdout).toContain('$ forge run --repo ');
    expect(demo.stdout.split('\n').filter((l) => l.startsWith('ok   '))).toHaveLength(4);
    expect(demo.stdout).not.toContain('FAIL');
  });
});
