/**
 * The changed-path Bloom filter (git/changed-path-filter.ts): never a false negative (every
 * changed path and each of its directories is held), too many changes mean "everything may have
 * changed", and murmur3 is git's (t0095-bloom's vectors), so the filters mean what git's do.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildChangedPathFilter, MAX_CHANGED_PATHS, mayHaveChanged, murmur3, withDirectories } from '../../../src/git/changed-path-filter';

const segment = fc.stringMatching(/^[a-zA-Z0-9._\-é€]{1,6}$/);
const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/'));
const bytes = (s: string) => new TextEncoder().encode(s);

describe('changed-path filter', () => {
  it('murmur3 gives git\'s values (t0095-bloom)', () => {
    expect(murmur3(0, bytes(''))).toBe(0);
    expect(murmur3(0, bytes('Hello world!')).toString(16)).toBe('627b0c2c');
    expect(murmur3(0, bytes('The quick brown fox jumps over the lazy dog')).toString(16)).toBe('2e4ff723');
  });

  it('holds every changed path and each of its directories (no false negatives)', () => {
    fc.assert(
      fc.property(fc.array(path, { minLength: 0, maxLength: 60 }), (changed) => {
        const filter = buildChangedPathFilter(changed);
        for (const p of changed) {
          expect(mayHaveChanged(filter, p)).toBe(true);
          const parts = p.split('/');
          for (let i = 1; i < parts.length; i++) expect(mayHaveChanged(filter, parts.slice(0, i).join('/'))).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('rules out most paths that did not change (a false positive costs a tree read, so they must be rare)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(path, { minLength: 1, maxLength: 40 }), fc.uniqueArray(path, { minLength: 50, maxLength: 80 }), (changed, others) => {
        const filter = buildChangedPathFilter(changed);
        const entries = withDirectories(changed);
        const unchanged = others.filter((p) => !entries.has(p) && ![...entries].some((e) => p.startsWith(`${e}/`)));
        if (unchanged.length < 20) return;
        const positives = unchanged.filter((p) => mayHaveChanged(filter, p)).length;
        // 10 bits and 7 hashes per entry: ~1% each; 30% would mean a broken filter.
        expect(positives / unchanged.length).toBeLessThan(0.3);
      }),
      { numRuns: 100 },
    );
  });

  it('too many changed paths: no filter, every path may have changed', () => {
    const changed = Array.from({ length: MAX_CHANGED_PATHS + 1 }, (_, i) => `f${i}`);
    const filter = buildChangedPathFilter(changed);
    expect(filter).toBeNull();
    expect(mayHaveChanged(filter, 'anything/at/all')).toBe(true);
    expect(mayHaveChanged(buildChangedPathFilter(null), 'x')).toBe(true);
    // Directories count: 300 files in 300 directories are 600 entries.
    expect(buildChangedPathFilter(Array.from({ length: 300 }, (_, i) => `d${i}/f`))).toBeNull();
  });

  it('a commit that changed nothing rules out every path', () => {
    const filter = buildChangedPathFilter([]);
    expect(mayHaveChanged(filter, 'a')).toBe(false);
    expect(mayHaveChanged(filter, 'a/b/c')).toBe(false);
  });
});
