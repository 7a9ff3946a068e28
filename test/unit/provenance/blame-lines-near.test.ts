/**
 * blameLinesNear reuses another version's classes for the lines both share at the start and the
 * end: it must give exactly what classifying from scratch gives, whatever the two versions are
 * (shared prefixes and suffixes that end inside a line, a last line without its newline, bytes
 * that are not UTF-8, empty files).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineClassifier } from '../../../src/branches/xdiff';
import { blameLines, blameLinesNear } from '../../../src/provenance/blame-diff';

const piece = fc.constantFrom('a', 'b', 'ab', '\n', '\n', '  x', '\t', 'é', '\xff', '\xc3', 'end');
const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(''));
const bytesOf = (s: string) => Uint8Array.from([...s].flatMap((c) => (c.charCodeAt(0) >= 0x80 && c !== 'é' ? [c.charCodeAt(0)] : [...new TextEncoder().encode(c)])));

describe('blameLinesNear', () => {
  it('classifies as blameLines does, for any version and neighbour (shared head, edited middle, shared tail)', () => {
    fc.assert(
      fc.property(text, text, text, text, text, (head, mid1, mid2, tail, extra) => {
        const classifier = new LineClassifier();
        const near = blameLines(bytesOf(head + mid1 + tail), classifier);
        blameLines(bytesOf(extra), classifier); // other lines already known to the classifier
        const version = bytesOf(head + mid2 + tail);
        const ours = blameLinesNear(version, near, classifier);
        const fresh = blameLines(version, classifier);
        expect(ours.starts).toEqual(fresh.starts);
        expect([...ours.classes]).toEqual([...fresh.classes]);
        expect([...ours.indents]).toEqual([...fresh.indents]);
      }),
      { numRuns: 2000 },
    );
  });
});
