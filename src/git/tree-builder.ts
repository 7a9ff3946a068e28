/**
 * Builds a new root tree from a base tree and a set of file changes, rewriting only the
 * directories along changed paths and reusing every other subtree oid as it is, so the cost
 * grows with the number of changed paths, not with the size of the repository.
 */
import { ForgeError } from '../errors';
import type { TreeEntry } from './object-codec';
import type { TreeMode } from './tree-names';

/** A file's new content and mode, or null to delete it. */
export type FileChange = { oid: string; mode: '100644' | '100755' | '120000' | '160000' } | null;

export interface TreeIo {
  readTree(oid: string): Promise<readonly TreeEntry[]>;
  writeTree(entries: readonly TreeEntry[]): Promise<string>;
}

export const EMPTY_TREE_OID = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

interface Node {
  /** The change of the file at this path, when one is recorded. */
  file?: FileChange;
  children: Map<string, Node>;
}

function buildTrie(changes: Iterable<[string, FileChange]>): Node {
  const root: Node = { children: new Map() };
  for (const [path, change] of changes) {
    let node = root;
    for (const name of path.split('/')) {
      let child = node.children.get(name);
      if (!child) {
        child = { children: new Map() };
        node.children.set(name, child);
      }
      node = child;
    }
    node.file = change;
  }
  return root;
}

/** Returns the new root tree oid (the empty tree when everything was deleted). */
export async function buildTree(io: TreeIo, baseTree: string | null, changes: Iterable<[string, FileChange]>): Promise<string> {
  const root = buildTrie(changes);
  return (await rewrite(io, baseTree, root, '')) ?? io.writeTree([]);
}

/** Rewrites one directory; null when it ends up empty (git stores no empty subtrees). */
async function rewrite(io: TreeIo, baseOid: string | null, node: Node, dirPath: string): Promise<string | null> {
  if (node.children.size === 0) return baseOid;
  const entries = new Map<string, TreeEntry>();
  if (baseOid !== null) for (const entry of await io.readTree(baseOid)) entries.set(entry.name, entry);

  for (const [name, child] of node.children) {
    const path = dirPath ? `${dirPath}/${name}` : name;
    const existing = entries.get(name);
    let subtree: string | null = null;
    if (child.children.size > 0) {
      const baseSubtree = existing?.mode === '040000' ? existing.oid : null;
      if (existing && existing.mode !== '040000' && child.file !== null) {
        throw clash(path, `${path} is a file in the base tree, so nothing can be written below it`);
      }
      subtree = await rewrite(io, baseSubtree, child, path);
    } else if (existing?.mode === '040000' && child.file !== undefined) {
      // A file change at a directory's path: only valid once everything below was deleted.
      if (child.file === null) throw clash(path, `${path} is a directory, not a file`);
      throw clash(path, `${path} is a directory in the base tree`);
    }

    if (child.file !== undefined && child.file !== null) {
      if (subtree !== null) throw clash(path, `${path} would be both a file and a directory`);
      entries.set(name, { name, mode: child.file.mode as TreeMode, oid: child.file.oid });
    } else if (child.children.size > 0) {
      if (subtree === null) entries.delete(name);
      else entries.set(name, { name, mode: '040000', oid: subtree });
    } else {
      entries.delete(name);
    }
  }
  if (entries.size === 0) return null;
  return io.writeTree([...entries.values()]);
}

function clash(path: string, message: string): ForgeError {
  return new ForgeError('PATH_NOT_DIRECTORY', `Cannot build the tree: ${message}.`, { data: { path } });
}
