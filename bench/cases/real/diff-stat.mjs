/** diff --stat of a 100-file session against main vs git diff --stat main...<session>. */
import { statDifference } from '../../lib/checks.mjs';

export const name = 'diff-stat';

export function run(ctx) {
  const { check, measure, forge, git, gitOut, runs } = ctx;
  const gitStat = gitOut(['diff', '--stat', 'main...forge/session/rl-diff']);
  const diffStat = measure('diff --stat', runs, {
    forge: () => {
      const r = forge(['diff', 'rl-diff', '--against', 'main', '--stat']);
      const text = r.stdout.toString('utf8');
      check('diffStat', text === gitStat, `forge diff rl-diff --stat differs from git diff --stat: ${statDifference(text, gitStat)}`);
      return r;
    },
    git: () => git(['diff', '--stat', 'main...forge/session/rl-diff']),
  });
  for (const session of ['rl-diff-insert', 'rl-diff-delete']) {
    const text = ctx.run(process.execPath, [ctx.forgeBin, 'diff', session, '--against', 'main', '--stat', '--repo', ctx.gitdir]);
    const expected = gitOut(['diff', '--stat', `main...forge/session/${session}`]);
    check('diffStat', text === expected, `forge diff ${session} --stat differs from git diff --stat: ${statDifference(text, expected)}`);
  }
  return { diffStat };
}

export function rows() {
  return [{ key: 'diffStat', label: '`forge diff --against main --stat`, 100 files vs `git diff --stat main...<session>`', check: 'diffStat', target: { text: '≤ 2x git, forge own time', own: 2 } }];
}

export function notes() {
  return ['- **diff --stat**: session `rl-diff` inserts, deletes and replaces lines in 100 files (10 commits). `forge diff rl-diff --against main --stat` vs `git diff --stat main...forge/session/rl-diff` (80 columns: not a terminal); the outputs must be equal byte for byte, summary line included. Also checked once, untimed: a session with insertions only and one with deletions only (git\'s summary then omits "0 deletions(-)" / "0 insertions(+)").'];
}
