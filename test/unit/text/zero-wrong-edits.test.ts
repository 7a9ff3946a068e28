/**
 * Issue 26: the recovery ladder and the mid-line match must never write a wrong edit. Every
 * reproduction of the issue, through both engines (Edit's snippet mode and Patch): the result is
 * the intended text, or a refusal with a coded error, never another text.
 */
import { describe, expect, it } from 'vitest';
import { applyPatches, applySnippetEdit, type SnippetEditResult } from '../../../src/text';

function edit(original: string, oldSnippet: string, newSnippet: string): SnippetEditResult {
  return applySnippetEdit(original, { oldSnippet, newSnippet });
}

/** Patch's result as text, or its error code. */
function patch(original: string, oldText: string, newText: string): { text: string } | { code: string; message: string } {
  try {
    return { text: applyPatches(original, [{ operation: 'replace', oldText, newText }]).text };
  } catch (error) {
    const e = error as { code?: string; message: string };
    if (e.code === undefined) throw error;
    return { code: e.code, message: e.message };
  }
}

function editText(result: SnippetEditResult): string {
  if (result.status !== 'ok') throw new Error(`expected ok, got ${result.status}: ${result.message}`);
  return result.text;
}

/** Both tools give `expected`. */
function both(original: string, oldText: string, newText: string, expected: string) {
  expect(editText(edit(original, oldText, newText))).toBe(expected);
  expect(patch(original, oldText, newText)).toEqual({ text: expected });
}

/** Both tools refuse with a coded error whose message names every one of `lines`. */
function bothRefuse(original: string, oldText: string, newText: string, lines: number[]) {
  const e = edit(original, oldText, newText);
  expect(e.status).not.toBe('ok');
  const p = patch(original, oldText, newText);
  expect(p).toHaveProperty('code');
  for (const message of [e.status === 'ok' ? '' : e.message, 'message' in p ? p.message : '']) {
    for (const line of lines) expect(message).toMatch(new RegExp(`\\b${line}\\b`));
  }
}

describe('issue 26: at the wrong place', () => {
  it('whole-line recovery hides a second candidate: a recovered match is unique under the exact rule or refused naming both', () => {
    const file = 'a\nfoo\nb {\n    foo\n}\n';
    // The exact search finds two places (line 4 after its indentation) …
    expect(edit(file, 'foo\n', 'bar\n')).toMatchObject({ status: 'ambiguous', candidateLines: [2, 4] });
    // … so the same text with a trailing space added must not pick one of them.
    bothRefuse(file, 'foo \n', 'bar\n', [2, 4]);
    bothRefuse(file, 'foo\t\n', 'foo\nbaz\n', [2, 4]);
  });

  it('whole-line recovery: a second candidate mid-line in a multi-line old text is also counted', () => {
    const file = 'x = 1\nfoo()\nbar()\nif y:\n    foo()\nbar()\n';
    bothRefuse(file, 'foo() \nbar()\n', 'foo()\nbaz()\n', [2, 5]);
  });

  it('dropping a trailing blank line is not tried before an indentation shift that explains every line', () => {
    const file = 'proc p {\n    if {1} {\n        }\n    }\n\ntail\n    }\n}\n';
    const oldText = '    }\n}\n\n';
    const newText = '    } x\n}\n\n';
    const intended = 'proc p {\n    if {1} {\n        } x\n    }\n\ntail\n    }\n}\n';
    const wrongPlace = 'proc p {\n    if {1} {\n        }\n    }\n\ntail\n    } x\n}\n';
    const e = edit(file, oldText, newText);
    const p = patch(file, oldText, newText);
    for (const text of [e.status === 'ok' ? e.text : null, 'text' in p ? p.text : null]) {
      expect(text).not.toBe(wrongPlace);
      if (text !== null) expect(text).toBe(intended);
    }
    // Lines 3-5 explain every line of the old text with a shift, line 7 all but the blank line
    // exactly: two readings, so both are refused, naming both places.
    bothRefuse(file, oldText, newText, [3, 7]);
  });
});

