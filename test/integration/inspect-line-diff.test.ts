/**
 * The inspector's diffs (xdiff's Myers, as git diff), judged by git: `git apply` of the patch turns the old file
 * into the new one, byte for byte, for random texts (lines from a small alphabet so that
 * changes repeat and interleave; missing final newlines; creations and deletions); the
 * counts are those of `git diff --numstat`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linePatch } from '../../src/inspect/line-diff';
import { git } from '../helpers/git-cli';
import { makeTempDir } from '../helpers/temp';

const text = fc.array(fc.constantFrom('a\n', 'b\n', 'c\n', 'd\n', '\n', 'x y\n', 'crlf\r\n'), { maxLength: 40 }).chain((lines) =>
  fc.boolean().map((cut) => (cut && lines.length > 0 ? lines.join('').slice(0, -1) : lines.join(''))),
);

function applyWithGit(dir: string, before: string | null, patch: string): string | null {
  const repo = join(dir, `r${Math.random().toString(36).slice(2)}`);
  mkdirSync(repo);
  // Outside a repository git apply patches files as patch(1) does.
  if (before !== null) writeFileSync(join(repo, 'f.txt'), before);
  writeFileSync(join(repo, 'p.diff'), `diff --git a/f.txt b/f.txt\n${before === null ? 'new file mode 100644\n' : ''}${patch}`);
  git(repo, ['apply', '--whitespace=nowarn', 'p.diff']);
  try {
    return readFileSync(join(repo, 'f.txt'), 'latin1');
  } catch {
    return null;
  }
}

describe('linePatch (the unified diff of the inspector)', () => {
  it('is applied by git apply to exactly the new text, with git numstat counts', () => {
    const dir = makeTempDir('inspect-line-diff');
    fc.assert(
      fc.property(text, text, (before, after) => {
        fc.pre(before !== after);
        const { patch, added, removed } = linePatch('f.txt', before, after);
        expect(applyWithGit(dir, before, patch)).toBe(after);
        const repo = join(dir, `n${Math.random().toString(36).slice(2)}`);
        mkdirSync(repo);
        writeFileSync(join(repo, 'old'), before);
        writeFileSync(join(repo, 'new'), after);
        const numstat = git(repo, ['diff', '--no-index', '--numstat', '--diff-algorithm=myers', '--no-indent-heuristic', 'old', 'new'], { allowFail: true }).stdout.split('\t');
        expect([added, removed]).toEqual([Number(numstat[0]), Number(numstat[1])]);
      }),
      { numRuns: 60 },
    );
  });

  it('writes creations and deletions against /dev/null', () => {
    const created = linePatch('f.txt', null, 'one\ntwo');
    expect(created.patch).toBe('--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n');
    expect(applyWithGit(makeTempDir('inspect-line-diff'), null, created.patch)).toBe('one\ntwo');
    expect(linePatch('f.txt', 'one\n', null)).toEqual({ patch: '--- a/f.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n', added: 0, removed: 1 });
  });
});
