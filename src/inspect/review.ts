/**
 * What the review page adds to a session: the whole session's changes against its merge target
 * (as a pull request shows "files changed": from the merge base of the session and the target to
 * the session's head; a session already merged is shown against the commit it started from), a
 * file at any commit with every line's provenance (`forge blame`'s, from src/provenance), and the
 * session search of `forge log --grep`.
 */
import { mergeBases, repositoryGraph } from '../branches';
import { ForgeError } from '../errors';
import type { Repository } from '../git';
import { fileProvenance, parseSince, searchSessions, type CallRef, type SessionSearchHit } from '../provenance';
import { SessionStore } from '../session';
import { isSafeRegex } from '../tools/regex-safety';
import { compareView } from './history';
import { assertNotSessionBranch, defaultTarget } from './merge-target';
import type { ShownPatch } from './patches';
import { personOf, type Person } from './signature';

export interface SessionDiff {
  session: string;
  /** The branch compared against, or null when the session has no target branch. */
  target: string | null;
  targetHead: string | null;
  /** `merge-base`: the changes a merge would bring; `start`: the session is merged (or has no target), its changes since it started. */
  against: 'merge-base' | 'start';
  from: string;
  to: string;
  files: ShownPatch[];
}

export async function sessionDiff(repo: Repository, id: string, into?: string): Promise<SessionDiff> {
  const session = await new SessionStore(repo).open(id);
  const head = session.head;
  const target = into ?? (await defaultTarget(repo, session.state.base));
  if (target !== undefined) assertNotSessionBranch(target);
  const targetHead = target === undefined ? null : await repo.refs.resolve(`refs/heads/${target}`);
  if (target !== undefined && targetHead === null) throw new ForgeError('REF_NOT_FOUND', `No branch ${target}; name an existing branch to compare the session with.`, { data: { into: target } });
  const base = targetHead === null ? undefined : (await mergeBases(repositoryGraph(repo), head, targetHead))[0];
  const merged = base === undefined || base === head;
  const from = merged ? session.state.base.commit : base;
  const diff = await compareView(repo, from, head);
  return { session: id, target: target ?? null, targetHead, against: merged ? 'start' : 'merge-base', from: diff.from, to: diff.to, files: diff.files };
}

export interface BlameCommit {
  author: Person;
  summary: string;
  /** The session turn the commit is, with the call that wrote its lines (by line, below) and that turn's user message. */
  session: { id: string; turn: number; replays?: string; userMessage: string | null; model?: string } | null;
}

export interface BlameView {
  commit: string;
  path: string;
  /** Every line: its text, the commit that last changed it and its line there, and the call that wrote it (a session's line). */
  lines: Array<{ text: string; commit: string; sourceLine: number; call: CallRef | null }>;
  /** The details of every commit a line names. */
  commits: Record<string, BlameCommit>;
}

/** A file at a commit with the provenance of every line (the API of `forge blame`). */
export async function blameView(repo: Repository, revision: string, path: string): Promise<BlameView> {
  const file = await fileProvenance(repo, revision, path);
  const commits: Record<string, BlameCommit> = {};
  for (const line of file.lines) {
    if (commits[line.commit]) continue;
    const info = file.commits.get(line.commit)!;
    const s = line.session;
    commits[line.commit] = {
      author: personOf(info.author),
      summary: line.summary,
      session: s ? { id: s.session, turn: s.turn, userMessage: s.userMessage, ...(s.replays ? { replays: s.replays } : {}), ...(s.model ? { model: s.model } : {}) } : null,
    };
  }
  return { commit: file.commit, path: file.path, lines: file.lines.map((l) => ({ text: l.text, commit: l.commit, sourceLine: l.sourceLine, call: l.session?.call ?? null })), commits };
}

export interface SearchQuery {
  grep?: string;
  author?: string;
  /** What `forge log --since` takes (`parseSince`): an ISO 8601 date or time, `@<unix seconds>`, "2 weeks ago". */
  since?: string;
  ignoreCase?: boolean;
}

function pattern(source: string, ignoreCase: boolean, option: string): RegExp {
  let re: RegExp;
  try {
    re = new RegExp(source, ignoreCase ? 'i' : '');
  } catch (error) {
    throw new ForgeError('INVALID_ARGUMENT', `${option} ${JSON.stringify(source)} is not a valid regular expression: ${(error as Error).message}.`, { data: { option, source } });
  }
  if (!isSafeRegex(re)) throw new ForgeError('INVALID_ARGUMENT', `${option} ${JSON.stringify(source)} could take exponential time (a nested quantifier); simplify it.`, { data: { option, source } });
  return re;
}

/** `forge log --grep/--author/--since` across every session, streamed hit by hit. */
export function searchView(repo: Repository, query: SearchQuery, now: Date = new Date()): AsyncIterable<SessionSearchHit> {
  const ignoreCase = query.ignoreCase ?? false;
  // The CLI's parser: a date the page's field takes is one `forge log --since` takes, and the reverse.
  const since = query.since === undefined ? undefined : parseSince(query.since, now, 'since');
  return searchSessions(repo, {
    ...(query.grep ? { grep: pattern(query.grep, ignoreCase, 'grep') } : {}),
    ...(query.author ? { author: pattern(query.author, ignoreCase, 'author') } : {}),
    ...(since !== undefined ? { since } : {}),
  });
}
