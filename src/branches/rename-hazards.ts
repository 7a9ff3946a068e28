/**
 * Forge merges path by path and does not follow renames (a rename is a deletion plus an
 * addition). git's merge-ort does detect renames (exact, and at 50% similarity), and a few of
 * the cases it then sees conflict where a path-by-path merge is clean:
 *
 * - rename/delete and rename/rename: a file both sides deleted, that one side (or both, to
 *   different places) renamed;
 * - directory renames: a side moved every file out of a directory, the other side added a file
 *   in it (git moves the new file along and reports a conflict).
 *
 * So that forge never calls clean what git calls conflicting, these cases are reported as
 * `rename` conflicts whenever a deletion and an addition of the same side COULD be a rename
 * (same blob, or git's similarity score of at least 50%). This is stricter than git where git
 * pairs them differently or not at all (e.g. both sides made the identical rename of a file
 * they also edited differently). Where modify/delete already conflicts, nothing is added.
 */
import { diffTrees, type TreeChangeEntry } from '../git';
import { DEFAULT_RENAME_SCORE, MAX_SCORE, similarity, spanCounts, type SpanCounts } from './similarity';
import type { MergeSource, RenameHints } from './tree-merge';
import type { MergeConflict, MergeLabels } from './types';

/**
 * Similarity comparisons (of files whose sizes are close enough to be a rename) allowed per merge;
 * past it, a possible rename is assumed (stricter). git gives up inexact detection past
 * merge.renameLimit (7000 sources x 7000 destinations).
 */
export const RENAME_PAIR_BUDGET = 2_000_000;

type Side = 'ours' | 'theirs';

interface SideChanges {
  deleted: Map<string, TreeChangeEntry>;
  added: Map<string, TreeChangeEntry>;
  addedByOid: Map<string, string[]>;
  tree: string | null;
}

function isRegular(mode: string | undefined): boolean {
  return mode === '100644' || mode === '100755';
}

export class RenameHazards {
  private readonly counts = new Map<string, SpanCounts>();
  private readonly blobs = new Map<string, Uint8Array>();
  private pairs = 0;
  private readonly dirCache = new Map<string, string | null>();

  constructor(
    private readonly source: MergeSource,
    private readonly labels: MergeLabels,
  ) {}

  /** With the hints of the tree merge, nothing is read unless the walk saw a case that needs it. */
  async find(base: string | null, ours: string | null, theirs: string | null, hints?: RenameHints): Promise<MergeConflict[]> {
    if (base === null || ours === theirs || base === ours || base === theirs) return [];
    if (hints !== undefined && hints.deletedOnBothSides.length === 0 && hints.removedDirectories.length === 0) return [];
    const sides: Record<Side, SideChanges> = { ours: await this.changes(base, ours), theirs: await this.changes(base, theirs) };
    const out = new Map<string, MergeConflict>();

    // Deleted on both sides, possibly renamed on one (or both, elsewhere).
    for (const [path, deleted] of sides.ours.deleted) {
      if (!sides.theirs.deleted.has(path)) continue;
      for (const side of ['ours', 'theirs'] as const) {
        const other = sides[side === 'ours' ? 'theirs' : 'ours'];
        const target = await this.renameTarget(deleted, sides[side], (dest) => {
          const twin = other.added.get(dest.path);
          return twin !== undefined && twin.newOid === dest.newOid && twin.newMode === dest.newMode;
        });
        if (target === null) continue;
        out.set(path, {
          path,
          kind: 'rename',
          message: `${path} was deleted on both sides, and ${this.labels[side]} may have renamed it to ${target}; git's rename detection would report a rename/delete or rename/rename conflict.`,
          base: { mode: deleted.oldMode!, oid: deleted.oldOid! },
        });
        break;
      }
    }

    // Files added into a directory the other side emptied by moving its files away.
    for (const adder of ['ours', 'theirs'] as const) {
      const remover = adder === 'ours' ? 'theirs' : 'ours';
      for (const [path, added] of sides[adder].added) {
        const parts = path.split('/');
        for (let depth = 1; depth < parts.length; depth++) {
          const dir = parts.slice(0, depth).join('/');
          if ((await this.treeAt(base, dir)) === null) break;
          if ((await this.treeAt(sides[remover].tree, dir)) !== null) continue;
          const moved = await this.movedOutOf(dir, sides[remover]);
          if (moved === null) break;
          if (!out.has(path)) {
            out.set(path, {
              path,
              kind: 'rename',
              message: `${path} was added on ${this.labels[adder]} in ${dir}/, which ${this.labels[remover]} removed while moving its files (e.g. ${moved}); git's directory rename detection would move it and report a conflict.`,
              [adder]: { mode: added.newMode!, oid: added.newOid! },
            });
          }
          break;
        }
      }
    }
    return [...out.values()];
  }

