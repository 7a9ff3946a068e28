#!/usr/bin/env node
/**
 * Time and peak RSS of long `forge turn`s and of a big edit (issue 30, items 3 and 4 and the RSS
 * item), each a whole process, beside its git counterpart or Node's own start:
 *
 *   - a `forge turn` of 1,000 `write_file` calls (new files) vs bench/git-turn.sh (hash-object -w
 *     --stdin-paths + update-index + write-tree + commit-tree + update-ref), alternating;
 *   - the same with 10,000 calls (peak RSS is the point);
 *   - a ranged `read_file` + one-line `Edit` + commit of a 50 MB file vs `node -e 0` (the
 *     runtime's own peak RSS) and bench/git-big-edit.sh.
 *
 *   node bench/turn-memory-bench.mjs [--runs 5] [--cases turn1000,turn10000,bigEdit]
 *        [--big-bytes 50000000] [--forge-bin dist/cli.js] [--before-bin OTHER/dist/cli.js] [--keep]
 *
 * --before-bin: another build (e.g. the commit before a change) whose `forge turn`s run in the
 * same loop, alternating with the others, as a "before" row.
 *
 * Every commit is checked with git (its files' blob oids, the edited line), and `git fsck
 * --strict` of the repository is clean at the end. Prints a markdown table (medians).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median, prng, ROOT, run, sha1, timeProcess } from './bench-kit.mjs';

const opts = { runs: 5, cases: ['turn1000', 'turn10000', 'bigEdit'], bigBytes: 50_000_000, forgeBin: join(ROOT, 'dist', 'cli.js'), beforeBin: null, keep: false };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--runs') opts.runs = Number(process.argv[++i]);
  else if (a === '--cases') opts.cases = process.argv[++i].split(',');
  else if (a === '--big-bytes') opts.bigBytes = Number(process.argv[++i]);
  else if (a === '--forge-bin') opts.forgeBin = resolve(process.argv[++i]);
  else if (a === '--before-bin') opts.beforeBin = resolve(process.argv[++i]);
  else if (a === '--keep') opts.keep = true;
  else throw new Error(`unknown argument ${a}`);
}
const MiB = 1024; // KiB per MiB
const log = (s) => process.stderr.write(`${s}\n`);
const check = (ok, what) => {
  if (!ok) throw new Error(`check failed: ${what}`);
};
const blobOid = (bytes) => sha1(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]));

const work = mkdtempSync(join(tmpdir(), 'forge-turn-mem-'));
const repo = join(work, 'repo');
const git = (args, o = {}) => run('git', ['-C', repo, ...args], o);
const forge = (args, bin = opts.forgeBin) => timeProcess(process.execPath, [bin, ...args, '--repo', repo]);

// ---- the repository: a few hundred small files, and the big text file when asked for
const rand = prng(30);
const word = () => ['const', 'value', 'return', 'function', 'x', 'y', '"str\\n"', 'ünï', '=>', '{', '}', '(a, b)'][Math.floor(rand() * 12)];
const line = () => Array.from({ length: 4 + Math.floor(rand() * 10) }, word).join(' ');
const text = (lines) => `${Array.from({ length: lines }, line).join('\n')}\n`;
run('git', ['init', '-q', '-b', 'main', repo]);
for (let i = 0; i < 300; i++) {
  mkdirSync(join(repo, 'src', `d${i % 20}`), { recursive: true });
  writeFileSync(join(repo, 'src', `d${i % 20}`, `f${i}.ts`), text(40));
}
const bigPath = 'big/big.txt';
let bigBytes = null;
if (opts.cases.includes('bigEdit')) {
  mkdirSync(join(repo, 'big'), { recursive: true });
  const parts = [];
  let size = 0;
  while (size < opts.bigBytes) {
    const t = text(200);
    parts.push(t);
    size += Buffer.byteLength(t);
  }
  bigBytes = Buffer.from(parts.join(''));
  writeFileSync(join(repo, bigPath), bigBytes);
}
git(['config', 'user.name', 'Bench']);
git(['config', 'user.email', 'bench@example.com']);
git(['add', '-A']);
git(['commit', '-qm', 'base']);
git(['repack', '-adq']);
rmSync(join(repo, bigPath), { force: true }); // forge never reads the checkout; keep the disk small

const results = [];
const row = (name, forgeRuns, other, target) => results.push({ name, forgeRuns, other, target });

function turnCase(n) {
  log(`forge turn of ${n} write_file calls vs bench/git-turn.sh, ${opts.runs} runs`);
  const forgeRuns = [];
  const gitRuns = [];
  const beforeRuns = [];
  for (let i = 0; i < opts.runs; i++) {
    const id = `t${n}-${i}`;
    if (opts.beforeBin) {
      // The other build, on files of the same sizes (its own paths and first lines).
      const bid = `b${n}-${i}`;
      const bfiles = Array.from({ length: n }, (_, k) => [`gen/b${i}/d${k % 32}/f${k}.txt`, Buffer.from(`before ${bid} ${k}\n${text(20 + (k % 40))}`)]);
      run(process.execPath, [opts.beforeBin, 'session', 'new', '--base', 'main', '--id', bid, '--repo', repo]);
      const bcalls = join(work, `calls-${bid}.json`);
      writeFileSync(bcalls, JSON.stringify(bfiles.map(([path, b]) => ({ tool: 'write_file', args: { path, content: b.toString('utf8') } }))));
      const b = forge(['turn', '--session', bid, '--calls', bcalls, '--json'], opts.beforeBin);
      rmSync(bcalls);
      const bout = JSON.parse(b.stdout.toString('utf8'));
      check(bout.results.length === n && bout.results.every((r) => r.ok), `before turn ${bid}: a call failed`);
      const listed = new Map(git(['ls-tree', '-r', bout.commit, `gen/b${i}`]).trim().split('\n').map((l) => [l.split('\t')[1], l.split('\t')[0].split(' ')[2]]));
      check(listed.size === n && bfiles.every(([p, bb]) => listed.get(p) === blobOid(bb)), `before turn ${bid}: the committed blobs differ`);
      beforeRuns.push(b);
      log(`  run ${i}: before ${b.ms.toFixed(0)} ms ${(b.rssKiB / MiB).toFixed(1)} MiB`);
    }
    const files = Array.from({ length: n }, (_, k) => [`gen/r${i}/d${k % 32}/f${k}.txt`, Buffer.from(`forge ${id} ${k}\n${text(20 + (k % 40))}`)]);
    const gitFiles = files.map(([p, b]) => [p, Buffer.concat([Buffer.from(`git ${id}\n`), b])]);
    // forge
    run(process.execPath, [opts.forgeBin, 'session', 'new', '--base', 'main', '--id', id, '--repo', repo]);
    const calls = join(work, `calls-${id}.json`);
    writeFileSync(calls, JSON.stringify(files.map(([path, b]) => ({ tool: 'write_file', args: { path, content: b.toString('utf8') } }))));
    const f = forge(['turn', '--session', id, '--calls', calls, '--json']);
    rmSync(calls);
    const out = JSON.parse(f.stdout.toString('utf8'));
    check(out.results.length === n && out.results.every((r) => r.ok), `forge turn ${id}: a call failed`);
    forgeRuns.push(f);
    // git
    const dir = join(work, `git-${id}`);
    mkdirSync(dir);
    gitFiles.forEach(([, b], k) => writeFileSync(join(dir, `b${k}`), b));
    writeFileSync(join(dir, 'blobs'), gitFiles.map((_, k) => join(dir, `b${k}`)).join('\n') + '\n');
    writeFileSync(join(dir, 'paths'), gitFiles.map(([p]) => p).join('\n') + '\n');
    git(['branch', `g-${id}`, 'main']);
    const g = timeProcess('bash', [join(ROOT, 'bench', 'git-turn.sh'), join(repo, '.git'), `g-${id}`, dir]);
    rmSync(dir, { recursive: true, force: true });
    gitRuns.push(g);
    // both commits hold exactly these blobs
    for (const [ref, list, commit] of [[`forge/session/${id}`, files, out.commit], [`g-${id}`, gitFiles, g.stdout.toString().trim()]]) {
      check(git(['rev-parse', ref]).trim() === commit, `${ref} is not at the printed commit`);
      const listed = new Map(git(['ls-tree', '-r', commit, `gen/r${i}`]).trim().split('\n').map((l) => [l.split('\t')[1], l.split('\t')[0].split(' ')[2]]));
      check(listed.size === n && list.every(([p, b]) => listed.get(p) === blobOid(b)), `${ref}: the committed blobs differ from the written ones`);
    }
    log(`  run ${i}: forge ${f.ms.toFixed(0)} ms ${(f.rssKiB / MiB).toFixed(1)} MiB, git ${g.ms.toFixed(0)} ms ${(g.rssKiB / MiB).toFixed(1)} MiB`);
  }
  const target = n === 1000 ? '≤ 1x git; peak RSS < 150 MiB' : 'peak RSS < 151 MiB';
  if (opts.beforeBin) row(`… the same with the before build (${opts.beforeBin})`, beforeRuns, { name: 'git plumbing', runs: gitRuns }, target);
  row(`\`forge turn\` of ${n.toLocaleString('en')} \`write_file\` calls (new files) vs bench/git-turn.sh`, forgeRuns, { name: 'git plumbing', runs: gitRuns }, target);
}

function bigEditCase() {
  log(`${opts.bigBytes / 1e6} MB file: ranged read + one-line Edit + commit, ${opts.runs} runs`);
  const starts = [0];
  for (let k = bigBytes.indexOf(10); k !== -1 && k < bigBytes.length - 1; k = bigBytes.indexOf(10, k + 1)) starts.push(k + 1);
  const editLine = Math.floor(starts.length / 2);
  const [from, to] = [editLine - 10, editLine + 10];
  const edited = (t) => Buffer.concat([bigBytes.subarray(0, starts[editLine - 1]), Buffer.from(`${t}\n`), bigBytes.subarray(starts[editLine])]);
  const forgeRuns = [];
  const beforeRuns = [];
  const nodeRuns = [];
  const gitRuns = [];
  const bigTurn = (id, t, bin) => {
    run(process.execPath, [bin, 'session', 'new', '--base', 'main', '--id', id, '--repo', repo]);
    const calls = join(work, `calls-${id}.json`);
    writeFileSync(calls, JSON.stringify([
      { tool: 'read_file', args: { path: bigPath, start_line: from, end_line: to } },
      { tool: 'Edit', args: { path: bigPath, start_line: editLine, end_line: editLine, new_content: `${t}\n` } },
    ]));
    const f = forge(['turn', '--session', id, '--calls', calls, '--json'], bin);
    const out = JSON.parse(f.stdout.toString('utf8'));
    check(out.results.length === 2 && out.results.every((r) => r.ok), `forge turn ${id}: ${JSON.stringify(out.results).slice(0, 300)}`);
    check(git(['rev-parse', `${out.commit}:${bigPath}`]).trim() === blobOid(edited(t)), `${id}: the committed file is not the expected edit`);
    return f;
  };
  for (let i = 0; i < opts.runs; i++) {
    nodeRuns.push(timeProcess(process.execPath, ['-e', '0']));
    if (opts.beforeBin) {
      const b = bigTurn(`big-before-${i}`, `edited by the before build run ${i}`, opts.beforeBin);
      beforeRuns.push(b);
      log(`  run ${i}: before ${b.ms.toFixed(0)} ms ${(b.rssKiB / MiB).toFixed(1)} MiB`);
    }
    const f = bigTurn(`big-${i}`, `edited by forge run ${i}`, opts.forgeBin);
    forgeRuns.push(f);
    const gt = `edited by git run ${i}`;
    git(['branch', `gb-${i}`, 'main']);
    const dir = join(work, `gitbig-${i}`);
    mkdirSync(dir);
    const g = timeProcess('bash', [join(ROOT, 'bench', 'git-big-edit.sh'), join(repo, '.git'), `gb-${i}`, bigPath, String(from), String(to), String(editLine), gt, dir]);
    rmSync(dir, { recursive: true, force: true });
    check(git(['rev-parse', `gb-${i}:${bigPath}`]).trim() === blobOid(edited(gt)), `git run ${i}: the committed file is not the expected edit`);
    gitRuns.push(g);
    log(`  run ${i}: forge ${f.ms.toFixed(0)} ms ${(f.rssKiB / MiB).toFixed(1)} MiB, node -e 0 ${(nodeRuns.at(-1).rssKiB / MiB).toFixed(1)} MiB, git ${g.ms.toFixed(0)} ms`);
  }
  const base = median(nodeRuns.map((r) => r.rssKiB));
  const over = (median(forgeRuns.map((r) => r.rssKiB)) - base) * 1024;
  if (opts.beforeBin) {
    const beforeOver = (median(beforeRuns.map((r) => r.rssKiB)) - base) * 1024;
    row(`… the same with the before build (${opts.beforeBin}): ${(beforeOver / 2 ** 20).toFixed(1)} MiB above \`node -e 0\` = ${(beforeOver / bigBytes.length).toFixed(2)}x the file`, beforeRuns, { name: 'git plumbing', runs: gitRuns }, '');
  }
  row(`${opts.bigBytes / 1e6} MB file: ranged \`read_file\` + one-line \`Edit\` + commit vs bench/git-big-edit.sh; forge's peak RSS above \`node -e 0\` (${(base / MiB).toFixed(1)} MiB): ${(over / 2 ** 20).toFixed(1)} MiB = ${(over / bigBytes.length).toFixed(2)}x the file`, forgeRuns, { name: 'git plumbing', runs: gitRuns }, `peak RSS ≤ node -e 0 + 3x the file (${((base * 1024 + 3 * bigBytes.length) / 2 ** 20).toFixed(0)} MiB)`);
}

try {
  for (const c of opts.cases) {
    if (c === 'turn1000') turnCase(1000);
    else if (c === 'turn10000') turnCase(10000);
    else if (c === 'bigEdit') bigEditCase();
    else throw new Error(`unknown case ${c}`);
  }
  const fsck = run('git', ['-C', repo, 'fsck', '--strict', '--no-dangling'], { ok: [0] });
  check(!/error|missing|broken/i.test(fsck), `git fsck --strict: ${fsck}`);
  const lines = [
    `| case | forge (ms) | other (ms) | forge/other | forge peak RSS (MiB) | other peak RSS (MiB) | target |`,
    `|---|---|---|---|---|---|---|`,
  ];
  for (const r of results) {
    const fm = median(r.forgeRuns.map((x) => x.ms));
    const om = median(r.other.runs.map((x) => x.ms));
    const frss = median(r.forgeRuns.map((x) => x.rssKiB)) / MiB;
    const orss = median(r.other.runs.map((x) => x.rssKiB)) / MiB;
    lines.push(`| ${r.name} | ${fm.toFixed(0)} | ${om.toFixed(0)} | ${(fm / om).toFixed(2)}x | ${frss.toFixed(1)} | ${orss.toFixed(1)} | ${r.target} |`);
  }
  lines.push('', `Medians of ${opts.runs} runs, whole processes, peak RSS from \`/usr/bin/time -f %M\` (a script's: its largest process's). \`git fsck --strict\` clean.`);
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  if (!opts.keep) rmSync(work, { recursive: true, force: true });
  else log(`kept ${work}`);
}
