import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDelta } from '../../../src/git/delta';
import { encodeDelta } from '../../../src/remote/delta-encoder';

const enc = new TextEncoder();

describe('encodeDelta', () => {
  it('applyDelta(base, encodeDelta(base, target)) is target, for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.uint8Array({ maxLength: 2000 }), (base, target) => {
        expect(applyDelta(base, encodeDelta(base, target))).toEqual(target);
      }),
    );
  });

  it('and for edits of a base: inserts, deletions, appends, repetitions', () => {
    const text = fc.array(fc.constantFrom('alpha ', 'beta\n', '{"k": 1}', 'x'.repeat(40), '\n'), { maxLength: 200 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), text, (base, cut, length, inserted) => {
        const from = base.length === 0 ? 0 : cut % base.length;
        const target = base.slice(0, from) + inserted + base.slice(from + (length % 50));
        expect(new TextDecoder().decode(applyDelta(enc.encode(base), encodeDelta(enc.encode(base), enc.encode(target))))).toBe(target);
      }),
    );
  });

  it('is small when the target is the base with a small change', () => {
    const base = enc.encode(Array.from({ length: 2000 }, (_, i) => `line ${i}\n`).join(''));
    const target = enc.encode(new TextDecoder().decode(base).replace('line 1000\n', 'line one thousand\n') + 'appended\n');
    const delta = encodeDelta(base, target);
    expect(applyDelta(base, delta)).toEqual(target);
    expect(delta.length).toBeLessThan(80);
  });
});
