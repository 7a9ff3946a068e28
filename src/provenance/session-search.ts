/**
 * `forge log --grep/--author/--since` across every session, local branches and fetched ones
 * (refs/remotes/<remote>/forge/session/*): each turn commit whose conversation (the turn's
 * messages, its tool calls' arguments and results) or commit message matches. Streams one
 * session at a time, so searching many sessions never holds them all.
 */
import type { Repository } from '../git';
import { parseTrailers, readStateAt, SESSION_REF_PREFIX, subjectOf, type SessionState } from '../session';

export interface SessionSearchQuery {
  /** Matched against the turn's messages, calls and commit message. */
  grep?: RegExp;
  /** Matched against the commit author's `Name <email>`, as git log --author. */
  author?: RegExp;
  /** Only turns committed at or after this time (seconds since the epoch). */
  since?: number;
  /** Only this session. */
  session?: string;
}

export interface SessionSearchHit {
  session: string;
  /** The branch the session was found on (a local session branch or a remote-tracking one). */
  ref: string;
  turn: number;
  commit: string;
  time: string;
  author: { name: string; email: string };
  summary: string;
  /** Where the pattern matched, with a one-line excerpt around the match. */
  matches: Array<{ where: 'user' | 'assistant' | 'tool' | 'call' | 'commit'; excerpt: string }>;
}

const MAX_MATCHES_PER_TURN = 5;
/** As forge log: this many commits in a row without the session's trailer end the walk. */
const MAX_OUTSIDE_COMMITS = 50;
const EXCERPT = 60;

export function excerpt(text: string, pattern: RegExp): string | null {
  const flags = pattern.flags.replace(/[gy]/g, '');
  const match = new RegExp(pattern.source, flags).exec(text);
  if (!match) return null;
  const start = Math.max(0, match.index - EXCERPT);
  const end = Math.min(text.length, match.index + match[0].length + EXCERPT);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}

/** Session branches, local first, then fetched ones: [ref, session id]. */
async function sessionRefs(repo: Repository): Promise<Array<{ ref: string; id: string; oid: string }>> {
  const out: Array<{ ref: string; id: string; oid: string }> = [];
  for (const { ref, oid } of await repo.refs.list(SESSION_REF_PREFIX)) out.push({ ref, id: ref.slice(SESSION_REF_PREFIX.length), oid });
  for (const { ref, oid } of await repo.refs.list('refs/remotes/')) {
    const at = ref.indexOf('/forge/session/', 'refs/remotes/'.length);
    if (at > 0) out.push({ ref, id: ref.slice(at + '/forge/session/'.length), oid });
  }
  return out;
}

export async function* searchSessions(repo: Repository, query: SessionSearchQuery): AsyncGenerator<SessionSearchHit> {
  const seen = new Set<string>();
  for (const { ref, id, oid: head } of await sessionRefs(repo)) {
    if (query.session !== undefined && id !== query.session) continue;
    const headState = await readStateAt(repo, head, id).catch(() => null);
    let oid: string | undefined = head;
    let outside = 0;
    while (oid && !seen.has(oid) && outside <= MAX_OUTSIDE_COMMITS) {
      seen.add(oid);
      const commit = await repo.readCommit(oid);
      const parent: string | undefined = commit.parents[0];
      const trailers = parseTrailers(commit.message);
      if (trailers['Forge-Session'] !== id) {
        // A commit made on the session branch outside forge (a person's): walk on below it.
        outside++;
        oid = parent;
        continue;
      }
      outside = 0;
      const turn = Number(trailers['Forge-Turn'] ?? 0);
      // A session's first commit (turn 0, or the start of a resumed session on another session's
      // commit) holds no turn of its own; below it is the base's history.
      const parentSession = parent === undefined ? undefined : parseTrailers((await repo.readCommit(parent)).message)['Forge-Session'];
      if (turn === 0 || parent === undefined || (parentSession !== undefined && parentSession !== id)) break;
      const hit = await matchTurn(repo, query, { id, ref, oid, turn, commit, headState });
      if (hit) yield hit;
      if (query.since !== undefined && commit.committer.timestamp < query.since) break;
      oid = parent;
    }
  }
}

async function matchTurn(
  repo: Repository,
  query: SessionSearchQuery,
  at: { id: string; ref: string; oid: string; turn: number; commit: Awaited<ReturnType<Repository['readCommit']>>; headState: SessionState | null },
): Promise<SessionSearchHit | null> {
  const { commit } = at;
  if (query.since !== undefined && commit.committer.timestamp < query.since) return null;
  if (query.author && !query.author.test(`${commit.author.name} <${commit.author.email}>`)) return null;
  const matches: SessionSearchHit['matches'] = [];
  if (query.grep) {
    const add = (where: SessionSearchHit['matches'][number]['where'], text: string) => {
      if (matches.length >= MAX_MATCHES_PER_TURN) return;
      const found = excerpt(text, query.grep!);
      if (found !== null) matches.push({ where, excerpt: found });
    };
    for (const m of at.headState?.messages ?? []) if (m.turn === at.turn) add(m.role, m.content);
    const state = await readStateAt(repo, at.oid, at.id).catch(() => null);
    for (const call of state?.toolCalls ?? []) {
      if (call.turn !== at.turn) continue;
      add('call', `${call.tool} ${JSON.stringify(call.args)}${call.output !== undefined ? ` → ${typeof call.output === 'string' ? call.output : JSON.stringify(call.output)}` : ''}${call.error ? ` → ${call.error.code}: ${call.error.message}` : ''}`);
    }
    add('commit', commit.message);
    if (matches.length === 0) return null;
  }
  return {
    session: at.id,
    ref: at.ref,
    turn: at.turn,
    commit: at.oid,
    time: new Date(commit.committer.timestamp * 1000).toISOString(),
    author: { name: commit.author.name, email: commit.author.email },
    summary: subjectOf(commit.message),
    matches,
  };
}
