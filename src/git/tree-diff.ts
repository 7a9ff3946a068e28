/**
 * Differences between two trees, descending only into subtrees whose oids differ (equal oids
 * mean equal contents, so unchanged directories cost nothing).
 */
import type { TreeEntry } from './object-codec';
import { diffRawTrees, type RawTreeSource } from './raw-tree-diff';

export interface TreeChangeEntry {
  path: string;
  kind: 'added' | 'modified' | 'deleted';
  oldOid?: string;
  oldMode?: string;
  newOid?: string;
  newMode?: string;
}

export interface TreeReader {
  readTree(oid: string): Promise<readonly TreeEntry[]>;
  /** Where the reader has the trees' bytes (a Repository): the diff then walks them raw (raw-tree-diff.ts). */
  rawTrees?(): RawTreeSource;
}

/** The changes in git's path order (a directory's entries as if its name ended in "/"). */
export async function diffTrees(io: TreeReader, oldTree: string | null, newTree: string | null, prefix = ''): Promise<TreeChangeEntry[]> {
  if (io.rawTrees) return diffRawTrees(io.rawTrees(), oldTree, newTree, prefix);
  const out: TreeChangeEntry[] = [];
  await diffInto(io, oldTree, newTree, prefix, out);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function diffInto(io: TreeReader, oldTree: string | null, newTree: string | null, prefix: string, out: TreeChangeEntry[]): Promise<void> {
  if (oldTree === newTree) return;
  const oldEntries = new Map((oldTree ? await io.readTree(oldTree) : []).map((e) => [e.name, e]));
  const newEntries = new Map((newTree ? await io.readTree(newTree) : []).map((e) => [e.name, e]));
  for (const name of new Set([...oldEntries.keys(), ...newEntries.keys()])) {
    const a = oldEntries.get(name);
    const b = newEntries.get(name);
    const path = prefix ? `${prefix}/${name}` : name;
    if (a && b && a.oid === b.oid && a.mode === b.mode) continue;
    const aDir = a?.mode === '040000';
    const bDir = b?.mode === '040000';
    if (aDir || bDir) await diffInto(io, aDir ? a!.oid : null, bDir ? b!.oid : null, path, out);
    const aFile = a && !aDir ? a : undefined;
    const bFile = b && !bDir ? b : undefined;
    if (aFile && bFile) out.push({ path, kind: 'modified', oldOid: aFile.oid, oldMode: aFile.mode, newOid: bFile.oid, newMode: bFile.mode });
    else if (aFile) out.push({ path, kind: 'deleted', oldOid: aFile.oid, oldMode: aFile.mode });
    else if (bFile) out.push({ path, kind: 'added', newOid: bFile.oid, newMode: bFile.mode });
  }
}
