/**
 * Issue 13 through the tools: what a model sees when the recovery ladder placed its edit (the
 * structured report, valid under the MCP output schemas), line-range mode keeping a BOM, and the
 * final-newline notes.
 */
import { describe, expect, it } from 'vitest';
import { OUTPUT_SCHEMAS } from '../../../src/mcp/output-schemas';
import { expectOk, setup } from './harness';

const C_FILE = 'int f()\n{\n\tif (x)\n\t\tg();\n}\n';

function conforms(tool: string, output: unknown): void {
  const parsed = OUTPUT_SCHEMAS[tool]!.safeParse(output);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
}

describe('recovered edits report what was adjusted', () => {
  it('Edit: `recovery` names the level and the adjustments, and the output fits the MCP schema', async () => {
    const h = await setup({ 'f.c': C_FILE });
    await h.read('f.c');
    const output = expectOk(await h.call('Edit', { path: 'f.c', old_snippet: '        g();\n', new_snippet: '        if (y)\n            g();\n' }));
    expect(output).toMatchObject({ status: 'ok', recovery: { level: 'indentation_shift' } });
    expect((output as { recovery: { adjusted: string[] } }).recovery.adjusted.join(' ')).toContain('indentation shifted');
    conforms('Edit', output);
    expect(await h.vfs.text('f.c')).toBe('int f()\n{\n\tif (x)\n\t\tif (y)\n\t\t\tg();\n}\n');
  });

  it('Edit: an exact match has no `recovery`', async () => {
    const h = await setup({ 'f.c': C_FILE });
    await h.read('f.c');
    const output = expectOk(await h.call('Edit', { path: 'f.c', old_snippet: '\t\tg();\n', new_snippet: '\t\th();\n' }));
    expect(output).not.toHaveProperty('recovery');
  });

  it('Patch and search_replace: `recoveries` lists each recovered patch with its lines', async () => {
    const h = await setup({ 'f.c': C_FILE });
    await h.read('f.c');
    const output = expectOk(
      await h.call('Patch', {
        path: 'f.c',
        patches: [
          { operation: 'replace', oldText: 'int f()\n', newText: 'int f(void)\n' },
          { operation: 'replace', oldText: '\tif (x)  \n', newText: '\tif (x && y)  \n' },
        ],
      }),
    );
    expect(output).toMatchObject({ recoveries: [{ patch: 2, level: 'line_end_whitespace', start_line: 3, end_line: 3 }] });
    conforms('Patch', output);
    expect(await h.vfs.text('f.c')).toBe('int f(void)\n{\n\tif (x && y)\n\t\tg();\n}\n');

    const blocks = '<<<<<<< SEARCH\n        g();\n=======\n        h();\n>>>>>>> REPLACE\n';
    const sr = expectOk(await h.call('search_replace', { path: 'f.c', blocks }));
    expect(sr).toMatchObject({ recoveries: [{ patch: 1, level: 'indentation_shift', start_line: 4, end_line: 4 }] });
    conforms('search_replace', sr);
    expect(await h.vfs.text('f.c')).toBe('int f(void)\n{\n\tif (x && y)\n\t\th();\n}\n');
  });
});

describe('line-range mode and final newlines', () => {
  it('issue 13 mechanism 4: replacing line 1 keeps a UTF-8 BOM, and says so', async () => {
    const h = await setup({ 'bom.txt': '\ufeffhead\r\nx\r\n' });
    await h.read('bom.txt');
    const output = expectOk(await h.call('Edit', { path: 'bom.txt', start_line: 1, end_line: 1, new_content: 'HEAD' }));
    expect([...(await h.vfs.readFile('bom.txt'))]).toEqual([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('HEAD\r\nx\r\n')]);
    expect((output as { message: string }).message).toContain('byte order mark');
  });

  it('a BOM written in new_content for line 1 is not doubled; deleting line 1 keeps the BOM', async () => {
    const h = await setup({ 'bom.txt': '\ufeffhead\nx\n' });
    await h.read('bom.txt');
    expectOk(await h.call('Edit', { path: 'bom.txt', start_line: 1, end_line: 1, new_content: '\ufeffHEAD\n' }));
    expect(await h.vfs.text('bom.txt')).toBe('\ufeffHEAD\nx\n');
    expectOk(await h.call('Edit', { path: 'bom.txt', start_line: 1, end_line: 1, new_content: '' }));
    expect(await h.vfs.text('bom.txt')).toBe('\ufeffx\n');
  });

  it('line-range mode notes a final newline it cannot add, and snippet mode adds it as the note says', async () => {
    const h = await setup({ 'a.txt': 'one\ntwo' });
    await h.read('a.txt');
    const output = expectOk(await h.call('Edit', { path: 'a.txt', start_line: 2, end_line: 2, new_content: 'TWO\n' }));
    expect(await h.vfs.text('a.txt')).toBe('one\nTWO');
    expect((output as { message: string }).message).toContain('still ends without a final newline');
    expectOk(await h.call('Edit', { path: 'a.txt', old_snippet: 'TWO', new_snippet: 'TWO\n' }));
    expect(await h.vfs.text('a.txt')).toBe('one\nTWO\n');
  });

  it('search_replace notes that it cannot add a final newline the file lacks', async () => {
    const h = await setup({ 'a.txt': 'one\ntwo' });
    await h.read('a.txt');
    const output = expectOk(await h.call('search_replace', { path: 'a.txt', blocks: '<<<<<<< SEARCH\ntwo\n=======\nTWO\n>>>>>>> REPLACE\n' }));
    expect(await h.vfs.text('a.txt')).toBe('one\nTWO');
    expect((output as { notes: string[] }).notes.join('\n')).toContain('blocks cannot add or remove a final newline');
  });

  it('the tool descriptions tell the model how to add or remove a final newline', async () => {
    const h = await setup();
    const descriptions = Object.fromEntries(['Edit', 'Patch', 'search_replace'].map((n) => [n, h.registry.get(n)!.description]));
    expect(descriptions.Edit).toContain('final newline');
    expect(descriptions.Patch).toContain('final newline');
    expect(descriptions.search_replace).toContain('final newline');
  });
});
