/**
 * Writing objects a pack already holds (a merge's trees that exist): the pack is freshened once
 * per listing, as git freshens it once per process (`p->freshened`), not once per object; the
 * store's `freshen` (asked by a turn's commit) still touches it every time.
 */
import * as nodeFs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Repository, type GitFs } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';

/** node:fs with its utimesSync calls that touched a .pack file counted. */
function countingFs() {
  const touched: string[] = [];
  const fs = new Proxy(nodeFs, {
    get(target, key) {
      if (key === 'utimesSync') {
        return (path: string, atime: number, mtime: number) => {
          target.utimesSync(path, atime, mtime);
          if (String(path).endsWith('.pack')) touched.push(String(path));
        };
      }
      return Reflect.get(target, key);
    },
  });
  return { fs: fs as unknown as GitFs, touched };
}

describe('writing objects a pack holds', () => {
  it('touches the pack once, keeps writing nothing loose, and touches it again after the packs are listed again', async () => {
    const repo = makeRepo({ files: { 'a/x.txt': 'x\n', 'b/y.txt': 'y\n', 'c/z.txt': 'z\n', 'top.txt': 't\n' } });
    git(repo.dir, ['gc', '--quiet']);
    const { fs, touched } = countingFs();
    const r = await Repository.open({ fs, dir: repo.dir, platform: nodePlatform });
    const root = await r.readTree((await r.readCommit(repo.head)).tree);
    const subtrees = root.filter((e) => e.mode === '040000');
    expect(subtrees.length).toBe(3);
    for (const entry of subtrees) expect(await r.writeTree(await r.readTree(entry.oid))).toBe(entry.oid);
    expect(await r.writeTree(root)).toBe((await r.readCommit(repo.head)).tree);
    expect(touched.length).toBe(1);
    const loose = nodeFs.readdirSync(`${repo.dir}/.git/objects`).filter((n) => /^[0-9a-f]{2}$/.test(n));
    expect(loose).toEqual([]);
    // `freshen` answers from the files each time.
    expect(await r.objects.freshen(subtrees[0]!.oid)).toBe(true);
    expect(touched.length).toBe(2);
    // Repacked since: `freshen` finds the old pack gone and lists the packs again; the first
    // write that finds an object in the new pack touches it, once.
    git(repo.dir, ['commit', '--allow-empty', '--quiet', '-m', 'another object, another pack name']);
    git(repo.dir, ['repack', '-a', '-d', '--quiet']);
    expect(await r.objects.freshen(subtrees[1]!.oid)).toBe(true);
    expect(touched.length).toBe(3);
    for (const entry of subtrees) expect(await r.writeTree(await r.readTree(entry.oid))).toBe(entry.oid);
    expect(touched.length).toBe(4);
    expect(new Set(touched.slice(2)).size).toBe(1);
    expect(touched[2]).not.toBe(touched[0]);
    expect(nodeFs.existsSync(touched[3]!)).toBe(true);
    expect(git(repo.dir, ['fsck', '--strict']).status).toBe(0);
  });
});
