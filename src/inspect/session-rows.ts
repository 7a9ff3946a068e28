/**
 * The sessions list, one row at a time: each session's state is read, summarized and dropped
 * before the next is read, so listing 1,000 sessions never holds 1,000 states (the caller writes
 * each row out as it comes).
 *
 * The summary of a state (turns, base, dates, first message, parent) depends on the head commit
 * alone, so it is kept by head (`cache.ts`): a list asked again (a reload, a live update after a
 * turn) reads only the states of the sessions that moved. A state is read for its summary only:
 * its file found by a walk of three trees, its JSON checked in the fields the row shows (the whole
 * schema, every message and tool call, was most of the cost); a state that fails that check is
 * read as `forge show` reads it, for its error. The pending counts are read every time, and only
 * for the sessions that have a journal (one listing of the journal folder instead of a failed
 * open per session).
 */
import { errnoCode, joinPath, type Repository } from '../git';
import { readStateAt, SESSION_DIR, SESSION_REF_PREFIX, READABLE_STATE_VERSIONS, sessionBranch, validateSessionId } from '../session';
import { FsJournal } from '../vfs';
import { repositoryCache } from './cache';

export interface SessionRow {
  id: string;
  branch: string;
  head: string;
  /** The number of committed turns. */
  turns: number;
  base: { ref?: string; commit: string };
  createdAt: string;
  updatedAt: string;
  /** Paths changed and not yet committed (the session's journal). */
  pending: number;
  parent?: { session: string; commit: string; turn: number };
  /** The first user message, for the text filter. */
  title: string;
  /** The state file could not be read: the row shows the branch only. */
  error?: string;
}

type StateSummary = Pick<SessionRow, 'turns' | 'base' | 'createdAt' | 'updatedAt' | 'title' | 'parent'>;

/** Room for the summaries of this many session heads. */
const SUMMARIES = 20_000;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const decoder = new TextDecoder();

/** The summary of a state file's JSON, or undefined when a field it takes is not as the schema says. */
function summaryOf(raw: unknown): StateSummary | undefined {
  if (!isRecord(raw) || !READABLE_STATE_VERSIONS.includes(raw.version as number)) return undefined;
  const { turn, base, createdAt, updatedAt, messages, parent } = raw;
  if (!isCount(turn) || typeof createdAt !== 'string' || typeof updatedAt !== 'string' || !Array.isArray(messages)) return undefined;
  if (!isRecord(base) || typeof base.commit !== 'string' || (base.ref !== undefined && typeof base.ref !== 'string')) return undefined;
  const first = messages.find((m) => isRecord(m) && m.role === 'user') as Record<string, unknown> | undefined;
  if (first !== undefined && typeof first.content !== 'string') return undefined;
  const out: StateSummary = {
    turns: turn,
    base: base.ref === undefined ? { commit: base.commit } : { ref: base.ref, commit: base.commit },
    createdAt,
    updatedAt,
    title: (first?.content as string | undefined)?.slice(0, 200) ?? '',
  };
  if (parent !== undefined) {
    if (!isRecord(parent) || typeof parent.session !== 'string' || typeof parent.commit !== 'string' || !isCount(parent.turn)) return undefined;
    out.parent = { session: parent.session, commit: parent.commit, turn: parent.turn };
  }
  return out;
}

/** The bytes of a session's state file at a commit, or undefined when it is not where it should be. */
async function stateBytes(repo: Repository, id: string, head: string): Promise<Uint8Array | undefined> {
  let tree = (await repo.readCommit(head)).tree;
  for (const name of SESSION_DIR.split('/')) {
    const entry = (await repo.readTree(tree)).find((e) => e.name === name);
    if (entry?.mode !== '040000') return undefined;
    tree = entry.oid;
  }
  const file = (await repo.readTree(tree)).find((e) => e.name === `${id}.json`);
  return file && file.mode !== '040000' && file.mode !== '160000' ? repo.readBlob(file.oid) : undefined;
}

/** Summaries being read, so that two lists at once (or a list and the warm-up) read a state once. */
const reading = new WeakMap<Repository, Map<string, Promise<StateSummary>>>();

