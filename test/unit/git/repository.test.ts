import { describe, expect, it } from 'vitest';
import { isForgeError, type ErrorCode } from '../../../src/errors';
import { buildTree, diffTrees, EMPTY_TREE_OID, Repository, ZERO_OID, type Signature } from '../../../src/git';
import { bytes, MEMFS_BACKENDS, text, type EngineRepo } from '../../helpers/engine-repos';

async function codeOf(promise: Promise<unknown>): Promise<ErrorCode | 'success' | 'non-forge'> {
  return promise.then(
    () => 'success' as const,
    (e: unknown) => (isForgeError(e) ? e.code : 'non-forge'),
  );
}

const sig: Signature = { name: 'T', email: 't@example.invalid', timestamp: 1_700_000_000, timezoneOffset: 0 };

async function setConfig(r: EngineRepo, extra: string): Promise<void> {
  const path = `${r.gitdir}/config`;
  const before = await r.fs.promises.readFile(path, 'utf8');
  await r.fs.promises.writeFile(path, before + extra);
}

describe.each(MEMFS_BACKENDS)('Repository on $name', (backend) => {
  describe('writeBlob', () => {
    it('writes the blob whether or not its bytes are kept at hand, and a fresh Repository reads both back', async () => {
      const r = await backend.make({ files: { f: '0' } });
      const repo = await r.open();
      const kept = await repo.writeBlob(bytes('kept\n'));
      const notKept = await repo.writeBlob(bytes('written, not kept\n'), { keep: false });
      expect(text(await repo.readBlob(notKept))).toBe('written, not kept\n');
      const fresh = await r.open();
      expect(text(await fresh.readBlob(kept))).toBe('kept\n');
      expect(text(await fresh.readBlob(notKept))).toBe('written, not kept\n');
    });

    it('keeps no small view into a larger buffer (an 8 KiB allocation pool) in the blob cache: it would pin all of it', async () => {
      const r = await backend.make({ files: { 'small.txt': 'a small file\n' } });
      const repo = await r.open();
      const pool = new Uint8Array(8192).fill(0x61);
      const view = pool.subarray(100, 1600);
      const oid = await repo.writeBlob(view);
      const cached = await repo.readBlob(oid);
      expect([cached.buffer.byteLength, text(cached)]).toEqual([1500, 'a'.repeat(1500)]);
      // The caller's buffer stays the caller's: changing it later does not change the cached blob.
      pool.fill(0x62);
      expect(text(await repo.readBlob(oid))).toBe('a'.repeat(1500));
      const read = await (await r.open()).readBlob(oid);
      expect(read.buffer.byteLength - read.byteLength).toBeLessThanOrEqual(1024);
      expect(text(read)).toBe('a'.repeat(1500));
    });
  });

  describe('open', () => {
    it('discovers the git directory from a subdirectory of the working tree', async () => {
      const r = await backend.make({ files: { 'src/deep/x.ts': 'x' } });
      const repo = await Repository.open({ fs: r.fs, dir: `${r.dir}/src/deep`, platform: r.platform });
      expect(repo.gitdir).toBe(r.gitdir);
      expect(repo.workdir).toBe(r.dir);
      expect(repo.bare).toBe(false);
    });

    it('opens a bare repository by its directory', async () => {
      const r = await backend.make({ files: { 'x': 'x' }, bare: true });
      const repo = await Repository.open({ fs: r.fs, dir: r.dir, platform: r.platform });
      expect(repo.bare).toBe(true);
      expect(await repo.resolveCommit('HEAD')).toBe(r.head);
    });

    it('reports NOT_A_REPOSITORY outside any repository', async () => {
      const r = await backend.make({ files: {} });
      await r.fs.promises.mkdir('/elsewhere/deeper', { recursive: true });
      expect(await codeOf(Repository.open({ fs: r.fs, dir: '/elsewhere/deeper', platform: r.platform }))).toBe('NOT_A_REPOSITORY');
    });

    it.each([
      ['objectFormat = sha256', '[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha256\n'],
      ['refStorage = reftable', '[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = reftable\n'],
      ['an unknown extension in format 1', '[core]\n\trepositoryformatversion = 1\n[extensions]\n\tfancyNewThing = true\n'],
      ['repositoryformatversion = 2', '[core]\n\trepositoryformatversion = 2\n'],
    ])('refuses %s with UNSUPPORTED_REPOSITORY_FORMAT', async (_label, extra) => {
      const r = await backend.make({ files: {} });
      await setConfig(r, extra);
      expect(await codeOf(r.open())).toBe('UNSUPPORTED_REPOSITORY_FORMAT');
    });

    it('accepts format 1 with harmless extensions (worktreeConfig, objectFormat = sha1)', async () => {
      const r = await backend.make({ files: {} });
      await setConfig(r, '[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n\tobjectFormat = sha1\n');
      expect(await codeOf(r.open())).toBe('success');
    });
  });

  describe('identity', () => {
    it('takes explicit values first, then user.name/user.email from the repo config, then Forge <forge@localhost>', async () => {
      const r = await backend.make({ files: {} });
      const now = new Date('2024-05-01T12:00:00Z');
      const plain = await (await r.open()).identity({}, now);
      expect(plain).toMatchObject({ name: 'Forge', email: 'forge@localhost', timestamp: Math.floor(now.getTime() / 1000) });
      await setConfig(r, '[user]\n\tname = Config Person\n\temail = config@example.invalid\n');
      const repo = await r.open();
      expect(await repo.identity({}, now)).toMatchObject({ name: 'Config Person', email: 'config@example.invalid' });
      expect(await repo.identity({ name: 'Explicit', timestamp: 5, timezoneOffset: -300 }, now)).toEqual({
        name: 'Explicit',
        email: 'config@example.invalid',
        timestamp: 5,
        timezoneOffset: -300,
      });
    });
  });

  describe('resolveCommit', () => {
    /** main: c0 <- c1 <- c2 <- merge(c2, side); side: c0 <- s1; tags: light -> c1, annotated -> tag object -> c2. */
    async function history() {
      const r = await backend.make({ files: { 'f': '0' } });
      const repo = await r.open();
      const c0 = r.head;
      const tree0 = (await repo.readCommit(c0)).tree;
      const commit = async (parents: string[], content: string) => {
        const tree = await buildTree(repo, tree0, [['f', { oid: await repo.writeBlob(bytes(content)), mode: '100644' }]]);
        return repo.writeCommit({ tree, parents, author: sig, committer: sig, message: `${content}\n` });
      };
      const c1 = await commit([c0], '1');
      const c2 = await commit([c1], '2');
      const s1 = await commit([c0], 's1');
      const merge = await commit([c2, s1], 'merge');
      const update = (ref: string, oid: string) => repo.refs.update({ ref, newOid: oid, expectedOid: ref === 'refs/heads/main' ? c0 : ZERO_OID, committer: sig, reflogMessage: 'test' });
      await update('refs/heads/main', merge);
      await update('refs/heads/side', s1);
      await update('refs/tags/light', c1);
      const tagObject = await repo.objects.write('tag', bytes(`object ${c2}\ntype commit\ntag annotated\ntagger T <t@example.invalid> 1700000000 +0000\n\nannotated\n`));
      await update('refs/tags/annotated', tagObject);
      return { repo: await r.open(), c0, c1, c2, s1, merge, tagObject, tree0 };
    }

    it('resolves HEAD, branches, tags (peeling annotated tags), full and abbreviated oids, ~N and ^N', async () => {
      const h = await history();
      const cases: Array<[string, string]> = [
        ['HEAD', h.merge],
        ['main', h.merge],
        ['refs/heads/main', h.merge],
        ['heads/side', h.s1],
        ['side', h.s1],
        ['light', h.c1],
        ['annotated', h.c2],
        ['tags/annotated', h.c2],
        [h.tagObject, h.c2],
        [h.c1, h.c1],
        [h.c1.slice(0, 10), h.c1],
        ['HEAD~1', h.c2],
        ['HEAD^', h.c2],
        ['HEAD^1', h.c2],
        ['HEAD^2', h.s1],
        ['HEAD^2~1', h.c0],
        ['HEAD~3', h.c0],
        ['HEAD~~^', h.c0],
        ['main^0', h.merge],
        ['annotated~2', h.c0],
      ];
      for (const [revision, expected] of cases) expect([revision, await h.repo.resolveCommit(revision)]).toEqual([revision, expected]);
    });

    it.each([
      ['HEAD~4', 'REF_NOT_FOUND'],
      ['HEAD^3', 'REF_NOT_FOUND'],
      ['nope', 'REF_NOT_FOUND'],
      ['', 'REF_NOT_FOUND'],
      ['0000000000000000000000000000000000000000', 'REF_NOT_FOUND'],
    ])('refuses %j with %s', async (revision, code) => {
      const h = await history();
      expect(await codeOf(h.repo.resolveCommit(revision))).toBe(code);
    });

    it('refuses a revision naming a tree with OBJECT_TYPE_MISMATCH', async () => {
      const h = await history();
      expect(await codeOf(h.repo.resolveCommit(h.tree0))).toBe('OBJECT_TYPE_MISMATCH');
    });
  });
});

