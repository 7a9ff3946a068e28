import { describe, expect, it } from 'vitest';
import { isForgeError } from '../../../src/errors';
import { applyPatches, applySearchReplace, parseSearchReplaceBlocks } from '../../../src/text';

function malformed(text: string): string {
  try {
    parseSearchReplaceBlocks(text);
  } catch (e) {
    if (isForgeError(e, 'SEARCH_REPLACE_MALFORMED')) return e.message;
    throw e;
  }
  throw new Error('expected SEARCH_REPLACE_MALFORMED');
}

const BLOCKS = [
  'src/a.ts',
  '```ts',
  '<<<<<<< SEARCH',
  'const a = 1;',
  '=======',
  'const a = 2;',
  '>>>>>>> REPLACE',
  '```',
  '<<<<<<< SEARCH',
  'const c = 3;',
  '=======',
  '>>>>>>> REPLACE',
  '',
].join('\n');

describe('parseSearchReplaceBlocks', () => {
  it('parses blocks into replace operations, ignoring text between blocks', () => {
    expect(parseSearchReplaceBlocks(BLOCKS)).toEqual([
      { operation: 'replace', oldText: 'const a = 1;\n', newText: 'const a = 2;\n' },
      { operation: 'replace', oldText: 'const c = 3;\n', newText: '' },
    ]);
  });

  it('tolerates CRLF in the blocks text', () => {
    expect(parseSearchReplaceBlocks(BLOCKS.replace(/\n/g, '\r\n'))).toEqual(parseSearchReplaceBlocks(BLOCKS));
  });

  it('treats ======= inside REPLACE as content, and an empty SEARCH as an append', () => {
    const ops = parseSearchReplaceBlocks('<<<<<<< SEARCH\n=======\nTitle\n=======\n>>>>>>> REPLACE\n');
    expect(ops).toEqual([{ operation: 'append_eof', newText: 'Title\n=======\n' }]);
  });

  it('says which marker is missing and where', () => {
    expect(malformed('<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n')).toContain('line 3 closes the block opened at line 1');
    expect(malformed('<<<<<<< SEARCH\na\n=======\nb\n')).toContain('block opened at line 1 ends without its ">>>>>>> REPLACE"');
    expect(malformed('<<<<<<< SEARCH\na\n')).toContain('without its "=======" divider');
    expect(malformed('a\n=======\nb\n>>>>>>> REPLACE\n')).toContain('line 2');
    expect(malformed('<<<<<<< SEARCH\na\n=======\nb\n<<<<<<< SEARCH\n')).toContain('was not closed with ">>>>>>> REPLACE"');
    expect(malformed('<<<<<<< SEARCH\na\n<<<<<<< SEARCH\n')).toContain('has no "=======" divider yet');
    expect(malformed('just prose\n')).toContain('no SEARCH/REPLACE block');
  });
});

describe('applySearchReplace', () => {
  const FILE = 'const a = 1;\nconst b = 2;\nconst c = 3;\n';

  it('applies through the Patch engine with identical results', () => {
    const viaBlocks = applySearchReplace(FILE, BLOCKS);
    const viaPatches = applyPatches(FILE, parseSearchReplaceBlocks(BLOCKS));
    expect(viaBlocks.text).toBe('const a = 2;\nconst b = 2;\n');
    expect(viaBlocks.text).toBe(viaPatches.text);
  });

  it('uses the same fuzzy recovery and reports errors per block', () => {
    const fuzzy = applySearchReplace('\tx();\n', '<<<<<<< SEARCH\n    x();\n=======\n    y();\n>>>>>>> REPLACE\n');
    expect(fuzzy.text).toBe('\ty();\n');
    try {
      applySearchReplace(FILE, '<<<<<<< SEARCH\nnope\n=======\nx\n>>>>>>> REPLACE\n');
      expect.unreachable();
    } catch (e) {
      expect(isForgeError(e, 'TEXT_NO_MATCH')).toBe(true);
      expect((e as Error).message).toContain('block 1 (replace): old text not found');
    }
  });

  it('is atomic: one failing block rejects the whole call', () => {
    const blocks = '<<<<<<< SEARCH\nx\n=======\nA\n>>>>>>> REPLACE\n<<<<<<< SEARCH\ny\n=======\nB\n>>>>>>> REPLACE\n';
    expect(() => applySearchReplace('x\ny\ny\n', blocks)).toThrow(/block 2 \(replace\): oldText appears 2 times/);
    expect(applySearchReplace('x\ny\n', blocks).text).toBe('A\nB\n');
  });
});
