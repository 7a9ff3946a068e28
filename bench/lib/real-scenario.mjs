/**
 * The real-like bench's scenario (bench/real-like.mjs): the branches every case works on, made
 * once per run with one `git fast-import` on the copy of the generated repository.
 */
import { prng } from '../bench-kit.mjs';

export const SCENARIO = {
  merge: { files: 100, commits: 10, conflicting: 20 },
  diff: { files: 100, commits: 10 },
  lsChild: { files: 10 },
  worktree: { files: 10 },
  turn: [10, 1000],
};

/**
 * Picks the files of every case from `main` (deterministic: a seeded shuffle of the text files of
 * 12 lines or more, 300 B-20 KB, the large file excluded) and writes, with ONE fast-import:
 *   refs/heads/real/merge-ours                 10 commits x 10 files of set A, line 2 edited
 *   refs/heads/forge/session/rl-merge-clean    10 commits x 10 files of set B (other files)
 *   refs/heads/forge/session/rl-merge-overlap  the files of A again: 20 of them edit line 2
 *                                              differently (conflicts), 80 a line near the end
 *   refs/heads/forge/session/rl-diff           10 commits x 10 files of set C: lines inserted,
 *                                              deleted and replaced
 *   refs/heads/real/ls-child-<i>               one commit on main changing 10 files, one per run
 */
export function buildScenario(gitdir, repo, blobsOf, runs, run) {
  const main = run('git', [`--git-dir=${gitdir}`, 'rev-parse', 'main']).trim();
  const big = repo.files.reduce((a, b) => (b.size > a.size ? b : a));
  const rng = prng(19);
  const candidates = repo.files.filter((f) => f.mode === '100644' && f !== big && f.size >= 300 && f.size <= 20_000);
  for (let i = candidates.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
  }
  const needed = SCENARIO.merge.files * 2 + SCENARIO.diff.files + SCENARIO.lsChild.files;
  const pool = candidates.slice(0, needed * 2);
  const blobs = blobsOf(pool.map((f) => f.oid));
  const usable = pool.map((f) => ({ ...f, lines: blobs.get(f.oid).toString('utf8').split('\n') })).filter((f) => f.lines.length >= 13 && f.lines.at(-1) === '');
  if (usable.length < needed) throw new Error(`only ${usable.length} usable text files for the scenario, ${needed} needed`);
  let next = 0;
  const take = (n) => usable.slice(next, (next += n));
  const sets = { A: take(SCENARIO.merge.files), B: take(SCENARIO.merge.files), C: take(SCENARIO.diff.files), L: take(SCENARIO.lsChild.files) };

  const parts = [];
  let time = 1_735_689_600;
  const commit = (ref, from, message, changes) => {
    time += 60;
    parts.push(`commit ${ref}\ncommitter Bench <bench@bench.invalid> ${time} +0000\ndata ${Buffer.byteLength(message)}\n${message}${from ? `from ${from}\n` : ''}`);
    for (const [path, content] of changes) parts.push(`M 100644 inline ${path}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
    parts.push('\n');
  };
  const edited = (file, at, text) => {
    const lines = [...file.lines];
    lines[at] = `${lines[at]} // ${text}`;
    return lines.join('\n');
  };
  const inCommits = (ref, files, commits, change) => {
    const per = Math.ceil(files.length / commits);
    for (let c = 0; c < commits; c++) {
      const slice = files.slice(c * per, (c + 1) * per);
      commit(ref, c === 0 ? main : null, `bench: ${ref.replace('refs/heads/', '')} ${c + 1}\n`, slice.map((f, k) => [f.path, change(f, c * per + k)]));
    }
  };
  const { commits, conflicting } = SCENARIO.merge;
  inCommits('refs/heads/real/merge-ours', sets.A, commits, (f) => edited(f, 1, 'ours: edited near the top'));
  inCommits('refs/heads/forge/session/rl-merge-clean', sets.B, commits, (f) => edited(f, f.lines.length - 4, 'theirs: edited near the end'));
  inCommits('refs/heads/forge/session/rl-merge-overlap', sets.A, commits, (f, k) =>
    k < conflicting ? edited(f, 1, 'theirs: the same line, otherwise') : edited(f, f.lines.length - 4, 'theirs: edited near the end'));
  inCommits('refs/heads/forge/session/rl-diff', sets.C, SCENARIO.diff.commits, (f) => {
    const lines = f.lines.slice(0, -1);
    for (let n = rng.int(1, 3); n > 0; n--) {
      const at = rng.int(1, lines.length - 2);
      const kind = rng();
      if (kind < 0.4) lines.splice(at, 0, ...Array.from({ length: rng.int(1, 12) }, (_, i) => `  added line ${i} of a diff bench edit ${rng.int(0, 1e6)}`));
      else if (kind < 0.7) lines.splice(at, rng.int(1, 3));
      else lines[at] = `  replaced by the diff bench ${rng.int(0, 1e6)}`;
    }
    return `${lines.join('\n')}\n`;
  });
  // check-only: a diff with insertions only and one with deletions only (git's summary omits the zero)
  commit('refs/heads/forge/session/rl-diff-insert', main, 'bench: insertions only\n', sets.C.slice(0, 5).map((f) => [f.path, [...f.lines.slice(0, 3), '  inserted by the bench', ...f.lines.slice(3)].join('\n')]));
  commit('refs/heads/forge/session/rl-diff-delete', main, 'bench: deletions only\n', sets.C.slice(5, 10).map((f) => [f.path, [...f.lines.slice(0, 3), ...f.lines.slice(5)].join('\n')]));
  for (let i = 0; i <= runs; i++) {
    commit(`refs/heads/real/ls-child-${i}`, main, `bench: a child of main to list (${i})\n`, sets.L.map((f) => [f.path, edited(f, 1, `ls child ${i}`)]));
  }
  run('git', [`--git-dir=${gitdir}`, 'fast-import', '--quiet'], { input: parts.join('') });
  return { main, big, sets };
}
