#!/usr/bin/env node
/**
 * A fleet of agents on one git server: W worker processes, each with its own clone, run scripted
 * sessions of T turns in parallel with `forge run --script … --push` against one git server (git
 * http-backend); then one repository fetches every session and merges it into main. Checked:
 * every turn on the server (none lost), `git fsck --strict` clean on both sides (none corrupt),
 * and every merge's tree equal to `git merge-tree --write-tree`'s.
 *
 * Used by test/integration/remote/fleet.test.ts (8 × 5) and, standalone, as the bench (32 × 20):
 *
 *   node bench/remote-fleet.mjs [--workers 32] [--turns 20] [--json]
 *
 * The bench also pushes the same commits turn by turn with `git push` over the same server and
 * reports bytes sent per turn for both, and turns per second through the server.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function gitSync(env, cwd, args) {
  const result = spawnSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${result.stderr}`);
  return result.stdout;
}

function spawnAsync(cmd, args, env) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', reject);
    child.on('close', (status) => resolvePromise({ status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** fsck problems (dangling objects and notices are fine: see test/helpers/fsck.ts). */
export function fsckProblems(env, gitdir) {
  const result = spawnSync('git', [`--git-dir=${gitdir}`, 'fsck', '--strict', '--no-dangling', '--no-progress'], { env, encoding: 'utf8' });
  const lines = `${result.stdout}${result.stderr}`.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '' && !l.startsWith('dangling ') && !l.startsWith('notice: '));
  if (result.status !== 0 && lines.length === 0) lines.push(`git fsck exited ${result.status}`);
  return lines;
}

/**
 * Runs the fleet against a served bare repository `serverRepo` (with a `main`), reachable at
 * `url` (credentials included). Workers and the reviewer are cloned under `root`.
 */