describe('issue 26: at the right place, with the right whitespace', () => {
  it('trailing whitespace is stripped only from lines matched to old lines, never from inserted lines', () => {
    both('a\nb\n', 'a \n', 'a\nc  \n', 'a\nc  \nb\n');
    both('x\n\tfoo();\ny\n', '\tfoo(); \n', '\tfoo();\n\tbar();\t\n', 'x\n\tfoo();\n\tbar();\t\ny\n');
    // Padding on every line of both texts is the model's noise: then it is not written.
    both('x\n\tfoo();\ny\n', '\tfoo(); \n', '\tfoo(); \n\tbar();\t\n', 'x\n\tfoo();\n\tbar();\ny\n');
  });

  it('inserted lines keep the unit the model wrote when no shift was measured', () => {
    both('{\n            a();\n}\n', '            a(); \n', '\t\t\tb();\n            a();\n', '{\n\t\t\tb();\n            a();\n}\n');
    both('{\n\t\ta();\n}\n', '\t\ta();  \n', '\t\ta();\n        b();\n', '{\n\t\ta();\n        b();\n}\n');
  });

  it('a whitespace-only line copied from the old text is written as the file has it', () => {
    const file = 'f()\n{\n\ta;\n\t\n\tb;\n}\n';
    both(file, '    a;\n    \n    b;\n', '    a;\n    c;\n    \n    b;\n', 'f()\n{\n\ta;\n\tc;\n\t\n\tb;\n}\n');
    const empty = 'f()\n{\n\ta;\n\n\tb;\n}\n';
    both(empty, '    a;\n    \n    b;\n', '    a;\n    c;\n    \n    b;\n', 'f()\n{\n\ta;\n\tc;\n\n\tb;\n}\n');
  });

  it('tabs and spaces are not mixed after a shift: a comment\'s alignment is not an indentation step', () => {
    const file = 'int f()\n{\n\tint a;\n\tint b;\n}\n';
    const oldText = '        int a;\n        int b;\n';
    const newText = '        int a;\n        int b;\n        /*\n         * note\n         */\n        if (x) {\n            int c;\n        }\n';
    both(file, oldText, newText, 'int f()\n{\n\tint a;\n\tint b;\n\t/*\n\t * note\n\t */\n\tif (x) {\n\t\tint c;\n\t}\n}\n');
  });

  it('alignment spaces after tabs are kept on the exact path (after the indentation) and on the recovery path', () => {
    const file = 'void f()\n{\n\tif (x)\n\t\tBUG("a", y);\n}\n';
    const intended = 'void f()\n{\n\tif (x)\n\t\tBUG("a",\n\t\t    y);\n}\n';
    both(file, 'BUG("a", y);\n', 'BUG("a",\n    y);\n', intended);
    both(file, '\t\tBUG("a", y); \n', '\t\tBUG("a",\n\t\t    y);\n', intended);
  });

  it('tabs written as spaces are a unit translation, not a string shift: shallower lines stay where written', () => {
    both('A\n\tB\nC\n', '    B\n', '    B\n+\n* item\n  continued\n', 'A\n\tB\n+\n* item\n  continued\nC\n');
  });
});

describe('issue 26: deleting a snippet matched after a line\'s indentation', () => {
  it('removes the whole line instead of joining its indentation with the next line', () => {
    both('def f():\n    x = 1\n    cleanup()\nmain()\n', 'cleanup()\n', '', 'def f():\n    x = 1\nmain()\n');
    both('\tint a;\n\t\tfree(p);\n\treturn;\n', 'free(p);\n', '', '\tint a;\n\treturn;\n');
  });

  it('a new text that starts with a blank line leaves no indentation on it', () => {
    both('if (x) {\n    a();\n}\n', 'a();\n', '\nb();\n', 'if (x) {\n\n    b();\n}\n');
  });

  it('a deletion that is the rest of the line without its newline removes the line too; one that is not the rest of the line is left alone', () => {
    both('def f():\n    x = 1\n    cleanup()\nmain()\n', 'cleanup()', '', 'def f():\n    x = 1\nmain()\n');
    both('f(a, b)\n', 'a, ', '', 'f(b)\n');
  });
});

