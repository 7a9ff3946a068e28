import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isForgeError } from '../../../src/errors';
import { applyPatches, type PatchOp } from '../../../src/text';
import { buildFile, fileArb, lineContent, newlineStyle } from './arbitraries';

/** Files whose lines carry unique tokens ("L3:"), so whole-line slices are unique oldTexts. */
const tokenFile = fc
  .record({
    style: newlineStyle,
    contents: fc.array(lineContent, { minLength: 2, maxLength: 14 }),
    finalNewline: fc.boolean(),
    picks: fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 1, maxLength: 6 }),
  })
  .map(({ style, contents, finalNewline, picks }) => {
    const lines = contents.map((c, i) => `L${i}:${c}`);
    return { style, lineCount: lines.length, text: buildFile(lines, style, finalNewline, picks) };
  });

/** Original offsets where each line starts, plus the end. */
function lineStarts(text: string): number[] {
  const starts = [0];
  const re = /\r\n|\r|\n/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) if (m.index + m[0].length < text.length) starts.push(m.index + m[0].length);
  starts.push(text.length);
  return starts;
}

describe('applyPatches properties', () => {
  it('REQ-PATCH-002 property: non-overlapping unique replaces applied at once equal sequential application', () => {
    const scenario = tokenFile.chain((file) =>
      fc.record({
        file: fc.constant(file),
        cuts: fc.uniqueArray(fc.integer({ min: 0, max: file.lineCount }), { minLength: 2, maxLength: 7 }),
        // New text never contains the "L<n>:" tokens, so later oldTexts stay unique; newlines only in uniform-style files
        // so the dominant style cannot drift between sequential steps.
        replacements: fc.array(
          fc.string({ maxLength: 8, unit: fc.constantFrom(...(file.style === 'mixed' ? ['n', 'é', '😀', ' '] : ['n', 'é', '😀', ' ', '\n', '\r\n'])) }),
          { minLength: 6, maxLength: 6 },
        ),
        order: fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
      }),
    );
    fc.assert(
      fc.property(scenario, ({ file, cuts, replacements, order }) => {
        const starts = lineStarts(file.text);
        const sortedCuts = [...cuts].sort((a, b) => a - b);
        const patches: PatchOp[] = [];
        for (let i = 0; i + 1 < sortedCuts.length; i += 2) {
          const oldText = file.text.slice(starts[sortedCuts[i]], starts[sortedCuts[i + 1]]);
          patches.push({ operation: 'replace', oldText, newText: replacements[i / 2] });
        }
        // Shuffle: the order of independent replaces must not matter.
        const shuffled = patches.map((p, i) => ({ p, k: order[i] })).sort((a, b) => a.k - b.k).map((x) => x.p);
        const atOnce = applyPatches(file.text, shuffled).text;
        let sequential = file.text;
        for (const patch of patches) sequential = applyPatches(sequential, [patch]).text;
        expect(atOnce).toBe(sequential);
      }),
      { numRuns: 200 },
    );
  });

  it('REQ-PATCH-002 property: a failing call throws a ForgeError and changes none of its inputs', () => {
    const failingPatch = fc.constantFrom<PatchOp>(
      { operation: 'replace', oldText: '§ absent §', newText: 'x' },
      { operation: 'replace', oldText: 'a', fromClipboard: 'missing' },
      { operation: 'append_eof', newText: ' a\nb', reindent: { strip: ' ' } },
      { operation: 'overwrite', newText: 'x' },
    );
    const goodPatch: PatchOp = { operation: 'append_eof', newText: 'tail', toClipboard: undefined };
    fc.assert(
      fc.property(fileArb(), failingPatch, fc.boolean(), ({ text }, bad, badFirst) => {
        const patches = Object.freeze((badFirst ? [bad, goodPatch] : [goodPatch, bad]).map((p) => Object.freeze({ ...p })));
        const snapshot = JSON.stringify(patches);
        const clipboards = Object.freeze({ kept: 'value' });
        let thrown: unknown;
        try {
          applyPatches(text, patches, clipboards);
        } catch (e) {
          thrown = e;
        }
        expect(isForgeError(thrown)).toBe(true);
        expect(JSON.stringify(patches)).toBe(snapshot);
        expect(clipboards).toEqual({ kept: 'value' });
      }),
      { numRuns: 200 },
    );
  });

  it('property: a replace keeps everything outside the matched region byte for byte', () => {
    fc.assert(
      fc.property(tokenFile, fc.nat(), fc.string({ maxLength: 6, unit: fc.constantFrom('q', '\n', '😀') }), (file, n, newText) => {
        const starts = lineStarts(file.text);
        const line = n % file.lineCount;
        const oldText = file.text.slice(starts[line], starts[line + 1]);
        const { text } = applyPatches(file.text, [{ operation: 'replace', oldText, newText }]);
        expect(text.startsWith(file.text.slice(0, starts[line]))).toBe(true);
        expect(text.endsWith(file.text.slice(starts[line + 1]))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
