/**
 * run_command (the Node adapter) on a real repository: the command runs in a temporary copy of
 * the view (pending changes included, secrets left out), its output is capped, a timeout kills
 * it, its file changes are thrown away or applied as one undoable edit, and the temporary
 * directory is always removed.
 */
import * as nodeFs from 'node:fs';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandEnv, createRunCommandTool, OutputCollector, type RunCommandOptions, type RunCommandOutput } from '../../../src/agent/node/run-command';
import { SessionToolRunner } from '../../../src/agent/tool-calls';
import { Repository } from '../../../src/git';
import { nodePlatform } from '../../../src/git/node/platform';
import { SessionStore } from '../../../src/session';
import { allowAll, allowReadOnly, BUILTIN_TOOLS, ToolRegistry, type ApprovalPolicy, type ToolResult } from '../../../src/tools';
import { expectFsckClean } from '../../helpers/fsck';
import { makeRepo } from '../../helpers/repos';
import { makeTempDir } from '../../helpers/temp';

const FILES = {
  'src/a.txt': 'alpha\n',
  'bin/tool.sh': { content: '#!/bin/sh\necho tool\n', mode: '100755' as const },
  '.gitignore': 'build/\n*.log\n',
  '.env': 'SECRET=hunter2\n',
  'tracked.log': 'kept even though *.log is ignored\n',
};

async function setup(options: { approval?: ApprovalPolicy; mode?: 'restricted' | 'unrestricted'; tool?: RunCommandOptions } = {}) {
  const handle = makeRepo({ files: FILES });
  const repo = await Repository.open({ fs: nodeFs, dir: handle.dir, platform: nodePlatform });
  const session = await new SessionStore(repo).create({ id: 'rc', mode: options.mode ?? 'unrestricted' });
  const tmpDir = makeTempDir('run-command-tmp');
  const registry = new ToolRegistry([...BUILTIN_TOOLS, createRunCommandTool({ tmpDir, env: { PATH: process.env.PATH }, ...options.tool })]);
  const runner = new SessionToolRunner(session, { approval: options.approval ?? allowAll, registry });
  const run = async (args: Record<string, unknown>): Promise<RunCommandOutput> => {
    const result = await runner.call({ tool: 'run_command', args });
    if (!result.ok) throw new Error(`run_command failed: ${result.error.code}: ${result.error.message}`);
    return result.output as RunCommandOutput;
  };
  const read = async (path: string) => new TextDecoder().decode(await session.vfs.readFile(path));
  return { handle, repo, session, runner, run, read, tmpDir, tmpEmpty: () => readdirSync(tmpDir).length === 0 };
}

