#!/usr/bin/env node
/**
 * `npm run bench:browser`: the engine in headless Chromium over lightning-fs (IndexedDB), beside
 * the same cases in Node, on a 5,000-file repository; writes the "In a browser" section of
 * docs/PERFORMANCE.md (between the markers of bench/browser-section.mjs).
 *
 *   node bench/browser-bench.mjs [--runs 3] [--files 5000] [--no-write]
 *
 * Cases (test/browser/bench-scenario.ts, the same code in both places): open the repository and
 * read one file with a fresh fs object and Repository (a reloaded page); a warm read by path;
 * listing every file, cold and warm; a 10-file turn commit (median of 5 turns per run). Each run
 * loads the repository into a wiped IndexedDB database first (not timed). Node runs the cases on
 * disk with nodePlatform (the CLI's setup) and on memfs with the portable platform (the
 * browser's code path: async reads, WebCrypto, CompressionStream). Reported: medians over runs.
 * Needs dist/ (npm run build) and Chromium (see test/browser/chromium.mjs).
 */
import { spawnSync } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { createFsFromVolume, Volume } from 'memfs';
import { openHarness } from '../test/browser/chromium.mjs';
import { withBrowserSection } from './browser-section.mjs';
import { HERMETIC_ENV } from './git-env.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const RUNS = option('--runs', 3);
const FILES = option('--files', 5000);
const WRITE = !args.includes('--no-write');
const GITDIR = '/repo.git';

