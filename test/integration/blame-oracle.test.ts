/**
 * forge blame against git blame: random histories of one file (edits that insert, delete and
 * move lines, indented blocks that make the indent heuristic matter, blank lines, merges of
 * branches that edited it, renames), and the porcelain of both compared byte for byte
 * (Forge's own `forge-*` header lines left out).
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as nodeFs from 'node:fs';
import { Repository } from '../../src/git';
import { Blamer, type BlameHistory } from '../../src/provenance/blame';
import { RepositoryHistory } from '../../src/provenance/repo-history';
import { porcelain, type PorcelainCommit } from '../../src/provenance/porcelain';
import { git } from '../helpers/git-cli';
import { makeTempDir } from '../helpers/temp';
import { expectFsckClean } from '../helpers/fsck';

const VOCAB = ['{', '}', '', '    return x;', '\tif (a) {', '\t}', 'int f()', '    y++;', 'foo', 'bar', '        deep();', '// note', '  ', 'end'];

type Step =
  | { kind: 'edit'; at: number; remove: number; insert: string[] }
  | { kind: 'branch-merge'; left: Array<{ at: number; remove: number; insert: string[] }>; right: Array<{ at: number; remove: number; insert: string[] }> }
  | { kind: 'rename' };

const edit = fc.record({ at: fc.nat(40), remove: fc.nat(4), insert: fc.array(fc.constantFrom(...VOCAB), { maxLength: 6 }) });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: edit.map((e) => ({ kind: 'edit' as const, ...e })) },
  { weight: 2, arbitrary: fc.record({ left: fc.array(edit, { minLength: 1, maxLength: 2 }), right: fc.array(edit, { minLength: 1, maxLength: 2 }) }).map((m) => ({ kind: 'branch-merge' as const, ...m })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'rename' as const }) },
);

function apply(lines: string[], e: { at: number; remove: number; insert: string[] }): string[] {
  const at = Math.min(e.at, lines.length);
  const out = [...lines];
  out.splice(at, e.remove, ...e.insert);
  return out;
}

let tick = 0;
function commitAll(dir: string, message: string): void {
  tick++;
  const date = `${1700000000 + tick * 60} +0100`;
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '--allow-empty', '-m', message], { env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
}

async function forgePorcelain(dir: string, path: string, range?: { start: number; end: number }): Promise<string> {
  const repo = await Repository.open({ fs: nodeFs, dir });
  const history = new RepositoryHistory(repo);
  const result = (await new Blamer(history).blame(await repo.resolveCommit('HEAD'), path, range))!;
  const commits = new Map<string, PorcelainCommit>();
  for (const line of result.lines) {
    if (commits.has(line.commit)) continue;
    const c = await repo.readCommit(line.commit);
    commits.set(line.commit, { author: c.author, committer: c.committer, message: c.message, root: c.parents.length === 0 });
  }
  return porcelain(result, commits);
}

/** A random history of one file in a new repository (merges, renames, indented blocks); its last path. */
async function buildHistory(initial: string[], steps: Step[]): Promise<{ dir: string; path: string; lines: string[] }> {
  const dir = makeTempDir('blame-oracle');
  git(dir, ['init', '-q', '-b', 'main']);
  let path = 'src/file.c';
  mkdirSync(join(dir, 'src'), { recursive: true });
  let lines = initial;
  const write = () => writeFileSync(join(dir, path), lines.map((l) => l + '\n').join(''));
  write();
  commitAll(dir, 'initial\n\nbody');
  for (const [n, s] of steps.entries()) {
    if (s.kind === 'edit') {
      lines = apply(lines, s);
      write();
      commitAll(dir, `edit ${n}`);
    } else if (s.kind === 'rename') {
      const next = path === 'src/file.c' ? 'lib/moved.c' : 'src/file.c';
      mkdirSync(join(dir, next, '..'), { recursive: true });
      git(dir, ['mv', path, next]);
      path = next;
      commitAll(dir, `rename ${n}`);
    } else {
      const base = lines;
      git(dir, ['checkout', '-q', '-b', `side${n}`]);
      lines = s.right.reduce(apply, base);
      write();
      commitAll(dir, `side ${n}`);
      git(dir, ['checkout', '-q', 'main']);
      lines = s.left.reduce(apply, base);
      write();
      commitAll(dir, `main ${n}`);
      // The merge's result: whatever git merges, else ours with the side's lines appended.
      const merged = git(dir, ['merge', '-q', '--no-edit', `side${n}`], { allowFail: true });
      if (merged.status !== 0) {
        lines = [...lines, ...s.right.flatMap((e) => e.insert)];
        write();
        commitAll(dir, `merge ${n}`);
      } else {
        git(dir, ['commit', '--amend', '-q', '--no-edit'], { env: { GIT_COMMITTER_DATE: `${1700000000 + ++tick * 60} +0100` } });
        lines = (await import('node:fs')).readFileSync(join(dir, path), 'utf8').split('\n').slice(0, -1);
      }
    }
  }
  return { dir, path, lines };
}

