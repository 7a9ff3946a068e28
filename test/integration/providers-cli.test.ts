/**
 * `forge run` with the HTTP providers, against a local mock server: keys, base URLs and models
 * from flags and the environment, a commit message from --cheap-model, and a provider failure
 * that keeps the turn pending until a later run continues it.
 */
import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FORGE_BIN } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { anthropicMessage, openAiCompletion, startMockServer, type MockServer } from '../helpers/mock-llm-server';
import { copyFixture, gitShowBytes, snapshotWorkTree, type RepoHandle } from '../helpers/repos';

let server: MockServer;
let repo: RepoHandle;
let before: string;

beforeEach(async () => {
  server = await startMockServer();
  repo = copyFixture('example-app');
  before = snapshotWorkTree(repo.dir);
});
afterEach(async () => {
  await server.close();
});

/** Runs the CLI without blocking this process (the mock server lives here). */
function forgeAsync(args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string; events: Array<Record<string, any>> }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [FORGE_BIN, ...args], { env: { ...hermeticGitEnv(), PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (status) => {
      const events = args.includes('--json') ? stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) : [];
      resolve({ status, stdout, stderr, events });
    });
  });
}

const WRITE_NOTES = JSON.stringify({ path: 'NOTES.md', content: '# Notes\n' });

