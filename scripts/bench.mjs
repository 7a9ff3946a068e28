#!/usr/bin/env node
/**
 * `npm run bench`: forge against the git CLI doing the same work, in the same run, on the
 * 50,000-file benchmark repository (bench/make-repo.mjs). Writes docs/PERFORMANCE.md.
 *
 *   node scripts/bench.mjs [--runs 7] [--quick] [--keep] [--forge-bin dist/cli.js] [--out docs/PERFORMANCE.md] [--no-real]
 *
 * --runs N   measured runs per side and case (default 7), after one discarded warm-up each;
 *            forge and git alternate: forge, git, forge, git, ...
 * --quick    a smoke check: 2 runs, 200 warm reads, and docs/PERFORMANCE.md is NOT written
 *            (unless --out is given).
 * --keep     keep the working copy of the repository (bench/.work/run-<pid>) for inspection.
 * --forge-bin the forge executable (default: the snapshot of dist/cli.js, below).
 * --no-real  skip bench/real-like.mjs (issue 19: the real-like repository), run at the end otherwise.
 *
 * Not part of `npm test`. Builds dist/ when it is older than src/, builds (or reuses) the
 * benchmark repository, and works on a copy of it, deleted at the end, so reruns start equal.
 * dist/ is snapshotted into the same place at the start: a concurrent `npm run build` (which
 * deletes dist/) cannot change or remove forge under a running bench.
 * Every measured forge operation is checked: outputs against git's, turn commits' trees by
 * content, and `git fsck --strict` at the end. A failing check fails the bench.
 */
import { browserSectionOf } from '../bench/browser-section.mjs';
import { HERMETIC_ENV } from '../bench/git-env.mjs';
import * as kit from '../bench/bench-kit.mjs';
import { MAX_BUFFER, TIME_BIN, inspectRepo, readBlobs, sha1 } from '../bench/bench-kit.mjs';
import { fmtRatio, ownRatioOf, ratioOf } from '../bench/lib/format.mjs';
import { createMeasure } from '../bench/lib/measure.mjs';
import * as read from '../bench/cases/main/read.mjs';
import * as list from '../bench/cases/main/list.mjs';
import * as engines from '../bench/cases/main/engines.mjs';
import * as turn from '../bench/cases/main/turn.mjs';
import * as bigWrite from '../bench/cases/main/big-write.mjs';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const INPROC = join(ROOT, 'bench', 'inproc.mjs');
const GIT_TURN = join(ROOT, 'bench', 'git-turn.sh');

// ---------- arguments ----------

function parseArgs(argv) {
  const opts = { runs: 7, quick: false, keep: false, forgeBin: undefined, out: undefined, warmIterations: 1000, real: true };
  let runsGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') opts.quick = true;
    else if (arg === '--keep') opts.keep = true;
    else if (arg === '--no-real') opts.real = false;
    else if (arg === '--runs') {
      opts.runs = Number(argv[++i]);
      runsGiven = true;
      if (!Number.isInteger(opts.runs) || opts.runs < 1) fail(`--runs needs a positive integer`);
    } else if (arg === '--forge-bin') opts.forgeBin = resolve(argv[++i] ?? fail('--forge-bin needs a path'));
    else if (arg === '--out') opts.out = resolve(argv[++i] ?? fail('--out needs a path'));
    else fail(`unknown argument ${arg}`);
  }
  if (opts.quick) {
    if (!runsGiven) opts.runs = 2;
    opts.warmIterations = 200;
  } else {
    opts.out ??= join(ROOT, 'docs', 'PERFORMANCE.md');
  }
  return opts;
}

function fail(message) {
  console.error(`bench: ${message}`);
  process.exit(2);
}

const log = (message) => console.error(`bench: ${message}`);

// ---------- processes ----------

/** No user or system git config, a fixed identity: results do not depend on the machine's setup. */
const BASE_ENV = { ...HERMETIC_ENV };
const GIT_ENV = {
  ...BASE_ENV,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@bench.invalid',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@bench.invalid',
};

