/**
 * The forge CLI end to end on real repositories: output shapes (text and --json), exit codes
 * and one-line errors with stable codes, every tool through `forge turn`, time travel, resume,
 * and the promise that the user's working tree and index are never touched.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { FORGE_BIN, forge } from '../helpers/forge-cli';
import { git } from '../helpers/git-cli';
import { copyFixture, gitShowBytes, snapshotWorkTree, type RepoHandle } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

let repo: RepoHandle;

beforeEach(() => {
  repo = copyFixture('example-app');
});

function turn(session: string, calls: unknown[], extra: string[] = []) {
  return forge(['turn', '--repo', repo.dir, '--session', session, '--calls', '-', '--json', ...extra], { input: JSON.stringify(calls) });
}

describe('forge session new / list', () => {
  it('prints {id, branch, base} with --json and creates the branch at a commit holding the session file', () => {
    const run = forge(['session', 'new', '--repo', repo.dir, '--id', 's1', '--json']);
    expect(run.status).toBe(0);
    const out = run.json();
    expect(out).toMatchObject({ id: 's1', branch: 'forge/session/s1', base: repo.head });
    const tip = git(repo.dir, ['rev-parse', 'forge/session/s1']).stdout.trim();
    expect(git(repo.dir, ['rev-parse', 'forge/session/s1^']).stdout.trim()).toBe(repo.head);
    const state = JSON.parse(gitShowBytes(repo.gitdir, tip, '.forge/sessions/s1.json').toString('utf8'));
    expect(state).toMatchObject({ version: 2, id: 's1', branch: 'forge/session/s1', turn: 0, base: { commit: repo.head } });
    const list = forge(['session', 'list', '--repo', repo.dir, '--json']).json();
    expect(list.sessions.map((s: { id: string }) => s.id)).toEqual(['s1']);
    expectFsckClean(repo.gitdir);
  });

  it('prints readable text without --json', () => {
    const run = forge(['session', 'new', '--repo', repo.dir, '--id', 'text-s']);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`text-s\nbranch forge/session/text-s\nbase   ${repo.head}\n`);
  });

  it('refuses an existing id with SESSION_EXISTS (exit 3) and a bad id with INVALID_ARGUMENT (exit 2)', () => {
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'dup']).status).toBe(0);
    const again = forge(['session', 'new', '--repo', repo.dir, '--id', 'dup']);
    expect(again.status).toBe(3);
    expect(again.stderr).toMatch(/^forge: error SESSION_EXISTS: .+\n$/);
    const bad = forge(['session', 'new', '--repo', repo.dir, '--id', '../evil', '--json']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(bad.json().error.code).toBe('INVALID_ARGUMENT');
  });

  it('fails cleanly outside a repository and on an unknown base', () => {
    const empty = makeTempDir('not-a-repo');
    const run = forge(['session', 'list', '--repo', empty]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^forge: error NOT_A_REPOSITORY: /);
    const unknown = forge(['session', 'new', '--repo', repo.dir, '--base', 'no-such-branch']);
    expect(unknown.stderr).toMatch(/^forge: error REF_NOT_FOUND: /);
  });
});

describe('forge turn', () => {
  it('applies calls in order, keeps going after a failure, commits ONE turn, and reports results in call order', () => {
    forge(['session', 'new', '--repo', repo.dir, '--id', 't']);
    const before = snapshotWorkTree(repo.dir);
    const run = turn('t', [
      { tool: 'write_file', args: { path: 'docs/new.md', content: '# New\r\n' } },
      { tool: 'delete_file', args: { path: 'missing.txt' } },
      { tool: 'read_file', args: { path: 'src/math.js' } },
      { tool: 'delete_file', args: { path: 'src/format.js' } },
    ], ['--message', 'Add docs, drop format']);
    // A call failed: exit 5, the turn committed all the same.
    expect(run.status).toBe(5);
    const out = run.json();
    expect(out.session).toBe('t');
    expect(out.results.map((r: { tool: string; ok: boolean }) => [r.tool, r.ok])).toEqual([
      ['write_file', true],
      ['delete_file', false],
      ['read_file', true],
      ['delete_file', true],
    ]);
    expect(out.results[1].error.code).toBe('PATH_NOT_FOUND');
    expect(git(repo.dir, ['rev-parse', 'forge/session/t']).stdout.trim()).toBe(out.commit);
    expect(gitShowBytes(repo.gitdir, out.commit, 'docs/new.md').toString('latin1')).toBe('# New\r\n');
    expect(git(repo.dir, ['cat-file', '-e', `${out.commit}:src/format.js`], { allowFail: true }).status).not.toBe(0);
    const message = git(repo.dir, ['log', '-1', '--format=%B', out.commit]).stdout;
    expect(message.split('\n')[0]).toBe('Add docs, drop format');
    expect(git(repo.dir, ['interpret-trailers', '--parse'], { input: message }).stdout).toBe('Forge-Session: t\nForge-Turn: 1\n');
    expect(snapshotWorkTree(repo.dir)).toBe(before);
    expect(git(repo.dir, ['status', '--porcelain']).stdout).toBe('');
    expectFsckClean(repo.gitdir);
  });

  it('accepts every tool forge tools lists, run_command included', () => {
    forge(['session', 'new', '--repo', repo.dir, '--id', 'all']);
    const run = turn('all', [
      { tool: 'list_files', args: { path: 'src' } },
      { tool: 'search', args: { pattern: 'average' } },
      { tool: 'read_file', args: { path: 'src/math.js' } },
      { tool: 'Edit', args: { path: 'src/math.js', old_snippet: 'Sum of a list of numbers.', new_snippet: 'Sum of numbers.' } },
      { tool: 'edit', args: { path: 'src/math.js', start_line: 1, end_line: 1, new_content: '/** Total. */' } },
      { tool: 'read_file', args: { path: 'src/format.js' } },
      { tool: 'Patch', args: { path: 'src/format.js', patches: [{ operation: 'prepend_bof', newText: '// formatted\n' }] } },
      { tool: 'read_file', args: { path: 'README.md' } },
      { tool: 'search_replace', args: { path: 'README.md', blocks: '<<<<<<< SEARCH\n# example-app\n=======\n# Example app\n>>>>>>> REPLACE\n' } },
      { tool: 'write_file', args: { path: 'notes/todo.md', content: 'todo\n' } },
      { tool: 'update_context', args: { add: ['src/math.js'] } },
      { tool: 'list_active_files', args: {} },
      { tool: 'request_mode_upgrade', args: { reason: 'already unrestricted' } },
      { tool: 'delete_file', args: { path: 'notes/todo.md' } },
      { tool: 'run_command', args: { command: 'node --test' } },
    ]);
    expect(run.status).toBe(0);
    const failed = run.json().results.filter((r: { ok: boolean }) => !r.ok);
    expect(failed).toEqual([]);
    const commit = run.json().commit;
    expect(gitShowBytes(repo.gitdir, commit, 'src/math.js').toString().split('\n')[0]).toBe('/** Total. */');
    expect(gitShowBytes(repo.gitdir, commit, 'src/format.js').toString().startsWith('// formatted\n')).toBe(true);
    const state = JSON.parse(gitShowBytes(repo.gitdir, commit, '.forge/sessions/all.json').toString());
    expect(state.activeFiles).toEqual(['src/math.js']);
    expect(state.toolCalls).toHaveLength(15);
    expect(state.toolCalls[14].output).toMatchObject({ exit_code: 0 });
    expectFsckClean(repo.gitdir);
  });

  it('rejects a malformed calls file with INVALID_ARGUMENT and commits nothing', () => {
    forge(['session', 'new', '--repo', repo.dir, '--id', 'bad']);
    const head = git(repo.dir, ['rev-parse', 'forge/session/bad']).stdout;
    const run = forge(['turn', '--repo', repo.dir, '--session', 'bad', '--calls', '-'], { input: '{"tool": "write_file"}' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^forge: error INVALID_ARGUMENT: --calls must be a JSON array/);
    expect(git(repo.dir, ['rev-parse', 'forge/session/bad']).stdout).toBe(head);
  });

  it('--approve none denies side-effecting calls (TOOL_DENIED) and still commits the conversation', () => {
    forge(['session', 'new', '--repo', repo.dir, '--id', 'deny']);
    const run = turn('deny', [{ tool: 'write_file', args: { path: 'x.txt', content: 'x' } }], ['--approve', 'none']);
    expect(run.status).toBe(5);
    expect(run.json().results[0].error.code).toBe('TOOL_DENIED');
    const commit = run.json().commit;
    expect(git(repo.dir, ['diff', '--name-only', `${commit}^`, commit]).stdout).toBe('.forge/sessions/deny.json\n');
  });

  it('restricted mode refuses write tools with the REQ-PATCH-009 wording', () => {
    forge(['session', 'new', '--repo', repo.dir, '--id', 'ro', '--mode', 'restricted']);
    const run = turn('ro', [{ tool: 'Patch', args: { path: 'a.txt', patches: [{ operation: 'overwrite', newText: 'x' }] } }]);
    expect(run.json().results[0].error.message).toBe('Patch tool is disabled in Restricted mode. Use request_mode_upgrade to request write access.');
  });

  it('a held ref lock fails the commit with REF_LOCKED (exit 3), keeps the ref, and keeps the pending change for the next turn', () => {
    forge(['session', 'new', '--repo', repo.dir, '--id', 'locked']);
    const head = git(repo.dir, ['rev-parse', 'forge/session/locked']).stdout.trim();
    const lock = join(repo.gitdir, 'refs/heads/forge/session/locked.lock');
    writeFileSync(lock, '');
    const run = turn('locked', [{ tool: 'write_file', args: { path: 'kept.txt', content: 'kept\n' } }]);
    expect(run.status).toBe(3);
    expect(run.stderr).toMatch(/^forge: error REF_LOCKED: /);
    expect(git(repo.dir, ['rev-parse', 'forge/session/locked']).stdout.trim()).toBe(head);
    expect(existsSync(lock)).toBe(true);
    expect(forge(['cat', 'kept.txt', '--repo', repo.dir, '--session', 'locked']).stdout).toBe('kept\n');
    // The lock goes away: the next turn commits the kept change with its own.
    unlinkSync(lock);
    const next = turn('locked', []);
    expect(next.status).toBe(0);
    expect(gitShowBytes(repo.gitdir, next.json().commit, 'kept.txt').toString()).toBe('kept\n');
    expectFsckClean(repo.gitdir);
  });
});

