#!/usr/bin/env node
/**
 * Builds the benchmark repository: a BARE repo with N files (default 50,000) up to 6 directories
 * deep and a history of M commits (default 300) on `main`, packed into ONE pack with deltas.
 *
 *   node bench/make-repo.mjs [--files 50000] [--commits 300] [--seed 1] [--out bench/.work/repo-50k] [--force]
 *   node bench/make-repo.mjs --profile real [--files 35000] [--commits 20000] [--dirs N] [--big-file BYTES] ...
 *
 * `--profile real` looks like a real repository instead (issue 19): ~35,000 files in ~13,000
 * directories (--dirs, default files x 13/35; a random tree up to 10 deep where every directory
 * holds a file), ~20,000 commits of small edits concentrated on a hot set of files (deep delta
 * chains), a ~100 MiB pack, and one large text file (--big-file bytes, default 50 MB; 0: none)
 * added a quarter into the history and edited twice after. Output: bench/.work/repo-real (or
 * repo-real-<files>-<commits> for other sizes). The default profile is unchanged, byte for byte.
 *
 * Deterministic: a seeded PRNG (never Math.random) decides every path, byte, identity and date,
 * so the same parameters give the same head oid on every machine. Fast: everything is streamed
 * into `git fast-import`, then `git repack -adf` computes real deltas (the history edits lines of
 * existing files, like real work). If the output exists with a stamp of the same parameters it
 * is reused. Prints a summary JSON on stdout; progress goes to stderr.
 */
import { prng } from './bench-kit.mjs';
import { HERMETIC_ENV } from './git-env.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump when the generator changes, so old stamped repos are rebuilt. */
const GENERATOR_VERSION = 1;
const STAMP_FILE = 'forge-bench-stamp.json';
const MAX_DEPTH = 6;
/** Children per directory by depth (root first): [min, max]. Gives ~2,600 directories. */
const FANOUT = [[14, 14], [2, 8], [1, 6], [0, 4], [0, 3], [0, 3]];

/** The real-like profile (issue 19): its shape, next to the default's constants above. */
const REAL = {
  files: 35_000,
  commits: 20_000,
  dirsPerFile: 13 / 35,
  bigFile: 50_000_000,
  maxDepth: 10,
  topDirs: 16,
  /** Climb one level from a picked parent with this chance: keeps the tree bushy, not deep. */
  climb: 0.4,
  /** File sizes are the default's times 6/5 (integers only), for a ~100 MiB pack. */
  sizeTimes: [6, 5],
  hotFiles: 600,
  hotShare: 0.75,
  bigFileName: 'large-fixture-data.txt',
};

// ---------- arguments ----------

function parseArgs(argv) {
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const opts = { profile: 'default', files: undefined, commits: undefined, seed: 1, dirs: undefined, bigFile: undefined, out: undefined, force: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--force') opts.force = true;
    else if (['--files', '--commits', '--seed', '--dirs'].includes(arg)) opts[arg.slice(2)] = positiveInt(arg, argv[++i]);
    else if (arg === '--big-file') opts.bigFile = nonNegativeInt(arg, argv[++i]);
    else if (arg === '--profile') opts.profile = argv[++i];
    else if (arg === '--out') opts.out = resolve(argv[++i] ?? fail('--out needs a path'));
    else fail(`unknown argument ${arg}`);
  }
  if (opts.profile === 'real') {
    const sized = opts.files !== undefined || opts.commits !== undefined;
    opts.files ??= REAL.files;
    opts.commits ??= REAL.commits;
    opts.dirs ??= Math.max(REAL.topDirs, Math.round(opts.files * REAL.dirsPerFile));
    opts.bigFile ??= REAL.bigFile;
    opts.out ??= join(repoRoot, 'bench', '.work', sized ? `repo-real-${opts.files}-${opts.commits}` : 'repo-real');
    return opts;
  }
  if (opts.profile !== 'default') fail(`unknown profile ${opts.profile} (default or real)`);
  if (opts.dirs !== undefined || opts.bigFile !== undefined) fail('--dirs and --big-file are options of --profile real');
  opts.files ??= 50_000;
  opts.commits ??= 300;
  opts.out ??= join(repoRoot, 'bench', '.work', `repo-${Math.round(opts.files / 1000)}k`);
  return opts;
}