const run = (cmd, args, options = {}) => kit.run(cmd, args, { env: GIT_ENV, ...options });
const timeProcess = (cmd, args, options = {}) => kit.timeProcess(cmd, args, { env: GIT_ENV, ...options });
const ensureBuilt = () => kit.ensureBuilt(log, fail);



/** An in-process case: its own child process, which times itself and prints one JSON line. */
function inprocIn(args, dist) {
  const stdout = run(process.execPath, [INPROC, ...args], { env: { ...BASE_ENV, FORGE_BENCH_DIST: dist } });
  return JSON.parse(stdout.trim().split('\n').pop());
}



function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
}

// ---------- build and repository ----------



function makeRepo() {
  log('building (or reusing) the benchmark repository: node bench/make-repo.mjs');
  const result = spawnSync(process.execPath, [join(ROOT, 'bench', 'make-repo.mjs')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.status !== 0) fail('bench/make-repo.mjs failed');
  return JSON.parse(result.stdout);
}

// ---------- the files the cases use ----------



const dirOf = (path) => path.slice(0, path.lastIndexOf('/'));
const depthOfPath = (path) => path.split('/').length - 1;

/**
 * The file to read: 5 directories deep, deltified in the pack (the deepest delta chain), so a
 * read resolves deltas like real reads do. Its siblings, and the file sets of the turn commits:
 * the target, then files spread evenly over the sorted path list (every depth), then one new file.
 */
function pickFiles(repo) {
  const { files, depthOf } = repo;
  const candidates = files.filter((f) => depthOfPath(f.path) === 5 && f.size >= 1000 && f.size <= 16_000);
  for (const f of candidates) f.chain = depthOf(f.oid);
  candidates.sort((a, b) => b.chain - a.chain || (a.path < b.path ? -1 : 1));
  const target = candidates[0];
  check(target !== undefined, 'no file 5 directories deep');
  const siblings = files.filter((f) => dirOf(f.path) === dirOf(target.path) && f.path !== target.path && f.size > 0).slice(0, 4);
  const pool = files.filter((f) => f.path !== target.path && f.size > 0);
  const spread = (count) => Array.from({ length: count }, (_, i) => pool[Math.floor(((i + 0.5) * pool.length) / count)]);
  const added = `${dirOf(target.path)}/bench-added-file.ts`;
  check(!files.some((f) => f.path === added), `${added} exists`);
  const turnSets = {
    1: { modified: [target], added: null },
    10: { modified: [target, ...spread(8)], added },
    1000: { modified: [target, ...spread(998)], added },
  };
  return { target, siblings, turnSets };
}

// ---------- the cases (bench/cases/main/<case>.mjs; bench/README.md) ----------

/** In the order they run and appear in the table. */
export const CASES = [read, list, engines, turn, bigWrite];

// ---------- validation ----------

/** Each turn: the ref points at it, its parent is right, it changed exactly the written files, with the written bytes. */
function validateTurns(gitdir, turns) {
  const refs = new Map(
    run('git', [`--git-dir=${gitdir}`, 'for-each-ref', '--format=%(refname) %(objectname)'])
      .trim()
      .split('\n')
      .map((l) => l.split(' ')),
  );
  const requests = [];
  for (const t of turns) {
    check(refs.get(t.ref) === t.commit, `${t.ref} is ${refs.get(t.ref)}, not the turn commit ${t.commit}`);
    requests.push(t.commit);
    for (const [path] of t.files) requests.push(`${t.commit}:${path}`);
  }
  const out = run('git', [`--git-dir=${gitdir}`, 'cat-file', '--batch'], { input: requests.join('\n') + '\n', encoding: 'buffer' });
  let at = 0;
  const next = () => {
    const eol = out.indexOf(10, at);
    const header = out.subarray(at, eol).toString();
    check(!header.endsWith('missing'), `cat-file: ${header}`);
    const size = Number(header.split(' ')[2]);
    const body = out.subarray(eol + 1, eol + 1 + size);
    at = eol + 1 + size + 1;
    return body;
  };
  for (const t of turns) {
    const commit = next().toString('utf8');
    check(commit.includes(`\nparent ${t.parent}\n`), `${t.side} turn ${t.commit}: parent is not ${t.parent}`);
    for (const [path, digest] of t.files) check(sha1(next()) === digest, `${t.side} turn ${t.commit}: ${path} does not hold the written content`);
    const changed = run('git', [`--git-dir=${gitdir}`, 'diff-tree', '-r', '--no-renames', '--name-only', '-z', t.parent, t.commit]).split('\0').filter(Boolean).sort();
    const expected = [...t.files.map(([p]) => p), ...t.extra].sort();
    check(JSON.stringify(changed) === JSON.stringify(expected), `${t.side} turn ${t.commit} changed ${changed.length} paths, expected ${expected.length}`);
  }
}

function fsck(gitdir) {
  const result = spawnSync('git', [`--git-dir=${gitdir}`, 'fsck', '--strict', '--no-progress'], { env: GIT_ENV, encoding: 'utf8', maxBuffer: MAX_BUFFER });
  const problems = `${result.stdout}\n${result.stderr}`.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('dangling '));
  check(result.status === 0 && problems.length === 0, `git fsck --strict:\n${problems.slice(0, 20).join('\n')}`);
}