describe('forge blame agrees with git blame', () => {
  it('on random histories with merges, renames and indented blocks (porcelain byte for byte)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 30 }), fc.array(step, { minLength: 1, maxLength: 8 }), async (initial, steps) => {
        const { dir, path } = await buildHistory(initial, steps);
        const expected = git(dir, ['blame', '--porcelain', path]).stdout;
        const ours = (await forgePorcelain(dir, path)).split('\n').filter((l) => !l.startsWith('forge-')).join('\n');
        expect(ours).toBe(expected);
        expectFsckClean(join(dir, '.git'));
      }),
      { numRuns: 15 },
    );
  }, 300_000);

  it('for a range of lines (-L): only those lines followed, the same attribution as git blame -L', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 30 }), fc.array(step, { minLength: 1, maxLength: 8 }), fc.nat(60), fc.nat(4), async (initial, steps, at, extra) => {
        const { dir, path } = await buildHistory(initial, steps);
        const lines = nodeFs.readFileSync(join(dir, path), 'utf8').split('\n').slice(0, -1);
        if (lines.length === 0) return;
        const start = at % lines.length;
        const end = Math.min(lines.length, start + 1 + extra);
        const expected = git(dir, ['blame', '--porcelain', '-L', `${start + 1},${end}`, path]).stdout;
        const ours = (await forgePorcelain(dir, path, { start, end })).split('\n').filter((l) => !l.startsWith('forge-')).join('\n');
        expect(ours).toBe(expected);
      }),
      { numRuns: 20 },
    );
  }, 300_000);

  it('stops once the range\'s origin is found: a line the last of 40 commits wrote reads two commits, not the history', async () => {
    const dir = makeTempDir('blame-stop');
    git(dir, ['init', '-q', '-b', 'main']);
    const lines: string[] = [];
    for (let n = 0; n < 40; n++) {
      lines.push(`line ${n}`);
      writeFileSync(join(dir, 'f.txt'), lines.map((l) => l + '\n').join(''));
      commitAll(dir, `add line ${n}`);
    }
    const repo = await Repository.open({ fs: nodeFs, dir });
    const history = new RepositoryHistory(repo);
    const visited = new Set<string>();
    const counting: BlameHistory = {
      commit: (oid) => (visited.add(oid), history.commit(oid)),
      fileAt: (commit, path) => (visited.add(commit), history.fileAt(commit, path)),
      renamedFrom: (parent, commit, path) => history.renamedFrom(parent, commit, path),
      blob: (oid) => history.blob(oid),
    };
    const head = await repo.resolveCommit('HEAD');
    const result = (await new Blamer(counting).blame(head, 'f.txt', { start: 39, end: 40 }))!;
    expect(result.lines).toEqual([{ commit: head, path: 'f.txt', sourceLine: 39 }]);
    expect(visited.size).toBe(2);
    visited.clear();
    await new Blamer(counting).blame(head, 'f.txt');
    expect(visited.size).toBe(40);
    expect(git(dir, ['blame', '--porcelain', '-L', '40,40', 'f.txt']).stdout.split(' ')[0]).toBe(head);
  });

  it('where the indent heuristic decides: whole blocks inserted and removed between blank-line separated blocks', async () => {
    const block = fc.tuple(fc.constantFrom('def f():', 'int g(void) {', 'class K:'), fc.array(fc.constantFrom('    a = 1', '    return a', '\tcall();', '        nested()'), { minLength: 1, maxLength: 3 }), fc.boolean());
    const render = (b: [string, string[], boolean]) => [b[0], ...b[1], ...(b[2] ? ['}'] : []), ''];
    await fc.assert(
      fc.asyncProperty(fc.array(block, { minLength: 2, maxLength: 5 }), fc.array(fc.tuple(fc.nat(6), fc.option(block), fc.boolean()), { minLength: 1, maxLength: 5 }), async (initial, steps) => {
        const dir = makeTempDir('blame-indent');
        git(dir, ['init', '-q', '-b', 'main']);
        let blocks = [...initial];
        const write = () => writeFileSync(join(dir, 'a.py'), blocks.flatMap(render).map((l) => l + '\n').join(''));
        write();
        commitAll(dir, 'initial');
        for (const [n, [at, inserted, remove]] of steps.entries()) {
          const i = Math.min(at, blocks.length);
          if (remove && blocks.length > 1) blocks.splice(Math.min(i, blocks.length - 1), 1);
          if (inserted) blocks.splice(i, 0, inserted);
          write();
          commitAll(dir, `step ${n}`);
        }
        const expected = git(dir, ['blame', '--porcelain', 'a.py']).stdout;
        expect(await forgePorcelain(dir, 'a.py')).toBe(expected);
      }),
      { numRuns: 25 },
    );
  }, 300_000);
});