describe('issue 26, found by the property test (zero-wrong-property.test.ts)', () => {
  it('an old text whose blank first line matches only the end of a whitespace-only line keeps that line as the file has it', () => {
    // `\n}` matches exactly after the tab of line 2: the blank line is kept, not emptied.
    both('if (foo) {\n\t\n}\nfoo();\nfoo();\n', '\n}\nfoo();\n', '\n}\n', 'if (foo) {\n\t\n}\nfoo();\n');
    both('if (x) {\n    a();\n    \n}\n\n', '\n}\n\n', '\n    b();\n\n', 'if (x) {\n    a();\n    \n    b();\n\n');
    // Written with less whitespace than the file and kept as a blank line: the file's whitespace.
    both('\tif (a) {\n\t\t\t\n\t\t}\n\t}\n', '\t\t\n\t\t}\n\t}\n', '\t\n\t}\n', '\tif (a) {\n\t\t\t\n\t}\n');
  });

  it('a deletion (empty new text) after a recovered match is no lines, not a blank line joined with the next', () => {
    both('if (a) {\n        \n        call(b,\n             y);\n}\n', '\ncall(b,\n', '', 'if (a) {\n             y);\n}\n');
    both('{\n        x();\n        \n        return;\n    }\n', '        \n        return;  \n', '', '{\n        x();\n    }\n');
  });

  it('a kept blank line is the old one written alike, not the first blank line', () => {
    // The new text keeps the blank line written as `    `: the file's `    ` (line 6), not `  ` (line 4).
    both('a\n\nif (c) {\n  \n  if (b) {\n    \n    x\n', '\n    if (c) {\n  \n      if (b) {\n    \n', '\n    if (c) {\n    \n', 'a\n\nif (c) {\n    \n    x\n');
    // Tabs written as spaces (a tab of 2): the blank line kept is the `  ` one, the file's `\t`.
    both('{\n\t\tfoo();\n\t\t\n\t}\n\t\n\tbar();\n', '    \n  }\n  \n', '  \n', '{\n\t\tfoo();\n\t\n\tbar();\n');
  });

  it('the common tab removed is a shift, not tabs written as spaces: alignment after the tab stays spaces', () => {
    const file = 'if (c) {\n\tcall(x,\n\t     y);\n\tz();\n}\n';
    both(file, 'call(x,\n     y);\n', 'w();\n    y);\n     y);\n', 'if (c) {\n\tw();\n\t    y);\n\t     y);\n\tz();\n}\n');
    both(file, '     y);  \nz();   \n', '     y);\n     q(1,\n         y);\nz();\n', 'if (c) {\n\tcall(x,\n\t     y);\n\t     q(1,\n\t         y);\n\tz();\n}\n');
  });

  it('a blank line written as spaces for the file\'s tabs shows tabs written as spaces when no other line does', () => {
    both('if (x) {\n\t\n}\nz();\n', '    \n}\n', '    return;\n    foo();\n}\n', 'if (x) {\n\treturn;\n\tfoo();\n}\nz();\n');
    // Noise instead: a blank line written like the old line before it, which the file indents with spaces.
    both('{\n    a();\n\t\n    b();\n}\n', '    a(); \n    \n    b();\n', '    a();\n    c();\n    \n    b();\n', '{\n    a();\n    c();\n\t\n    b();\n}\n');
  });
});

describe('issue 26, found by the property test: the tab width of tabs written as spaces', () => {
  it('an aligned line written with a tab of 2 as spaces and nothing moved: new lines in tabs of 2', () => {
    const file = 'f() {\n\tcall(x,\n\t     y);\n\tz();\n}\n';
    both(file, '       y);\n', '    bar();\n       y);\n', 'f() {\n\tcall(x,\n\t\tbar();\n\t     y);\n\tz();\n}\n');
  });

  it('no step decides between a tab of 4 and one of 8 (the only old line is aligned) and they indent a new line differently: refused', () => {
    // `\t\t     y);` as 25 spaces: tabs of 8 shifted by 4, or of 4 shifted by 12; 28 spaces is 3 tabs or 4.
    const file = 'f() {\n\tif (a) {\n\t\tcall(c,\n\t\t     y);\n\t}\n}\n';
    const e = edit(file, `${' '.repeat(25)}y);\n`, `${' '.repeat(28)}foo();\n`);
    expect(e).toMatchObject({ status: 'error', code: 'TEXT_INDENTATION_UNCLEAR' });
    expect(patch(file, `${' '.repeat(25)}y);\n`, `${' '.repeat(28)}foo();\n`)).toMatchObject({ code: 'TEXT_INDENTATION_UNCLEAR' });
  });
});