// ---------- report ----------

function fmtMs(ms) {
  if (ms == null) return '—';
  if (ms < 1) return ms.toFixed(3);
  if (ms < 10) return ms.toFixed(2);
  if (ms < 100) return ms.toFixed(1);
  return ms.toFixed(0);
}
const fmtRss = (kib) => (kib == null ? 'n/a' : (kib / 1024).toFixed(1));

function tableRows(cases, ctx) {
  return CASES.flatMap((c) => c.rows({ ...ctx, cases, fmtMs })).map(({ key, label, target }) => {
    const c = cases[key];
    const met = target ? target.met(c) : null;
    return {
      key,
      label,
      forge: fmtMs(c.forge),
      git: fmtMs(c.git),
      node: fmtMs(c.node),
      ratio: fmtRatio(ratioOf(c)),
      own: fmtRatio(ownRatioOf(c)),
      forgeRss: c.forgeRss == null ? '—' : fmtRss(c.forgeRss),
      gitRss: c.gitRss == null ? '—' : fmtRss(c.gitRss),
      target: target?.text ?? '',
      met: met == null ? '' : met ? 'yes' : '**no**',
      phases: c.phases ?? null,
    };
  });
}

function machine() {
  const cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  return {
    nproc: run('nproc', []).trim(),
    cpu,
    node: process.version,
    git: run('git', ['--version']).trim().replace(/^git version /, ''),
    date: new Date().toISOString().slice(0, 10),
  };
}

