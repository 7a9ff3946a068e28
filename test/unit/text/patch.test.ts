import { describe, expect, it } from 'vitest';
import { isForgeError, type ErrorCode } from '../../../src/errors';
import { applyPatches, checkPatchSize, MAX_PATCH_INPUT_TOKENS, type PatchOp } from '../../../src/text';

/** Runs `fn`, expects a ForgeError with `code`, returns its message. */
function failure(code: ErrorCode, fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (!isForgeError(e)) throw e;
    expect(e.code).toBe(code);
    return e.message;
  }
  throw new Error(`expected ForgeError ${code}, but the call succeeded`);
}

const SOURCE = ['function a() {', '  return 1;', '}', '', 'function b() {', '  return 2;', '}', ''].join('\n');

describe('REQ-PATCH-001: file operations', () => {
  it('REQ-PATCH-001: replace substitutes the unique oldText', () => {
    const { text } = applyPatches(SOURCE, [{ operation: 'replace', oldText: '  return 1;', newText: '  return 10;' }]);
    expect(text).toBe(SOURCE.replace('return 1;', 'return 10;'));
  });

  it('REQ-PATCH-001: replace refuses an oldText that appears more than once and lists the lines', () => {
    const message = failure('TEXT_AMBIGUOUS_MATCH', () => applyPatches(SOURCE, [{ operation: 'replace', oldText: '}\n', newText: '};\n' }]));
    expect(message).toContain('2 times');
    expect(message).toContain('lines 3, 7');
  });

  it('REQ-PATCH-001: append_eof, prepend_bof and overwrite', () => {
    expect(applyPatches('a\n', [{ operation: 'append_eof', newText: 'b\n' }]).text).toBe('a\nb\n');
    expect(applyPatches('a\n', [{ operation: 'prepend_bof', newText: '# top\n' }]).text).toBe('# top\na\n');
    expect(applyPatches('a\n', [{ operation: 'overwrite', newText: 'new\n' }]).text).toBe('new\n');
  });

  it('REQ-PATCH-001: a missing file allows append_eof, prepend_bof and overwrite only', () => {
    expect(applyPatches(null, [{ operation: 'overwrite', newText: 'x\n' }]).text).toBe('x\n');
    expect(applyPatches(null, [{ operation: 'append_eof', newText: 'x' }]).text).toBe('x');
    expect(applyPatches(null, [{ operation: 'prepend_bof', newText: 'x' }]).text).toBe('x');
    const message = failure('PATCH_FILE_MISSING', () => applyPatches(null, [{ operation: 'replace', oldText: 'a', newText: 'b' }]));
    expect(message).toContain('does not exist');
    expect(message).toContain('overwrite');
  });

  it('REQ-PATCH-001: replace with an empty oldText is refused', () => {
    const message = failure('TEXT_EMPTY_SNIPPET', () => applyPatches('a', [{ operation: 'replace', oldText: '', newText: 'b' }]));
    expect(message).toContain('oldText is empty');
  });

  it('REQ-PATCH-001: a missing newText on replace deletes the match, and says so', () => {
    const result = applyPatches('a\nb\nc\n', [{ operation: 'replace', oldText: 'b\n' }]);
    expect(result.text).toBe('a\nc\n');
    expect(result.notes.join('\n')).toContain('deleted');
  });

  it('REQ-PATCH-001: overwrite must be the only patch; other operations need newText', () => {
    failure('PATCH_INVALID_OPERATION', () =>
      applyPatches('a', [
        { operation: 'overwrite', newText: 'x' },
        { operation: 'append_eof', newText: 'y' },
      ]),
    );
    failure('PATCH_INVALID_OPERATION', () => applyPatches('a', [{ operation: 'append_eof' }]));
    failure('PATCH_INVALID_OPERATION', () => applyPatches('a', [{ operation: 'delete' as PatchOp['operation'] }]));
    failure('PATCH_INVALID_OPERATION', () => applyPatches('a', []));
  });

  it('REQ-PATCH-001: append to a file without final newline starts a new line; prepend does not join the first line', () => {
    const appended = applyPatches('a\r\nb', [{ operation: 'append_eof', newText: 'c' }]);
    expect(appended.text).toBe('a\r\nb\r\nc');
    expect(appended.notes.join('\n')).toContain('did not end with a newline');
    expect(applyPatches('body\n', [{ operation: 'prepend_bof', newText: '// header' }]).text).toBe('// header\nbody\n');
  });

  it('REQ-PATCH-001: matches on the canonical LF view and writes inserted text in the dominant style', () => {
    const crlf = 'one\r\ntwo\r\nthree\r\n';
    const { text, newlineKind } = applyPatches(crlf, [{ operation: 'replace', oldText: 'two\nthree', newText: '2\n3' }]);
    expect(text).toBe('one\r\n2\r\n3\r\n');
    expect(newlineKind).toBe('CRLF');
  });
});

