/**
 * The CLI's habits, as git, gh and jj have them: one-line usage errors with a hint, no INTERNAL
 * for bad input, validated --approve, exit codes that say what happened, a global -C, the same
 * "did you mean" for an unknown session everywhere, commit identities as git finds them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeRepo, type RepoHandle } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const ONE_ERROR_LINE = /^forge: error [A-Z_]+: [^\n]+\n$/;

function sessionHead(repo: RepoHandle, id: string): string | null {
  const out = git(repo.dir, ['rev-parse', '--verify', '--quiet', `refs/heads/forge/session/${id}`], { allowFail: true });
  return out.status === 0 ? out.stdout.trim() : null;
}

describe('forge CLI habits', () => {
  let repo: RepoHandle;
  let files: string;
  beforeAll(() => {
    repo = makeRepo({ files: { 'a.txt': 'a\n', 'dir/b.txt': 'b\n' } });
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 's1']).status).toBe(0);
    files = makeTempDir('cli-habits-files');
    writeFileSync(join(files, 'bad.json'), '[{"tool": ');
    writeFileSync(join(files, 'object.json'), '{"tool": "read_file"}');
    writeFileSync(join(files, 'script.json'), JSON.stringify({ turns: [{ user: 'u', replies: [{ text: 'done' }] }] }));
    mkdirSync(join(files, 'full'));
    writeFileSync(join(files, 'full', 'x'), 'x');
  });

  describe('usage errors are one line with a hint', () => {
    it.each([
      [['turn', '--session', 's1'], /^forge: error INVALID_ARGUMENT: Required option '--calls <file>' not specified\. \(hint: "forge turn --help" shows its usage\.\)\n$/],
      [['log'], /^forge: error INVALID_ARGUMENT: Missing a session: name one \(forge log <id>\), or search every session with --grep, --author or --since\. \(hint: "forge log --help" shows its usage\.\)\n$/],
      [['session', 'new', '--bogus'], /^forge: error INVALID_ARGUMENT: Unknown option '--bogus'\. \(hint: "forge session new --help" shows its usage\.\)\n$/],
      [['frobnicate'], /^forge: error INVALID_ARGUMENT: Unknown command 'frobnicate'\. \(hint: "forge --help" lists the commands\.\)\n$/],
    ])('forge %j', (args, expected) => {
      const run = forge([...args, '--repo', repo.dir]);
      expect(run.stderr).toMatch(expected);
      expect([run.status, run.stdout]).toEqual([2, '']);
    });

    it('forge or forge session alone prints the usage on stderr and exits 2', () => {
      for (const args of [[], ['session']]) {
        const run = forge(args);
        expect(run.status).toBe(2);
        expect(run.stderr).toMatch(/^Usage: forge /);
      }
    });

    it('with --json the error is also the one JSON document on stdout', () => {
      const run = forge(['turn', '--session', 's1', '--json', '--repo', repo.dir]);
      expect(run.status).toBe(2);
      expect(run.json().error).toMatchObject({ code: 'INVALID_ARGUMENT', kind: 'user', hint: '"forge turn --help" shows its usage.' });
    });
  });

  describe('bad input is never INTERNAL', () => {
    // Each kind of bad value: a missing file, a directory for a file, malformed JSON, JSON of the
    // wrong shape, a value outside a choice, a non-number, an unknown session, revision or
    // commit, a name git refuses, a directory that is not empty, a repository that is a file or
    // does not exist.
    const cases: Array<readonly string[]> = [
      ['session', 'new', '--mode', 'bogus'],
      ['session', 'new', '--base', 'no-such-rev'],
      ['session', 'new', '--id', 'a b'],
      ['session', 'new', '--id', '../x'],
      ['session', 'discard', 'nope'],
      ['session', 'list', '--date', 'someday'],
      ['turn', '--session', 's1', '--calls', 'missing.json'],
      ['turn', '--session', 's1', '--calls', '.'],
      ['turn', '--session', 's1', '--calls', 'bad.json'],
      ['turn', '--session', 's1', '--calls', 'object.json'],
      ['turn', '--session', 's1', '--calls', 'script.json', '--approve', 'maybe'],
      ['turn', '--session', 'nope', '--calls', 'script.json'],
      ['run', '--script', 'missing.json', '--approve', 'all'],
      ['run', '--script', '.', '--approve', 'all'],
      ['run', '--script', 'bad.json', '--approve', 'all'],
      ['run', '--script', 'object.json', '--approve', 'all'],
      ['run', '--script', 'script.json', '--provider', 'bogus', '--approve', 'all'],
      ['run', '--script', 'script.json', '--max-turns', 'abc', '--approve', 'all'],
      ['run', '--script', 'script.json', '--max-tool-calls', '0', '--approve', 'all'],
      ['run', '--script', 'script.json', '--timeout', '-1', '--approve', 'all'],
      ['run', '--script', 'script.json', '--mode', 'bogus', '--approve', 'all'],
      ['run', '--script', 'script.json', '--approve', 'nne'],
      ['run', '--script', 'script.json', '--base', 'no-such-rev', '--approve', 'all'],
      ['run', '--session', 'nope', '--approve', 'all'],
      ['run', '--task', 't', '--provider', 'openai', '--approve', 'all'],
      ['undo', '--session', 'nope'],
      ['log', 'nope'],
      ['log', 's1', '--date', 'someday'],
      ['show', 'no-such-rev'],
      ['show', 'main'],
      ['resume', '--from', 'no-such-rev'],
      ['resume', '--from', 'main'],
      ['diff', 'nope'],
      ['merge', 'nope'],
      ['rebase', 'nope'],
      ['rebase', 's1', '--onto', 'no-such-rev'],
      ['cat', 'missing.txt'],
      ['cat', 'dir'],
      ['cat', 'a.txt', '--rev', 'no-such-rev'],
      ['cat', 'a.txt', '--session', 'nope'],
      ['cat', 'a.txt', '--rev', 'main', '--session', 's1'],
      ['ls', '--rev', 'no-such-rev'],
      ['materialize', 'full'],
      ['materialize', 'out', '--rev', 'no-such-rev'],
      ['tools', '--bogus'],
      ['mcp', '--mode', 'bogus'],
      ['mcp', '--auto-commit', 'bogus'],
      ['mcp', '--approve', 'maybe'],
      ['completion', 'tcsh'],
      ['completion'],
    ];

    it.each(cases)('forge %s …', (...args) => {
      const run = forge([...args, '--repo', repo.dir], { cwd: files, input: '' });
      expect(run.stderr).toMatch(ONE_ERROR_LINE);
      expect(run.stderr).not.toMatch(/INTERNAL/);
      expect(run.status).not.toBe(0);
      expect(run.status).not.toBe(1);
    });

    it('forge inspect on a port in use is a usage error, not INTERNAL', async () => {
      const busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      try {
        const port = (busy.address() as AddressInfo).port;
        const run = forge(['inspect', '--repo', repo.dir, '--port', String(port)]);
        expect(run.stderr).toMatch(/^forge: error INVALID_ARGUMENT: Cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE.* \(hint: Choose another --port/);
        expect(run.status).toBe(2);
      } finally {
        busy.close();
      }
    });

    it.each([
      [['-C', 'no-such-dir', 'session', 'list']],
      [['-C', 'bad.json', 'session', 'list']],
      [['session', 'list', '--repo', 'bad.json']],
      [['ls', '--repo', 'no-such-dir']],
      [['-C']],
    ])('forge %j (a repository that is a file, or missing)', (args) => {
      const run = forge(args, { cwd: files });
      expect(run.stderr).toMatch(/^forge: error INVALID_ARGUMENT: [^\n]+\n$/);
      expect(run.status).toBe(2);
    });
  });

  describe('--approve', () => {
    it.each([
      ['write-file', 'write_file'],
      ['nne', 'none'],
      ['maybe', undefined],
      ['Edit,delete-file', 'delete_file'],
    ])('--approve %s is refused before anything runs (suggesting %s)', (value, suggestion) => {
      const before = sessionHead(repo, 's1');
      const run = forge(['turn', '--repo', repo.dir, '--session', 's1', '--calls', '-', '--approve', value], { input: JSON.stringify([{ tool: 'write_file', args: { path: 'n.txt', content: 'n' } }]) });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(ONE_ERROR_LINE);
      expect(run.stderr).toContain(`forge: error INVALID_ARGUMENT: --approve: `);
      if (suggestion) expect(run.stderr).toContain(`did you mean ${suggestion}?`);
      expect(sessionHead(repo, 's1')).toBe(before);
    });

    it('a list of known tool names (aliases too) is taken', () => {
      const run = forge(['turn', '--repo', repo.dir, '--session', 's1', '--calls', '-', '--approve', 'write_file,Edit', '--json'], { input: JSON.stringify([{ tool: 'write_file', args: { path: 'ok.txt', content: 'ok\n' } }]) });
      expect(run.status).toBe(0);
      expect(git(repo.dir, ['show', 'forge/session/s1:ok.txt']).stdout).toBe('ok\n');
    });

    it('forge run without a terminal and without --approve fails at once, saying how to approve; nothing is created', () => {
      const run = forge(['run', '--repo', repo.dir, '--script', join(files, 'script.json'), '--id', 'ci'], { input: '' });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^forge: error APPROVAL_REQUIRED: forge run needs approval .+ \(hint: Give --approve all, --approve TOOL,TOOL .+\)\n$/);
      expect(sessionHead(repo, 'ci')).toBeNull();
      expect(forge(['run', '--repo', repo.dir, '--script', join(files, 'script.json'), '--id', 'ci', '--approve', 'none']).status).toBe(0);
    });
  });

  describe('exit codes', () => {
    const calls = (failing: number, ok: number) =>
      JSON.stringify([
        ...Array.from({ length: ok }, (_, i) => ({ tool: 'write_file', args: { path: `w${i}.txt`, content: `${i}\n` } })),
        ...Array.from({ length: failing }, (_, i) => ({ tool: 'read_file', args: { path: `missing-${i}.txt` } })),
      ]);

    it.each([
      [0, 2, 0],
      [1, 1, 5],
      [2, 0, 5],
    ])('forge turn with %i failing and %i good calls exits %i, the turn committed either way', (failing, ok, status) => {
      const id = `exit-${failing}-${ok}`;
      expect(forge(['session', 'new', '--repo', repo.dir, '--id', id]).status).toBe(0);
      const before = sessionHead(repo, id);
      const run = forge(['turn', '--repo', repo.dir, '--session', id, '--calls', '-'], { input: calls(failing, ok) });
      expect(run.status).toBe(status);
      expect(run.stderr).toBe(failing > 0 ? `forge: ${failing} of ${failing + ok} tool call(s) failed; turn 1 is committed with their errors (exit 5)\n` : '');
      const head = sessionHead(repo, id);
      expect(head).not.toBe(before);
      const state = JSON.parse(git(repo.dir, ['show', `${head}:.forge/sessions/${id}.json`]).stdout);
      expect(state.toolCalls.filter((c: { ok: boolean }) => !c.ok)).toHaveLength(failing);
      expectFsckClean(repo.gitdir);
    });

    it('forge run exits 5 when a call of its turns failed (a denied write), with the conversation committed', () => {
      const script = join(files, 'writes.json');
      writeFileSync(script, JSON.stringify({ turns: [{ user: 'write', replies: [{ tool_calls: [{ tool: 'write_file', args: { path: 'r.txt', content: 'r' } }] }, { text: 'ok' }] }] }));
      const run = forge(['run', '--repo', repo.dir, '--script', script, '--id', 'run-denied', '--approve', 'none']);
      expect(run.status).toBe(5);
      expect(run.stderr).toBe('forge: 1 of 1 tool call(s) failed; the turns are committed with their errors (exit 5)\n');
      expect(git(repo.dir, ['rev-list', '--count', 'main..forge/session/run-denied']).stdout.trim()).toBe('2');
    });
  });

  describe('global options', () => {
    it('forge -C DIR / --repo DIR before the command, from another directory', () => {
      for (const args of [['-C', repo.dir], [`-C${repo.dir}`], ['--repo', repo.dir], [`--repo=${repo.dir}`]]) {
        const run = forge([...args, 'session', 'list'], { cwd: files });
        expect(run.stderr).toBe('');
        expect(run.stdout).toMatch(/^s1  turn \d+ /m);
      }
    });

    it("a command's own --repo wins over the global one", () => {
      expect(forge(['-C', files, 'cat', 'a.txt', '--repo', repo.dir]).stdout).toBe('a\n');
    });

    it('the top-level help lists the common options', () => {
      const help = forge(['--help']).stdout;
      for (const option of ['-C, --repo <dir>', '--no-color', '-q, --quiet', '--version']) expect(help).toContain(option);
    });
  });

  describe('an unknown session', () => {
    const HINT = 'did you mean s1? "forge session list" shows every session.';
    it.each([
      [['log', 's2']],
      [['turn', '--session', 's2', '--calls', '-']],
      [['undo', '--session', 's2']],
      [['session', 'discard', 's2']],
      [['cat', 'a.txt', '--session', 's2']],
      [['ls', '--session', 's2']],
      [['run', '--session', 's2', '--approve', 'all']],
      [['diff', 's2']],
      [['merge', 's2']],
      [['rebase', 's2']],
      [['materialize', 'out', '--session', 's2']],
      [['tools', '--session', 's2']],
      [['tools', 'approve', 'x', '--session', 's2']],
    ])('forge %j suggests the close ids, in the same words', (args) => {
      const run = forge([...args, '--repo', repo.dir], { input: '[]', cwd: files });
      expect(run.stderr).toBe(`forge: error SESSION_NOT_FOUND: No session "s2" (no branch forge/session/s2). (hint: ${HINT})\n`);
      expect(run.status).toBe(2);
    });

    it('without a close id, the hint names forge session list alone', () => {
      const run = forge(['log', 'completely-different', '--repo', repo.dir]);
      expect(run.stderr).toContain('(hint: "forge session list" shows every session.)');
    });
  });
});
