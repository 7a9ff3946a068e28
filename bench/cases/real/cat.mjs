/** forge cat of the file with the deepest delta chain vs git cat-file -p. */
import { firstDifference } from '../../lib/checks.mjs';

export const name = 'cat';

export function run(ctx) {
  const { check, measure, forge, git, runs, catTarget } = ctx;
  const catBytes = ctx.blobsOf([catTarget.oid]).get(catTarget.oid);
  const cat = measure('cat', runs, {
    forge: () => {
      const r = forge(['cat', catTarget.path, '--rev', 'main']);
      check('cat', r.stdout.equals(catBytes), `forge cat ${catTarget.path} differs from git cat-file -p: ${firstDifference(r.stdout, catBytes)}`);
      return r;
    },
    git: () => {
      const r = git(['cat-file', '-p', `main:${catTarget.path}`]);
      check('cat', r.stdout.equals(catBytes), 'git cat-file -p returned other bytes');
      return r;
    },
  });
  return { cat };
}

export function rows({ catTarget }) {
  return [{ key: 'cat', label: `\`forge cat\` (${catTarget.size.toLocaleString('en-US')} bytes, delta chain ${catTarget.chain}) vs \`git cat-file -p\``, check: 'cat', target: { text: '≤ 3x git, forge own time', own: 3 } }];
}

export function notes({ catTarget }) {
  return [`- **cat**: \`forge cat ${catTarget.path} --rev main\` vs \`git cat-file -p main:<path>\`: the file at \`main\` (1-16 KB) with the deepest delta chain; bytes equal.`];
}
