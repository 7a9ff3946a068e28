#!/usr/bin/env node
/**
 * `npm run bench:real` (issue 19): forge beside the git CLI on a repository that looks like a real
 * one (`bench/make-repo.mjs --profile real`: ~35,000 files in ~13,000 directories, ~20,000
 * commits, deep delta chains, a ~100 MiB pack, one 50 MB text file). Every case is a WHOLE
 * process on each side (Node start, loading forge, opening the repository, the work, the exit),
 * run alternately (forge, git, forge, git, ...) in the environment of bench/git-env.mjs plus a
 * fixed identity (no NODE_EXTRA_CA_CERTS, no NODE_OPTIONS, no user or system git config).
 * Writes its section of docs/PERFORMANCE.md between `<!-- real-like:start -->` and
 * `<!-- real-like:end -->` (replaced, never appended twice).
 *
 *   node bench/real-like.mjs [--runs 7] [--quick] [--keep] [--forge-bin dist/cli.js] [--out FILE]
 *                            [--repo GITDIR | --files N --commits N --big-file BYTES --dirs N]
 *
 * --runs N     measured runs per side and case (default 7), after one discarded warm-up each.
 * --quick      2 runs, and docs/PERFORMANCE.md is NOT written (unless --out is given).
 * --repo DIR   a repository to use as it is (bare, branch main) instead of building one.
 * --files/--commits/--big-file/--dirs  passed to make-repo --profile real (a smaller variant,
 *              e.g. --files 3000 --commits 500 --big-file 5000000 while developing).
 * --forge-bin  the forge executable (default: a snapshot of dist/cli.js, built first when dist/
 *              is older than src/, as scripts/bench.mjs does); its directory is the dist used.
 * --keep       keep the working copy (bench/.work/real-run-<pid>).
 *
 * Every forge result is checked against git's: merge trees and conflicted paths, `--stat`
 * output byte for byte, listings byte for byte, file bytes, every turn commit's parent, changed
 * paths and blob oids, and `git fsck --strict` at the end. A failed check is reported loudly,
 * marked in the table, and the script exits 1 (after measuring the other cases).
 */
import { HERMETIC_ENV } from './git-env.mjs';
import * as kit from './bench-kit.mjs';
import { MAX_BUFFER, TIME_BIN, inspectRepo, median, prng, readBlobs, sha1 } from './bench-kit.mjs';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const INPROC = join(ROOT, 'bench', 'inproc.mjs');
const GIT_TURN = join(ROOT, 'bench', 'git-turn.sh');
const GIT_BIG_EDIT = join(ROOT, 'bench', 'git-big-edit.sh');
const GIT_WORKTREE_TURN = join(ROOT, 'bench', 'git-worktree-turn.sh');
export const REAL_START = '<!-- real-like:start -->';
export const REAL_END = '<!-- real-like:end -->';

// ---------- arguments ----------

function parseArgs(argv) {
  const opts = { runs: 7, quick: false, keep: false, forgeBin: undefined, out: undefined, repo: undefined, make: [] };
  let runsGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') opts.quick = true;
    else if (arg === '--keep') opts.keep = true;
    else if (arg === '--runs') {
      opts.runs = Number(argv[++i]);
      runsGiven = true;
      if (!Number.isInteger(opts.runs) || opts.runs < 1) fail('--runs needs a positive integer');
    } else if (arg === '--forge-bin') opts.forgeBin = resolve(argv[++i] ?? fail('--forge-bin needs a path'));
    else if (arg === '--out') opts.out = resolve(argv[++i] ?? fail('--out needs a path'));
    else if (arg === '--repo') opts.repo = resolve(argv[++i] ?? fail('--repo needs a path'));
    else if (['--files', '--commits', '--big-file', '--dirs', '--seed'].includes(arg)) opts.make.push(arg, argv[++i] ?? fail(`${arg} needs a value`));
    else fail(`unknown argument ${arg}`);
  }
  if (opts.repo && opts.make.length > 0) fail('--repo and make-repo options exclude each other');
  if (opts.quick) {
    if (!runsGiven) opts.runs = 2;
  } else {
    opts.out ??= join(ROOT, 'docs', 'PERFORMANCE.md');
  }
  return opts;
}

function fail(message) {
  console.error(`real-like: ${message}`);
  process.exit(2);
}

const log = (message) => console.error(`real-like: ${message}`);

// ---------- processes ----------

/** bench/git-env.mjs (no user or system git config; nothing else of this process's environment) + an identity. */
const ENV = {
  ...HERMETIC_ENV,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@bench.invalid',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@bench.invalid',
};

const run = (cmd, args, options = {}) => kit.run(cmd, args, { env: ENV, ...options });
const timeProcess = (cmd, args, options = {}) => kit.timeProcess(cmd, args, { env: ENV, ...options });
const ensureBuilt = () => kit.ensureBuilt(log, fail);



const blobOid = (bytes) => sha1(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]));



/** Disk used by a directory tree, in KiB (allocated blocks, as `du -sk`). */
function diskKiB(...paths) {
  return paths.filter((p) => existsSync(p)).reduce((sum, p) => sum + Number(run('du', ['-sk', p]).split('\t')[0]), 0);
}

// ---------- checks ----------

/** key -> { passed, failed: [message] }: every comparison with git, by case. */
const checks = new Map();

function check(key, condition, message) {
  const entry = checks.get(key) ?? { passed: 0, failed: [] };
  checks.set(key, entry);
  if (condition) entry.passed++;
  else {
    entry.failed.push(message);
    if (entry.failed.indexOf(message) === entry.failed.length - 1) console.error(`\nreal-like: CHECK FAILED [${key}]: ${message}\n`);
  }
  return condition;
}

/** A --stat difference: how many lines differ, the first, and both summary lines. */
function statDifference(forge, git) {
  const f = forge.trimEnd().split('\n');
  const g = git.trimEnd().split('\n');
  const differing = f.filter((line, i) => line !== g[i]).length + Math.max(0, g.length - f.length);
  return `${differing} of ${g.length} lines differ; first: ${firstDifference(forge, git)}; summary: forge ${JSON.stringify(f.at(-1))} vs git ${JSON.stringify(g.at(-1))}`;
}

/** [message, count] in first-seen order. */
const distinct = (messages) => [...messages.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map())];

function firstDifference(a, b) {
  const x = Buffer.isBuffer(a) ? a.toString('utf8') : a;
  const y = Buffer.isBuffer(b) ? b.toString('utf8') : b;
  const xl = x.split('\n');
  const yl = y.split('\n');
  for (let i = 0; i < Math.max(xl.length, yl.length); i++) {
    if (xl[i] !== yl[i]) return `line ${i + 1}: forge ${JSON.stringify(xl[i] ?? '<end>')} vs git ${JSON.stringify(yl[i] ?? '<end>')} (forge ${xl.length} lines, git ${yl.length})`;
  }
  return 'no line differs (byte-level difference)';
}

// ---------- build and repository ----------