  private async changes(base: string, tree: string | null): Promise<SideChanges> {
    const deleted = new Map<string, TreeChangeEntry>();
    const added = new Map<string, TreeChangeEntry>();
    const addedByOid = new Map<string, string[]>();
    for (const change of await diffTrees(this.source, base, tree)) {
      if (change.kind === 'deleted') deleted.set(change.path, change);
      else if (change.kind === 'added') {
        added.set(change.path, change);
        const list = addedByOid.get(change.newOid!) ?? [];
        list.push(change.path);
        addedByOid.set(change.newOid!, list);
      }
    }
    return { deleted, added, addedByOid, tree };
  }

  /** "source -> destination" of a rename out of `dir` on that side, or null. */
  private async movedOutOf(dir: string, side: SideChanges): Promise<string | null> {
    for (const [path, deleted] of side.deleted) {
      if (!path.startsWith(dir + '/')) continue;
      const target = await this.renameTarget(deleted, side, () => false);
      if (target !== null) return `${path} -> ${target}`;
    }
    return null;
  }

  /** A path added on `side` that git could take for a rename of `source`, or null. */
  private async renameTarget(source: TreeChangeEntry, side: SideChanges, ignore: (dest: TreeChangeEntry) => boolean): Promise<string | null> {
    for (const path of side.addedByOid.get(source.oldOid!) ?? []) {
      if (!ignore(side.added.get(path)!)) return path;
    }
    if (!isRegular(source.oldMode)) return null;
    for (const dest of side.added.values()) {
      if (!isRegular(dest.newMode) || ignore(dest)) continue;
      const src = await this.blob(source.oldOid!);
      const dst = await this.blob(dest.newOid!);
      const max = Math.max(src.length, dst.length);
      // git's size check: a rename at 50% cannot change the size by more than half.
      if (max * (MAX_SCORE - DEFAULT_RENAME_SCORE) < (max - Math.min(src.length, dst.length)) * MAX_SCORE) continue;
      if (++this.pairs > RENAME_PAIR_BUDGET) return dest.path;
      if (similarity(src, dst, this.countsOf(source.oldOid!, src), this.countsOf(dest.newOid!, dst)) >= DEFAULT_RENAME_SCORE) return dest.path;
    }
    return null;
  }

  private async blob(oid: string): Promise<Uint8Array> {
    let bytes = this.blobs.get(oid);
    if (bytes === undefined) {
      bytes = await this.source.readBlob(oid);
      this.blobs.set(oid, bytes);
    }
    return bytes;
  }

  private countsOf(oid: string, bytes: Uint8Array): SpanCounts {
    let counts = this.counts.get(oid);
    if (counts === undefined) {
      counts = spanCounts(bytes);
      this.counts.set(oid, counts);
    }
    return counts;
  }

  /** The tree oid at a directory path of a root tree, or null. */
  private async treeAt(root: string | null, dir: string): Promise<string | null> {
    if (root === null) return null;
    const key = `${root}:${dir}`;
    if (this.dirCache.has(key)) return this.dirCache.get(key)!;
    const slash = dir.lastIndexOf('/');
    const parent = slash < 0 ? root : await this.treeAt(root, dir.slice(0, slash));
    let found: string | null = null;
    if (parent !== null) {
      const entry = (await this.source.readTree(parent)).find((e) => e.name === dir.slice(slash + 1));
      if (entry?.mode === '040000') found = entry.oid;
    }
    this.dirCache.set(key, found);
    return found;
  }
}

export function findRenameHazards(source: MergeSource, base: string | null, ours: string | null, theirs: string | null, labels: MergeLabels, hints?: RenameHints): Promise<MergeConflict[]> {
  return new RenameHazards(source, labels).find(base, ours, theirs, hints);
}
