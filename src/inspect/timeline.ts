/**
 * A session's timeline: one row per commit of its branch (the start, then every turn), with the
 * conversation of that turn (from the head's state, which holds the whole conversation), its
 * tool calls (from the turn's own commit: a state file holds its turn's calls only), the files
 * the commit changed with +/- counts, and where undo and resume apply.
 */
import { mergeBases, type CommitGraph } from '../branches';
import { diffTrees, type Repository } from '../git';
import { repositoryCache } from './cache';
import { interleave, type ConversationItem } from './conversation';
import { modelName, personOf, type Person } from './signature';
import { defaultTarget } from './merge-target';
import { shownPatches } from './patches';
import { parseTrailers, readStateAt, SessionStore, sessionStatePath, subjectOf, type Message, type SessionState, type ToolCallRecord } from '../session';

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
  /** The turn commit's author, with the time and zone they recorded. */
  author: Person;
  /** The model of the session as this turn's state names it (provider/model), or null. */
  model: string | null;
  summary: string;
  messages: Message[];
  toolCalls: ToolCallRecord[];
  /** The messages and calls in the order of the conversation (`conversation.ts`). */
  conversation: ConversationItem[];
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
  /** The default merge and rebase target (`merge-target.ts`): the base branch, else HEAD's; null when neither is a branch. */
  target: string | null;
  /** The session's head is already in the target: the target and its head. */
  merged: { into: string; targetHead: string } | null;
  /** The model the head's state names (provider/model), or null. */
  model: string | null;
  turns: TimelineTurn[];
}

/** The timeline without its turns, as the streamed timeline's first line gives it, with the commits to come. */
export interface TimelineHeader extends Omit<Timeline, 'turns'> {
  /** Every turn's commit, oldest first (the compare form lists them before the turns arrive). */
  commits: Array<{ turn: number; commit: string }>;
}

/** What a commit says about its turn (kept by commit: `cache.ts`). */
interface CommitMeta {
  /** The Forge-Session trailer: the walk stops at the first commit of another session. */
  session: string | undefined;
  parent: string | undefined;
  /** Every parent, and the committer time in seconds: the merge check walks these (`commitGraph`). */
  parents: readonly string[];
  timestamp: number;
  tree: string;
  turn: number;
  time: string;
  author: Person;
  summary: string;
}

/** Room for this many commits, and for the files of this many turns (a 500-turn session is 500). */
const CACHED_COMMITS = 50_000;
/** Whole timelines kept by session head: the pages open at once (a 500-turn one is a few MB). */
const CACHED_TIMELINES = 8;

async function commitMeta(repo: Repository, oid: string): Promise<CommitMeta> {
  const cache = repositoryCache<CommitMeta>(repo, 'timeline-commit', CACHED_COMMITS);
  const known = cache.get(oid);
  if (known) return known;
  const commit = await repo.readCommit(oid);
  const trailers = parseTrailers(commit.message);
  const out: CommitMeta = {
    session: trailers['Forge-Session'],
    parent: commit.parents[0],
    parents: commit.parents,
    timestamp: commit.committer.timestamp,
    tree: commit.tree,
    turn: Number(trailers['Forge-Turn'] ?? 0),
    time: new Date(commit.committer.timestamp * 1000).toISOString(),
    author: personOf(commit.author),
    summary: subjectOf(commit.message),
  };
  cache.set(oid, out);
  return out;
}

/** The files a turn's commit changed, with +/- counts (the session's own state file left out). */
async function commitFiles(repo: Repository, id: string, oid: string, meta: CommitMeta): Promise<TimelineFile[]> {
  const cache = repositoryCache<TimelineFile[]>(repo, 'timeline-files', CACHED_COMMITS);
  const key = `${id}\0${oid}`;
  const known = cache.get(key);
  if (known) return known;
  const parentTree = meta.parent ? (await commitMeta(repo, meta.parent)).tree : null;
  const changes = (await diffTrees(repo, parentTree, meta.tree)).filter((c) => c.path !== sessionStatePath(id));
  const files = (await shownPatches(repo, changes)).map((p) => ({ path: p.path, kind: p.kind, added: p.added, removed: p.removed, binary: p.binary }));
  cache.set(key, files);
  return files;
}

/** The tool calls of a turn and the model its state names, from the state file of the commit that made it (kept by commit). */
async function commitToolCalls(repo: Repository, id: string, oid: string, turn: number): Promise<{ calls: ToolCallRecord[]; model: string | null }> {
  const cache = repositoryCache<{ calls: ToolCallRecord[]; model: string | null }>(repo, 'timeline-calls', CACHED_COMMITS);
  const key = `${id}\0${oid}`;
  const known = cache.get(key);
  if (known) return known;
  // A commit without a readable state file of this session (made with git on the branch) made no calls.
  const state = await readStateAt(repo, oid, id).catch(() => null);
  const out = { calls: state?.toolCalls.filter((c) => c.turn === turn) ?? [], model: modelName(state?.model) };
  cache.set(key, out);
  return out;
}

/**
 * The commit graph over the commits kept by `commitMeta`: the merge check walks the session's
 * commits the timeline has just read (and the target's, read once), not the repository again.
 */
function commitGraph(repo: Repository): CommitGraph {
  return { parents: async (oid) => (await commitMeta(repo, oid)).parents, time: async (oid) => (await commitMeta(repo, oid)).timestamp };
}

/** Room for this many (head, target head) answers: a page open on each of many sessions, each target moving a few times. */
const CACHED_MERGE_CHECKS = 4096;

