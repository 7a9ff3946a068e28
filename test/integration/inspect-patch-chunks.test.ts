/**
 * The page cuts a long diff into pieces it draws one by one (web/patch-chunks.ts). Every hunk of
 * every piece must show the old and new files exactly at the line numbers its header names, and
 * the pieces together must hold the patch's lines, none lost or repeated (the patch itself is
 * checked with `git apply`), on the inspector's own diffs of random texts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linePatch } from '../../src/inspect/line-diff';
import { patchChunks } from '../../web/patch-chunks';
import { git } from '../helpers/git-cli';
import { makeTempDir } from '../helpers/temp';

const text = fc.array(fc.constantFrom('a\n', 'b\n', 'c\n', 'd\n', 'e f\n'), { minLength: 1, maxLength: 60 }).chain((lines) => fc.boolean().map((cut) => (cut ? lines.join('').slice(0, -1) : lines.join(''))));

describe('patchChunks', () => {
  it('cuts a diff into pieces of at most n lines whose hunks name the right lines of both files', () => {
    const dir = makeTempDir('inspect-chunks');
    let n = 0;
    fc.assert(
      fc.property(text, text, fc.integer({ min: 1, max: 12 }), (before, after, max) => {
        fc.pre(before !== after);
        const patch = linePatch('f.txt', before, after).patch;
        const chunks = patchChunks(patch, max);
        for (const chunk of chunks) expect(chunk.split('\n').filter((l) => /^[-+ ]/.test(l) && !/^(---|\+\+\+) /.test(l)).length).toBeLessThanOrEqual(max);
        // Each hunk's ranges count in the original files, as the page shows them: the old side
        // (context and '-' lines) is exactly the old file at its range, the new side the new file.
        const split = (t: string) => (t.endsWith('\n') ? t.slice(0, -1) : t).split('\n');
        const oldLines = split(before);
        const newLines = split(after);
        for (const chunk of chunks) {
          for (const hunk of chunk.split(/^(?=@@ )/m).slice(1)) {
            const [head, ...body] = hunk.replace(/\n$/, '').split('\n').filter((l) => !l.startsWith('\\'));
            const m = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(head!)!;
            const [o, oc, nn, nc] = m.slice(1).map(Number) as [number, number, number, number];
            const oldSide = body.filter((l) => l[0] !== '+').map((l) => l.slice(1));
            const newSide = body.filter((l) => l[0] !== '-').map((l) => l.slice(1));
            expect(oldSide).toEqual(oc === 0 ? [] : oldLines.slice(o - 1, o - 1 + oc));
            expect(newSide).toEqual(nc === 0 ? [] : newLines.slice(nn - 1, nn - 1 + nc));
          }
        }
        // Nothing lost or repeated: the pieces' lines are the patch's lines, in order.
        const lines = (t: string) => t.split('\n').filter((l) => /^[-+ \\]/.test(l) && !/^(---|\+\+\+) /.test(l));
        expect(chunks.flatMap(lines)).toEqual(lines(patch));
        // And git applies the whole patch to the old file, giving the new one.
        const work = join(dir, `w${n++}`);
        mkdirSync(work);
        writeFileSync(join(work, 'f.txt'), before);
        writeFileSync(join(work, 'p.diff'), `diff --git a/f.txt b/f.txt\n${patch}`);
        git(work, ['apply', '--whitespace=nowarn', 'p.diff']);
        expect(readFileSync(join(work, 'f.txt'), 'latin1')).toBe(after);
      }),
      { numRuns: 150 },
    );
  });

  it('leaves a patch without hunks (binary, mode only) whole', () => {
    expect(patchChunks('Binary files a/x and b/x differ\n', 10)).toEqual(['Binary files a/x and b/x differ\n']);
  });
});
