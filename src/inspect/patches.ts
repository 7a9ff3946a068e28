/**
 * File patches as the page shows them: the shape of the library's `filePatches` (binary files
 * summarized as git does), diffed as git diff does (`line-diff.ts`), with very
 * large patches summarized too (their counts kept, the text
 * left out: a browser tab should not receive 50 MB of diff), and a flag for CRLF files so the
 * page can show their line endings.
 */
import type { Repository } from '../git';
import { asText, type FileChangeRef, type FilePatch } from '../session';
import { linePatch } from './line-diff';

/** Above either limit a patch is summarized. A 10,000-line file rewritten whole (~20,000 lines) stays under them. */
export const LARGE_PATCH_LINES = 60_000;
export const LARGE_PATCH_BYTES = 8 * 1024 * 1024;

export interface ShownPatch extends FilePatch {
  /** The old or new content has CRLF line endings. */
  crlf: boolean;
  /** The patch text was left out because of its size. */
  large: boolean;
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export function shownPatch(patch: FilePatch): ShownPatch {
  const crlf = !patch.binary && patch.patch.includes('\r\n');
  const large = !patch.binary && (patch.patch.length > LARGE_PATCH_BYTES || countLines(patch.patch) > LARGE_PATCH_LINES);
  return { ...patch, crlf, large, patch: large ? `Large file: ${patch.added} line(s) added, ${patch.removed} removed; the diff is not shown (over ${LARGE_PATCH_LINES} lines or ${LARGE_PATCH_BYTES / 1024 / 1024} MiB).\n` : patch.patch };
}

export async function filePatch(repo: Repository, change: FileChangeRef): Promise<FilePatch> {
  const before = asText(change.oldOid && change.oldMode !== '160000' ? await repo.readBlob(change.oldOid) : null);
  const after = asText(change.newOid && change.newMode !== '160000' ? await repo.readBlob(change.newOid) : null);
  const modeLines = change.kind === 'modified' && change.oldMode !== change.newMode ? `old mode ${change.oldMode}\nnew mode ${change.newMode}\n` : '';
  const out: FilePatch = { path: change.path, kind: change.kind, binary: false, added: 0, removed: 0, patch: '' };
  if (change.oldMode) out.oldMode = change.oldMode;
  if (change.newMode) out.newMode = change.newMode;
  if (before === undefined || after === undefined) {
    out.binary = true;
    out.patch = `${modeLines}Binary files ${change.kind === 'added' ? '/dev/null' : `a/${change.path}`} and ${change.kind === 'deleted' ? '/dev/null' : `b/${change.path}`} differ\n`;
    return out;
  }
  const diff = linePatch(change.path, before, after);
  return { ...out, added: diff.added, removed: diff.removed, patch: modeLines + diff.patch };
}

/**
 * A change whose old or new blob is over LARGE_PATCH_BYTES, summarized from the objects' headers
 * without reading them: diffing 50 MB would hold the server (and every other request) for
 * seconds and its memory for the blobs and the diff. Its +/- counts are not known (0).
 */
async function tooLargeToDiff(repo: Repository, change: FileChangeRef): Promise<ShownPatch | undefined> {
  const size = async (oid: string | undefined, mode: string | undefined) => (oid && mode !== '160000' ? repo.blobSize(oid) : 0);
  const largest = Math.max(await size(change.oldOid, change.oldMode), await size(change.newOid, change.newMode));
  if (largest <= LARGE_PATCH_BYTES) return undefined;
  const out: ShownPatch = { path: change.path, kind: change.kind, binary: false, added: 0, removed: 0, crlf: false, large: true, patch: `Large file: ${largest} bytes; the diff is not computed (over ${LARGE_PATCH_BYTES / 1024 / 1024} MiB).\n` };
  if (change.oldMode) out.oldMode = change.oldMode;
  if (change.newMode) out.newMode = change.newMode;
  return out;
}

export async function shownPatches(repo: Repository, changes: readonly FileChangeRef[]): Promise<ShownPatch[]> {
  const out: ShownPatch[] = [];
  for (const change of changes) out.push((await tooLargeToDiff(repo, change)) ?? shownPatch(await filePatch(repo, change)));
  return out;
}
