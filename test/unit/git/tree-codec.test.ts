import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareTreeEntries, encodeTree, parseTree, serializeTree, treeNameProblem, type TreeEntry } from '../../../src/git';
import { nodePlatform } from '../../../src/git/node/platform';
import { isForgeError } from '../../../src/errors';

const OID_A = 'a'.repeat(40);
const OID_B = 'b'.repeat(40);

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isForgeError(error) ? error.code : `non-forge: ${String(error)}`;
  }
  return undefined;
}

describe('serializeTree / parseTree', () => {
  it('orders entries as git does: a directory compares as "name/" (a-b.txt < a.c < a/ < a0)', () => {
    const entries: TreeEntry[] = [
      { mode: '100644', name: 'a0', oid: OID_A },
      { mode: '040000', name: 'a', oid: OID_B },
      { mode: '100644', name: 'a.c', oid: OID_A },
      { mode: '100644', name: 'a-b.txt', oid: OID_A },
    ];
    expect(parseTree(serializeTree(entries)).map((e) => e.name)).toEqual(['a-b.txt', 'a.c', 'a', 'a0']);
  });

  it('orders unicode names by UTF-8 bytes, not UTF-16 code units', () => {
    // U+FB01 is one UTF-16 unit above the surrogates; the emoji is a surrogate pair (below it in
    // UTF-16) but 4 UTF-8 bytes starting 0xF0 (above 0xEF, U+FB01's first byte).
    const entries: TreeEntry[] = [
      { mode: '100644', name: '\u{1F680}', oid: OID_A },
      { mode: '100644', name: '\uFB01', oid: OID_A },
      { mode: '100644', name: 'z', oid: OID_A },
    ];
    expect(parseTree(serializeTree(entries)).map((e) => e.name)).toEqual(['z', '\uFB01', '\u{1F680}']);
  });

  it('writes directories as "40000" (no leading zero), reads them back as 040000', () => {
    const bytes = serializeTree([{ mode: '040000', name: 'd', oid: OID_A }]);
    expect(new TextDecoder().decode(bytes.subarray(0, 8))).toBe('40000 d\0');
    expect(parseTree(bytes)).toEqual([{ mode: '040000', name: 'd', oid: OID_A }]);
  });

  it('round-trips every mode the engine writes and keeps oids exact', () => {
    const entries: TreeEntry[] = [
      { mode: '100644', name: 'f', oid: '0123456789abcdef0123456789abcdef01234567' },
      { mode: '100755', name: 'x', oid: OID_B },
      { mode: '120000', name: 'l', oid: OID_A },
      { mode: '160000', name: 's', oid: OID_B },
    ];
    const sorted = [...entries].sort(compareTreeEntries);
    expect(parseTree(serializeTree(entries))).toEqual(sorted);
  });

  it.each([
    ['.git'],
    ['.GIT'],
    ['.Git'],
    ['.git.'],
    ['.git '],
    ['.git. . '],
    ['git~1'],
    ['GIT~1'],
    ['.git\u200c'], // HFS+ ignores zero-width non-joiner
    ['..'],
    ['.'],
    [''],
    ['a/b'],
    ['nul\0byte'],
  ])('rejects the name %j with TREE_ENTRY_INVALID', (name) => {
    expect(treeNameProblem(name)).not.toBeNull();
    expect(codeOf(() => serializeTree([{ mode: '100644', name, oid: OID_A }]))).toBe('TREE_ENTRY_INVALID');
  });

  it.each([['.gitignore'], ['.github'], ['git~2x'], ['a.git'], ['...'], ['.git-x'], ['\u00e9'], ['git~1a']])('accepts the ordinary name %j', (name) => {
    expect(treeNameProblem(name)).toBeNull();
    expect(parseTree(serializeTree([{ mode: '100644', name, oid: OID_A }]))[0]!.name).toBe(name);
  });

  it('rejects duplicate names, and a file and a directory of the same name', () => {
    expect(
      codeOf(() =>
        serializeTree([
          { mode: '100644', name: 'a', oid: OID_A },
          { mode: '100644', name: 'a', oid: OID_B },
        ]),
      ),
    ).toBe('TREE_ENTRY_INVALID');
    expect(
      codeOf(() =>
        serializeTree([
          { mode: '100644', name: 'a', oid: OID_A },
          { mode: '040000', name: 'a', oid: OID_B },
        ]),
      ),
    ).toBe('TREE_ENTRY_INVALID');
  });

  it.each([
    ['with', nodePlatform.text],
    ['without', undefined],
  ])('rejects unknown modes and malformed oids, %s native hex', (_, text) => {
    const encode = (entries: TreeEntry[]) => encodeTree(entries, text);
    expect(codeOf(() => encode([{ mode: '100664' as never, name: 'a', oid: OID_A }]))).toBe('TREE_ENTRY_INVALID');
    expect(codeOf(() => encode([{ mode: '100644', name: 'a', oid: 'abc' }]))).toBe('TREE_ENTRY_INVALID');
    expect(codeOf(() => encode([{ mode: '100644', name: 'a', oid: OID_A.toUpperCase() }]))).toBe('TREE_ENTRY_INVALID');
    // Non-ASCII chars whose low 7 bits are hex digits ('\u0161' & 0x7f is 'a') are not hex either.
    expect(codeOf(() => encode([{ mode: '100644', name: 'a', oid: `${'a'.repeat(39)}\u0161` }]))).toBe('TREE_ENTRY_INVALID');
    expect(codeOf(() => encode([{ mode: '100644', name: 'a', oid: `${'a'.repeat(38)}g0` }]))).toBe('TREE_ENTRY_INVALID');
    // A bad oid after good ones: the whole tree is refused, whichever entry it is.
    expect(codeOf(() => encode([{ mode: '100644', name: 'a', oid: OID_A }, { mode: '100644', name: 'b', oid: `${'b'.repeat(39)}` }]))).toBe('TREE_ENTRY_INVALID');
  });

  it('property: any order in, git order out (as the byte comparator sorts), and both parsers read back the same entries', () => {
    const nameChar = fc.constantFrom('a', 'b', '-', '.', '0', 'z', '~', '\u00e9', '\u20ac', '\uFB01', '\u{1F680}', '\u{10400}');
    const entry = fc.record({
      name: fc.array(nameChar, { minLength: 1, maxLength: 4 }).map((chars) => chars.join('')).filter((name) => treeNameProblem(name) === null),
      mode: fc.constantFrom('100644', '100755', '040000', '120000', '160000') as fc.Arbitrary<TreeEntry['mode']>,
      oid: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => Buffer.from(bytes).toString('hex')),
    });
    fc.assert(
      fc.property(fc.uniqueArray(entry, { selector: (e) => e.name, maxLength: 30 }), fc.boolean(), (entries, presorted) => {
        const expected = [...entries].sort(compareTreeEntries);
        const input = presorted ? expected : entries;
        const { content, sorted } = encodeTree(input);
        expect(sorted).toEqual(expected);
        // Native hex for the oids writes the same bytes.
        expect(encodeTree(input, nodePlatform.text).content).toEqual(content);
        expect(parseTree(content)).toEqual(expected);
        expect(parseTree(content, '?', nodePlatform.text)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it.each([['.gitmodules'], ['.GITMODULES'], ['.gitmodules .'], ['gitmod~1'], ['gi7eba~1'], ['.gitignore'], ['.gitattributes'], ['.mailmap'], ['.Mailmap']])(
    'rejects a symlink named %j (git fsck reports it), but accepts a regular file of that name',
    (name) => {
      expect(codeOf(() => serializeTree([{ mode: '120000', name, oid: OID_A }]))).toBe('TREE_ENTRY_INVALID');
      expect(codeOf(() => serializeTree([{ mode: '100644', name, oid: OID_A }]))).toBeUndefined();
    },
  );

  it('parseTree refuses a truncated tree and an unknown mode as OBJECT_CORRUPT', () => {
    const good = serializeTree([{ mode: '100644', name: 'a', oid: OID_A }]);
    expect(codeOf(() => parseTree(good.subarray(0, good.length - 1)))).toBe('OBJECT_CORRUPT');
    const bad = new Uint8Array(good);
    bad.set(new TextEncoder().encode('100664'), 0);
    expect(codeOf(() => parseTree(bad))).toBe('OBJECT_CORRUPT');
  });

  it('parseTree refuses a non-UTF-8 name with TREE_ENTRY_INVALID', () => {
    const head = new Uint8Array([...new TextEncoder().encode('100644 caf'), 0xe9, 0]);
    const raw = new Uint8Array(head.length + 20);
    raw.set(head);
    expect(codeOf(() => parseTree(raw))).toBe('TREE_ENTRY_INVALID');
  });
});
