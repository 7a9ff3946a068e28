/**
 * lineChangeCounts cuts the common prefix and suffix lines off natively before xdiff; the
 * counts must equal xdiff over the whole files (wholeCounts, itself checked against git in
 * test/integration/diff-stat-oracle.test.ts) for any pair of texts: repeated lines (xdiff's
 * discarding of frequent lines reads the cut-off lines' counts), last lines without a newline,
 * CRLF, non-ASCII, empty files, and bytes that are not UTF-8.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineChangeCounts, wholeCounts } from '../../../src/text/line-stat';

const encode = (s: string) => new TextEncoder().encode(s);
const line = fc.constantFrom('a\n', 'b\n', 'a', 'c\r\n', 'é\n', '😀\n', '\n', 'x y\n', 'a\n', 'a\n');

describe('lineChangeCounts', () => {
  it('equals xdiff over the whole files (property)', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), fc.array(fc.tuple(fc.nat(60), fc.nat(3), fc.array(line, { maxLength: 4 })), { maxLength: 6 }), (lines, edits) => {
        const before = lines.join('');
        const after = [...lines];
        for (const [at, remove, insert] of edits) after.splice(at % (after.length + 1), remove, ...insert);
        const x = encode(before);
        const y = encode(after.join(''));
        expect(lineChangeCounts(x, y)).toEqual(wholeCounts(x, y));
      }),
      { numRuns: 2000 },
    );
  });

  it('frequent lines in the cut-off prefix and suffix change what xdiff discards', () => {
    // 'a' lines everywhere: their count in the other whole file (mostly in the cut-off part) decides.
    const common = 'a\n'.repeat(300);
    const before = `${common}b\na\nc\na\n${common}`;
    const after = `${common}a\nd\na\ne\na\n${common}`;
    expect(lineChangeCounts(encode(before), encode(after))).toEqual(wholeCounts(encode(before), encode(after)));
  });

  it("takes xdiff's frequency limit from the whole files' line counts, not the remaining lines'", () => {
    // 300 cut-off lines: the limit is bogosqrt(~320) = 32, so 'a' (8 times in the new file) is
    // kept and matched; from the 21 remaining lines alone (limit 8) it would be discarded, one
    // more line changed on each side. git diff --numstat says 31 20.
    const numbered = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}\n`).join('');
    const common = numbered('u', 300);
    const before = `${common}${numbered('x', 10)}a\n${numbered('z', 10)}`;
    const after = common + Array.from({ length: 8 }, (_, k) => `${numbered(`y${k}-`, 3)}a\n`).join('');
    expect(lineChangeCounts(encode(before), encode(after))).toEqual({ added: 31, removed: 20 });
    expect(wholeCounts(encode(before), encode(after))).toEqual({ added: 31, removed: 20 });
  });

  it('counts bytes that are not UTF-8 the whole-file way', () => {
    const x = new Uint8Array([0xff, 10, 0x61, 10]);
    const y = new Uint8Array([0xff, 10, 0x62, 10, 0xfe]);
    expect(lineChangeCounts(x, y)).toEqual({ added: 2, removed: 1 });
  });
});
