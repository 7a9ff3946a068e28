#!/usr/bin/env node
/**
 * run_command's own cost (issue 27 target: `run_command` of `true` < 100 ms over the command
 * itself), in one process through the library (dist/index.js), on a repository of N files
 * (default 10,000, ~1 KiB each, 8 per directory), in a session with one pending edit:
 *
 *   - `sh -c true` spawned directly (the command itself)
 *   - run_command `true` in the session's mount: the first call (mounts on demand) and warm calls
 *   - run_command `true` in a temporary copy (today's way, and the way without FUSE)
 *   - git worktree add + remove (what users do instead of a copy)
 *
 * Medians of --runs (default 7). Prints ONE JSON line; progress on stderr.
 *
 *   node bench/run-command-bench.mjs [--files 10000] [--runs 7]
 */
import { spawn, spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, median, prng, ROOT } from './bench-kit.mjs';
import { HERMETIC_ENV } from './git-env.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const FILES = opt('files', 10_000);
const RUNS = opt('runs', 7);
const ENV = { ...HERMETIC_ENV, GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
const log = (line) => process.stderr.write(`${line}\n`);

ensureBuilt(log, (m) => {
  throw new Error(m);
});
const forge = await import(pathToFileURL(join(ROOT, 'dist/index.js')).href);

function git(cwd, argv) {
  const result = spawnSync('git', argv, { cwd, env: ENV, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new Error(`git ${argv.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** A repository of FILES files, committed on main. */
function makeRepo() {
  const dir = mkdtempSync(join(tmpdir(), 'forge-rc-bench-'));
  const random = prng(7);
  for (let i = 0; i < FILES; i++) {
    const sub = join(dir, `d${Math.floor(i / 64)}`, `e${Math.floor(i / 8) % 8}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.txt`), `${'x'.repeat(Math.floor(random() * 2000))}\n`);
  }
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-qm', 'bench']);
  return dir;
}

/** Wall time of a spawned `sh -c true`, asynchronously as run_command spawns it. */
function spawnTrue() {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn('/bin/sh', ['-c', 'true'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
  });
}

async function timed(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const repoDir = makeRepo();
log(`repository: ${FILES} files in ${repoDir}`);
const repo = await forge.Repository.open({ fs: nodeFs, dir: repoDir, platform: forge.nodePlatform });
const store = new forge.SessionStore(repo);
const results = {};
try {
  const own = [];
  for (let i = 0; i < RUNS; i++) own.push(await spawnTrue());
  results.command_itself_ms = median(own);

  for (const mode of ['mount', 'copy']) {
    const session = await store.create({ id: `bench-${mode}`, mode: 'unrestricted' });
    const workspace = new forge.SessionCommandWorkspace(session, mode === 'copy' ? { mount: false } : {});
    const registry = new forge.ToolRegistry([...forge.BUILTIN_TOOLS, forge.createRunCommandTool({ workspace, env: { PATH: process.env.PATH } })]);
    const tools = new forge.SessionToolRunner(session, { approval: forge.allowAll, registry });
    await tools.call({ tool: 'write_file', args: { path: 'pending.txt', content: 'pending\n' } });
    const call = async () => {
      const result = await tools.call({ tool: 'run_command', args: { command: 'true' } });
      if (!result.ok) throw new Error(`run_command: ${result.error.code}: ${result.error.message}`);
      if (result.output.workspace !== mode) throw new Error(`run_command ran in ${result.output.workspace}, not ${mode}${workspace.unavailable ? ` (${workspace.unavailable})` : ''}`);
    };
    const first = await timed(call);
    const warm = [];
    for (let i = 0; i < (mode === 'copy' ? Math.min(RUNS, 3) : RUNS); i++) warm.push(await timed(call));
    results[`${mode}_first_ms`] = first;
    results[`${mode}_warm_ms`] = median(warm);
    results[`${mode}_over_command_ms`] = median(warm) - results.command_itself_ms;
    log(`${mode}: first ${first.toFixed(1)} ms, warm median ${median(warm).toFixed(1)} ms`);
    await workspace.close();
    await session.close();
  }

  const worktree = [];
  for (let i = 0; i < Math.min(RUNS, 3); i++) {
    const wt = join(mkdtempSync(join(tmpdir(), 'forge-rc-wt-')), 'wt');
    worktree.push(
      await timed(async () => {
        git(repoDir, ['worktree', 'add', '-q', '--detach', wt]);
        git(repoDir, ['worktree', 'remove', '--force', wt]);
      }),
    );
  }
  results.git_worktree_add_remove_ms = median(worktree);
  results.target_met = results.mount_over_command_ms < 100;
  results.copy_over_mount = results.copy_warm_ms / results.mount_warm_ms;
} finally {
  rmSync(repoDir, { recursive: true, force: true });
}
const round = (v) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v);
console.log(JSON.stringify({ bench: 'run_command true', files: FILES, runs: RUNS, ...Object.fromEntries(Object.entries(results).map(([k, v]) => [k, round(v)])) }));