export async function runFleet({ workers, turns, root, serverRepo, url, env, forgeBin = join(ROOT, 'dist', 'cli.js') }) {
  const forge = (args) => spawnAsync(process.execPath, [forgeBin, ...args], env);
  const sessions = [];
  for (let w = 0; w < workers; w++) {
    const id = `w${w}`;
    const dir = join(root, id);
    gitSync(env, root, ['clone', '-q', '--single-branch', '--branch', 'main', serverRepo, dir]);
    gitSync(env, dir, ['remote', 'set-url', 'origin', url]);
    const script = join(root, `${id}.json`);
    const scriptTurns = [];
    for (let t = 1; t <= turns; t++) {
      scriptTurns.push({ user: `worker ${w} turn ${t}`, replies: [{ tool_calls: [{ tool: 'write_file', args: { path: `fleet/${id}/turn-${t}.md`, content: `worker ${w}, turn ${t}\n` } }] }, { text: 'done' }] });
    }
    writeFileSync(script, JSON.stringify({ turns: scriptTurns }));
    sessions.push({ id, dir, script });
  }

  const started = process.hrtime.bigint();
  const runs = await Promise.all(sessions.map((s) => forge(['run', '--repo', s.dir, '--script', s.script, '--approve', 'all', '--id', s.id, '--push', '--json'])));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const failedWorkers = runs.map((r, i) => ({ r, id: sessions[i].id })).filter(({ r }) => r.status !== 0).map(({ r, id }) => `${id}: exit ${r.status}: ${r.stderr.trim().split('\n').pop()}`);

  // Every turn on the server: the branch holds turns + 1 commits (turn 0 creates the session) and the last file.
  let turnsOnServer = 0;
  const lost = [];
  for (const s of sessions) {
    const ref = `refs/heads/forge/session/${s.id}`;
    const head = spawnSync('git', ['--git-dir', serverRepo, 'rev-parse', '-q', '--verify', ref], { env, encoding: 'utf8' }).stdout.trim();
    if (!head) {
      lost.push(`${s.id}: no branch on the server`);
      continue;
    }
    const state = JSON.parse(gitSync(env, serverRepo, ['show', `${ref}:.forge/sessions/${s.id}.json`]));
    const count = Number(gitSync(env, serverRepo, ['rev-list', '--count', `main..${ref}`]).trim()) - 1;
    turnsOnServer += Math.min(count, state.turn);
    // Every turn's file, read in one `git cat-file --batch`.
    const names = Array.from({ length: turns }, (_, i) => `${ref}:fleet/${s.id}/turn-${i + 1}.md`);
    const batch = spawnSync('git', ['--git-dir', serverRepo, 'cat-file', '--batch'], { env, input: names.join('\n') + '\n', maxBuffer: 1 << 28 }).stdout;
    let at = 0;
    for (let t = 1; t <= turns; t++) {
      const eol = batch.indexOf(10, at);
      const header = batch.subarray(at, eol).toString('latin1').split(' ');
      const size = header[1] === 'blob' ? Number(header[2]) : -1;
      const content = size >= 0 ? batch.subarray(eol + 1, eol + 1 + size).toString('utf8') : null;
      at = size >= 0 ? eol + 1 + size + 1 : eol + 1;
      if (content !== `worker ${s.id.slice(1)}, turn ${t}\n`) lost.push(`${s.id} turn ${t}`);
    }
  }

  // One repository fetches everything and merges each session into main.
  const reviewer = join(root, 'reviewer.git');
  gitSync(env, root, ['clone', '-q', '--bare', '--single-branch', '--branch', 'main', serverRepo, reviewer]);
  gitSync(env, reviewer, ['config', 'remote.origin.url', url]);
  const fetched = await forge(['fetch', '--repo', reviewer, '--json']);
  if (fetched.status !== 0) throw new Error(`forge fetch failed: ${fetched.stderr}`);
  const fetchResult = JSON.parse(fetched.stdout);
  const merges = [];
  for (const s of sessions) {
    const theirs = `refs/remotes/origin/forge/session/${s.id}`;
    const expected = gitSync(env, reviewer, ['merge-tree', '--write-tree', 'main', theirs]).split('\n')[0];
    const merged = await forge(['merge', `origin/${s.id}`, '--into', 'main', '--keep-session-files', '--repo', reviewer, '--json']);
    const tree = gitSync(env, reviewer, ['rev-parse', 'main^{tree}']).trim();
    merges.push({ session: s.id, status: merged.status === 0 ? JSON.parse(merged.stdout).status : `exit ${merged.status}: ${merged.stderr.trim()}`, tree, expected, equal: tree === expected });
  }
  const corrupt = [...fsckProblems(env, serverRepo), ...fsckProblems(env, reviewer)];
  return { workers, turns, seconds, failedWorkers, turnsExpected: workers * turns, turnsOnServer, lost, fetchedObjects: fetchResult.objects, fetchedSessions: fetchResult.sessions.length, merges, corrupt, reviewer, sessions: sessions.map((s) => s.id) };
}

