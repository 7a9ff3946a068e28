/**
 * What a session would bring into a branch, for review before merging: the diff from the merge
 * base of the branch and the session to the session's head (git's `branch...session`), file by
 * file. The sessions' state files (`.forge/sessions/`) are left out: they are the conversation,
 * not the code.
 */
import { diffTrees, type Repository } from '../git';
import { filePatches, type FilePatch } from '../session/file-patches';
import { SESSION_DIR } from '../session/ids';
import { resolveSessionSource, singleMergeBase } from './merge';

export interface SessionDiff {
  session: string;
  /** The session branch head. */
  head: string;
  against: { ref: string; commit: string };
  /** The merge base the diff starts from. */
  base: string;
  files: FilePatch[];
  /** Totals over the text files. */
  added: number;
  removed: number;
}

/** `patches: false`: line counts only (for `--stat`), no patch text. */
export async function sessionDiff(repo: Repository, id: string, options: { against?: string; patches?: boolean } = {}): Promise<SessionDiff> {
  const source = await resolveSessionSource(repo, id);
  const againstRef = options.against ?? 'HEAD';
  const against = await repo.resolveCommit(againstRef);
  const base = await singleMergeBase(repo, { ref: againstRef, label: againstRef, oid: against }, source);
  const [baseTree, headTree] = await Promise.all([base, source.oid].map(async (oid) => (await repo.readCommit(oid)).tree));
  const changes = (await diffTrees(repo, baseTree!, headTree!)).filter((c) => !c.path.startsWith(`${SESSION_DIR}/`));
  const files = await filePatches(repo, changes, { patches: options.patches !== false });
  return {
    session: id,
    head: source.oid,
    against: { ref: againstRef, commit: against },
    base,
    files,
    added: files.reduce((n, f) => n + f.added, 0),
    removed: files.reduce((n, f) => n + f.removed, 0),
  };
}

/**
 * `git diff --stat` to the byte, for a terminal of `width` columns (git: the terminal's width, or
 * $COLUMNS, or 80): the same name and graph widths, "..." before a cut name, the same linear
 * scaling of the +/- graph, "Bin X -> Y bytes" for binary files, and the summary line that omits
 * a zero count beside a non-zero one.
 */
export function formatStat(diff: SessionDiff, width = 80): string {
  if (diff.files.length === 0) return ' 0 files changed\n';
  const names = diff.files.map((f) => quotePath(f.path));
  let maxLength = 0;
  let maxChange = 0;
  let numberWidth = 0;
  let binWidth = 0;
  diff.files.forEach((f, i) => {
    maxLength = Math.max(maxLength, names[i]!.length);
    if (f.binary) {
      binWidth = Math.max(binWidth, 14 + decimalWidth(f.oldSize ?? 0) + decimalWidth(f.newSize ?? 0));
      numberWidth = 3; // counts aligned with "Bin"
    } else {
      maxChange = Math.max(maxChange, f.added + f.removed);
    }
  });
  numberWidth = Math.max(numberWidth, decimalWidth(maxChange));
  width = Math.max(width, 16 + 6 + numberWidth);
  let graphWidth = maxChange + 4 > binWidth ? maxChange : binWidth - 4;
  let nameWidth = maxLength;
  if (nameWidth + numberWidth + 6 + graphWidth > width) {
    if (graphWidth > Math.trunc((width * 3) / 8) - numberWidth - 6) graphWidth = Math.max(6, Math.trunc((width * 3) / 8) - numberWidth - 6);
    if (nameWidth > width - numberWidth - 6 - graphWidth) nameWidth = width - numberWidth - 6 - graphWidth;
    else graphWidth = width - numberWidth - 6 - nameWidth;
  }
  const lines = diff.files.map((f, i) => {
    let name = names[i]!;
    let prefix = '';
    let room = nameWidth;
    if (nameWidth < name.length) {
      prefix = '...';
      room = Math.max(0, room - 3);
      name = name.slice(name.length - room);
      const slash = name.indexOf('/');
      if (slash >= 0) name = name.slice(slash);
    }
    const label = `${prefix}${name}${' '.repeat(Math.max(0, room - name.length))}`;
    if (f.binary) return ` ${label} | ${'Bin'.padStart(numberWidth)} ${f.oldSize ?? 0} -> ${f.newSize ?? 0} bytes`;
    let add = f.added;
    let del = f.removed;
    if (graphWidth <= maxChange) {
      let total = scaleLinear(add + del, graphWidth, maxChange);
      if (total < 2 && add > 0 && del > 0) total = 2;
      if (add < del) {
        add = scaleLinear(add, graphWidth, maxChange);
        del = total - add;
      } else {
        del = scaleLinear(del, graphWidth, maxChange);
        add = total - del;
      }
    }
    const total = f.added + f.removed;
    return ` ${label} | ${String(total).padStart(numberWidth)}${total > 0 ? ' ' : ''}${'+'.repeat(add)}${'-'.repeat(del)}`;
  });
  const n = diff.files.length;
  let summary = ` ${n} file${n === 1 ? '' : 's'} changed`;
  if (diff.added > 0 || diff.removed === 0) summary += `, ${diff.added} insertion${diff.added === 1 ? '' : 's'}(+)`;
  if (diff.removed > 0 || diff.added === 0) summary += `, ${diff.removed} deletion${diff.removed === 1 ? '' : 's'}(-)`;
  lines.push(summary);
  return lines.join('\n') + '\n';
}

/** git's scale_linear: at least one column for any change, linear in the rest. */
function scaleLinear(it: number, width: number, maxChange: number): number {
  return it === 0 ? 0 : 1 + Math.trunc((it * (width - 1)) / maxChange);
}

function decimalWidth(n: number): number {
  return String(n).length;
}

const C_ESCAPES: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r', 34: '"', 92: '\\' };

/** A path as git prints it with core.quotePath (its default): in quotes, with C escapes and octal bytes, when it needs them. */
export function quotePath(path: string): string {
  const bytes = new TextEncoder().encode(path);
  if (!bytes.some((b) => b < 0x20 || b >= 0x7f || b === 34 || b === 92)) return path;
  let out = '"';
  for (const b of bytes) {
    if (C_ESCAPES[b] !== undefined) out += `\\${C_ESCAPES[b]}`;
    else if (b < 0x20 || b >= 0x7f) out += `\\${b.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
}
