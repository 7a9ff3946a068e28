/**
 * What the turn-committing cases of bench/real-like.mjs share: picking files at main, giving them
 * new contents, running a git plumbing script on the same files, a branch per run at main, and
 * checking every turn commit afterwards (its ref, parent, changed paths and blob oids).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha1 } from '../bench-kit.mjs';

export const blobOid = (bytes) => sha1(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]));
export const pad = (n) => String(n).padStart(2, '0');

/** The input of bench/git-turn.sh for `files` on `branch`: DIR/blobs (content files) and DIR/paths (their repository paths). */
export function gitTurnInput(work, branch, files) {
  const dir = join(work, 'turn', branch.replace(/\//g, '-'));
  mkdirSync(join(dir, 'c'), { recursive: true });
  const contentFiles = files.map((f, i) => {
    const file = join(dir, 'c', String(i));
    writeFileSync(file, f.content);
    return file;
  });
  writeFileSync(join(dir, 'blobs'), contentFiles.join('\n') + '\n');
  writeFileSync(join(dir, 'paths'), files.map((f) => f.path).join('\n') + '\n');
  return dir;
}

export function turnKit(ctx) {
  const { repo, scenario, blobsOf, work, gitdir } = ctx;
  const mainFiles = repo.files.filter((f) => f !== scenario.big && f.mode === '100644' && f.size > 0);
  /** n files at main spread over the sorted path list. */
  const spread = (n) => Array.from({ length: n }, (_, i) => mainFiles[Math.floor(((i + 0.5) * mainFiles.length) / n)]);
  /** Their contents with a first line naming the side and run (no shared objects between runs or sides). */
  const contentsOf = (files, tag) => {
    const blobs = blobsOf(files.map((f) => f.oid));
    return files.map((f) => ({ path: f.path, content: Buffer.concat([Buffer.from(`// forge-bench ${tag}\n`), blobs.get(f.oid)]) }));
  };
  /** A git script (bench/git-turn.sh by default) committing `files` on `branch`, timed. */
  const gitTurnRun = (branch, files, script, extraArgs = []) => {
    const dir = gitTurnInput(work, branch, files);
    const r = ctx.timeProcess('bash', [script, gitdir, branch, ...extraArgs, dir], { encoding: 'utf8' });
    return { ...r, dir };
  };
  /** One branch at main per run (warm-up included), made before the timing. */
  const mainBranches = (prefix) => {
    const names = Array.from({ length: ctx.runs + 1 }, (_, i) => `real/${prefix}-${i}`);
    ctx.gitOut(['update-ref', '--stdin'], { input: names.map((b) => `create refs/heads/${b} ${scenario.main}\n`).join('') });
    return names;
  };
  return { spread, contentsOf, gitTurnRun, mainBranches };
}

/** Each turn: its ref points at it, its parent is right, it changed exactly the expected paths, to the expected blobs. */
export function validateTurns(ctx, turns) {
  const { check, gitOut } = ctx;
  const refs = new Map(gitOut(['for-each-ref', '--format=%(refname) %(objectname)']).trim().split('\n').map((l) => l.split(' ')));
  for (const t of turns) {
    const what = `${t.side} ${t.key} commit ${t.commit}`;
    if (!check(t.key, refs.get(t.ref) === t.commit, `${t.ref} is ${refs.get(t.ref)}, not the turn commit ${what}`)) continue;
    const parent = gitOut(['rev-parse', `${t.commit}^`]).trim();
    if (!check(t.key, parent === t.parent, `${what}: parent ${parent}, expected ${t.parent}`)) continue;
    const raw = gitOut(['diff-tree', '-r', '--no-renames', '-z', t.parent, t.commit]).split('\0');
    const changed = new Map();
    for (let k = 0; k + 1 < raw.length; k += 2) changed.set(raw[k + 1], raw[k].split(' ')[3]);
    const expected = [...t.files.map(([p]) => p), ...t.extra].sort();
    check(t.key, JSON.stringify([...changed.keys()].sort()) === JSON.stringify(expected), `${what} changed ${changed.size} paths, expected ${expected.length}`);
    const wrong = t.files.filter(([path, oid]) => changed.get(path) !== oid);
    check(t.key, wrong.length === 0, `${what}: ${wrong.length} files do not hold the expected bytes (first: ${wrong[0]?.[0]})`);
  }
}
