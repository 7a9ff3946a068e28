/** An agent's workspace: session new + a 10-file turn vs git worktree add + edit + commit (+ remove); time and disk. */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { median } from '../../bench-kit.mjs';
import { fmtKiB, fmtMs } from '../../lib/format.mjs';
import { SCENARIO } from '../../lib/real-scenario.mjs';
import { blobOid, pad, turnKit } from '../../lib/turn-commits.mjs';

export const name = 'workspace';

export function run(ctx) {
  const { measure, forge, gitOut, runs, work, gitdir, scenario, turns, check } = ctx;
  const { spread, contentsOf, gitTurnRun } = turnKit(ctx);
  /** Disk used by a directory tree, in KiB (allocated blocks, as `du -sk`). */
  const diskKiB = (...paths) => paths.filter((p) => existsSync(p)).reduce((sum, p) => sum + Number(ctx.run('du', ['-sk', p]).split('\t')[0]), 0);
  const wtSet = spread(SCENARIO.worktree.files + 3).slice(2, 2 + SCENARIO.worktree.files); // not the files of the turn cases' ends
  const wtBranches = Array.from({ length: runs + 1 }, (_, i) => `real/worktree-${i}`);
  const removals = [];
  const workspace = measure('session new + 10-file turn vs git worktree add + edit + commit', runs, {
    nodeStarts: 2,
    forge: (i) => {
      const id = `rl-ws-${i}`;
      const files = contentsOf(wtSet, `F-ws-${pad(i)}`);
      const calls = join(work, `calls-ws-${i}.json`);
      writeFileSync(calls, JSON.stringify(files.flatMap((f) => [
        { tool: 'read_file', args: { path: f.path } },
        { tool: 'write_file', args: { path: f.path, content: f.content.toString('utf8') } },
      ])));
      const diskBefore = diskKiB(gitdir);
      const a = forge(['session', 'new', '--base', 'main', '--id', id, '--json']);
      const start = gitOut(['rev-parse', `refs/heads/forge/session/${id}`]).trim(); // between the two timed processes
      const b = forge(['turn', '--session', id, '--calls', calls, '--json']);
      const diskAfter = diskKiB(gitdir);
      rmSync(calls);
      const out = JSON.parse(b.stdout.toString('utf8'));
      check('workspace', out.results?.every((x) => x.ok), `forge turn: a call failed: ${JSON.stringify(out.results?.find((x) => !x.ok) ?? out).slice(0, 500)}`);
      turns.push({ key: 'workspace', side: 'forge', ref: `refs/heads/forge/session/${id}`, commit: out.commit, parent: start, files: files.map((f) => [f.path, blobOid(f.content)]), extra: [`.forge/sessions/${id}.json`] });
      return { ms: a.ms + b.ms, rssKiB: Math.max(a.rssKiB ?? 0, b.rssKiB ?? 0) || null, diskKiB: diskAfter - diskBefore };
    },
    git: (i) => {
      const wt = join(work, 'wt', String(i));
      mkdirSync(dirname(wt), { recursive: true });
      const files = contentsOf(wtSet, `G-ws-${pad(i)}`);
      const diskBefore = diskKiB(gitdir);
      const r = gitTurnRun(wtBranches[i], files, ctx.GIT_WORKTREE_TURN, [wt]);
      const diskAfter = diskKiB(gitdir, wt);
      rmSync(r.dir, { recursive: true, force: true });
      turns.push({ key: 'workspace', side: 'git', ref: `refs/heads/${wtBranches[i]}`, commit: r.stdout.trim(), parent: scenario.main, files: files.map((f) => [f.path, blobOid(f.content)]), extra: [] });
      const removal = ctx.timeProcess('git', [`--git-dir=${gitdir}`, 'worktree', 'remove', wt]);
      if (i > 0) removals.push(removal);
      return { ms: r.ms, rssKiB: r.rssKiB, diskKiB: diskAfter - diskBefore };
    },
  });
  const workspaceDisk = { forge: workspace.med(workspace.results.forge, 'diskKiB'), git: workspace.med(workspace.results.git, 'diskKiB'), unit: 'KiB' };
  const worktreeRemove = { forge: null, git: median(removals.map((r) => r.ms)), gitSpan: [Math.min(...removals.map((r) => r.ms)), Math.max(...removals.map((r) => r.ms))], gitRss: Math.max(...removals.map((r) => r.rssKiB ?? 0)) || null };
  ctx.log(`workspace disk: forge ${fmtKiB(workspaceDisk.forge)}, git ${fmtKiB(workspaceDisk.git)}; worktree remove ${fmtMs(worktreeRemove.git)}`);
  return { workspace, workspaceDisk, worktreeRemove };
}

export function rows() {
  return [
    { key: 'workspace', label: '`forge session new` + a 10-file turn (read + write each) vs `git worktree add` + edit + `git add` + `git commit` (bench/git-worktree-turn.sh): time (own time: minus two `node -e 0`)', check: 'workspace' },
    { key: 'workspaceDisk', label: '… disk used (`du -sk` of the repository, + the worktree for git)' },
    { key: 'worktreeRemove', label: '… `git worktree remove` afterwards (forge: nothing to remove)' },
  ];
}

export function notes() {
  return ['- **workspace**: forge: `forge session new` + one `forge turn` that reads and writes 10 files (two processes, times added, peak RSS the larger); git: bench/git-worktree-turn.sh (`git worktree add -b <branch>` from main, which checks out every file, copy the 10 files in, `git add`, `git commit`); `git worktree remove` is timed after, apart. Disk: `du -sk` of the repository after minus before (and the worktree, for git). Both commits are checked as the turns above.'];
}