function git(cwd, gitArgs, input) {
  const result = spawnSync('git', gitArgs, { cwd, env: HERMETIC_ENV, input, maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new Error(`git ${gitArgs.join(' ')}: ${result.stderr}`);
  return result.stdout.toString();
}

/** FILES files in directories of 100 (src/mod<k>/file<i>.txt, ~1 KB each), one commit, packed. */
function makeRepo(dir) {
  git(dirname(dir), ['init', '-q', '--bare', '-b', 'main', dir]);
  const chunks = ['commit refs/heads/main\nauthor Bench <bench@example.invalid> 1704067200 +0000\ncommitter Bench <bench@example.invalid> 1704067200 +0000\ndata 6\nfiles\n'];
  for (let i = 0; i < FILES; i++) {
    const content = `file ${i}\n` + Array.from({ length: 24 }, (_, line) => `line ${line} of file ${i}: some text to give it a size\n`).join('');
    chunks.push(`M 100644 inline src/mod${Math.floor(i / 100)}/file${i}.txt\ndata ${Buffer.byteLength(content)}\n${content}\n`);
  }
  git(dir, ['fast-import', '--quiet'], chunks.join(''));
  git(dir, ['repack', '-adq']);
  git(dir, ['prune-packed']);
}

function readDir(root, prefix = '') {
  const out = {};
  for (const name of nodeFs.readdirSync(join(root, prefix))) {
    const rel = prefix === '' ? name : `${prefix}/${name}`;
    if (nodeFs.statSync(join(root, rel)).isDirectory()) Object.assign(out, readDir(root, rel));
    else out[rel] = nodeFs.readFileSync(join(root, rel));
  }
  return out;
}

async function nodeBenchModule(work) {
  const out = join(work, 'bench-scenario.mjs');
  await build({ entryPoints: [join(ROOT, 'test/browser/bench-scenario.ts')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'warning' });
  return import(pathToFileURL(out).href);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function summarize(results) {
  const pick = (key) => median(results.map((r) => r[key]));
  return {
    openAndReadOneMs: pick('openAndReadOneMs'),
    warmReadMs: pick('warmReadMs'),
    listColdMs: pick('listColdMs'),
    listWarmMs: pick('listWarmMs'),
    turnCommit10Ms: median(results.map((r) => median(r.turnCommit10Ms))),
    fsReadyMs: median(results.map((r) => r.openPhases.fsReadyMs)),
    repositoryOpenMs: median(results.map((r) => r.openPhases.repositoryOpenMs)),
    firstReadMs: median(results.map((r) => r.openPhases.readMs)),
  };
}

const work = mkdtempSync(join(tmpdir(), 'forge-browser-bench-'));
try {
  const repoDir = join(work, 'repo.git');
  makeRepo(repoDir);
  const files = readDir(repoDir);
  const packBytes = Object.entries(files).filter(([p]) => p.endsWith('.pack')).reduce((n, [, b]) => n + b.length, 0);

  const engine = await import(pathToFileURL(join(ROOT, 'dist/index.js')).href);
  const { runBench } = await nodeBenchModule(work);
  const nodeDisk = [];
  const nodePortable = [];
  for (let run = 0; run < RUNS; run++) {
    const copy = join(work, `disk-${run}.git`);
    nodeFs.cpSync(repoDir, copy, { recursive: true });
    nodeDisk.push(await runBench(engine, () => nodeFs, copy, engine.nodePlatform));
    const vol = new Volume();
    const mem = createFsFromVolume(vol);
    for (const [rel, bytes] of Object.entries(files)) {
      mem.mkdirSync(dirname(`${GITDIR}/${rel}`), { recursive: true });
      mem.writeFileSync(`${GITDIR}/${rel}`, bytes);
    }
    for (const dir of ['refs', 'objects']) mem.mkdirSync(`${GITDIR}/${dir}`, { recursive: true });
    nodePortable.push(await runBench(engine, () => mem, GITDIR, engine.portablePlatform));
    process.stderr.write(`node run ${run + 1}/${RUNS}\n`);
  }

  const harness = await openHarness();
  const chromium = [];
  try {
    const base64 = Object.fromEntries(Object.entries(files).map(([p, b]) => [p, b.toString('base64')]));
    for (let run = 0; run < RUNS; run++) {
      chromium.push(await harness.call('bench', `bench-${run}`, GITDIR, base64));
      process.stderr.write(`chromium run ${run + 1}/${RUNS}\n`);
    }
  } finally {
    await harness.close();
  }

  const bundle = readFileSync(join(ROOT, 'dist/browser.js'));
  const rows = { chromium: summarize(chromium), nodeDisk: summarize(nodeDisk), nodePortable: summarize(nodePortable) };
  const fmt = (ms) => (ms < 1 ? ms.toFixed(3) : ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
  const line = (label, key) => `| ${label} | ${fmt(rows.chromium[key])} | ${fmt(rows.nodePortable[key])} | ${fmt(rows.nodeDisk[key])} |`;
  const section = `## In a browser (Chromium, lightning-fs)

Generated by \`npm run bench:browser\` (bench/browser-bench.mjs); do not edit by hand. ${new Date().toISOString().slice(0, 10)},
${harness.browserVersion ? `Chromium ${harness.browserVersion}` : 'Chromium'} headless (Debian's package, driven by playwright-core), Node ${process.version}, same machine as above.
Repository: ${FILES.toLocaleString('en-US')} files in ${Math.ceil(FILES / 100)} directories, one commit, one ${(packBytes / 1024 / 1024).toFixed(1)} MB pack.
Medians of ${RUNS} runs, in milliseconds; the same code (test/browser/bench-scenario.ts) in each column.
In Chromium the repository is loaded into a wiped IndexedDB database by one lightning-fs object,
flushed, and opened by a second one, as a reloaded page would (after the first lets go of the database).

| case | Chromium, lightning-fs | Node, memfs, portable platform | Node, disk, nodePlatform |
| --- | ---: | ---: | ---: |
${line('open + read one file (fresh fs object and Repository)', 'openAndReadOneMs')}
${line('&nbsp;&nbsp;of which the first fs call (lightning-fs loads its tree)', 'fsReadyMs')}
${line('&nbsp;&nbsp;of which Repository.open', 'repositoryOpenMs')}
${line('&nbsp;&nbsp;of which resolving main and reading the file (the pack read whole, here)', 'firstReadMs')}
${line('warm read by path (mean of 200)', 'warmReadMs')}
${line('list all files, cold', 'listColdMs')}
${line('list all files, warm', 'listWarmMs')}
${line('10-file turn commit (median of 5 turns)', 'turnCommit10Ms')}

Targets: a 10-file turn commit under 100 ms and a warm read by path under 1 ms in Chromium.
The first read of a packed repository in the browser reads the whole \`.pack\` from IndexedDB
(lightning-fs has no positional reads) and keeps it; entries are then inflated one by one from
their exact bytes with DecompressionStream. Bundle: dist/browser.js is ${(bundle.length / 1024).toFixed(0)} KB minified,
${(gzipSync(bundle, { level: 9 }).length / 1024).toFixed(0)} KB gzipped (zod, diff, ignore and safe-regex2 inside; no isomorphic-git).
`;
  console.log(section);
  console.log(JSON.stringify(rows, null, 2));
  if (WRITE) {
    const path = join(ROOT, 'docs/PERFORMANCE.md');
    writeFileSync(path, withBrowserSection(readFileSync(path, 'utf8'), section));
    process.stderr.write('wrote docs/PERFORMANCE.md\n');
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
