/**
 * Issue 13: the recovery ladder shared by Edit (snippet mode) and Patch. The four numbered
 * mechanisms of the issue are reproduced first, through both tools' engines; then each level.
 */
import { describe, expect, it } from 'vitest';
import { applyPatches, applySnippetEdit, type SnippetEditResult } from '../../../src/text';

function edit(original: string, oldSnippet: string, newSnippet: string, matchHint?: { startLine: number; endLine: number }) {
  return applySnippetEdit(original, { oldSnippet, newSnippet, ...(matchHint ? { matchHint } : {}) });
}

function patch(original: string, oldText: string, newText: string) {
  return applyPatches(original, [{ operation: 'replace', oldText, newText }]);
}

function okText(result: SnippetEditResult): string {
  if (result.status !== 'ok') throw new Error(`expected ok, got ${result.status}: ${'message' in result ? result.message : ''}`);
  return result.text;
}

/** Both tools must give `expected`. */
function both(original: string, oldText: string, newText: string, expected: string) {
  expect(okText(edit(original, oldText, newText))).toBe(expected);
  expect(patch(original, oldText, newText).text).toBe(expected);
}

describe('issue 13 mechanisms', () => {
  it('1: re-indents inserted lines by the measured shift, removing as well as adding', () => {
    const original = 'var a = require("a")\n  , b = require("b");\n\ndescribe()\n';
    const expected = 'var a = require("a")\n  , b = require("b");\nvar c = require("c");\n\ndescribe()\n';
    both(original, '      , b = require("b");\n', '      , b = require("b");\n    var c = require("c");\n', expected);
  });

  it('2: translates relative indentation into the file\'s own unit (no tabs and spaces mixed)', () => {
    const original = 'int f()\n{\n\tif (x)\n\t\tg();\n}\n';
    both(original, '        g();\n', '        if (y)\n            g();\n', 'int f()\n{\n\tif (x)\n\t\tif (y)\n\t\t\tg();\n}\n');
  });

  it('3: a one-line match that starts after the indentation of its line gives the new lines that indentation', () => {
    const original = 'int main()\n{\n\tint a = 1;\n\treturn a;\n}\n';
    const expected = 'int main()\n{\n\tint a = 1;\n\tint b = 2;\n\treturn a;\n}\n';
    both(original, 'int a = 1;\n', 'int a = 1;\nint b = 2;\n', expected);
    const result = edit(original, 'int a = 1;\n', 'int a = 1;\nint b = 2;\n');
    expect(result).toMatchObject({ status: 'ok', recovery: { level: 'exact_after_indentation' } });
    expect(patch(original, 'int a = 1;\n', 'int a = 1;\nint b = 2;\n').recoveries).toMatchObject([{ patch: 1, level: 'exact_after_indentation', startLine: 3, endLine: 3 }]);
  });

  it('3: a multi-line exact match keeps its other lines verbatim, and a one-line new text is not touched', () => {
    const original = 'int main()\n{\n\tint a = 1;\n\treturn a;\n}\n';
    both(original, 'int a = 1;\n\treturn a;\n', 'int a = 2;\n\treturn a;\n', 'int main()\n{\n\tint a = 2;\n\treturn a;\n}\n');
    expect(edit(original, 'a = 1;', 'a = 3;')).not.toHaveProperty('recovery');
  });

  it('3: a multi-line match after the indentation with a new line indented like neither frame is refused, never written unindented', () => {
    const original = 'int main()\n{\n\tint a = 1;\n\treturn a;\n}\n';
    const result = edit(original, 'int a = 1;\n\treturn a;\n', 'int a = 1;\nint b = 2;\n\treturn a;\n');
    expect(result).toMatchObject({ status: 'error', code: 'TEXT_INDENTATION_UNCLEAR' });
    if (result.status === 'error') expect(result.message).toContain('"int b = 2;"');
    expect(() => patch(original, 'int a = 1;\n\treturn a;\n', 'int a = 1;\nint b = 2;\n\treturn a;\n')).toThrow(expect.objectContaining({ code: 'TEXT_INDENTATION_UNCLEAR', data: expect.objectContaining({ line: 3, indentation: '\t' }) }));
    // Indented like the first line in the file, or like another old line: written as given.
    both(original, 'int a = 1;\n\treturn a;\n', 'int a = 1;\n\tint b = 2;\n\treturn a;\n', 'int main()\n{\n\tint a = 1;\n\tint b = 2;\n\treturn a;\n}\n');
    both(original, 'int a = 1;\n\treturn a;\n}\n', 'int a = 1;\n\treturn a;\n}\nint g() {\n', 'int main()\n{\n\tint a = 1;\n\treturn a;\n}\nint g() {\n');
  });
});

