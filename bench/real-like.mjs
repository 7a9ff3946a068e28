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
 *                            [--case NAME[,NAME...]] [--repo GITDIR | --files N --commits N --big-file BYTES --dirs N]
 *
 * --runs N     measured runs per side and case (default 7), after one discarded warm-up each.
 * --quick      2 runs, and docs/PERFORMANCE.md is NOT written (unless --out is given).
 * --repo DIR   a repository to use as it is (bare, branch main) instead of building one.
 * --files/--commits/--big-file/--dirs  passed to make-repo --profile real (a smaller variant,
 *              e.g. --files 3000 --commits 500 --big-file 5000000 while developing).
 * --forge-bin  the forge executable (default: a snapshot of dist/cli.cjs, the bin, built first when dist/
 *              is older than src/, as scripts/bench.mjs does); its directory is the dist used.
 * --keep       keep the working copy (bench/.work/real-run-<pid>).
 * --case NAME  only these cases (bench/cases/real/<NAME>.mjs: merge, diff-stat, ls, cat, session-new,
 *              turn, big-edit, workspace, blame); docs/PERFORMANCE.md is then not written (unless --out).
 *
 * Every case also runs `node -e 0` in its rounds (forge, git, node -e 0, ...): the table gives
 * forge's own time ((forge − node -e 0) / git, issue 30) beside the plain ratio, and where forge's
 * time goes (bench/lib/phases.mjs, from the forge runs' FORGE_TIMING_FILE marks).
 *
 * Every forge result is checked against git's: merge trees and conflicted paths, `--stat`
 * output byte for byte, listings byte for byte, file bytes, every turn commit's parent, changed
 * paths and blob oids, and `git fsck --strict` at the end. A failed check is reported loudly,
 * marked in the table, and the script exits 1 (after measuring the other cases).
 */
import * as kit from './bench-kit.mjs';
import { HERMETIC_ENV } from './git-env.mjs';
import { inspectRepo, MAX_BUFFER, readBlobs } from './bench-kit.mjs';
import { createChecks, distinct } from './lib/checks.mjs';
import { fmtKiB, fmtMs, fmtRatio, fmtRss, ownRatioOf, printTable, ratioOf, withSpan } from './lib/format.mjs';
import { createMeasure } from './lib/measure.mjs';
import { fmtPhases } from './lib/phases.mjs';
import { buildScenario } from './lib/real-scenario.mjs';
import { validateTurns } from './lib/turn-commits.mjs';
import * as merge from './cases/real/merge.mjs';
import * as diffStat from './cases/real/diff-stat.mjs';
import * as ls from './cases/real/ls.mjs';
import * as cat from './cases/real/cat.mjs';
import * as sessionNew from './cases/real/session-new.mjs';
import * as turn from './cases/real/turn.mjs';
import * as bigEdit from './cases/real/big-edit.mjs';
import * as workspace from './cases/real/workspace.mjs';
import * as blame from './cases/real/blame.mjs';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REAL_START = '<!-- real-like:start -->';
export const REAL_END = '<!-- real-like:end -->';

/** The cases, in the order they run and appear in the table (bench/README.md: how to add one). */
export const CASES = [merge, diffStat, ls, cat, sessionNew, turn, bigEdit, workspace, blame];

// ---------- arguments ----------

function parseArgs(argv) {
  const opts = { runs: 7, quick: false, keep: false, forgeBin: undefined, out: undefined, repo: undefined, make: [], cases: null };
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
    else if (arg === '--case') opts.cases = [...(opts.cases ?? []), ...(argv[++i] ?? fail('--case needs a name')).split(',')];
    else if (['--files', '--commits', '--big-file', '--dirs', '--seed'].includes(arg)) opts.make.push(arg, argv[++i] ?? fail(`${arg} needs a value`));
    else fail(`unknown argument ${arg}`);
  }
  if (opts.repo && opts.make.length > 0) fail('--repo and make-repo options exclude each other');
  for (const name of opts.cases ?? []) if (!CASES.some((c) => c.name === name)) fail(`no case ${name}; the cases: ${CASES.map((c) => c.name).join(', ')}`);
  if (opts.quick) {
    if (!runsGiven) opts.runs = 2;
  } else if (!opts.cases) {
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

function makeRepo(opts) {
  const args = [join(ROOT, 'bench', 'make-repo.mjs'), '--profile', 'real', ...opts.make];
  log(`building (or reusing) the real-like repository: node bench/make-repo.mjs --profile real ${opts.make.join(' ')}`.trimEnd());
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.status !== 0) fail('bench/make-repo.mjs failed');
  return JSON.parse(result.stdout);
}

function fsck(ctx) {
  const result = spawnSync('git', [`--git-dir=${ctx.gitdir}`, 'fsck', '--strict', '--no-progress'], { env: ENV, encoding: 'utf8', maxBuffer: MAX_BUFFER });
  const problems = `${result.stdout}\n${result.stderr}`.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('dangling '));
  ctx.check('fsck', result.status === 0 && problems.length === 0, `git fsck --strict:\n${problems.slice(0, 20).join('\n')}`);
}

