import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isForgeError } from '../../../src/errors';
import { diffTrees, encodeTree, listTreeFiles, parseTree, type TreeEntry, type TreeFiles } from '../../../src/git';
import { applyTreeChanges } from '../../../src/git/tree-files-delta';
import { frameObject } from '../../../src/git/object-codec';
import { nodePlatform } from '../../../src/git/node/platform';
import { comparePaths } from '../../../src/vfs/paths';
import { fileEntries } from '../../../src/vfs/file-entries';
import { BACKENDS } from '../../helpers/engine-repos';
import { gitLsTree } from '../../helpers/repos';

const FILES = {
  'README.md': 'hi\n',
  'a.c': 'c\n',
  'a/b.c': 'b\n',
  'a-b.txt': 'ab\n',
  'a0.txt': '0\n',
  'deep/x/y/z/w/v.txt': 'v\n',
  'bin/run.sh': { content: '#!/bin/sh\n', mode: '100755' as const },
  'link': { content: 'README.md', mode: '120000' as const },
  'docs/naïve café.md': 'u\n',
  'docs/🚀.md': 'r\n',
  'empty': '',
};

/** Trees held in memory by oid, written as git would (encodeTree + sha1 of the framed object). */
class MemoryTrees {
  readonly objects = new Map<string, Uint8Array>();

  add(content: Uint8Array): string {
    const oid = createHash('sha1').update(frameObject('tree', content)).digest('hex');
    this.objects.set(oid, content);
    return oid;
  }

  write(entries: TreeEntry[]): string {
    return this.add(encodeTree(entries).content);
  }

  /** A tree of these files (path -> mode), blobs named by a hash of the path. */
  build(files: ReadonlyMap<string, TreeEntry['mode']>, oidOf: (path: string) => string = blobOid): string {
    const dirs = new Map<string, Map<string, TreeEntry['mode'] | 'tree'>>([['', new Map()]]);
    for (const [path, mode] of files) {
      const parts = path.split('/');
      for (let i = 0; i < parts.length; i++) {
        const dir = parts.slice(0, i).join('/');
        if (!dirs.has(dir)) dirs.set(dir, new Map());
        dirs.get(dir)!.set(parts[i]!, i === parts.length - 1 ? mode : 'tree');
      }
    }
    const writeDir = (dir: string): string =>
      this.write(
        [...dirs.get(dir)!].map(([name, mode]) => {
          const path = dir ? `${dir}/${name}` : name;
          return mode === 'tree' ? { mode: '040000' as const, name, oid: writeDir(path) } : { mode, name, oid: oidOf(path) };
        }),
      );
    return writeDir('');
  }

  reader = (oid: string): Uint8Array => {
    const tree = this.objects.get(oid);
    if (!tree) throw new Error(`no tree ${oid}`);
    return tree;
  };
}

function blobOid(path: string): string {
  return createHash('sha1').update(path).digest('hex');
}

/** The files below a tree by parsing every tree into entries (the reference). */
function walkParsed(trees: MemoryTrees, oid: string, dir = ''): Array<{ path: string; mode: string; oid: string }> {
  return parseTree(trees.reader(oid)).flatMap((e) => {
    const path = dir ? `${dir}/${e.name}` : e.name;
    return e.mode === '040000' ? walkParsed(trees, e.oid, path) : [{ path, mode: e.mode, oid: e.oid }];
  });
}

function listed(files: TreeFiles) {
  return fileEntries(files).map((e) => ({ path: e.path, mode: e.mode, oid: e.oid }));
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return isForgeError(error) ? error.code : `non-forge: ${String(error)}`;
  }
  return undefined;
}

describe.each(BACKENDS)('listTreeFiles on $name', (backend) => {
  it('lists every file below a tree as git ls-tree -r does (modes, oids, paths, order), and below a subtree with its prefix', async () => {
    const repo = await backend.make({ files: FILES });
    const r = await repo.open();
    const root = (await r.readCommit(repo.head)).tree;
    const all = listed(await r.listFiles(root));
    expect(all.map((e) => `${e.mode} ${e.oid} ${e.path}`)).toEqual(gitLsTree(repo.diskGitdir(), 'main').map((e) => `${e.mode} ${e.oid} ${e.path}`));
    const deep = (await r.readTree(root)).find((e) => e.name === 'deep')!;
    expect(listed(await r.listFiles(deep.oid, 'deep'))).toEqual(all.filter((e) => e.path.startsWith('deep/')));
  });
});

