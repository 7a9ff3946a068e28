/** forge merge <session> | rebase <session> | diff <session> : bring session work into branches, and back. */
import type { Command } from 'commander';
import { mergeBranches, mergeSession, type MergeOptions, type MergeResult } from '../../branches/merge';
import type { RebaseResult } from '../../branches/rebase';
import { formatStat, sessionDiff } from '../../branches/session-diff';
import type { MergeConflict } from '../../branches/types';
import { resolveFetchedSession } from '../../remote';
import { nodeWorktreeSync } from '../../branches/node/worktree-sync';
import { ForgeError } from '../../errors';
import { common } from '../common';
import { emit, EXIT_CODES, ReportedFailure, shortOid, type CommonOptions } from '../io';
import { openRepository } from '../open';

interface MergeCliOptions extends CommonOptions {
  into?: string;
  dryRun?: boolean;
  ff: boolean;
  message?: string;
  conflictBranch?: string;
  dropSessionFiles?: boolean;
  keepSessionFiles?: boolean;
}

/** A conflict is a result, not an error: the report is the one document on stdout, then exit 3 (kind conflict). */
function conflictExit(): never {
  throw new ReportedFailure(EXIT_CODES.conflict);
}

function indent(text: string, prefix: string): string {
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  return text === '' ? `${prefix}(nothing)` : lines.map((l) => `${prefix}${l}`).join('\n');
}

export function formatConflicts(conflicts: readonly MergeConflict[]): string {
  const out: string[] = [];
  for (const c of conflicts) {
    out.push(`${c.kind.padEnd(14)} ${c.path}`, `    ${c.message}`);
    for (const h of c.hunks ?? []) {
      out.push(`    @@ base ${h.base.start},${h.base.count} | ours ${h.ours.start},${h.ours.count} | theirs ${h.theirs.start},${h.theirs.count} @@`);
      out.push('    base:', indent(h.base.text, '      | '), '    ours:', indent(h.ours.text, '      | '), '    theirs:', indent(h.theirs.text, '      | '));
    }
  }
  return out.join('\n');
}

