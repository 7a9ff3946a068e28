import { describe, expect, it } from 'vitest';
import { CommitVfs, materialize } from '../../../src/vfs';
import { codeOf } from '../../helpers/engine-assert';
import { bytes, MEMFS_BACKENDS } from '../../helpers/engine-repos';
import { SessionStore } from '../../../src/session';

describe.each(MEMFS_BACKENDS)('materialize on $name', (backend) => {
  it('writes bytes, 0644/0755 modes and symlinks of base + pending into an empty directory', async () => {
    const r = await backend.make({ files: { 'a.txt': 'a\r\n', 'bin/x': { content: '#!', mode: '100755' }, 'l': { content: 'a.txt', mode: '120000' } } });
    const s = await new SessionStore(await r.open()).create({ id: 'm' });
    await s.vfs.writeFile('new/b.bin', new Uint8Array([0, 255]));
    await s.vfs.deleteFile('a.txt');
    const result = await materialize(s.vfs, r.fs, '/out');
    const mem = r.fs as unknown as { readFileSync(p: string): Buffer; lstatSync(p: string): { mode: number; isSymbolicLink(): boolean }; readlinkSync(p: string): string; existsSync(p: string): boolean };
    expect(result.files).toBe(4); // bin/x, l, new/b.bin, .forge/sessions/m.json
    expect([...mem.readFileSync('/out/new/b.bin')]).toEqual([0, 255]);
    expect(mem.lstatSync('/out/bin/x').mode & 0o777).toBe(0o755);
    expect(mem.lstatSync('/out/new/b.bin').mode & 0o777).toBe(0o644);
    expect(mem.lstatSync('/out/l').isSymbolicLink()).toBe(true);
    expect(mem.readlinkSync('/out/l')).toBe('a.txt');
    expect(mem.existsSync('/out/a.txt')).toBe(false);
  });

  it('makes the target of an empty tree an empty directory, and refuses a non-empty target', async () => {
    const r = await backend.make({ files: {} });
    const view = await CommitVfs.open(await r.open(), 'HEAD');
    expect(await materialize(view, r.fs, '/empty/out')).toEqual({ files: 0, bytes: 0 });
    expect(await r.fs.promises.readdir('/empty/out')).toEqual([]);
    await r.fs.promises.writeFile('/empty/out/x', bytes('x'));
    expect(await codeOf(materialize(view, r.fs, '/empty/out'))).toBe('INVALID_ARGUMENT');
  });
});
