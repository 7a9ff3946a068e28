/**
 * What a session would bring into a branch, for review before merging: the diff from the merge
 * base of the branch and the session to the session's head (git's `branch...session`), file by
 * file. The sessions' state files (`.forge/sessions/`) are left out: they are the conversation,
 * not the code.
 */
import { diffTrees, type Repository } from '../git';
import { filePatches, SESSION_DIR, type FilePatch } from '../session';
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

export async function sessionDiff(repo: Repository, id: string, options: { against?: string } = {}): Promise<SessionDiff> {
  const source = await resolveSessionSource(repo, id);
  const againstRef = options.against ?? 'HEAD';
  const against = await repo.resolveCommit(againstRef);
  const base = await singleMergeBase(repo, { ref: againstRef, label: againstRef, oid: against }, source);
  const [baseTree, headTree] = await Promise.all([base, source.oid].map(async (oid) => (await repo.readCommit(oid)).tree));
  const changes = (await diffTrees(repo, baseTree!, headTree!)).filter((c) => !c.path.startsWith(`${SESSION_DIR}/`));
  const files = await filePatches(repo, changes);
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

/** git-style `--stat` lines: " path | N +++--", then the summary line. */
export function formatStat(diff: SessionDiff): string {
  if (diff.files.length === 0) return ' 0 files changed\n';
  const width = Math.max(...diff.files.map((f) => f.path.length));
  const lines = diff.files.map((f) => {
    const label = f.path.padEnd(width);
    if (f.binary) return ` ${label} | Bin`;
    const total = f.added + f.removed;
    const scale = total > 50 ? 50 / total : 1;
    return ` ${label} | ${String(total).padStart(4)} ${'+'.repeat(Math.round(f.added * scale))}${'-'.repeat(Math.round(f.removed * scale))}`;
  });
  const n = diff.files.length;
  lines.push(` ${n} file${n === 1 ? '' : 's'} changed, ${diff.added} insertion${diff.added === 1 ? '' : 's'}(+), ${diff.removed} deletion${diff.removed === 1 ? '' : 's'}(-)`);
  return lines.join('\n') + '\n';
}
