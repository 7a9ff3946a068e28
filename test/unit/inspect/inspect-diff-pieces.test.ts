/**
 * The page's diff pieces (web/diff-pieces.ts): the diff's real hunks (a 5,000-line new file is
 * one `@@ -0,0 +1,5000 @@`, not fifty made-up 100-line hunks), long runs folded, every piece
 * drawable alone with the right line numbers. Checked on the inspector's own diffs of random
 * texts: nothing lost or repeated, every real hunk header shown once, every continuation's
 * header naming exactly the lines of both files it holds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linePatch } from '../../../src/inspect/line-diff';
import { diffPieces, foldRanges, parseHunks, type LinesPiece } from '../../../web/diff-pieces';

const flat = (pieces: ReturnType<typeof diffPieces>): LinesPiece[] => pieces.flatMap((p) => (p.kind === 'fold' ? p.pieces : [p]));
const bodyLines = (patch: string) => patch.replace(/\n$/, '').split('\n').filter((l) => !/^(---|\+\+\+) /.test(l) && !l.startsWith('@@'));

describe('diffPieces', () => {
  it('shows a 5,000-line new file as its one real hunk, the middle of the run folded', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}\n`).join('');
    const patch = linePatch('big.txt', null, text).patch;
    const pieces = diffPieces(patch, { maxLines: 100, foldRun: 400, keep: 100 });
    const headers = flat(pieces).flatMap((p) => p.patch.split('\n').filter((l) => l.startsWith('@@')).map((h) => ({ h, continues: p.continues })));
    // The one header a reader sees (the others are continuations the page hides).
    expect(headers.filter((x) => !x.continues).map((x) => x.h)).toEqual(['@@ -0,0 +1,5000 @@']);
    expect(headers[0]).toEqual({ h: '@@ -0,0 +1,5000 @@', continues: false });
    expect(pieces.filter((p) => p.kind === 'fold').map((p) => p.lines)).toEqual([4800]);
    // 100 lines shown, the fold, 100 lines shown.
    expect(pieces.map((p) => (p.kind === 'fold' ? 'fold' : p.lines))).toEqual([100, 'fold', 100]);
    expect(flat(pieces).every((p) => p.lines <= 100)).toBe(true);
    // The piece after the fold numbers its lines from 4901.
    expect((pieces[2] as LinesPiece).patch).toContain('@@ -0,0 +4901,100 @@\n+line 4901\n');
  });

  it('folds the middle of a long run of any kind, its ends kept', () => {
    const body = [...Array(10).fill(' c'), ...Array(3).fill('-d'), '\\ No newline at end of file', ...Array(12).fill('+a')];
    expect(foldRanges(body, 9, 2)).toEqual([
      [2, 8],
      [16, 24],
    ]);
    expect(foldRanges(body, 12, 2)).toEqual([]);
  });

  it('cuts random diffs into pieces that hold every line once, with right line numbers, real headers shown once', () => {
    const text = fc.array(fc.constantFrom('a\n', 'b\n', 'c\n', 'd\n', 'e f\n'), { minLength: 0, maxLength: 80 }).chain((lines) => fc.boolean().map((cut) => (cut && lines.length ? lines.join('').slice(0, -1) : lines.join(''))));
    fc.assert(
      fc.property(text, text, fc.integer({ min: 1, max: 15 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 5 }), (before, after, maxLines, foldRun, keep) => {
        fc.pre(before !== after);
        const patch = linePatch('f.txt', before, after).patch;
        const pieces = diffPieces(patch, { maxLines, foldRun, keep });
        const all = flat(pieces);
        // Every line once, in order.
        expect(all.flatMap((p) => bodyLines(p.patch))).toEqual(bodyLines(patch));
        for (const p of all) expect(p.lines).toBeLessThanOrEqual(maxLines);
        // The real hunk headers, each once, each opening a piece or following a hunk in it.
        const real = parseHunks(patch)!.hunks.map((h) => h.header);
        const shown = all.flatMap((p) => p.patch.split('\n').filter((l) => l.startsWith('@@')).filter((_, i) => !(i === 0 && p.continues)));
        expect(shown).toEqual(real);
        // Each piece's hunks, numbered from their headers, are exactly the files' lines there.
        const split = (t: string) => (t === '' ? [] : (t.endsWith('\n') ? t.slice(0, -1) : t).split('\n'));
        const oldLines = split(before);
        const newLines = split(after);
        for (const p of all) {
          for (const hunk of parseHunks(p.patch)!.hunks) {
            const body = hunk.body.filter((l) => !l.startsWith('\\'));
            const m = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(hunk.header)!;
            const oldSide = body.filter((l) => l[0] !== '+').map((l) => l.slice(1));
            const newSide = body.filter((l) => l[0] !== '-').map((l) => l.slice(1));
            expect(oldSide).toEqual(oldLines.slice(hunk.oldStart - 1, hunk.oldStart - 1 + oldSide.length));
            expect(newSide).toEqual(newLines.slice(hunk.newStart - 1, hunk.newStart - 1 + newSide.length));
            // A continuation's counts are its own lines; a real header's, the whole hunk's.
            if (hunk.header !== real.find((r) => r === hunk.header)) {
              expect(Number(m[1] ?? 1)).toBe(oldSide.length);
              expect(Number(m[2] ?? 1)).toBe(newSide.length);
            }
          }
        }
        // A fold holds lines of one kind, and more than foldRun of them.
        for (const f of pieces) if (f.kind === 'fold') expect(new Set(f.pieces.flatMap((p) => bodyLines(p.patch).filter((l) => !l.startsWith('\\')).map((l) => (l[0] === '+' || l[0] === '-' ? l[0] : ' ')))).size).toBe(1);
      }),
      { numRuns: 300 },
    );
  });
});
