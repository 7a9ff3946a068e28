#!/usr/bin/env node
/**
 * The changed-path cache of `forge why` / `forge blame` (issue 29), before and after, beside git,
 * in one run: whole processes, alternating (before, after cold, after warm, git, ... node -e 0),
 * one warm-up round, medians. "Cold" removes `<gitdir>/forge/cache/changed-paths` first, so it is
 * the first run (which builds part of the cache: NEW_FILTERS_PER_WALK in src/provenance/repo-history.ts);
 * "warm" finds the whole cache (built beforehand by runs until one adds nothing, and put back
 * before each warm run). The repository is used as it is (bare,
 * e.g. the real-like one: bench/.work/repo-real after `npm run bench:real`, or a copy of it).
 *
 *   node bench/blame-cache-bench.mjs --repo GITDIR --before DIST/cli.cjs [--after dist/cli.cjs]
 *                                    [--path P --line N] [--runs 5]
 *
 * --before  a forge bin without the cache (e.g. a build of the commit before it).
 * --path/--line  the file and line (default: the file at main the most commits changed, its middle line).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { HERMETIC_ENV } from './git-env.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const repo = resolve(opt('--repo') ?? fail('--repo GITDIR is required'));
const before = resolve(opt('--before') ?? fail('--before BIN is required'));
const after = resolve(opt('--after', 'dist/cli.cjs'));
const runs = Number(opt('--runs', '5'));
const env = { ...HERMETIC_ENV, XDG_CACHE_HOME: join(repo, '..', 'blame-cache-bench-xdg') };
const cache = join(repo, 'forge', 'cache', 'changed-paths');

function fail(message) {
  console.error(`blame-cache-bench: ${message}`);
  process.exit(2);
}
function out(cmd, argv) {
  const r = spawnSync(cmd, argv, { env, maxBuffer: 1 << 28, encoding: 'utf8' });
  if (r.status !== 0) fail(`${cmd} ${argv.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
function pick() {
  const counts = new Map();
  for (const p of out('git', [`--git-dir=${repo}`, 'log', '--format=', '--name-only', 'main']).split('\n')) if (p) counts.set(p, (counts.get(p) ?? 0) + 1);
  const atMain = new Set(out('git', [`--git-dir=${repo}`, 'ls-tree', '-r', '--name-only', 'main']).split('\n'));
  const [path] = [...counts].filter(([p]) => atMain.has(p)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  const lines = out('git', [`--git-dir=${repo}`, 'cat-file', '-p', `main:${path}`]).split('\n').length - 1;
  return { path, line: Math.max(1, Math.floor(lines / 2)) };
}
const { path, line } = opt('--path') ? { path: opt('--path'), line: Number(opt('--line', '1')) } : pick();

function timed(cmd, argv, expected) {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env, maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) fail(`${cmd} ${argv.join(' ')}: ${r.stderr}`);
  if (expected !== undefined && !expected(r.stdout.toString('utf8'))) fail(`${argv.join(' ')}: a result that differs from git's`);
  return ms;
}
const gitLine = out('git', [`--git-dir=${repo}`, 'blame', '--porcelain', '-L', `${line},${line}`, 'main', '--', path]);
const gitWhole = out('git', [`--git-dir=${repo}`, 'blame', '--porcelain', 'main', '--', path]);
const whyOk = (text) => JSON.parse(text).line?.commit === gitLine.split(' ')[0];
const blameOk = (text) => text.split('\n').filter((l) => !l.startsWith('forge-')).join('\n') === gitWhole;
const why = (bin) => timed(process.execPath, [bin, 'why', `${path}:${line}`, '--rev', 'main', '--json', '--repo', repo], whyOk);
const blame = (bin) => timed(process.execPath, [bin, 'blame', path, '--rev', 'main', '--porcelain', '--repo', repo], blameOk);
const cold = (f) => () => (rmSync(cache, { recursive: true, force: true }), f());
// The whole cache: runs until one writes no new segment, then kept aside.
const whole = join(repo, '..', 'blame-cache-bench-whole');
rmSync(cache, { recursive: true, force: true });
let built = 0;
for (let last = ''; ; ) {
  why(after);
  blame(after);
  built++;
  const now = readdirSync(cache).sort().join(' ');
  if (now === last || built > 40) break;
  last = now;
}
rmSync(whole, { recursive: true, force: true });
cpSync(cache, whole, { recursive: true });
const warm = (f) => () => (rmSync(cache, { recursive: true, force: true }), cpSync(whole, cache, { recursive: true }), f());

const sides = {
  [`forge why ${path}:${line}, before`]: () => why(before),
  'forge why, after, cold (cache built)': cold(() => why(after)),
  'forge why, after, warm': warm(() => why(after)),
  [`git blame -L ${line},${line} --porcelain`]: () => timed('git', [`--git-dir=${repo}`, 'blame', '--porcelain', '-L', `${line},${line}`, 'main', '--', path]),
  'forge blame --porcelain, before': () => blame(before),
  'forge blame --porcelain, after, cold (cache built)': cold(() => blame(after)),
  'forge blame --porcelain, after, warm': warm(() => blame(after)),
  'git blame --porcelain': () => timed('git', [`--git-dir=${repo}`, 'blame', '--porcelain', 'main', '--', path]),
  'node -e 0': () => timed(process.execPath, ['-e', '0']),
};
const times = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
const load = loadavg()[0];
for (const f of Object.values(sides)) f(); // warm-up round
for (let i = 0; i < runs; i++) for (const [k, f] of Object.entries(sides)) times[k].push(f());
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(`whole cache after ${built} runs of why + blame`);
console.log(`${path}:${line}; ${runs} runs after a warm-up, medians (min–max); load ${load.toFixed(1)} → ${loadavg()[0].toFixed(1)}`);
console.log('| case | median | range |\n| --- | --- | --- |');
for (const [k, v] of Object.entries(times)) console.log(`| ${k} | ${median(v).toFixed(0)} ms | ${Math.min(...v).toFixed(0)}–${Math.max(...v).toFixed(0)} ms |`);
