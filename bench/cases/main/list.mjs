/** Listing every file: whole `forge ls` process, in-process walk (path map stored, and first listing) vs `git ls-tree -r`. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { sha1 } from '../../bench-kit.mjs';

export const name = 'list';

export function run(ctx) {
  const { check, measure, forgeCli, gitProc, inproc, opts, gitdir, expectedPaths } = ctx;
  const expectedListSha = sha1(Buffer.from([...expectedPaths].sort().join('\n')));
  const gitLs = () => gitProc(['ls-tree', '-r', '--name-only', 'main'], 'buffer');
  const cases = {};
  cases.listProcess = measure('list all files (process)', opts.runs, {
    forge: () => {
      const r = forgeCli(['ls', '--repo', gitdir, '--rev', 'main']);
      const paths = r.stdout.toString('utf8').split('\n').filter(Boolean);
      check(paths.length === expectedPaths.length, `forge ls printed ${paths.length} paths, git ${expectedPaths.length}`);
      check(sha1(Buffer.from(paths.sort().join('\n'))) === expectedListSha, 'forge ls printed other paths than git ls-tree');
      return r;
    },
    git: () => {
      const r = gitLs();
      check(r.stdout.toString('utf8').split('\n').filter(Boolean).length === expectedPaths.length, 'git ls-tree printed another count');
      return r;
    },
  });
  const walk = () => {
    const r = inproc(['list', gitdir]);
    check(r.files === expectedPaths.length && r.pathsSha1 === expectedListSha, `CommitVfs.walk('') listed ${r.files} files, or other paths than git`);
    return { ms: r.ms, rssKiB: r.maxRSS };
  };
  cases.listInproc = measure('list all files (in-process)', opts.runs, { withNode: false, forge: walk, git: gitLs });
  // The same, but the first listing of the tree ever: the stored path map is removed each time.
  cases.listFirst = measure('list all files, first listing (in-process)', opts.runs, {
    withNode: false,
    before: () => rmSync(join(gitdir, 'forge', 'cache', 'paths'), { recursive: true, force: true }),
    forge: walk,
    git: gitLs,
  });
  return cases;
}

const twice = { text: '≤ 2x git', met: (c) => c.forge <= 2 * c.git };

export function rows() {
  return [
    { key: 'listProcess', label: 'list all files, whole process: `forge ls` vs `git ls-tree -r --name-only`', target: twice },
    { key: 'listInproc', label: "list all files, in-process (cold: new Repository + walk(''); the tree's stored path map exists) vs `git ls-tree -r` process", target: twice },
    { key: 'listFirst', label: "list all files, in-process, first listing of the tree (no stored path map: every tree inflated) vs `git ls-tree -r` process", target: twice },
  ];
}

export function notes() {
  return [
    "- **list all files, whole process**: `node dist/cli.js ls --repo R --rev main` against `git --git-dir=R ls-tree -r --name-only main`; forge's output must hold the same 50,000 paths.",
    "- **list all files, in-process**: a fresh process times `Repository.open` + `CommitVfs.open` + `walk('')`. Once a tree has been listed, its path map is stored under `<gitdir>/forge/cache/paths/<tree>` (see docs/ARCHITECTURE.md) and a later cold listing reads it; the \"first listing\" row removes it before each run, so every tree of the repository is inflated and parsed. git: the `ls-tree` process above.",
  ];
}