// ---------- report ----------

function tableRows(cases, ctx, selected) {
  const rows = [{ key: 'nodeStart', label: "Node's bare start, `node -e 0` (no forge command is faster)" }, ...selected.flatMap((c) => c.rows(ctx))];
  return rows.map(({ key, label, check: checkKey, target }) => {
    const c = cases[key];
    const ch = checkKey ? ctx.checks.entries.get(checkKey) : null;
    const disk = c.unit === 'KiB';
    const own = ownRatioOf(c);
    const met = target ? (target.own != null ? own != null && own <= target.own : target.met(c)) : null;
    return {
      key,
      label,
      forge: disk ? fmtKiB(c.forge) : withSpan(c.forge, c.forgeSpan),
      git: disk ? fmtKiB(c.git) : withSpan(c.git, c.gitSpan),
      node: disk ? '' : fmtMs(c.node),
      ratio: disk && c.forge != null && c.git ? `1/${Math.round(c.git / Math.max(1, c.forge))}` : fmtRatio(ratioOf(c)),
      own: disk ? '' : fmtRatio(own),
      forgeRss: fmtRss(c.forgeRss),
      gitRss: fmtRss(c.gitRss),
      target: target?.text ?? '',
      met: target ? (met ? 'yes' : '**no**') : '',
      checked: ch == null ? (checkKey ? '—' : '') : ch.failed.length > 0 ? `**DIFFERS** (${ch.failed.length})` : `equal (${ch.passed})`,
      phases: c.phases ?? null,
    };
  });
}

function machine(loadAtStart) {
  const cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
  const load = (l) => l.map((x) => x.toFixed(1)).join(' / ');
  return { nproc: run('nproc', []).trim(), cpu, node: process.version, git: run('git', ['--version']).trim().replace(/^git version /, ''), date: new Date().toISOString().slice(0, 10), load: `${load(loadAtStart)} at the start, ${load(loadavg())} at the end` };
}

