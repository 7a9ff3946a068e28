/** merge --dry-run: clean (100 + 100 other files) and overlapping (the same 100, 20 conflicting) vs git merge-tree. */
import { SCENARIO } from '../../lib/real-scenario.mjs';

export const name = 'merge';

export function run(ctx) {
  const { check, measure, forge, git, gitOut, runs } = ctx;
  const cases = {};
  cases.mergeClean = measure('merge --dry-run, clean', runs, {
    forge: () => {
      const r = forge(['merge', 'rl-merge-clean', '--into', 'real/merge-ours', '--dry-run', '--json']);
      const out = JSON.parse(r.stdout.toString('utf8'));
      const expected = gitOut(['merge-tree', '--write-tree', 'real/merge-ours', 'forge/session/rl-merge-clean']).trim();
      check('mergeClean', out.status === 'merged' && out.tree === expected, `forge merge --dry-run: status ${out.status}, tree ${out.tree}; git merge-tree: clean, tree ${expected}`);
      return r;
    },
    git: () => git(['merge-tree', '--write-tree', 'real/merge-ours', 'forge/session/rl-merge-clean']),
  });

  const overlapGit = () => {
    const r = git(['merge-tree', '--write-tree', 'real/merge-ours', 'forge/session/rl-merge-overlap'], { ok: [1] });
    const [head] = r.stdout.toString('utf8').split('\n\n');
    const [tree, ...stages] = head.split('\n');
    return { ...r, tree, conflicted: [...new Set(stages.filter(Boolean).map((l) => l.slice(l.indexOf('\t') + 1)))].sort() };
  };
  const gitOverlap = overlapGit();
  check('mergeOverlap', gitOverlap.conflicted.length === SCENARIO.merge.conflicting, `git merge-tree reports ${gitOverlap.conflicted.length} conflicted paths, the scenario makes ${SCENARIO.merge.conflicting}`);
  cases.mergeOverlap = measure('merge --dry-run, overlapping', runs, {
    forge: () => {
      const r = forge(['merge', 'rl-merge-overlap', '--into', 'real/merge-ours', '--dry-run', '--json'], { ok: [3] });
      const out = JSON.parse(r.stdout.toString('utf8'));
      const paths = [...new Set((out.conflicts ?? []).map((c) => c.path))].sort();
      check('mergeOverlap', out.status === 'conflict' && JSON.stringify(paths) === JSON.stringify(gitOverlap.conflicted),
        `forge merge --dry-run: status ${out.status}, ${paths.length} conflicted paths; git: ${gitOverlap.conflicted.length} (${paths.filter((p) => !gitOverlap.conflicted.includes(p)).concat(gitOverlap.conflicted.filter((p) => !paths.includes(p))).slice(0, 5).join(', ')})`);
      return r;
    },
    git: overlapGit,
  });
  // Once, untimed: the tree WITH conflict markers (forge --conflict-branch) against git's.
  const r = ctx.run(process.execPath, [ctx.forgeBin, 'merge', 'rl-merge-overlap', '--into', 'real/merge-ours', '--conflict-branch', 'real/merge-overlap-conflicts', '--json', '--repo', ctx.gitdir], { ok: [3] });
  const out = JSON.parse(r);
  check('mergeOverlap', out.conflictBranch?.tree === gitOverlap.tree, `the conflicted tree: forge ${out.conflictBranch?.tree} (--conflict-branch), git merge-tree ${gitOverlap.tree}`);
  return cases;
}

const ownTarget = { text: '≤ 3x git, forge own time', own: 3 };

export function rows() {
  return [
    { key: 'mergeClean', label: '`forge merge --dry-run`, clean: 100 + 100 other files (10 commits each) vs `git merge-tree --write-tree`', check: 'mergeClean', target: ownTarget },
    { key: 'mergeOverlap', label: `\`forge merge --dry-run\`, overlapping: the same 100 files, ${SCENARIO.merge.conflicting} conflicting, vs \`git merge-tree --write-tree\``, check: 'mergeOverlap', target: ownTarget },
  ];
}

export function notes() {
  return [
    `- **merge**: branches made with fast-import from \`main\`: \`real/merge-ours\` edits line 2 of 100 files (set A) in 10 commits; session \`rl-merge-clean\` edits a line near the end of 100 other files; session \`rl-merge-overlap\` edits the same 100 files as ours, ${SCENARIO.merge.conflicting} of them on line 2 too (conflicts), the rest near the end. forge: \`forge merge <session> --into real/merge-ours --dry-run --json\`; git: \`git merge-tree --write-tree real/merge-ours forge/session/<session>\`. Checked: the clean tree oid equals git's; the conflicted paths equal git's (the stages listed by merge-tree); once, untimed, the tree with conflict markers that \`forge merge --conflict-branch\` writes equals git's conflicted tree.`,
  ];
}