describe('listTreeFiles', () => {
  it('an empty tree has no files; a tree of empty trees neither', async () => {
    const trees = new MemoryTrees();
    const empty = trees.write([]);
    expect((await listTreeFiles(empty, trees.reader)).count).toBe(0);
    const nested = trees.write([{ mode: '040000', name: 'a', oid: trees.write([{ mode: '040000', name: 'b', oid: empty }]) }]);
    expect(await listTreeFiles(nested, trees.reader)).toMatchObject({ count: 0, paths: new Uint8Array(0) });
  });

  it('reads through an asynchronous reader (a browser fs) the same as through a synchronous one', async () => {
    const trees = new MemoryTrees();
    const root = trees.build(new Map(Object.keys(FILES).map((p) => [p, '100644'])));
    const sync = await listTreeFiles(root, trees.reader);
    const async = await listTreeFiles(root, async (oid) => trees.reader(oid));
    expect(async).toEqual(sync);
    expect(await listTreeFiles(root, trees.reader, { prefix: 'top/dir', hex: nodePlatform.text!.hex, isUtf8: nodePlatform.text!.isUtf8 })).toEqual({
      ...sync,
      paths: new TextEncoder().encode(new TextDecoder().decode(sync.paths).split('\0').map((p) => `top/dir/${p}`).join('\0')),
    });
  });

  it('a truncated entry or an unknown mode is OBJECT_CORRUPT naming the tree; a name that is not UTF-8 is TREE_ENTRY_INVALID, as parseTree says', async () => {
    const trees = new MemoryTrees();
    const good = encodeTree([{ mode: '100644', name: 'a', oid: 'a'.repeat(40) }]).content;
    const cases: Array<[Uint8Array, string]> = [
      [good.subarray(0, good.length - 1), 'OBJECT_CORRUPT'],
      [good.subarray(0, 6), 'OBJECT_CORRUPT'],
      [Buffer.concat([Buffer.from('100664 a\0'), Buffer.alloc(20)]), 'OBJECT_CORRUPT'],
      [Buffer.concat([Buffer.from('1006440 a\0'), Buffer.alloc(20)]), 'OBJECT_CORRUPT'],
      [Buffer.concat([Buffer.from('100644 \xff\0', 'latin1'), Buffer.alloc(20)]), 'TREE_ENTRY_INVALID'],
    ];
    for (const [content, code] of cases) {
      const oid = trees.add(content);
      const parent = trees.write([{ mode: '100644', name: 'a-file', oid: 'c'.repeat(40) }, { mode: '040000', name: 'dir', oid }]);
      for (const options of [{}, { isUtf8: nodePlatform.text!.isUtf8 }]) {
        const error = await listTreeFiles(parent, trees.reader, options).then(() => null, (e: unknown) => e);
        expect(isForgeError(error) && [error.code, error.message.includes(oid)]).toEqual([code, true]);
      }
      expect(await codeOf(Promise.resolve().then(() => parseTree(content, oid)))).toBe(code);
    }
  });

  it('accepts the modes parseTree accepts, "040000" for a tree included', async () => {
    const trees = new MemoryTrees();
    const sub = trees.write([{ mode: '100644', name: 'f', oid: 'b'.repeat(40) }]);
    const raw = (mode: string, name: string, oid: string) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(oid, 'hex')]);
    const root = trees.add(Buffer.concat([raw('040000', 'd', sub), raw('100755', 'e', 'c'.repeat(40)), raw('120000', 'l', 'd'.repeat(40)), raw('160000', 'm', 'e'.repeat(40))]));
    expect(listed(await listTreeFiles(root, trees.reader))).toEqual([
      { path: 'd/f', mode: '100644', oid: 'b'.repeat(40) },
      { path: 'e', mode: '100755', oid: 'c'.repeat(40) },
      { path: 'l', mode: '120000', oid: 'd'.repeat(40) },
      { path: 'm', mode: '160000', oid: 'e'.repeat(40) },
    ]);
  });

  it('property: any set of files lists as parsing every tree does, in git path order', async () => {
    const segment = fc
      .array(fc.constantFrom('a', 'b', '-', '.', '0', 'z', '\u00e9', '\uFB01', '\u{1F680}'), { minLength: 1, maxLength: 3 })
      .map((chars) => chars.join(''))
      .filter((name) => name !== '.' && name !== '..' && !name.startsWith('.git'));
    const file = fc.record({ path: fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/')), mode: fc.constantFrom('100644', '100755', '120000', '160000') as fc.Arbitrary<TreeEntry['mode']> });
    await fc.assert(
      fc.asyncProperty(fc.array(file, { maxLength: 40 }), fc.boolean(), fc.constantFrom('', 'p', 'top/d\u00e9'), async (picked, asynchronous, prefix) => {
        // A path cannot be both a file and a directory: keep the first of any clash.
        const files = new Map<string, TreeEntry['mode']>();
        for (const { path, mode } of picked) {
          const clashes = [...files.keys()].some((p) => p === path || p.startsWith(`${path}/`) || path.startsWith(`${p}/`));
          if (!clashes) files.set(path, mode);
        }
        const trees = new MemoryTrees();
        const root = trees.build(files);
        const read = asynchronous ? async (oid: string) => trees.reader(oid) : trees.reader;
        const got = listed(await listTreeFiles(root, read, { prefix }));
        const under = (path: string) => (prefix ? `${prefix}/${path}` : path);
        expect(got).toEqual(walkParsed(trees, root).map((e) => ({ ...e, path: under(e.path) })));
        expect(got.map((e) => e.path)).toEqual([...files.keys()].sort(comparePaths).map(under));
        expect(got.map((e) => e.oid)).toEqual([...files.keys()].sort(comparePaths).map(blobOid));
      }),
      { numRuns: 150 },
    );
  });
});