describe('forge log / show / resume / cat / ls / materialize', () => {
  it('log lists the turns with changed paths; show gives the conversation and diff as of a commit', () => {
    forge(['session', 'new', '--repo', repo.dir, '--id', 'h']);
    const first = turn('h', [{ tool: 'write_file', args: { path: 'one.txt', content: '1\n' } }], ['--message', 'first']).json();
    turn('h', [{ tool: 'write_file', args: { path: 'two.txt', content: '2\n' } }], ['--message', 'second']);
    const log = forge(['log', 'h', '--repo', repo.dir, '--json']).json();
    expect(log.turns.map((t: { turn: number; changedPaths: string[]; summary: string }) => [t.turn, t.summary, t.changedPaths])).toEqual([
      [0, 'Start forge session h', []],
      [1, 'first', ['one.txt']],
      [2, 'second', ['two.txt']],
    ]);
    const show = forge(['show', first.commit, '--repo', repo.dir, '--json']).json();
    expect(show.turn).toBe(1);
    expect(show.state.messages.map((m: { content: string }) => m.content)).toEqual(['first']);
    expect(show.changes.map((c: { path: string; kind: string }) => [c.path, c.kind])).toEqual([['one.txt', 'added']]);
    expect(show.changes[0].patch).toContain('+++ b/one.txt');
    const text = forge(['show', first.commit, '--repo', repo.dir]);
    expect(text.stdout).toContain('[turn 1] user: first');
  });

  it('log lists commits a person made on the session branch with git, marked as such, between and above the turns', () => {
    forge(['session', 'new', '--repo', repo.dir, '--id', 'p']);
    turn('p', [{ tool: 'write_file', args: { path: 'one.txt', content: '1\n' } }], ['--message', 'first']);
    const personCommit = (subject: string, path: string) => {
      const tip = git(repo.dir, ['rev-parse', 'forge/session/p']).stdout.trim();
      const blob = git(repo.dir, ['hash-object', '-w', '--stdin'], { input: `${subject}\n` }).stdout.trim();
      const tree = git(repo.dir, ['mktree'], { input: `${git(repo.dir, ['ls-tree', tip]).stdout}100644 blob ${blob}\t${path}\n` }).stdout.trim();
      const commit = git(repo.dir, ['commit-tree', tree, '-p', tip, '-m', subject]).stdout.trim();
      git(repo.dir, ['update-ref', 'refs/heads/forge/session/p', commit, tip]);
      return commit;
    };
    const between = personCommit('a fix by hand', 'hand.txt');
    turn('p', [{ tool: 'write_file', args: { path: 'two.txt', content: '2\n' } }], ['--message', 'second']);
    const above = personCommit('another by hand', 'hand2.txt');
    const log = forge(['log', 'p', '--repo', repo.dir, '--json']).json();
    expect(log.turns.map((t: { turn: number; summary: string; outside?: boolean; commit: string }) => [t.turn, t.summary, t.outside ?? false])).toEqual([
      [0, 'Start forge session p', false],
      [1, 'first', false],
      [1, 'a fix by hand', true],
      [2, 'second', false],
      [2, 'another by hand', true],
    ]);
    expect(log.turns.filter((t: { outside?: boolean }) => t.outside).map((t: { commit: string }) => t.commit)).toEqual([between, above]);
    const text = forge(['log', 'p', '--repo', repo.dir]).stdout;
    expect(text).toContain('(not forge, on turn 2)');
    expect(text).toContain('hand2.txt');
  });

  it('resume starts a new session from a historical commit and leaves the original untouched', () => {
    forge(['session', 'new', '--repo', repo.dir, '--id', 'orig']);
    const t1 = turn('orig', [{ tool: 'write_file', args: { path: 'a.txt', content: 'a1\n' } }], ['--message', 'one']).json();
    turn('orig', [{ tool: 'read_file', args: { path: 'a.txt' } }, { tool: 'write_file', args: { path: 'a.txt', content: 'a2\n' } }], ['--message', 'two']);
    const origTip = git(repo.dir, ['rev-parse', 'forge/session/orig']).stdout;
    const resumed = forge(['resume', '--from', t1.commit, '--id', 'fork', '--repo', repo.dir, '--json']).json();
    expect(resumed).toMatchObject({ id: 'fork', branch: 'forge/session/fork', parent: { session: 'orig', commit: t1.commit, turn: 1 } });
    expect(forge(['cat', 'a.txt', '--repo', repo.dir, '--session', 'fork']).stdout).toBe('a1\n');
    const next = turn('fork', [{ tool: 'write_file', args: { path: 'b.txt', content: 'b\n' } }]).json();
    expect(next.turn).toBe(2);
    expect(git(repo.dir, ['rev-parse', 'forge/session/orig']).stdout).toBe(origTip);
    expect(gitShowBytes(repo.gitdir, 'forge/session/orig', 'a.txt').toString()).toBe('a2\n');
    expect(forge(['log', 'fork', '--repo', repo.dir, '--json']).json().turns.map((t: { turn: number }) => t.turn)).toEqual([1, 2]);
    expectFsckClean(repo.gitdir);
  });

  it('cat, ls and materialize read commits and session views byte for byte', () => {
    const edge = copyFixture('edge-cases');
    const ls = forge(['ls', '--repo', edge.dir, '--rev', 'main']).stdout.trim().split('\n');
    expect(ls).toEqual(git(edge.dir, ['ls-tree', '-r', '--name-only', '-z', 'main']).stdout.split('\0').filter(Boolean));
    const crlf = forge(['cat', 'text/crlf.txt', '--repo', edge.dir, '--json']).json();
    expect(Buffer.from(crlf.base64, 'base64').equals(gitShowBytes(edge.gitdir, 'main', 'text/crlf.txt'))).toBe(true);
    const out = join(makeTempDir('materialize'), 'files');
    expect(forge(['materialize', out, '--repo', edge.dir]).status).toBe(0);
    expect(readFileSync(join(out, 'assets/nul-bytes.bin')).equals(gitShowBytes(edge.gitdir, 'main', 'assets/nul-bytes.bin'))).toBe(true);
    expect(statSync(join(out, 'bin/run.sh')).mode & 0o111).not.toBe(0);
    expect(readlinkSync(join(out, 'link-to-readme'))).toBe('README.md');
  });
});

