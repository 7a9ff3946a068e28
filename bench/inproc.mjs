#!/usr/bin/env node
/**
 * One in-process benchmark measurement per process, so its peak RSS is its own. Driven by
 * scripts/bench.mjs; prints ONE JSON line on stdout. Times with performance.now() around the
 * operation only (module loading and, for turns, the session creation are outside the timing).
 *
 *   node bench/inproc.mjs read-cold   <gitdir> <path>
 *   node bench/inproc.mjs read-warm   <gitdir> <iterations> <path> [sibling...]
 *   node bench/inproc.mjs git-warm    <gitdir> <iterations> <path> [sibling...]
 *   node bench/inproc.mjs list        <gitdir>
 *   node bench/inproc.mjs turn        <gitdir> <spec.json>     spec: { session, files: [{ path, content }] }
 *   node bench/inproc.mjs sessions    <gitdir> <spec.json>     spec: [{ session, read: [path...] }] (set-up, untimed)
 *
 * Every case reads the repository at `main`. forge is loaded from $FORGE_BENCH_DIST (default dist/). `maxRSS` is process.resourceUsage().maxRSS (KiB).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [kind, gitdir, ...rest] = process.argv.slice(2);
if (!kind || !gitdir) fail('usage: inproc.mjs <case> <gitdir> ...');

// FORGE_BENCH_DIST: the bench's snapshot of dist/, so a concurrent rebuild cannot pull it away mid-run.
const dist = process.env.FORGE_BENCH_DIST ?? join(root, 'dist');
const forge = kind === 'git-warm' ? undefined : await import(pathToFileURL(join(dist, 'index.js')).href);

function fail(message) {
  console.error(`inproc: ${message}`);
  process.exit(2);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function sha1(bytes) {
  return createHash('sha1').update(bytes).digest('hex');
}

function openRepository() {
  return forge.Repository.open({ fs, gitdir, platform: forge.nodePlatform });
}

function report(result) {
  process.stdout.write(`${JSON.stringify({ ...result, maxRSS: process.resourceUsage().maxRSS })}\n`);
}

/** Cold: a new Repository in a fresh process, then one file of `main` by path. */
async function readCold([path]) {
  const t0 = performance.now();
  const repo = await openRepository();
  const view = await forge.CommitVfs.open(repo, 'main');
  const bytes = await view.readFile(path);
  const ms = performance.now() - t0;
  report({ ms, bytes: bytes.length, sha1: sha1(bytes) });
}

/** Warm: one open view; every path read once, then `iterations` timed reads of each pattern. */
async function readWarm([iterations, path, ...siblings]) {
  const n = Number(iterations);
  const repo = await openRepository();
  const view = await forge.CommitVfs.open(repo, 'main');
  const all = [path, ...siblings];
  const digests = {};
  for (const p of all) digests[p] = sha1(await view.readFile(p));
  const same = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await view.readFile(path);
    same.push(performance.now() - t0);
  }
  const rotating = [];
  for (let i = 0; i < n; i++) {
    const p = all[i % all.length];
    const t0 = performance.now();
    await view.readFile(p);
    rotating.push(performance.now() - t0);
  }
  report({ ms: median(same), rotatingMs: median(rotating), digests });
}

/**
 * The git counterpart of read-warm: ONE long-lived `git cat-file --batch`; a read is writing
 * `main:<path>\n` and waiting for the whole response (header, content, newline).
 */
async function gitWarm([iterations, path, ...siblings]) {
  const n = Number(iterations);
  const child = spawn('git', [`--git-dir=${gitdir}`, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffered = Buffer.alloc(0);
  let waiting = null;
  const tryComplete = () => {
    if (waiting === null) return;
    const eol = buffered.indexOf(10);
    if (eol < 0) return;
    const header = buffered.subarray(0, eol).toString();
    const match = /^[0-9a-f]{40} blob (\d+)$/.exec(header);
    if (!match) {
      waiting.reject(new Error(`git cat-file --batch: unexpected response ${header}`));
      return;
    }
    const size = Number(match[1]);
    if (buffered.length < eol + 1 + size + 1) return;
    const content = buffered.subarray(eol + 1, eol + 1 + size);
    buffered = buffered.subarray(eol + 1 + size + 1);
    const done = waiting;
    waiting = null;
    done.resolve(content);
  };
  child.stdout.on('data', (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    tryComplete();
  });
  const read = (p) =>
    new Promise((resolveRead, reject) => {
      waiting = { resolve: resolveRead, reject };
      child.stdin.write(`main:${p}\n`);
    });
  const all = [path, ...siblings];
  const digests = {};
  for (const p of all) digests[p] = sha1(await read(p));
  const same = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await read(path);
    same.push(performance.now() - t0);
  }
  const rotating = [];
  for (let i = 0; i < n; i++) {
    const p = all[i % all.length];
    const t0 = performance.now();
    await read(p);
    rotating.push(performance.now() - t0);
  }
  // Peak RSS of the git process itself, before it exits.
  const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  child.stdin.end();
  await new Promise((done) => child.on('close', done));
  report({ ms: median(same), rotatingMs: median(rotating), digests, gitRSS: hwm ? Number(hwm[1]) : null });
}

/** Cold listing: a new Repository, then every file of `main` (CommitVfs.walk('')). */
async function list() {
  const t0 = performance.now();
  const repo = await openRepository();
  const view = await forge.CommitVfs.open(repo, 'main');
  const entries = await view.walk('');
  const ms = performance.now() - t0;
  const paths = entries.map((e) => e.path).sort();
  report({ ms, files: entries.length, pathsSha1: sha1(Buffer.from(paths.join('\n'))) });
}

/** A turn commit: the session is created before the timing; writes + commitTurn are timed. */
async function turn([specFile]) {
  const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
  const files = spec.files.map((f) => ({ path: f.path, bytes: Buffer.from(f.content, 'utf8') }));
  const repo = await openRepository();
  const store = new forge.SessionStore(repo);
  const session = await store.create({ id: spec.session, base: 'main' });
  const parent = session.head;
  const t0 = performance.now();
  for (const f of files) await session.vfs.writeFile(f.path, f.bytes);
  const t1 = performance.now();
  const committed = await session.commitTurn();
  const t2 = performance.now();
  report({ ms: t2 - t0, writeMs: t1 - t0, commitMs: t2 - t1, commit: committed.commit, parent, changes: committed.changes.length });
}

/**
 * Set-up for the `forge turn` process cases (untimed): creates each session and commits one turn
 * that records the given files as read (their hashes, as read_file would), so that the timed
 * turn's write_file calls may replace them. The state carries no file contents, only hashes.
 */
async function sessions([specFile]) {
  const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
  const repo = await openRepository();
  const store = new forge.SessionStore(repo);
  const view = await forge.CommitVfs.open(repo, 'main');
  const hashes = new Map();
  const out = [];
  for (const { session: id, read } of spec) {
    const session = await store.create({ id, base: 'main' });
    for (const path of read) {
      if (!hashes.has(path)) hashes.set(path, createHash('sha256').update(await view.readFile(path)).digest('hex'));
      session.state.readHashes[path] = hashes.get(path);
    }
    const committed = await session.commitTurn({ message: 'bench: the files to change were read' });
    out.push({ session: id, head: committed.commit });
  }
  report({ sessions: out });
}

const cases = { 'read-cold': readCold, 'read-warm': readWarm, 'git-warm': gitWarm, list, turn, sessions };
if (!cases[kind]) fail(`unknown case ${kind}`);
await cases[kind](rest);
