/**
 * withSyncPromises: the promise API served by an fs's synchronous calls behaves as the fs's own
 * promise API does (results, encodings, flags, errors as rejections with their codes).
 */
import { createFsFromVolume, Volume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { asGitFs, errnoCode, withSyncPromises, type GitFs } from '../../../src/git';

function memFs(): GitFs {
  return asGitFs(createFsFromVolume(new Volume()));
}

async function rejection(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => 'resolved',
    (error: unknown) => errnoCode(error),
  );
}

describe('withSyncPromises', () => {
  it('gives the same results as the fs promise API: bytes, utf8 text (a BOM kept), directories', async () => {
    const base = memFs();
    const fs = withSyncPromises(base);
    await fs.promises.mkdir('/d/e', { recursive: true });
    await fs.promises.writeFile('/d/e/a.txt', '\ufeffcafé\n');
    await fs.promises.appendFile!('/d/e/a.txt', 'more\n');
    expect(await fs.promises.readFile('/d/e/a.txt', 'utf8')).toBe(await base.promises.readFile('/d/e/a.txt', 'utf8'));
    expect(await fs.promises.readFile('/d/e/a.txt', 'utf8')).toBe('\ufeffcafé\nmore\n');
    expect(Buffer.from(await fs.promises.readFile('/d/e/a.txt'))).toEqual(Buffer.from(await base.promises.readFile('/d/e/a.txt')));
    await fs.promises.rename('/d/e/a.txt', '/d/b.txt');
    expect((await fs.promises.readdir('/d')).sort()).toEqual(['b.txt', 'e']);
    await fs.promises.chmod!('/d/b.txt', 0o444);
    expect((await fs.promises.stat('/d/b.txt')).mode & 0o777).toBe(0o444);
    await fs.promises.unlink('/d/b.txt');
    expect(await fs.promises.readdir('/d')).toEqual(['e']);
  });

  it('turns failures into rejections with the errno code: ENOENT, and EEXIST for an exclusive create (a lock)', async () => {
    const fs = withSyncPromises(memFs());
    expect(await rejection(fs.promises.readFile('/missing', 'utf8'))).toBe('ENOENT');
    expect(await rejection(fs.promises.rename('/missing', '/other'))).toBe('ENOENT');
    await fs.promises.writeFile('/ref.lock', 'x\n', { flag: 'wx' });
    expect(await rejection(fs.promises.writeFile('/ref.lock', 'y\n', { flag: 'wx' }))).toBe('EEXIST');
    expect(await fs.promises.readFile('/ref.lock', 'utf8')).toBe('x\n');
  });

  it('keeps the synchronous calls, and returns an fs without them unchanged', () => {
    const fs = withSyncPromises(memFs());
    fs.writeFileSync!('/x', new Uint8Array([1, 2]));
    expect(fs.existsSync!('/x')).toBe(true);
    const promisesOnly = { promises: memFs().promises } as GitFs;
    expect(withSyncPromises(promisesOnly)).toBe(promisesOnly);
  });
});