describe('the recovery ladder', () => {
  const TABBED = 'func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n';

  it('line_end_whitespace: trailing whitespace added to the old text is ignored and not written', () => {
    const result = edit(TABBED, '\tif ok {  \n\t\trun() \n', '\tif ok {  \n\t\trun() \n\t\tstop() \n');
    expect(okText(result)).toBe('func main() {\n\tif ok {\n\t\trun()\n\t\tstop()\n\t}\n}\n');
    expect(result).toMatchObject({ recovery: { level: 'line_end_whitespace' } });
  });

  it('line_end_whitespace: trailing whitespace the file has is kept on unchanged lines', () => {
    const original = 'a = 1;  \nb = 2;\t\nc = 3;\n';
    both(original, 'a = 1;\nb = 2;\n', 'a = 1;\nb = 5;\n', 'a = 1;  \nb = 5;\nc = 3;\n');
  });

  it('indentation_shift: an old text shifted right is matched and the new text shifted back', () => {
    both(TABBED, '    \tif ok {\n    \t\trun()\n', '    \tif ok {\n    \t\trun()\n    \t\tmore()\n', 'func main() {\n\tif ok {\n\t\trun()\n\t\tmore()\n\t}\n}\n');
  });

  it('indentation_shift: an old text without its common indentation gets it back, on every new line', () => {
    const original = 'class A {\n    m() {\n        x();\n    }\n}\n';
    both(original, 'm() {\n    x();\n}\n', 'm() {\n    x();\n    y();\n}\n', 'class A {\n    m() {\n        x();\n        y();\n    }\n}\n');
  });

  it('tabs_spaces: tabs written as spaces (any width) are matched and the new text written with tabs', () => {
    for (const width of [2, 4, 8]) {
      const sp = (n: number) => ' '.repeat(n * width);
      const oldText = `${sp(1)}if ok {\n${sp(2)}run()\n${sp(1)}}\n`;
      const newText = `${sp(1)}if ok {\n${sp(2)}run()\n${sp(2)}if again {\n${sp(3)}run()\n${sp(2)}}\n${sp(1)}}\n`;
      const result = edit(TABBED, oldText, newText);
      expect(okText(result)).toBe('func main() {\n\tif ok {\n\t\trun()\n\t\tif again {\n\t\t\trun()\n\t\t}\n\t}\n}\n');
      expect(result).toMatchObject({ recovery: { level: 'tabs_spaces' } });
      expect(patch(TABBED, oldText, newText).text).toBe(okText(result));
    }
  });

  it('boundary_lines: a first line cut in half that the new text keeps is left as the file has it', () => {
    const original = 'const config = loadConfiguration(path, options);\nconst server = createServer(config);\nserver.listen(8080);\n';
    const result = edit(original, 'const config = loadConf\nconst server = createServer(config);\nserver.listen(8080);\n', 'const config = loadConf\nconst server = createServer(config);\nserver.listen(9090);\n');
    expect(okText(result)).toBe(original.replace('8080', '9090'));
    expect(result).toMatchObject({ recovery: { level: 'boundary_lines' } });
  });

  it('boundary_lines: refused when what is left is too short to be safe', () => {
    expect(edit('x = compute(1);\n}\n}\n', 'x = comp\n}\n}\n', 'x = comp\n}\n').status).toBe('no_match');
  });

  it('every level requires a unique match, and says where the candidates are', () => {
    const original = 'if (a) {\n  go();\n}\nif (b) {\n  go();\n}\n';
    const result = edit(original, '    go();\n', '    stop();\n');
    expect(result.status).toBe('no_match');
    if (result.status === 'no_match') expect(result.message).toContain('2 possible places (lines 2, 5)');
  });

  it('a match hint narrows the ladder, never widens it', () => {
    const original = 'if (a) {\n  go();\n}\nif (b) {\n  go();\n}\n';
    expect(okText(edit(original, '    go();\n', '    stop();\n', { startLine: 4, endLine: 6 }))).toBe('if (a) {\n  go();\n}\nif (b) {\n  stop();\n}\n');
    expect(edit(original, '    go();\n', '    stop();\n', { startLine: 3, endLine: 4 }).status).toBe('no_match');
  });

  it('the exact match is always preferred to a recovered one', () => {
    const original = '  x();\n  y();\nx();\ny();\n';
    expect(okText(edit(original, 'x();\ny();\n', 'z();\n'))).toBe('  x();\n  y();\nz();\n');
  });

  it('works the same on CRLF files, writing CRLF', () => {
    const original = 'int f()\r\n{\r\n\tif (x)\r\n\t\tg();\r\n}\r\n';
    both(original, '        g();\n', '        if (y)\n            g();\n', 'int f()\r\n{\r\n\tif (x)\r\n\t\tif (y)\r\n\t\t\tg();\r\n}\r\n');
  });
});