describe('REQ-PATCH-002: multiple patches per call', () => {
  it('REQ-PATCH-002: all patches are located in the original and applied at once', () => {
    // The second patch's oldText only exists in the original, not after the first patch.
    const result = applyPatches('alpha\nbeta\ngamma\n', [
      { operation: 'replace', oldText: 'alpha\n', newText: 'beta2\n' },
      { operation: 'replace', oldText: 'gamma', newText: 'GAMMA' },
      { operation: 'prepend_bof', newText: 'top\n' },
      { operation: 'append_eof', newText: 'end\n' },
    ]);
    expect(result.text).toBe('top\nbeta2\nbeta\nGAMMA\nend\n');
  });

  it('REQ-PATCH-002: several prepends and appends insert in patch order', () => {
    const result = applyPatches('m\n', [
      { operation: 'append_eof', newText: 'a1\n' },
      { operation: 'prepend_bof', newText: 'p1\n' },
      { operation: 'append_eof', newText: 'a2\n' },
      { operation: 'prepend_bof', newText: 'p2\n' },
    ]);
    expect(result.text).toBe('p1\np2\nm\na1\na2\n');
  });

  it('REQ-PATCH-002: any failing patch rejects the whole call', () => {
    const clipboards = { keep: 'K' };
    const message = failure('TEXT_NO_MATCH', () =>
      applyPatches(
        SOURCE,
        [
          { operation: 'replace', oldText: '  return 1;', newText: '  return 10;', toClipboard: 'c' },
          { operation: 'replace', oldText: 'no such text anywhere', newText: 'x' },
        ],
        clipboards,
      ),
    );
    expect(message).toContain('patch 2 (replace): old text not found');
    expect(clipboards).toEqual({ keep: 'K' });
  });

  it('REQ-PATCH-002: overlapping regions are rejected naming both patches', () => {
    const message = failure('PATCH_OVERLAP', () =>
      applyPatches(SOURCE, [
        { operation: 'replace', oldText: 'function a() {\n  return 1;', newText: 'x' },
        { operation: 'replace', oldText: '  return 1;\n}', newText: 'y' },
      ]),
    );
    expect(message).toContain('patches 1 and 2 overlap');
    expect(message).toContain('line(s) 2-2');
  });

  it('REQ-PATCH-002: adjacent regions do not overlap', () => {
    const result = applyPatches('ab', [
      { operation: 'replace', oldText: 'a', newText: 'A' },
      { operation: 'replace', oldText: 'b', newText: 'B' },
    ]);
    expect(result.text).toBe('AB');
  });
});

describe('REQ-PATCH-003: clipboards', () => {
  it('REQ-PATCH-003: toClipboard stores the matched text and completes the replace (cut and paste in one call)', () => {
    const result = applyPatches(SOURCE, [
      { operation: 'replace', oldText: 'function b() {\n  return 2;\n}\n', newText: '', toClipboard: 'fnB' },
      { operation: 'prepend_bof', fromClipboard: 'fnB' },
    ]);
    expect(result.clipboards.fnB).toBe('function b() {\n  return 2;\n}\n');
    expect(result.text).toBe('function b() {\n  return 2;\n}\nfunction a() {\n  return 1;\n}\n\n');
    expect(result.notes.join('\n')).toContain('clipboard "fnB" now holds lines 5-7');
  });

  it('REQ-PATCH-003: fromClipboard replaces newText, which is ignored', () => {
    const result = applyPatches('x = OLD;\n', [{ operation: 'replace', oldText: 'OLD', newText: 'IGNORED', fromClipboard: 'v' }], { v: 'value' });
    expect(result.text).toBe('x = value;\n');
    expect(result.notes.join('\n')).toContain('newText is ignored');
  });

  it('REQ-PATCH-003: a missing clipboard is an error naming it', () => {
    const message = failure('PATCH_CLIPBOARD_MISSING', () =>
      applyPatches('abc', [{ operation: 'replace', oldText: 'b', fromClipboard: 'nope' }], { other: '1' }),
    );
    expect(message).toContain('clipboard "nope" does not exist');
    expect(message).toContain('"other"');
  });

  it('REQ-PATCH-003: the same name for toClipboard and fromClipboard is a copy (text unchanged)', () => {
    const result = applyPatches(SOURCE, [{ operation: 'replace', oldText: '  return 2;', toClipboard: 'r', fromClipboard: 'r' }]);
    expect(result.text).toBe(SOURCE);
    expect(result.clipboards.r).toBe('  return 2;');
  });

  it('REQ-PATCH-003: clipboards are LF-only and take the target style when pasted', () => {
    const cut = applyPatches('a\r\nb\r\nc\r\n', [{ operation: 'replace', oldText: 'b\nc\n', newText: '', toClipboard: 'x' }]);
    expect(cut.text).toBe('a\r\n');
    expect(cut.clipboards.x).toBe('b\nc\n');
    expect(applyPatches('z\rz\r', [{ operation: 'append_eof', fromClipboard: 'x' }], cut.clipboards).text).toBe('z\rz\rb\rc\r');
  });

  it('REQ-PATCH-003: the input clipboard map is never changed', () => {
    const clipboards = Object.freeze({ a: '1' });
    const result = applyPatches('xyz', [{ operation: 'replace', oldText: 'y', newText: 'Y', toClipboard: 'b' }], clipboards);
    expect(result.clipboards).toEqual({ a: '1', b: 'y' });
    expect(clipboards).toEqual({ a: '1' });
  });

  it('REQ-PATCH-003: toClipboard is only for replace', () => {
    failure('PATCH_INVALID_OPERATION', () => applyPatches('a', [{ operation: 'append_eof', newText: 'x', toClipboard: 'c' }]));
  });
});