function mergeText(result: MergeResult, source: string): string {
  const target = result.target.ref.replace(/^refs\/heads\//, '');
  const dry = result.dryRun ? ' (dry run: no ref moved)' : '';
  switch (result.status) {
    case 'up-to-date':
      return `Already up to date: ${target} contains ${source}.`;
    case 'fast-forward':
      return `${result.dryRun ? 'Would fast-forward' : 'Fast-forward'} ${target} ${shortOid(result.target.before)}..${shortOid(result.commit!)}${dry}${result.worktreeUpdated ? '\nUpdated the working tree.' : ''}`;
    case 'merged':
      return result.dryRun
        ? `Merging ${source} into ${target} would succeed: tree ${result.tree}${dry}`
        : `Merged ${source} into ${target}: commit ${result.commit} (tree ${result.tree})${result.worktreeUpdated ? '\nUpdated the working tree.' : ''}`;
    case 'conflict': {
      const n = result.conflicts!.length;
      const lines = [`CONFLICT: merging ${source} into ${target}: ${n} conflicted path${n === 1 ? '' : 's'}; nothing was written to ${target}.`, formatConflicts(result.conflicts!)];
      if (result.conflictBranch) lines.push(`Wrote the merge with conflict markers to ${result.conflictBranch.ref.replace(/^refs\/heads\//, '')} (commit ${result.conflictBranch.commit}).`);
      return lines.join('\n');
    }
  }
}

function rebaseText(result: RebaseResult): string {
  switch (result.status) {
    case 'up-to-date':
      return `Session ${result.session} is up to date with ${result.onto.ref}.`;
    case 'rebased':
      return `Rebased session ${result.session} onto ${result.onto.ref} (${shortOid(result.onto.commit)}): ${result.replayed.length} commit(s), ${shortOid(result.before)}..${shortOid(result.after)}.${result.worktreeUpdated ? '\nUpdated the working tree.' : ''}`;
    case 'conflict': {
      const stop = result.stoppedAt!;
      return [
        `CONFLICT: rebasing session ${result.session} onto ${result.onto.ref} stopped at commit ${shortOid(stop.commit)} (${stop.subject}), step ${stop.index + 1}; the session branch was left as it was.`,
        formatConflicts(result.conflicts!),
      ].join('\n');
    }
  }
}

/** Undefined unless a flag says: the library then drops them exactly when the target is not a session branch. */
function sessionFilesChoice(options: MergeCliOptions): { dropSessionFiles?: boolean } {
  if (options.keepSessionFiles && options.dropSessionFiles) {
    throw new ForgeError('INVALID_ARGUMENT', '--keep-session-files and --drop-session-files contradict each other.', { hint: 'Pass one of them.' });
  }
  if (options.keepSessionFiles) return { dropSessionFiles: false };
  if (options.dropSessionFiles) return { dropSessionFiles: true };
  return {};
}

export function registerMerge(program: Command): void {
  common(program.command('merge <session>'))
    .description('merge a session branch into a branch (fast-forward when possible, else a three-way merge commit)')
    .option('--into <ref>', 'the branch to merge into (default: the branch HEAD points at)')
    .option('--dry-run', 'compute and write the merged tree, move no ref')
    .option('--no-ff', 'create a merge commit even when a fast-forward is possible')
    .option('--message <text>', 'the merge commit message')
    .option('--conflict-branch <name>', 'on conflict, write a commit with conflict markers to this new branch')
    .option('--keep-session-files', "carry the session's .forge/sessions files into the target (default only into a session branch)")
    .option('--drop-session-files', "leave the session's .forge/sessions files out of the result (the default into a branch that is not a session's)")
    .action(async (id: string, options: MergeCliOptions) => {
      const repo = await openRepository(options);
      // <remote>/<id>: a session fetched from a remote (refs/remotes/<remote>/forge/session/<id>).
      const fetched = id.includes('/') ? await resolveFetchedSession(repo, id) : null;
      const result = await (fetched ? (o: MergeOptions) => mergeBranches(repo, fetched, o) : (o: MergeOptions) => mergeSession(repo, id, o))({
        ...(options.into !== undefined ? { into: options.into } : {}),
        dryRun: options.dryRun ?? false,
        noFf: !options.ff,
        ...(options.message !== undefined ? { message: options.message } : {}),
        ...(options.conflictBranch !== undefined ? { conflictBranch: options.conflictBranch } : {}),
        ...sessionFilesChoice(options),
        worktree: nodeWorktreeSync(),
      });
      emit(options, result, () => mergeText(result, fetched?.label ?? `forge/session/${id}`));
      if (result.status === 'conflict') conflictExit();
    });

  common(program.command('rebase <session>'))
    .description("replay a session's commits onto a new base; the branch moves only if every step succeeds")
    .option('--onto <ref>', 'the new base (default: HEAD)')
    .action(async (id: string, options: CommonOptions & { onto?: string }) => {
      const repo = await openRepository(options);
      const { rebaseSession } = await import('../../branches/rebase');
      const result = await rebaseSession(repo, id, { ...(options.onto !== undefined ? { onto: options.onto } : {}), worktree: nodeWorktreeSync() });
      emit(options, result, () => rebaseText(result));
      if (result.status === 'conflict') conflictExit();
    });

  common(program.command('diff <session>'))
    .description('the unified diff a session would bring into a branch (from their merge base), for review')
    .option('--against <ref>', 'the branch to compare with (default: HEAD)')
    .option('--stat', 'a per-file summary instead of the patch')
    .action(async (id: string, options: CommonOptions & { against?: string; stat?: boolean }) => {
      // --stat (without --json) needs the line counts only, not the patches' text.
      const patches = !(options.stat && !options.json);
      const diff = await sessionDiff(await openRepository(options), id, { ...(options.against !== undefined ? { against: options.against } : {}), patches });
      emit(options, diff, () =>
        options.stat ? formatStat(diff, statWidth()) : diff.files.map((f) => `diff --git a/${f.path} b/${f.path}\n${f.patch}`).join(''),
      );
    });
}

/** The width git's --stat fits: the terminal's, else $COLUMNS, else 80. */
function statWidth(): number {
  if (process.stdout.isTTY && process.stdout.columns > 0) return process.stdout.columns;
  const columns = Number(process.env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : 80;
}
