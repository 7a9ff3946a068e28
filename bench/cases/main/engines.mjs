/**
 * The cases that are benches of their own, run as child scripts that print one JSON line: the
 * text engine (bench/text-bench.mjs), repository tools (bench/repo-tool-bench.mjs) and merging
 * two sessions (bench/merge-bench.mjs).
 */
import { join } from 'node:path';

export const name = 'engines';

export function run(ctx) {
  const { opts, gitdir, dist, ROOT, log, check } = ctx;
  const child = (script, args) => JSON.parse(ctx.run(process.execPath, [join(ROOT, 'bench', script), ...args], { env: { ...process.env, FORGE_BENCH_DIST: dist } }));
  const only = (forge, extra = {}) => ({ forge, git: null, forgeRss: null, gitRss: null, ...extra });
  const cases = {};
  log('text engine: Edit on a 1 MB file, Patch with 50 operations on a 10,000-line file');
  const text = child('text-bench.mjs', [String(Math.max(20, opts.runs * 3))]);
  for (const [key, ms] of [['textEdit', text.engineEdit], ['textLadder', text.ladderAdded], ['textPatch', text.enginePatch], ['toolEdit', text.toolEdit], ['toolPatch', text.toolPatch]]) cases[key] = only(ms);

  log('repository tools: a warm call that reads and writes one file vs write_file; first load of a tool');
  const repoTool = child('repo-tool-bench.mjs', [String(Math.max(20, opts.runs * 3))]);
  cases.repoToolCall = only(repoTool.repoToolMs);
  cases.repoToolWriteFile = only(repoTool.writeFileMs);
  cases.repoToolOverhead = only(repoTool.overheadMs, { best: repoTool.overheadMinMs });
  cases.repoToolFirstLoad = only(repoTool.firstLoadMs);

  log('merge: two sessions of 100 turns, 500 files each, vs git merge-tree --write-tree');
  const merge = child('merge-bench.mjs', ['--repo', gitdir, '--runs', String(Math.max(5, opts.runs))]);
  check(merge.sameTree, 'forge and git merged to different trees');
  cases.mergeCold = { forge: merge.forgeColdMs, git: merge.gitMergeTreeMs, forgeRss: merge.maxRSS, gitRss: null };
  cases.mergeWarm = { forge: merge.forgeWarmMs, git: merge.gitMergeTreeMs, forgeRss: null, gitRss: null };
  cases.mergeCli = { forge: merge.forgeCliDryRunMs, git: merge.gitMergeTreeMs, forgeRss: null, gitRss: null };
  return cases;
}

const under = (ms) => ({ text: `< ${ms} ms`, met: (c) => c.forge < ms });

export function rows({ cases, fmtMs }) {
  return [
    { key: 'mergeCold', label: 'merge two sessions of 100 turns × 500 files, in-process, fresh Repository (every tree read again) vs `git merge-tree --write-tree`', target: { text: '≤ 3x git', met: (c) => c.forge <= 3 * c.git } },
    { key: 'mergeWarm', label: '… the same merge on a Repository whose trees are cached (a long-running host)' },
    { key: 'mergeCli', label: '… as a whole `forge merge --dry-run --json` process' },
    { key: 'textEdit', label: 'Edit (snippet) on a 1 MB CRLF file, text engine alone', target: under(10) },
    { key: 'textLadder', label: 'Edit on the 1 MB file with whitespace drift (indentation +4, trailing space): time the recovery ladder adds to the exact Edit, text engine alone', target: { text: '< 2 ms added', met: (c) => c.forge < 2 } },
    { key: 'textPatch', label: 'Patch with 50 replace operations on a 10,000-line file, text engine alone', target: under(10) },
    { key: 'toolEdit', label: 'Edit on the 1 MB file as a whole tool call (registry, sandbox, hashes, blob write) on a session view', target: under(10) },
    { key: 'toolPatch', label: 'Patch with 50 operations on the 10,000-line file as a whole tool call on a session view', target: under(10) },
    { key: 'repoToolCall', label: 'repository tool (QuickJS sandbox) reading and writing one file, warm, as a whole tool call on a session view' },
    { key: 'repoToolWriteFile', label: '… the same write done by write_file' },
    { key: 'repoToolOverhead', label: `… the difference (best sample: ${cases.repoToolOverhead?.best != null ? fmtMs(cases.repoToolOverhead.best) : '—'} ms)`, target: under(5) },
    { key: 'repoToolFirstLoad', label: 'first load of a repository tool in a process (WebAssembly module compiled, the tool module evaluated once)' },
  ];
}

export function notes() {
  return [
    '- **merge**: `bench/merge-bench.mjs` builds, once per bench, two session branches of 100 turns each on `main` of the benchmark repository, each touching 500 files (100 files touched by both, on different lines, so they merge cleanly line by line; every turn also updates its session file), then times `planMerge` + writing the merged tree (what `forge merge --dry-run` does) against `git merge-tree --write-tree`, alternating; both must give the same tree oid.',
    "- **Edit / Patch**: `bench/text-bench.mjs`, in one process, median of at least 20 runs after 3 warm-ups. Engine alone: `applySnippetEdit` on a 1 MB CRLF file (the snippet near its end) and `applyPatches` with 50 replace operations spread over a 10,000-line file. Whole tool call: the same Edit and Patch through `SessionToolRunner` on a session of a repository holding both files (input parsing, sandbox, approval, stale-file check, UTF-8 decoding, hashing, the blob write, the unified diff of the result); the `read_file` each needs first is not timed. git has no counterpart.",
  ];
}