function section({ opts, info, table, m, ctx, seconds, selected }) {
  const int = (n) => n.toLocaleString('en-US');
  const withTarget = table.filter((r) => r.target !== '');
  const failed = ctx.checks.failed();
  const total = ctx.checks.total();
  const build = info.buildSeconds ? `generated in ${info.buildSeconds.total} s (fast-import ${info.buildSeconds.import} s, repack ${info.buildSeconds.repack} s)` : 'given with --repo';
  const lines = [
    REAL_START,
    '## Real-like repository (issue 19)',
    '',
    'Generated by `npm run bench:real` (bench/real-like.mjs, also run at the end of `npm run bench`); do not edit by hand.',
    'Every case is a whole process on both sides, forge, git and `node -e 0` alternating in the same run, in bench/git-env.mjs\'s',
    'environment (no `NODE_EXTRA_CA_CERTS`, no user or system git config). One run on a shared machine: absolute times move with',
    'the load of the other processes, but the three sides of a case share it, so read the ratios.',
    '',
    `- Machine: ${m.nproc} CPUs, ${m.cpu}; Node ${m.node}; git ${m.git}; ${m.date}; load average (1 / 5 / 15 min) ${m.load}. Node's bare start (\`node -e 0\`): ${fmtMs(ctx.cases.nodeStart.forge)}.`,
    `- Repository: ${info.path ? `\`bench/make-repo.mjs --profile real${opts.make.length ? ` ${opts.make.join(' ')}` : ''}\`` : 'given'}, ${build}: ${int(info.files)} files in ${int(info.directories)} directories (mean depth ${info.meanFileDepth ?? '?'}, up to ${info.maxDirectoryDepth}), ${int(info.commits)} commits, ${int(info.objects)} objects (${int(info.treeObjects ?? 0)} trees; ${int(info.deltifiedObjects)} deltified, delta chains median ${info.deltaChain?.median ?? '?'}, 90th percentile ${info.deltaChain?.p90 ?? '?'}, max ${info.deltaChain?.max ?? '?'}), one ${(info.packBytes / 2 ** 20).toFixed(1)} MiB pack with a ${(info.idxBytes / 2 ** 20).toFixed(1)} MiB .idx; ${(info.bytesAtHead / 1e6).toFixed(0)} MB of files at \`main\` (\`${info.head}\`), among them \`${ctx.scenario.big.path}\` (${int(ctx.scenario.big.size)} bytes of text).`,
    `- Runs: median of ${opts.runs} measured rounds per case (in parentheses: the fastest and the slowest), after one discarded warm-up; each round runs forge, git and \`node -e 0\`. "own" is forge's own time over git's, (forge − node -e 0 of the same case) / git (issue 30: git's whole run is often shorter than Node's start). Peak RSS: the largest of the measured runs (\`/usr/bin/time -f %M\`; for a script, its largest process). Whole bench: ${seconds} s.`,
    `- Checks: ${total} comparisons with git, ${failed.length === 0 ? '**all equal**' : `**${failed.reduce((n, [, c]) => n + c.failed.length, 0)} FAILED** (${failed.map(([k]) => k).join(', ')}): forge's result differs from git's, a correctness bug (see below)`}. Targets met: ${withTarget.filter((r) => r.met === 'yes').length} of ${withTarget.length}.`,
    '',
    '| case | forge median (fastest–slowest) | git median (fastest–slowest) | `node -e 0` | forge/git | own: (forge − node)/git | forge peak RSS | git peak RSS | target | met | result vs git |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |',
    ...table.map((r) => `| ${r.label.replace(/\|/g, '\\|')} | ${r.forge} | ${r.git} | ${r.node} | ${r.ratio} | ${r.own} | ${r.forgeRss} | ${r.gitRss} | ${r.target} | ${r.met} | ${r.checked} |`),
    '',
    'Where forge\'s time goes (medians of the measured forge runs, ms; from `FORGE_TIMING_FILE` marks, src/cli/phase-timing.ts): runtime start = Node up to the launcher\'s first statement; bundle load = reading and running the code-cached bundle up to the CLI\'s entry; command = its module and the argument parser; repository open; work + output = the rest up to the exit (a process also spends a few ms after that, in its exit and in the spawn that the wall time includes).',
    '',
    '| case | runtime start | bundle load | command | repository open | work + output |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...table.filter((r) => r.phases).map((r) => `| ${r.key} | ${['runtime', 'bundle', 'command', 'open', 'work'].map((k) => (r.phases[k] == null ? '—' : r.phases[k].toFixed(1))).join(' | ')} |`),
    '',
    'What each case does and checks:',
    '',
    ...selected.flatMap((c) => c.notes(ctx)),
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

function print(table) {
  printTable(
    ['case', 'forge', 'git', 'node -e 0', 'forge/git', 'own', 'forge RSS', 'git RSS', 'target', 'met', 'vs git'],
    table.map((r) => [r.key, r.forge, r.git, r.node, r.ratio, r.own, r.forgeRss, r.gitRss, r.target, r.met.replace(/\*/g, ''), r.checked.replace(/\*/g, '')]),
    8,
  );
  const timed = table.filter((r) => r.phases);
  if (timed.length > 0) {
    console.log('\nwhere forge\'s time goes (ms):');
    for (const r of timed) console.log(`  ${r.key.padEnd(14)} ${fmtPhases(r.phases)}`);
  }
}

// ---------- main ----------

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const loadAtStart = loadavg();
  if (!opts.forgeBin) kit.ensureBuilt(log, fail);
  const info = opts.repo ? { ...JSON.parse(readFileSync(join(opts.repo, 'forge-bench-stamp.json'), 'utf8')).summary, path: null } : makeRepo(opts);
  const work = join(ROOT, 'bench', '.work', `real-run-${process.pid}`);
  const gitdir = join(work, 'repo.git');
  // forge's code cache (scripts/cli-launcher.cjs) of this run's own: HOME is the shared tmpdir, where
  // another build's forge (another checkout's bench) would replace it and make every run compile again.
  ENV.XDG_CACHE_HOME = join(work, 'cache');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  let dist;
  if (opts.forgeBin) dist = dirname(opts.forgeBin);
  else {
    dist = join(work, 'dist'); // a snapshot: a concurrent `npm run build` cannot change forge under the bench
    cpSync(join(ROOT, 'dist'), dist, { recursive: true });
  }
  const forgeBin = opts.forgeBin ?? join(dist, 'cli.cjs'); // package.json's bin
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
    const scenario = buildScenario(gitdir, repo, blobsOf, opts.runs, run);
    const catCandidates = repo.files.filter((f) => f.mode === '100644' && f.size >= 1000 && f.size <= 16_000);
    for (const f of catCandidates) f.chain = repo.depthOf(f.oid);
    catCandidates.sort((a, b) => b.chain - a.chain || (a.path < b.path ? -1 : 1));
    const timingFile = join(work, 'forge-timing.jsonl');
    const checks = createChecks('real-like');
    const node = () => timeProcess(process.execPath, ['-e', '0']);
    const ctx = {
      opts, runs: opts.runs, gitdir, work, dist, forgeBin, repo, scenario, blobsOf, catTarget: catCandidates[0], ENV, log, run, timeProcess,
      INPROC: join(ROOT, 'bench', 'inproc.mjs'),
      GIT_TURN: join(ROOT, 'bench', 'git-turn.sh'),
      GIT_BIG_EDIT: join(ROOT, 'bench', 'git-big-edit.sh'),
      GIT_WORKTREE_TURN: join(ROOT, 'bench', 'git-worktree-turn.sh'),
      checks,
      check: checks.check,
      measure: createMeasure({ log, node, timingFile }),
      /** A timed forge process on the bench's repository (its phases recorded). */
      forge: (args, options = {}) => timeProcess(process.execPath, [forgeBin, ...args, '--repo', gitdir], { env: { ...ENV, FORGE_TIMING_FILE: timingFile }, ...options }),
      git: (args, options = {}) => timeProcess('git', [`--git-dir=${gitdir}`, ...args], options),
      gitOut: (args, options = {}) => run('git', [`--git-dir=${gitdir}`, ...args], options),
      turns: [], // every turn commit, validated at the end
    };
    log(`forge: ${relative(ROOT, forgeBin)}; runs: ${opts.runs} + 1 warm-up per side`);

    const selected = opts.cases ? CASES.filter((c) => opts.cases.includes(c.name)) : CASES;
    // Node's own start: what no forge command can go below.
    const cases = { nodeStart: ctx.measure('node -e 0', opts.runs, { forge: node, withNode: false }) };
    for (const c of selected) Object.assign(cases, c.run(ctx));
    ctx.cases = cases;

    log(`validating ${ctx.turns.length} turn commits and running git fsck --strict`);
    validateTurns(ctx, ctx.turns);
    fsck(ctx);

    const table = tableRows(cases, ctx, selected);
    // Every measured run of every case, for a closer look (bench/.work is not committed).
    const raw = Object.fromEntries(Object.entries(cases).map(([k, c]) => [k, c.results ? { forge: c.results.forge.map(({ stdout, ...r }) => r), git: c.results.git.map(({ stdout, ...r }) => r), node: c.results.node.map(({ stdout, ...r }) => r), phases: c.phases } : c]));
    writeFileSync(join(ROOT, 'bench', '.work', 'real-like-last.json'), `${JSON.stringify({ info, runs: opts.runs, raw, checks: Object.fromEntries(checks.entries) }, null, 1)}\n`);
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    console.log('');
    print(table);
    const failed = checks.failed();
    const total = checks.total();
    if (opts.out) {
      if (opts.runs < 7) log(`warning: ${opts.runs} runs; the issue asks for medians of at least 7`);
      const previous = existsSync(opts.out) ? readFileSync(opts.out, 'utf8') : '# Performance\n';
      writeFileSync(opts.out, withRealSection(previous, section({ opts, info, table, m: machine(loadAtStart), ctx, seconds, selected })));
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
