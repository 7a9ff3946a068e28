/**
 * The one rule for `.git` spellings (src/git/tree-names.ts isDotGitName), which both tree writing
 * and the tool sandbox use. git's fsck is the oracle: every name here is also written into a
 * tree with `git mktree`, and `git fsck --strict` says whether git flags it (hasDotgit).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDotGitName } from '../../../src/git/tree-names';
import { git } from '../../helpers/git-cli';
import { makeRepo } from '../../helpers/repos';

/** The names git's fsck flags as `.git`, asked of git itself: one tree per name, one fsck for all. */
function gitFlagsDotGit(names: readonly string[]): boolean[] {
  const r = makeRepo({ files: {}, bare: true });
  const blob = git(r.gitdir, ['hash-object', '-w', '--stdin'], { input: 'x' }).stdout.trim();
  const batch = names.map((name) => `100644 blob ${blob}\t${name}\n`).join('\n');
  const trees = git(r.gitdir, ['mktree', '--batch'], { input: batch }).stdout.trim().split('\n');
  expect(trees).toHaveLength(names.length);
  const fsck = git(r.gitdir, ['fsck', '--strict', '--no-dangling'], { allowFail: true });
  const report = fsck.stderr + fsck.stdout;
  const flagged = new Set([...report.matchAll(/tree ([0-9a-f]{40}): hasDotgit/g)].map((m) => m[1]));
  return trees.map((oid) => flagged.has(oid));
}

const SPELLED_AS_DOT_GIT = [
  '.git',
  '.GIT',
  '.gIt',
  '.git.',
  '.git..',
  '.git ',
  '.git . ',
  'git~1',
  'GIT~1',
  'git~1. ',
  // NTFS alternate data streams: `.git:x` opens the stream x of `.git`.
  '.git:x',
  '.git::$INDEX_ALLOCATION',
  '.GIT. :stream',
  'git~1:x',
  // HFS+ ignores these code points, the byte order mark among them.
  '.g\u200dit',
  '.gi\ufefft',
  '\ufeff.git',
  '.git\u200c',
  '.G\u206aIT',
  // A backslash is a directory separator on Windows: any segment that is `.git` counts.
  'a\\.git',
  'a\\.git\\config',
  '.git\\x',
  'x\\git~1',
  'x\\.git:y',
];

const ORDINARY = ['.gitignore', '.gitmodules', 'git', '.git-x', 'git~2', 'git~1a', '.gitx', 'x.git', 'x:.git', '.g\u200dit.', '.git\u200c:x', 'a\\b', '...'];

describe('isDotGitName: the one .git rule of tree writing and the sandbox', () => {
  it('flags every .git spelling git flags, and only those (git fsck as the oracle)', () => {
    const names = [...SPELLED_AS_DOT_GIT, ...ORDINARY];
    const byGit = gitFlagsDotGit(names);
    expect(names.filter((_, i) => byGit[i])).toEqual(SPELLED_AS_DOT_GIT);
    for (const name of SPELLED_AS_DOT_GIT) expect(isDotGitName(name), JSON.stringify(name)).toBe(true);
    for (const name of ORDINARY) expect(isDotGitName(name), JSON.stringify(name)).toBe(false);
  });

  it('property: agrees with git fsck on names built from the parts of .git spellings', () => {
    const part = fc.constantFrom('.', 'g', 'G', 'i', 'I', 't', 'T', 'git', '.git', '.GiT', 'git~1', '~', '1', ' ', ':', 'x', '\\', '\u200c', '\ufeff', '\u206f', '\u00e9', '$DATA');
    const nameArb = fc.array(part, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''));
    const names = fc.sample(fc.uniqueArray(nameArb, { minLength: 300, maxLength: 300 }), { numRuns: 1, seed: 14 })[0]!;
    // Plus the shapes that must be flagged, built by construction: case, trailing dots and
    // spaces, a stream, ignorables anywhere, a leading directory with a backslash.
    const built = fc.sample(
      fc
        .tuple(fc.constantFrom('.git', '.GIT', '.Git', 'git~1', 'GiT~1'), fc.constantFrom('', '.', ' ', '. .'), fc.constantFrom('', ':x', '::$DATA'), fc.constantFrom('', 'dir\\', 'a\\b\\'))
        .map(([base, trail, stream, dir]) => dir + base + trail + stream),
      { numRuns: 60, seed: 14 },
    );
    const ignorable = fc.sample(
      fc.tuple(fc.nat(4), fc.constantFrom('\u200c', '\u200d', '\u200e', '\u200f', '\u206a', '\u206f', '\ufeff')).map(([at, ch]) => '.git'.slice(0, at) + ch + '.git'.slice(at)),
      { numRuns: 30, seed: 14 },
    );
    const all = [...new Set([...names, ...built, ...ignorable])];
    const byGit = gitFlagsDotGit(all);
    const disagreements = all.filter((name, i) => isDotGitName(name) !== byGit[i]).map((name) => JSON.stringify(name));
    expect(disagreements).toEqual([]);
    for (const name of [...built, ...ignorable]) expect(isDotGitName(name), JSON.stringify(name)).toBe(true);
  });
});