function positiveInt(name, value) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) fail(`${name} needs a positive integer, got ${value}`);
  return n;
}

function nonNegativeInt(name, value) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) fail(`${name} needs a non-negative integer, got ${value}`);
  return n;
}

function fail(message) {
  console.error(`make-repo: ${message}`);
  process.exit(2);
}

// ---------- seeded randomness ----------


// ---------- layout: directories and file names ----------

const DIR_WORDS = ('api app assets auth build cache cli client common config core data db docs domain events '
  + 'features fixtures handlers helpers hooks http i18n internal io jobs lib logging middleware models '
  + 'modules net parser platform plugins providers queue render routes runtime schema scripts server '
  + 'services shared storage store styles sync tasks templates test tools types ui utils vendor views workers').split(' ');
const FILE_WORDS = ('index main util helper service controller model view store reducer action client server '
  + 'config types schema parser lexer token cache queue worker handler router request response session user '
  + 'account order invoice payment report chart table form input button modal layout theme logger metrics').split(' ');
const EXTENSIONS = [['ts', 30], ['js', 15], ['md', 10], ['py', 10], ['json', 8], ['go', 7], ['css', 5], ['txt', 5], ['yaml', 5], ['html', 5]];

/** A random directory tree; returns every directory path (root excluded). */
function makeDirectories(rng) {
  const dirs = [];
  const grow = (parent, depth) => {
    if (depth >= MAX_DEPTH) return;
    const [min, max] = FANOUT[depth];
    const taken = new Set();
    for (let i = rng.int(min, max); i > 0; i--) {
      const name = uniqueName(rng.pick(DIR_WORDS), taken);
      const path = parent === '' ? name : `${parent}/${name}`;
      dirs.push(path);
      grow(path, depth + 1);
    }
  };
  grow('', 0);
  return dirs;
}