describe('large blobs and their hashes (issue 19: a 50 MB file was inflated 9 times in one turn)', () => {
  it('keeps the last blob too large for the cache, and its size comes from the header', async () => {
    const r = await MEMFS_BACKENDS[0]!.make({ files: { f: '0' } });
    const big = new Uint8Array(17 * 1024 * 1024).fill(0x61);
    const oid = await (await r.open()).writeBlob(big, { keep: false });
    const repo = await r.open();
    let reads = 0;
    const readTyped = repo.objects.readTyped.bind(repo.objects);
    repo.objects.readTyped = (o, type) => (reads++, readTyped(o, type));
    expect(await repo.blobSize(oid)).toBe(big.length);
    expect(reads).toBe(0);
    const first = await repo.readBlob(oid);
    expect(await repo.readBlob(oid)).toBe(first);
    expect(reads).toBe(1);
    const small = await repo.writeBlob(bytes('small\n'));
    expect(await repo.readBlob(oid)).toBe(first); // a small blob does not push the large one out
    expect(text(await repo.readBlob(small))).toBe('small\n');
  });

  it('remembers the SHA-256 of bytes it handed out and of large buffers, and each is the real digest', async () => {
    const { createHash } = await import('node:crypto');
    const r = await MEMFS_BACKENDS[0]!.make({ files: { f: 'content\n' } });
    const repo = await r.open();
    const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
    let hashed = 0;
    // The platform object is shared by every repository of the process: restore it.
    const platform = repo.platform as { sha256Hex: (b: Uint8Array) => Promise<string> };
    const original = platform.sha256Hex;
    platform.sha256Hex = (b) => (hashed++, original.call(repo.platform, b));
    try {
      const large = new Uint8Array(1 << 20).fill(7);
      expect(await repo.sha256Hex(large)).toBe(sha(large));
      expect(await repo.sha256Hex(large)).toBe(sha(large));
      const small = bytes('tiny');
      expect(await repo.sha256Hex(small)).toBe(sha(small));
      expect(await repo.sha256Hex(small)).toBe(sha(small));
      expect(hashed).toBe(3); // the large buffer once, the small one (not handed out) twice
    } finally {
      platform.sha256Hex = original;
    }
  });

  it('hashes content given as runs as their concatenation, on both platforms, and remembers a large one\'s digest', async () => {
    const { createHash } = await import('node:crypto');
    const whole = new Uint8Array((1 << 20) + 3).map((_, i) => i % 251);
    const runs = [whole.subarray(0, 10), new Uint8Array(0), whole.subarray(10, 700_000), whole.subarray(700_000)];
    const expected = createHash('sha256').update(whole).digest('hex');
    for (const backend of MEMFS_BACKENDS) {
      const repo = await (await backend.make({ files: { f: 'x\n' } })).open();
      expect(await repo.sha256Hex([...runs])).toBe(expected);
      const oid = await repo.writeBlob(runs);
      expect(await repo.sha256Hex(runs)).toBe(expected);
      expect(await repo.blobSha256(oid)).toBe(expected);
      expect(Buffer.compare(await repo.readBlob(oid), whole)).toBe(0);
    }
  });
});

