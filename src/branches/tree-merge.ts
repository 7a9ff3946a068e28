/**
 * The three-way tree merge, as git's merge-ort resolves paths (without rename detection):
 * compare base/ours/theirs entries by oid and mode, take a side wholesale where the other did not
 * change (reusing its subtree oid as it is), descend only into directories both sides changed,
 * and merge file content only where both sides changed the same file.
 *
 * Pure decisions over a reading interface: the result is a tree of reused entries and new blob
 * contents (`MergedNode`), written later by `writeMergedTree`. Where a path conflicts, the result
 * holds what git's merge-tree puts there (the file with conflict markers, the modified side of a
 * modify/delete, ours for binary files, the file of a file/directory clash moved to
 * `path~<label>`), so the same result, written, is the tree of a conflict branch.
 */
import type { TreeEntry, TreeMode } from '../git';
import { isBinary } from './binary';
import { mergeLines } from './line-merge';
import type { ConflictEntry, MergeConflict, MergedNode, MergeLabels } from './types';

export interface MergeSource {
  readTree(oid: string): Promise<readonly TreeEntry[]>;
  readBlob(oid: string): Promise<Uint8Array>;
}

export interface TreeMergeResult {
  /** The merged root directory; null when it is empty. */
  root: MergedNode | null;
  /** Conflicted paths, sorted; empty for a clean merge. */
  conflicts: MergeConflict[];
  /** Where git's rename detection could see more than a path-by-path merge (see rename-hazards.ts). */
  renameHints: RenameHints;
}

/**
 * Places the walk saw that a rename-aware merge might judge differently: paths (files or whole
 * directories) gone on both sides, and directories one side removed while the other changed them.
 */
export interface RenameHints {
  deletedOnBothSides: string[];
  removedDirectories: Array<{ path: string; removedOn: 'ours' | 'theirs' }>;
}

type Entry = Omit<TreeEntry, 'name'>;
type FileMode = '100644' | '100755' | '120000';

const TREE = '040000';
const EMPTY = new Uint8Array(0);

function same(a: Entry | undefined, b: Entry | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return a.oid === b.oid && a.mode === b.mode;
}

/** S_IFMT: regular files (either exec bit), symlinks, submodules, trees. */
function typeOf(mode: string): 'file' | 'link' | 'gitlink' | 'tree' {
  if (mode === TREE) return 'tree';
  if (mode === '120000') return 'link';
  if (mode === '160000') return 'gitlink';
  return 'file';
}

function describe(entry: Entry | undefined): ConflictEntry | undefined {
  return entry === undefined ? undefined : { mode: entry.mode, oid: entry.oid };
}

