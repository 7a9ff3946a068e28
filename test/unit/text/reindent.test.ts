import { describe, expect, it } from 'vitest';
import { isForgeError } from '../../../src/errors';
import { applyReindent, commonIndent, shiftIndent } from '../../../src/text';

describe('applyReindent (REQ-PATCH-004)', () => {
  it('REQ-PATCH-004: strips then adds on non-blank lines; blank lines stay blank', () => {
    expect(applyReindent('    a\n\n      b\n  \n', { strip: '    ', add: '\t' })).toBe('\ta\n\n\t  b\n  \n');
  });

  it('REQ-PATCH-004: add alone indents non-blank lines only', () => {
    expect(applyReindent('a\n\nb', { add: '  ' })).toBe('  a\n\n  b');
  });

  it('REQ-PATCH-004: a missing strip prefix throws PATCH_REINDENT_FAILED naming the line', () => {
    try {
      applyReindent('  a\n b', { strip: '  ' });
      expect.unreachable();
    } catch (e) {
      expect(isForgeError(e, 'PATCH_REINDENT_FAILED')).toBe(true);
      expect((e as Error).message).toContain('line 2');
    }
  });

  it('no reindent leaves the text alone', () => {
    expect(applyReindent(' x ', undefined)).toBe(' x ');
    expect(applyReindent(' x ', {})).toBe(' x ');
  });
});

describe('commonIndent and shiftIndent', () => {
  it('finds the longest shared whitespace prefix', () => {
    expect(commonIndent(['    a', '      b', '    c'])).toBe('    ');
    expect(commonIndent(['\ta', '  b'])).toBe('');
    expect(commonIndent([])).toBe('');
  });

  it('swaps one indentation for another', () => {
    expect(shiftIndent('    a\n\n      b', '    ', '\t')).toEqual({ text: '\ta\n\n\t  b', untouched: 0 });
  });
});
