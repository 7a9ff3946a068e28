/**
 * The three ways the engine's tests open a repository, so one behaviour suite runs on all of
 * them with `describe.each(BACKENDS)`:
 *
 * - `memfs+node`: memfs with the Node platform (our positional pack reader, sync zlib/sha1);
 * - `memfs+portable`: memfs with the WebCrypto platform (the async reader a browser uses);
 * - `disk+node`: a real temporary repository built by the git CLI, with the Node platform.
 *
 * Every handle can be checked with `git fsck --strict`: a disk repo directly, a memfs repo by
 * copying its git directory byte for byte to a temporary directory first.
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { Repository, asGitFs, type GitFs, type GitPlatform } from '../../src/git';
import { portablePlatform } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { expectFsckClean } from './fsck';
import { makeMemRepo } from './memfs-repo';
import type { MakeRepoOptions } from './repo-files';
import { makeRepo } from './repos';
import { makeTempDir } from './temp';

export interface EngineRepo {
  backend: string;
  onDisk: boolean;
  fs: GitFs;
  /** The working tree (non-bare) or the repository (bare). */
  dir: string;
  gitdir: string;
  /** The commit the branch (main by default) points to. */
  head: string;
  platform: GitPlatform;
  /** A NEW Repository instance on every call (nothing cached between two calls). */
  open(): Promise<Repository>;
  /** A git directory on disk holding exactly this repo's objects and refs (memfs: a fresh copy). */
  diskGitdir(): string;
  /** `git fsck --strict` on the repository (a copy of it for memfs). */
  fsck(): void;
}

export interface Backend {
  name: string;
  onDisk: boolean;
  make(opts: MakeRepoOptions): Promise<EngineRepo>;
}

function memfsBackend(name: string, platform: GitPlatform): Backend {
  return {
    name,
    onDisk: false,
    async make(opts) {
      const mem = await makeMemRepo(opts);
      const fs = asGitFs(mem.fs);
      const handle: EngineRepo = {
        backend: name,
        onDisk: false,
        fs,
        dir: mem.dir,
        gitdir: mem.gitdir,
        head: mem.head,
        platform,
        open: () => Repository.open({ fs, dir: mem.dir, platform }),
        diskGitdir: () => exportGitdir(fs, mem.gitdir),
        fsck: () => expectFsckClean(exportGitdir(fs, mem.gitdir)),
      };
      return handle;
    },
  };
}

export const diskBackend: Backend = {
  name: 'disk+node',
  onDisk: true,
  async make(opts) {
    const repo = makeRepo(opts);
    const fs: GitFs = nodeFs;
    return {
      backend: 'disk+node',
      onDisk: true,
      fs,
      dir: repo.dir,
      gitdir: repo.gitdir,
      head: repo.head,
      platform: nodePlatform,
      open: () => Repository.open({ fs, dir: repo.dir, platform: nodePlatform }),
      diskGitdir: () => repo.gitdir,
      fsck: () => expectFsckClean(repo.gitdir),
    };
  },
};

export const MEMFS_BACKENDS: Backend[] = [memfsBackend('memfs+node', nodePlatform), memfsBackend('memfs+portable', portablePlatform)];
export const BACKENDS: Backend[] = [...MEMFS_BACKENDS, diskBackend];

/** Copies a git directory out of a memfs volume into a fresh temp dir, bytes and all. */
export function exportGitdir(fs: GitFs, gitdir: string): string {
  const target = join(makeTempDir('memfs-export'), 'repo.git');
  const mem = fs as unknown as typeof nodeFs;
  const copy = (from: string, to: string) => {
    nodeFs.mkdirSync(to, { recursive: true });
    for (const name of mem.readdirSync(from) as string[]) {
      const src = `${from}/${name}`;
      const dst = join(to, name);
      const st = mem.lstatSync(src);
      if (st.isDirectory()) copy(src, dst);
      else if (st.isSymbolicLink()) nodeFs.symlinkSync(mem.readlinkSync(src) as string, dst);
      else nodeFs.writeFileSync(dst, mem.readFileSync(src) as Buffer);
    }
  };
  copy(gitdir, target);
  // A non-bare gitdir copied on its own is a bare repository.
  nodeFs.writeFileSync(join(target, 'config'), nodeFs.readFileSync(join(target, 'config'), 'utf8').replace(/bare = false/, 'bare = true'));
  return target;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const bytes = (text: string): Uint8Array => encoder.encode(text);
export const text = (data: Uint8Array): string => decoder.decode(data);