function makeRepo(opts) {
  const args = [join(ROOT, 'bench', 'make-repo.mjs'), '--profile', 'real', ...opts.make];
  log(`building (or reusing) the real-like repository: node bench/make-repo.mjs --profile real ${opts.make.join(' ')}`.trimEnd());
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.status !== 0) fail('bench/make-repo.mjs failed');
  return JSON.parse(result.stdout);
}



// ---------- the scenario: branches made once with fast-import ----------

const SCENARIO = {
  merge: { files: 100, commits: 10, conflicting: 20 },
  diff: { files: 100, commits: 10 },
  lsChild: { files: 10 },
  worktree: { files: 10 },
  turn: [10, 1000],
};

/**
 * Picks the files of every case from `main` (deterministic: a seeded shuffle of the text files of
 * 12 lines or more, 300 B-20 KB, the large file excluded) and writes, with ONE fast-import:
 *   refs/heads/real/merge-ours                 10 commits x 10 files of set A, line 2 edited
 *   refs/heads/forge/session/rl-merge-clean    10 commits x 10 files of set B (other files)
 *   refs/heads/forge/session/rl-merge-overlap  the files of A again: 20 of them edit line 2
 *                                              differently (conflicts), 80 a line near the end
 *   refs/heads/forge/session/rl-diff           10 commits x 10 files of set C: lines inserted,
 *                                              deleted and replaced
 *   refs/heads/real/ls-child-<i>               one commit on main changing 10 files, one per run
 */
