/**
 * The line merge on its own: git's xdiff semantics (checked byte for byte against
 * `git merge-tree` in test/integration/merge-oracle.test.ts; here the rules, readably).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeLines } from '../../../src/branches';
import { diffLines, LineClassifier, lineStarts } from '../../../src/branches/xdiff';
import { gitMergeTexts } from '../../helpers/git-merge-texts';
import { lineArb, sparseEditsArb } from './histories';
import { lines } from './build';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const labels = { ours: 'ours', theirs: 'theirs' };
const merge = (base: string, ours: string, theirs: string) => {
  const r = mergeLines(enc(base), enc(ours), enc(theirs), labels);
  return { ...r, text: dec(r.content) };
};

describe('mergeLines', () => {
  // Found by a planted bug (joining conflicts within 2 lines instead of 3 passed every test):
  // two conflicts with exactly three unchanged lines between them are one region for git.
  it('joins conflicts at most three lines apart into one region, as git does', () => {
    const base = 'l0\n'.repeat(8);
    const ours = ['x4', 'l0', 'l0', 'l0', 'x3', 'l0', 'l0', 'l0', 'l0'].map((l) => `${l}\n`).join('');
    const theirs = ['l0', 'l0', 'y2', 'l0', 'l0', 'l0', 'y2', 'l0', 'y1'].map((l) => `${l}\n`).join('');
    const [expected] = gitMergeTexts([{ base, ours, theirs }]);
    const r = mergeLines(enc(base), enc(ours), enc(theirs), expected!.labels);
    expect(expected!.text.match(/^<<<<<<< /gm)).toHaveLength(1);
    expect(r.conflicts).toHaveLength(1);
    expect(dec(r.content)).toBe(expected!.text);
  });

  // Repetitive texts with a few point edits on each side: conflicts land 0-5 lines apart, where
  // git's joining of nearby conflicts decides the output.
  it('agrees with git merge-tree on sparse edits of repetitive texts (property)', () => {
    const cases = fc.sample(sparseEditsArb, { numRuns: 300, seed: 3 });
    const expected = gitMergeTexts(cases);
    let joined = 0;
    cases.forEach((c, i) => {
      const g = expected[i]!;
      const r = mergeLines(enc(c.base), enc(c.ours), enc(c.theirs), g.labels);
      expect(dec(r.content), JSON.stringify(c)).toBe(g.text);
      expect(r.clean, JSON.stringify(c)).toBe(g.clean);
      if (r.conflicts.some((k) => k.base.count > 1 && k.ours.count > 1 && k.theirs.count > 1)) joined++;
    });
    // The generator does reach the cases it exists for.
    expect(joined).toBeGreaterThan(10);
  });

  it('merges non-overlapping hunks of one file cleanly', () => {
    const r = merge(lines(10), lines(10, { 2: 'two' }), lines(10, { 8: 'eight' }));
    expect(r.clean).toBe(true);
    expect(r.text).toBe(lines(10, { 2: 'two', 8: 'eight' }));
    expect(r.conflicts).toEqual([]);
  });

  it('treats touching hunks as a conflict, as git does', () => {
    const r = merge(lines(4), lines(4, { 1: 'ONE' }), lines(4, { 2: 'TWO' }));
    expect(r.clean).toBe(false);
    expect(r.text).toBe('<<<<<<< ours\nONE\nline 2\n=======\nline 1\nTWO\n>>>>>>> theirs\nline 3\nline 4\n');
  });

  it('merges edits one line apart', () => {
    const r = merge(lines(4), lines(4, { 1: 'ONE' }), lines(4, { 3: 'THREE' }));
    expect(r).toMatchObject({ clean: true, text: lines(4, { 1: 'ONE', 3: 'THREE' }) });
  });

  it('takes identical changes once', () => {
    expect(merge('a\nb\n', 'a\nx\nb\n', 'a\nx\nb\n')).toMatchObject({ clean: true, text: 'a\nx\nb\n' });
  });

  it('conflicts when both sides append different lines at the end', () => {
    const r = merge('a\nb\n', 'a\nb\nx\n', 'a\nb\ny\n');
    expect(r.clean).toBe(false);
    expect(r.conflicts).toEqual([{ base: { start: 3, count: 0, text: '' }, ours: { start: 3, count: 1, text: 'x\n' }, theirs: { start: 3, count: 1, text: 'y\n' } }]);
    expect(r.text).toBe('a\nb\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n');
  });

  it('counts a missing final newline as a different last line', () => {
    // Adding a newline to the last line changes that line: it touches an edit of the line before.
    expect(merge('a\nb\nc', 'a\nb\nc\n', 'a\nB\nc').clean).toBe(false);
    expect(merge('a\nb\nc\nd', 'a\nb\nc\nd\n', 'A\nb\nc\nd')).toMatchObject({ clean: true, text: 'A\nb\nc\nd\n' });
  });

  it('reports each conflicting region with its base, ours and theirs lines', () => {
    const r = merge(lines(12), lines(12, { 2: 'ours 2', 10: 'ours 10' }), lines(12, { 2: 'theirs 2', 10: 'theirs 10' }));
    expect(r.conflicts).toEqual([
      { base: { start: 2, count: 1, text: 'line 2\n' }, ours: { start: 2, count: 1, text: 'ours 2\n' }, theirs: { start: 2, count: 1, text: 'theirs 2\n' } },
      { base: { start: 10, count: 1, text: 'line 10\n' }, ours: { start: 10, count: 1, text: 'ours 10\n' }, theirs: { start: 10, count: 1, text: 'theirs 10\n' } },
    ]);
  });

  it('refines a conflict: lines both sides wrote the same are not in conflict', () => {
    const base = 'a\nb\nc\nd\n';
    const r = merge(base, 'a\nX\nsame\nd\n', 'a\nY\nsame\nd\n');
    expect(r.text).toBe('a\n<<<<<<< ours\nX\n=======\nY\n>>>>>>> theirs\nsame\nd\n');
  });

  it('writes CRLF markers in a CRLF file', () => {
    const r = merge('a\r\nb\r\n', 'a\r\nx\r\n', 'a\r\ny\r\n');
    expect(r.text).toBe('a\r\n<<<<<<< ours\r\nx\r\n=======\r\ny\r\n>>>>>>> theirs\r\n');
  });

  it('keeps bytes as they are (CR inside lines, invalid UTF-8)', () => {
    const base = new Uint8Array([0x61, 0x0d, 0x0a, 0xff, 0x0a, 0x63, 0x0a, 0x64, 0x0a, 0x65, 0x0a]);
    const ours = new Uint8Array([0x41, 0x0d, 0x0a, 0xff, 0x0a, 0x63, 0x0a, 0x64, 0x0a, 0x65, 0x0a]);
    const theirs = new Uint8Array([0x61, 0x0d, 0x0a, 0xff, 0x0a, 0x63, 0x0a, 0x64, 0x0a, 0x45, 0x0a]);
    const r = mergeLines(base, ours, theirs, labels);
    expect(r.clean).toBe(true);
    expect([...r.content]).toEqual([0x41, 0x0d, 0x0a, 0xff, 0x0a, 0x63, 0x0a, 0x64, 0x0a, 0x45, 0x0a]);
  });

  const textArb = fc.array(lineArb, { maxLength: 25 }).map((ls) => ls.map((l) => `${l}\n`).join(''));

  it('is the identity when one side did not change (property)', () => {
    fc.assert(
      fc.property(textArb, textArb, (base, changed) => {
        expect(merge(base, changed, base)).toMatchObject({ clean: true, text: changed });
        expect(merge(base, base, changed)).toMatchObject({ clean: true, text: changed });
        expect(merge(base, changed, changed)).toMatchObject({ clean: true, text: changed });
      }),
    );
  });

  it('merges edits of separate regions into both edits, and conflicts on overlapping ones (property)', () => {
    const region = fc.tuple(fc.nat(30), fc.nat(4), fc.nat(3)); // start, length replaced, lines inserted
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), region, region, (n, [s1, l1, k1], [s2, l2, k2]) => {
        const base = Array.from({ length: n }, (_, i) => `base ${i}\n`);
        const a = Math.min(s1, n);
        const b = Math.min(s2, n);
        const edit = (start: number, len: number, ins: string[]) => [...base.slice(0, start), ...ins, ...base.slice(start + len)];
        const oursLines = Array.from({ length: k1 }, (_, i) => `ours ${i}\n`);
        const theirsLines = Array.from({ length: k2 }, (_, i) => `theirs ${i}\n`);
        const r = merge(base.join(''), edit(a, l1, oursLines).join(''), edit(b, l2, theirsLines).join(''));
        const oursEnd = Math.min(a + l1, n);
        const theirsEnd = Math.min(b + l2, n);
        const oursChanges = oursEnd > a || k1 > 0;
        const theirsChanges = theirsEnd > b || k2 > 0;
        if (oursChanges && theirsChanges && oursEnd < b) {
          // At least one untouched line between the two edits: clean, and both edits are in.
          expect(r.clean).toBe(true);
          expect(r.text).toBe([...base.slice(0, a), ...oursLines, ...base.slice(oursEnd, b), ...theirsLines, ...base.slice(theirsEnd)].join(''));
        } else if (oursChanges && theirsChanges && a <= theirsEnd && b <= oursEnd && (k1 > 0 || k2 > 0)) {
          // Overlapping or touching edits that write different lines conflict.
          expect(r.clean).toBe(false);
          expect(r.conflicts.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});

describe('diffLines (histogram, compacted)', () => {
  const ids = (text: string, c = new LineClassifier()) => c.classify(enc(text), lineStarts(enc(text)));

  it('describes the change from one text to the other', () => {
    const c = new LineClassifier();
    expect(diffLines(ids('a\nb\nc\n', c), ids('a\nB\nc\nd\n', c))).toEqual([
      { i1: 1, chg1: 1, i2: 1, chg2: 1 },
      { i1: 3, chg1: 0, i2: 3, chg2: 1 },
    ]);
  });

  it('slides an ambiguous insertion down as git does', () => {
    const c = new LineClassifier();
    // "b\n" inserted among equal lines: xdiff puts the group as late as it can.
    expect(diffLines(ids('a\nb\nc\n', c), ids('a\nb\nb\nc\n', c))).toEqual([{ i1: 2, chg1: 0, i2: 2, chg2: 1 }]);
  });
});