describe('applyTreeChanges: a listing derived from the parent listing and the tree diff', () => {
  const segment = fc.constantFrom('a', 'b', 'a.b', 'a-', 'a0', 'b/c'.split('/')[0]!, '\u00e9', 'z');
  const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
  const mode = fc.constantFrom('100644', '100755', '120000', '160000') as fc.Arbitrary<TreeEntry['mode']>;
  /** Keeps the first of any file/directory clash, as a tree must. */
  const consistent = (entries: Array<[string, TreeEntry['mode'], number]>) => {
    const files = new Map<string, { mode: TreeEntry['mode']; version: number }>();
    for (const [p, m, v] of entries) {
      if (![...files.keys()].some((q) => q === p || q.startsWith(`${p}/`) || p.startsWith(`${q}/`))) files.set(p, { mode: m, version: v });
    }
    return files;
  };

  it('property: equals listing the child tree, across adds, deletes, edits, mode changes and files becoming directories', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(path, mode, fc.nat(2)), { maxLength: 30 }), fc.array(fc.tuple(path, mode, fc.nat(2)), { maxLength: 30 }), fc.nat(), async (before, after, keepSeed) => {
        const parentFiles = consistent(before);
        // The child keeps some of the parent's files as they are, and takes the rest from `after`.
        const kept = [...parentFiles].filter((_, i) => (keepSeed >> i % 30) & 1).map(([p, f]) => [p, f.mode, f.version] as [string, TreeEntry['mode'], number]);
        const childFiles = consistent([...kept, ...after]);
        const trees = new MemoryTrees();
        const oid = (files: Map<string, { mode: TreeEntry['mode']; version: number }>) => (p: string) => blobOid(`${p}:${files.get(p)!.version}`);
        const parent = trees.build(new Map([...parentFiles].map(([p, f]) => [p, f.mode])), oid(parentFiles));
        const child = trees.build(new Map([...childFiles].map(([p, f]) => [p, f.mode])), oid(childFiles));
        const reader = { readTree: async (o: string) => parseTree(trees.reader(o)) };
        const derived = applyTreeChanges(await listTreeFiles(parent, trees.reader), await diffTrees(reader, parent, child), (hex) => Buffer.from(hex, 'hex'));
        expect(derived).not.toBeNull();
        expect(listed(derived!)).toEqual(listed(await listTreeFiles(child, trees.reader)));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses changes that do not fit the parent listing', async () => {
    const trees = new MemoryTrees();
    const parent = await listTreeFiles(trees.build(new Map([['a/b', '100644' as const], ['c', '100644' as const]])), trees.reader);
    const hex = (h: string) => Buffer.from(h, 'hex');
    const oid = 'f'.repeat(40);
    expect(applyTreeChanges(parent, [{ path: 'x', kind: 'deleted', oldOid: oid, oldMode: '100644' }], hex)).toBeNull();
    expect(applyTreeChanges(parent, [{ path: 'c', kind: 'added', newOid: oid, newMode: '100644' }], hex)).toBeNull();
    expect(applyTreeChanges(parent, [{ path: 'a/z', kind: 'modified', oldOid: oid, oldMode: '100644', newOid: oid, newMode: '100644' }], hex)).toBeNull();
    expect(applyTreeChanges(parent, [{ path: 'c', kind: 'modified', oldOid: oid, oldMode: '100644', newOid: oid, newMode: '040000' }], hex)).toBeNull();
  });
});