describe('run_command', () => {
  it('runs in a copy of the current view (pending included), reports exit code and output, and throws its changes away by default', async () => {
    const { runner, run, read, tmpEmpty, session } = await setup();
    await runner.call({ tool: 'write_file', args: { path: 'src/b.txt', content: 'pending b\n' } });
    const out = await run({ command: 'cat src/b.txt; echo to-stderr >&2; echo changed > src/a.txt; exit 3' });
    expect(out).toMatchObject({ exit_code: 3, signal: null, timed_out: false, applied: false, output_truncated: false });
    expect(out.output).toContain('pending b\n');
    expect(out.output).toContain('to-stderr\n');
    expect(out.changes).toEqual({ added: [], modified: ['src/a.txt'], deleted: [] });
    expect(out.message).toBe('Exit code 3. 1 file change(s) made by the command were thrown away (apply_changes was not set).');
    expect(await read('src/a.txt')).toBe('alpha\n');
    expect((await session.vfs.diff()).map((c) => c.path)).toEqual(['src/b.txt']);
    expect(tmpEmpty()).toBe(true);
  });

  it('leaves out .forge/ and denied files, and secrets and git pointers in the environment', async () => {
    const { run } = await setup({ tool: { env: { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-1', GITHUB_TOKEN: 'gh', DB_PASSWORD: 'pw', GIT_DIR: '/x', VISIBLE: 'yes' } } });
    const out = await run({ command: 'ls -A; echo "key=$OPENAI_API_KEY tok=$GITHUB_TOKEN pw=$DB_PASSWORD gitdir=$GIT_DIR visible=$VISIBLE"' });
    expect(out.output.split('\n')).toEqual(['.gitignore', 'bin', 'src', 'tracked.log', 'key= tok= pw= gitdir= visible=yes', '']);
  });

  it('with apply_changes, brings changed, added and deleted files (modes and symlinks too) back as ONE undoable edit', async () => {
    const { handle, session, run, read, tmpEmpty } = await setup();
    const out = await run({
      command:
        'echo new > src/new.txt && echo changed > src/a.txt && rm bin/tool.sh && printf "#!/bin/sh\\n" > run.sh && chmod +x run.sh && ln -s src/a.txt link && ' +
        'mkdir -p build && echo x > build/out.js && echo y > debug.log && echo more >> tracked.log',
      apply_changes: true,
    });
    expect(out.exit_code).toBe(0);
    expect(out.changes).toEqual({ added: ['link', 'run.sh', 'src/new.txt'], modified: ['src/a.txt', 'tracked.log'], deleted: ['bin/tool.sh'] });
    expect(out).toMatchObject({ applied: true, message: 'Exit code 0. 6 file change(s) applied to the workspace.' });
    expect(out.skipped).toBeUndefined();
    expect(await read('src/a.txt')).toBe('changed\n');
    expect(await read('src/new.txt')).toBe('new\n');
    expect(await session.vfs.exists('bin/tool.sh')).toBe(false);
    expect(await session.vfs.exists('build/out.js')).toBe(false);
    expect(await session.vfs.exists('debug.log')).toBe(false);
    expect((await session.vfs.stat('run.sh'))!.mode).toBe('100755');
    expect(await session.vfs.stat('link')).toMatchObject({ type: 'symlink', mode: '120000' });
    expect(await read('link')).toBe('src/a.txt');
    expect(session.state.undo).toMatchObject({ tool: 'run_command', turn: 1 });
    expect(session.state.undo!.files.map((f) => f.path).sort()).toEqual(['bin/tool.sh', 'link', 'run.sh', 'src/a.txt', 'src/new.txt', 'tracked.log']);
    await session.commitTurn();
    expectFsckClean(handle.gitdir);
    expect(tmpEmpty()).toBe(true);
  });

  it('skips changes the sandbox refuses (.forge/, denied paths) and says why', async () => {
    const { session, run } = await setup();
    const out = await run({ command: 'mkdir -p .forge && echo x > .forge/evil && echo S=1 > .env.local && echo ok > fine.txt', apply_changes: true });
    expect(out.applied).toBe(true);
    expect(out.skipped!.map((s) => [s.path, s.code])).toEqual([
      ['.env.local', 'PATH_DENIED'],
      ['.forge/evil', 'PATH_RESERVED'],
    ]);
    expect(out.message).toBe('Exit code 0. 1 file change(s) applied to the workspace; 2 skipped (see skipped).');
    expect((await session.vfs.diff()).map((c) => c.path)).toEqual(['fine.txt']);
  });

  it('kills a command at its timeout (what it started too), applies nothing, and cleans up', async () => {
    const { run, session, tmpEmpty } = await setup();
    const started = Date.now();
    const out = await run({ command: 'echo partial > p.txt; sleep 30 & echo started; sleep 30', timeout_s: 1, apply_changes: true });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(out).toMatchObject({ timed_out: true, exit_code: null, applied: false });
    expect(out.output).toContain('started');
    expect(out.message).toMatch(/^The command timed out after 1\.\d s and was killed\. Its 1 file change\(s\) were NOT applied/);
    expect(await session.vfs.exists('p.txt')).toBe(false);
    expect(tmpEmpty()).toBe(true);
  });

  it('does not wait for background processes once the command exits', async () => {
    const { run } = await setup();
    const started = Date.now();
    const out = await run({ command: 'sleep 30 & echo done' });
    expect(out).toMatchObject({ exit_code: 0, output: 'done\n' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('caps the output, keeping its beginning and its end', async () => {
    const { run } = await setup({ tool: { maxOutputBytes: 1000 } });
    const out = await run({ command: 'seq 1 5000' });
    const total = Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join('').length;
    expect(out).toMatchObject({ output_truncated: true, output_bytes: total });
    expect(out.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(out.output.endsWith('4999\n5000\n')).toBe(true);
    expect(out.output).toContain(`[… ${total - 1000} bytes of output omitted …]`);
  });

  it('is killed when the run is cancelled, and the call fails with AGENT_CANCELLED', async () => {
    const controller = new AbortController();
    const { runner, tmpEmpty } = await setup({ tool: { signal: controller.signal } });
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const result = await runner.call({ tool: 'run_command', args: { command: 'sleep 30' } });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ ok: false, error: { code: 'AGENT_CANCELLED' } });
    expect(tmpEmpty()).toBe(true);
  });

  it('is side-effecting: denied without approval, disabled in restricted mode, and never started then', async () => {
    const denied = await setup({ approval: allowReadOnly() });
    const refused: ToolResult = await denied.runner.call({ tool: 'run_command', args: { command: 'echo hi' } });
    expect(refused).toMatchObject({ ok: false, error: { code: 'TOOL_DENIED' } });
    expect(denied.tmpEmpty()).toBe(true);
    const restricted = await setup({ mode: 'restricted' });
    expect(await restricted.runner.call({ tool: 'run_command', args: { command: 'echo hi' } })).toMatchObject({ ok: false, error: { code: 'TOOL_DISABLED_IN_MODE' } });
  });

  it('validates its arguments', async () => {
    const { runner } = await setup({ tool: { maxTimeoutS: 60 } });
    expect(await runner.call({ tool: 'run_command', args: { command: 'x', timeout_s: 61 } })).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
    expect(await runner.call({ tool: 'run_command', args: { command: '' } })).toMatchObject({ ok: false, error: { code: 'TOOL_INPUT_INVALID' } });
  });
});

describe('OutputCollector', () => {
  it('keeps everything under the cap, and the first and last halves over it', () => {
    const small = new OutputCollector(10);
    small.push(Buffer.from('abc'));
    small.push(Buffer.from('defg'));
    expect([small.text(), small.truncated]).toEqual(['abcdefg', false]);
    const big = new OutputCollector(10);
    for (const part of ['0123', '4567', '89ab', 'cdef']) big.push(Buffer.from(part));
    expect(big.truncated).toBe(true);
    expect(big.total).toBe(16);
    expect(big.text()).toBe('01234\n[… 6 bytes of output omitted …]\nbcdef');
  });
});

describe('commandEnv', () => {
  it('drops secret-looking variables and git pointers, keeps the rest', () => {
    expect(
      commandEnv({ PATH: '/bin', HOME: '/h', OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', NPM_TOKEN: 't', AWS_SECRET_ACCESS_KEY: 's', APIKEY: 'x', MY_PASSWORD: 'p', GIT_DIR: '/g', GIT_AUTHOR_NAME: 'A', TOKENIZERS_PARALLELISM: 'false', UNDEF: undefined }),
    ).toEqual({ PATH: '/bin', HOME: '/h', GIT_AUTHOR_NAME: 'A', TOKENIZERS_PARALLELISM: 'false' });
  });
});