describe('buildTree / diffTrees (memfs)', () => {
  async function base() {
    const r = await MEMFS_BACKENDS[0]!.make({ files: { 'a/x': 'x', 'a/y': 'y', 'b/deep/z': 'z', 'c': 'c', 'exe': { content: '#!', mode: '100755' } } });
    const repo = await r.open();
    return { repo, tree: (await repo.readCommit(r.head)).tree };
  }
  const entryOid = async (repo: Repository, tree: string, name: string) => (await repo.readTree(tree)).find((e) => e.name === name)?.oid;

  it('rewrites only the directories along changed paths: untouched subtrees keep their oids', async () => {
    const { repo, tree } = await base();
    const blob = await repo.writeBlob(bytes('new'));
    const next = await buildTree(repo, tree, [['a/x', { oid: blob, mode: '100644' }]]);
    expect(await entryOid(repo, next, 'b')).toBe(await entryOid(repo, tree, 'b'));
    expect(await entryOid(repo, next, 'a')).not.toBe(await entryOid(repo, tree, 'a'));
    expect(await diffTrees(repo, tree, next)).toEqual([{ path: 'a/x', kind: 'modified', oldOid: expect.any(String), oldMode: '100644', newOid: blob, newMode: '100644' }]);
  });

  it('drops directories that end up empty and returns the empty tree when everything goes', async () => {
    const { repo, tree } = await base();
    const next = await buildTree(repo, tree, [['b/deep/z', null]]);
    expect((await repo.readTree(next)).map((e) => e.name)).toEqual(['a', 'c', 'exe']);
    const empty = await buildTree(repo, tree, [['a/x', null], ['a/y', null], ['b/deep/z', null], ['c', null], ['exe', null]]);
    expect(empty).toBe(EMPTY_TREE_OID);
  });

  it('replaces a file by a directory and a directory by a file when the old side is deleted', async () => {
    const { repo, tree } = await base();
    const blob = await repo.writeBlob(bytes('n'));
    const next = await buildTree(repo, tree, [
      ['c', null],
      ['c/inside', { oid: blob, mode: '100644' }],
      ['b/deep/z', null],
      ['b', { oid: blob, mode: '100755' }],
    ]);
    const diff = await diffTrees(repo, tree, next);
    expect(diff.map((d) => `${d.kind} ${d.path} ${d.newMode ?? ''}`)).toEqual(['added b 100755', 'deleted b/deep/z ', 'deleted c ', 'added c/inside 100644']);
  });

  it('refuses a file below a file and a file over a directory (PATH_NOT_DIRECTORY)', async () => {
    const { repo, tree } = await base();
    const blob = await repo.writeBlob(bytes('n'));
    expect(await codeOf(buildTree(repo, tree, [['c/inside', { oid: blob, mode: '100644' }]]))).toBe('PATH_NOT_DIRECTORY');
    expect(await codeOf(buildTree(repo, tree, [['a', { oid: blob, mode: '100644' }]]))).toBe('PATH_NOT_DIRECTORY');
  });

  it('readTree returns a tree just written in git order, the same as a fresh handle reads from the object', async () => {
    const r = await MEMFS_BACKENDS[0]!.make({ files: {} });
    const repo = await r.open();
    const blob = await repo.writeBlob(bytes('x'));
    const tree = await repo.writeTree([
      { mode: '100644', name: 'z', oid: blob },
      { mode: '040000', name: 'a', oid: EMPTY_TREE_OID },
      { mode: '100644', name: 'a.c', oid: blob },
    ]);
    const fromCache = (await repo.readTree(tree)).map((e) => e.name);
    expect(fromCache).toEqual(['a.c', 'a', 'z']);
    expect((await (await r.open()).readTree(tree)).map((e) => e.name)).toEqual(fromCache);
  });

  it('keeps the executable bit and symlink mode', async () => {
    const { repo, tree } = await base();
    const blob = await repo.writeBlob(bytes('c'));
    const next = await buildTree(repo, tree, [['link', { oid: blob, mode: '120000' }]]);
    const entries = await repo.readTree(next);
    expect(entries.find((e) => e.name === 'link')?.mode).toBe('120000');
    expect(entries.find((e) => e.name === 'exe')?.mode).toBe('100755');
    expect(text(await repo.readBlob(entries.find((e) => e.name === 'link')!.oid))).toBe('c');
  });
});