describe('issue 26, found by the property test: a cut first line kept alone', () => {
  it('old text X (cut) + lines without a final newline, new text X alone: the lines go with the newline after X', () => {
    // At the end of a file without a final newline, and before another line.
    both('if (a) {\n\t\tBUG("a", y);\n\t\tcleanup();\n    }\n}', '\t\tBUG("a\n\t\tcleanup();\n    }\n}', '\t\tBUG("a', 'if (a) {\n\t\tBUG("a", y);');
    both('f(a, b);\ngather();\nhandle();\nk();\n', 'f(a,\ngather();\nhandle();', 'f(a,', 'f(a, b);\nk();\n');
  });
});

describe('issue 26, found by a held-out replay (other seeds than the corpus test)', () => {
  it('tabs written as spaces: a new line with a tab after an aligned line\'s spaces builds on that aligned indentation', () => {
    const file = 'f() {\n\t\tparse(request,\n\t\t      count);\n\t\t\tnext();\n}\n';
    both(file, '        parse(request,\n              count);\n            next();\n', '        parse(request,\n              count);\n              \tmore();\n            next();\n', 'f() {\n\t\tparse(request,\n\t\t      count);\n\t\t      \tmore();\n\t\t\tnext();\n}\n');
  });

  it('a new line written exactly like a padded old line, repeated, is written as the file has that line', () => {
    const file = '\tf();\n\treturn node;\n\tg();\n';
    both(file, '\tf();  \n\treturn node;   \n\tg();  \n', '\tf();  \n\treturn node;   \n\treturn node;   \n\t// note\n\tg();  \n', '\tf();\n\treturn node;\n\treturn node;\n\t// note\n\tg();\n');
  });
});

describe('issue 26, found by a held-out replay: an aligned indentation reused only by a continued line', () => {
  it('tabs written as spaces: new lines with an aligned line\'s spaces after a statement are deeper statements (whole tabs)', () => {
    const file = '{\n\t\treturn t;\n\t\tresolve(list,\n\t\t        id);\n\t\topen(token);\n}\n';
    const old = '                return t;\n                resolve(list,\n                        id);\n';
    // 24 spaces after `return t;`: one tab deeper (a tab of 8), not the alignment of `id);`.
    both(file, old, '                return t;\n                        a();\n                        b();\n                resolve(list,\n                        id);\n', '{\n\t\treturn t;\n\t\t\ta();\n\t\t\tb();\n\t\tresolve(list,\n\t\t        id);\n\t\topen(token);\n}\n');
    // After the aligned line itself (a copy): the alignment.
    both(file, old, '                return t;\n                resolve(list,\n                        id,\n                        more);\n', '{\n\t\treturn t;\n\t\tresolve(list,\n\t\t        id,\n\t\t        more);\n\t\topen(token);\n}\n');
  });
});

describe('issue 26, found by a held-out replay (seed base 31337, 9001): one old indentation that is both an alignment and a tab deeper', () => {
  const sp = (n: number) => ' '.repeat(n);

  it('shifted tabs as spaces, a new line with an aligned line\'s spaces after a statement: the tab width (4 or 8) decides what it is, so it is refused', () => {
    // 20 spaces for \t\t fit a tab of 8 shifted by 4 and a tab of 4 shifted by 12; 28 spaces are `\t\t` + 8 alignment spaces in the file.
    const file = 'f() {\n\t\tx = 1;\n\t\tresolve(a,\n\t\t        b);\n\t\tparse(c);\n}\n';
    const e = edit(file, `${sp(20)}x = 1;\n${sp(20)}resolve(a,\n${sp(28)}b);\n`, `${sp(20)}x = 1;\n${sp(28)}y();\n${sp(28)}b);\n`);
    expect(e).toMatchObject({ status: 'error', code: 'TEXT_INDENTATION_UNCLEAR' });
    expect(patch(file, `${sp(20)}x = 1;\n${sp(20)}resolve(a,\n${sp(28)}b);\n`, `${sp(20)}x = 1;\n${sp(28)}y();\n${sp(28)}b);\n`)).toMatchObject({ code: 'TEXT_INDENTATION_UNCLEAR' });
  });

  it('a new line standing where an aligned old line was, not an edit of it, with its spaces: alignment or a statement a tab deeper, refused', () => {
    const file = 'f() {\n\t\twhile (p) {\n\t\t\tresolve(a,\n\t\t\t        b);\n\t\t\tparse(c);\n\t\t}\n}\n';
    const old = `${sp(20)}while (p) {\n${sp(28)}resolve(a,\n${sp(36)}b);\n${sp(28)}parse(c);\n`;
    const neu = `${sp(20)}while (p) {\n${sp(28)}resolve(a,\n${sp(36)}y();\n${sp(28)}parse(c);\n`;
    const e = edit(file, old, neu);
    expect(e).toMatchObject({ status: 'error', code: 'TEXT_INDENTATION_UNCLEAR' });
    expect(e.status === 'ok' ? '' : e.message).toContain('Write the indentation of old_snippet and new_snippet with tabs');
    expect(patch(file, old, neu)).toMatchObject({ code: 'TEXT_INDENTATION_UNCLEAR' });
    // The aligned line edited (it begins like it): its alignment.
    both(file, old, `${sp(20)}while (p) {\n${sp(28)}resolve(a,\n${sp(36)}b, c);\n${sp(28)}parse(c);\n`, 'f() {\n\t\twhile (p) {\n\t\t\tresolve(a,\n\t\t\t        b, c);\n\t\t\tparse(c);\n\t\t}\n}\n');
  });
});

