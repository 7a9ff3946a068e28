import { createHash } from 'node:crypto';
import { inflateSync, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isForgeError, type ErrorCode } from '../../../src/errors';
import { ObjectStore, Repository, type GitFs } from '../../../src/git';
import { bytes, MEMFS_BACKENDS, text } from '../../helpers/engine-repos';

async function codeOf(promise: Promise<unknown>): Promise<ErrorCode | 'success' | 'non-forge'> {
  return promise.then(
    () => 'success' as const,
    (e: unknown) => (isForgeError(e) ? e.code : 'non-forge'),
  );
}

/** Every file below a memfs directory, as paths relative to it. */
function listFiles(fs: GitFs, dir: string): string[] {
  const sync = fs as unknown as { readdirSync(p: string): string[]; statSync(p: string): { isDirectory(): boolean } };
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of sync.readdirSync(`${dir}${rel}`)) {
      const path = `${rel}/${name}`;
      if (sync.statSync(`${dir}${path}`).isDirectory()) walk(path);
      else out.push(path.slice(1));
    }
  };
  walk('');
  return out;
}

const HELLO_OID = 'ce013625030ba8dba906f756967f9e9ca394464a'; // git hash-object of "hello\n"

describe.each(MEMFS_BACKENDS)('ObjectStore on $name', (backend) => {
  it('writes a blob as a loose zlib file under objects/xx/ with git\'s oid, read-only, and reads it back', async () => {
    const r = await backend.make({ files: {} });
    const repo = await r.open();
    expect(await repo.writeBlob(bytes('hello\n'))).toBe(HELLO_OID);
    const path = `${r.gitdir}/objects/ce/${HELLO_OID.slice(2)}`;
    const raw = await r.fs.promises.readFile(path);
    expect(text(inflateSync(raw))).toBe('blob 6\0hello\n');
    expect((await r.fs.promises.stat(path)).mode & 0o222).toBe(0);
    expect(text(await repo.readBlob(HELLO_OID))).toBe('hello\n');
    // A new handle (no cache) reads it too.
    expect(text(await (await r.open()).readBlob(HELLO_OID))).toBe('hello\n');
  });

  it('never leaves tmp_obj_* files behind, and writing the same content twice is a no-op', async () => {
    const r = await backend.make({ files: { 'x.txt': 'x\n' } });
    const repo = await r.open();
    const oids = new Set<string>();
    for (let i = 0; i < 20; i++) oids.add(await repo.writeBlob(bytes(`content ${i % 10}\n`)));
    expect(oids.size).toBe(10);
    const files = listFiles(r.fs, `${r.gitdir}/objects`);
    expect(files.filter((f) => f.includes('tmp_obj_'))).toEqual([]);
    for (const oid of oids) expect(files).toContain(`${oid.slice(0, 2)}/${oid.slice(2)}`);
  });

  it('a write that fails half-way (rename refused) removes its temporary file and leaves no object', async () => {
    const r = await backend.make({ files: {} });
    const crash = () => {
      throw Object.assign(new Error('EIO: simulated crash'), { code: 'EIO' });
    };
    // The rename fails on whichever API the store writes through (sync with the Node platform, promises otherwise).
    const failing = new Proxy(r.fs, {
      get(target, name) {
        if (name === 'renameSync') return crash;
        if (name === 'promises') {
          return new Proxy(target.promises, {
            get: (p, n) => (n === 'rename' ? async () => crash() : (Reflect.get(p, n) as (...a: unknown[]) => unknown).bind(p)),
          });
        }
        const value = Reflect.get(target, name) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as GitFs;
    const before = listFiles(r.fs, `${r.gitdir}/objects`);
    const store = new ObjectStore(failing, r.gitdir, r.platform);
    expect(await codeOf(store.write('blob', bytes('never lands\n')))).toBe('INTERNAL');
    expect(listFiles(r.fs, `${r.gitdir}/objects`)).toEqual(before);
  });

  it('reports OBJECT_NOT_FOUND for a missing oid and OBJECT_TYPE_MISMATCH for the wrong type', async () => {
    const r = await backend.make({ files: { 'x.txt': 'x\n' } });
    const repo = await r.open();
    expect(await codeOf(repo.readBlob('0'.repeat(40)))).toBe('OBJECT_NOT_FOUND');
    expect(await repo.objects.has('0'.repeat(40))).toBe(false);
    expect(await codeOf(repo.readBlob(r.head))).toBe('OBJECT_TYPE_MISMATCH');
    expect(await codeOf(repo.readTree(r.head))).toBe('OBJECT_TYPE_MISMATCH');
  });

  it('reports a loose object whose header lies about its size as a ForgeError, not a raw error', async () => {
    const r = await backend.make({ files: {} });
    const oid = 'ab' + 'c'.repeat(38);
    await r.fs.promises.mkdir(`${r.gitdir}/objects/ab`, { recursive: true });
    await r.fs.promises.writeFile(`${r.gitdir}/objects/ab/${oid.slice(2)}`, deflateSync(Buffer.from('blob 99\0short')));
    const code = await codeOf((await r.open()).readBlob(oid));
    // Our reader names it OBJECT_CORRUPT; isomorphic-git's (portable platform) is translated at the boundary.
    expect(backend.name === 'memfs+node' ? code === 'OBJECT_CORRUPT' : code !== 'non-forge' && code !== 'success').toBe(true);
  });

  it('writes content given as runs (small: joined; large: hashed and deflated run by run) as the object of their concatenation, and writes it again from the runs when it went missing before a ref reached it', async () => {
    const r = await backend.make({ files: {} });
    const repo = await r.open();
    const large = new Uint8Array(3 * 1024 * 1024 + 5);
    for (let i = 0; i < large.length; i++) large[i] = 97 + ((i * 7) % 26);
    for (const whole of [bytes('hello\nworld\n'), large]) {
      const cut = Math.floor(whole.length / 3);
      const runs = [whole.subarray(0, cut), whole.subarray(cut, cut + 2), new Uint8Array(0), whole.subarray(cut + 2)];
      const oid = await new ObjectStore(r.fs, r.gitdir, r.platform).write('blob', runs);
      expect(oid).toBe(createHash('sha1').update(`blob ${whole.length}\0`).update(whole).digest('hex'));
      const path = `${r.gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`;
      expect(Buffer.compare(inflateSync(await r.fs.promises.readFile(path)), Buffer.concat([Buffer.from(`blob ${whole.length}\0`), whole]))).toBe(0);
      // Pruned before any ref reached it: the store writes it again from the runs it holds.
      const store = repo.objects;
      const again = await store.write('blob', runs);
      await r.fs.promises.chmod!(path, 0o644);
      await r.fs.promises.unlink(path);
      expect(await store.ensureHeld(again)).toBe(true);
      expect(Buffer.compare(await (await r.open()).readBlob(oid), whole)).toBe(0);
    }
    r.fsck();
  });

  it('finds objects by unique prefix and reports ambiguity', async () => {
    const r = await backend.make({ files: {} });
    const repo = await r.open();
    await repo.writeBlob(bytes('hello\n'));
    expect(await repo.objects.findByPrefix('ce0136')).toEqual([HELLO_OID]);
    expect(await repo.objects.findByPrefix('ce0137')).toEqual([]);
  });
});

describe('ObjectStore fast path selection', () => {
  it('uses the positional pack reader only with a sync fs and the Node platform', async () => {
    const [nodeBackend, portableBackend] = MEMFS_BACKENDS;
    const a = await nodeBackend!.make({ files: {} });
    const b = await portableBackend!.make({ files: {} });
    expect((await a.open()).objects.fastPath).toBe(true);
    expect((await b.open()).objects.fastPath).toBe(false);
    expect((await Repository.open({ fs: a.fs, dir: a.dir })).objects.fastPath).toBe(false);
  });
});
