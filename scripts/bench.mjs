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
import { MAX_BUFFER, TIME_BIN, inspectRepo, median, readBlobs, sha1 } from '../bench/bench-kit.mjs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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
const BASE_ENV = HERMETIC_ENV;
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

/** The new content of every file of a turn: a first line naming the run, then the old content. */
function turnContents(set, blobs, tag) {
  const header = `// forge-bench ${tag}\n`;
  const files = set.modified.map((f) => {
    const old = blobs.get(f.oid);
    const text = old.toString('utf8');
    check(Buffer.from(text, 'utf8').equals(old), `${f.path} is not UTF-8 text`);
    return { path: f.path, content: header + text };
  });
  if (set.added) files.push({ path: set.added, content: `${header}export const added = true;\n` });
  return files;
}

// ---------- the cases ----------

/**
 * Runs one case: a discarded warm-up per side, then `runs` measured runs, alternating forge and
 * git. Each side is a function (run index) -> { ms, rssKiB, ...extra }.
 */
function measure(name, runs, forge, git) {
  const results = { forge: [], git: [] };
  for (let i = 0; i <= runs; i++) {
    const f = forge(i);
    const g = git(i);
    if (i > 0) {
      results.forge.push(f);
      results.git.push(g);
    }
  }
  const summary = (list, key = 'ms') => (list.length && list[0][key] != null ? median(list.map((r) => r[key])) : null);
  const rss = (list) => (list.every((r) => r.rssKiB != null) ? Math.max(...list.map((r) => r.rssKiB)) : null);
  const out = { forge: summary(results.forge), git: summary(results.git), forgeRss: rss(results.forge), gitRss: rss(results.git), results };
  log(`${name}: forge ${fmtMs(out.forge)} ms, git ${fmtMs(out.git)} ms`);
  return out;
}

