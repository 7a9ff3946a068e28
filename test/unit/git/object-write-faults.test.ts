/**
 * Object writes when the file system misbehaves (issue "Safe among others", 3 and 4): a full or
 * read-only disk keeps its own error code; a fan-out directory or an object removed by a
 * concurrent `git gc` since the store listed it is written again, not trusted from the cache.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isForgeError } from '../../../src/errors';
import { Repository, type GitFs } from '../../../src/git';
import { nodePlatform } from '../../../src/git/node/platform';
import { makeMemRepo } from '../../helpers/memfs-repo';

async function setup() {
  const mem = await makeMemRepo({ files: { 'a.txt': 'a\n' } });
  const repo = await Repository.open({ fs: mem.fs as unknown as GitFs, dir: mem.dir, platform: nodePlatform });
  return { mem, repo };
}

const blobOid = (content: Uint8Array) => createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');

const failing = (code: string) => () => {
  throw Object.assign(new Error(`${code}: simulated, write '/repo/.git/objects/tmp_obj_forge_x'`), { code });
};

describe('object writes under faults', () => {
  it.each([
    ['ENOSPC', 'DISK_FULL'],
    ['EROFS', 'READ_ONLY_FS'],
  ])('%s while writing an object is %s, naming the object (never INTERNAL or a mkdir ENOENT)', async (errno, code) => {
    const mem = await makeMemRepo({ files: { 'a.txt': 'a\n' } });
    (mem.fs as unknown as { writeFileSync: unknown }).writeFileSync = failing(errno);
    const repo = await Repository.open({ fs: mem.fs as unknown as GitFs, dir: mem.dir, platform: nodePlatform });
    const error = await repo.writeBlob(new TextEncoder().encode('new content')).catch((e: unknown) => e);
    expect(isForgeError(error, code as never)).toBe(true);
    expect((error as Error).message).toMatch(/^Could not write object [0-9a-f]{40}: /);
    expect((error as Error).message).not.toContain('mkdir');
  });

  it('an object pruned behind the store\'s back (its listing still names it) is written again', async () => {
    const { mem, repo } = await setup();
    const content = new TextEncoder().encode('pruned later\n');
    const oid = await repo.writeBlob(content);
    const path = `${mem.gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`;
    expect(mem.fs.existsSync(path)).toBe(true);
    // git gc --prune=now: the object and its (now empty) fan-out directory go.
    mem.fs.unlinkSync(path);
    mem.fs.rmdirSync(`${mem.gitdir}/objects/${oid.slice(0, 2)}`);
    expect(await repo.writeBlob(content)).toBe(oid);
    expect(mem.fs.existsSync(path)).toBe(true);
    expect(await repo.objects.freshen(oid)).toBe(true);
  });

  it('an object another process wrote after the store listed its fan-out directory: freshen asks the file, a write of it again is harmless', async () => {
    const { mem, repo } = await setup();
    const enc = (s: string) => new TextEncoder().encode(s);
    const first = await repo.writeBlob(enc('listed first\n'));
    // Content whose object lands in the same fan-out directory (its listing is now cached).
    let k = 0;
    while (blobOid(enc(`other ${k}\n`)).slice(0, 2) !== first.slice(0, 2)) k++;
    const content = enc(`other ${k}\n`);
    const other = await Repository.open({ fs: mem.fs as unknown as GitFs, dir: mem.dir, platform: nodePlatform });
    const oid = await other.writeBlob(content);
    expect(await repo.objects.freshen(oid)).toBe(true);
    expect(await repo.writeBlob(content)).toBe(oid);
    expect(new TextDecoder().decode(await repo.readBlob(oid))).toBe(`other ${k}\n`);
  });

  it('freshen answers from the files: false once the object is gone', async () => {
    const { mem, repo } = await setup();
    const oid = await repo.writeBlob(new TextEncoder().encode('soon gone\n'));
    mem.fs.unlinkSync(`${mem.gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`);
    expect(await repo.objects.freshen(oid)).toBe(false);
  });
});
