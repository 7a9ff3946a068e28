/**
 * `forge blame` and `forge why`: every line of a file with the commit that last changed it (git
 * blame's attribution) and, for a line a session turn wrote, the session, turn, tool call and the
 * user message of that turn, read from the state file that turn committed. Rebased turns carry a
 * Forge-Replays trailer naming the commit they replay; it is reported beside the turn.
 */
import { ForgeError } from '../errors';
import type { Repository, Signature } from '../git';
import { parseTrailers, readStateAt, type SessionState } from '../session';
import { Blamer, type BlameResult } from './blame';
import { lineText, type PorcelainCommit } from './porcelain';
import { RepositoryHistory } from './repo-history';
import { ChangedPathCache } from './changed-path-cache';
import { callThatWrote, type CallRef } from './turn-calls';

export interface TurnOfLine {
  session: string;
  turn: number;
  /** The original commit of a turn `forge rebase` replayed. */
  replays?: string;
  call: CallRef | null;
  userMessage: string | null;
  model?: string;
}

export interface LineProvenance {
  /** 1-based line number in the blamed file. */
  line: number;
  text: string;
  commit: string;
  /** 1-based line number in that commit's version, and its path there. */
  sourceLine: number;
  path: string;
  author: { name: string; email: string; time: string; zone: string };
  summary: string;
  /** Set where a forge session turn wrote the line. */
  session: TurnOfLine | null;
}

export interface FileProvenance {
  commit: string;
  path: string;
  lines: LineProvenance[];
  blame: BlameResult;
  commits: Map<string, PorcelainCommit>;
}

function zone(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

function iso(sig: Signature): string {
  return new Date(sig.timestamp * 1000).toISOString().replace('.000Z', 'Z');
}

export interface BlamedFile {
  commit: string;
  path: string;
  blame: BlameResult;
  /** Each blamed commit's details, with its session and turn where its trailers name them. */
  commits: Map<string, PorcelainCommit & { replays?: string }>;
}

/** 0-based final lines [start, end), as `git blame -L start+1,end`. */
export interface LineRange {
  start: number;
  end: number;
}

/**
 * git blame's attribution of `path` at `revision` (of the lines in `range` only, when given),
 * with each commit's details (no session state read).
 */
export async function blameFile(repo: Repository, revision: string, path: string, range?: LineRange): Promise<BlamedFile> {
  const commit = await repo.resolveCommit(revision);
  const filters = new ChangedPathCache(repo.fs, repo.commonDir, repo.platform.text?.hex);
  const blame = await new Blamer(new RepositoryHistory(repo, filters)).blame(commit, path, range);
  await filters.save();
  if (blame === null) throw new ForgeError('PATH_NOT_FOUND', `No file ${path} at ${revision} (${commit.slice(0, 12)}); name a file that commit holds.`, { data: { path, revision, commit } });
  const commits = new Map<string, PorcelainCommit & { replays?: string }>();
  for (const line of blame.lines) {
    if (commits.has(line.commit)) continue;
    const c = await repo.readCommit(line.commit);
    const trailers = parseTrailers(c.message);
    const id = trailers['Forge-Session'];
    const turn = Number(trailers['Forge-Turn']);
    commits.set(line.commit, {
      author: c.author,
      committer: c.committer,
      message: c.message,
      root: c.parents.length === 0,
      ...(id !== undefined && Number.isInteger(turn) ? { session: { id, turn } } : {}),
      ...(trailers['Forge-Replays'] ? { replays: trailers['Forge-Replays'] } : {}),
    });
  }
  return { commit, path, blame, commits };
}

/** Blames `path` at `revision` (the lines in `range`, when given) and names the session turn behind every line a session wrote. */
export async function fileProvenance(repo: Repository, revision: string, path: string, range?: LineRange): Promise<FileProvenance> {
  const file = await blameFile(repo, revision, path, range);
  const result = file.blame;
  const states = new Map<string, SessionState | null>();
  const stateOf = async (oid: string, id: string) => {
    if (!states.has(oid)) states.set(oid, await readStateAt(repo, oid, id).catch(() => null));
    return states.get(oid)!;
  };
  const lines: LineProvenance[] = [];
  for (let i = 0; i < result.lines.length; i++) {
    const blamed = result.lines[i]!;
    const info = file.commits.get(blamed.commit)!;
    const text = lineText(result, result.first + i);
    let session: TurnOfLine | null = null;
    if (info.session) {
      const { id, turn } = info.session;
      const state = await stateOf(blamed.commit, id);
      const user = state?.messages.find((m) => m.turn === turn && m.role === 'user');
      session = {
        session: id,
        turn,
        ...(info.replays ? { replays: info.replays } : {}),
        call: state ? callThatWrote(state.toolCalls, turn, blamed.path, text) : null,
        userMessage: user?.content ?? null,
        ...(state?.model ? { model: [state.model.provider, state.model.model].filter(Boolean).join('/') } : {}),
      };
    }
    lines.push({
      line: result.first + i + 1,
      text,
      commit: blamed.commit,
      sourceLine: blamed.sourceLine + 1,
      path: blamed.path,
      author: { name: info.author.name, email: info.author.email, time: iso(info.author), zone: zone(info.author.timezoneOffset) },
      summary: info.message.split('\n')[0] ?? '',
      session,
    });
  }
  return { commit: file.commit, path, lines, blame: result, commits: file.commits };
}

export interface LineConversation {
  line: LineProvenance;
  /** The user's message of that turn, the assistant's text that made the call, the call and its result. */
  userMessage: string | null;
  assistantText: string | null;
  call: { id: string; tool: string; args: unknown; ok: boolean; output?: unknown; error?: { code: string; message: string } } | null;
}

/** `forge why`: the conversation excerpt behind one line (only that line is followed through history). */
export async function whyLine(repo: Repository, revision: string, path: string, lineNumber: number): Promise<LineConversation> {
  const file = await fileProvenance(repo, revision, path, { start: lineNumber - 1, end: lineNumber });
  const line = file.lines[0];
  const count = file.blame.starts.length - 1;
  if (!line) throw new ForgeError('INVALID_ARGUMENT', `${path} has ${count} lines at ${revision}; line ${lineNumber} is not one of them.`, { data: { path, line: lineNumber, lines: count } });
  if (!line.session) return { line, userMessage: null, assistantText: null, call: null };
  const state = await readStateAt(repo, line.commit, line.session.session);
  const record = line.session.call ? state.toolCalls[line.session.call.index] ?? null : null;
  const assistant = record ? state.messages.find((m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.id === record.id)) : undefined;
  const fallback = state.messages.filter((m) => m.turn === line.session!.turn && m.role === 'assistant').map((m) => m.content).filter((t) => t.trim() !== '');
  return {
    line,
    userMessage: line.session.userMessage,
    assistantText: assistant?.content ?? (fallback.length > 0 ? fallback.join('\n\n') : null),
    call: record ? { id: record.id, tool: record.tool, args: record.args, ok: record.ok, ...(record.output !== undefined ? { output: record.output } : {}), ...(record.error ? { error: record.error } : {}) } : null,
  };
}