describe('issue 26, found by a held-out replay (seed base 31337, 77): common indentation removed and trailing spaces added', () => {
  it('an old text that fits with only trailing whitespace tolerated at one place and shifted at another is refused, naming both', () => {
    // `\t}  \n} \n`: lines 6-7 with trailing spaces added, or lines 5-6 with a tab removed as well.
    const file = 'a {\n\tb {\n\t\tc {\n\t\t\td;\n\t\t}\n\t}\n}\n';
    bothRefuse(file, '\t}  \n} \n', '\t}\n\te();\n}\n', [5, 6]);
    // With no second place the trailing spaces alone are tolerated.
    both('a {\n\tb;\n}\n', '\tb;  \n} \n', '\tb;\n\te();\n}\n', 'a {\n\tb;\n\te();\n}\n');
  });
});

describe('issue 26, found by a held-out replay (seed base 31337, 123457): a first line cut inside its indentation', () => {
  it('a whitespace-only first line that a blank line elsewhere matches, while the rest follows a line beginning with that whitespace, is refused naming both', () => {
    // `\t\t` is a blank line written with indentation (line 6) or `\t\tstate += 60;` cut inside its indentation (line 3).
    const file = 'f() {\n\tif (a) {\n\t\tstate += 60;\n\t}\n\tg();\n\n\t}\n}\n';
    bothRefuse(file, '\t\t\n\t}\n', '\t\tstate += 60;\n\t\temit(r);\n\t}\n', [3, 6]);
    bothRefuse(file, '\t\t\n\t}\n', '\t\t\n\t\temit(r);\n\t}\n', [3, 6]);
    // No line elsewhere begins with that whitespace before the rest: the blank line it is.
    both('f() {\n\tg();\n\n\t}\n}\n', '\t\t\n\t}\n', '\t\t\n\t\temit(r);\n\t}\n', 'f() {\n\tg();\n\n\t\temit(r);\n\t}\n}\n');
  });
});

describe('issue 26: trailing whitespace removed, and a new line that happens to equal an old line', () => {
  it('a new line written like an old line whose trailing whitespace the old text left off is not given the file\'s whitespace: refused', () => {
    // `\tx;` added again: a copy of line 2 (with its two spaces) or a new line as written? Cannot be told.
    const file = 'a {\n\tx;  \n\ty;\n}\n';
    const e = edit(file, '\tx;\n\ty;\n', '\tx;\n\ty;\n\tx;\n');
    expect(e).toMatchObject({ status: 'error', code: 'TEXT_COPY_UNCLEAR' });
    expect(patch(file, '\tx;\n\ty;\n', '\tx;\n\ty;\n\tx;\n')).toMatchObject({ code: 'TEXT_COPY_UNCLEAR' });
    // Aligned with its old line it is a copy, written as the file has it.
    both(file, '\tx;\n\ty;\n', '\tx;\n\tz;\n\ty;\n', 'a {\n\tx;  \n\tz;\n\ty;\n}\n');
    // Padded by the model (more than the file has), a repeat is still the file's line.
    both('\tf();\n\treturn node;\n\tg();\n', '\tf();  \n\treturn node;   \n\tg();  \n', '\tf();  \n\treturn node;   \n\treturn node;   \n\tg();  \n', '\tf();\n\treturn node;\n\treturn node;\n\tg();\n');
  });
});
