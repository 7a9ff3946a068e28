/**
 * diffTrees against git's own tree diff (`git diff --raw --no-renames`): the same changes, modes
 * and oids, in git's order (the paths' UTF-8 bytes, not JavaScript's UTF-16 order), loose and
 * packed, on the synchronous pack reader (Node) and the portable one.
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffTrees, Repository, type TreeChangeEntry } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';

const KIND: Record<string, TreeChangeEntry['kind']> = { A: 'added', D: 'deleted', M: 'modified', T: 'modified' };

/** git diff --raw -z as TreeChangeEntry values. */
function gitChanges(dir: string, base: string, head: string): TreeChangeEntry[] {
  const fields = git(dir, ['diff', '--raw', '-z', '--no-renames', '--no-abbrev', base, head]).stdout.split('\0');
  const out: TreeChangeEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, oldOid, newOid, status] = fields[i]!.slice(1).split(' ');
    const kind = KIND[status!]!;
    const change: TreeChangeEntry = { path: fields[i + 1]!, kind };
    if (kind !== 'added') Object.assign(change, { oldOid, oldMode });
    if (kind !== 'deleted') Object.assign(change, { newOid, newMode });
    out.push(change);
  }
  return out;
}

function write(dir: string, path: string, content: string | null, mode?: number): void {
  const file = join(dir, path);
  if (content === null) {
    nodeFs.rmSync(file, { recursive: true, force: true });
    return;
  }
  nodeFs.mkdirSync(join(file, '..'), { recursive: true });
  nodeFs.writeFileSync(file, content);
  if (mode !== undefined) nodeFs.chmodSync(file, mode);
}

describe('diffTrees against git diff --raw', () => {
  it.each([
    ['loose', false],
    ['packed', true],
  ])('%s objects: every kind of change, in git order', async (_label, packed) => {
    const r = makeRepo({
      files: {
        'keep/deep/same.txt': 'same\n',
        'keep/deep/changed.txt': 'one\n',
        'becomes-dir': 'file\n',
        'becomes-file/inside.txt': 'in\n',
        'mode.sh': 'echo\n',
        'gone/a.txt': 'a\n',
        'gone/b/c.txt': 'c\n',
        'a-b.txt': 'x\n',
        'a/z.txt': 'z\n',
        'ｚ-fullwidth.txt': 'fw\n',
      },
    });
    const base = git(r.dir, ['rev-parse', 'HEAD']).stdout.trim();
    write(r.dir, 'keep/deep/changed.txt', 'two\n');
    write(r.dir, 'becomes-dir', null);
    write(r.dir, 'becomes-dir/now.txt', 'now\n');
    write(r.dir, 'becomes-file', null);
    write(r.dir, 'becomes-file', 'file now\n');
    write(r.dir, 'mode.sh', 'echo\n', 0o755);
    write(r.dir, 'gone', null);
    write(r.dir, 'a/y.txt', 'y\n');
    write(r.dir, 'a.txt', 'new\n');
    // UTF-16 puts the emoji (a surrogate pair, 0xD83D) before U+FF5A; UTF-8 (git) after it (0xF0 > 0xEF).
    write(r.dir, '😀-emoji.txt', 'e\n');
    write(r.dir, 'ｚ-fullwidth.txt', 'fw2\n');
    git(r.dir, ['add', '-A']);
    git(r.dir, ['commit', '-q', '-m', 'change']);
    const head = git(r.dir, ['rev-parse', 'HEAD']).stdout.trim();
    if (packed) git(r.dir, ['gc', '-q', '--prune=now']);
    const expected = gitChanges(r.dir, base, head);
    expect(expected.map((c) => c.path)).toContain('😀-emoji.txt');
    for (const platform of [nodePlatform, undefined]) {
      const repo = await Repository.open({ fs: nodeFs, dir: r.dir, ...(platform ? { platform } : {}) });
      const [a, b] = await Promise.all([base, head].map(async (c) => (await repo.readCommit(c)).tree));
      expect(await diffTrees(repo, a!, b!)).toEqual(expected);
      // A tree against nothing: every file added, and a prefix before each path.
      const all = await diffTrees(repo, null, b!, 'top');
      expect(all.map((c) => c.path)).toEqual(git(r.dir, ['ls-tree', '-r', '-z', '--name-only', head]).stdout.split('\0').filter(Boolean).map((p) => `top/${p}`));
      expect(all.every((c) => c.kind === 'added')).toBe(true);
    }
  });
});