/**
 * Whether the session's head is already in `target` (a merge base of the two is the head itself).
 * The answer for two commits never changes, so it is kept by the pair: a timeline asked again
 * (every live update) walks no history unless the session or its target moved.
 */
export async function mergedInto(repo: Repository, head: string, target: string | undefined): Promise<{ into: string; targetHead: string } | null> {
  if (target === undefined) return null;
  const targetHead = await repo.refs.resolve(`refs/heads/${target}`);
  if (targetHead === null) return null;
  const cache = repositoryCache<boolean>(repo, 'timeline-merged', CACHED_MERGE_CHECKS);
  const key = `${head}\0${targetHead}`;
  let contained = cache.get(key);
  if (contained === undefined) {
    contained = (await mergeBases(commitGraph(repo), head, targetHead)).includes(head);
    cache.set(key, contained);
  }
  return contained ? { into: target, targetHead } : null;
}

/**
 * A session's timeline in two parts: what is known at once (the session, its pending changes,
 * its commits: a walk of the branch that reads commits only) and the turns, computed one by
 * one, oldest first, as they are asked for (each turn's files need a tree diff and a line diff
 * per file). What a commit gives is kept by commit, so a timeline asked again after a new turn
 * computes that turn alone. The route `/sessions/:id/turns` streams it; `sessionTimeline` is it
 * gathered in one object.
 */
export async function openTimeline(repo: Repository, id: string): Promise<{ header: TimelineHeader; turns: () => AsyncGenerator<TimelineTurn> }> {
  const store = new SessionStore(repo);
  const session = await store.open(id);
  const state = session.state;
  const pending = (await session.vfs.diff()).map((c) => c.path);
  // Walk the branch from its head to the commit that started it, as `forge log` does.
  const commits: Array<{ oid: string; meta: CommitMeta }> = [];
  let oid: string | undefined = (await repo.refs.resolve(`refs/heads/${session.branch}`)) ?? undefined;
  const head = oid!;
  while (oid) {
    const meta = await commitMeta(repo, oid);
    if (meta.session !== id) break;
    commits.push({ oid, meta });
    oid = meta.parent;
  }
  commits.reverse();
  // A resumed session's state carries the conversation of the session it came from: those
  // messages belong to turns before this branch's first commit and are shown there. Two commits
  // with one turn number: the later one gets them.
  const messages = new Map<number, Message[]>();
  const known = new Set(commits.map((c) => c.meta.turn));
  const push = <T>(map: Map<number, T[]>, turn: number, item: T) => {
    if (!known.has(turn)) return;
    const list = map.get(turn);
    if (list) list.push(item);
    else map.set(turn, [item]);
  };
  for (const m of state.messages) push(messages, m.turn, m);
  const lastOfTurn = new Map(commits.map((c, i) => [c.meta.turn, i]));
  const header: TimelineHeader = {
    session: id,
    branch: session.branch,
    head,
    base: state.base,
    mode: state.mode,
    undo: state.undo ? { tool: state.undo.tool, turn: state.undo.turn, summary: state.undo.summary } : null,
    pending,
    commits: commits.map((c) => ({ turn: c.meta.turn, commit: c.oid })),
    target: null,
    merged: null,
    model: modelName(state.model),
  };
  const target = await defaultTarget(repo, state.base);
  header.target = target ?? null;
  header.merged = await mergedInto(repo, head, target);
  if (state.parent) header.parent = state.parent;
  // The turns are the same for the same head (its commits and its state's conversation): a
  // timeline asked again (every live update of every open page) hands back the ones computed.
  const computed = repositoryCache<TimelineTurn[]>(repo, 'timeline-turns', CACHED_TIMELINES);
  const key = `${id}\0${head}`;
  async function* turns(): AsyncGenerator<TimelineTurn> {
    const known = computed.get(key);
    if (known) return yield* known;
    const out: TimelineTurn[] = [];
    for (const [i, { oid: commit, meta }] of commits.entries()) {
      const own = lastOfTurn.get(meta.turn) === i;
      const { calls, model } = await commitToolCalls(repo, id, commit, meta.turn);
      const turnMessages = own ? (messages.get(meta.turn) ?? []) : [];
      const toolCalls = own ? calls : [];
      const files = await commitFiles(repo, id, commit, meta);
      const turn: TimelineTurn = {
        turn: meta.turn,
        commit,
        time: meta.time,
        author: meta.author,
        model,
        summary: meta.summary,
        messages: turnMessages,
        toolCalls,
        conversation: interleave(turnMessages, toolCalls, new Map(files.map((f) => [f.path, f]))),
        files,
      };
      out.push(turn);
      yield turn;
    }
    computed.set(key, out);
  }
  return { header, turns };
}

export async function sessionTimeline(repo: Repository, id: string): Promise<Timeline> {
  const { header, turns } = await openTimeline(repo, id);
  const { commits: _, parent, ...rest } = header;
  const out: Timeline = { ...rest, turns: [] };
  for await (const turn of turns()) out.turns.push(turn);
  if (parent) out.parent = parent;
  return out;
}

/** The streamed timeline: its header line `{timeline}`, then a line `{turn}` per turn, oldest first. */
export async function timelineLines(repo: Repository, id: string): Promise<AsyncIterable<{ timeline: TimelineHeader } | { turn: TimelineTurn }>> {
  const { header, turns } = await openTimeline(repo, id);
  return (async function* () {
    yield { timeline: header };
    for await (const turn of turns()) yield { turn };
  })();
}
