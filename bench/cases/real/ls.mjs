/** forge ls vs git ls-tree -r --name-only: first listing, path map stored, a new child of a listed commit. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { firstDifference } from '../../lib/checks.mjs';

export const name = 'ls';

export function run(ctx) {
  const { check, measure, forge, git, gitOut, runs, gitdir, forgeBin } = ctx;
  const cacheDir = join(gitdir, 'forge', 'cache');
  const listing = (rev) => gitOut(['ls-tree', '-r', '--name-only', rev], { encoding: 'buffer' });
  const mainListing = listing('main');
  const lsCheck = (key, r, expected, rev) => {
    check(key, r.stdout.equals(expected), `forge ls --rev ${rev} differs from git ls-tree -r --name-only: ${firstDifference(r.stdout, expected)}`);
    return r;
  };
  const cases = {};
  cases.lsFirst = measure('ls, first listing', runs, {
    before: () => rmSync(cacheDir, { recursive: true, force: true }), // untimed: no stored path map (nor any derived cache)
    forge: () => lsCheck('lsFirst', forge(['ls', '--rev', 'main']), mainListing, 'main'),
    git: () => git(['ls-tree', '-r', '--name-only', 'main']),
  });
  cases.lsStored = measure('ls, path map stored', runs, {
    forge: () => lsCheck('lsStored', forge(['ls', '--rev', 'main']), mainListing, 'main'),
    git: () => git(['ls-tree', '-r', '--name-only', 'main']),
  });
  const childListings = new Map();
  cases.lsChild = measure('ls, child of a listed commit', runs, {
    before: (i) => {
      // untimed: main (the parent) is listed, so its path map is stored; the child is a new commit
      ctx.run(process.execPath, [forgeBin, 'ls', '--rev', 'main', '--repo', gitdir], { encoding: 'buffer' });
      childListings.set(i, listing(`real/ls-child-${i}`));
    },
    forge: (i) => lsCheck('lsChild', forge(['ls', '--rev', `real/ls-child-${i}`]), childListings.get(i), `real/ls-child-${i}`),
    git: (i) => git(['ls-tree', '-r', '--name-only', `real/ls-child-${i}`]),
  });
  return cases;
}

const target = { text: '≤ 2x git, forge own time', own: 2 };

export function rows() {
  return [
    { key: 'lsFirst', label: '`forge ls`, first listing (no stored path map) vs `git ls-tree -r --name-only`', check: 'lsFirst', target },
    { key: 'lsStored', label: '`forge ls`, path map stored vs `git ls-tree -r --name-only`', check: 'lsStored', target },
    { key: 'lsChild', label: '`forge ls` of a new child (10 files changed) of a listed commit vs `git ls-tree -r --name-only`', check: 'lsChild', target },
  ];
}

export function notes() {
  return ['- **ls**: `forge ls --rev R` vs `git ls-tree -r --name-only R`, outputs equal byte for byte. First listing: `<gitdir>/forge/cache` (the path maps of src/vfs/path-map-cache.ts, and any other derived cache there) is removed before each forge run. Path map stored: the warm-up stored it. Child: before each run (untimed), `forge ls --rev main` (so the parent\'s listing is stored), then a NEW commit on main changing 10 files is listed (one commit per run, never listed before).'];
}
