/**
 * What the benchmark scripts (scripts/bench.mjs, bench/real-like.mjs, bench/make-repo.mjs) share:
 * running and timing processes the same way on both sides of a comparison, medians, the seeded
 * PRNG, keeping dist/ built, and reading a repository's files and blobs through git.
 */
import { HERMETIC_ENV } from './git-env.mjs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const TIME_BIN = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
export const MAX_BUFFER = 1 << 30;

function failure(cmd, args, result) {
  return new Error(`${cmd} ${args.join(' ').slice(0, 300)} exited with ${result.status}:\n${String(result.stderr).slice(0, 2000)}\n${String(result.stdout).slice(0, 1000)}`);
}

/** A process to completion; its stdout. `ok`: the exit codes accepted. */
export function run(cmd, args, { input, env = HERMETIC_ENV, encoding = 'utf8', cwd = ROOT, ok = [0] } = {}) {
  const result = spawnSync(cmd, args, { input: typeof input === 'string' ? Buffer.from(input) : input, env, encoding, cwd, maxBuffer: MAX_BUFFER });
  if (result.error) throw result.error;
  if (!ok.includes(result.status)) throw failure(cmd, args, result);
  return result.stdout;
}

/**
 * A whole process: wall time with hrtime around spawnSync, peak RSS (KiB) with `/usr/bin/time
 * -f %M` when it exists (of the process, or of its largest descendant for a script). Both sides
 * of a comparison go through this one wrapper.
 */
export function timeProcess(cmd, args, { env = HERMETIC_ENV, encoding = 'buffer', cwd = ROOT, ok = [0] } = {}) {
  const rssFile = join(tmpdir(), `forge-bench-rss-${process.pid}`);
  const [file, argv] = TIME_BIN ? [TIME_BIN, ['-f', '%M', '-o', rssFile, cmd, ...args]] : [cmd, args];
  const t0 = process.hrtime.bigint();
  const result = spawnSync(file, argv, { env, encoding, cwd, maxBuffer: MAX_BUFFER });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (result.error) throw result.error;
  if (!ok.includes(result.status)) throw failure(cmd, args, result);
  let rssKiB = null;
  if (TIME_BIN) {
    rssKiB = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
    rmSync(rssFile, { force: true });
  }
  return { ms, rssKiB, stdout: result.stdout, status: result.status };
}

export const sha1 = (bytes) => createHash('sha1').update(bytes).digest('hex');

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** mulberry32: tiny, fast, and identical on every platform. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (min, max) => min + Math.floor(next() * (max - min + 1));
  next.pick = (list) => list[Math.floor(next() * list.length)];
  return next;
}

function newestMtime(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

/** npm run build when dist/ is missing or older than its inputs; whether it built. */
export function ensureBuilt(log, fail) {
  const outputs = ['index.js', 'cli.js', 'cli.cjs', 'forge.cjs'].map((f) => join(ROOT, 'dist', f));
  const inputs = [join(ROOT, 'src'), join(ROOT, 'scripts', 'build.mjs'), join(ROOT, 'scripts', 'cli-launcher.cjs'), join(ROOT, 'package.json')];
  const built = outputs.every((f) => existsSync(f)) ? Math.min(...outputs.map((f) => statSync(f).mtimeMs)) : -1;
  if (built >= Math.max(...inputs.map(newestMtime))) return false;
  log('dist/ is missing or older than src/: npm run build');
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) fail('npm run build failed');
  return true;
}

/** Every file at main (mode, type, oid, size, path) and each object's delta chain depth in the pack. */
export function inspectRepo(gitdir) {
  const files = run('git', [`--git-dir=${gitdir}`, 'ls-tree', '-r', '-l', '-z', 'main'])
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      const [mode, type, oid, size] = line.slice(0, tab).split(/ +/);
      return { mode, type, oid, size: Number(size), path: line.slice(tab + 1) };
    });
  const base = new Map();
  for (const line of run('git', [`--git-dir=${gitdir}`, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(deltabase)']).trim().split('\n')) {
    const [oid, deltaBase] = line.split(' ');
    if (!/^0+$/.test(deltaBase)) base.set(oid, deltaBase);
  }
  const depthOf = (oid) => {
    let depth = 0;
    for (let o = oid; base.has(o); o = base.get(o)) depth++;
    return depth;
  };
  return { files, depthOf };
}

/** Contents by oid, through one `git cat-file --batch`. */
export function readBlobs(gitdir, oids) {
  const unique = [...new Set(oids)];
  const out = run('git', [`--git-dir=${gitdir}`, 'cat-file', '--batch'], { input: unique.join('\n') + '\n', encoding: 'buffer' });
  const blobs = new Map();
  let at = 0;
  for (const oid of unique) {
    const eol = out.indexOf(10, at);
    const header = out.subarray(at, eol).toString();
    const size = Number(header.split(' ')[2]);
    if (!header.startsWith(`${oid} blob `)) throw new Error(`cat-file --batch answered ${header} for ${oid}`);
    blobs.set(oid, out.subarray(eol + 1, eol + 1 + size));
    at = eol + 1 + size + 1;
  }
  return blobs;
}
