/**
 * Repository.open takes node's fs, memfs and lightning-fs as their own type declarations
 * describe them, with no cast (`npm run typecheck` compiles this file; a GitFs type that one of
 * them does not satisfy fails it). node's fs and memfs are also opened for real; lightning-fs
 * needs IndexedDB, so it is checked by type only.
 */
import * as nodeFs from 'node:fs';
import LightningFS from '@isomorphic-git/lightning-fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { Repository, type GitFsInput, type OpenRepositoryOptions } from '../../../src/git';
import { nodePlatform } from '../../../src/git/node/platform';
import { makeMemRepo } from '../../helpers/memfs-repo';
import { makeRepo } from '../../helpers/repos';

describe('Repository.open({ fs }) without a cast', () => {
  it("opens a repository through node's fs as `import * as fs from 'node:fs'` gives it", async () => {
    const handle = makeRepo({ files: { 'a.txt': 'a\n' } });
    const repo = await Repository.open({ fs: nodeFs, dir: handle.dir, platform: nodePlatform });
    expect(await repo.resolveCommit('HEAD')).toBe(handle.head);
  });

  it('opens a repository through a memfs volume', async () => {
    const mem = await makeMemRepo({ files: { 'a.txt': 'a\n' } });
    const repo = await Repository.open({ fs: mem.fs, dir: mem.dir });
    expect(await repo.resolveCommit('HEAD')).toBe(mem.head);
  });

  it("accepts lightning-fs's FS by type", () => {
    expectTypeOf<LightningFS>().toExtend<GitFsInput>();
    expectTypeOf<LightningFS>().toExtend<OpenRepositoryOptions['fs']>();
    expectTypeOf<typeof nodeFs>().toExtend<OpenRepositoryOptions['fs']>();
  });
});