function uniqueName(name, taken) {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${name}${n}`;
  taken.add(candidate);
  return candidate;
}

/**
 * The real profile's directories: `count` of them in a random tree, as a monorepo grows. A few
 * top-level directories, then each new directory goes under a random existing one, often one
 * level up from it (REAL.climb), never deeper than REAL.maxDepth. Names are common directory
 * words or project words. Returns the nodes ({ path, depth, children }), parents first.
 */
function makeRealDirectories(rng, vocabulary, count) {
  const nodes = [];
  const root = { path: '', depth: 0, parent: null, taken: new Set(), children: 0 };
  const add = (parent) => {
    const name = uniqueName(rng() < 0.5 ? rng.pick(DIR_WORDS) : rng.pick(vocabulary), parent.taken);
    parent.children++;
    nodes.push({ path: parent.path === '' ? name : `${parent.path}/${name}`, depth: parent.depth + 1, parent, taken: new Set(), children: 0 });
  };
  for (let i = Math.min(REAL.topDirs, count); i > 0; i--) add(root);
  while (nodes.length < count) {
    let parent = nodes[Math.floor(rng() * nodes.length)];
    while (parent.depth >= REAL.maxDepth || (parent.depth > 1 && rng() < REAL.climb)) parent = parent.parent;
    add(parent);
  }
  return nodes;
}

/** Picks directories with skewed weights: a few crowded directories, many sparse ones. */
function directoryPicker(rng, dirs) {
  const cumulative = [];
  let total = 0;
  for (let i = 0; i < dirs.length; i++) cumulative.push((total += 0.2 + 10 * rng() * rng() * rng()));
  return () => {
    const x = rng() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return dirs[lo];
  };
}

function makeExtensionPicker(rng) {
  const total = EXTENSIONS.reduce((sum, [, w]) => sum + w, 0);
  return () => {
    let x = rng() * total;
    for (const [ext, w] of EXTENSIONS) if ((x -= w) < 0) return ext;
    return 'txt';
  };
}

// ---------- content ----------

/** A vocabulary of pseudo-words, so text compresses and deltas like source code does. */
function makeVocabulary(rng) {
  const syllables = 'ka lo mi ne ru ta so vi de pa ho zu be ni fa ge li mo tu ra ex in on re st'.split(' ');
  const words = new Set();
  while (words.size < 600) {
    let word = '';
    for (let n = rng.int(1, 4); n > 0; n--) word += rng.pick(syllables);
    words.add(word);
  }
  return [...words];
}

/**
 * Mostly 0.5-8 KB (about log-uniform: one of four doubling ranges), some tiny files, about 1%
 * of 20-160 KB. Integer arithmetic only (no Math.pow/exp), so no platform can round differently.
 */
function pickSize(rng) {
  const r = rng();
  if (r < 0.002) return 0;
  if (r < 0.04) return rng.int(20, 500);
  const [base, ranges] = r < 0.99 ? [500, 3] : [20_000, 2];
  const shift = rng.int(0, ranges);
  return rng.int(base << shift, base << (shift + 1));
}

function makeLine(rng, vocabulary) {
  const indent = '  '.repeat(rng.int(0, 3));
  const words = [];
  for (let n = rng.int(2, 10); n > 0; n--) words.push(rng.pick(vocabulary));
  const shape = rng();
  if (shape < 0.35) return `${indent}const ${words[0]} = ${words.slice(1).join('.')}(${rng.int(0, 999)});`;
  if (shape < 0.55) return `${indent}${words.join(' ')}`;
  if (shape < 0.7) return `${indent}// ${words.join(' ')}`;
  return `${indent}${words[0]}(${words.slice(1).join(', ')});`;
}

