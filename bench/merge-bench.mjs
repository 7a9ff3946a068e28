#!/usr/bin/env node
/**
 * Merge benchmark: two sessions of 100 turns each, every session touching 500 files of the
 * 50,000-file bench repository (bench/make-repo.mjs), 100 of those files touched by both (on
 * different lines, so they merge cleanly line by line), each turn also updating the session's
 * state file. Times merging one session branch into the other:
 *
 *   - git:   `git merge-tree --write-tree A B` (a process per run, as a user would run it);
 *   - forge: in process, a fresh Repository per run (cold caches: every tree and blob is read
 *            and inflated again), planMerge + writing the tree (what `forge merge --dry-run`
 *            does); and warm, on a reused Repository (trees cached, as in a long-running host);
 *   - forge CLI: `forge merge b --into forge/session/a --dry-run --json`, a process per run.
 *
 * Medians of 5 alternating runs after one discarded warm-up each; checks that both produce the same tree; prints ONE JSON line.
 *
 *   node bench/merge-bench.mjs [--repo bench/.work/repo-50k] [--runs 5] [--turns 100] [--files 500] [--shared 100]
 *
 * The scenario is built once (deterministic: seeded choices) in a temporary bare repository that
 * borrows the bench repo's objects through objects/info/alternates, and removed afterwards.
 * Needs dist/ (npm run build).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// FORGE_BENCH_DIST: the bench's own copy of dist/, so a concurrent rebuild cannot pull it away.
const dist = process.env.FORGE_BENCH_DIST ?? join(root, 'dist');

function parseArgs(argv) {
  const opts = { repo: join(root, 'bench', '.work', 'repo-50k'), runs: 5, turns: 100, files: 500, shared: 100 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--repo') opts.repo = resolve(argv[++i]);
    else if (['--runs', '--turns', '--files', '--shared'].includes(arg)) opts[arg.slice(2)] = Number(argv[++i]);
    else fail(`unknown argument ${arg}`);
  }
  return opts;
}

function fail(message) {
  console.error(`merge-bench: ${message}`);
  process.exit(2);
}

const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' };

function git(cwd, args, input) {
  const result = spawnSync('git', args, { cwd, env, input, maxBuffer: 1 << 30 });
  if (result.status !== 0 && !(args[0] === 'merge-tree' && result.status === 1)) fail(`git ${args.join(' ')}: ${result.stderr}`);
  return result;
}

/** mulberry32, as bench/make-repo.mjs. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Text files of main with at least 12 lines, read with one cat-file --batch. */
function candidateFiles(gitdir) {
  const listing = git(gitdir, ['ls-tree', '-r', '-z', 'main']).stdout.toString('utf8').split('\0').filter(Boolean);
  const entries = listing
    .map((line) => {
      const tab = line.indexOf('\t');
      const [mode, , oid] = line.slice(0, tab).split(' ');
      return { mode, oid, path: line.slice(tab + 1) };
    })
    .filter((e) => e.mode === '100644' && /\.(ts|js|py|go|md|txt)$/.test(e.path));
  return entries;
}

function readBlobs(gitdir, oids) {
  const out = git(gitdir, ['cat-file', '--batch'], oids.join('\n') + '\n').stdout;
  const blobs = [];
  let p = 0;
  for (let i = 0; i < oids.length; i++) {
    const nl = out.indexOf(10, p);
    const size = Number(out.subarray(p, nl).toString().split(' ')[2]);
    blobs.push(out.subarray(nl + 1, nl + 1 + size));
    p = nl + 1 + size + 1;
  }
  return blobs;
}

