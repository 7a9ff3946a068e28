#!/usr/bin/env node
/**
 * `npm run bench:mount` (issue 27): `forge mount` beside a plain checkout, on the real-like tree
 * (bench/make-repo.mjs --profile real, the generator of bench/real-like.mjs; 35,000 files in
 * 13,000 directories, a short history: the mount reads the head tree only). Every case runs
 * alternately (forge, plain, forge, plain, ...), medians of --runs (default 5) after a warm-up.
 * The mount is served by another process (bench/mount-serve.mjs, the built library): this one
 * makes blocking calls into it.
 *
 *   node bench/mount-bench.mjs [--runs 5] [--files 35000] [--tar-files 10000] [--big-mb 100] [--out FILE]
 *
 * Cases: mount ready vs `git worktree add`; disk used by a mounted session; mount + the first
 * read of every tracked file, cold and warm, vs a plain checkout; `tar x` of 10,000 files into an
 * ignored directory and into tracked paths vs plain disk; a 100 MB file written, and the mount
 * process's peak RSS; and the levers: the ignored-directory bypass off, and kernel caching
 * (entry/attr timeouts, kernel_cache, big_writes) on. Prints a Markdown table and one JSON line;
 * with --out writes the table between <!-- mount-bench:start --> and <!-- mount-bench:end -->.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, median, prng, ROOT } from './bench-kit.mjs';
import { HERMETIC_ENV } from './git-env.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const RUNS = Number(opt('runs', 5));
const FILES = Number(opt('files', 35000));
const TAR_FILES = Number(opt('tar-files', 10000));
const BIG_MB = Number(opt('big-mb', 100));
const OUT = opt('out', undefined);
const ENV = { ...HERMETIC_ENV, GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
const log = (m) => process.stderr.write(`mount-bench: ${m}\n`);

ensureBuilt(log, (m) => {
  throw new Error(m);
});

function sh(script, { ok = [0] } = {}) {
  const r = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { env: ENV, encoding: 'utf8', maxBuffer: 1 << 28, cwd: '/' });
  if (!ok.includes(r.status)) throw new Error(`failed (${r.status}): ${script}\n${r.stderr}`);
  return r.stdout;
}

/** Wall time of a shell script, ms. */
function timed(script) {
  const t = performance.now();
  sh(script);
  return performance.now() - t;
}

// ---------- the tree ----------

const made = spawnSync(process.execPath, [join(ROOT, 'bench', 'make-repo.mjs'), '--profile', 'real', '--files', String(FILES), '--commits', '300', '--big-file', '0'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 });
if (made.status !== 0) throw new Error('bench/make-repo.mjs failed');
const summary = JSON.parse(made.stdout);
const SOURCE = join(ROOT, 'bench', '.work', `repo-real-${FILES}-300`);
const work = mkdtempSync(join(tmpdir(), 'forge-mount-bench-'));
const gitdir = join(work, 'repo.git');
sh(`git clone -q --bare --no-local ${SOURCE} ${gitdir}`);
const forgeCli = (argv) => spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...argv, '--repo', gitdir], { env: ENV, encoding: 'utf8' });
let sessions = 0;
function newSession() {
  const id = `b${++sessions}`;
  const r = forgeCli(['session', 'new', '--id', id, '--base', 'main']);
  if (r.status !== 0) throw new Error(r.stderr);
  return id;
}

// ---------- mounts ----------

