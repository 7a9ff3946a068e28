/**
 * The three-way tree merge on memfs: every conflict kind, the clean cases around them, and
 * subtree reuse. (Agreement with git, byte for byte, is test/integration/merge-oracle.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findRenameHazards, mergeTrees, writeMergedTree, type MergeConflict } from '../../../src/branches';
import { fixture, fsckFixtures, lines, type FileValue, type Fixture } from './build';

const labels = { ours: 'main', theirs: 'forge/session/s' };

interface Outcome {
  fx: Fixture;
  conflicts: MergeConflict[];
  tree: string;
  files: Record<string, string>;
  /** The root trees of base, ours and theirs. */
  trees: { base: string; ours: string; theirs: string };
}

/** Base files; ours and theirs change them; the merge's conflicts and resulting (conflict) tree. */
async function mergeOf(base: Record<string, FileValue>, ours: Record<string, FileValue>, theirs: Record<string, FileValue>): Promise<Outcome> {
  const fx = await fixture({ '.keep': '' });
  const b = await fx.commit(fx.engine.head, base);
  const o = await fx.commit(b, ours);
  const t = await fx.commit(b, theirs);
  const [bt, ot, tt] = await Promise.all([b, o, t].map(async (c) => (await fx.repo.readCommit(c)).tree));
  const merged = await mergeTrees(fx.repo, bt!, ot!, tt!, labels);
  const hazards = await findRenameHazards(fx.repo, bt!, ot!, tt!, labels, merged.renameHints);
  const tree = await writeMergedTree(fx.repo, merged.root);
  const commit = await fx.repo.writeCommit({ tree, parents: [], author: sig, committer: sig, message: 'm\n' });
  const files = await fx.files(commit);
  delete files['.keep'];
  return { fx, conflicts: [...merged.conflicts, ...hazards], tree, files, trees: { base: bt!, ours: ot!, theirs: tt! } };
}

const sig = { name: 'T', email: 't@example.invalid', timestamp: 1, timezoneOffset: 0 };


// Every commit and tree these tests write must pass git fsck --strict.
afterEach(fsckFixtures);

describe('mergeTrees: clean merges', () => {
  it('merges different files, and non-overlapping edits of one file', async () => {
    const r = await mergeOf({ 'a.txt': lines(10), 'b.txt': 'b\n' }, { 'a.txt': lines(10, { 2: 'ours' }), 'new.txt': 'n\n' }, { 'a.txt': lines(10, { 9: 'theirs' }), 'b.txt': 'B\n' });
    expect(r.conflicts).toEqual([]);
    expect(r.files).toEqual({ 'a.txt': lines(10, { 2: 'ours', 9: 'theirs' }), 'b.txt': 'B\n', 'new.txt': 'n\n' });
  });

  it('merges a mode change with a content change of the same file', async () => {
    const r = await mergeOf({ 'run.sh': lines(3) }, { 'run.sh': { content: lines(3), mode: '100755' } }, { 'run.sh': lines(3, { 3: 'exit 0' }) });
    expect(r.conflicts).toEqual([]);
    expect(r.files['run.sh']).toBe(lines(3, { 3: 'exit 0' }));
    const commit = await r.fx.repo.writeCommit({ tree: r.tree, parents: [], author: sig, committer: sig, message: 'm\n' });
    expect(await r.fx.modeOf(commit, 'run.sh')).toBe('100755');
  });

  it('takes a file deleted on both sides, and added identically on both, once', async () => {
    const r = await mergeOf({ 'gone.txt': 'g\n', 'keep.txt': 'k\n' }, { 'gone.txt': null, 'same.txt': 's\n' }, { 'gone.txt': null, 'same.txt': 's\n' });
    expect(r.conflicts).toEqual([]);
    expect(r.files).toEqual({ 'keep.txt': 'k\n', 'same.txt': 's\n' });
  });

  it('lets a side replace a file by a directory when the other side left the file alone', async () => {
    const r = await mergeOf({ 'p': 'file\n', 'x.txt': 'x\n' }, { 'p': null, 'p/inside.txt': 'in\n' }, { 'x.txt': 'X\n' });
    expect(r.conflicts).toEqual([]);
    expect(r.files).toEqual({ 'p/inside.txt': 'in\n', 'x.txt': 'X\n' });
  });

  it('reuses every subtree only one side changed, by oid', async () => {
    const base = { 'left/deep/a.txt': 'a\n', 'right/b.txt': 'b\n', 'both/c.txt': lines(6) };
    const r = await mergeOf(base, { 'left/deep/a.txt': 'A\n', 'both/c.txt': lines(6, { 1: 'o' }) }, { 'right/b.txt': 'B\n', 'both/c.txt': lines(6, { 6: 't' }) });
    expect(r.conflicts).toEqual([]);
    const entry = async (tree: string, name: string) => (await r.fx.repo.readTree(tree)).find((e) => e.name === name)!.oid;
    expect(await entry(r.tree, 'left')).toBe(await entry(r.trees.ours, 'left'));
    expect(await entry(r.tree, 'right')).toBe(await entry(r.trees.theirs, 'right'));
    // Changed on both sides: a new tree.
    expect(await entry(r.tree, 'both')).not.toBe(await entry(r.trees.ours, 'both'));
  });
});