function makeContent(rng, vocabulary, size) {
  const lines = [];
  let length = 0;
  while (length < size) {
    const line = makeLine(rng, vocabulary);
    lines.push(line);
    length += line.length + 1;
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** A small edit like a person's: replace, insert or delete one to three lines. */
function editContent(rng, vocabulary, content) {
  const lines = content === '' ? [] : content.slice(0, -1).split('\n');
  for (let n = rng.int(1, 3); n > 0; n--) {
    const at = rng.int(0, lines.length);
    const kind = lines.length === 0 ? 0 : rng();
    if (kind < 0.4) lines.splice(at, 0, makeLine(rng, vocabulary));
    else if (kind < 0.8 || lines.length < 3) lines[Math.min(at, lines.length - 1)] = makeLine(rng, vocabulary);
    else lines.splice(Math.min(at, lines.length - 1), 1);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

// ---------- history, streamed into fast-import ----------

const AUTHORS = ['Ada Byron', 'Grace Hopper', 'Alan Turing', 'Barbara Liskov', 'Ken Thompson'];
const START = Date.UTC(2023, 0, 1) / 1000;

/** Writes the whole history as a fast-import stream through `write` (which may await). */
async function writeHistory(opts, write) {
  const real = opts.profile === 'real';
  const rng = prng(opts.seed);
  const vocabulary = makeVocabulary(rng);
  const realDirs = real ? makeRealDirectories(rng, vocabulary, opts.dirs) : null;
  const dirs = real ? realDirs.map((d) => d.path) : makeDirectories(rng);
  const pickDir = directoryPicker(rng, dirs);
  const pickExt = makeExtensionPicker(rng);
  const namesByDir = new Map();
  const contents = new Map(); // path -> current text
  const live = []; // live paths, for uniform picks
  const hot = []; // the files edited most often

  const newPath = (dir = pickDir()) => {
    if (!namesByDir.has(dir)) namesByDir.set(dir, new Set());
    const name = uniqueName(`${rng.pick(FILE_WORDS)}-${rng.pick(vocabulary)}.${pickExt()}`, namesByDir.get(dir));
    return `${dir}/${name}`;
  };
  // real: a skewed pick in the hot set (a few files take most edits: delta chains reach --depth)
  const size = real ? () => Math.floor((pickSize(rng) * REAL.sizeTimes[0]) / REAL.sizeTimes[1]) : () => pickSize(rng);
  const pickLive = real
    ? () => (rng() < REAL.hotShare ? hot[Math.floor(rng() * rng() * hot.length)] : rng.pick(live))
    : () => (hot.length > 0 && rng() < 0.7 ? rng.pick(hot) : rng.pick(live));
  // real: one large text file, added a quarter into the history and edited twice; outside `live`
  const big = real && opts.bigFile > 0 && opts.commits >= 2 ? { at: Math.max(2, Math.floor(opts.commits / 4)), path: '' } : null;
  if (big) {
    const candidates = realDirs.filter((d) => d.depth === 2);
    big.path = `${(candidates.length > 0 ? rng.pick(candidates) : realDirs[0]).path}/${REAL.bigFileName}`;
    big.edits = [Math.floor(opts.commits / 2), Math.floor((3 * opts.commits) / 4)].filter((c) => c > big.at);
  }

  let time = START;
  let bytesAtHead = 0;
  for (let c = 1; c <= opts.commits; c++) {
    const changes = []; // [path, content | null]
    if (c === 1) {
      // real: every leaf directory holds a file (else git has no tree for it), then the skewed picks
      const leaves = real ? realDirs.filter((d) => d.children === 0).slice(0, opts.files) : [];
      for (const leaf of leaves) changes.push([newPath(leaf.path), makeContent(rng, vocabulary, size())]);
      for (let i = leaves.length; i < opts.files; i++) changes.push([newPath(), makeContent(rng, vocabulary, size())]);
    } else {
      const edited = new Set();
      // real: 1-4 files, mostly one or two (a real history's commits are small)
      for (let n = real ? 1 + Math.floor(rng() * rng() * 4) : rng.int(1, 6); n > 0; n--) {
        const path = pickLive();
        if (edited.has(path)) continue;
        edited.add(path);
        changes.push([path, editContent(rng, vocabulary, contents.get(path))]);
      }
      if (rng() < 0.12) {
        // churn: add and delete the same number of files, so the count at HEAD stays --files
        for (let n = rng.int(1, 4); n > 0; n--) {
          const added = [newPath(), makeContent(rng, vocabulary, size())];
          const victim = rng.pick(live);
          if (edited.has(victim) || hot.includes(victim)) continue; // skip the pair: the count stays
          edited.add(victim);
          changes.push(added, [victim, null]);
        }
      }
      if (big && c === big.at) changes.push([big.path, makeContent(rng, vocabulary, opts.bigFile)]);
      else if (big && big.edits.includes(c)) changes.push([big.path, editContent(rng, vocabulary, contents.get(big.path))]);
    }

    // Real histories end in the past: minutes apart, 20,000 commits span about a year, so the
    // sessions made on top (dated now) are newer than main, as in any repository (commits dated
    // years ahead made every date-ordered walk, git's and forge's, visit half the history).
    const step = rng.int(600, 6 * 3600);
    time += real ? Math.floor(step / 8) : step;
    const author = rng.pick(AUTHORS);
    const email = `${author.toLowerCase().replace(' ', '.')}@bench.invalid`;
    const message = c === 1 ? 'Import the project\n' : `Change ${changes.length} file(s) (#${c})\n`;
    await write(`commit refs/heads/main\nmark :${c}\n`);
    await write(`author ${author} <${email}> ${time} +0000\ncommitter ${author} <${email}> ${time} +0000\n`);
    await write(`data ${Buffer.byteLength(message)}\n${message}`);
    if (c > 1) await write(`from :${c - 1}\n`);
    for (const [path, content] of changes) {
      if (content === null) {
        await write(`D ${path}\n`);
        bytesAtHead -= contents.get(path).length;
        contents.delete(path);
        const i = live.indexOf(path);
        live[i] = live[live.length - 1];
        live.pop();
      } else {
        await write(`M 100644 inline ${path}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
        if (!contents.has(path) && path !== big?.path) live.push(path);
        bytesAtHead += content.length - (contents.get(path)?.length ?? 0);
        contents.set(path, content);
      }
    }
    await write('\n');
    if (c === 1) for (let n = Math.min(real ? REAL.hotFiles : 300, live.length); n > 0; n--) hot.push(rng.pick(live));
  }
  await write('done\n');
  return real ? { bytesAtHead, bigFile: big ? { path: big.path, bytes: contents.get(big.path)?.length ?? 0 } : null } : { bytesAtHead };
}

// ---------- git ----------

/** No user or system config: the result must not depend on the machine. */
const GIT_ENV = HERMETIC_ENV;

function git(gitdir, args) {
  const result = spawnSync('git', [`--git-dir=${gitdir}`, ...args], { env: GIT_ENV, encoding: 'utf8', maxBuffer: 512 << 20 });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

async function fastImport(gitdir, opts) {
  const child = spawn('git', [`--git-dir=${gitdir}`, 'fast-import', '--quiet', '--done'], {
    env: GIT_ENV,
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  const exited = new Promise((done, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? done() : reject(new Error(`git fast-import exited with ${code}`))));
  });
  // Batch small writes into ~4 MB chunks and respect backpressure.
  let pending = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const chunk = pending.join('');
    pending = [];
    pendingBytes = 0;
    if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r));
  };
  const write = async (text) => {
    pending.push(text);
    pendingBytes += text.length;
    if (pendingBytes > 4 << 20) await flush();
  };
  const info = await writeHistory(opts, write);
  await flush();
  child.stdin.end();
  await exited;
  return info;
}

// ---------- build ----------

async function build(opts) {
  const started = Date.now();
  const staging = `${opts.out}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(dirname(staging), { recursive: true });
  const init = spawnSync('git', ['init', '-q', '--bare', '-b', 'main', staging], { env: GIT_ENV, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`git init failed:\n${init.stderr}`);

  const shape = opts.profile === 'real' ? ` (profile real: ${opts.dirs} directories, a ${opts.bigFile}-byte text file)` : '';
  console.error(`make-repo: generating ${opts.files} files and ${opts.commits} commits${shape} into fast-import...`);
  const info = await fastImport(staging, opts);
  const importSeconds = (Date.now() - started) / 1000;

  console.error(`make-repo: imported in ${importSeconds.toFixed(1)} s; repacking with deltas...`);
  git(staging, ['repack', '-adf', '--window=10', '--depth=50']);
  git(staging, ['prune-packed']);
  const repackSeconds = (Date.now() - started) / 1000 - importSeconds;

  const summary = {
    path: opts.out,
    ...(opts.profile === 'real' ? { profile: 'real' } : {}),
    ...stats(staging, opts.profile === 'real'),
    bytesAtHead: info.bytesAtHead,
    ...(opts.profile === 'real' ? { bigFile: info.bigFile } : {}),
    buildSeconds: { import: round(importSeconds), repack: round(repackSeconds), total: round(importSeconds + repackSeconds) },
  };
  const stamp = { generator: 'forge-bench-make-repo', version: GENERATOR_VERSION, params: paramsOf(opts), summary };
  writeFileSync(join(staging, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
  rmSync(opts.out, { recursive: true, force: true });
  renameSync(staging, opts.out); // only a complete repo ever appears at --out
  return summary;
}

function stats(gitdir, real = false) {
  const packDir = join(gitdir, 'objects', 'pack');
  const packs = readdirSync(packDir).filter((f) => f.endsWith('.pack'));
  if (packs.length !== 1) throw new Error(`expected one pack, found ${packs.length}`);
  const bases = git(gitdir, ['cat-file', '--batch-all-objects', '--batch-check=%(objecttype) %(deltabase)']).trim().split('\n');
  const entries = git(gitdir, ['ls-tree', '-r', '-t', '-z', '--format=%(objecttype) %(path)', 'main']).split('\0').filter(Boolean);
  const files = entries.filter((e) => e.startsWith('blob ')).map((e) => e.slice(5));
  const extra = real ? realStats(gitdir, packDir, packs[0], files) : {};
  return {
    head: git(gitdir, ['rev-parse', 'main']).trim(),
    files: files.length,
    directories: entries.length - files.length,
    maxDirectoryDepth: Math.max(...files.map((f) => f.split('/').length - 1)),
    commits: Number(git(gitdir, ['rev-list', '--count', 'main']).trim()),
    objects: bases.length,
    deltifiedObjects: bases.filter((line) => !/ 0{40}$/.test(line)).length,
    packBytes: statSync(join(packDir, packs[0])).size,
    looseObjects: Number(/^count: (\d+)$/m.exec(git(gitdir, ['count-objects', '-v']))[1]),
    ...extra,
  };
}

/** The real profile's extra figures: the .idx size, file depths and delta chain lengths. */
function realStats(gitdir, packDir, pack, files) {
  const base = new Map();
  let trees = 0;
  for (const line of git(gitdir, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype) %(deltabase)']).trim().split('\n')) {
    const [oid, type, deltaBase] = line.split(' ');
    if (type === 'tree') trees++;
    if (!/^0+$/.test(deltaBase)) base.set(oid, deltaBase);
  }
  const depth = new Map();
  const chain = (oid) => {
    const path = [];
    let o = oid;
    while (base.has(o) && !depth.has(o)) {
      path.push(o);
      o = base.get(o);
    }
    let d = depth.get(o) ?? 0;
    for (let i = path.length - 1; i >= 0; i--) depth.set(path[i], ++d);
    return d;
  };
  const chains = [...base.keys()].map(chain).sort((a, b) => a - b);
  const fileDepths = files.map((f) => f.split('/').length - 1);
  return {
    treeObjects: trees,
    idxBytes: statSync(join(packDir, pack.replace(/\.pack$/, '.idx'))).size,
    meanFileDepth: Math.round((fileDepths.reduce((a, b) => a + b, 0) / Math.max(1, files.length)) * 10) / 10,
    deltaChain: { median: chains[chains.length >> 1] ?? 0, p90: chains[Math.floor(chains.length * 0.9)] ?? 0, max: chains[chains.length - 1] ?? 0 },
  };
}

/** The default profile's params are as they always were, so its stamps stay valid; real ones name the profile. */
const paramsOf = (opts) =>
  opts.profile === 'real'
    ? { profile: 'real', files: opts.files, commits: opts.commits, seed: opts.seed, dirs: opts.dirs, bigFile: opts.bigFile, dates: 2 }
    : { files: opts.files, commits: opts.commits, seed: opts.seed };
const round = (seconds) => Math.round(seconds * 10) / 10;

/** The stamped summary if `out` holds a finished build of the same parameters. */
function reusable(opts) {
  const stampPath = join(opts.out, STAMP_FILE);
  if (opts.force || !existsSync(stampPath)) return undefined;
  try {
    const stamp = JSON.parse(readFileSync(stampPath, 'utf8'));
    const same = stamp.version === GENERATOR_VERSION && JSON.stringify(stamp.params) === JSON.stringify(paramsOf(opts));
    return same && git(opts.out, ['rev-parse', 'main']).trim() === stamp.summary.head ? stamp.summary : undefined;
  } catch {
    return undefined;
  }
}

const opts = parseArgs(process.argv.slice(2));
const cached = reusable(opts);
const summary = cached ? { ...cached, reused: true } : { ...(await build(opts)), reused: false };
console.log(JSON.stringify(summary, null, 2));