describe('forge run --provider openai|anthropic', () => {
  it('openai: key from OPENAI_API_KEY, --base-url, --model; the commit message comes from --cheap-model', async () => {
    server.plan(
      { json: openAiCompletion({ content: 'Writing notes.', tool_calls: [{ id: 'call_1', name: 'write_file', arguments: WRITE_NOTES }] }) },
      { json: openAiCompletion({ content: 'Wrote NOTES.md.' }) },
      { json: openAiCompletion({ content: 'Add a notes file\n\nStarts NOTES.md with a title.' }) },
    );
    const out = await forgeAsync(
      ['run', '--repo', repo.dir, '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'gpt-main', '--cheap-model', 'gpt-mini', '--task', 'Start a notes file.', '--approve', 'all', '--id', 'oa', '--json'],
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((r) => [r.headers.authorization, r.body.model])).toEqual([
      ['Bearer sk-test', 'gpt-main'],
      ['Bearer sk-test', 'gpt-main'],
      ['Bearer sk-test', 'gpt-mini'],
    ]);
    expect(server.requests[2]!.body.tools).toBeUndefined();
    expect(server.requests[2]!.body.messages[1].content).toContain('+# Notes');
    expect(out.events.map((e) => e.type)).toEqual(['turn_start', 'assistant', 'tool_call', 'tool_result', 'assistant', 'commit', 'done']);
    expect(out.events.find((e) => e.type === 'commit')).toMatchObject({ messageSource: 'model', subject: 'Add a notes file' });
    expect(git(repo.dir, ['log', '-1', '--format=%B', 'forge/session/oa']).stdout).toBe('Add a notes file\n\nStarts NOTES.md with a title.\n\nForge-Session: oa\nForge-Turn: 1\n\n');
    const state = JSON.parse(gitShowBytes(repo.gitdir, 'forge/session/oa', '.forge/sessions/oa.json').toString());
    expect(state.model).toEqual({ provider: 'openai', model: 'gpt-main' });
    expect(state.messages.filter((m: { role: string }) => m.role === 'assistant').map((m: { usage: unknown }) => m.usage)).toEqual([
      { inputTokens: 100, outputTokens: 20 },
      { inputTokens: 100, outputTokens: 20 },
    ]);
    expect(out.events.at(-1)).toMatchObject({ type: 'done', status: 'completed', usage: { inputTokens: 200, outputTokens: 40 } });
    expect(snapshotWorkTree(repo.dir)).toBe(before);
    expectFsckClean(repo.gitdir);
  });

  it('anthropic: key, base URL and model from ANTHROPIC_* variables', async () => {
    server.plan(
      { json: anthropicMessage([{ id: 'toolu_1', name: 'write_file', input: JSON.parse(WRITE_NOTES) }]) },
      { json: anthropicMessage([{ text: 'Wrote NOTES.md.' }]) },
    );
    const out = await forgeAsync(['run', '--repo', repo.dir, '--provider', 'anthropic', '--task', 'Start a notes file.', '--approve', 'write_file', '--id', 'an'], {
      ANTHROPIC_API_KEY: 'ant-test',
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_MODEL: 'claude-env',
    });
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('provider anthropic claude-env\n');
    expect(out.stdout).toContain('  → write_file NOTES.md\n      created (8 bytes)\n');
    expect(server.requests.map((r) => [r.path, r.headers['x-api-key'], r.body.model])).toEqual([
      ['/v1/messages', 'ant-test', 'claude-env'],
      ['/v1/messages', 'ant-test', 'claude-env'],
    ]);
    expect(gitShowBytes(repo.gitdir, 'forge/session/an', 'NOTES.md').toString()).toBe('# Notes\n');
    expectFsckClean(repo.gitdir);
  });

  it('a provider failure keeps the turn pending (exit 2); a later run with --session alone continues it', async () => {
    server.plan({ status: 401, json: { error: { message: 'Incorrect API key provided' } } });
    const failed = await forgeAsync(['run', '--repo', repo.dir, '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'm', '--task', 'Start a notes file.', '--approve', 'all', '--id', 'p', '--json'], {
      OPENAI_API_KEY: 'wrong',
    });
    expect(failed.status).toBe(2);
    expect(failed.stderr).toMatch(/^forge: error PROVIDER_AUTH: OpenAI-compatible provider at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions rejected the credentials \(HTTP 401\): Incorrect API key provided \(hint: Check OPENAI_API_KEY/);
    expect(failed.events.slice(-2)).toEqual([
      expect.objectContaining({ type: 'error', code: 'PROVIDER_AUTH', committed: false }),
      expect.objectContaining({ type: 'done', status: 'failed', turns: 0, remainingTurns: 1 }),
    ]);
    expect(git(repo.dir, ['rev-list', '--count', 'main..forge/session/p']).stdout.trim()).toBe('1');

    server.plan({ json: openAiCompletion({ tool_calls: [{ id: 'c1', name: 'write_file', arguments: WRITE_NOTES }] }) }, { json: openAiCompletion({ content: 'Done.' }) });
    const again = await forgeAsync(['run', '--repo', repo.dir, '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'm', '--session', 'p', '--approve', 'all', '--json'], { OPENAI_API_KEY: 'right' });
    expect(again.status).toBe(0);
    expect(again.events[0]).toMatchObject({ type: 'turn_start', turn: 1, continued: true, user: 'Start a notes file.' });
    expect(server.requests.at(-2)!.body.messages.filter((m: { role: string }) => m.role === 'user')).toEqual([{ role: 'user', content: 'Start a notes file.' }]);
    expect(git(repo.dir, ['rev-list', '--count', 'main..forge/session/p']).stdout.trim()).toBe('2');
    expect(snapshotWorkTree(repo.dir)).toBe(before);
    expectFsckClean(repo.gitdir);
  });

  it('without a key: PROVIDER_NOT_CONFIGURED before anything is created', async () => {
    const out = await forgeAsync(['run', '--repo', repo.dir, '--provider', 'openai', '--model', 'm', '--task', 't', '--json'], {});
    expect(out.status).toBe(2);
    expect(out.events).toEqual([expect.objectContaining({ type: 'error', code: 'PROVIDER_NOT_CONFIGURED', hint: 'Set OPENAI_API_KEY.' })]);
    expect(git(repo.dir, ['for-each-ref', 'refs/heads/forge']).stdout).toBe('');
    expect(server.requests).toHaveLength(0);
  });
});