describe('mergeTrees: conflicts', () => {
  it('content: overlapping edits, with the hunks and git-style markers in the conflict tree', async () => {
    const r = await mergeOf({ 'a.txt': lines(5) }, { 'a.txt': lines(5, { 3: 'ours' }) }, { 'a.txt': lines(5, { 3: 'theirs' }) });
    expect(r.conflicts).toMatchObject([{ path: 'a.txt', kind: 'content', hunks: [{ base: { start: 3, count: 1, text: 'line 3\n' }, ours: { text: 'ours\n' }, theirs: { text: 'theirs\n' } }] }]);
    expect(r.files['a.txt']).toBe('line 1\nline 2\n<<<<<<< main\nours\n=======\ntheirs\n>>>>>>> forge/session/s\nline 4\nline 5\n');
  });

  it('add/add: both sides added the path with different content', async () => {
    const r = await mergeOf({}, { 'n.txt': 'one\n' }, { 'n.txt': 'two\n' });
    expect(r.conflicts).toMatchObject([{ path: 'n.txt', kind: 'add/add', hunks: [{ base: { count: 0 }, ours: { text: 'one\n' }, theirs: { text: 'two\n' } }] }]);
    expect(r.conflicts[0]!.base).toBeUndefined();
  });

  it('modify/delete, either way round; the modified side stays in the conflict tree', async () => {
    const a = await mergeOf({ 'm.txt': 'm\n' }, { 'm.txt': 'M\n' }, { 'm.txt': null });
    expect(a.conflicts).toMatchObject([{ path: 'm.txt', kind: 'modify/delete', message: expect.stringContaining('deleted on forge/session/s') }]);
    expect(a.files['m.txt']).toBe('M\n');
    const b = await mergeOf({ 'm.txt': 'm\n' }, { 'm.txt': null }, { 'm.txt': { content: 'm\n', mode: '100755' } });
    expect(b.conflicts).toMatchObject([{ path: 'm.txt', kind: 'modify/delete', theirs: { mode: '100755' } }]);
  });

  it('mode: both sides added the same content with different exec bits', async () => {
    const r = await mergeOf({}, { 'x.sh': { content: 'x\n', mode: '100755' } }, { 'x.sh': 'x\n' });
    expect(r.conflicts).toMatchObject([{ path: 'x.sh', kind: 'mode' }]);
  });

  it('mode: a file on one side, a symlink on the other (git moves the regular file aside)', async () => {
    const r = await mergeOf({ 'l': 'target\n' }, { 'l': { content: 'elsewhere', mode: '120000' } }, { 'l': 'changed\n' });
    expect(r.conflicts).toMatchObject([{ path: 'l', kind: 'mode' }]);
    expect(r.files['l']).toBe('elsewhere');
    expect(r.files['l~forge_session_s']).toBe('changed\n');
  });

  it('binary: both sides changed a file with a NUL byte', async () => {
    const r = await mergeOf({ 'b.bin': new Uint8Array([0, 1, 2]) }, { 'b.bin': new Uint8Array([0, 1, 3]) }, { 'b.bin': new Uint8Array([0, 1, 4]) });
    expect(r.conflicts).toMatchObject([{ path: 'b.bin', kind: 'binary', binary: true }]);
    expect([...Buffer.from(r.files['b.bin']!, 'latin1')]).toEqual([0, 1, 3]);
  });

  it('file/directory: a file on one side where the other has files in a directory', async () => {
    const r = await mergeOf({}, { 'p': 'file\n' }, { 'p/x.txt': 'x\n' });
    expect(r.conflicts).toMatchObject([{ path: 'p', kind: 'file/directory', conflictPath: 'p~main' }]);
    expect(r.files).toEqual({ 'p/x.txt': 'x\n', 'p~main': 'file\n' });
  });

  it('file/directory: a file modified on one side, replaced by a directory on the other', async () => {
    const r = await mergeOf({ 'p': 'file\n' }, { 'p': 'changed\n' }, { 'p': null, 'p/x.txt': 'x\n' });
    expect(r.conflicts.map((c) => [c.kind, c.path])).toEqual([['file/directory', 'p']]);
  });

  it('rename: a file both sides deleted that one side renamed (git: rename/delete)', async () => {
    const text = lines(20);
    const r = await mergeOf({ 'old.txt': text }, { 'old.txt': null, 'new.txt': text }, { 'old.txt': null });
    expect(r.conflicts).toMatchObject([{ path: 'old.txt', kind: 'rename', message: expect.stringContaining('new.txt') }]);
  });

  it('rename: a file added in a directory the other side moved away (git: directory rename)', async () => {
    const r = await mergeOf({ 'lib/a.ts': lines(8), 'lib/b.ts': lines(9) }, { 'lib/a.ts': null, 'lib/b.ts': null, 'src/a.ts': lines(8), 'src/b.ts': lines(9) }, { 'lib/c.ts': 'c\n' });
    expect(r.conflicts).toMatchObject([{ path: 'lib/c.ts', kind: 'rename' }]);
  });

  it('no rename conflict when a deleted file matches nothing added', async () => {
    const r = await mergeOf({ 'old.txt': lines(20) }, { 'old.txt': null, 'other.txt': 'unrelated\n' }, { 'old.txt': null });
    expect(r.conflicts).toEqual([]);
  });
});
