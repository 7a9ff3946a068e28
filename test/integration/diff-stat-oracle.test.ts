/**
 * `forge diff --stat` is `git diff --stat` to the byte (issue 19: "diff stats equal — including
 * the summary line's form: git omits '0 deletions(-)'"). The oracle is git itself: the same two
 * commits, `git diff --stat=<width> --no-renames`, against formatStat over the engine's diff.
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffTrees, Repository } from '../../src/git';
import { formatStat, type SessionDiff } from '../../src/branches';
import { filePatches } from '../../src/session';
import { diffStat } from '../../src/text';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';

type Content = string | Buffer | null;

async function compare(before: Record<string, Content>, after: Record<string, Content>, width: number): Promise<void> {
  const initial = Object.fromEntries(Object.entries(before).filter(([, c]) => c !== null)) as Record<string, string | Buffer>;
  const r = makeRepo({ files: { 'keep.txt': 'keep\n', ...initial } });
  const base = git(r.dir, ['rev-parse', 'HEAD']).stdout.trim();
  for (const [path, content] of Object.entries(after)) {
    const file = join(r.dir, path);
    if (content === null) nodeFs.rmSync(file, { force: true });
    else {
      nodeFs.mkdirSync(join(file, '..'), { recursive: true });
      nodeFs.writeFileSync(file, content);
    }
  }
  git(r.dir, ['add', '-A']);
  git(r.dir, ['commit', '-q', '--allow-empty', '-m', 'change']);
  const head = git(r.dir, ['rev-parse', 'HEAD']).stdout.trim();
  const expected = git(r.dir, ['-c', 'core.quotePath=true', 'diff', `--stat=${width}`, '--no-renames', base, head]).stdout;

  const repo = await Repository.open({ fs: nodeFs, dir: r.dir });
  const [a, b] = await Promise.all([base, head].map(async (c) => (await repo.readCommit(c)).tree));
  const files = await filePatches(repo, await diffTrees(repo, a!, b!), { patches: false });
  const diff: SessionDiff = {
    session: 's',
    head,
    against: { ref: 'main', commit: base },
    base,
    files,
    added: files.reduce((n, f) => n + f.added, 0),
    removed: files.reduce((n, f) => n + f.removed, 0),
  };
  expect(formatStat(diff, width)).toBe(expected === '' ? ' 0 files changed\n' : expected);
}

const lines = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i}\n`).join('');

describe('forge diff --stat against git diff --stat', () => {
  it('additions only, deletions only, both: the summary omits a zero count beside a non-zero one', async () => {
    await compare({ 'a.txt': lines(3) }, { 'a.txt': lines(5) }, 80);
    await compare({ 'a.txt': lines(5) }, { 'a.txt': lines(2) }, 80);
    await compare({ 'a.txt': lines(5) }, { 'a.txt': lines(5, 'other') }, 80);
    await compare({ 'a.txt': 'one\n' }, { 'a.txt': 'two\n', 'b.txt': 'x\n' }, 80);
  });

  it('long paths cut with "..." at a slash, large changes scaled, binary files as Bin X -> Y bytes, quoted names', async () => {
    const deep = 'very/long/directory/names/that/go/on/and/on/for/quite/a/while/beyond/eighty/columns/file.txt';
    await compare(
      { [deep]: lines(10), 'small.txt': lines(2), 'bin.dat': Buffer.from([0, 1, 2, 3]) },
      { [deep]: lines(400, 'new'), 'small.txt': lines(3), 'bin.dat': Buffer.from([0, 9, 9, 9, 9, 9]), 'added.bin': Buffer.alloc(2048), 'héllo wörld.txt': 'hi\n' },
      80,
    );
    await compare({ 'x.txt': lines(2) }, { 'x.txt': lines(3000, 'y') }, 60);
    await compare({ 'gone.txt': lines(7), 'bin.dat': Buffer.from([0, 1]) }, { 'gone.txt': null, 'bin.dat': null }, 100);
  });

  it("counts lines as git's own diff does (xdiff's Myers with its heuristics), where a minimal diff counts fewer", async () => {
    // Many short, often repeated lines with scattered changes: xdiff's cost limit and its
    // discarding of frequent lines give git more changed lines than the minimal diff.
    let seed = 1;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const a: string[] = [];
    const b: string[] = [];
    for (let i = 0; i < 1500; i++) a.push(`l${Math.floor(random() * 7)}\n`);
    for (const line of a) {
      const r = random();
      if (r < 0.3) b.push(`l${Math.floor(random() * 7)}\n`);
      else if (r >= 0.4) b.push(line);
      if (random() < 0.1) b.push(`n${Math.floor(random() * 7)}\n`);
    }
    const before = a.join('');
    const after = b.join('');
    const minimal = diffStat(before, after);
    const r = makeRepo({ files: { 'f.txt': before } });
    nodeFs.writeFileSync(join(r.dir, 'f.txt'), after);
    const [added, removed] = git(r.dir, ['diff', '--numstat']).stdout.split('\t').map(Number);
    expect(minimal).not.toEqual({ added, removed }); // the case tells the two diffs apart
    await compare({ 'f.txt': before }, { 'f.txt': after }, 80);
  });

  it('random change sets at random widths', async () => {
    const name = fc.stringMatching(/^[a-z]{1,12}(\/[a-z]{1,30}){0,3}\.txt$/);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(name, fc.nat(60), fc.nat(60)), { selector: ([n]) => n.split('/')[0], minLength: 1, maxLength: 8 }),
        fc.integer({ min: 20, max: 200 }),
        async (files, width) => {
          const before: Record<string, Content> = {};
          const after: Record<string, Content> = {};
          for (const [path, a, b] of files) {
            before[path] = a === 0 ? null : lines(a);
            after[path] = b === 0 ? null : lines(Math.min(a, b)) + lines(Math.max(0, b - a), 'added');
          }
          await compare(before, after, width);
        },
      ),
      { numRuns: 12 },
    );
  });
});