async function summary(repo: Repository, id: string, head: string): Promise<StateSummary> {
  const cache = repositoryCache<StateSummary>(repo, 'session-summary', SUMMARIES);
  const key = `${id}\0${head}`;
  const known = cache.get(key);
  if (known) return known;
  let inFlight = reading.get(repo);
  if (!inFlight) reading.set(repo, (inFlight = new Map()));
  const pending = inFlight.get(key);
  if (pending) return pending;
  const read = readSummary(repo, id, head).finally(() => inFlight.delete(key));
  inFlight.set(key, read);
  const out = await read;
  cache.set(key, out);
  return out;
}

async function readSummary(repo: Repository, id: string, head: string): Promise<StateSummary> {
  let out: StateSummary | undefined;
  try {
    const bytes = await stateBytes(repo, id, head);
    out = bytes && summaryOf(JSON.parse(decoder.decode(bytes)));
  } catch {
    out = undefined; // not JSON, or an object missing: read below for the error
  }
  if (out) return out;
  // Read as everywhere else: the error it gives, or (a state the check above misjudged) its summary.
  const state = await readStateAt(repo, head, id);
  out = { turns: state.turn, base: state.base, createdAt: state.createdAt, updatedAt: state.updatedAt, title: state.messages.find((m) => m.role === 'user')?.content.slice(0, 200) ?? '' };
  if (state.parent) out.parent = state.parent;
  return out;
}

/** The journal files present (`<id>.jsonl`), or undefined when the folder cannot be listed (then every session's is tried). */
async function journalNames(repo: Repository): Promise<Set<string> | undefined> {
  try {
    return new Set(await repo.fs.promises.readdir(joinPath(repo.commonDir, 'forge', 'pending')));
  } catch (error) {
    return errnoCode(error) === 'ENOENT' ? new Set() : undefined;
  }
}

/**
 * The session branches whose name is a valid session id: a branch such as
 * `forge/session/a/b` or `forge/session/-x` (made with plain git) is no session the page could
 * open, so it is not listed.
 */
async function sessionRefs(repo: Repository): Promise<Array<{ ref: string; oid: string }>> {
  return (await repo.refs.list(SESSION_REF_PREFIX)).filter(({ ref }) => {
    try {
      validateSessionId(ref.slice(SESSION_REF_PREFIX.length));
      return true;
    } catch {
      return false;
    }
  });
}

export async function* sessionRows(repo: Repository): AsyncGenerator<SessionRow> {
  const refs = await sessionRefs(repo);
  const journals = await journalNames(repo);
  for (const { ref, oid } of refs) {
    const id = ref.slice(SESSION_REF_PREFIX.length);
    const hasJournal = journals === undefined || journals.has(`${id}.jsonl`);
    const pending = hasJournal ? ((await new FsJournal(repo.fs, repo.commonDir, id).load().catch(() => null))?.changes.size ?? 0) : 0;
    const row: SessionRow = { id, branch: sessionBranch(id), head: oid, turns: 0, base: { commit: '' }, createdAt: '', updatedAt: '', pending, title: '' };
    try {
      Object.assign(row, await summary(repo, id, oid));
    } catch (error) {
      row.error = error instanceof Error ? error.message : String(error);
    }
    yield row;
  }
}

/**
 * Reads every session's summary once, in the background, from the server's start: by the time a
 * person opens the printed URL, the first list is answered from what is kept. It gives way to
 * requests (`busy`: it waits while one is being answered) and ends when `stopped` says so.
 */
export async function warmSessionRows(repo: Repository, stopped: () => boolean, busy: () => boolean = () => false): Promise<void> {
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    const refs = await sessionRefs(repo);
    for (const [i, { ref, oid }] of refs.entries()) {
      while (busy() && !stopped()) await pause(25);
      if (stopped()) return;
      await summary(repo, ref.slice(SESSION_REF_PREFIX.length), oid).catch(() => undefined);
      // A few summaries per turn of the event loop: a request arriving meanwhile is not kept waiting.
      if (i % 8 === 7) await pause(0);
    }
  } catch {
    // Refs unreadable now: the first list reads them itself.
  }
}
