/**
 * Issue 28, "Done when": an interactive run. The real Claude Code TUI, under a pseudo-terminal
 * (util-linux `script`, no native pty module), started by `forge agent claude --copy` with no -p;
 * the test types two prompts, waiting for each answer on the screen, then /exit. Each prompt is
 * one turn commit (Claude Code's Stop hook), as in headless runs. The first-run screens (theme,
 * folder trust, the custom API key) are answered in the test's own ~/.claude.json.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FORGE_BIN } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { hermeticGitEnv } from '../helpers/git-cli';
import { startAnthropicMock, type ScriptedAnswer } from '../helpers/mock-anthropic-stream';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const CLAUDE = resolve('node_modules/.bin/claude');
const HAS_SCRIPT = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const KEY = 'sk-mock-not-a-key';

/** What the terminal shows, without escape sequences and whitespace (the TUI positions text with cursor moves). */
function screenText(raw: string): string {
  return raw.replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, '').replace(/\x1b\[[0-9;?<>=]*[ -/]*[@-~]/g, '').replace(/\x1b[()][A-Z0-9]/g, '').replace(/\s+/g, '');
}

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

describe.skipIf(!existsSync(CLAUDE) || !HAS_SCRIPT)('forge agent claude, interactive, under a pseudo-terminal (issue 28)', () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('two prompts typed into the TUI become two turn commits', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'one\n' } });
    const home = makeTempDir('agent-tty-home');
    const wd = join(makeTempDir('agent-tty-wd'), 'work');
    let answers = 0;
    const mock = await startAnthropicMock((body): ScriptedAnswer => {
      if (!Array.isArray(body.tools) || body.tools.length === 0) return { blocks: [{ text: 'A title' }], stop: 'end_turn' };
      answers++;
      return { blocks: [{ text: `Answer number ${answers}.` }], stop: 'end_turn' };
    });
    servers.push(mock);
    mkdirSync(wd, { recursive: true });
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({ hasCompletedOnboarding: true, theme: 'dark', numStartups: 3, customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] }, projects: { [wd]: { hasTrustDialogAccepted: true, allowedTools: [] } } }),
    );
    const env: Record<string, string> = {
      ...hermeticGitEnv(),
      PATH: process.env.PATH ?? '',
      HOME: home,
      TERM: 'xterm-256color',
      ANTHROPIC_BASE_URL: mock.url,
      ANTHROPIC_API_KEY: KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      FORGE_CLAUDE_BIN: CLAUDE,
    };
    const command = [process.execPath, FORGE_BIN, 'agent', 'claude', '--repo', repo.dir, '--copy', '--dir', wd, '--', '--model', 'claude-mock-1'].map(shellQuote).join(' ');
    // -q quiet, -f flush each write, -e the child's exit code, -c the command; the typescript goes nowhere.
    const tty = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let raw = '';
    const waiters: Array<() => void> = [];
    const onData = (d: Buffer) => {
      raw += d.toString('utf8');
      for (const w of [...waiters]) w();
    };
    tty.stdout.on('data', onData);
    tty.stderr.on('data', onData);
    const exited = new Promise<number | null>((done) => tty.on('close', (code) => done(code)));
    const waitFor = (text: string, from = 0) =>
      new Promise<number>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`timed out waiting for ${JSON.stringify(text)}; the screen:\n${screenText(raw).slice(-2000)}`)), 60_000);
        const check = () => {
          const at = screenText(raw).indexOf(text, from);
          if (at < 0) return false;
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(check as () => void), 1);
          done(at + text.length);
          return true;
        };
        if (!check()) waiters.push(check as () => void);
      });
    try {
      let at = await waitFor('?forshortcuts');
      for (const [i, prompt] of ['first prompt typed', 'second prompt typed'].entries()) {
        tty.stdin.write(prompt);
        at = await waitFor(prompt.replace(/\s+/g, ''), at);
        tty.stdin.write('\r');
        at = await waitFor(`Answernumber${i + 1}.`, at);
        // The Stop hook runs after the answer is shown: wait for its commit before the next prompt.
        await new Promise<void>((done, fail) => {
          const started = Date.now();
          const poll = () => {
            const count = Number(execFileSync('git', ['-C', repo.dir, 'for-each-ref', '--format=x', 'refs/heads/forge/session/'], { encoding: 'utf8' }).trim() === '' ? 0 : execFileSync('git', ['-C', repo.dir, 'rev-list', '--count', '--glob=refs/heads/forge/session/*'], { encoding: 'utf8' }).trim());
            if (count >= i + 3) return done();
            if (Date.now() - started > 60_000) return fail(new Error(`turn ${i + 1} was not committed; the screen:\n${screenText(raw).slice(-1500)}`));
            setTimeout(poll, 200);
          };
          poll();
        });
        at = await waitFor('?forshortcuts', at);
      }
      tty.stdin.write('/exit');
      await waitFor('/exit', at);
      tty.stdin.write('\r');
      expect(await exited).toBe(0);
    } finally {
      tty.kill();
    }
    const screen = screenText(raw);
    const session = /session([0-9a-f-]{36})has\d+turn\(s\)/.exec(screen)?.[1];
    expect(session, screen.slice(-1500)).toBeDefined();
    const log = execFileSync('git', ['-C', repo.dir, 'log', '--format=%H', `refs/heads/forge/session/${session}`], { encoding: 'utf8' }).trim().split('\n');
    expect(log).toHaveLength(4);
    const prompts = log.slice(0, 2).reverse().map((c) => {
      const state = JSON.parse(execFileSync('git', ['-C', repo.dir, 'show', `${c}:.forge/sessions/${session}.json`], { encoding: 'utf8' }));
      return state.messages.filter((m: any) => m.turn === state.turn).map((m: any) => [m.role, m.content]);
    });
    expect(prompts).toEqual([
      [['user', 'first prompt typed'], ['assistant', 'Answer number 1.']],
      [['user', 'second prompt typed'], ['assistant', 'Answer number 2.']],
    ]);
    expectFsckClean(repo.gitdir);
  }, 240_000);
});