function buildScenario(opts) {
  const dir = fs.mkdtempSync(join(tmpdir(), 'forge-merge-bench-'));
  const gitdir = join(dir, 'repo.git');
  git(dir, ['init', '-q', '--bare', gitdir]);
  fs.writeFileSync(join(gitdir, 'objects', 'info', 'alternates'), `${join(opts.repo, 'objects')}\n`);
  const main = git(opts.repo, ['rev-parse', 'main']).stdout.toString().trim();
  git(gitdir, ['update-ref', 'refs/heads/main', main]);

  const rng = prng(42);
  const candidates = candidateFiles(gitdir);
  // Shuffle deterministically, keep files long enough for two separate edits.
  for (let i = candidates.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
  }
  const pool = candidates.slice(0, opts.files * 3);
  const blobs = readBlobs(gitdir, pool.map((e) => e.oid));
  const usable = pool.map((e, i) => ({ ...e, content: blobs[i].toString('utf8') })).filter((e) => e.content.split('\n').length >= 12);
  const shared = usable.slice(0, opts.shared);
  const onlyA = usable.slice(opts.shared, opts.files);
  const onlyB = usable.slice(opts.files, 2 * opts.files - opts.shared);
  if (onlyB.length < opts.files - opts.shared) fail('not enough text files in the bench repository');
  const sessions = { a: [...shared, ...onlyA], b: [...shared, ...onlyB] };

  const parts = [];
  const now = 1_704_067_200;
  for (const [id, files] of Object.entries(sessions)) {
    const perTurn = Math.ceil(files.length / opts.turns);
    for (let turn = 0; turn <= opts.turns; turn++) {
      const state = JSON.stringify({ version: 1, id, branch: `forge/session/${id}`, turn, note: 'bench' }, null, 2) + '\n';
      const message = turn === 0 ? `Start forge session ${id}\n\nForge-Session: ${id}\nForge-Turn: 0\n` : `Bench turn ${turn}\n\nForge-Session: ${id}\nForge-Turn: ${turn}\n`;
      parts.push(`commit refs/heads/forge/session/${id}\ncommitter Bench <bench@example.invalid> ${now + turn} +0000\ndata ${Buffer.byteLength(message)}\n${message}${turn === 0 ? `from ${main}\n` : ''}`);
      parts.push(`M 100644 inline .forge/sessions/${id}.json\ndata ${Buffer.byteLength(state)}\n${state}\n`);
      if (turn > 0) {
        for (const file of files.slice((turn - 1) * perTurn, turn * perTurn)) {
          const lines = file.content.split('\n');
          // Session a edits near the top, b near the bottom: shared files merge line by line.
          const at = id === 'a' ? 1 : lines.length - 3;
          lines[at] = `${lines[at]} // edited by session ${id} in turn ${turn}`;
          const content = lines.join('\n');
          parts.push(`M 100644 inline ${file.path}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
        }
      }
      parts.push('\n');
    }
  }
  git(gitdir, ['fast-import', '--quiet'], parts.join(''));
  return { dir, gitdir };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(join(opts.repo, 'objects'))) fail(`no bench repository at ${opts.repo}; run node bench/make-repo.mjs first`);
  const forge = await import(pathToFileURL(join(dist, 'index.js')).href);
  const t0 = performance.now();
  const { dir, gitdir } = buildScenario(opts);
  const setupMs = performance.now() - t0;
  try {
    const open = () => forge.Repository.open({ fs, gitdir, platform: forge.nodePlatform });
    const side = async (repo, ref) => ({ ref, label: ref.replace('refs/heads/', ''), oid: await repo.refs.resolve(ref) });
    const phases = { plan: [], write: [] };
    const forgeMerge = async (repo, record = false) => {
      const t0 = performance.now();
      const target = await side(repo, 'refs/heads/forge/session/a');
      const source = await side(repo, 'refs/heads/forge/session/b');
      const plan = await forge.planMerge(repo, source, target);
      if (plan.kind !== 'merge') throw new Error(`expected a clean merge, got ${plan.kind}`);
      const t1 = performance.now();
      const tree = await forge.writeMergedTree(repo, plan.root);
      if (record) {
        phases.plan.push(t1 - t0);
        phases.write.push(performance.now() - t1);
      }
      return tree;
    };
    const gitMs = [];
    const forgeColdMs = [];
    let gitTree = '';
    let forgeTree = '';
    // One discarded warm-up per side (page cache, JIT), as the other bench cases do.
    for (let run = -1; run < opts.runs; run++) {
      const keep = run >= 0;
      let start = performance.now();
      const out = git(gitdir, ['merge-tree', '--write-tree', 'forge/session/a', 'forge/session/b']);
      if (keep) gitMs.push(performance.now() - start);
      if (out.status !== 0) fail(`git reports conflicts: ${out.stdout}`);
      gitTree = out.stdout.toString().trim();
      start = performance.now();
      const repo = await open();
      forgeTree = await forgeMerge(repo, keep);
      if (keep) forgeColdMs.push(performance.now() - start);
      repo.close();
    }
    // The CLI end to end (a fresh process: module loading and a cold JIT included).
    const cliMs = [];
    for (let run = -1; run < opts.runs; run++) {
      const start = performance.now();
      const cli = spawnSync(process.execPath, [join(dist, 'cli.js'), 'merge', 'b', '--into', 'forge/session/a', '--dry-run', '--json', '--repo', gitdir], { env, encoding: 'utf8' });
      if (run >= 0) cliMs.push(performance.now() - start);
      if (cli.status !== 0 || JSON.parse(cli.stdout).tree !== gitTree) fail(`forge merge --dry-run failed: ${cli.stderr}${cli.stdout}`);
    }
    const warmRepo = await open();
    await forgeMerge(warmRepo);
    const forgeWarmMs = [];
    for (let run = 0; run < opts.runs; run++) {
      const start = performance.now();
      await forgeMerge(warmRepo);
      forgeWarmMs.push(performance.now() - start);
    }
    const result = {
      case: 'merge-two-sessions',
      turns: opts.turns,
      filesPerSession: opts.files,
      sharedFiles: opts.shared,
      runs: opts.runs,
      setupMs: Math.round(setupMs),
      gitMergeTreeMs: Number(median(gitMs).toFixed(1)),
      forgeColdMs: Number(median(forgeColdMs).toFixed(1)),
      // Cold: merge base + tree merge (reading trees and blobs), then writing blobs and trees.
      forgeColdPlanMs: Number(median(phases.plan).toFixed(1)),
      forgeColdWriteMs: Number(median(phases.write).toFixed(1)),
      forgeWarmMs: Number(median(forgeWarmMs).toFixed(1)),
      forgeCliDryRunMs: Number(median(cliMs).toFixed(1)),
      ratioCold: Number((median(forgeColdMs) / median(gitMs)).toFixed(2)),
      sameTree: gitTree === forgeTree,
      tree: forgeTree,
      maxRSS: process.resourceUsage().maxRSS,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (!result.sameTree) process.exitCode = 1;
  } finally {
    if (process.env.FORGE_BENCH_KEEP) console.error(`kept ${gitdir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
