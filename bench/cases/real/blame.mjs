/**
 * Line provenance (issue 29): `forge why <path>:<line>` vs `git blame -L n,n`, and `forge blame
 * --porcelain` vs `git blame --porcelain`, on the file at main that the most commits changed.
 */
import { firstDifference } from '../../lib/checks.mjs';

export const name = 'blame';

/** The file at main changed by the most commits (ties: the first path), and its middle line. */
function pickFile(ctx) {
  const counts = new Map();
  for (const path of ctx.gitOut(['log', '--format=', '--name-only', 'main']).split('\n')) if (path) counts.set(path, (counts.get(path) ?? 0) + 1);
  const atMain = new Set(ctx.repo.files.filter((f) => f.mode === '100644').map((f) => f.path));
  const [path, commits] = [...counts].filter(([p]) => atMain.has(p)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  const lines = ctx.gitOut(['cat-file', '-p', `main:${path}`]).split('\n').length - 1;
  return { path, commits, lines, line: Math.max(1, Math.floor(lines / 2)) };
}

const withoutForgeLines = (text) => text.split('\n').filter((l) => !l.startsWith('forge-')).join('\n');

export function run(ctx) {
  const { check, measure, forge, git, gitOut, runs } = ctx;
  const file = pickFile(ctx);
  ctx.blameFile = file;
  const gitLine = gitOut(['blame', '--porcelain', '-L', `${file.line},${file.line}`, 'main', '--', file.path]);
  const [lineCommit, sourceLine] = gitLine.split('\n')[0].split(' ');
  file.origin = lineCommit;
  const why = measure(`forge why ${file.path}:${file.line}`, runs, {
    forge: () => {
      const r = forge(['why', `${file.path}:${file.line}`, '--rev', 'main', '--json']);
      const out = JSON.parse(r.stdout.toString('utf8'));
      check('why', out.line?.commit === lineCommit && out.line?.sourceLine === Number(sourceLine), `forge why: commit ${out.line?.commit} line ${out.line?.sourceLine}; git blame -L: ${lineCommit} line ${sourceLine}`);
      return r;
    },
    git: () => git(['blame', '--porcelain', '-L', `${file.line},${file.line}`, 'main', '--', file.path]),
  });
  const rangePorcelain = ctx.run(process.execPath, [ctx.forgeBin, 'blame', file.path, '--rev', 'main', '-L', `${file.line},${file.line}`, '--porcelain', '--repo', ctx.gitdir]);
  check('why', withoutForgeLines(rangePorcelain) === gitLine, `forge blame -L --porcelain differs from git blame -L --porcelain: ${firstDifference(withoutForgeLines(rangePorcelain), gitLine)}`);
  const gitWhole = gitOut(['blame', '--porcelain', 'main', '--', file.path]);
  const blame = measure(`forge blame ${file.path}`, runs, {
    forge: () => {
      const r = forge(['blame', file.path, '--rev', 'main', '--porcelain']);
      const text = withoutForgeLines(r.stdout.toString('utf8'));
      check('blame', text === gitWhole, `forge blame --porcelain differs from git blame --porcelain: ${firstDifference(text, gitWhole)}`);
      return r;
    },
    git: () => git(['blame', '--porcelain', 'main', '--', file.path]),
  });
  return { why, blame };
}

export function rows(ctx) {
  const f = ctx.blameFile;
  return [
    { key: 'why', label: `\`forge why <path>:${f.line}\` (the line's origin: ${f.origin.slice(0, 10)}) vs \`git blame -L ${f.line},${f.line} --porcelain\``, check: 'why', target: { text: '< 200 ms', met: (c) => c.forge < 200 } },
    { key: 'blame', label: `\`forge blame --porcelain\`, ${f.lines} lines vs \`git blame --porcelain\``, check: 'blame', target: { text: '≤ 2x git', met: (c) => c.forge <= 2 * c.git } },
  ];
}

export function notes(ctx) {
  const f = ctx.blameFile;
  return [`- **why / blame**: \`${f.path}\`, the file at \`main\` the most commits changed (${f.commits}; ${f.lines} lines). forge: \`forge why <path>:${f.line} --rev main --json\` (only that line is followed down the history, as \`git blame -L\` does) and \`forge blame <path> --rev main --porcelain\`; git: \`git blame --porcelain [-L ${f.line},${f.line}] main -- <path>\`. Checked: the line's commit and source line equal git's; \`forge blame -L\` and the whole file's porcelain equal git's byte for byte (forge's own \`forge-*\` header lines left out). Cache state: the repository copy starts without forge's changed-path cache (\`<gitdir>/forge/cache/changed-paths\`) and one forge run adds at most 1,000 commits' filters to it (\`NEW_FILTERS_PER_WALK\`, src/provenance/repo-history.ts), so these runs build the cache: \`why\`'s first runs and every \`blame\` run here compute filters, none runs with the cache whole (that is \`node bench/blame-cache-bench.mjs\`, docs/PERFORMANCE.md, line provenance). Compare these rows with other runs of this bench, not with the cache-whole numbers.`];
}