function runBench(opts, gitdir, work, dist, picks, blobs, expectedPaths) {
  const inproc = (args) => inprocIn(args, dist);
  const { target, siblings, turnSets } = picks;
  const forgeCli = (args) => timeProcess(process.execPath, [opts.forgeBin, ...args], { env: BASE_ENV });
  const gitProc = (args, encoding) => timeProcess('git', [`--git-dir=${gitdir}`, ...args], { encoding });
  const targetBytes = blobs.get(target.oid);
  const expectedListSha = sha1(Buffer.from([...expectedPaths].sort().join('\n')));
  const cases = {};
  const turns = []; // every turn commit, validated at the end

  // open + read one file, whole process
  cases.readProcess = measure('open + read one file (process)', opts.runs,
    () => {
      const r = forgeCli(['cat', target.path, '--repo', gitdir, '--rev', 'main']);
      check(r.stdout.equals(targetBytes), 'forge cat output differs from the blob');
      return r;
    },
    () => {
      const r = gitProc(['cat-file', 'blob', `main:${target.path}`], 'buffer');
      check(r.stdout.equals(targetBytes), 'git cat-file output differs');
      return r;
    });

  // open + read one file, in-process (cold) vs the git process
  cases.readInproc = measure('open + read one file (in-process)', opts.runs,
    () => {
      const r = inproc(['read-cold', gitdir, target.path]);
      check(r.sha1 === sha1(targetBytes), 'in-process cold read returned other bytes');
      return { ms: r.ms, rssKiB: r.maxRSS };
    },
    () => gitProc(['cat-file', 'blob', `main:${target.path}`], 'buffer'));

  // warm read by path: one open view / one cat-file --batch
  const warmArgs = [gitdir, String(opts.warmIterations), target.path, ...siblings.map((s) => s.path)];
  const expectedDigests = Object.fromEntries([target, ...siblings].map((f) => [f.path, sha1(blobs.get(f.oid))]));
  const warm = measure('warm read by path', opts.runs,
    () => {
      const r = inproc(['read-warm', ...warmArgs]);
      check(JSON.stringify(r.digests) === JSON.stringify(expectedDigests), 'warm reads returned other bytes');
      return { ms: r.ms, rotatingMs: r.rotatingMs, rssKiB: r.maxRSS };
    },
    () => {
      const r = inproc(['git-warm', ...warmArgs]);
      check(JSON.stringify(r.digests) === JSON.stringify(expectedDigests), 'git cat-file --batch returned other bytes');
      return { ms: r.ms, rotatingMs: r.rotatingMs, rssKiB: r.gitRSS };
    });
  cases.warmSame = warm;
  cases.warmRotating = {
    ...warm,
    forge: median(warm.results.forge.map((r) => r.rotatingMs)),
    git: median(warm.results.git.map((r) => r.rotatingMs)),
  };

  // list all files, whole process
  cases.listProcess = measure('list all files (process)', opts.runs,
    () => {
      const r = forgeCli(['ls', '--repo', gitdir, '--rev', 'main']);
      const paths = r.stdout.toString('utf8').split('\n').filter(Boolean);
      check(paths.length === expectedPaths.length, `forge ls printed ${paths.length} paths, git ${expectedPaths.length}`);
      check(sha1(Buffer.from(paths.sort().join('\n'))) === expectedListSha, 'forge ls printed other paths than git ls-tree');
      return { ms: r.ms, rssKiB: r.rssKiB };
    },
    () => {
      const r = gitProc(['ls-tree', '-r', '--name-only', 'main'], 'buffer');
      check(r.stdout.toString('utf8').split('\n').filter(Boolean).length === expectedPaths.length, 'git ls-tree printed another count');
      return { ms: r.ms, rssKiB: r.rssKiB };
    });

  // list all files, in-process (cold walk) vs the git process
  cases.listInproc = measure('list all files (in-process)', opts.runs,
    () => {
      const r = inproc(['list', gitdir]);
      check(r.files === expectedPaths.length && r.pathsSha1 === expectedListSha, `CommitVfs.walk('') listed ${r.files} files, or other paths than git`);
      return { ms: r.ms, rssKiB: r.maxRSS };
    },
    () => gitProc(['ls-tree', '-r', '--name-only', 'main'], 'buffer'));

  // The same, but the first listing of the tree ever: the stored path map is removed each time.
  cases.listFirst = measure('list all files, first listing (in-process)', opts.runs,
    () => {
      rmSync(join(gitdir, 'forge', 'cache', 'paths'), { recursive: true, force: true });
      const r = inproc(['list', gitdir]);
      check(r.files === expectedPaths.length && r.pathsSha1 === expectedListSha, `CommitVfs.walk('') listed ${r.files} files, or other paths than git`);
      return { ms: r.ms, rssKiB: r.maxRSS };
    },
    () => gitProc(['ls-tree', '-r', '--name-only', 'main'], 'buffer'));

  // The text engine (issue 3): Edit on a 1 MB file, Patch with 50 operations on 10,000 lines.
  log('text engine: Edit on a 1 MB file, Patch with 50 operations on a 10,000-line file');
  const text = JSON.parse(run(process.execPath, [join(ROOT, 'bench', 'text-bench.mjs'), String(Math.max(20, opts.runs * 3))], { env: { ...process.env, FORGE_BENCH_DIST: dist } }));
  for (const [key, ms] of [['textEdit', text.engineEdit], ['textLadder', text.ladderAdded], ['textPatch', text.enginePatch], ['toolEdit', text.toolEdit], ['toolPatch', text.toolPatch]]) {
    cases[key] = { forge: ms, git: null, forgeRss: null, gitRss: null };
  }

  // Repository tools (issue 18): a warm call reading and writing one file vs write_file; first load.
  log('repository tools: a warm call that reads and writes one file vs write_file; first load of a tool');
  const repoTool = JSON.parse(run(process.execPath, [join(ROOT, 'bench', 'repo-tool-bench.mjs'), String(Math.max(20, opts.runs * 3))], { env: { ...process.env, FORGE_BENCH_DIST: dist } }));
  cases.repoToolCall = { forge: repoTool.repoToolMs, git: null, forgeRss: null, gitRss: null };
  cases.repoToolWriteFile = { forge: repoTool.writeFileMs, git: null, forgeRss: null, gitRss: null };
  cases.repoToolOverhead = { forge: repoTool.overheadMs, git: null, forgeRss: null, gitRss: null, best: repoTool.overheadMinMs };
  cases.repoToolFirstLoad = { forge: repoTool.firstLoadMs, git: null, forgeRss: null, gitRss: null };

  // Merging two sessions of 100 turns touching 500 files each (issue 5), vs git merge-tree.
  log('merge: two sessions of 100 turns, 500 files each, vs git merge-tree --write-tree');
  const merge = JSON.parse(run(process.execPath, [join(ROOT, 'bench', 'merge-bench.mjs'), '--repo', gitdir, '--runs', String(Math.max(5, opts.runs))], { env: { ...process.env, FORGE_BENCH_DIST: dist } }));
  check(merge.sameTree, 'forge and git merged to different trees');
  cases.mergeCold = { forge: merge.forgeColdMs, git: merge.gitMergeTreeMs, forgeRss: merge.maxRSS, gitRss: null };
  cases.mergeWarm = { forge: merge.forgeWarmMs, git: merge.gitMergeTreeMs, forgeRss: null, gitRss: null };
  cases.mergeCli = { forge: merge.forgeCliDryRunMs, git: merge.gitMergeTreeMs, forgeRss: null, gitRss: null };

  // turn commits
  const mainOid = run('git', [`--git-dir=${gitdir}`, 'rev-parse', 'main']).trim();
  const gitBranches = (prefix, count = opts.runs + 1) => {
    const names = Array.from({ length: count }, (_, i) => `bench/${prefix}-${i}`);
    run('git', [`--git-dir=${gitdir}`, 'update-ref', '--stdin'], { input: names.map((b) => `create refs/heads/${b} ${mainOid}\n`).join('') });
    return names;
  };
  const gitTurn = (branch, files) => {
    // bench/git-turn.sh reads DIR/blobs (content files) and DIR/paths (their repository paths)
    const dir = join(work, 'turn', branch.replace(/\//g, '-'));
    mkdirSync(join(dir, 'c'), { recursive: true });
    const contentFiles = files.map((f, i) => {
      const file = join(dir, 'c', String(i));
      writeFileSync(file, f.content);
      return file;
    });
    writeFileSync(join(dir, 'blobs'), contentFiles.join('\n') + '\n');
    writeFileSync(join(dir, 'paths'), files.map((f) => f.path).join('\n') + '\n');
    const r = timeProcess('bash', [GIT_TURN, gitdir, branch, dir], { encoding: 'utf8' });
    const commit = r.stdout.trim();
    check(/^[0-9a-f]{40}$/.test(commit), `git-turn.sh printed ${commit}`);
    turns.push({ side: 'git', ref: `refs/heads/${branch}`, commit, parent: mainOid, files: files.map((f) => [f.path, sha1(f.content)]), extra: [] });
    rmSync(dir, { recursive: true, force: true });
    return { ms: r.ms, rssKiB: r.rssKiB };
  };
  const pad = (n) => String(n).padStart(2, '0');

  for (const n of [1, 10, 1000]) {
    const set = turnSets[n];
    // whole `forge turn` process vs the git plumbing script
    const sessionIds = Array.from({ length: opts.runs + 1 }, (_, i) => `bench-p${n}-${i}`);
    const specFile = join(work, `sessions-${n}.json`);
    writeFileSync(specFile, JSON.stringify(sessionIds.map((session) => ({ session, read: set.modified.map((f) => f.path) }))));
    const heads = new Map(inproc(['sessions', gitdir, specFile]).sessions.map((s) => [s.session, s.head]));
    const branches = gitBranches(`p${n}`);
    cases[`turnProcess${n}`] = measure(`turn commit of ${n} file(s) (process)`, opts.runs,
      (i) => {
        const files = turnContents(set, blobs, `F-p-${n}-${pad(i)}`);
        const callsFile = join(work, `calls-${n}-${i}.json`);
        writeFileSync(callsFile, JSON.stringify(files.map((f) => ({ tool: 'write_file', args: { path: f.path, content: f.content } }))));
        const r = forgeCli(['turn', '--repo', gitdir, '--session', sessionIds[i], '--calls', callsFile, '--json']);
        rmSync(callsFile);
        const out = JSON.parse(r.stdout.toString('utf8'));
        check(out.results?.length === files.length && out.results.every((x) => x.ok), `forge turn: a call failed: ${JSON.stringify(out.results?.find((x) => !x.ok) ?? out).slice(0, 500)}`);
        turns.push({ side: 'forge', ref: `refs/heads/forge/session/${sessionIds[i]}`, commit: out.commit, parent: heads.get(sessionIds[i]), files: files.map((f) => [f.path, sha1(f.content)]), extra: [`.forge/sessions/${sessionIds[i]}.json`] });
        return { ms: r.ms, rssKiB: r.rssKiB };
      },
      (i) => gitTurn(branches[i], turnContents(set, blobs, `G-p-${n}-${pad(i)}`)));

    // in-process turn commit vs the same git plumbing script
    const inBranches = gitBranches(`i${n}`);
    cases[`turnInproc${n}`] = measure(`turn commit of ${n} file(s) (in-process)`, opts.runs,
      (i) => {
        const files = turnContents(set, blobs, `F-i-${n}-${pad(i)}`);
        const spec = join(work, `turn-${n}-${i}.json`);
        const session = `bench-i${n}-${i}`;
        writeFileSync(spec, JSON.stringify({ session, files }));
        const r = inproc(['turn', gitdir, spec]);
        rmSync(spec);
        check(r.changes === files.length, `commitTurn reported ${r.changes} changes for ${files.length} writes`);
        turns.push({ side: 'forge', ref: `refs/heads/forge/session/${session}`, commit: r.commit, parent: r.parent, files: files.map((f) => [f.path, sha1(f.content)]), extra: [`.forge/sessions/${session}.json`] });
        return { ms: r.ms, commitMs: r.commitMs, writeMs: r.writeMs, rssKiB: r.maxRSS };
      },
      (i) => gitTurn(inBranches[i], turnContents(set, blobs, `G-i-${n}-${pad(i)}`)));
    cases[`turnCommitOnly${n}`] = { forge: median(cases[`turnInproc${n}`].results.forge.map((r) => r.commitMs)), git: null, forgeRss: null, gitRss: null };
  }

  bigWriteCases(opts, gitdir, work, mainOid, gitBranches, forgeCli, inproc, cases);
  return { cases, turns };
}

// ---------- write_file of a 100 MB text file (issue 12, 7c) ----------

const BIG_PATH = 'big/new-100mb.txt';
const BIG_BYTES = 100_000_000;
/** Issue 12, 7c: a 100 MB write_file through `forge turn --calls` peaks under 3x the file in RSS. */
const BIG_RSS_LIMIT = 3 * BIG_BYTES;
/** Runs per side of the big write rows: fewer than the others, each moves 100 MB several times. */
const bigRuns = (opts) => (opts.quick ? 3 : Math.min(opts.runs, 5));
/** A first line naming the side, input form and run, always this long, so every content is BIG_BYTES. */
const bigHeader = (tag) => `// forge-bench ${tag.padEnd(24)}\n`;
/** The ways the calls file reaches `forge turn`: a path, standard input redirected from the file, a pipe. */
const BIG_FORMS = {
  file: { key: 'bigWriteFile', script: null },
  redirect: { key: 'bigWriteRedirect', script: 'f=$1; shift; exec "$@" <"$f"' },
  pipe: { key: 'bigWritePipe', script: 'set -o pipefail; f=$1; shift; cat -- "$f" | "$@"' },
};

/**
 * BIG_BYTES - header of source-like text (TypeScript-ish lines, string literals with quotes and
 * backslashes, a few non-ASCII characters in comments, so the JSON has escapes and multi-byte
 * UTF-8), from the seeded PRNG; and the same text escaped as a JSON string's inside.
 */
function sourceLikeText(bytes, seed) {
  const rand = kit.prng(seed);
  const ids = ['value', 'index', 'result', 'config', 'buffer', 'options', 'handler', 'request', 'response', 'entry', 'items', 'count', 'offset', 'path', 'state', 'cache', 'token', 'session', 'tree', 'blob'];
  const types = ['string', 'number', 'boolean', 'Buffer', 'Uint8Array', 'Map<string, number>', 'readonly string[]', 'Promise<void>'];
  const words = ['the', 'file', 'is', 'read', 'once', 'then', 'written', 'when', 'its', 'hash', 'changed', 'cache', 'entry', 'for', 'a', 'path', 'café', 'naïve', '→', '—', 'µs'];
  const id = () => `${rand.pick(ids)}${rand.int(0, 99)}`;
  const comment = () => Array.from({ length: rand.int(3, 12) }, () => rand.pick(words)).join(' ');
  const templates = [
    (ind) => `${ind}const ${id()} = ${id()}.${rand.pick(ids)}(${id()}, ${rand.int(0, 4096)});`,
    (ind) => `${ind}if (${id()} === '${rand.pick(words)}') return "${rand.pick(ids)}\\n";`,
    (ind) => `${ind}// ${comment()}`,
    (ind) => `${ind}export function ${id()}(${id()}: ${rand.pick(types)}, ${id()}: ${rand.pick(types)}): ${rand.pick(types)} {`,
    (ind) => `${ind}}`,
    (ind) => `${ind}const re${rand.int(0, 9)} = /^[a-z]+\\d{2,}\\.${rand.pick(ids)}$/;`,
    (ind) => `${ind}throw new Error(\`\${${id()}} is not a ${rand.pick(types)}: "\${${id()}}"\`);`,
    (ind) => `${ind}for (let i = 0; i < ${id()}.length; i++) ${id()}[i] = ${id()}[i] ^ 0x${rand.int(0, 255).toString(16)};`,
    () => '',
  ];
  const chunks = [];
  const escaped = [];
  let lines = [];
  let used = 0;
  const flush = () => {
    const text = lines.join('');
    chunks.push(Buffer.from(text));
    escaped.push(Buffer.from(JSON.stringify(text).slice(1, -1)));
    lines = [];
  };
  for (;;) {
    const line = `${rand.pick(templates)('  '.repeat(rand.int(0, 4)))}\n`;
    const size = Buffer.byteLength(line);
    if (used + size > bytes - 100) break;
    lines.push(line);
    used += size;
    if (lines.length === 10_000) flush();
  }
  lines.push(`// ${'='.repeat(bytes - used - 4)}\n`); // the exact size
  flush();
  const text = Buffer.concat(chunks);
  check(text.length === bytes, `source-like text is ${text.length} bytes, not ${bytes}`);
  return { text, escaped: Buffer.concat(escaped) };
}

/** git hash-object's oid of header + body, computed here. */
const blobOid = (header, body) => createHash('sha1').update(`blob ${header.length + body.length}\0`).update(header).update(body).digest('hex');

/**
 * write_file of a 100 MB text file, whole `forge turn` process, one row per input form of the
 * calls file, against bench/git-turn.sh committing the same content (hash-object -w of it + one
 * commit). New sessions and branches on the benchmark repository's copy; each content is new
 * (its first line names the run); each commit is checked here (its blobs are too big for
 * validateTurns' one cat-file --batch), and by the final git fsck.
 */
function bigWriteCases(opts, gitdir, work, mainOid, gitBranches, forgeCli, inproc, cases) {
  const runs = bigRuns(opts);
  const git = (args) => run('git', [`--git-dir=${gitdir}`, ...args]).trim();
  log(`write_file of a ${BIG_BYTES / 1e6} MB text file: generating the text`);
  const base = sourceLikeText(BIG_BYTES - bigHeader('').length, 7);
  const prefix = Buffer.from(`[{"tool":"write_file","args":{"path":${JSON.stringify(BIG_PATH)},"content":"`);
  const suffix = Buffer.from('"}}]');
  const pad = (n) => String(n).padStart(2, '0');
  const checkCommit = (side, ref, commit, parent, oid, extra) => {
    check(/^[0-9a-f]{40}$/.test(commit ?? ''), `${side} big write: no commit (${commit})`);
    check(git(['rev-parse', ref]) === commit, `${ref} is not the big write's commit ${commit}`);
    check(git(['rev-list', '--parents', '-n', '1', commit]) === `${commit} ${parent}`, `${side} big write ${commit}: parent is not ${parent}`);
    check(git(['rev-parse', `${commit}:${BIG_PATH}`]) === oid, `${side} big write ${commit}: ${BIG_PATH} is not the written content (oid ${oid})`);
    check(Number(git(['cat-file', '-s', `${commit}:${BIG_PATH}`])) === BIG_BYTES, `${side} big write ${commit}: ${BIG_PATH} is not ${BIG_BYTES} bytes`);
    const changed = run('git', [`--git-dir=${gitdir}`, 'diff-tree', '-r', '--no-renames', '--name-only', '-z', parent, commit]).split('\0').filter(Boolean).sort();
    check(JSON.stringify(changed) === JSON.stringify([BIG_PATH, ...extra].sort()), `${side} big write ${commit} changed ${changed.join(', ')}`);
  };

  for (const [form, { key, script }] of Object.entries(BIG_FORMS)) {
    const sessionIds = Array.from({ length: runs + 1 }, (_, i) => `bench-big-${form}-${i}`);
    const specFile = join(work, `sessions-big-${form}.json`);
    writeFileSync(specFile, JSON.stringify(sessionIds.map((session) => ({ session, read: [] }))));
    const heads = new Map(inproc(['sessions', gitdir, specFile]).sessions.map((s) => [s.session, s.head]));
    const branches = gitBranches(`big-${form}`, runs + 1);
    cases[key] = measure(`write_file of a 100 MB file, --calls ${form} (process)`, runs,
      (i) => {
        const header = Buffer.from(bigHeader(`F-${form}-${pad(i)}`));
        const callsFile = join(work, `calls-big-${form}-${i}.json`);
        writeFileSync(callsFile, Buffer.concat([prefix, Buffer.from(JSON.stringify(header.toString()).slice(1, -1)), base.escaped, suffix]));
        const argv = [opts.forgeBin, 'turn', '--repo', gitdir, '--session', sessionIds[i], '--calls', script ? '-' : callsFile, '--json'];
        let r;
        try {
          r = script ? timeProcess('bash', ['-c', script, 'bash', callsFile, process.execPath, ...argv], { env: BASE_ENV }) : forgeCli(argv.slice(1));
        } finally {
          rmSync(callsFile, { force: true });
        }
        const out = JSON.parse(r.stdout.toString('utf8'));
        check(out.results?.length === 1 && out.results[0].ok && out.results[0].output?.bytes === BIG_BYTES, `forge turn (big write, ${form}): ${JSON.stringify(out).slice(0, 500)}`);
        checkCommit('forge', `refs/heads/forge/session/${sessionIds[i]}`, out.commit, heads.get(sessionIds[i]), blobOid(header, base.text), [`.forge/sessions/${sessionIds[i]}.json`]);
        return { ms: r.ms, rssKiB: r.rssKiB };
      },
      (i) => {
        const header = Buffer.from(bigHeader(`G-${form}-${pad(i)}`));
        const dir = join(work, 'turn', `big-${form}-${i}`);
        mkdirSync(dir, { recursive: true });
        const content = join(dir, 'content');
        writeFileSync(content, Buffer.concat([header, base.text]));
        writeFileSync(join(dir, 'blobs'), `${content}\n`);
        writeFileSync(join(dir, 'paths'), `${BIG_PATH}\n`);
        try {
          const r = timeProcess('bash', [GIT_TURN, gitdir, branches[i], dir], { encoding: 'utf8' });
          const oid = run('git', ['hash-object', content]).trim();
          check(oid === blobOid(header, base.text), `git hash-object of the content is ${oid}, not ${blobOid(header, base.text)}`);
          checkCommit('git', `refs/heads/${branches[i]}`, r.stdout.trim(), mainOid, oid, []);
          return { ms: r.ms, rssKiB: r.rssKiB };
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    const rss = cases[key].results.forge.map((r) => r.rssKiB);
    cases[key].forgeRssMedian = rss.every((v) => v != null) ? median(rss) : null;
    log(`  forge peak RSS per run (MiB): ${rss.map((v) => fmtRss(v)).join(', ')}; git: ${cases[key].results.git.map((r) => fmtRss(r.rssKiB)).join(', ')}`);
  }
}

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
const fmtRatio = (c) => (c.forge != null && c.git != null ? `${(c.forge / c.git).toFixed(2)}x` : '—');

const MiB = 1024;
/** The issue's targets; `met` is null when the case has no target. */
const TARGETS = {
  turnProcess10: { text: 'forge ≤ git', met: (c) => c.forge <= c.git },
  turnInproc10: { text: '< 50 ms', met: (c) => c.forge < 50 },
  warmSame: { text: '< 1 ms', met: (c) => c.forge < 1 },
  warmRotating: { text: '< 1 ms', met: (c) => c.forge < 1 },
  listProcess: { text: '≤ 2x git', met: (c) => c.forge <= 2 * c.git },
  listInproc: { text: '≤ 2x git', met: (c) => c.forge <= 2 * c.git },
  listFirst: { text: '≤ 2x git', met: (c) => c.forge <= 2 * c.git },
  mergeCold: { text: '≤ 3x git', met: (c) => c.forge <= 3 * c.git },
  textEdit: { text: '< 10 ms', met: (c) => c.forge < 10 },
  textPatch: { text: '< 10 ms', met: (c) => c.forge < 10 },
  textLadder: { text: '< 2 ms added', met: (c) => c.forge < 2 },
  toolEdit: { text: '< 10 ms', met: (c) => c.forge < 10 },
  toolPatch: { text: '< 10 ms', met: (c) => c.forge < 10 },
  repoToolOverhead: { text: '< 5 ms', met: (c) => c.forge < 5 },
};
for (const { key } of Object.values(BIG_FORMS)) {
  TARGETS[key] = { text: 'median peak RSS < 3x the file (300 MB)', met: (c) => (c.forgeRssMedian == null ? null : c.forgeRssMedian * 1024 < BIG_RSS_LIMIT) };
}
for (const n of [1, 10, 1000]) {
  const rss = { text: 'peak RSS < 150 MiB', met: (c) => (c.forgeRss == null ? null : c.forgeRss < 150 * MiB) };
  const time = TARGETS[`turnProcess${n}`];
  TARGETS[`turnProcess${n}`] = time ? { text: `${time.text}; ${rss.text}`, met: (c) => time.met(c) && rss.met(c) } : rss;
}

function rows(cases, picks) {
  const list = [
    ['readProcess', `open + read one file, whole process: \`forge cat\` vs \`git cat-file blob\``],
    ['readInproc', 'open + read one file, in-process (cold: new Repository) vs `git cat-file blob` process'],
    ['warmSame', 'read one file by path, warm (same path) vs `git cat-file --batch`'],
    ['warmRotating', `read by path, warm (${picks.siblings.length + 1} files of one directory in turn) vs \`git cat-file --batch\``],
    ['listProcess', 'list all files, whole process: `forge ls` vs `git ls-tree -r --name-only`'],
    ['listInproc', "list all files, in-process (cold: new Repository + walk(''); the tree's stored path map exists) vs `git ls-tree -r` process"],
    ['listFirst', "list all files, in-process, first listing of the tree (no stored path map: every tree inflated) vs `git ls-tree -r` process"],
    ['mergeCold', 'merge two sessions of 100 turns × 500 files, in-process, fresh Repository (every tree read again) vs `git merge-tree --write-tree`'],
    ['mergeWarm', '… the same merge on a Repository whose trees are cached (a long-running host)'],
    ['mergeCli', '… as a whole `forge merge --dry-run --json` process'],
    ['textEdit', 'Edit (snippet) on a 1 MB CRLF file, text engine alone'],
    ['textLadder', 'Edit on the 1 MB file with whitespace drift (indentation +4, trailing space): time the recovery ladder adds to the exact Edit, text engine alone'],
    ['textPatch', 'Patch with 50 replace operations on a 10,000-line file, text engine alone'],
    ['toolEdit', 'Edit on the 1 MB file as a whole tool call (registry, sandbox, hashes, blob write) on a session view'],
    ['toolPatch', 'Patch with 50 operations on the 10,000-line file as a whole tool call on a session view'],
    ['repoToolCall', 'repository tool (QuickJS sandbox) reading and writing one file, warm, as a whole tool call on a session view'],
    ['repoToolWriteFile', '… the same write done by write_file'],
    ['repoToolOverhead', `… the difference (best sample: ${cases.repoToolOverhead?.best != null ? fmtMs(cases.repoToolOverhead.best) : '—'} ms)`],
    ['repoToolFirstLoad', 'first load of a repository tool in a process (WebAssembly module compiled, the tool module evaluated once)'],
  ];
  for (const n of [1, 10, 1000]) {
    list.push([`turnProcess${n}`, `turn commit of ${n.toLocaleString('en-US')} file${n > 1 ? 's' : ''}, whole \`forge turn\` process vs git plumbing script`]);
    list.push([`turnInproc${n}`, `turn commit of ${n.toLocaleString('en-US')} file${n > 1 ? 's' : ''}, in-process (writes + commitTurn) vs git plumbing script`]);
    list.push([`turnCommitOnly${n}`, `… of which \`commitTurn()\` alone (${n.toLocaleString('en-US')} file${n > 1 ? 's' : ''})`]);
  }
  const bigRss = (key) => (cases[key]?.forgeRssMedian != null ? `; forge's median peak RSS ${fmtRss(cases[key].forgeRssMedian)} MiB` : '');
  list.push(
    ['bigWriteFile', `write_file of a 100 MB text file, whole \`forge turn --calls FILE\` process vs git plumbing script (\`hash-object -w\` + commit)${bigRss('bigWriteFile')}`],
    ['bigWriteRedirect', `… the same with \`forge turn --calls - < FILE\` (standard input redirected from the file)${bigRss('bigWriteRedirect')}`],
    ['bigWritePipe', `… the same with \`cat FILE\` piped into \`forge turn --calls -\` (standard input a pipe)${bigRss('bigWritePipe')}`],
  );
  return list.map(([key, label]) => {
    const c = cases[key];
    const target = TARGETS[key];
    const met = target ? target.met(c) : null;
    return {
      key,
      label,
      forge: fmtMs(c.forge),
      git: fmtMs(c.git),
      ratio: fmtRatio(c),
      forgeRss: c.forgeRss == null ? '—' : fmtRss(c.forgeRss),
      gitRss: c.gitRss == null ? '—' : fmtRss(c.gitRss),
      target: target?.text ?? '',
      met: met == null ? '' : met ? 'yes' : '**no**',
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

function markdown({ opts, repoInfo, picks, table, m, turnDepths }) {
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
    '| case | forge (ms) | git (ms) | forge/git | forge peak RSS (MiB) | git peak RSS (MiB) | target | met |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |',
    ...table.map((r) => `| ${r.label} | ${r.forge} | ${r.git} | ${r.ratio} | ${r.forgeRss} | ${r.gitRss} | ${r.target} | ${r.met} |`),
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
    `- **open + read one file, whole process**: \`node dist/cli.js cat <path> --repo R --rev main\` against \`git --git-dir=R cat-file blob main:<path>\`; both outputs are compared with the blob.`,
    '- **open + read one file, in-process**: a fresh `node bench/inproc.mjs` process times `Repository.open` + `CommitVfs.open(repo, \'main\')` + `readFile(path)` (loading `dist/index.js` excluded); git: the same `git cat-file blob` process as above.',
    `- **read by path, warm**: one process opens \`CommitVfs\` on \`main\` and reads every path once, then times ${int(opts.warmIterations)} reads of the same path (median), then ${int(opts.warmIterations)} reads cycling over the file and ${picks.siblings.length} others of its directory. git: ONE long-lived \`git cat-file --batch\`; a read is writing \`main:<path>\` and waiting for the complete response, timed the same way. git's RSS is the cat-file process's VmHWM.`,
    '- **list all files, whole process**: `node dist/cli.js ls --repo R --rev main` against `git --git-dir=R ls-tree -r --name-only main`; forge\'s output must hold the same 50,000 paths.',
    '- **list all files, in-process**: a fresh process times `Repository.open` + `CommitVfs.open` + `walk(\'\')`. Once a tree has been listed, its path map is stored under `<gitdir>/forge/cache/paths/<tree>` (see docs/ARCHITECTURE.md) and a later cold listing reads it; the "first listing" row removes it before each run, so every tree of the repository is inflated and parsed. git: the `ls-tree` process above.',
    '- **merge**: `bench/merge-bench.mjs` builds, once per bench, two session branches of 100 turns each on `main` of the benchmark repository, each touching 500 files (100 files touched by both, on different lines, so they merge cleanly line by line; every turn also updates its session file), then times `planMerge` + writing the merged tree (what `forge merge --dry-run` does) against `git merge-tree --write-tree`, alternating; both must give the same tree oid.',
    '- **Edit / Patch**: `bench/text-bench.mjs`, in one process, median of at least 20 runs after 3 warm-ups. Engine alone: `applySnippetEdit` on a 1 MB CRLF file (the snippet near its end) and `applyPatches` with 50 replace operations spread over a 10,000-line file. Whole tool call: the same Edit and Patch through `SessionToolRunner` on a session of a repository holding both files (input parsing, sandbox, approval, stale-file check, UTF-8 decoding, hashing, the blob write, the unified diff of the result); the `read_file` each needs first is not timed. git has no counterpart.',
    `- **turn commit of N files**: ${turnDepths}; each file gets a first line naming the side and run (so every run writes new blobs of the same sizes, and forge and git never share objects), the new file a short content. Every run has its own branch, made before the timing.`,
    '  - whole process: `node dist/cli.js turn --repo R --session S --calls FILE --json` with N `write_file` calls. Set-up, untimed: the session is created and one turn records the changed files as read (their hashes, as `read_file` would), since `write_file` may only replace files the session has read.',
    '  - in-process: a fresh process creates the session (untimed), then times `session.vfs.writeFile` for each file + `session.commitTurn()`; the `commitTurn()` part is also shown alone.',
    '  - git: `bench/git-turn.sh`, one process per step: `rev-parse` the branch, `read-tree` its commit into a temporary index (`GIT_INDEX_FILE`), `hash-object -w --stdin-paths` (all blobs), `update-index --index-info`, `write-tree`, `commit-tree -p <parent>`, `update-ref <branch> <new> <parent>`. Its peak RSS is its largest process\'s. The same git script is the baseline of both forge forms.',
    `  - forge's commit also holds the session's state file (\`.forge/sessions/<id>.json\`), which for a \`forge turn\` records that turn's tool calls with their arguments (strings over 4 KiB cut to their first 512 characters); git's commit holds the files only.`,
    `- **write_file of a 100 MB text file**: before each run a calls file \`[{"tool":"write_file","args":{"path":"${BIG_PATH}","content":…}}]\` is written whose content is ${int(BIG_BYTES)} bytes of seeded source-like text (quotes, backslashes and some multi-byte UTF-8, so the JSON has escapes; its first line names the run, so every blob is new), and \`node dist/cli.js turn --repo R --session S --calls FILE --json\` on a new session of the benchmark repository's copy is timed with the file as a path, as \`--calls - < FILE\` and as \`cat FILE | … --calls -\` (these two through \`bash -c\`, whose peak RSS is its largest process's), against \`bench/git-turn.sh\` committing the same content from a file (\`hash-object -w\`, \`read-tree\`, \`update-index\`, \`write-tree\`, \`commit-tree\`, \`update-ref\`), median of ${bigRuns(opts)} runs per side after one warm-up, each commit's \`${BIG_PATH}\` checked against the content's \`git hash-object\` oid and size, and the target compares forge's median peak RSS with ${int(BIG_RSS_LIMIT)} bytes (${fmtRss(BIG_RSS_LIMIT / 1024)} MiB).`,
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
  const header = ['case', 'forge ms', 'git ms', 'forge/git', 'forge MiB', 'git MiB', 'target', 'met'];
  const body = table.map((r) => [r.label.replace(/`/g, ''), r.forge, r.git, r.ratio, r.forgeRss, r.gitRss, r.target, r.met.replace(/\*/g, '')]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const fmt = (row) => row.map((cell, i) => (i === 0 || i >= 6 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
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
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  cpSync(join(ROOT, 'dist'), dist, { recursive: true });
  opts.forgeBin ??= join(dist, 'cli.js');
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

    const { cases, turns } = runBench(opts, gitdir, work, dist, picks, blobs, expectedPaths);

    log(`validating ${turns.length} turn commits and running git fsck --strict`);
    validateTurns(gitdir, turns);
    fsck(gitdir);

    const table = rows(cases, picks);
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
      writeFileSync(opts.out, markdown({ opts, repoInfo, picks, table, m: machine(), turnDepths }) + remoteFleetMarkdown(fleet) + (browser ? `\n${browser}` : '') + (inspect ? `\n${inspect}\n` : '') + (real ? `\n${real}\n` : ''));
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
