/**
 * A concurrent `git gc --prune=now` (issue "Safe among others", the fault test's race): gc walks
 * the refs when it starts and prunes the rest, so an object written meanwhile and reached by a
 * ref only after that walk is deleted. After moving a ref the engine waits while gc.pid names a
 * running gc, then writes again what was pruned: the ref never names a missing object.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { Repository, ZERO_OID, type GitFs } from '../../../src/git';
import { waitForRunningGc } from '../../../src/git/gc-guard';
import { nodePlatform } from '../../../src/git/node/platform';
import { makeMemRepo } from '../../helpers/memfs-repo';

const sig = { name: 'T', email: 't@example.invalid', timestamp: 1_700_000_000, timezoneOffset: 0 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('objects pruned by a gc running while a ref moves', () => {
  it('waits while gc.pid names a live gc, then writes back every object the gc pruned before the ref reached it', async () => {
    const mem = await makeMemRepo({ files: { 'a.txt': 'a\n' } });
    const fs = mem.fs as unknown as GitFs;
    const repo = await Repository.open({ fs, dir: mem.dir, platform: nodePlatform });
    const blob = await repo.writeBlob(new TextEncoder().encode('written while gc runs\n'));
    const tree = await repo.writeTree([{ mode: '100644', name: 'f.txt', oid: blob }]);
    // The gc (this process stands in for it: alive, this host) walked the refs and pruned both.
    await fs.promises.writeFile(`${mem.gitdir}/gc.pid`, `${process.pid} ${hostname()}`);
    for (const oid of [blob, tree]) await fs.promises.unlink(`${mem.gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`);
    let moved = false;
    const update = repo.refs.update({ ref: 'refs/heads/pinned', newOid: tree, expectedOid: ZERO_OID, committer: sig, reflogMessage: 'test' }).then(() => (moved = true));
    await sleep(150);
    expect(moved).toBe(false); // still waiting for the gc
    await fs.promises.unlink(`${mem.gitdir}/gc.pid`);
    await update;
    const fresh = await Repository.open({ fs, dir: mem.dir, platform: nodePlatform });
    expect(await fresh.readTree(tree)).toEqual([{ mode: '100644', name: 'f.txt', oid: blob }]);
    expect(new TextDecoder().decode(await fresh.readBlob(blob))).toBe('written while gc runs\n');
  });

  it('never moves the ref onto a missing object: what the gc pruned while the move waited is written back before the ref file is renamed into place', async () => {
    const mem = await makeMemRepo({ files: { 'a.txt': 'a\n' } });
    const fs = mem.fs as unknown as GitFs;
    const objectFile = (oid: string) => `${mem.gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`;
    const present: boolean[] = [];
    let watched: string[] = [];
    // memfs has sync calls, which the repository uses: the ref's rename is renameSync.
    const sync = mem.fs as unknown as { renameSync: (from: string, to: string) => void; existsSync: (path: string) => boolean; writeFileSync: (...args: unknown[]) => void };
    const renameSync = sync.renameSync.bind(sync);
    sync.renameSync = (from: string, to: string) => {
      // The instant the ref moves (a kill right after it must leave nothing missing).
      if (String(to).endsWith('refs/heads/moved')) for (const oid of watched) present.push(sync.existsSync(objectFile(oid)));
      renameSync(from, to);
    };
    const repo = await Repository.open({ fs, dir: mem.dir, platform: nodePlatform });
    const blob = await repo.writeBlob(new TextEncoder().encode('moved onto\n'));
    const tree = await repo.writeTree([{ mode: '100644', name: 'f.txt', oid: blob }]);
    watched = [blob, tree];
    await fs.promises.writeFile(`${mem.gitdir}/gc.pid`, `${process.pid} ${hostname()}`);
    const update = repo.refs.update({ ref: 'refs/heads/moved', newOid: tree, expectedOid: ZERO_OID, committer: sig, reflogMessage: 'test' });
    await sleep(100);
    // The running gc prunes them (nothing reaches them yet), then ends.
    for (const oid of [blob, tree]) await fs.promises.unlink(objectFile(oid));
    await fs.promises.unlink(`${mem.gitdir}/gc.pid`);
    await update;
    expect(present).toEqual([true, true]);
  });

  it('stands back when a gc starts between its wait and its move: the lock is given back, the gc waited out', async () => {
    const mem = await makeMemRepo({ files: { 'a.txt': 'a\n' } });
    const fs = mem.fs as unknown as GitFs;
    // The gc starts once the ref is locked (after the wait before the lock found none).
    const lock = `${mem.gitdir}/refs/heads/late.lock`;
    const sync = mem.fs as unknown as { writeFileSync: (...args: unknown[]) => void };
    const writeFileSync = sync.writeFileSync.bind(sync);
    let started = false;
    sync.writeFileSync = (...args: unknown[]) => {
      writeFileSync(...args);
      if (!started && String(args[0]) === lock) {
        started = true;
        writeFileSync(`${mem.gitdir}/gc.pid`, `${process.pid} ${hostname()}`);
      }
    };
    const repo = await Repository.open({ fs, dir: mem.dir, platform: nodePlatform });
    const tree = await repo.writeTree([{ mode: '100644', name: 'f.txt', oid: await repo.writeBlob(new TextEncoder().encode('x\n')) }]);
    let moved = false;
    const update = repo.refs.update({ ref: 'refs/heads/late', newOid: tree, expectedOid: ZERO_OID, committer: sig, reflogMessage: 'test' }).then(() => (moved = true));
    await sleep(150);
    expect(started).toBe(true);
    expect(moved).toBe(false);
    expect(await fs.promises.stat(lock).then(() => true, () => false)).toBe(false); // not held while waiting
    expect(await repo.refs.resolve('refs/heads/late')).toBeNull(); // not moved under the gc's walk
    await fs.promises.unlink(`${mem.gitdir}/gc.pid`);
    await update;
    expect(await repo.refs.resolve('refs/heads/late')).toBe(tree);
  });

  it('does not wait for a gc.pid left by a gc of this host that is gone, nor for one older than 12 hours', async () => {
    const mem = await makeMemRepo({ files: { 'a.txt': 'a\n' } });
    const fs = mem.fs as unknown as GitFs;
    const gone = 2 ** 22 + 12345; // above Linux's pid_max default: no such process
    await fs.promises.writeFile(`${mem.gitdir}/gc.pid`, `${gone} ${hostname()}`);
    const started = Date.now();
    await waitForRunningGc(fs, mem.gitdir, nodePlatform.processInfo);
    expect(Date.now() - started).toBeLessThan(1000);
    await fs.promises.writeFile(`${mem.gitdir}/gc.pid`, `${process.pid} ${hostname()}`);
    await waitForRunningGc(fs, mem.gitdir, nodePlatform.processInfo, () => Date.now() + 13 * 3600 * 1000);
  });
});