describe('forge ls -z', () => {
  it('ends every path with NUL, as git ls-tree -z, so that a path holding a newline stays one path; for a commit and a session view', () => {
    const dir = join(makeTempDir('ls-z'), 'repo.git');
    git(makeTempDir('ls-z-cwd'), ['init', '-q', '--bare', dir]);
    const paths = ['a\nb.txt', 'dir/x y.txt', 'dir/z\u00e9.md', 'plain.txt'];
    const lines = ['blob', 'mark :1', 'data 2', 'x', '', 'commit refs/heads/main', 'committer T <t@example.invalid> 1700000000 +0000', 'data 1', 'm'];
    for (const path of paths) lines.push(`M 100644 :1 ${JSON.stringify(path)}`);
    git(dir, ['fast-import', '--quiet'], { input: `${lines.join('\n')}\n` });
    const expected = git(dir, ['ls-tree', '-r', '--name-only', '-z', 'main']).stdout;
    expect(expected.split('\0').filter(Boolean)).toEqual(paths);
    expect(forge(['ls', '-z', '--repo', dir, '--rev', 'main']).stdout).toBe(expected);
    expect(forge(['ls', '-z', 'dir', '--repo', dir, '--rev', 'main']).stdout).toBe('dir/x y.txt\0dir/z\u00e9.md\0');
    expect(forge(['session', 'new', '--id', 'z', '--base', 'main', '--repo', dir]).status).toBe(0);
    // The session's view also holds its own state file.
    expect(forge(['ls', '-z', '--repo', dir, '--session', 'z']).stdout).toBe(`.forge/sessions/z.json\0${expected}`);
    expect(forge(['ls', '--repo', dir, '--rev', 'main']).stdout).toBe(`${paths.join('\n')}\n`);
    expectFsckClean(dir);
  });
});