function markdown({ opts, repoInfo, picks, table, m, ctx }) {
  const int = (n) => n.toLocaleString('en-US');
  const met = table.filter((r) => r.met !== '');
  const lines = [
    '# Performance',
    '',
    'Generated by `npm run bench` (scripts/bench.mjs); do not edit by hand. forge and the git CLI do the same work',
    'in the same run, alternately. The numbers come from ONE run on a shared machine that other processes may',
    'load; compare ratios more than absolute times, and rerun before drawing conclusions from a small difference.',
    '',
    '## Machine and repository',
    '',
    `- Machine: ${m.nproc} CPUs, ${m.cpu}; Node ${m.node}; git ${m.git}; ${m.date}.`,
    `- Repository: \`bench/make-repo.mjs\` defaults, a bare repository with ${int(repoInfo.files)} files in ${int(repoInfo.directories)} directories (up to ${repoInfo.maxDirectoryDepth} deep), ${int(repoInfo.commits)} commits, ${int(repoInfo.objects)} objects of which ${int(repoInfo.deltifiedObjects)} deltified, one ${(repoInfo.packBytes / 1e6).toFixed(1)} MB pack; \`main\` is \`${repoInfo.head}\`.`,
    `- The file read: \`${picks.target.path}\` (${int(picks.target.size)} bytes, 5 directories deep, ${picks.target.chain > 0 ? `a delta in the pack at chain depth ${picks.target.chain}` : 'not a delta in the pack'}).`,
    `- Runs: median of ${opts.runs} measured runs per side and case, after one discarded warm-up each; forge and git alternate. Warm reads: the median of ${int(opts.warmIterations)} reads per run.`,
    '',
    '## Results',
    '',
    `Targets met: ${met.filter((r) => r.met === 'yes').length} of ${met.length}.`,
    '',
    '| case | forge (ms) | git (ms) | `node -e 0` (ms) | forge/git | own: (forge − node)/git | forge peak RSS (MiB) | git peak RSS (MiB) | target | met |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
    ...table.map((r) => `| ${r.label} | ${r.forge} | ${r.git} | ${r.node} | ${r.ratio} | ${r.own} | ${r.forgeRss} | ${r.gitRss} | ${r.target} | ${r.met} |`),
    '',
    "Whole-process cases run `node -e 0` in the same rounds (forge, git, node -e 0, ...): \"own\" is forge's own time over git's, (forge − node -e 0) / git (issue 30). Where their time goes (medians of the measured forge runs, ms; `FORGE_TIMING_FILE` marks, src/cli/phase-timing.ts; bench/lib/phases.mjs says what each phase holds):",
    '',
    '| case | runtime start | bundle load | command | repository open | work + output |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...table.filter((r) => r.phases).map((r) => `| ${r.key} | ${['runtime', 'bundle', 'command', 'open', 'work'].map((k) => (r.phases[k] == null ? '—' : r.phases[k].toFixed(1))).join(' | ')} |`),
    '',
    '## How to read this',
    '',
    'Times are medians in milliseconds; "forge/git" is forge\'s median over git\'s, so below 1x forge is faster. Peak RSS',
    'is the largest of the measured runs. "Whole process" cases time a complete `forge` command (Node start-up, the',
    'code-cached bundle, opening the repository, the work, exit) against complete git commands. "In-process" cases time',
    'the library call alone inside a Node process that has already loaded forge, and compare it with the same git',
    'command as a whole process, since git has no in-process form; their RSS is the whole Node process\'s. A target',
    'marked **no** is a regression to look at, not a flaky test: the bench checks every result, so a fast wrong answer',
    'cannot pass.',
    '',
    '## Notes',
    '',
    ...CASES.flatMap((c) => c.notes(ctx)),
    '- **Checks**: every turn commit is its branch\'s tip, has the right parent, changes exactly the written paths (plus the session file for forge) and holds the written bytes; `git fsck --strict` of the repository is clean at the end (dangling objects allowed). The bench works on a copy of the benchmark repository, deleted afterwards.',
    `- Peak RSS of whole processes: ${TIME_BIN ? '`/usr/bin/time -f %M`' : 'n/a (no /usr/bin/time on this machine)'}; in-process: \`process.resourceUsage().maxRSS\` of the child process.`,
    '',
  ];
  // The hand-written part: what each optimization bought, and the targets not met.
  const history = join(ROOT, 'bench', 'optimizations.md');
  if (existsSync(history)) lines.push(readFileSync(history, 'utf8'));
  return lines.join('\n');
}

