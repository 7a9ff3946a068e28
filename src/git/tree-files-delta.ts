/**
 * The flattened listing of a tree derived from its parent's listing and the tree diff between
 * them (issue 19: every turn commit makes a new root tree, and listing it walked every tree of
 * the repository — 13,000 on a real monorepo — though a turn changes a handful of paths). Pure:
 * runs of unchanged files are copied as whole byte ranges of the parent's columns; only the
 * changed paths are compared. Returns null when the changes do not fit the parent listing (a
 * path to modify or delete that is not there, or one to add that is), so the caller walks the
 * trees instead: a derived listing is never trusted beyond what it can check.
 */
import type { TreeChangeEntry } from './tree-diff';
import { FILE_MODES, type TreeFiles } from './tree-files';

const encoder = new TextEncoder();

interface Change {
  path: Uint8Array;
  /** null: deleted. */
  mode: number | null;
  oid: string | null;
  kind: TreeChangeEntry['kind'];
}

export function applyTreeChanges(parent: TreeFiles, changes: readonly TreeChangeEntry[], hexToBytes: (hex: string) => Uint8Array): TreeFiles | null {
  const sorted: Change[] = [];
  for (const change of changes) {
    const mode = change.kind === 'deleted' ? null : FILE_MODES.indexOf(change.newMode as (typeof FILE_MODES)[number]);
    if (mode === -1) return null;
    sorted.push({ path: encoder.encode(change.path), mode, oid: change.newOid ?? null, kind: change.kind });
  }
  // git's order is the bytes' order (a directory's files follow its name and a "/").
  sorted.sort((a, b) => compareBytes(a.path, 0, a.path.length, b.path));

  const added = sorted.reduce((n, c) => n + (c.kind === 'added' ? 1 : c.kind === 'deleted' ? -1 : 0), 0);
  const count = parent.count + added;
  if (count < 0) return null;
  const addedBytes = sorted.reduce((n, c) => n + (c.kind === 'added' ? c.path.length + 1 : c.kind === 'deleted' ? -(c.path.length + 1) : 0), 0);
  const modes = new Uint8Array(count);
  const oids = new Uint8Array(count * 20);
  // Path bytes plus one separator per file, less the one the last file does without.
  const pathBytes = count === 0 ? 0 : (parent.count === 0 ? 0 : parent.paths.length + 1) + addedBytes - 1;
  if (pathBytes < 0) return null;
  const paths = new Uint8Array(pathBytes);

  let file = 0; // next file of the parent
  let at = 0; // where its path starts in parent.paths
  let out = 0; // files written
  let outAt = 0; // bytes of paths written (separators included)
  let runFile = 0; // the run of parent files not yet copied starts here
  let runAt = 0;

  const flushRun = () => {
    const n = file - runFile;
    if (n === 0) return;
    modes.set(parent.modes.subarray(runFile, file), out);
    oids.set(parent.oids.subarray(runFile * 20, file * 20), out * 20);
    // The run's paths and the separators between them (`at` is past the last one's separator).
    const bytes = parent.paths.subarray(runAt, at - 1);
    if (outAt > 0) paths[outAt++] = 0;
    paths.set(bytes, outAt);
    outAt += bytes.length;
    out += n;
  };
  const emit = (path: Uint8Array, mode: number, oid: Uint8Array) => {
    if (outAt > 0) paths[outAt++] = 0;
    paths.set(path, outAt);
    outAt += path.length;
    modes[out] = mode;
    oids.set(oid, out * 20);
    out++;
  };
  const pathEnd = (start: number) => {
    const nul = parent.paths.indexOf(0, start);
    return nul === -1 ? parent.paths.length : nul;
  };

  for (const change of sorted) {
    // Skip (into the pending run) the parent's files that sort before the change's path.
    let cmp = 1;
    while (file < parent.count) {
      const end = pathEnd(at);
      cmp = compareBytes(parent.paths, at, end, change.path);
      if (cmp >= 0) break;
      file++;
      at = end + 1;
    }
    const present = file < parent.count && cmp === 0;
    if (present !== (change.kind !== 'added')) return null;
    flushRun();
    if (present) {
      file++;
      at = pathEnd(at) + 1;
    }
    runFile = file;
    runAt = at;
    if (change.mode !== null) emit(change.path, change.mode, hexToBytes(change.oid!));
  }
  file = parent.count;
  at = parent.paths.length + 1;
  flushRun();
  if (out !== count || outAt !== paths.length) return null;
  return { count, modes, oids, paths };
}

/** Bytes [start, end) of `a` against all of `b`, as memcmp then length. */
function compareBytes(a: Uint8Array, start: number, end: number, b: Uint8Array): number {
  const n = Math.min(end - start, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[start + i]! - b[i]!;
    if (d !== 0) return d;
  }
  return end - start - b.length;
}