function buildScenario(gitdir, repo, blobsOf, runs) {
  const main = run('git', [`--git-dir=${gitdir}`, 'rev-parse', 'main']).trim();
  const big = repo.files.reduce((a, b) => (b.size > a.size ? b : a));
  const rng = prng(19);
  const candidates = repo.files.filter((f) => f.mode === '100644' && f !== big && f.size >= 300 && f.size <= 20_000);
  for (let i = candidates.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
  }
  const needed = SCENARIO.merge.files * 2 + SCENARIO.diff.files + SCENARIO.lsChild.files;
  const pool = candidates.slice(0, needed * 2);
  const blobs = blobsOf(pool.map((f) => f.oid));
  const usable = pool.map((f) => ({ ...f, lines: blobs.get(f.oid).toString('utf8').split('\n') })).filter((f) => f.lines.length >= 13 && f.lines.at(-1) === '');
  if (usable.length < needed) throw new Error(`only ${usable.length} usable text files for the scenario, ${needed} needed`);
  let next = 0;
  const take = (n) => usable.slice(next, (next += n));
  const sets = { A: take(SCENARIO.merge.files), B: take(SCENARIO.merge.files), C: take(SCENARIO.diff.files), L: take(SCENARIO.lsChild.files) };

  const parts = [];
  let time = 1_735_689_600;
  const commit = (ref, from, message, changes) => {
    time += 60;
    parts.push(`commit ${ref}\ncommitter Bench <bench@bench.invalid> ${time} +0000\ndata ${Buffer.byteLength(message)}\n${message}${from ? `from ${from}\n` : ''}`);
    for (const [path, content] of changes) parts.push(`M 100644 inline ${path}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
    parts.push('\n');
  };
  const edited = (file, at, text) => {
    const lines = [...file.lines];
    lines[at] = `${lines[at]} // ${text}`;
    return lines.join('\n');
  };
  const inCommits = (ref, files, commits, change) => {
    const per = Math.ceil(files.length / commits);
    for (let c = 0; c < commits; c++) {
      const slice = files.slice(c * per, (c + 1) * per);
      commit(ref, c === 0 ? main : null, `bench: ${ref.replace('refs/heads/', '')} ${c + 1}\n`, slice.map((f, k) => [f.path, change(f, c * per + k)]));
    }
  };
  const { commits, conflicting } = SCENARIO.merge;
  inCommits('refs/heads/real/merge-ours', sets.A, commits, (f) => edited(f, 1, 'ours: edited near the top'));
  inCommits('refs/heads/forge/session/rl-merge-clean', sets.B, commits, (f) => edited(f, f.lines.length - 4, 'theirs: edited near the end'));
  inCommits('refs/heads/forge/session/rl-merge-overlap', sets.A, commits, (f, k) =>
    k < conflicting ? edited(f, 1, 'theirs: the same line, otherwise') : edited(f, f.lines.length - 4, 'theirs: edited near the end'));
  inCommits('refs/heads/forge/session/rl-diff', sets.C, SCENARIO.diff.commits, (f) => {
    const lines = f.lines.slice(0, -1);
    for (let n = rng.int(1, 3); n > 0; n--) {
      const at = rng.int(1, lines.length - 2);
      const kind = rng();
      if (kind < 0.4) lines.splice(at, 0, ...Array.from({ length: rng.int(1, 12) }, (_, i) => `  added line ${i} of a diff bench edit ${rng.int(0, 1e6)}`));
      else if (kind < 0.7) lines.splice(at, rng.int(1, 3));
      else lines[at] = `  replaced by the diff bench ${rng.int(0, 1e6)}`;
    }
    return `${lines.join('\n')}\n`;
  });
  // check-only: a diff with insertions only and one with deletions only (git's summary omits the zero)
  commit('refs/heads/forge/session/rl-diff-insert', main, 'bench: insertions only\n', sets.C.slice(0, 5).map((f) => [f.path, [...f.lines.slice(0, 3), '  inserted by the bench', ...f.lines.slice(3)].join('\n')]));
  commit('refs/heads/forge/session/rl-diff-delete', main, 'bench: deletions only\n', sets.C.slice(5, 10).map((f) => [f.path, [...f.lines.slice(0, 3), ...f.lines.slice(5)].join('\n')]));
  for (let i = 0; i <= runs; i++) {
    commit(`refs/heads/real/ls-child-${i}`, main, `bench: a child of main to list (${i})\n`, sets.L.map((f) => [f.path, edited(f, 1, `ls child ${i}`)]));
  }
  run('git', [`--git-dir=${gitdir}`, 'fast-import', '--quiet'], { input: parts.join('') });
  return { main, big, sets };
}

// ---------- measuring ----------

/**
 * One case: a discarded warm-up per side, then `runs` measured runs, alternating forge and git.
 * `before(i)` runs untimed before each pair; each side is (run index) -> { ms, rssKiB, ...extra }.
 */
function measure(key, runs, { before, forge, git }) {
  const results = { forge: [], git: [] };
  for (let i = 0; i <= runs; i++) {
    before?.(i);
    const f = forge(i);
    const g = git ? git(i) : null;
    if (i > 0) {
      results.forge.push(f);
      if (g) results.git.push(g);
    }
  }
  const med = (list, k = 'ms') => (list.length > 0 && list[0][k] != null ? median(list.map((r) => r[k])) : null);
  const peak = (list) => (list.length > 0 && list.every((r) => r.rssKiB != null) ? Math.max(...list.map((r) => r.rssKiB)) : null);
  const span = (list) => (list.length > 0 ? [Math.min(...list.map((r) => r.ms)), Math.max(...list.map((r) => r.ms))] : null);
  const out = { forge: med(results.forge), git: med(results.git), forgeSpan: span(results.forge), gitSpan: span(results.git), forgeRss: peak(results.forge), gitRss: peak(results.git), results, med };
  log(`${key}: forge ${fmtMs(out.forge)}, git ${fmtMs(out.git)}${out.forgeRss ? `, forge peak ${fmtRss(out.forgeRss)}` : ''}`);
  return out;
}

function runCases(opts, ctx) {
  const { gitdir, work, dist, forgeBin, repo, scenario, blobsOf } = ctx;
  const forge = (args, options = {}) => timeProcess(process.execPath, [forgeBin, ...args, '--repo', gitdir], options);
  const git = (args, options = {}) => timeProcess('git', [`--git-dir=${gitdir}`, ...args], options);
  const gitOut = (args, options = {}) => run('git', [`--git-dir=${gitdir}`, ...args], options);
  const cases = {};
  const turns = []; // every turn commit, validated at the end
  const runs = opts.runs;
  const pad = (n) => String(n).padStart(2, '0');

  // Node's own start: what no forge command can go below.
  cases.nodeStart = measure('node -e 0', runs, { forge: () => timeProcess(process.execPath, ['-e', '0']) });

  // ---- merge --dry-run: clean (100 + 100 other files) and overlapping (the same 100, 20 conflicting)
  cases.mergeClean = measure('merge --dry-run, clean', runs, {
    forge: () => {
      const r = forge(['merge', 'rl-merge-clean', '--into', 'real/merge-ours', '--dry-run', '--json']);
      const out = JSON.parse(r.stdout.toString('utf8'));
      const expected = gitOut(['merge-tree', '--write-tree', 'real/merge-ours', 'forge/session/rl-merge-clean']).trim();
      check('mergeClean', out.status === 'merged' && out.tree === expected, `forge merge --dry-run: status ${out.status}, tree ${out.tree}; git merge-tree: clean, tree ${expected}`);
      return r;
    },
    git: () => git(['merge-tree', '--write-tree', 'real/merge-ours', 'forge/session/rl-merge-clean']),
  });

  const overlapGit = () => {
    const r = git(['merge-tree', '--write-tree', 'real/merge-ours', 'forge/session/rl-merge-overlap'], { ok: [1] });
    const [head] = r.stdout.toString('utf8').split('\n\n');
    const [tree, ...stages] = head.split('\n');
    return { ...r, tree, conflicted: [...new Set(stages.filter(Boolean).map((l) => l.slice(l.indexOf('\t') + 1)))].sort() };
  };
  const gitOverlap = overlapGit();
  check('mergeOverlap', gitOverlap.conflicted.length === SCENARIO.merge.conflicting, `git merge-tree reports ${gitOverlap.conflicted.length} conflicted paths, the scenario makes ${SCENARIO.merge.conflicting}`);
  cases.mergeOverlap = measure('merge --dry-run, overlapping', runs, {
    forge: () => {
      const r = forge(['merge', 'rl-merge-overlap', '--into', 'real/merge-ours', '--dry-run', '--json'], { ok: [3] });
      const out = JSON.parse(r.stdout.toString('utf8'));
      const paths = [...new Set((out.conflicts ?? []).map((c) => c.path))].sort();
      check('mergeOverlap', out.status === 'conflict' && JSON.stringify(paths) === JSON.stringify(gitOverlap.conflicted),
        `forge merge --dry-run: status ${out.status}, ${paths.length} conflicted paths; git: ${gitOverlap.conflicted.length} (${paths.filter((p) => !gitOverlap.conflicted.includes(p)).concat(gitOverlap.conflicted.filter((p) => !paths.includes(p))).slice(0, 5).join(', ')})`);
      return r;
    },
    git: overlapGit,
  });
  // Once, untimed: the tree WITH conflict markers (forge --conflict-branch) against git's.
  {
    const r = run(process.execPath, [forgeBin, 'merge', 'rl-merge-overlap', '--into', 'real/merge-ours', '--conflict-branch', 'real/merge-overlap-conflicts', '--json', '--repo', gitdir], { ok: [3] });
    const out = JSON.parse(r);
    check('mergeOverlap', out.conflictBranch?.tree === gitOverlap.tree, `the conflicted tree: forge ${out.conflictBranch?.tree} (--conflict-branch), git merge-tree ${gitOverlap.tree}`);
  }

  // ---- diff --stat of a 100-file session against main
  const gitStat = gitOut(['diff', '--stat', 'main...forge/session/rl-diff']);
  cases.diffStat = measure('diff --stat', runs, {
    forge: () => {
      const r = forge(['diff', 'rl-diff', '--against', 'main', '--stat']);
      const text = r.stdout.toString('utf8');
      check('diffStat', text === gitStat, `forge diff rl-diff --stat differs from git diff --stat: ${statDifference(text, gitStat)}`);
      return r;
    },
    git: () => git(['diff', '--stat', 'main...forge/session/rl-diff']),
  });

  for (const session of ['rl-diff-insert', 'rl-diff-delete']) {
    const text = run(process.execPath, [forgeBin, 'diff', session, '--against', 'main', '--stat', '--repo', gitdir]);
    const expected = gitOut(['diff', '--stat', `main...forge/session/${session}`]);
    check('diffStat', text === expected, `forge diff ${session} --stat differs from git diff --stat: ${statDifference(text, expected)}`);
  }

  // ---- ls: first listing, path map stored, a child of a listed commit
  const cacheDir = join(gitdir, 'forge', 'cache');
  const listing = (rev) => gitOut(['ls-tree', '-r', '--name-only', rev], { encoding: 'buffer' });
  const mainListing = listing('main');
  const lsCheck = (key, r, expected, rev) => {
    check(key, r.stdout.equals(expected), `forge ls --rev ${rev} differs from git ls-tree -r --name-only: ${firstDifference(r.stdout, expected)}`);
    return r;
  };
  cases.lsFirst = measure('ls, first listing', runs, {
    forge: () => {
      rmSync(cacheDir, { recursive: true, force: true }); // untimed: no stored path map (nor any derived cache)
      return lsCheck('lsFirst', forge(['ls', '--rev', 'main']), mainListing, 'main');
    },
    git: () => git(['ls-tree', '-r', '--name-only', 'main']),
  });
  cases.lsStored = measure('ls, path map stored', runs, {
    forge: () => lsCheck('lsStored', forge(['ls', '--rev', 'main']), mainListing, 'main'),
    git: () => git(['ls-tree', '-r', '--name-only', 'main']),
  });
  const childListings = new Map();
  cases.lsChild = measure('ls, child of a listed commit', runs, {
    before: (i) => {
      // untimed: main (the parent) is listed, so its path map is stored; the child is a new commit
      run(process.execPath, [forgeBin, 'ls', '--rev', 'main', '--repo', gitdir], { encoding: 'buffer' });
      childListings.set(i, listing(`real/ls-child-${i}`));
    },
    forge: (i) => lsCheck('lsChild', forge(['ls', '--rev', `real/ls-child-${i}`]), childListings.get(i), `real/ls-child-${i}`),
    git: (i) => git(['ls-tree', '-r', '--name-only', `real/ls-child-${i}`]),
  });

  // ---- cat: the file with the deepest delta chain
  const catBytes = blobsOf([ctx.catTarget.oid]).get(ctx.catTarget.oid);
  cases.cat = measure('cat', runs, {
    forge: () => {
      const r = forge(['cat', ctx.catTarget.path, '--rev', 'main']);
      check('cat', r.stdout.equals(catBytes), `forge cat ${ctx.catTarget.path} differs from git cat-file -p: ${firstDifference(r.stdout, catBytes)}`);
      return r;
    },
    git: () => {
      const r = git(['cat-file', '-p', `main:${ctx.catTarget.path}`]);
      check('cat', r.stdout.equals(catBytes), 'git cat-file -p returned other bytes');
      return r;
    },
  });

  // ---- session new (time only)
  cases.sessionNew = measure('session new', runs, {
    forge: (i) => {
      const id = `rl-new-${i}`;
      const r = forge(['session', 'new', '--base', 'main', '--id', id, '--json']);
      const head = gitOut(['rev-parse', `refs/heads/forge/session/${id}`]).trim();
      const parent = gitOut(['rev-parse', `${head}^`]).trim();
      check('sessionNew', parent === scenario.main, `forge session new: forge/session/${id} is ${head}, whose parent is ${parent}, not main`);
      return r;
    },
  });

  // ---- turn commits of 10 and 1,000 files: write_file calls vs bench/git-turn.sh
  const mainFiles = repo.files.filter((f) => f !== scenario.big && f.mode === '100644' && f.size > 0);
  const spread = (n) => Array.from({ length: n }, (_, i) => mainFiles[Math.floor(((i + 0.5) * mainFiles.length) / n)]);
  const contentsOf = (files, tag) => {
    const blobs = blobsOf(files.map((f) => f.oid));
    return files.map((f) => ({ path: f.path, content: Buffer.concat([Buffer.from(`// forge-bench ${tag}\n`), blobs.get(f.oid)]) }));
  };
  const gitTurnRun = (branch, files, script = GIT_TURN, extraArgs = []) => {
    const dir = join(work, 'turn', branch.replace(/\//g, '-'));
    mkdirSync(join(dir, 'c'), { recursive: true });
    const contentFiles = files.map((f, i) => {
      const file = join(dir, 'c', String(i));
      writeFileSync(file, f.content);
      return file;
    });
    writeFileSync(join(dir, 'blobs'), contentFiles.join('\n') + '\n');
    writeFileSync(join(dir, 'paths'), files.map((f) => f.path).join('\n') + '\n');
    const r = timeProcess('bash', [script, gitdir, branch, ...extraArgs, dir], { encoding: 'utf8' });
    return { ...r, dir };
  };
  const mainBranches = (prefix) => {
    const names = Array.from({ length: runs + 1 }, (_, i) => `real/${prefix}-${i}`);
    gitOut(['update-ref', '--stdin'], { input: names.map((b) => `create refs/heads/${b} ${scenario.main}\n`).join('') });
    return names;
  };
  for (const n of SCENARIO.turn) {
    const set = spread(n);
    const ids = Array.from({ length: runs + 1 }, (_, i) => `rl-turn${n}-${i}`);
    const spec = join(work, `sessions-${n}.json`);
    writeFileSync(spec, JSON.stringify(ids.map((session) => ({ session, read: set.map((f) => f.path) }))));
    // untimed set-up (bench/inproc.mjs, as scripts/bench.mjs): each session has read the files it will replace
    const heads = new Map(JSON.parse(run(process.execPath, [INPROC, 'sessions', gitdir, spec], { env: { ...ENV, FORGE_BENCH_DIST: dist } }).trim().split('\n').pop()).sessions.map((s) => [s.session, s.head]));
    const branches = mainBranches(`turn${n}`);
    cases[`turn${n}`] = measure(`turn of ${n} files`, runs, {
      forge: (i) => {
        const files = contentsOf(set, `F-${n}-${pad(i)}`);
        const calls = join(work, `calls-${n}-${i}.json`);
        writeFileSync(calls, JSON.stringify(files.map((f) => ({ tool: 'write_file', args: { path: f.path, content: f.content.toString('utf8') } }))));
        const r = forge(['turn', '--session', ids[i], '--calls', calls, '--json']);
        rmSync(calls);
        const out = JSON.parse(r.stdout.toString('utf8'));
        check(`turn${n}`, out.results?.length === files.length && out.results.every((x) => x.ok), `forge turn: a call failed: ${JSON.stringify(out.results?.find((x) => !x.ok) ?? out).slice(0, 500)}`);
        turns.push({ key: `turn${n}`, side: 'forge', ref: `refs/heads/forge/session/${ids[i]}`, commit: out.commit, parent: heads.get(ids[i]), files: files.map((f) => [f.path, blobOid(f.content)]), extra: [`.forge/sessions/${ids[i]}.json`] });
        return r;
      },
      git: (i) => {
        const files = contentsOf(set, `G-${n}-${pad(i)}`);
        const r = gitTurnRun(branches[i], files);
        rmSync(r.dir, { recursive: true, force: true });
        turns.push({ key: `turn${n}`, side: 'git', ref: `refs/heads/${branches[i]}`, commit: r.stdout.trim(), parent: scenario.main, files: files.map((f) => [f.path, blobOid(f.content)]), extra: [] });
        return r;
      },
    });
  }

  // ---- the large file: ranged read_file + one-line Edit + commit, vs cat-file | sed | hash-object + plumbing
  const big = scenario.big;
  const bigBytes = blobsOf([big.oid]).get(big.oid);
  const lineStarts = [0];
  for (let at = bigBytes.indexOf(10); at >= 0 && at < bigBytes.length - 1; at = bigBytes.indexOf(10, at + 1)) lineStarts.push(at + 1);
  const totalLines = lineStarts.length;
  const editLine = Math.floor(totalLines / 2); // 1-based
  const [from, to] = [editLine - 10, editLine + 10];
  ctx.bigEdit = { line: editLine, total: totalLines };
  const lineText = (n) => bigBytes.subarray(lineStarts[n - 1], (lineStarts[n] ?? bigBytes.length + 1) - 1).toString('utf8');
  const rangeLines = Array.from({ length: to - from + 1 }, (_, k) => lineText(from + k));
  const editedBig = (text) => Buffer.concat([bigBytes.subarray(0, lineStarts[editLine - 1]), Buffer.from(`${text}\n`), bigBytes.subarray(lineStarts[editLine])]);
  const bigBranches = mainBranches('big');
  const bigSessionStart = new Map();
  cases.bigEdit = measure('50 MB file: ranged read + one-line Edit + commit', runs, {
    before: (i) => {
      run(process.execPath, [forgeBin, 'session', 'new', '--base', 'main', '--id', `rl-big-${i}`, '--repo', gitdir]);
      bigSessionStart.set(i, gitOut(['rev-parse', `refs/heads/forge/session/rl-big-${i}`]).trim());
    },
    forge: (i) => {
      const id = `rl-big-${i}`;
      const text = `edited by forge run ${pad(i)}`;
      const calls = join(work, `calls-big-${i}.json`);
      writeFileSync(calls, JSON.stringify([
        { tool: 'read_file', args: { path: big.path, start_line: from, end_line: to } },
        { tool: 'Edit', args: { path: big.path, start_line: editLine, end_line: editLine, new_content: `${text}\n` } },
      ]));
      const r = forge(['turn', '--session', id, '--calls', calls, '--json']);
      rmSync(calls);
      const out = JSON.parse(r.stdout.toString('utf8'));
      const read = out.results?.[0]?.output?.content;
      const expectedRead = rangeLines.map((l, k) => `${from + k}\t${l}`).join('\n');
      check('bigEdit', out.results?.length === 2 && out.results.every((x) => x.ok), `forge turn: a call failed: ${JSON.stringify(out.results?.find((x) => !x.ok) ?? out).slice(0, 500)}`);
      check('bigEdit', read === expectedRead, `read_file lines ${from}-${to} of ${big.path}: ${firstDifference(String(read), expectedRead)}`);
      turns.push({ key: 'bigEdit', side: 'forge', ref: `refs/heads/forge/session/${id}`, commit: out.commit, parent: bigSessionStart.get(i), files: [[big.path, blobOid(editedBig(text))]], extra: [`.forge/sessions/${id}.json`] });
      return r;
    },
    git: (i) => {
      const text = `edited by git run ${pad(i)}`;
      const dir = join(work, 'big', String(i));
      mkdirSync(dir, { recursive: true });
      const r = timeProcess('bash', [GIT_BIG_EDIT, gitdir, bigBranches[i], big.path, String(from), String(to), String(editLine), text, dir], { encoding: 'utf8' });
      rmSync(dir, { recursive: true, force: true });
      const lines = r.stdout.split('\n');
      check('bigEdit', lines.slice(0, to - from + 1).join('\n') === rangeLines.join('\n'), 'git-big-edit.sh printed other lines than the range');
      turns.push({ key: 'bigEdit', side: 'git', ref: `refs/heads/${bigBranches[i]}`, commit: lines.at(-2), parent: scenario.main, files: [[big.path, blobOid(editedBig(text))]], extra: [] });
      return r;
    },
  });

  // ---- an agent's workspace: session new + a 10-file turn vs git worktree add + edit + commit (+ remove)
  const wtSet = spread(SCENARIO.worktree.files + 3).slice(2, 2 + SCENARIO.worktree.files); // not the files of the turn cases' ends
  const wtBranches = Array.from({ length: runs + 1 }, (_, i) => `real/worktree-${i}`);
  const removals = [];
  cases.workspace = measure('session new + 10-file turn vs git worktree add + edit + commit', runs, {
    forge: (i) => {
      const id = `rl-ws-${i}`;
      const files = contentsOf(wtSet, `F-ws-${pad(i)}`);
      const calls = join(work, `calls-ws-${i}.json`);
      writeFileSync(calls, JSON.stringify(files.flatMap((f) => [
        { tool: 'read_file', args: { path: f.path } },
        { tool: 'write_file', args: { path: f.path, content: f.content.toString('utf8') } },
      ])));
      const diskBefore = diskKiB(gitdir);
      const a = forge(['session', 'new', '--base', 'main', '--id', id, '--json']);
      const start = gitOut(['rev-parse', `refs/heads/forge/session/${id}`]).trim(); // between the two timed processes
      const b = forge(['turn', '--session', id, '--calls', calls, '--json']);
      const diskAfter = diskKiB(gitdir);
      rmSync(calls);
      const out = JSON.parse(b.stdout.toString('utf8'));
      check('workspace', out.results?.every((x) => x.ok), `forge turn: a call failed: ${JSON.stringify(out.results?.find((x) => !x.ok) ?? out).slice(0, 500)}`);
      turns.push({ key: 'workspace', side: 'forge', ref: `refs/heads/forge/session/${id}`, commit: out.commit, parent: start, files: files.map((f) => [f.path, blobOid(f.content)]), extra: [`.forge/sessions/${id}.json`] });
      return { ms: a.ms + b.ms, rssKiB: Math.max(a.rssKiB ?? 0, b.rssKiB ?? 0) || null, diskKiB: diskAfter - diskBefore };
    },
    git: (i) => {
      const wt = join(work, 'wt', String(i));
      mkdirSync(dirname(wt), { recursive: true });
      const files = contentsOf(wtSet, `G-ws-${pad(i)}`);
      const diskBefore = diskKiB(gitdir);
      const r = gitTurnRun(wtBranches[i], files, GIT_WORKTREE_TURN, [wt]);
      const diskAfter = diskKiB(gitdir, wt);
      rmSync(r.dir, { recursive: true, force: true });
      turns.push({ key: 'workspace', side: 'git', ref: `refs/heads/${wtBranches[i]}`, commit: r.stdout.trim(), parent: scenario.main, files: files.map((f) => [f.path, blobOid(f.content)]), extra: [] });
      const removal = timeProcess('git', [`--git-dir=${gitdir}`, 'worktree', 'remove', wt]);
      if (i > 0) removals.push(removal);
      return { ms: r.ms, rssKiB: r.rssKiB, diskKiB: diskAfter - diskBefore };
    },
  });
  const ws = cases.workspace;
  cases.workspaceDisk = { forge: ws.med(ws.results.forge, 'diskKiB'), git: ws.med(ws.results.git, 'diskKiB'), unit: 'KiB' };
  cases.worktreeRemove = { forge: null, git: median(removals.map((r) => r.ms)), gitSpan: [Math.min(...removals.map((r) => r.ms)), Math.max(...removals.map((r) => r.ms))], gitRss: Math.max(...removals.map((r) => r.rssKiB ?? 0)) || null };
  log(`workspace disk: forge ${fmtKiB(cases.workspaceDisk.forge)}, git ${fmtKiB(cases.workspaceDisk.git)}; worktree remove ${fmtMs(cases.worktreeRemove.git)}`);

  return { cases, turns };
}

// ---------- validation of every turn commit ----------

/** Each turn: its ref points at it, its parent is right, it changed exactly the expected paths, to the expected blobs. */
function validateTurns(gitdir, turns) {
  const refs = new Map(run('git', [`--git-dir=${gitdir}`, 'for-each-ref', '--format=%(refname) %(objectname)']).trim().split('\n').map((l) => l.split(' ')));
  for (const t of turns) {
    const what = `${t.side} ${t.key} commit ${t.commit}`;
    if (!check(t.key, refs.get(t.ref) === t.commit, `${t.ref} is ${refs.get(t.ref)}, not the turn commit ${what}`)) continue;
    const parent = run('git', [`--git-dir=${gitdir}`, 'rev-parse', `${t.commit}^`]).trim();
    if (!check(t.key, parent === t.parent, `${what}: parent ${parent}, expected ${t.parent}`)) continue;
    const raw = run('git', [`--git-dir=${gitdir}`, 'diff-tree', '-r', '--no-renames', '-z', t.parent, t.commit]).split('\0');
    const changed = new Map();
    for (let k = 0; k + 1 < raw.length; k += 2) changed.set(raw[k + 1], raw[k].split(' ')[3]);
    const expected = [...t.files.map(([p]) => p), ...t.extra].sort();
    check(t.key, JSON.stringify([...changed.keys()].sort()) === JSON.stringify(expected), `${what} changed ${changed.size} paths, expected ${expected.length}`);
    const wrong = t.files.filter(([path, oid]) => changed.get(path) !== oid);
    check(t.key, wrong.length === 0, `${what}: ${wrong.length} files do not hold the expected bytes (first: ${wrong[0]?.[0]})`);
  }
}

function fsck(gitdir) {
  const result = spawnSync('git', [`--git-dir=${gitdir}`, 'fsck', '--strict', '--no-progress'], { env: ENV, encoding: 'utf8', maxBuffer: MAX_BUFFER });
  const problems = `${result.stdout}\n${result.stderr}`.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('dangling '));
  check('fsck', result.status === 0 && problems.length === 0, `git fsck --strict:\n${problems.slice(0, 20).join('\n')}`);
}

// ---------- report ----------

function fmtMs(ms) {
  if (ms == null) return '—';
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return `${ms.toFixed(0)} ms`;
}
/** "383–899 ms", "1.10–1.64 s": the fastest and slowest measured run. */
function fmtSpan(span) {
  if (!span) return '';
  const [lo, hi] = span;
  return hi >= 1000 ? `${(lo / 1000).toFixed(2)}–${(hi / 1000).toFixed(2)} s` : `${lo.toFixed(0)}–${hi.toFixed(0)} ms`;
}
const withSpan = (ms, span) => (ms == null ? '—' : span ? `${fmtMs(ms)} (${fmtSpan(span)})` : fmtMs(ms));
const fmtRss = (kib) => (kib == null ? '—' : `${(kib / 1024).toFixed(0)} MiB`);
const fmtKiB = (kib) => (kib == null ? '—' : kib >= 10 * 1024 ? `${(kib / 1024).toFixed(0)} MiB` : `${kib} KiB`);
const ratioOf = (c) => (c.forge != null && c.git != null && c.git > 0 ? c.forge / c.git : null);
const fmtRatio = (c) => (ratioOf(c) == null ? '—' : `${ratioOf(c).toFixed(2)}x`);

const MiB = 1024;
/** The issue's "done when" (whole process, medians); a case without a target has none here. */
function targets(bigFileBytes) {
  const bigRss = (2 * bigFileBytes) / 1024; // KiB
  return {
    mergeClean: { text: '≤ 3x git', met: (c) => c.forge <= 3 * c.git },
    mergeOverlap: { text: '≤ 3x git', met: (c) => c.forge <= 3 * c.git },
    diffStat: { text: '≤ 2x git', met: (c) => c.forge <= 2 * c.git },
    lsFirst: { text: '≤ 2x git', met: (c) => c.forge <= 2 * c.git },
    lsStored: { text: '≤ 2x git', met: (c) => c.forge <= 2 * c.git },
    lsChild: { text: '≤ 2x git', met: (c) => c.forge <= 2 * c.git },
    sessionNew: { text: '≤ 150 ms', met: (c) => c.forge <= 150 },
    turn10: { text: '≤ 1x git', met: (c) => c.forge <= c.git },
    turn1000: { text: '≤ 1x git; peak RSS < 150 MiB', met: (c) => c.forge <= c.git && c.forgeRss != null && c.forgeRss < 150 * MiB },
    bigEdit: { text: `≤ 1.5x git; peak RSS ≤ 2x the file (${((2 * bigFileBytes) / 1e6).toFixed(0)} MB)`, met: (c) => c.forge <= 1.5 * c.git && c.forgeRss != null && c.forgeRss <= bigRss },
  };
}

function rows(cases, ctx) {
  const { catTarget, scenario } = ctx;
  const T = targets(scenario.big.size);
  const list = [
    ['nodeStart', "Node's bare start, `node -e 0` (no forge command is faster)", null],
    ['mergeClean', '`forge merge --dry-run`, clean: 100 + 100 other files (10 commits each) vs `git merge-tree --write-tree`', 'mergeClean'],
    ['mergeOverlap', `\`forge merge --dry-run\`, overlapping: the same 100 files, ${SCENARIO.merge.conflicting} conflicting, vs \`git merge-tree --write-tree\``, 'mergeOverlap'],
    ['diffStat', '`forge diff --against main --stat`, 100 files vs `git diff --stat main...<session>`', 'diffStat'],
    ['lsFirst', '`forge ls`, first listing (no stored path map) vs `git ls-tree -r --name-only`', 'lsFirst'],
    ['lsStored', '`forge ls`, path map stored vs `git ls-tree -r --name-only`', 'lsStored'],
    ['lsChild', '`forge ls` of a new child (10 files changed) of a listed commit vs `git ls-tree -r --name-only`', 'lsChild'],
    ['cat', `\`forge cat\` (${catTarget.size.toLocaleString('en-US')} bytes, delta chain ${catTarget.chain}) vs \`git cat-file -p\``, 'cat'],
    ['sessionNew', '`forge session new`', 'sessionNew'],
    ['turn10', '`forge turn`, 10 files (`write_file`) vs `hash-object --stdin-paths` + plumbing (bench/git-turn.sh)', 'turn10'],
    ['turn1000', '`forge turn`, 1,000 files (`write_file`) vs `hash-object --stdin-paths` + plumbing (bench/git-turn.sh)', 'turn1000'],
    ['bigEdit', `${(scenario.big.size / 1e6).toFixed(0)} MB file: ranged \`read_file\` + one-line \`Edit\` + commit (\`forge turn\`) vs \`cat-file | sed | hash-object -w\` + plumbing (bench/git-big-edit.sh)`, 'bigEdit'],
    ['workspace', '`forge session new` + a 10-file turn (read + write each) vs `git worktree add` + edit + `git add` + `git commit` (bench/git-worktree-turn.sh): time', 'workspace'],
    ['workspaceDisk', '… disk used (`du -sk` of the repository, + the worktree for git)', null],
    ['worktreeRemove', '… `git worktree remove` afterwards (forge: nothing to remove)', null],
  ];
  return list.map(([key, label, checkKey]) => {
    const c = cases[key];
    const target = T[key];
    const ch = checkKey ? checks.get(checkKey) : null;
    const disk = c.unit === 'KiB';
    return {
      key,
      label,
      forge: disk ? fmtKiB(c.forge) : withSpan(c.forge, c.forgeSpan),
      git: disk ? fmtKiB(c.git) : withSpan(c.git, c.gitSpan),
      ratio: disk && c.forge != null && c.git ? `1/${Math.round(c.git / Math.max(1, c.forge))}` : fmtRatio(c),
      forgeRss: fmtRss(c.forgeRss),
      gitRss: fmtRss(c.gitRss),
      target: target?.text ?? '',
      met: target ? (target.met(c) ? 'yes' : '**no**') : '',
      checked: ch == null ? (checkKey ? '—' : '') : ch.failed.length > 0 ? `**DIFFERS** (${ch.failed.length})` : `equal (${ch.passed})`,
    };
  });
}

function machine(loadAtStart) {
  const cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  const load = (l) => l.map((x) => x.toFixed(1)).join(' / ');
  return { nproc: run('nproc', []).trim(), cpu, node: process.version, git: run('git', ['--version']).trim().replace(/^git version /, ''), date: new Date().toISOString().slice(0, 10), load: `${load(loadAtStart)} at the start, ${load(loadavg())} at the end` };
}

function section({ opts, info, table, m, ctx, seconds }) {
  const int = (n) => n.toLocaleString('en-US');
  const withTarget = table.filter((r) => r.target !== '');
  const failed = [...checks.entries()].filter(([, c]) => c.failed.length > 0);
  const total = [...checks.values()].reduce((n, c) => n + c.passed + c.failed.length, 0);
  const build = info.buildSeconds ? `generated in ${info.buildSeconds.total} s (fast-import ${info.buildSeconds.import} s, repack ${info.buildSeconds.repack} s)` : 'given with --repo';
  const lines = [
    REAL_START,
    '## Real-like repository (issue 19)',
    '',
    'Generated by `npm run bench:real` (bench/real-like.mjs, also run at the end of `npm run bench`); do not edit by hand.',
    'Every case is a whole process on both sides, forge and git alternating in the same run, in bench/git-env.mjs\'s',
    'environment (no `NODE_EXTRA_CA_CERTS`, no user or system git config). One run on a shared machine: read ratios.',
    '',
    `- Machine: ${m.nproc} CPUs, ${m.cpu}; Node ${m.node}; git ${m.git}; ${m.date}; load average (1 / 5 / 15 min) ${m.load}. Node's bare start (\`node -e 0\`): ${fmtMs(ctx.cases.nodeStart.forge)}.`,
    `- Repository: ${info.path ? `\`bench/make-repo.mjs --profile real${opts.make.length ? ` ${opts.make.join(' ')}` : ''}\`` : 'given'}, ${build}: ${int(info.files)} files in ${int(info.directories)} directories (mean depth ${info.meanFileDepth ?? '?'}, up to ${info.maxDirectoryDepth}), ${int(info.commits)} commits, ${int(info.objects)} objects (${int(info.treeObjects ?? 0)} trees; ${int(info.deltifiedObjects)} deltified, delta chains median ${info.deltaChain?.median ?? '?'}, 90th percentile ${info.deltaChain?.p90 ?? '?'}, max ${info.deltaChain?.max ?? '?'}), one ${(info.packBytes / 2 ** 20).toFixed(1)} MiB pack with a ${(info.idxBytes / 2 ** 20).toFixed(1)} MiB .idx; ${(info.bytesAtHead / 1e6).toFixed(0)} MB of files at \`main\` (\`${info.head}\`), among them \`${ctx.scenario.big.path}\` (${int(ctx.scenario.big.size)} bytes of text).`,
    `- Runs: median of ${opts.runs} measured runs per side and case (in parentheses: the fastest and the slowest), after one discarded warm-up each; forge and git alternate. Peak RSS: the largest of the measured runs (\`/usr/bin/time -f %M\`; for a script, its largest process). Whole bench: ${seconds} s.`,
    `- Checks: ${total} comparisons with git, ${failed.length === 0 ? '**all equal**' : `**${failed.reduce((n, [, c]) => n + c.failed.length, 0)} FAILED** (${failed.map(([k]) => k).join(', ')}): forge's result differs from git's, a correctness bug (see below)`}. Targets met: ${withTarget.filter((r) => r.met === 'yes').length} of ${withTarget.length}.`,
    '',
    '| case | forge median (fastest–slowest) | git median (fastest–slowest) | forge/git | forge peak RSS | git peak RSS | target | met | result vs git |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |',
    ...table.map((r) => `| ${r.label.replace(/\|/g, '\\|')} | ${r.forge} | ${r.git} | ${r.ratio} | ${r.forgeRss} | ${r.gitRss} | ${r.target} | ${r.met} | ${r.checked} |`),
    '',
    'What each case does and checks:',
    '',
    `- **merge**: branches made with fast-import from \`main\`: \`real/merge-ours\` edits line 2 of 100 files (set A) in 10 commits; session \`rl-merge-clean\` edits a line near the end of 100 other files; session \`rl-merge-overlap\` edits the same 100 files as ours, ${SCENARIO.merge.conflicting} of them on line 2 too (conflicts), the rest near the end. forge: \`forge merge <session> --into real/merge-ours --dry-run --json\`; git: \`git merge-tree --write-tree real/merge-ours forge/session/<session>\`. Checked: the clean tree oid equals git's; the conflicted paths equal git's (the stages listed by merge-tree); once, untimed, the tree with conflict markers that \`forge merge --conflict-branch\` writes equals git's conflicted tree.`,
    '- **diff --stat**: session `rl-diff` inserts, deletes and replaces lines in 100 files (10 commits). `forge diff rl-diff --against main --stat` vs `git diff --stat main...forge/session/rl-diff` (80 columns: not a terminal); the outputs must be equal byte for byte, summary line included. Also checked once, untimed: a session with insertions only and one with deletions only (git\'s summary then omits "0 deletions(-)" / "0 insertions(+)").',
    '- **ls**: `forge ls --rev R` vs `git ls-tree -r --name-only R`, outputs equal byte for byte. First listing: `<gitdir>/forge/cache` (the path maps of src/vfs/path-map-cache.ts, and any other derived cache there) is removed before each forge run. Path map stored: the warm-up stored it. Child: before each run (untimed), `forge ls --rev main` (so the parent\'s listing is stored), then a NEW commit on main changing 10 files is listed (one commit per run, never listed before).',
    `- **cat**: \`forge cat ${ctx.catTarget.path} --rev main\` vs \`git cat-file -p main:<path>\`: the file at \`main\` (1-16 KB) with the deepest delta chain; bytes equal.`,
    '- **session new**: `forge session new --base main --id <new id>`; checked: the session branch\'s first commit has `main` as parent. git has no counterpart (a branch is a ref write).',
    '- **turn of N files**: N files at `main` spread over the sorted path list, each given a first line naming the side and run (no shared objects); forge: `forge turn --calls <file>` with N `write_file` calls on a session that has read them (set up untimed with bench/inproc.mjs, as scripts/bench.mjs); git: bench/git-turn.sh (`read-tree` into a temporary index, `hash-object -w --stdin-paths`, `update-index --index-info`, `write-tree`, `commit-tree`, `update-ref`). Checked for every commit: its branch points at it, its parent, exactly the written paths changed (plus the session file for forge), each to the written bytes\' blob oid.',
    `- **large file**: a new session per run (untimed); \`forge turn\` with \`read_file {start_line ${'N-10'}, end_line ${'N+10'}}\` and a line-range \`Edit\` of line N (N = the middle line, ${int(ctx.bigEdit.line)} of ${int(ctx.bigEdit.total)}); git: bench/git-big-edit.sh (the range through \`cat-file | sed -n\`, the edit through \`cat-file | sed Nc | hash-object -w --stdin\`, then the plumbing above). Checked: the lines read equal the file's, and the committed blob equals the expected edit on both sides.`,
    '- **workspace**: forge: `forge session new` + one `forge turn` that reads and writes 10 files (two processes, times added, peak RSS the larger); git: bench/git-worktree-turn.sh (`git worktree add -b <branch>` from main, which checks out every file, copy the 10 files in, `git add`, `git commit`); `git worktree remove` is timed after, apart. Disk: `du -sk` of the repository after minus before (and the worktree, for git). Both commits are checked as the turns above.',
    '- `git fsck --strict` of the repository at the end (dangling objects allowed). The bench works on a copy of the generated repository, deleted afterwards.',
    '',
  ];
  if (failed.length > 0) {
    lines.push('**Checks that failed** (forge\'s output is not git\'s; each is a bug to fix, not a flaky bench):', '');
    for (const [key, c] of failed) for (const [message, n] of distinct(c.failed).slice(0, 3)) lines.push(`- \`${key}\`${n > 1 ? ` (${n} times)` : ''}: ${message.replace(/\n/g, ' ').slice(0, 600)}`);
    lines.push('');
  }
  lines.push(REAL_END);
  return lines.join('\n');
}

/** The document with the marked section replaced (or appended at the end). */
export function withRealSection(doc, sectionText) {
  const start = doc.indexOf(REAL_START);
  const end = doc.indexOf(REAL_END);
  if (start >= 0 && end > start) return doc.slice(0, start) + sectionText + doc.slice(end + REAL_END.length);
  return `${doc.trimEnd()}\n\n${sectionText}\n`;
}

function printTable(table) {
  const header = ['case', 'forge', 'git', 'forge/git', 'forge RSS', 'git RSS', 'target', 'met', 'vs git'];
  const body = table.map((r) => [r.key, r.forge, r.git, r.ratio, r.forgeRss, r.gitRss, r.target, r.met.replace(/\*/g, ''), r.checked.replace(/\*/g, '')]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const fmt = (row) => row.map((cell, i) => (i === 0 || i >= 6 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(fmt(header));
  for (const row of body) console.log(fmt(row));
}

// ---------- main ----------

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const loadAtStart = loadavg();
  if (!opts.forgeBin) ensureBuilt();
  const info = opts.repo ? { ...JSON.parse(readFileSync(join(opts.repo, 'forge-bench-stamp.json'), 'utf8')).summary, path: null } : makeRepo(opts);
  const work = join(ROOT, 'bench', '.work', `real-run-${process.pid}`);
  const gitdir = join(work, 'repo.git');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  let dist;
  if (opts.forgeBin) dist = dirname(opts.forgeBin);
  else {
    dist = join(work, 'dist'); // a snapshot: a concurrent `npm run build` cannot change forge under the bench
    cpSync(join(ROOT, 'dist'), dist, { recursive: true });
  }
  const forgeBin = opts.forgeBin ?? join(dist, 'cli.js');
  if (!existsSync(forgeBin)) fail(`${forgeBin} does not exist`);
  const cleanup = () => {
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
  };
  process.on('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  try {
    log(`copying the repository to ${relative(ROOT, gitdir)}`);
    cpSync(opts.repo ?? info.path, gitdir, { recursive: true });
    // No background `git gc --auto` (git commit in a worktree would start one): it would pack the
    // objects under the measurements of both sides. forge starts none.
    run('git', [`--git-dir=${gitdir}`, 'config', 'gc.auto', '0']);
    const repo = inspectRepo(gitdir);
    const cache = new Map();
    const blobsOf = (oids) => {
      const missing = oids.filter((o) => !cache.has(o));
      if (missing.length > 0) for (const [oid, bytes] of readBlobs(gitdir, missing)) cache.set(oid, bytes);
      return new Map(oids.map((o) => [o, cache.get(o)]));
    };
    log('making the scenario branches (fast-import)');
    const scenario = buildScenario(gitdir, repo, blobsOf, opts.runs);
    const catCandidates = repo.files.filter((f) => f.mode === '100644' && f.size >= 1000 && f.size <= 16_000);
    for (const f of catCandidates) f.chain = repo.depthOf(f.oid);
    catCandidates.sort((a, b) => b.chain - a.chain || (a.path < b.path ? -1 : 1));
    const ctx = { gitdir, work, dist, forgeBin, repo, scenario, blobsOf, catTarget: catCandidates[0] };
    log(`forge: ${relative(ROOT, forgeBin)}; runs: ${opts.runs} + 1 warm-up per side`);

    const { cases, turns } = runCases(opts, ctx);
    ctx.cases = cases;

    log(`validating ${turns.length} turn commits and running git fsck --strict`);
    validateTurns(gitdir, turns);
    fsck(gitdir);

    const table = rows(cases, ctx);
    // Every measured run of every case, for a closer look (bench/.work is not committed).
    const raw = Object.fromEntries(Object.entries(cases).map(([k, c]) => [k, c.results ? { forge: c.results.forge.map(({ stdout, ...r }) => r), git: c.results.git.map(({ stdout, ...r }) => r) } : c]));
    writeFileSync(join(ROOT, 'bench', '.work', 'real-like-last.json'), `${JSON.stringify({ info, runs: opts.runs, raw, checks: Object.fromEntries(checks) }, null, 1)}\n`);
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    console.log('');
    printTable(table);
    const failed = [...checks.entries()].filter(([, c]) => c.failed.length > 0);
    const total = [...checks.values()].reduce((n, c) => n + c.passed + c.failed.length, 0);
    if (opts.out) {
      if (opts.runs < 7) log(`warning: ${opts.runs} runs; the issue asks for medians of at least 7`);
      const previous = existsSync(opts.out) ? readFileSync(opts.out, 'utf8') : '# Performance\n';
      writeFileSync(opts.out, withRealSection(previous, section({ opts, info, table, m: machine(loadAtStart), ctx, seconds })));
      log(`wrote the real-like section of ${relative(ROOT, opts.out)}`);
    }
    if (failed.length > 0) {
      console.error(`\nreal-like: FAILED: ${failed.reduce((n, [, c]) => n + c.failed.length, 0)} of ${total} checks against git failed:`);
      for (const [key, c] of failed) for (const [message, n] of distinct(c.failed)) console.error(`  [${key}]${n > 1 ? ` (${n} times)` : ''} ${message}`);
      process.exitCode = 1;
    } else {
      console.log(`\nreal-like: ${seconds} s; all ${total} checks against git passed.`);
    }
  } finally {
    cleanup();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`real-like: FAILED: ${error.stack ?? error}`);
    process.exitCode = 1;
  });
}
