/**
 * An in-memory repository on a fresh memfs volume, written with isomorphic-git, for the tests
 * that run the engine over memfs. Same `files` shape, identity and date as makeRepo, so the same
 * input gives the same commit oid on memfs and on disk.
 *
 * Trees are serialized here, by git's rule (entries compared as UTF-8 bytes, a directory as
 * "name/"), rather than with isomorphic-git's writeTree: the engine builds its trees through
 * isomorphic-git, so the helper that sets up its tests must not share that code path.
 */
import git from 'isomorphic-git';
import { createFsFromVolume, Volume, type IFs } from 'memfs';
import { finalTree } from '../../fixtures-repos/fast-import.mjs';
import { filesToDefinition, type MakeRepoOptions } from './repo-files';
import { TEST_AUTHOR, TEST_TIMESTAMP } from './test-identity';

export interface MemRepo {
  /** A memfs fs (callback API plus `.promises`), accepted by isomorphic-git as `fs`. */
  fs: IFs;
  /** The volume behind fs, e.g. for vol.toJSON() when debugging. */
  vol: Volume;
  /** '/repo', or '/repo.git' when bare. */
  dir: string;
  /** '/repo/.git', or '/repo.git' when bare. */
  gitdir: string;
  head: string;
}

interface DirNode {
  files: Map<string, { mode: string; oid: string }>;
  dirs: Map<string, DirNode>;
}

/** Builds the repo with one commit on `branch` (default main); checks it out unless bare. */
export async function makeMemRepo(opts: MakeRepoOptions): Promise<MemRepo> {
  const vol = new Volume();
  const fs = createFsFromVolume(vol);
  const bare = opts.bare ?? false;
  const branch = opts.branch ?? 'main';
  const dir = bare ? '/repo.git' : '/repo';
  const gitdir = bare ? dir : '/repo/.git';
  const definition = filesToDefinition(opts);

  await git.init({ fs, dir, gitdir, bare, defaultBranch: branch });
  const root: DirNode = { files: new Map(), dirs: new Map() };
  for (const entry of finalTree(definition)) {
    const parts = entry.path.split('/');
    const name = parts.pop() as string;
    let node = root;
    for (const part of parts) {
      if (!node.dirs.has(part)) node.dirs.set(part, { files: new Map(), dirs: new Map() });
      node = node.dirs.get(part) as DirNode;
    }
    node.files.set(name, { mode: entry.mode, oid: await git.writeBlob({ fs, gitdir, blob: entry.content }) });
  }

  const message = definition.commits[0].message;
  const signature = { ...TEST_AUTHOR, timestamp: TEST_TIMESTAMP, timezoneOffset: 0 };
  const head = await git.writeCommit({
    fs,
    gitdir,
    commit: {
      message: message.endsWith('\n') ? message : `${message}\n`, // as fast-import and git commit store it
      tree: await writeTreeNode(fs, gitdir, root),
      parent: [],
      author: signature,
      committer: signature,
    },
  });
  await git.writeRef({ fs, gitdir, ref: `refs/heads/${branch}`, value: head, force: true });
  if (!bare) await git.checkout({ fs, dir, gitdir, ref: branch, force: true });
  return { fs, vol, dir, gitdir, head };
}

/** Writes the subtrees, then this tree, and returns its oid. */
async function writeTreeNode(fs: IFs, gitdir: string, node: DirNode): Promise<string> {
  const entries: Array<{ sortKey: Buffer; bytes: Buffer }> = [];
  for (const [name, sub] of node.dirs) {
    const oid = await writeTreeNode(fs, gitdir, sub);
    entries.push({ sortKey: Buffer.from(`${name}/`), bytes: treeEntry('40000', name, oid) });
  }
  for (const [name, file] of node.files) {
    entries.push({ sortKey: Buffer.from(name), bytes: treeEntry(file.mode, name, file.oid) });
  }
  entries.sort((a, b) => Buffer.compare(a.sortKey, b.sortKey));
  const object = Buffer.concat(entries.map((e) => e.bytes));
  return git.writeObject({ fs, gitdir, type: 'tree', object, format: 'content' });
}

function treeEntry(mode: string, name: string, oid: string): Buffer {
  return Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(oid, 'hex')]);
}