function printTable(table) {
  const header = ['case', 'forge ms', 'git ms', 'node ms', 'forge/git', 'own', 'forge MiB', 'git MiB', 'target', 'met'];
  const body = table.map((r) => [r.label.replace(/`/g, ''), r.forge, r.git, r.node, r.ratio, r.own, r.forgeRss, r.gitRss, r.target, r.met.replace(/\*/g, '')]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const fmt = (row) => row.map((cell, i) => (i === 0 || i >= 8 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(fmt(header));
  for (const row of body) console.log(fmt(row));
}

// ---------- main ----------

// ---------- a fleet of agents on one git server (bench/remote-fleet.mjs) ----------

/** 32 workers x 20 turns with forge run --push against git http-backend (--quick: 4 x 3); fails the bench if a check fails. */
function remoteFleet(opts) {
  const size = opts.quick ? ['--workers', '4', '--turns', '3'] : ['--workers', '32', '--turns', '20'];
  log(`remote fleet: ${size[1]} workers x ${size[3]} turns through git http-backend`);
  const result = spawnSync(process.execPath, [join(ROOT, 'bench', 'remote-fleet.mjs'), ...size, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: MAX_BUFFER });
  check(result.status === 0, `bench/remote-fleet.mjs failed (exit ${result.status}): ${result.stdout}`);
  const fleet = JSON.parse(result.stdout);
  console.log(`\nremote fleet: ${fleet.turnsPushed} turns in ${fleet.seconds} s (${fleet.turnsPerSecond} turns/s), ${fleet.lost} lost, ${fleet.corrupt} corrupt; bytes per turn: forge ${fleet.forge.bytesPerTurn}, git push ${fleet.git.bytesPerTurn}`);
  return fleet;
}

function remoteFleetMarkdown(f) {
  return `
## A fleet on one git server

\`bench/remote-fleet.mjs\` (run by \`npm run bench\`): ${f.workers} worker processes, each with its own clone, run ${f.turns} scripted turns each with
\`forge run --script … --push\` in parallel against one \`git http-backend\` (basic auth), then one repository fetches
every session and merges it into main. Checked: ${f.turnsPushed} turns on the server, ${f.lost} lost, ${f.corrupt} fsck problems,
${f.mergesEqualToMergeTree} of ${f.workers} merge trees equal to \`git merge-tree --write-tree\`'s.

| | turns | wall time | turns/s | receive-pack requests | bytes sent | bytes per turn |
| --- | --- | --- | --- | --- | --- | --- |
| forge run --push | ${f.turnsPushed} | ${f.seconds} s | ${f.turnsPerSecond} | ${f.forge.pushes} | ${f.forge.bytes} | ${f.forge.bytesPerTurn} |
| git push, the same commits one turn at a time | ${f.turnsPushed} | ${f.git.seconds} s (pushes only) | | ${f.git.pushes} | ${f.git.bytes} | ${f.git.bytesPerTurn} |

forge's wall time includes running the turns (the agent loop, the tools, the commits); git's is the pushes alone.
The times depend on what else the shared machine runs; the bytes do not. Before push sent deltas (whole objects
only), the same fleet sent 3,520 bytes per turn, 3.1× git push (measured 2026-11-24): the session's state file grew
every turn and travelled whole. With each changed blob and tree sent as a REF_DELTA against the same path's previous
version (\`src/remote/delta-encoder.ts\`), forge sends what git push's thin packs send.
`;
}

/** bench/real-like.mjs with the same forge and runs; it replaces its own section of the document. A failed check fails the bench. */
function realLike(opts) {
  const args = ['--forge-bin', opts.forgeBin, '--runs', String(opts.runs), ...(opts.quick ? ['--quick'] : []), ...(opts.out ? ['--out', opts.out] : [])];
  log(`real-like repository: node bench/real-like.mjs ${args.join(' ')}`);
  const result = spawnSync(process.execPath, [join(ROOT, 'bench', 'real-like.mjs'), ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  check(result.status === 0, `bench/real-like.mjs failed (exit ${result.status})`);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const started = Date.now();
  ensureBuilt();
  const repoInfo = makeRepo();
  const work = join(ROOT, 'bench', '.work', `run-${process.pid}`);
  const gitdir = join(work, 'repo.git');
  const dist = join(work, 'dist');
  // forge's code cache of this run's own (HOME is the shared tmpdir: another checkout's forge would replace it).
  BASE_ENV.XDG_CACHE_HOME = join(work, 'cache');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  cpSync(join(ROOT, 'dist'), dist, { recursive: true });
  opts.forgeBin ??= join(dist, 'cli.cjs'); // package.json's bin
  check(existsSync(opts.forgeBin), `${opts.forgeBin} does not exist`);
  const cleanup = () => {
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
  };
  process.on('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  try {
    log(`copying the repository to ${relative(ROOT, gitdir)}`);
    cpSync(repoInfo.path, gitdir, { recursive: true });
    const repo = inspectRepo(gitdir);
    const picks = pickFiles(repo);
    const allTurnFiles = [...new Set(Object.values(picks.turnSets).flatMap((s) => s.modified))];
    const blobs = readBlobs(gitdir, [picks.target.oid, ...picks.siblings.map((f) => f.oid), ...allTurnFiles.map((f) => f.oid)]);
    const expectedPaths = repo.files.map((f) => f.path);
    const depths = [...new Set(picks.turnSets[1000].modified.map((f) => depthOfPath(f.path)))].sort();
    const turnDepths = `N−1 existing files modified (for N=1: the file read above), spread over the sorted path list (directory depths ${depths[0]}–${depths[depths.length - 1]}), plus one new file in the read file's directory`;
    log(`file read: ${picks.target.path} (${picks.target.size} bytes, delta chain ${picks.target.chain}); runs: ${opts.runs} + 1 warm-up per side`);

    const timingFile = join(work, 'forge-timing.jsonl');
    const mainOid = run('git', [`--git-dir=${gitdir}`, 'rev-parse', 'main']).trim();
    const ctx = {
      opts, gitdir, work, dist, picks, blobs, expectedPaths, turnDepths, mainOid, ROOT, BASE_ENV, GIT_TURN, log, check, run, timeProcess,
      turns: [], // every turn commit, validated at the end
      measure: createMeasure({ log, node: () => timeProcess(process.execPath, ['-e', '0'], { env: BASE_ENV }), timingFile }),
      inproc: (args) => inprocIn(args, dist),
      /** A timed forge process (its phases recorded). */
      forgeCli: (args) => timeProcess(process.execPath, [opts.forgeBin, ...args], { env: { ...BASE_ENV, FORGE_TIMING_FILE: timingFile } }),
      gitProc: (args, encoding) => timeProcess('git', [`--git-dir=${gitdir}`, ...args], { encoding }),
      /** A branch at main per run, made before the timing. */
      gitBranches: (prefix, count = opts.runs + 1) => {
        const names = Array.from({ length: count }, (_, i) => `bench/${prefix}-${i}`);
        run('git', [`--git-dir=${gitdir}`, 'update-ref', '--stdin'], { input: names.map((b) => `create refs/heads/${b} ${mainOid}\n`).join('') });
        return names;
      },
    };
    const cases = {};
    for (const c of CASES) Object.assign(cases, c.run(ctx));
    const turns = ctx.turns;

    log(`validating ${turns.length} turn commits and running git fsck --strict`);
    validateTurns(gitdir, turns);
    fsck(gitdir);

    const table = tableRows(cases, ctx);
    const fleet = remoteFleet(opts);
    console.log('');
    printTable(table);
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    console.log(`\nbench: ${seconds} s; all checks passed (${turns.length} turn commits, git fsck --strict clean).`);
    if (opts.out) {
      if (opts.runs < 5) log(`warning: ${opts.runs} runs; the issue asks for medians of at least 5`);
      mkdirSync(dirname(opts.out), { recursive: true });
      // The browser figures (npm run bench:browser) and the inspector's section
      // (bench/inspect-bench.mjs) are kept as they are.
      const previous = existsSync(opts.out) ? readFileSync(opts.out, 'utf8') : '';
      const browser = previous ? browserSectionOf(previous) : '';
      const inspect = /<!-- inspect-bench:begin -->[\s\S]*<!-- inspect-bench:end -->/.exec(previous)?.[0];
      const real = /<!-- real-like:start -->[\s\S]*<!-- real-like:end -->/.exec(previous)?.[0]; // bench/real-like.mjs's
      writeFileSync(opts.out, markdown({ opts, repoInfo, picks, table, m: machine(), ctx }) + remoteFleetMarkdown(fleet) + (browser ? `\n${browser}` : '') + (inspect ? `\n${inspect}\n` : '') + (real ? `\n${real}\n` : ''));
      log(`wrote ${relative(ROOT, opts.out)}`);
    }
    if (opts.real) realLike(opts);
  } finally {
    cleanup();
  }
}

main().catch((error) => {
  console.error(`bench: FAILED: ${error.stack ?? error}`);
  process.exitCode = 1;
});