describe('TEXT_NO_MATCH points at the nearest whitespace-insensitive candidate', () => {
  it('names the lines and the differing whitespace, not lone braces', () => {
    const original = `${'}\n'.repeat(20)}function load() {\n\tconst  x = 1;\n\treturn x;\n}\n`;
    const result = edit(original, 'function load() {\n  const x = 1;\n  return x;\n}\n', 'x');
    expect(result.status).toBe('no_match');
    if (result.status !== 'no_match') return;
    expect(result.message).toContain('Lines 21-24 match if whitespace is ignored');
    expect(result.message).toContain('line 22: indentation "\\t" in the file, "  " in the old text');
    expect(result.candidates.every((c) => c.preview !== '}')).toBe(true);
  });

  it('Patch carries the candidate in the error data', () => {
    const original = 'function load() {\n\tconst  x = 1;\n}\n';
    try {
      patch(original, 'function load() {\n  const x = 1;\n}\n', 'x');
      throw new Error('expected TEXT_NO_MATCH');
    } catch (error) {
      expect(error).toMatchObject({ code: 'TEXT_NO_MATCH', data: { whitespaceCandidate: { startLine: 1, endLine: 3 } } });
    }
  });
});

describe('re-indenting variants of mechanisms 1 and 2', () => {
  const TABBED = 'func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n';

  it('a shift of two spaces before tabs is removed from shallower new lines too (no tab stop absorbs it)', () => {
    both(TABBED, '  \tif ok {\n  \t\trun()\n', '  \tif ok {\n  \t\trun()\n  log()\n', 'func main() {\n\tif ok {\n\t\trun()\nlog()\n\t}\n}\n');
  });

  it('old text with no indentation left: the new text\'s deeper lines keep what they were written with (issue 26: spaces after tabs are alignment)', () => {
    both(TABBED, 'run()\n', 'run()\n    stop()\n', 'func main() {\n\tif ok {\n\t\trun()\n\t\t    stop()\n\t}\n}\n');
    both(TABBED, 'run()\n', 'run()\n\tstop()\n', 'func main() {\n\tif ok {\n\t\trun()\n\t\t\tstop()\n\t}\n}\n');
  });

  it('tabs written as spaces and shifted: 12 spaces for 2 tabs is not a tab width of 6', () => {
    both(TABBED, '            run()\n', '            run()\n                deeper()\n', 'func main() {\n\tif ok {\n\t\trun()\n\t\t\tdeeper()\n\t}\n}\n');
  });

  it('tabs written as 4 spaces and also shifted +4, matched at one depth: the new text\'s 12 spaces are two tabs, not a tab and 4 spaces', () => {
    // 8 spaces for one tab fits a tab of 8 with no shift, or a tab of 4 shifted by 4; the new text says which.
    both(TABBED, '        if ok {\n', '        if ok {\n            log()\n', 'func main() {\n\tif ok {\n\t\tlog()\n\t\trun()\n\t}\n}\n');
    both(TABBED, '        if ok {\n            run()\n', '        if ok {\n            run()\n            log()\n', 'func main() {\n\tif ok {\n\t\trun()\n\t\tlog()\n\t}\n}\n');
  });

  it('tabs written as spaces and shifted, where a tab of 4 and a tab of 8 both fit and indent the new text differently: refused, never guessed', () => {
    // 12 spaces for one tab: a tab of 8 shifted by 4, or a tab of 4 shifted by 8; 20 spaces is then two tabs or three.
    const result = edit(TABBED, '            if ok {\n', '            if ok {\n                    log()\n');
    expect(result.status).toBe('error');
    expect(result).toMatchObject({ code: 'TEXT_INDENTATION_UNCLEAR' });
    expect((result as { message: string }).message).toMatch(/tab of 4 and a tab of 8/);
    expect(() => patch(TABBED, '            if ok {\n', '            if ok {\n                    log()\n')).toThrow(expect.objectContaining({ code: 'TEXT_INDENTATION_UNCLEAR' }));
    // The same old text with a step only a tab of 4 takes (4 spaces) is applied.
    both(TABBED, '            if ok {\n', '            if ok {\n                log()\n', 'func main() {\n\tif ok {\n\t\tlog()\n\t\trun()\n\t}\n}\n');
  });

  it('tabs written as 8 spaces (a tab of 8), not shifted: 16 spaces stay two tabs', () => {
    both(TABBED, '        if ok {\n', '        if ok {\n                log()\n', 'func main() {\n\tif ok {\n\t\tlog()\n\t\trun()\n\t}\n}\n');
  });

  it('a repeated unchanged line keeps each copy\'s own line-end whitespace when the new text repeats it as often', () => {
    const original = 'a();  \na();\nb();\n';
    both(original, 'a();\na();\nb();\n', 'a();\na();\nc();\n', 'a();  \na();\nc();\n');
  });
});
