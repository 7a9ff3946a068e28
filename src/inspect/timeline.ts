/**
 * A session's timeline: one row per commit of its branch (the start, then every turn), with the
 * conversation and the tool calls of that turn (from the head's state, which holds the whole
 * conversation), the files the commit changed with +/- counts, and where undo and resume apply.
 */
import { diffTrees, type Repository } from '../git';
import { shownPatches } from './patches';
import { parseTrailers, SessionStore, sessionStatePath, subjectOf, type Message, type SessionState, type ToolCallRecord } from '../session';

export interface TimelineFile {
  path: string;
  kind: 'added' | 'modified' | 'deleted';
  added: number;
  removed: number;
  binary: boolean;
}

export interface TimelineTurn {
  turn: number;
  commit: string;
  time: string;
  summary: string;
  messages: Message[];
  toolCalls: ToolCallRecord[];
  files: TimelineFile[];
}

export interface Timeline {
  session: string;
  branch: string;
  head: string;
  base: SessionState['base'];
  parent?: SessionState['parent'];
  mode: string;
  /** The edit `forge undo` would revert (a committed turn's), or null. */
  undo: { tool: string; turn: number; summary: string } | null;
  /** Paths changed and not committed. */
  pending: string[];
  turns: TimelineTurn[];
}

export async function sessionTimeline(repo: Repository, id: string): Promise<Timeline> {
  const store = new SessionStore(repo);
  const session = await store.open(id);
  const state = session.state;
  const pending = (await session.vfs.diff()).map((c) => c.path);
  const turns: TimelineTurn[] = [];
  // Walk the branch from its head to the commit that started it, as `forge log` does.
  let oid: string | undefined = (await repo.refs.resolve(`refs/heads/${session.branch}`)) ?? undefined;
  const head = oid!;
  while (oid) {
    const commit = await repo.readCommit(oid);
    const trailers = parseTrailers(commit.message);
    if (trailers['Forge-Session'] !== id) break;
    const parentTree = commit.parents[0] ? (await repo.readCommit(commit.parents[0])).tree : null;
    const changes = (await diffTrees(repo, parentTree, commit.tree)).filter((c) => c.path !== sessionStatePath(id));
    const turn = Number(trailers['Forge-Turn'] ?? 0);
    const files = (await shownPatches(repo, changes)).map((p) => ({ path: p.path, kind: p.kind, added: p.added, removed: p.removed, binary: p.binary }));
    turns.push({
      turn,
      commit: oid,
      time: new Date(commit.committer.timestamp * 1000).toISOString(),
      summary: subjectOf(commit.message),
      messages: [],
      toolCalls: [],
      files,
    });
    oid = commit.parents[0];
  }
  turns.reverse();
  const byTurn = new Map(turns.map((t) => [t.turn, t]));
  // A resumed session's state carries the conversation of the session it came from: those
  // messages belong to turns before this branch's first commit and are shown there.
  for (const m of state.messages) byTurn.get(m.turn)?.messages.push(m);
  for (const c of state.toolCalls) byTurn.get(c.turn)?.toolCalls.push(c);
  const out: Timeline = {
    session: id,
    branch: session.branch,
    head,
    base: state.base,
    mode: state.mode,
    undo: state.undo ? { tool: state.undo.tool, turn: state.undo.turn, summary: state.undo.summary } : null,
    pending,
    turns,
  };
  if (state.parent) out.parent = state.parent;
  return out;
}
