import { describe, expect, it } from 'vitest';
import { SessionStateSchema } from '../../../src/session/state';
import { allowAll, createToolContext, createToolRegistry, type ToolState } from '../../../src/tools';
import { MemoryVfs } from '../../helpers/memory-vfs';
import { expectError, expectOk, setup, text } from './harness';

const tree = { 'a.txt': 'alpha\nbeta\n' };

/** One call of each tool that changes an existing file's content, targeting a.txt. */
const EDITS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['Edit', { path: 'a.txt', old_snippet: 'beta', new_snippet: 'BETA' }],
  ['Edit', { path: 'a.txt', start_line: 2, end_line: 2, new_content: 'BETA' }],
  ['Patch', { path: 'a.txt', patches: [{ operation: 'append_eof', newText: 'gamma\n' }] }],
  ['search_replace', { path: 'a.txt', blocks: '<<<<<<< SEARCH\nbeta\n=======\nBETA\n>>>>>>> REPLACE' }],
  ['write_file', { path: 'a.txt', content: 'replaced\n' }],
];

describe('read tracking and stale protection', () => {
  it.each(EDITS)('%s of a file that was never read fails with FILE_NOT_READ and writes nothing', async (tool, args) => {
    const h = await setup(tree);
    const error = expectError(await h.call(tool, args), 'FILE_NOT_READ');
    expect(error.message).toContain('Read it with read_file first');
    expect(h.vfs.mutationCount).toBe(0);
  });

  it.each(EDITS)('T-SFE-STALE-01: %s of a file changed since it was read fails with STALE_FILE and writes nothing', async (tool, args) => {
    const h = await setup(tree);
    await h.read('a.txt');
    // Someone else (another tool outside this session, a merge) changes the file.
    await h.vfs.writeFile('a.txt', text('alpha\nbeta\nchanged\n'));
    const count = h.vfs.mutationCount;
    const error = expectError(await h.call(tool, args), 'STALE_FILE');
    expect(error.message).toContain('changed since you last read it');
    expect(error.data?.current_file_hash).toBe(await h.ctx.hashContent(text('alpha\nbeta\nchanged\n')));
    expect(h.vfs.mutationCount).toBe(count);
    expect(await h.vfs.text('a.txt')).toBe('alpha\nbeta\nchanged\n');
  });

  it('T-SFE-STALE-01: Edit with a file_hash that does not match returns stale_file and writes nothing', async () => {
    const h = await setup(tree);
    const { file_hash } = await h.read('a.txt');
    const error = expectError(await h.call('Edit', { path: 'a.txt', old_snippet: 'beta', new_snippet: 'B', file_hash: 'f'.repeat(64) }), 'STALE_FILE');
    expect(error.data).toMatchObject({ action: 'apply_snippet_edit', status: 'stale_file', current_file_hash: file_hash, newline_kind: 'LF' });
    expect(h.vfs.mutationCount).toBe(0);
    // The matching hash is accepted (upper case too: it is hex).
    expectOk(await h.call('Edit', { path: 'a.txt', old_snippet: 'beta', new_snippet: 'B', file_hash: file_hash.toUpperCase() }));
  });

  it("a tool's own successful write counts as seen, so edits can follow each other", async () => {
    const h = await setup(tree);
    await h.read('a.txt');
    expectOk(await h.call('Edit', { path: 'a.txt', old_snippet: 'alpha', new_snippet: 'ALPHA' }));
    expectOk(await h.call('Patch', { path: 'a.txt', patches: [{ operation: 'replace', oldText: 'beta', newText: 'BETA' }] }));
    expectOk(await h.call('write_file', { path: 'new.txt', content: 'n' }));
    expectOk(await h.call('Edit', { path: 'new.txt', old_snippet: 'n', new_snippet: 'N' }));
    expect(await h.vfs.text('a.txt')).toBe('ALPHA\nBETA\n');
    expect(h.state.readHashes['a.txt']).toBe(await h.ctx.hashContent(text('ALPHA\nBETA\n')));
  });

  it('creating a new file needs no read; deleting a file changed since its read is refused', async () => {
    const h = await setup(tree);
    expectOk(await h.call('Patch', { path: 'created.txt', patches: [{ operation: 'overwrite', newText: 'x\n' }] }));
    await h.read('a.txt');
    await h.vfs.writeFile('a.txt', text('other\n'));
    expectError(await h.call('delete_file', { path: 'a.txt' }), 'STALE_FILE');
    expect(await h.vfs.exists('a.txt')).toBe(true);
    await h.read('a.txt');
    expectOk(await h.call('delete_file', { path: 'a.txt' }));
    expect(h.state.readHashes).not.toHaveProperty('a.txt');
  });

  it('read hashes and clipboards live in the session state and hold across processes', async () => {
    const vfs = await MemoryVfs.create({ 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'end\n' });
    const registry = createToolRegistry();
    // Process 1 reads a file and cuts a line into a clipboard.
    const first = createToolContext({ vfs, state: { mode: 'unrestricted', readHashes: {}, clipboards: {}, activeFiles: [], undo: null }, approval: allowAll });
    expectOk(await registry.call(first, 'read_file', { path: 'a.txt' }));
    expectOk(await registry.call(first, 'read_file', { path: 'b.txt' }));
    expectOk(await registry.call(first, 'Patch', { path: 'a.txt', patches: [{ operation: 'replace', oldText: 'two\n', toClipboard: 'cut' }] }));

    // The state is serialized with the session and read back by another process.
    const stored = JSON.stringify({
      version: 1, id: 's', branch: 'forge/session/s', createdAt: 't', updatedAt: 't', base: { commit: 'c' }, turn: 1,
      messages: [], toolCalls: [], ...first.state,
    });
    const restored = SessionStateSchema.parse(JSON.parse(stored));
    const state: ToolState = restored;
    const second = createToolContext({ vfs, state, approval: allowAll });
    const pasted = expectOk(await registry.call(second, 'Patch', { path: 'b.txt', patches: [{ operation: 'prepend_bof', fromClipboard: 'cut' }] }));
    expect(pasted).toMatchObject({ changed: true });
    expect(await vfs.text('b.txt')).toBe('two\nend\n');
    // Read tracking survived too: an outside change is still detected in the new process.
    await vfs.writeFile('a.txt', text('changed\n'));
    expectError(await registry.call(second, 'Edit', { path: 'a.txt', old_snippet: 'changed', new_snippet: 'x' }), 'STALE_FILE');
  });

  it('a failed edit does not record the file as seen', async () => {
    const h = await setup(tree);
    expectError(await h.call('Edit', { path: 'a.txt', old_snippet: 'beta', new_snippet: 'B' }), 'FILE_NOT_READ');
    expect(h.state.readHashes).toEqual({});
  });
});