describe('forge ls into a reader that stops early', () => {
  it('exits 0 with nothing on stderr when the pipe closes (forge ls | head -1), as git stops on SIGPIPE', () => {
    // Enough paths (~600 KB) that the output cannot fit in the pipe before head exits.
    const dir = join(makeTempDir('ls-epipe'), 'repo.git');
    git(makeTempDir('ls-epipe-cwd'), ['init', '-q', '--bare', dir]);
    const lines = ['blob', 'mark :1', 'data 2', 'x', '', 'commit refs/heads/main', 'committer T <t@example.invalid> 1700000000 +0000', 'data 1', 'm'];
    for (let i = 0; i < 30_000; i++) lines.push(`M 100644 :1 dir${i % 100}/file-${i}.txt`);
    git(dir, ['fast-import', '--quiet'], { input: `${lines.join('\n')}\n` });
    const run = spawnSync('bash', ['-c', 'set -o pipefail; "$0" "$1" ls --repo "$2" --rev main | head -1', process.execPath, FORGE_BIN, dir], { encoding: 'utf8' });
    expect([run.status, run.stdout, run.stderr]).toEqual([0, 'dir0/file-0.txt\n', '']);
    expectFsckClean(dir);
  });
});

describe('forge tools', () => {
  it('prints OpenAI strict and Anthropic schemas whose objects all forbid extra properties', () => {
    const schemas = forge(['tools', '--json']).json();
    expect(schemas.openai.length).toBeGreaterThanOrEqual(11);
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (node && typeof node === 'object') {
        const o = node as Record<string, unknown>;
        if (o.type === 'object') expect(o.additionalProperties).toBe(false);
        Object.values(o).forEach(walk);
      }
    };
    for (const tool of schemas.openai) {
      expect(tool.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.function.strict).toBe(true);
      expect(tool.function.parameters.type).toBe('object');
      expect(Object.keys(tool.function.parameters.properties).sort()).toEqual([...tool.function.parameters.required].sort());
      walk(tool.function.parameters);
    }
    for (const tool of schemas.anthropic) walk(tool.input_schema);
  });
});
