/**
 * The fs capability layer (src/git/fs-capabilities.ts) and the ref lock on the three supported
 * file systems: node's fs, memfs, and @isomorphic-git/lightning-fs (over fake-indexeddb here;
 * the same-bytes test runs it over Chromium's real IndexedDB). lightning-fs ignores both
 * `mkdir {recursive}` and `writeFile {flag: 'wx'}`, which is what this layer is for.
 */
import 'fake-indexeddb/auto';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import LightningFS from '@isomorphic-git/lightning-fs';
import { createFsFromVolume, Volume } from 'memfs';
import { describe, expect, it, vi } from 'vitest';
import { Repository, createExclusive, mkdirp, type GitFs } from '../../src/browser';
import { ForgeError } from '../../src/errors';
import { git } from '../helpers/git-cli';
import { makeTempDir } from '../helpers/temp';
import { readDir, writeDir } from './repo-files';

interface FsUnderTest {
  name: string;
  /** A fresh, empty fs and a root directory inside it that exists. */
  make(): Promise<{ fs: GitFs; root: string }>;
}

// lightning-fs reads navigator.locks to pick its mutex; Node 20 has no navigator. Without locks
// it uses its IndexedDB mutex, and createExclusive its in-process queue (Chromium: Web Locks).
if (typeof (globalThis as { navigator?: unknown }).navigator === 'undefined') vi.stubGlobal('navigator', {});

let dbCounter = 0;
const FILE_SYSTEMS: FsUnderTest[] = [
  { name: 'node fs', make: async () => ({ fs: nodeFs as unknown as GitFs, root: makeTempDir('fs-cap') }) },
  {
    name: 'memfs',
    make: async () => {
      const fs = createFsFromVolume(new Volume());
      fs.mkdirSync('/root');
      return { fs: fs as unknown as GitFs, root: '/root' };
    },
  },
  {
    name: 'lightning-fs',
    make: async () => {
      const fs = new LightningFS(`fs-cap-${process.pid}-${dbCounter++}`, { wipe: true }) as unknown as GitFs;
      await fs.promises.mkdir('/root');
      return { fs, root: '/root' };
    },
  },
];

const text = new TextDecoder();
const codeOf = (error: unknown) => (error as { code?: string }).code;

describe.each(FILE_SYSTEMS)('fs capabilities on $name', ({ make }) => {
  it('mkdirp creates missing parents, accepts an existing directory, refuses a file in the way', async () => {
    const { fs, root } = await make();
    await mkdirp(fs, `${root}/a/b/c`);
    expect((await fs.promises.stat(`${root}/a/b/c`)).isDirectory()).toBe(true);
    await mkdirp(fs, `${root}/a/b/c`);
    await mkdirp(fs, `${root}/a`);
    await fs.promises.writeFile(`${root}/a/file`, 'x');
    await expect(mkdirp(fs, `${root}/a/file`)).rejects.toSatisfy((e) => codeOf(e) === 'EEXIST');
    await expect(mkdirp(fs, `${root}/a/file/below`)).rejects.toSatisfy((e) => codeOf(e) === 'ENOTDIR');
    await expect(mkdirp(fs, `${root}/a/file/below/deeper`)).rejects.toSatisfy((e) => codeOf(e) === 'ENOTDIR');
  });

  it('createExclusive creates a missing file and refuses an existing one with EEXIST, leaving it untouched', async () => {
    const { fs, root } = await make();
    await createExclusive(fs, `${root}/x.lock`, 'first\n');
    await expect(createExclusive(fs, `${root}/x.lock`, 'second\n')).rejects.toSatisfy((e) => codeOf(e) === 'EEXIST');
    expect(text.decode(await fs.promises.readFile(`${root}/x.lock`))).toBe('first\n');
  });

  it('of many concurrent createExclusive calls on one path, exactly one wins', async () => {
    const { fs, root } = await make();
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => createExclusive(fs, `${root}/race.lock`, `writer ${i}\n`)));
    const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(codeOf(r.reason)).toBe('EEXIST');
    expect(text.decode(await fs.promises.readFile(`${root}/race.lock`))).toBe(`writer ${winners[0]}\n`);
  });

  it('a stale <ref>.lock makes a ref update REF_LOCKED; the ref and the lock stay as they were', async () => {
    const { fs, root } = await make();
    // A repository made by git, copied into the fs under test.
    const made = join(makeTempDir('fs-cap-repo'), 'repo.git');
    git(join(made, '..'), ['init', '-q', '--bare', '-b', 'main', made]);
    const head = git(made, ['commit-tree', '4b825dc642cb6eb9a060e54bf8d69288fbee4904', '-m', 'empty']).stdout.trim();
    git(made, ['update-ref', 'refs/heads/main', head]);
    const gitdir = `${root}/repo.git`;
    for (const [rel, bytes] of Object.entries(readDir(made))) {
      await mkdirp(fs, `${gitdir}/${rel}`.slice(0, `${gitdir}/${rel}`.lastIndexOf('/')));
      await fs.promises.writeFile(`${gitdir}/${rel}`, bytes);
    }
    await mkdirp(fs, `${gitdir}/refs/heads`);
    await fs.promises.writeFile(`${gitdir}/refs/heads/main.lock`, 'stale\n');
    const repo = await Repository.open({ fs, gitdir });
    const committer = { name: 'T', email: 't@example.invalid', timestamp: 1_700_000_000, timezoneOffset: 0 };
    const commit = await repo.writeCommit({ tree: '4b825dc642cb6eb9a060e54bf8d69288fbee4904', parents: [head], author: committer, committer, message: 'next\n' });
    const update = repo.refs.update({ ref: 'refs/heads/main', newOid: commit, expectedOid: head, committer, reflogMessage: 'test' });
    await expect(update).rejects.toSatisfy((e) => e instanceof ForgeError && e.code === 'REF_LOCKED');
    expect(await repo.refs.resolve('refs/heads/main')).toBe(head);
    expect(text.decode(await fs.promises.readFile(`${gitdir}/refs/heads/main.lock`))).toBe('stale\n');
    // Without the stale lock the same update goes through, and a new ref's directories are made.
    await fs.promises.unlink(`${gitdir}/refs/heads/main.lock`);
    await repo.refs.update({ ref: 'refs/heads/main', newOid: commit, expectedOid: head, committer, reflogMessage: 'test' });
    await repo.refs.update({ ref: 'refs/heads/forge/session/deep/x', newOid: commit, expectedOid: '0'.repeat(40), committer, reflogMessage: 'test' });
    expect(await repo.refs.resolve('refs/heads/main')).toBe(commit);
    expect(await repo.refs.resolve('refs/heads/forge/session/deep/x')).toBe(commit);
  });
});

describe('why the layer exists', () => {
  it('lightning-fs ignores the wx flag (it overwrites an existing file) and mkdir {recursive}', async () => {
    const fs = new LightningFS(`fs-cap-why-${process.pid}`, { wipe: true }) as unknown as GitFs;
    await fs.promises.writeFile('/x.lock', 'first\n');
    await fs.promises.writeFile('/x.lock', 'second\n', { flag: 'wx' });
    expect(text.decode(await fs.promises.readFile('/x.lock'))).toBe('second\n');
    await expect(fs.promises.mkdir('/a/b', { recursive: true })).rejects.toSatisfy((e) => codeOf(e) === 'ENOENT');
  });
});
