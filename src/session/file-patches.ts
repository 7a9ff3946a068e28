/**
 * Unified diffs of a set of file changes (a turn, or the pending layer), for `forge show`,
 * `forge diff` and the MCP diff resource. Binary content (a NUL byte or invalid UTF-8) is
 * reported as git does, never dumped.
 */
import { isUtf8, type Repository, type TreeChangeEntry } from '../git';
import { lineChangeCounts, unifiedDiff } from '../text';

/** A changed file with its old and new objects: a tree diff's entry, or a pending change. */
export type FileChangeRef = TreeChangeEntry;

export interface FilePatch {
  path: string;
  kind: FileChangeRef['kind'];
  oldMode?: string;
  newMode?: string;
  binary: boolean;
  added: number;
  removed: number;
  /** The unified diff text (headers included), or git's "Binary files ... differ" line; '' when only stats were asked for. */
  patch: string;
  /** Sizes in bytes of a binary file's two sides (0 for a side that does not exist), as `git diff --stat` shows them. */
  oldSize?: number;
  newSize?: number;
}

const strict = new TextDecoder('utf-8', { fatal: true });
const EMPTY = new Uint8Array(0);

/** Text, or undefined for binary content (a NUL byte or invalid UTF-8); null: no file. */
export function asText(bytes: Uint8Array | null): string | null | undefined {
  if (bytes === null) return null;
  if (bytes.includes(0)) return undefined;
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether bytes are text as asText says (no NUL, valid UTF-8), without decoding them. */
function isText(bytes: Uint8Array | null, utf8: (bytes: Uint8Array) => boolean): boolean {
  return bytes === null || (!bytes.includes(0) && utf8(bytes));
}

/**
 * `patches: false`: line counts only (`--stat`), no unified diff text built, nothing decoded.
 * The counts are git's (`lineChangeCounts`: xdiff's Myers, as `git diff --stat`), with or without
 * patches.
 */
export async function filePatches(repo: Repository, changes: readonly FileChangeRef[], options: { patches?: boolean } = {}): Promise<FilePatch[]> {
  const withPatches = options.patches !== false;
  const utf8 = repo.platform.text?.isUtf8 ?? isUtf8;
  const out: FilePatch[] = [];
  for (const change of changes) {
    const before = change.oldOid && change.oldMode !== '160000' ? await repo.readBlob(change.oldOid) : null;
    const after = change.newOid && change.newMode !== '160000' ? await repo.readBlob(change.newOid) : null;
    const text = isText(before, utf8) && isText(after, utf8);
    const beforeText = withPatches && text ? asText(before) : null;
    const afterText = withPatches && text ? asText(after) : null;
    const modeLines = change.kind === 'modified' && change.oldMode !== change.newMode ? `old mode ${change.oldMode}\nnew mode ${change.newMode}\n` : '';
    const patch: FilePatch = { path: change.path, kind: change.kind, binary: false, added: 0, removed: 0, patch: '' };
    if (change.oldMode) patch.oldMode = change.oldMode;
    if (change.newMode) patch.newMode = change.newMode;
    if (!text) {
      patch.binary = true;
      patch.oldSize = before?.length ?? 0;
      patch.newSize = after?.length ?? 0;
      const a = change.kind === 'added' ? '/dev/null' : `a/${change.path}`;
      const b = change.kind === 'deleted' ? '/dev/null' : `b/${change.path}`;
      if (withPatches) patch.patch = `${modeLines}Binary files ${a} and ${b} differ\n`;
    } else {
      const counts = lineChangeCounts(before ?? EMPTY, after ?? EMPTY);
      patch.added = counts.added;
      patch.removed = counts.removed;
      if (withPatches) patch.patch = modeLines + (beforeText === afterText ? '' : unifiedDiff(change.path, beforeText ?? null, afterText ?? null));
    }
    out.push(patch);
  }
  return out;
}
