import { describe, expect, it } from 'vitest';
import { adaptNewText, findExactMatches, locateOldText } from '../../../src/text';

function found(haystack: string, oldText: string, newText: string | null = oldText) {
  const outcome = locateOldText(haystack, oldText, newText);
  if (outcome.kind !== 'found') throw new Error(`expected found, got ${JSON.stringify(outcome)}`);
  return { ...outcome, matched: haystack.slice(outcome.start, outcome.end) };
}

describe('findExactMatches', () => {
  it('finds overlapping occurrences and skips halves of astral characters', () => {
    expect(findExactMatches('aaaa', 'aa')).toEqual([0, 1, 2]);
    expect(findExactMatches('😀😀', '\ude00')).toEqual([]);
    expect(findExactMatches('abc', '')).toEqual([]);
  });
});

describe('locateOldText (REQ-PATCH-005 strategies)', () => {
  it('an exact unique match needs no recovery', () => {
    expect(found('a\nb\n', 'b').fuzzy).toBeNull();
  });

  it('level 0: matches whole lines after a common indentation difference, keeping relative indentation', () => {
    const haystack = 'x\n        if (a) {\n            b();\n        }\ny\n';
    const hit = found(haystack, 'if (a) {\n    b();\n}\n');
    expect(hit.matched).toBe('        if (a) {\n            b();\n        }\n');
    expect(hit.fuzzy).toMatchObject({ indentFrom: '', indentTo: '        ' });
  });

  it('level 0: relative indentation must agree', () => {
    const outcome = locateOldText('    a\n    b\n', 'a\n  b\n', null);
    expect(outcome.kind).toBe('not_found');
  });

  it('level 0: blank lines match blank lines whatever their whitespace', () => {
    const hit = found('a\n   \nb\n', 'a\n\nb\n');
    expect(hit.matched).toBe('a\n   \nb\n');
    expect(hit.fuzzy?.description).toContain('blank lines');
  });

  it('recovery never matches part of a line', () => {
    expect(locateOldText('let value = 1;\n', '  value = 1;', null).kind).toBe('not_found');
  });

  it('level 3 needs at least two non-blank lines left', () => {
    // Ignoring the unchanged garbled first line would leave just "}", which is not specific.
    expect(locateOldText('fn(a) {\n}\n', 'fn(a){\n}\n', 'fn(a){\n}\n').kind).toBe('not_found');
  });

  it('levels 3 and 4 are skipped when newText comes from a clipboard', () => {
    const haystack = 'head(1);\nmid();\ntail();\n';
    expect(locateOldText(haystack, 'head(2);\nmid();\ntail();\n', null).kind).toBe('not_found');
    expect(locateOldText(haystack, 'head(2);\nmid();\ntail();\n', 'head(2);\nmid();\ntail();\n').kind).toBe('found');
  });

  it('level 4 ignores both boundary lines when both are unchanged', () => {
    const haystack = 'start(1);\nalpha();\nbeta();\nend(1);\n';
    const hit = found(haystack, 'start(2);\nalpha();\nbeta();\nend(2);', 'start(2);\nALPHA();\nbeta();\nend(2);');
    expect(hit.matched).toBe('alpha();\nbeta();\n');
    expect(hit.fuzzy).toMatchObject({ dropFirstLine: true, dropLastLine: true });
  });

  it('fails when one level finds two places in different variants', () => {
    // Dropping the first line matches at line 2, dropping the last matches at line 6: ambiguous.
    const haystack = 'x\np();\nq();\n---\nX\np();\nq();\n';
    const outcome = locateOldText(haystack, 'zz;\np();\nq();\nzz;', 'zz;\nP();\nq();\nzz;');
    expect(outcome.kind).toBe('not_found');
  });
});

describe('adaptNewText', () => {
  it('applies the same trimming and indentation delta to newText', () => {
    const outcome = locateOldText('\tif (a) {\n\t    b();\n\t}\n', '\n    if (a) {\n        b();\n    }\n', '\n    if (a) {\n        c();\n    }\n');
    if (outcome.kind !== 'found' || outcome.fuzzy === null) throw new Error('expected a fuzzy match');
    const adapted = adaptNewText('\n    if (a) {\n        c();\n    }\n', outcome.fuzzy);
    // The file indents with one tab where the old text had four spaces; deeper levels keep their extra spaces.
    expect(adapted.text).toBe('\tif (a) {\n\t    c();\n\t}\n');
    expect(adapted.lessIndentedLines).toBe(0);
  });

  it('moves lines written less indented than the old text by the same columns, in the file\'s unit', () => {
    // Four spaces stood for two tabs (a tab is two columns here), so two spaces are one tab.
    const outcome = locateOldText('\t\tx();\n\t\ty();\n', '    x();\n    y();\n', null);
    if (outcome.kind !== 'found' || outcome.fuzzy === null) throw new Error('expected a fuzzy match');
    expect(adaptNewText('    x();\n  z();\n', outcome.fuzzy)).toEqual({ text: '\t\tx();\n\tz();\n', lessIndentedLines: 0 });
  });

  it('counts lines that would move left of column 0, and places them at column 0', () => {
    const outcome = locateOldText('  x();\n  y();\n', '      x();\n      y();\n', null);
    if (outcome.kind !== 'found' || outcome.fuzzy === null) throw new Error('expected a fuzzy match');
    expect(adaptNewText('      x();\n  z();\n', outcome.fuzzy)).toEqual({ text: '  x();\nz();\n', lessIndentedLines: 1 });
  });
});