/** Pushes each session's commits one turn at a time with `git push` (what a fleet driving git would send). */
export async function gitPushSameCommits({ from, base, url, sessions, env }) {
  await Promise.all(
    sessions.map(async (id) => {
      const commits = gitSync(env, from, ['rev-list', '--reverse', `refs/remotes/origin/forge/session/${id}`, '--not', base]).trim().split('\n');
      // Turn 0 travels with turn 1, as forge run --push sends it.
      for (const commit of commits.slice(1)) {
        const pushed = await spawnAsync('git', ['--git-dir', from, 'push', '-q', url, `${commit}:refs/heads/forge/session/${id}`], env);
        if (pushed.status !== 0) throw new Error(`git push failed: ${pushed.stderr}`);
      }
    }),
  );
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const workers = opt('--workers', 32);
  const turns = opt('--turns', 20);
  const json = args.includes('--json');
  const log = (m) => process.stderr.write(`remote-fleet: ${m}\n`);

  // The server helper is TypeScript (shared with the tests): bundle it once with esbuild.
  const esbuild = await import('esbuild');
  const work = mkdtempSync(join(tmpdir(), 'forge-remote-fleet-'));
  try {
    const helper = join(work, 'http-backend.mjs');
    esbuild.buildSync({ entryPoints: [join(ROOT, 'test/helpers/http-backend.ts')], bundle: true, platform: 'node', format: 'esm', outfile: helper, logLevel: 'error' });
    const { startGitHttpServer } = await import(pathToFileURL(helper).href);
    const home = join(work, 'home');
    mkdirSync(home);
    writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Fleet\n\temail = fleet@example.invalid\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n');
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C', TZ: 'UTC' };
    const users = { fleet: 'fleet-token' };

    const seed = join(work, 'seed');
    gitSync(env, work, ['init', '-q', seed]);
    writeFileSync(join(seed, 'README.md'), '# fleet\n');
    gitSync(env, seed, ['add', '.']);
    gitSync(env, seed, ['commit', '-q', '-m', 'seed']);
    for (const name of ['server.git', 'gitpush.git']) {
      gitSync(env, work, ['init', '-q', '--bare', join(work, name)]);
      gitSync(env, join(work, name), ['config', 'http.receivepack', 'true']);
      gitSync(env, seed, ['push', '-q', join(work, name), 'HEAD:refs/heads/main']);
    }
    const server = await startGitHttpServer({ root: work, users });
    try {
      log(`${workers} workers x ${turns} turns against ${server.origin}`);
      const result = await runFleet({ workers, turns, root: work, serverRepo: join(work, 'server.git'), url: server.url('server.git', 'fleet'), env });
      const forgeBytes = server.requests.filter((r) => r.method === 'POST' && r.path === '/server.git/git-receive-pack').reduce((n, r) => n + r.bytesIn, 0);
      const forgePushes = server.requests.filter((r) => r.method === 'POST' && r.path === '/server.git/git-receive-pack').length;
      log(`fleet done in ${result.seconds.toFixed(1)} s; pushing the same commits with git push`);
      const gitStarted = process.hrtime.bigint();
      const base = gitSync(env, join(work, 'gitpush.git'), ['rev-parse', 'main']).trim();
      await gitPushSameCommits({ from: result.reviewer, base, url: server.url('gitpush.git', 'fleet'), sessions: result.sessions, env });
      const gitSeconds = Number(process.hrtime.bigint() - gitStarted) / 1e9;
      const gitPosts = server.requests.filter((r) => r.method === 'POST' && r.path === '/gitpush.git/git-receive-pack');
      const gitBytes = gitPosts.reduce((n, r) => n + r.bytesIn, 0);
      const gitPushedAll = result.sessions.every((id) => gitSync(env, join(work, 'gitpush.git'), ['rev-parse', `refs/heads/forge/session/${id}`]).trim() === gitSync(env, join(work, 'server.git'), ['rev-parse', `refs/heads/forge/session/${id}`]).trim());
      const ok = gitPushedAll && result.failedWorkers.length === 0 && result.lost.length === 0 && result.corrupt.length === 0 && result.merges.every((m) => m.equal) && result.turnsOnServer === result.turnsExpected;
      const summary = {
        ok,
        workers,
        turns,
        turnsPushed: result.turnsOnServer,
        lost: result.lost.length,
        corrupt: result.corrupt.length,
        mergesEqualToMergeTree: result.merges.filter((m) => m.equal).length,
        seconds: Number(result.seconds.toFixed(2)),
        turnsPerSecond: Number((result.turnsOnServer / result.seconds).toFixed(2)),
        forge: { pushes: forgePushes, bytes: forgeBytes, bytesPerTurn: Math.round(forgeBytes / result.turnsExpected) },
        git: { pushes: gitPosts.length, bytes: gitBytes, bytesPerTurn: Math.round(gitBytes / result.turnsExpected), seconds: Number(gitSeconds.toFixed(2)) },
        failedWorkers: result.failedWorkers,
      };
      process.stdout.write(json ? `${JSON.stringify(summary)}\n` : `${JSON.stringify(summary, null, 2)}\n`);
      if (!ok) process.exitCode = 1;
    } finally {
      await server.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error) => {
    console.error(`remote-fleet: FAILED: ${error.stack ?? error}`);
    process.exitCode = 1;
  });
}
