import { describe, expect, it } from 'vitest';
import { isForgeError, type ErrorCode } from '../../../src/errors';
import { MemoryVfs } from '../../helpers/memory-vfs';

const bytes = (s: string) => new TextEncoder().encode(s);

async function code(promise: Promise<unknown>): Promise<ErrorCode | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (isForgeError(error)) return error.code;
    throw error;
  }
}

// The strict test view the tool tests rely on behaves like a git tree, not like a forgiving map.
describe('MemoryVfs (test helper)', () => {
  it('derives directories from paths and lists them like a tree', async () => {
    const vfs = await MemoryVfs.create({ 'b.txt': 'b', 'a/x.txt': 'x', 'a/y/z.txt': 'z', l: { symlink: 'a' } });
    expect((await vfs.list('')).map((e) => `${e.type}:${e.name}`)).toEqual(['directory:a', 'file:b.txt', 'symlink:l']);
    expect((await vfs.walk('a')).map((e) => e.path)).toEqual(['a/x.txt', 'a/y/z.txt']);
    expect(await vfs.stat('a/y')).toMatchObject({ type: 'directory', mode: '040000' });
    expect(await vfs.stat('l')).toMatchObject({ type: 'symlink', mode: '120000', size: 1 });
    expect(await vfs.stat('nope')).toBeNull();
  });

  it('fails like a filesystem', async () => {
    const vfs = await MemoryVfs.create({ 'f.txt': 'x', 'd/g.txt': 'y' });
    expect(await code(vfs.writeFile('f.txt/child', bytes('')))).toBe('PATH_NOT_DIRECTORY');
    expect(await code(vfs.writeFile('d', bytes('')))).toBe('PATH_IS_DIRECTORY');
    expect(await code(vfs.readFile('d'))).toBe('PATH_IS_DIRECTORY');
    expect(await code(vfs.readFile('missing'))).toBe('PATH_NOT_FOUND');
    expect(await code(vfs.deleteFile('missing'))).toBe('PATH_NOT_FOUND');
    expect(await code(vfs.deleteFile('d'))).toBe('PATH_IS_DIRECTORY');
    expect(await code(vfs.list('f.txt'))).toBe('PATH_NOT_DIRECTORY');
    expect(await code(vfs.readFile('d/../f.txt'))).toBe('PATH_INVALID');
    expect(await code(vfs.writeFile('/abs', bytes('')))).toBe('PATH_INVALID');
  });

  it('computes git blob ids, keeps modes, prunes emptied directories and diffs against the base', async () => {
    const vfs = await MemoryVfs.create({ 'run.sh': { content: 'x', mode: '100755' }, 'd/only.txt': 'o' });
    // `git hash-object` of "hello\n".
    await vfs.writeFile('h.txt', bytes('hello\n'));
    expect((await vfs.stat('h.txt'))!.oid).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
    await vfs.writeFile('run.sh', bytes('y'));
    expect((await vfs.stat('run.sh'))!.mode).toBe('100755');
    await vfs.deleteFile('d/only.txt');
    expect(await vfs.exists('d')).toBe(false);
    expect((await vfs.diff()).map((c) => `${c.kind} ${c.path}`)).toEqual(['deleted d/only.txt', 'added h.txt', 'modified run.sh']);
    await vfs.writeFile('run.sh', bytes('x'));
    expect((await vfs.diff()).map((c) => c.path)).toEqual(['d/only.txt', 'h.txt']);
    await vfs.discard();
    expect(await vfs.diff()).toEqual([]);
    expect(vfs.mutationCount).toBe(5);
  });

  it('returns copies, so callers cannot change stored content', async () => {
    const vfs = await MemoryVfs.create({ 'a.txt': 'abc' });
    const read = await vfs.readFile('a.txt');
    read[0] = 0x7a;
    expect(await vfs.text('a.txt')).toBe('abc');
  });
});
