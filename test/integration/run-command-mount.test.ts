/**
 * Issue 27: run_command runs in the session's mount when FUSE is available (no copy, the
 * session's ignored files present), its changes rolled back to the savepoint taken before the
 * command unless apply_changes; a mount already up in this process (forge mcp --mount, a library
 * mount sharing the tool calls' queue) is used as it is. Without FUSE (or with mounting off) the
 * command runs in a copy with the scratch directory's ignored files linked in.
 */
import { spawn } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createRunCommandTool, type RunCommandOutput } from '../../src/agent/node/run-command';
import { SessionToolRunner } from '../../src/agent/tool-calls';
import { SessionCommandWorkspace } from '../../src/mount/node/command-mount';
import { mountSession } from '../../src/mount/node/mount-session';
import { mountsStartingWith } from '../../src/mount/node/mount-table';
import { scratchDirOf } from '../../src/mount/node/scratch-dir';
import { SerialQueue } from '../../src/session/serial-queue';
import { allowAll, BUILTIN_TOOLS, ToolRegistry, type ToolResult } from '../../src/tools';
import { FORGE_BIN, forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { describeMount, openSession } from '../helpers/mount';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const FILES = {
  '.gitignore': 'node_modules/\nbuild/\n*.log\n',
  'src/a.txt': 'alpha\n',
  'src/b.txt': 'beta\n',
};

async function setup(options: { mount?: boolean; dependency?: boolean } = {}) {
  const repo = makeRepo({ files: FILES });
  const { session } = await openSession(repo, 'rc');
  if (options.dependency) {
    // An installed dependency in the session's scratch directory (what `npm install` in the mount leaves).
    const dep = join(scratchDirOf(session.repo.commonDir, session.id), 'node_modules', 'dep');
    mkdirSync(dep, { recursive: true });
    writeFileSync(join(dep, 'index.js'), 'module.exports = "from the dependency";\n');
  }
  const workspace = new SessionCommandWorkspace(session, { tmpDir: makeTempDir('rc-mnt'), ...(options.mount === false ? { mount: false } : {}) });
  const registry = new ToolRegistry([...BUILTIN_TOOLS, createRunCommandTool({ workspace, tmpDir: makeTempDir('rc-tmp'), env: { PATH: process.env.PATH } })]);
  const tools = new SessionToolRunner(session, { approval: allowAll, registry });
  onTestFinished(async () => {
    await workspace.close();
    await session.close();
  });
  const run = async (args: Record<string, unknown>): Promise<RunCommandOutput> => ok(await tools.call({ tool: 'run_command', args })) as unknown as RunCommandOutput;
  const read = async (path: string) => new TextDecoder().decode(await session.vfs.readFile(path));
  return { repo, session, workspace, tools, run, read };
}

function ok(result: ToolResult): Record<string, unknown> {
  if (!result.ok) throw new Error(`${result.tool} failed: ${result.error.code}: ${result.error.message}`);
  return result.output as Record<string, unknown>;
}

describeMount('run_command in the mount', () => {
  it('sees the pending edits, and its changes are rolled back without apply_changes', async () => {
    const { tools, run, read, session } = await setup();
    ok(await tools.call({ tool: 'write_file', args: { path: 'src/c.txt', content: 'pending c\n' } }));
    const out = await run({ command: 'cat src/c.txt; echo changed > src/a.txt; rm src/b.txt; mkdir -p new && echo n > new/n.txt; echo x > src/c.txt; exit 3' });
    expect(out.workspace).toBe('mount');
    expect(out).toMatchObject({ exit_code: 3, applied: false });
    expect(out.output).toBe('pending c\n');
    expect(out.changes).toEqual({ added: ['new/n.txt'], modified: ['src/a.txt', 'src/c.txt'], deleted: ['src/b.txt'] });
    expect(out.message).toBe('Exit code 3. 4 file change(s) made by the command were thrown away (apply_changes was not set).');
    expect(await read('src/a.txt')).toBe('alpha\n');
    expect(await read('src/b.txt')).toBe('beta\n');
    expect(await read('src/c.txt')).toBe('pending c\n');
    expect((await session.vfs.diff()).map((c) => c.path)).toEqual(['src/c.txt']);
    // The next command sees the view as it was, through the same mount.
    const again = await run({ command: 'cat src/a.txt src/b.txt; test ! -e new/n.txt && echo gone' });
    expect(again.output).toBe('alpha\nbeta\ngone\n');
  });

  it('keeps its changes with apply_changes, as one edit Undo reverts, and the turn commits them', async () => {
    const { tools, run, read, session, repo } = await setup();
    const out = await run({ command: 'echo formatted > src/a.txt && rm src/b.txt && printf "#!/bin/sh\\n" > run.sh && chmod +x run.sh', apply_changes: true });
    expect(out).toMatchObject({ exit_code: 0, applied: true, workspace: 'mount' });
    expect(out.changes).toEqual({ added: ['run.sh'], modified: ['src/a.txt'], deleted: ['src/b.txt'] });
    expect(await read('src/a.txt')).toBe('formatted\n');
    expect(session.state.undo?.tool).toBe('run_command');
    ok(await tools.call({ tool: 'Undo', args: {} }));
    expect(await read('src/a.txt')).toBe('alpha\n');
    expect(await read('src/b.txt')).toBe('beta\n');
    await run({ command: 'echo formatted > src/a.txt && printf "#!/bin/sh\\n" > run.sh && chmod +x run.sh', apply_changes: true });
    const turn = await session.commitTurn({ message: 'applied' });
    expect(git(repo.gitdir, ['show', `${turn.commit}:src/a.txt`]).stdout).toBe('formatted\n');
    expect(git(repo.gitdir, ['ls-tree', turn.commit, 'run.sh']).stdout).toMatch(/^100755 blob/);
    expectFsckClean(repo.gitdir);
  });

  it('has the session\'s ignored dependencies, and its ignored output stays in the scratch directory, never committed', async () => {
    const { run, session, repo } = await setup({ dependency: true });
    const out = await run({ command: 'node -e "console.log(require(\'dep\'))" && mkdir -p build && echo artifact > build/out.txt && echo log > test.log && echo kept > kept.txt', apply_changes: true });
    expect(out.output).toBe('from the dependency\n');
    expect(out.changes).toEqual({ added: ['kept.txt'], modified: [], deleted: [] });
    const scratch = scratchDirOf(session.repo.commonDir, session.id);
    expect(existsSync(join(scratch, 'build/out.txt'))).toBe(true);
    // Kept across commands, like the dependencies.
    expect((await run({ command: 'cat build/out.txt' })).output).toBe('artifact\n');
    const turn = await session.commitTurn({ message: 'build' });
    const paths = git(repo.gitdir, ['ls-tree', '-r', '--name-only', turn.commit]).stdout.split('\n').filter((p) => p && !p.startsWith('.forge/'));
    expect(paths.sort()).toEqual(['.gitignore', 'kept.txt', 'src/a.txt', 'src/b.txt']);
    expectFsckClean(repo.gitdir);
  });

  it('a timed-out command\'s changes are rolled back even with apply_changes', async () => {
    const { run, read } = await setup();
    const out = await run({ command: 'echo half > src/a.txt; sleep 30', timeout_s: 1, apply_changes: true });
    expect(out).toMatchObject({ timed_out: true, applied: false });
    expect(await read('src/a.txt')).toBe('alpha\n');
  });

  it('uses a mount already up in this process, even when the tool calls and the mount share one queue', async () => {
    const repo = makeRepo({ files: FILES });
    const { session } = await openSession(repo, 'shared');
    const queue = new SerialQueue();
    const dir = join(makeTempDir('rc-shared'), 'view');
    await fsp.mkdir(dir);
    const mount = await mountSession(session, dir, { queue });
    const workspace = new SessionCommandWorkspace(session);
    onTestFinished(async () => {
      await workspace.close();
      await mount.unmount();
      await session.close();
    });
    const registry = new ToolRegistry([...BUILTIN_TOOLS, createRunCommandTool({ workspace, env: { PATH: process.env.PATH } })]);
    const tools = new SessionToolRunner(session, { approval: allowAll, registry });
    // As forge mcp --mount does: the call waits its turn on the queue the mount's writes also take.
    const result = await queue.run(() => tools.call({ tool: 'run_command', args: { command: 'pwd; echo made > made.txt', apply_changes: true } }));
    const out = ok(result) as unknown as RunCommandOutput;
    expect(out.output).toBe(`${dir}\n`);
    expect(out.applied).toBe(true);
    expect(await fsp.readFile(join(dir, 'made.txt'), 'utf8')).toBe('made\n');
    // The mount's own edits are their own units again afterwards.
    await fsp.writeFile(join(dir, 'later.txt'), 'later\n');
    expect(session.state.undo?.tool).toBe('mount');
  });
});

describeMount('run_command\'s private mounts', () => {
  it('the private mount of a forge turn killed with SIGKILL is detached and removed by the next one', async () => {
    const repo = makeRepo({ files: FILES });
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'killed']).status).toBe(0);
    const tmp = makeTempDir('rc-private');
    const prefix = join(tmp, 'forge-run-mount-');
    const calls = JSON.stringify([{ tool: 'run_command', args: { command: 'sleep 60' } }]);
    const child = spawn(process.execPath, [FORGE_BIN, 'turn', '--repo', repo.dir, '--session', 'killed', '--calls', '-'], {
      env: { ...hermeticGitEnv(), PATH: process.env.PATH ?? '', TMPDIR: tmp },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.stdin!.end(calls);
    const deadline = Date.now() + 20_000;
    while (mountsStartingWith(prefix).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const [stale] = mountsStartingWith(prefix);
    expect(stale, 'forge turn mounted the session for run_command').toBeDefined();
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(mountsStartingWith(prefix).map((m) => m.dir)).toEqual([stale!.dir]);

    const { session } = await openSession(repo, 'next');
    const workspace = new SessionCommandWorkspace(session, { tmpDir: tmp });
    onTestFinished(async () => {
      await workspace.close();
      await session.close();
    });
    const registry = new ToolRegistry([...BUILTIN_TOOLS, createRunCommandTool({ workspace, env: { PATH: process.env.PATH } })]);
    const out = ok(await new SessionToolRunner(session, { approval: allowAll, registry }).call({ tool: 'run_command', args: { command: 'true' } })) as unknown as RunCommandOutput;
    expect(out.workspace).toBe('mount');
    const now = mountsStartingWith(prefix).map((m) => m.dir);
    expect(now).toHaveLength(1);
    expect(now).not.toContain(stale!.dir);
    expect(existsSync(stale!.dir)).toBe(false);
    expectFsckClean(repo.gitdir);
  }, 60_000);

  it('forge turn runs run_command in a mount it makes, commits what apply_changes kept, and leaves no mount behind', () => {
    const repo = makeRepo({ files: FILES });
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'cli']).status).toBe(0);
    const tmp = makeTempDir('rc-cli');
    const calls = [
      { tool: 'run_command', args: { command: 'pwd; cat src/a.txt; echo rewritten > src/a.txt', apply_changes: true } },
      { tool: 'run_command', args: { command: 'cat src/a.txt; rm src/b.txt' } },
    ];
    const turn = forge(['turn', '--repo', repo.dir, '--session', 'cli', '--calls', '-', '--json'], { input: JSON.stringify(calls), env: { TMPDIR: tmp } });
    expect(turn.status, turn.stderr).toBe(0);
    const result = JSON.parse(turn.stdout) as { commit: string; results: Array<{ output: RunCommandOutput }> };
    const [first, second] = result.results.map((r) => r.output);
    expect(first!.workspace).toBe('mount');
    expect(first!.output).toMatch(new RegExp(`^${tmp}/forge-run-mount-\\w+\nalpha\n$`));
    expect(second!.output).toBe('rewritten\n');
    expect(second!.applied).toBe(false);
    expect(git(repo.gitdir, ['show', `${result.commit}:src/a.txt`]).stdout).toBe('rewritten\n');
    expect(git(repo.gitdir, ['show', `${result.commit}:src/b.txt`]).stdout).toBe('beta\n');
    expect(mountsStartingWith(join(tmp, 'forge-run-mount-'))).toEqual([]);
    expect(nodeFs.readdirSync(tmp)).toEqual([]);
    expectFsckClean(repo.gitdir);
  });

  it('forge turn: a command finds on disk the objects the calls before it wrote (a batch holds them in memory until then)', () => {
    const repo = makeRepo({ files: FILES });
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'staged']).status).toBe(0);
    const content = 'written by the call before the command\n';
    const oid = git(repo.dir, ['hash-object', '--stdin'], { input: content }).stdout.trim();
    const calls = [
      { tool: 'write_file', args: { path: 'src/new.txt', content } },
      { tool: 'run_command', args: { command: `git --git-dir=${repo.gitdir} cat-file -p ${oid}` } },
    ];
    const turn = forge(['turn', '--repo', repo.dir, '--session', 'staged', '--calls', '-', '--json'], { input: JSON.stringify(calls), env: { TMPDIR: makeTempDir('rc-staged') } });
    expect(turn.status, turn.stderr).toBe(0);
    const result = JSON.parse(turn.stdout) as { commit: string; results: Array<{ ok: boolean; output: RunCommandOutput }> };
    expect(result.results[1]!.output.exit_code, JSON.stringify(result.results[1])).toBe(0);
    expect(result.results[1]!.output.output).toBe(content);
    expect(git(repo.gitdir, ['show', `${result.commit}:src/new.txt`]).stdout).toBe(content);
    expectFsckClean(repo.gitdir);
  });
});

describe('run_command without a mount', () => {
  it('runs in a copy with the scratch directory\'s ignored files linked in, and brings none of them back', async () => {
    const { run, session } = await setup({ mount: false, dependency: true });
    const out = await run({ command: 'node -e "console.log(require(\'dep\'))" && echo more > node_modules/dep/extra.txt && echo kept > kept.txt', apply_changes: true });
    expect(out.workspace).toBe('copy');
    expect(out.output).toBe('from the dependency\n');
    expect(out.changes).toEqual({ added: ['kept.txt'], modified: [], deleted: [] });
    expect(existsSync(join(scratchDirOf(session.repo.commonDir, session.id), 'node_modules/dep/extra.txt'))).toBe(true);
    expect((await session.vfs.diff()).map((c) => c.path)).toEqual(['kept.txt']);
    expect(nodeFs.existsSync(session.repo.commonDir)).toBe(true);
  });
});