/** Starts a mount server; resolves with its pid, ready time (spawn to mounted) and a stop(). */
function mount(session, dir, options = {}, { cli = false } = {}) {
  mkdirSync(dir, { recursive: true });
  const t = performance.now();
  const child = cli
    ? spawn(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'mount', session, dir, '--repo', gitdir], { env: ENV, stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, [join(ROOT, 'bench', 'mount-serve.mjs'), gitdir, session, dir, JSON.stringify(options)], { env: ENV, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`mount server exited (${code}) before it was ready`)));
    child.stdout.on('data', function onData(chunk) {
      out += chunk;
      if (!/forge mount: session|ready /.test(out)) return;
      child.stdout.off('data', onData);
      child.removeAllListeners('exit');
      const readyMs = performance.now() - t;
      resolve({
        pid: child.pid,
        readyMs,
        stop: () =>
          new Promise((done) => {
            let tail = '';
            child.stdout.on('data', (c) => (tail += c));
            child.on('exit', () => done({ peakRssKiB: Number(/peak-rss-kib (\d+)/.exec(tail)?.[1] ?? NaN) }));
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

async function withMount(options, fn, { cli = false, session = newSession() } = {}) {
  const dir = mkdtempSync(join(work, 'mnt-'));
  const m = await mount(session, dir, options, { cli });
  try {
    return await fn(dir, m, session);
  } finally {
    const stopped = await m.stop();
    m.peakRssKiB = stopped.peakRssKiB;
    rmSync(dir, { recursive: true, force: true });
  }
}

function worktree() {
  const dir = join(work, `wt-${Math.random().toString(36).slice(2)}`);
  const ms = timed(`git --git-dir=${gitdir} worktree add -q --detach ${dir} main`);
  return { dir, ms, remove: () => sh(`git --git-dir=${gitdir} worktree remove --force ${dir}`) };
}

// ---------- inputs ----------

/** TAR_FILES small files (100 directories, 0.2-4 KB of text each) as tar archives: plain members, and under dist/. */
function makeTarballs() {
  const src = join(work, 'tar-src');
  const rand = prng(27);
  for (let i = 0; i < TAR_FILES; i++) {
    const dir = join(src, 'pkg', `d${i % 100}`);
    if (i < 100) mkdirSync(dir, { recursive: true });
    const size = 200 + Math.floor(rand() * 3800);
    writeFileSync(join(dir, `f${i}.js`), `// ${i}\n${'x'.repeat(size)}\n`);
  }
  sh(`cd ${src} && tar cf ${work}/files.tar pkg && mkdir dist && mv pkg dist/ && tar cf ${work}/dist.tar dist`);
  rmSync(src, { recursive: true, force: true });
  sh(`head -c ${BIG_MB << 20} /dev/urandom > ${work}/big.bin`);
}

// ---------- cases ----------

const results = {};
const note = (key, forge, plain, extra = {}) => {
  results[key] = { forge: median(forge), plain: median(plain), ratio: median(forge) / median(plain), forgeRuns: forge, plainRuns: plain, ...extra };
  log(`${key}: forge ${median(forge).toFixed(1)} ms, plain ${median(plain).toFixed(1)} ms (${(median(forge) / median(plain)).toFixed(2)}x)`);
};

/** `forge mount` (the CLI, whole process: Node start to mounted) vs `git worktree add`. */
async function caseReady() {
  const forge = [];
  const plain = [];
  for (let i = 0; i <= RUNS; i++) {
    const f = await withMount({}, async (_dir, m) => m.readyMs, { cli: true });
    const w = worktree();
    w.remove();
    if (i > 0) forge.push(f), plain.push(w.ms);
  }
  note('ready', forge, plain);
}

/** Disk a mounted session uses with no edits (its scratch and pending files; the shared caches apart) vs a worktree. */
async function caseDisk() {
  const session = newSession();
  const before = Number(sh(`du -sk ${gitdir}/forge | cut -f1`));
  const during = await withMount({}, async () => ({ session: Number(sh(`du -sk ${gitdir}/forge/scratch/${session} ${gitdir}/forge/pending 2>/dev/null | awk '{s+=$1} END {print s}'`)), all: Number(sh(`du -sk ${gitdir}/forge | cut -f1`)) }), { session });
  const w = worktree();
  const wtKiB = Number(sh(`du -sk ${w.dir} | cut -f1`)) + Number(sh(`du -sk ${gitdir}/worktrees | cut -f1`));
  w.remove();
  results.disk = { sessionKiB: during.session, forgeDirGrowthKiB: during.all - before, worktreeKiB: wtKiB };
  log(`disk: session ${during.session} KiB (forge/ grew ${during.all - before} KiB), worktree ${wtKiB} KiB`);
}

const READ_ALL = (dir) => `cd ${dir} && find . -type f -print0 | xargs -0 cat > /dev/null`;

/** Mount, then read every tracked file twice (cold, warm), vs git worktree add, then the same reads. */
async function caseReadAll(key, options) {
  const cold = [];
  const warm = [];
  const total = [];
  const pCold = [];
  const pWarm = [];
  const pTotal = [];
  for (let i = 0; i <= RUNS; i++) {
    const [c, wm, tot] = await withMount(options, async (dir, m) => {
      const c1 = timed(READ_ALL(dir));
      return [c1, timed(READ_ALL(dir)), m.readyMs + c1];
    });
    const w = worktree();
    const pc = timed(READ_ALL(w.dir));
    const pw = timed(READ_ALL(w.dir));
    w.remove();
    if (i === 0) continue;
    cold.push(c), warm.push(wm), total.push(tot), pCold.push(pc), pWarm.push(pw), pTotal.push(w.ms + pc);
  }
  note(`${key}-cold`, cold, pCold);
  note(`${key}-warm`, warm, pWarm);
  note(`${key}-mount+cold-vs-worktree-add`, total, pTotal.map((t, i) => t - pCold[i]));
}

/** tar x of TAR_FILES files into an ignored directory (existing, or made by tar itself) vs plain disk. */
async function caseTarIgnored(key, options, { fresh = false } = {}) {
  const forge = [];
  const plain = [];
  await withMount(options, async (dir) => {
    sh(`cd ${dir} && printf 'dist/\\nnode_modules/\\n' > .gitignore`);
    for (let i = 0; i <= RUNS; i++) {
      sh(`cd ${dir} && rm -rf dist${fresh ? '' : ' && mkdir dist && sleep 0.6'}`);
      const f = timed(fresh ? `cd ${dir} && tar xf ${work}/dist.tar` : `cd ${dir} && tar xf ${work}/files.tar -C dist`);
      const p = join(work, 'plain');
      rmSync(p, { recursive: true, force: true });
      mkdirSync(join(p, 'dist'), { recursive: true });
      const pl = timed(fresh ? `cd ${p} && tar xf ${work}/dist.tar` : `cd ${p} && tar xf ${work}/files.tar -C dist`);
      if (i > 0) forge.push(f), plain.push(pl);
    }
    const count = Number(sh(`cd ${dir} && find -L dist -type f | wc -l`));
    if (count !== TAR_FILES) throw new Error(`${key}: ${count} files in dist, expected ${TAR_FILES}`);
  });
  note(key, forge, plain);
}

/** tar x of TAR_FILES files into tracked paths (each run in a fresh session: pending edits) vs plain disk. */
async function caseTarTracked() {
  const forge = [];
  const plain = [];
  for (let i = 0; i <= RUNS; i++) {
    const f = await withMount({}, async (dir) => {
      const ms = timed(`cd ${dir} && tar xf ${work}/files.tar`);
      const count = Number(sh(`cd ${dir} && find pkg -type f | wc -l`));
      if (count !== TAR_FILES) throw new Error(`tar-tracked: ${count} files, expected ${TAR_FILES}`);
      return ms;
    });
    const p = join(work, 'plain');
    rmSync(p, { recursive: true, force: true });
    mkdirSync(p);
    const pl = timed(`cd ${p} && tar xf ${work}/files.tar`);
    if (i > 0) forge.push(f), plain.push(pl);
  }
  note('tar-tracked', forge, plain);
}

/** A BIG_MB file written (cp, closed) into a tracked path, each in a fresh mount process (its peak RSS) vs plain disk. */
async function caseBigWrite(key, options) {
  const forge = [];
  const plain = [];
  const rss = [];
  for (let i = 0; i <= RUNS; i++) {
    let ms = 0;
    const m = await withMount(options, async (dir, mm) => {
      ms = timed(`cp ${work}/big.bin ${dir}/big.bin`);
      if (sh(`cmp ${work}/big.bin ${dir}/big.bin && echo same`).trim() !== 'same') throw new Error('big file differs');
      return mm;
    });
    const p = join(work, 'plain');
    rmSync(p, { recursive: true, force: true });
    mkdirSync(p);
    const pl = timed(`cp ${work}/big.bin ${p}/big.bin && sync -f ${p}/big.bin`);
    if (i > 0) forge.push(ms), plain.push(pl), rss.push(m.peakRssKiB);
  }
  note(key, forge, plain, { peakRssMiB: median(rss) / 1024 });
  log(`${key}: mount process peak RSS ${(median(rss) / 1024).toFixed(0)} MiB`);
}

// ---------- main ----------

try {
  log(`tree: ${summary.files ?? FILES} files in ${summary.directories ?? '?'} directories; work in ${work}`);
  makeTarballs();
  await caseReady();
  await caseDisk();
  await caseReadAll('read-all', {});
  await caseReadAll('read-all-cached', { kernelCaching: { entryTimeoutS: 60, attrTimeoutS: 60, kernelCache: true } });
  await caseTarIgnored('tar-ignored', {});
  await caseTarIgnored('tar-ignored-fresh', {}, { fresh: true });
  await caseTarIgnored('tar-ignored-no-bypass', { bypass: false });
  await caseTarTracked();
  await caseBigWrite('write-100mb', {});
  await caseBigWrite('write-100mb-no-big-writes', { kernelCaching: { bigWrites: false } });
  const json = { runs: RUNS, files: summary.files ?? FILES, directories: summary.directories, tarFiles: TAR_FILES, bigMB: BIG_MB, results };
  console.log(JSON.stringify(json));
  if (OUT) {
    writeFileSync(OUT, JSON.stringify(json, null, 2));
    log(`wrote ${OUT}`);
  }
} catch (error) {
  log(`FAILED: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  sh(`for d in ${work}/mnt-*; do fusermount -uz "$d" 2>/dev/null || true; done`);
  sh(`git --git-dir=${gitdir} worktree prune`, { ok: [0, 128] });
  rmSync(work, { recursive: true, force: true });
}