describe('REQ-PATCH-004: indentation adjustment', () => {
  it('REQ-PATCH-004: strip and add prefixes on each non-empty line of the inserted text', () => {
    const result = applyPatches(
      'class A {\n  // here\n}\n',
      [{ operation: 'replace', oldText: '  // here\n', fromClipboard: 'm', reindent: { strip: '    ', add: '  ' } }],
      { m: '    method() {\n\n      return 1;\n    }\n' },
    );
    expect(result.text).toBe('class A {\n  method() {\n\n    return 1;\n  }\n}\n');
  });

  it('REQ-PATCH-004: a strip prefix missing from a non-empty line fails and says which line', () => {
    const message = failure('PATCH_REINDENT_FAILED', () =>
      applyPatches('x\n', [{ operation: 'append_eof', newText: '    a\n  b\n', reindent: { strip: '    ' } }]),
    );
    expect(message).toContain('line 2');
    expect(message).toContain('"  b"');
  });
});

describe('REQ-PATCH-005: fuzzy matching recovery', () => {
  const TABBED = 'if (x) {\n\tfoo();\n\tbar();\n}\n';

  it('REQ-PATCH-005: adjusts a leading-whitespace difference and re-indents newText by the same delta', () => {
    const result = applyPatches(TABBED, [{ operation: 'replace', oldText: '    foo();\n    bar();', newText: '    foo();\n    baz();\n    bar();' }]);
    expect(result.text).toBe('if (x) {\n\tfoo();\n\tbaz();\n\tbar();\n}\n');
    const notes = result.notes.join('\n');
    expect(notes).toContain('did not match exactly');
    expect(notes).toContain('lines 2-3');
    expect(notes).toContain(JSON.stringify('\tfoo();\n\tbar();'));
  });

  it('REQ-PATCH-005: updates toClipboard with the text actually matched, and says so', () => {
    const result = applyPatches(TABBED, [{ operation: 'replace', oldText: 'foo();\nbar();\n', newText: '', toClipboard: 'c' }]);
    expect(result.clipboards.c).toBe('\tfoo();\n\tbar();\n');
    expect(result.text).toBe('if (x) {\n}\n');
    expect(result.notes.join('\n')).toContain('holds the text actually matched in the file');
  });

  it('REQ-PATCH-005: ignores blank first/last lines of oldText', () => {
    const result = applyPatches('a\nb\nc\n', [{ operation: 'replace', oldText: '\n\nb\n\n', newText: '\n\nB\n\n' }]);
    expect(result.text).toBe('a\nB\nc\n');
  });

  it('REQ-PATCH-005: ignores a final newline the last line of the file does not have', () => {
    const result = applyPatches('a\nlast', [{ operation: 'replace', oldText: 'last\n', newText: 'LAST\n' }]);
    expect(result.text).toBe('a\nLAST');
  });

  it('REQ-PATCH-005: ignores a garbled first line that newText keeps unchanged', () => {
    const original = 'const x = compute(1, 2);\nconst y = x + 1;\nconst z = y * 2;\n';
    const result = applyPatches(original, [
      { operation: 'replace', oldText: 'const x = compute(1,2);\nconst y = x + 1;\nconst z = y * 2;\n', newText: 'const x = compute(1,2);\nconst y = x + 5;\nconst z = y * 2;\n' },
    ]);
    expect(result.text).toBe('const x = compute(1, 2);\nconst y = x + 5;\nconst z = y * 2;\n');
    expect(result.notes.join('\n')).toContain('ignored the first line');
  });

  it('REQ-PATCH-005: does not ignore a first line that newText changes', () => {
    const original = 'const x = compute(1, 2);\nconst y = x + 1;\nconst z = y * 2;\n';
    const message = failure('TEXT_NO_MATCH', () =>
      applyPatches(original, [{ operation: 'replace', oldText: 'const x = compute(1,2);\nconst y = x + 1;\nconst z = y * 2;\n', newText: 'const x = 7;\n' }]),
    );
    expect(message).toContain('old text not found');
    expect(message).toContain('line 1: const x = compute(1, 2);');
  });

  it('REQ-PATCH-005: never applies at an ambiguous fuzzy location', () => {
    const original = 'if (a) {\n  go();\n}\nif (b) {\n    go();\n}\n';
    const message = failure('TEXT_NO_MATCH', () => applyPatches(original, [{ operation: 'replace', oldText: '\tgo();', newText: '\tstop();' }]));
    expect(message).toContain('old text not found');
    expect(message).toContain('2 possible places (lines 2, 5)');
  });

  it('REQ-PATCH-005: an exact but repeated match is ambiguous, not resolved by recovery', () => {
    failure('TEXT_AMBIGUOUS_MATCH', () => applyPatches('go();\ngo();\n', [{ operation: 'replace', oldText: 'go();', newText: 'x' }]));
  });

  it('REQ-PATCH-005: when everything fails the error says "old text not found" with the closest lines', () => {
    const message = failure('TEXT_NO_MATCH', () =>
      applyPatches(SOURCE, [{ operation: 'replace', oldText: 'function c() {\n  return 3;\n}', newText: 'x' }]),
    );
    expect(message).toContain('patch 1 (replace): old text not found');
    expect(message).toMatch(/line \d+: function [ab]\(\) \{/);
  });
});

describe('REQ-PATCH-007: output', () => {
  it('REQ-PATCH-007: warns about a generated file and applies the patch anyway', () => {
    const original = '// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n';
    const result = applyPatches(original, [{ operation: 'append_eof', newText: 'var y = 1\n' }], {}, { path: 'api/x.go' });
    expect(result.text).toBe(`${original}var y = 1\n`);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain('api/x.go looks generated');
  });

  it('REQ-PATCH-007: no warning for an ordinary file', () => {
    expect(applyPatches('a\n', [{ operation: 'append_eof', newText: 'b\n' }], {}, { path: 'src/a.ts' }).warnings).toEqual([]);
  });

  it('REQ-PATCH-007: notifies when fuzzy matching changed what a clipboard holds', () => {
    const result = applyPatches('\tx();\n', [{ operation: 'replace', oldText: '  x();', newText: '  x();', toClipboard: 'k' }]);
    expect(result.clipboards.k).toBe('\tx();');
    expect(result.notes.some((n) => n.includes('clipboard "k"') && n.includes('actually matched'))).toBe(true);
  });
});

describe('REQ-PATCH-008: size limits', () => {
  const limitBytes = MAX_PATCH_INPUT_TOKENS * 4;

  it('REQ-PATCH-008: accepts input up to 60k tokens (bytes / 4) and rejects more', () => {
    expect(() => checkPatchSize(limitBytes)).not.toThrow();
    const message = failure('PATCH_TOO_LARGE', () => checkPatchSize(limitBytes + 1));
    expect(message).toContain('smaller patch');
  });

  it('REQ-PATCH-008: applyPatches rejects an oversized call before touching anything', () => {
    const big = 'x'.repeat(limitBytes);
    failure('PATCH_TOO_LARGE', () => applyPatches('a', [{ operation: 'replace', oldText: 'a', newText: big }]));
    expect(applyPatches('a', [{ operation: 'replace', oldText: 'a', newText: big.slice(1) }]).text).toHaveLength(limitBytes - 1);
  });

  it('REQ-PATCH-008: counts UTF-8 bytes, not UTF-16 units', () => {
    const emoji = '😀'.repeat(limitBytes / 4); // 4 bytes each: exactly at the limit
    expect(() => applyPatches(null, [{ operation: 'overwrite', newText: emoji }])).not.toThrow();
    failure('PATCH_TOO_LARGE', () => applyPatches(null, [{ operation: 'overwrite', newText: `${emoji}é` }]));
  });
});
