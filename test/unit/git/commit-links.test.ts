/**
 * parseCommitLinks (the merge-base walk's reader) gives what parseCommit gives for parents and
 * committer time, on any commit serializeCommit can write, and refuses what parseCommit refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isForgeError } from '../../../src/errors';
import { parseCommit, parseCommitLinks, serializeCommit, type Commit } from '../../../src/git/object-codec';

const oid = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 40, maxLength: 40 });
const signature = fc.record({
  name: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !/[<>\n]/.test(s) && s.trim() === s && s.length > 0),
  email: fc.string({ maxLength: 20 }).filter((s) => !/[<>\n]/.test(s)),
  timestamp: fc.integer({ min: 0, max: 2 ** 40 }),
  timezoneOffset: fc.integer({ min: -720, max: 840 }),
});
const commit: fc.Arbitrary<Commit> = fc.record({
  tree: oid,
  parents: fc.array(oid, { maxLength: 4 }),
  author: signature,
  committer: signature,
  message: fc.string({ maxLength: 200 }),
});

describe('parseCommitLinks', () => {
  it('agrees with parseCommit on parents and committer time', () => {
    fc.assert(
      fc.property(commit, fc.boolean(), (c, signed) => {
        const withHeaders: Commit = signed ? { ...c, extraHeaders: [['gpgsig', '-----BEGIN PGP SIGNATURE-----\n\nabc 123 +0000\n-----END PGP SIGNATURE-----']] } : c;
        let bytes: Uint8Array;
        try {
          bytes = serializeCommit(withHeaders);
        } catch {
          return; // a signature serializeCommit refuses
        }
        const full = parseCommit(bytes);
        expect(parseCommitLinks(bytes)).toEqual({ tree: full.tree, parents: full.parents, time: full.committer.timestamp });
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a commit without a committer, or with a damaged parent line, as OBJECT_CORRUPT', () => {
    const text = (s: string) => new TextEncoder().encode(s);
    for (const bad of [`tree ${'a'.repeat(40)}\nauthor A <a> 1 +0000\n\nmsg`, `tree ${'a'.repeat(40)}\nparent xyz\ncommitter A <a> 1 +0000\n\n`, `tree ${'a'.repeat(40)}\ncommitter A <a> soon\n\n`]) {
      let error: unknown;
      try {
        parseCommitLinks(text(bad));
      } catch (e) {
        error = e;
      }
      expect(isForgeError(error) && error.code).toBe('OBJECT_CORRUPT');
    }
  });
});