function join(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/** git's unique_path: "<name>~<label with / as _>", then _0, _1... while the name is taken. */
function uniqueName(name: string, label: string, taken: (candidate: string) => boolean): string {
  const base = `${name}~${label.replace(/\//g, '_')}`;
  let candidate = base;
  for (let suffix = 0; taken(candidate); suffix++) candidate = `${base}_${suffix}`;
  return candidate;
}

/** One path's file-level resolution (trees excluded): the entry to record and its conflict, if any. */
interface FileResolution {
  node: MergedNode | null;
  conflict?: MergeConflict;
  /** Distinct types: what git moves aside, by label side. */
  aside?: Array<{ side: 'ours' | 'theirs'; node: MergedNode }>;
}

export class TreeMerger {
  private readonly conflicts: MergeConflict[] = [];
  private readonly hints: RenameHints = { deletedOnBothSides: [], removedDirectories: [] };

  constructor(
    private readonly source: MergeSource,
    private readonly labels: MergeLabels,
  ) {}

  async merge(base: string | null, ours: string | null, theirs: string | null): Promise<TreeMergeResult> {
    const root = await this.mergeDir('', base, ours, theirs);
    this.conflicts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { root, conflicts: this.conflicts, renameHints: this.hints };
  }

  /** Merges one directory; null when the result is empty. */
  private async mergeDir(path: string, base: string | null, ours: string | null, theirs: string | null): Promise<MergedNode | null> {
    if (ours === theirs) {
      // The same change on both sides; deletions in it are deletions on both sides.
      if (base !== null && base !== ours) this.hints.deletedOnBothSides.push(path);
      return ours === null ? null : tree(ours);
    }
    if (base === ours) return theirs === null ? null : tree(theirs);
    if (base === theirs) return ours === null ? null : tree(ours);
    const [b, o, t] = await Promise.all([this.read(base), this.read(ours), this.read(theirs)]);
    // name -> [base, ours, theirs]
    const triples = new Map<string, [Entry | undefined, Entry | undefined, Entry | undefined]>();
    for (const e of b) triples.set(e.name, [e, undefined, undefined]);
    for (const e of o) {
      const triple = triples.get(e.name);
      if (triple) triple[1] = e;
      else triples.set(e.name, [undefined, e, undefined]);
    }
    for (const e of t) {
      const triple = triples.get(e.name);
      if (triple) triple[2] = e;
      else triples.set(e.name, [undefined, undefined, e]);
    }
    const children = new Map<string, MergedNode>();
    const taken = (name: string) => triples.has(name) || children.has(name);
    const complex: string[] = [];
    for (const [name, [eb, eo, et]] of triples) {
      let keep: Entry | undefined;
      if (same(eo, et)) {
        if (eb !== undefined && !same(eb, eo) && (eo === undefined || eb.mode === TREE || eo.mode === TREE)) this.hints.deletedOnBothSides.push(join(path, name));
        keep = eo;
      } else if (same(eb, eo)) keep = et;
      else if (same(eb, et)) keep = eo;
      else {
        complex.push(name);
        continue;
      }
      if (keep !== undefined) children.set(name, { kind: 'entry', entry: keep });
    }
    for (const name of complex) {
      const [eb, eo, et] = triples.get(name)!;
      await this.mergeName(path, name, eb, eo, et, children, taken);
    }
    return children.size === 0 ? null : { kind: 'dir', children };
  }

  private async mergeName(
    dir: string,
    name: string,
    eb: Entry | undefined,
    eo: Entry | undefined,
    et: Entry | undefined,
    children: Map<string, MergedNode>,
    taken: (name: string) => boolean,
  ): Promise<void> {
    const path = join(dir, name);
    const dirOf = (e: Entry | undefined) => (e?.mode === TREE ? e.oid : null);
    const fileOf = (e: Entry | undefined) => (e !== undefined && e.mode !== TREE ? e : undefined);
    const [db, dO, dt] = [dirOf(eb), dirOf(eo), dirOf(et)];
    const [fb, fo, ft] = [fileOf(eb), fileOf(eo), fileOf(et)];
    if (db !== null && dO === null && dt !== null && dt !== db) this.hints.removedDirectories.push({ path, removedOn: 'ours' });
    if (db !== null && dt === null && dO !== null && dO !== db) this.hints.removedDirectories.push({ path, removedOn: 'theirs' });
    if (fb !== undefined && fo === undefined && ft === undefined) this.hints.deletedOnBothSides.push(path);
    const merged = db !== null || dO !== null || dt !== null ? await this.mergeDir(path, db, dO, dt) : null;
    const hasFile = fb !== undefined || fo !== undefined || ft !== undefined;
    if (merged !== null) children.set(name, merged);
    if (!hasFile) return;
    if (merged === null) {
      // No directory in the way (or it merged away): an ordinary file merge.
      const resolution = await this.resolveFile(path, fb, fo, ft);
      if (resolution.node !== null) children.set(name, resolution.node);
      for (const aside of resolution.aside ?? []) children.set(uniqueName(name, this.labels[aside.side], taken), aside.node);
      if (resolution.conflict) this.conflicts.push(resolution.conflict);
      return;
    }
    // A directory stays here; a file that survives the merge has to go elsewhere.
    if (fo === undefined && ft === undefined) return; // the file was deleted on both sides
    const resolution = await this.resolveFile(path, fb, fo, ft);
    if (resolution.node === null && resolution.conflict === undefined) return; // deleted, cleanly
    // merge-ort: the file comes from the side that does not have the directory.
    const fileSide = dO !== null ? 'theirs' : 'ours';
    const asideName = uniqueName(name, this.labels[fileSide], taken);
    if (resolution.node !== null) children.set(asideName, resolution.node);
    const dirSide = fileSide === 'ours' ? 'theirs' : 'ours';
    const conflict: MergeConflict = {
      path,
      kind: 'file/directory',
      message: `${path} is a file on ${this.labels[fileSide]} and a directory on ${this.labels[dirSide]}; the file is at ${join(dir, asideName)} in the conflict tree.`,
      conflictPath: join(dir, asideName),
    };
    if (fb) conflict.base = describe(fb);
    if (fo) conflict.ours = describe(fo);
    if (ft) conflict.theirs = describe(ft);
    this.conflicts.push(conflict);
  }

  /** merge-ort's process_entry for a path holding no directory on any side. */
  private async resolveFile(path: string, fb: Entry | undefined, fo: Entry | undefined, ft: Entry | undefined): Promise<FileResolution> {
    if (same(fo, ft)) return { node: fo ? entryNode(fo) : null };
    if (same(fb, fo)) return { node: ft ? entryNode(ft) : null };
    if (same(fb, ft)) return { node: fo ? entryNode(fo) : null };
    const sides = { base: describe(fb), ours: describe(fo), theirs: describe(ft) };
    if (fo === undefined || ft === undefined) {
      const [kept, keptSide, deletedSide] = fo !== undefined ? [fo, 'ours', 'theirs'] as const : [ft!, 'theirs', 'ours'] as const;
      return {
        node: entryNode(kept),
        conflict: withSides({ path, kind: 'modify/delete', message: `${path} was deleted on ${this.labels[deletedSide]} and modified on ${this.labels[keptSide]}.` }, sides),
      };
    }
    if (typeOf(fo.mode) !== typeOf(ft.mode)) {
      // Distinct types: git keeps one at the path and moves the regular file (or both) aside.
      const conflict = withSides({ path, kind: 'mode', message: `${path} is a ${kindName(fo.mode)} on ${this.labels.ours} and a ${kindName(ft.mode)} on ${this.labels.theirs}.` }, sides);
      if (typeOf(fo.mode) === 'file') return { node: entryNode(ft), aside: [{ side: 'ours', node: entryNode(fo) }], conflict };
      if (typeOf(ft.mode) === 'file') return { node: entryNode(fo), aside: [{ side: 'theirs', node: entryNode(ft) }], conflict };
      return { node: null, aside: [{ side: 'ours', node: entryNode(fo) }, { side: 'theirs', node: entryNode(ft) }], conflict };
    }
    // Same type on both sides: merge the mode and the content separately (handle_content_merge).
    const baseMode = fb?.mode;
    let mode: string;
    let modeClean = true;
    if (fo.mode === ft.mode || fo.mode === baseMode) mode = ft.mode;
    else {
      mode = fo.mode;
      modeClean = ft.mode === baseMode;
    }
    const addAdd = fb === undefined;
    if (fo.oid === ft.oid || fo.oid === fb?.oid || ft.oid === fb?.oid) {
      const oid = fo.oid === ft.oid || fo.oid === fb?.oid ? ft.oid : fo.oid;
      const node = entryNode({ mode: mode as TreeMode, oid });
      if (modeClean) return { node };
      return { node, conflict: withSides({ path, kind: 'mode', message: `${path} changed mode differently: ${fo.mode} on ${this.labels.ours}, ${ft.mode} on ${this.labels.theirs}.` }, sides) };
    }
    const type = typeOf(fo.mode);
    if (type !== 'file') {
      const what = type === 'link' ? 'symlink' : 'submodule';
      return {
        node: entryNode({ mode: mode as TreeMode, oid: fo.oid }),
        conflict: withSides({ path, kind: addAdd ? 'add/add' : 'content', message: `Both sides changed the ${what} ${path} differently.` }, sides),
      };
    }
    // Two regular files: line merge, unless binary. A base of another type counts as empty.
    const twoWay = fb === undefined || typeOf(fb.mode) !== 'file';
    const [baseBytes, oursBytes, theirsBytes] = await Promise.all([twoWay ? EMPTY : this.source.readBlob(fb!.oid), this.source.readBlob(fo.oid), this.source.readBlob(ft.oid)]);
    if (isBinary(baseBytes) || isBinary(oursBytes) || isBinary(theirsBytes)) {
      return {
        node: entryNode({ mode: mode as TreeMode, oid: fo.oid }),
        conflict: { ...withSides({ path, kind: addAdd ? 'add/add' : 'binary', message: `Both sides changed the binary file ${path}; it cannot be merged line by line.` }, sides), binary: true },
      };
    }
    const result = mergeLines(baseBytes, oursBytes, theirsBytes, this.labels);
    const node: MergedNode = { kind: 'blob', mode: mode as FileMode, content: result.content };
    if (result.clean && modeClean) return { node };
    if (result.clean) {
      return { node, conflict: withSides({ path, kind: 'mode', message: `${path} changed mode differently: ${fo.mode} on ${this.labels.ours}, ${ft.mode} on ${this.labels.theirs}.` }, sides) };
    }
    const regions = result.conflicts.length;
    return {
      node,
      conflict: {
        ...withSides(
          { path, kind: addAdd ? 'add/add' : 'content', message: `${addAdd ? 'Both sides added' : 'Both sides changed'} ${path}: ${regions} conflicting region${regions === 1 ? '' : 's'}.` },
          sides,
        ),
        hunks: result.conflicts,
      },
    };
  }

  private async read(oid: string | null): Promise<readonly TreeEntry[]> {
    return oid === null ? [] : this.source.readTree(oid);
  }
}

function tree(oid: string): MergedNode {
  return { kind: 'entry', entry: { mode: TREE, oid } };
}

function entryNode(entry: Entry): MergedNode {
  return { kind: 'entry', entry: { mode: entry.mode, oid: entry.oid } };
}

function kindName(mode: string): string {
  const type = typeOf(mode);
  return type === 'file' ? 'file' : type === 'link' ? 'symlink' : 'submodule';
}

function withSides(conflict: MergeConflict, sides: { base?: ConflictEntry; ours?: ConflictEntry; theirs?: ConflictEntry }): MergeConflict {
  if (sides.base) conflict.base = sides.base;
  if (sides.ours) conflict.ours = sides.ours;
  if (sides.theirs) conflict.theirs = sides.theirs;
  return conflict;
}

export function mergeTrees(source: MergeSource, base: string | null, ours: string | null, theirs: string | null, labels: MergeLabels): Promise<TreeMergeResult> {
  return new TreeMerger(source, labels).merge(base, ours, theirs);
}

export interface TreeWriter {
  /** Entries in any order: the writer sorts them as git does (Repository.writeTree). */
  writeTree(entries: readonly TreeEntry[]): Promise<string>;
  writeBlob(content: Uint8Array): Promise<string>;
}

/** Writes the new blobs and directories of a merge result (bottom up); returns the root tree oid. */
export async function writeMergedTree(writer: TreeWriter, root: MergedNode | null): Promise<string> {
  const oid = root === null ? null : await writeNode(writer, root);
  return oid ?? writer.writeTree([]);
}

async function writeNode(writer: TreeWriter, node: MergedNode): Promise<string | null> {
  if (node.kind === 'entry') return node.entry.oid;
  if (node.kind === 'blob') return writer.writeBlob(node.content);
  const entries: TreeEntry[] = [];
  for (const [name, child] of node.children) {
    // Kept entries (most of them) need no write and no await.
    if (child.kind === 'entry') {
      entries.push({ name, mode: child.entry.mode, oid: child.entry.oid });
      continue;
    }
    const oid = await writeNode(writer, child);
    if (oid !== null) entries.push({ name, mode: child.kind === 'blob' ? child.mode : TREE, oid });
  }
  // The writer puts them in git's order.
  return entries.length === 0 ? null : writer.writeTree(entries);
}
