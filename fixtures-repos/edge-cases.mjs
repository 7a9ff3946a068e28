/**
 * edge-cases: one small repository holding the file shapes the engine must not get wrong
 * (newlines, binary bytes, modes, symlinks, deep and unicode paths, git's tree sort order),
 * with three commits of history on main. See README.md for the full list.
 *
 * Escapes are written out (\r\n, \u00e9) so a reviewer sees the exact bytes.
 */

/** @type {import('./types').FixtureDefinition} */
export default {
  name: 'edge-cases',
  description: 'Newline variants, binary and invalid UTF-8, 100755, a symlink, deep and unicode paths, a.c beside a/; 3 commits',
  branch: 'main',
  author: { name: 'Fixture Author', email: 'fixtures@forge.invalid' },
  commits: [
    {
      date: '2024-01-01T09:00:00Z',
      message: 'Initial import: text files and tree-order cases',
      files: [
        { path: 'README.md', text: '# Edge cases\n\nFiles that exercise newline, binary, mode and path handling.\n' },
        { path: 'text/crlf.txt', text: 'first line\r\nsecond line\r\nthird line\r\n' },
        { path: 'text/mixed-newlines.txt', text: 'unix line\nwindows line\r\nunix again\nwindows again\r\n' },
        { path: 'text/no-final-newline.txt', text: 'first line\nlast line has no newline' },
        { path: 'text/empty.txt', text: '' },
        // git sorts a directory as if its name ended in '/': a-b.txt < a.c < a/ < a0.txt,
        // while a plain string sort puts 'a' first.
        { path: 'a-b.txt', text: 'dash sorts before dot\n' },
        { path: 'a.c', text: 'int main(void) { return 0; }\n' },
        { path: 'a/b.c', text: 'int b(void) { return 1; }\n' },
        { path: 'a0.txt', text: 'zero sorts after slash\n' },
        { path: 'deep/l1/l2/l3/l4/l5/l6/leaf.txt', text: 'seven directories down\n' },
        { path: 'obsolete.txt', text: 'deleted in the third commit\n' },
      ],
    },
    {
      date: '2024-01-02T10:30:00+02:00',
      message: 'Add binaries, an executable and a symlink',
      files: [
        // PNG signature and IHDR start: NUL bytes, CR LF and 0xFF bytes.
        { path: 'assets/nul-bytes.bin', base64: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAP/+Cg==' },
        // No NUL (so git calls it text) but invalid UTF-8: "caf\xe9\n\xc3(\n\xff\xfe\xfd\n\xed\xa0\x80\n".
        { path: 'assets/invalid-utf8.bin', base64: 'Y2Fm6QrDKAr//v0K7aCACg==' },
        { path: 'bin/run.sh', mode: '100755', text: '#!/bin/sh\necho "running edge-cases"\n' },
        { path: 'link-to-readme', mode: '120000', text: 'README.md' },
      ],
    },
    {
      date: '2024-01-03T18:00:00-05:00',
      message: 'Unicode names, edits and a deletion\n\nA body paragraph, so messages are not all one line.\n',
      deletions: ['obsolete.txt'],
      files: [
        { path: 'README.md', text: '# Edge cases\n\nFiles that exercise newline, binary, mode and path handling.\n\nSee docs/.\n' },
        { path: 'text/crlf.txt', text: 'first line\r\nsecond line (edited)\r\nthird line\r\nfourth line\r\n' },
        { path: 'docs/na\u00efve caf\u00e9.md', text: '# Na\u00efve caf\u00e9\n\nNFC-composed Latin letters in the file name.\n' },
        { path: 'docs/\u65e5\u672c\u8a9e.md', text: '# \u65e5\u672c\u8a9e\n\nA CJK file name.\n' },
        { path: 'docs/\u{1F680} launch.md', text: '# Launch\n\nAn emoji (outside the BMP) and a space in the name.\n' },
      ],
    },
  ],
};
