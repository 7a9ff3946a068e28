/**
 * Sessions of one repository: create (a branch `forge/session/<id>` whose first commit holds
 * the session file), open (with the journaled pending set), list, time travel to any commit
 * of a session, resume from one into a new session, and the turn log.
 */
import { ForgeError } from '../errors';
import { buildTree, diffTrees, ZERO_OID, type Commit, type Repository, type Signature, type TreeChangeEntry } from '../git';
import { CommitVfs, FsJournal, PENDING_REF_PREFIX, PendingPin, WorkInProgressVfs, type WorkInProgressOptions } from '../vfs';
import { carryPendingOnto, foldJournaledState, pendingAlreadyCommitted, renumberRecords, type CarryOver } from './carry-over';
import { SessionLease } from './lease';
import { pruneScratch, removeSessionScratch, sessionIdsOf } from './scratch-path';
import { parseTrailers, subjectOf, turnCommitMessage } from './commit-message';
import { newSessionId, SESSION_REF_PREFIX, sessionBranch, sessionRef, sessionStatePath, validateSessionId } from './ids';
import { droppedNote, LeaseGuard, Session, type SessionContext } from './session';
import { SESSION_STATE_VERSION, SessionStateSchema, type SessionMode, type SessionState } from './state';
import { StateRedaction, type RedactionOptions } from './redact-state';
export type { CarryOver };
import { readStateAt, readStateFromView, sessionIdOf } from './state-io';

export interface CreateSessionOptions {
  /** A revision to start from; default HEAD. */
  base?: string;
  id?: string;
  mode?: SessionMode;
  model?: { provider: string; model?: string };
  author?: Partial<Signature>;
}

export interface OpenSessionOptions {
  /**
   * A reader's view (`forge cat --session`, `forge ls --session`): pending changes are shown,
   * the journal is never written, and no lease is taken, so it works while a writer runs.
   */
  readOnly?: boolean;
}

export interface DiscardResult {
  /** The paths the discarded journal held (when it could be read). */
  discarded: string[];
  /** Set when the journal could not be read at all (it was removed all the same). */
  unreadable?: string;
  /** Whether the session had a scratch directory (forge mount's ignored paths), now removed. */
  scratchRemoved: boolean;
}

export interface ResumeOptions {
  /** Any commit of a session branch. */
  from: string;
  id?: string;
  author?: Partial<Signature>;
}

export interface SessionSummary {
  id: string;
  branch: string;
  head: string;
  turn: number;
  updatedAt: string;
  parent?: { session: string; commit: string; turn: number };
}

/** How many commits in a row without the session's trailer `log` looks through for more of its turns. */
const MAX_OUTSIDE_COMMITS = 200;

export interface TurnInfo {
  /** The turn; for a commit made outside forge, the turn it sits on. */
  turn: number;
  commit: string;
  time: string;
  summary: string;
  changedPaths: string[];
  /** A commit on the session branch that forge did not make (a person's `git commit`, a cherry-pick). */
  outside?: true;
}

/** A session as it was at one commit: read-only code and conversation. */
export interface HistoricalSession {
  id: string;
  commit: string;
  state: SessionState;
  view: CommitVfs;
  /** Code changes of that commit against its first parent (the session file excluded). */
  changes: TreeChangeEntry[];
}

export class SessionStore {
  private readonly ctx: SessionContext;

  constructor(
    readonly repo: Repository,
    /** The session's clock (state times, commits); default: the repository's (Repository.open's `clock`). */
    now: () => Date = () => repo.now(),
    options: { redaction?: RedactionOptions } = {},
  ) {
    this.ctx = { repo, now, redaction: new StateRedaction(repo, options.redaction) };
  }

  /** The redaction every state this store writes passes through. */
  get redaction(): StateRedaction {
    return this.ctx.redaction;
  }

  async create(options: CreateSessionOptions = {}): Promise<Session> {
    const id = validateSessionId(options.id ?? newSessionId());
    if ((await this.repo.refs.resolve(sessionRef(id))) !== null) {
      throw new ForgeError('SESSION_EXISTS', `Session ${id} already exists; open it, or pick another id.`, { data: { id } });
    }
    const baseRevision = options.base ?? 'HEAD';
    const baseCommit = await this.repo.resolveCommit(baseRevision);
    const now = this.ctx.now().toISOString();
    const state: SessionState = SessionStateSchema.parse({
      version: SESSION_STATE_VERSION,
      id,
      branch: sessionBranch(id),
      createdAt: now,
      updatedAt: now,
      base: { ref: baseRevision, commit: baseCommit },
      ...(options.model ? { model: options.model } : {}),
      mode: options.mode ?? 'unrestricted',
      turn: 0,
      messages: [],
      toolCalls: [],
      activeFiles: [],
      readHashes: {},
      clipboards: {},
      undo: null,
    });
    const message = `Start forge session ${id}\n\nBase: ${baseRevision} (${baseCommit})`;
    return this.startBranch(state, baseCommit, message, options.author);
  }

  async open(id: string, options: OpenSessionOptions = {}): Promise<Session> {
    validateSessionId(id);
    const head = await this.repo.refs.resolve(sessionRef(id));
    if (head === null) throw new ForgeError('SESSION_NOT_FOUND', `No session ${id} (no branch ${sessionBranch(id)}). List sessions with "forge session list".`, { data: { id } });
    const journal = new FsJournal(this.repo.fs, this.repo.commonDir, id);
    const { lease, pin, guard, wipOptions } = this.writerParts(id, options.readOnly === true);
    let pending = await journal.load();
    const pruned = await this.recoverPrunedHead(id, head, pending?.base, options.readOnly === true);
    if (pruned !== null) {
      const session = await this.open(id, options);
      session.prunedHead = pruned;
      return session;
    }
    // A process killed while it rewrote the journal left its temporary file: no live writer, none of its files.
    if (!options.readOnly && (await lease.noLiveHolder())) await journal.removeStaleTemporaries();
    if (pending !== null && pending.base !== head && (await pendingAlreadyCommitted(this.repo, pending.changes, pending.base, head))) {
      // The process committed, then died before clearing its journal.
      if (!options.readOnly) {
        await lease.acquire();
        await journal.clear(pending.owner);
        await pin.clear();
        await lease.release();
      }
      pending = null;
    }
    if (pending !== null && pending.base !== head && options.readOnly) {
      // A reader sees the pending layer on the base it was made on.
      const oldBase = new CommitVfs(this.repo, pending.base, (await this.repo.readCommit(pending.base)).tree);
      const restored = await WorkInProgressVfs.restore(oldBase, journal, undefined, wipOptions);
      const state = foldJournaledState(await readStateFromView(oldBase, id, pending.base), restored.states);
      return new Session(this.ctx, state, restored.vfs, pending.base);
    }
    const baseView = new CommitVfs(this.repo, head, (await this.repo.readCommit(head)).tree);
    const committed = await readStateFromView(baseView, id, head);
    if (pending !== null && pending.base !== head) {
      // Made on an older head (a lost compare-and-swap, a rebase or reset of the branch): carry
      // what does not conflict onto the head; what does is kept in a rescue commit.
      await lease.acquire();
      const carried = await carryPendingOnto(this.repo, id, pending.changes, pending.base, head, this.ctx.now());
      const vfs = new WorkInProgressVfs(baseView, journal, undefined, wipOptions);
      const records = renumberRecords(pending.states, committed.turn + 1);
      await vfs.adopt(baseView, carried.changes, records);
      const session = new Session(this.ctx, foldJournaledState(committed, records), vfs, head, guard);
      session.carriedOver = carried;
      return session;
    }
    const restored = await WorkInProgressVfs.restore(baseView, journal, undefined, wipOptions);
    const session = new Session(this.ctx, foldJournaledState(committed, restored.states), restored.vfs, head, guard);
    if (restored.torn) session.journalTear = restored.torn;
    if (restored.dropped) {
      session.droppedOnOpen = restored.dropped;
      session.addCommitNote(droppedNote(restored.dropped, 'when the session was opened'));
    }
    return session;
  }

  /**
   * A branch that names a commit git's gc pruned: a process killed while it waited out a gc that
   * had walked the refs before its turn commit moved the branch (gc-guard.ts). That commit's
   * objects are gone; the branch goes back to the newest commit that is complete (the pending
   * journal's base, else the reflog's newest), with a compare-and-swap, so the session opens
   * again, and the journal, still there, makes that turn's changes pending again. Null when the
   * head is there.
   */
  private async recoverPrunedHead(id: string, head: string, journalBase: string | undefined, readOnly: boolean): Promise<{ missing: string; restored: string } | null> {
    const parent = await this.incompleteHeadParent(id, head);
    if (parent === undefined) return null;
    const ref = sessionRef(id);
    // A published commit a prune left incomplete: its first parent first, then the older candidates.
    const candidates = [...(parent !== null ? [parent] : []), ...(journalBase !== undefined ? [journalBase] : []), ...(await this.repo.refs.reflogValues(ref))].filter((oid) => oid !== head);
    for (const oid of candidates) {
      const usable = await readStateAt(this.repo, oid, id).then(
        () => true,
        () => false,
      );
      if (!usable) continue;
      if (readOnly) break;
      // The head's own changes that survived (their blobs are there) become pending again on
      // `oid`, unless a journal already holds the pending layer (it is carried as it is).
      if (oid === parent && journalBase === undefined) await this.pendAgain(id, head, oid);
      const who = await this.repo.identity(undefined, this.ctx.now(), 'committer');
      await this.repo.refs.update({ ref, newOid: oid, expectedOid: head, committer: who, reflogMessage: `forge: back to ${oid.slice(0, 12)}, the head ${head.slice(0, 12)} was pruned by a gc` });
      await this.repo.refs.dropReflogEntries(ref, head);
      return { missing: head, restored: oid };
    }
    throw new ForgeError('OBJECT_NOT_FOUND', `${sessionBranch(id)} names commit ${head}, which is not in the repository (a git gc pruned it while it was being committed)${readOnly ? '' : ', and no earlier commit of the session to go back to was found'}.`, {
      data: { ref, head },
      hint: readOnly ? 'Open the session for writing (forge turn, forge mcp): it goes back to its last complete commit.' : `Point the branch at an earlier commit of the session: git update-ref ${ref} <commit>.`,
    });
  }

  /**
   * Whether the branch head is complete: undefined when it is (the commit, its root tree and the
   * session file's blob are on disk); else the head's first parent, or null when the commit
   * itself is gone. A `git prune` that walked the refs before a turn commit moved the branch,
   * and deleted after the commit's own check, leaves such a head (git has the same race).
   */
  private async incompleteHeadParent(id: string, head: string): Promise<string | null | undefined> {
    if (!(await this.repo.objects.has(head))) return null;
    const commit = await this.repo.readCommit(head);
    const { objects } = this.repo;
    const stateEntry = async (): Promise<string | null> => {
      let tree = commit.tree;
      const parts = sessionStatePath(id).split('/');
      for (const [i, name] of parts.entries()) {
        const entry = (await this.repo.readTree(tree)).find((e) => e.name === name);
        if (entry === undefined) return null;
        if (i === parts.length - 1) return entry.oid;
        tree = entry.oid;
      }
      return null;
    };
    const complete = (await objects.freshen(commit.tree)) && (await stateEntry().then((oid) => oid === null || objects.freshen(oid), () => false));
    if (complete) return undefined;
    return commit.parents[0] ?? null;
  }

  /**
   * The code changes of an incomplete head whose blobs are still there, journaled as pending on
   * its parent (the session file left out: the parent's is the one that holds). What is gone
   * stays out; the recovery note says the branch went back.
   */
  private async pendAgain(id: string, head: string, parent: string): Promise<void> {
    const changes = await diffTrees(this.repo, (await this.repo.readCommit(parent)).tree, (await this.repo.readCommit(head)).tree).catch(() => [] as TreeChangeEntry[]);
    const pending = new Map<string, { oid: string; mode: '100644' | '100755' | '120000' } | null>();
    for (const change of changes) {
      if (change.path === sessionStatePath(id) || change.newMode === '160000') continue;
      if (change.kind === 'deleted') pending.set(change.path, null);
      else if (await this.repo.objects.freshen(change.newOid!)) pending.set(change.path, { oid: change.newOid!, mode: change.newMode as '100644' | '100755' | '120000' });
    }
    if (pending.size === 0) return;
    await new FsJournal(this.repo.fs, this.repo.commonDir, id).rewrite({ base: parent, owner: `recovered-${head.slice(0, 12)}`, changes: pending, states: [] });
  }

  /**
   * Drops a session's pending changes without reading them first: works with a torn or
   * unreadable journal. Refused (SESSION_BUSY) while a live process holds the session, unless
   * forced; a forced discard makes that process's next write fail and reload the branch head.
   */
  async discard(id: string, options: { force?: boolean } = {}): Promise<DiscardResult> {
    validateSessionId(id);
    if ((await this.repo.refs.resolve(sessionRef(id))) === null) throw new ForgeError('SESSION_NOT_FOUND', `No session ${id} (no branch ${sessionBranch(id)}). List sessions with "forge session list".`, { data: { id } });
    const journal = new FsJournal(this.repo.fs, this.repo.commonDir, id);
    const lease = this.leaseFor(id);
    if (options.force) await lease.breakLease();
    await lease.acquire();
    try {
      const result: DiscardResult = { discarded: [], scratchRemoved: false };
      try {
        const content = await journal.load();
        result.discarded = [...(content?.changes.keys() ?? [])];
      } catch (error) {
        result.unreadable = (error as Error).message;
      }
      await journal.clear();
      await new PendingPin(this.repo, pendingRef(id), this.ctx.now).clear();
      // Back to the branch head, ignored build output and installed dependencies included.
      result.scratchRemoved = await removeSessionScratch(this.repo.fs, this.repo.commonDir, id);
      await pruneScratch(this.repo.fs, this.repo.commonDir, await sessionIdsOf(this.repo.refs));
      return result;
    } finally {
      await lease.release();
    }
  }

  private leaseFor(id: string): SessionLease {
    return new SessionLease(this.repo.fs, this.repo.commonDir, id, this.repo.platform.processInfo, this.ctx.now);
  }

  /** The lease, gc pin and write guard of a session's pending layer (a reader's takes none). */
  private writerParts(id: string, readOnly: boolean): { lease: SessionLease; pin: PendingPin; guard: LeaseGuard; wipOptions: WorkInProgressOptions } {
    const lease = this.leaseFor(id);
    const pin = new PendingPin(this.repo, pendingRef(id), this.ctx.now);
    const guard = new LeaseGuard(lease);
    const wipOptions: WorkInProgressOptions = readOnly ? { readOnly: true } : { pin, beforeWrite: () => guard.beforeWrite(), afterClear: () => guard.release() };
    return { lease, pin, guard, wipOptions };
  }

  async list(): Promise<SessionSummary[]> {
    const out: SessionSummary[] = [];
    for (const { ref, oid } of await this.repo.refs.list(SESSION_REF_PREFIX)) {
      const id = ref.slice(SESSION_REF_PREFIX.length);
      const state = await readStateAt(this.repo, oid, id).catch(() => null);
      const summary: SessionSummary = { id, branch: sessionBranch(id), head: oid, turn: state?.turn ?? 0, updatedAt: state?.updatedAt ?? '' };
      if (state?.parent) summary.parent = state.parent;
      out.push(summary);
    }
    return out;
  }

  /** Time travel: the code and the conversation exactly as they were at a session commit. */
  async at(revision: string): Promise<HistoricalSession> {
    const commit = await this.repo.resolveCommit(revision);
    const id = await sessionIdOf(this.repo, commit);
    const parsed = await this.repo.readCommit(commit);
    const view = new CommitVfs(this.repo, commit, parsed.tree);
    const state = await readStateFromView(view, id, commit);
    const parentTree = parsed.parents[0] ? (await this.repo.readCommit(parsed.parents[0])).tree : null;
    const changes = (await diffTrees(this.repo, parentTree, parsed.tree)).filter((c) => c.path !== sessionStatePath(id));
    return { id, commit, state, view, changes };
  }

  /** Continues from a historical commit in a NEW session; the original stays untouched. */
  async resume(options: ResumeOptions): Promise<Session> {
    const from = await this.at(options.from);
    const id = validateSessionId(options.id ?? newSessionId());
    if ((await this.repo.refs.resolve(sessionRef(id))) !== null) {
      throw new ForgeError('SESSION_EXISTS', `Session ${id} already exists; pick another id for the resumed session.`, { data: { id } });
    }
    const now = this.ctx.now().toISOString();
    const state: SessionState = {
      ...from.state,
      id,
      branch: sessionBranch(id),
      createdAt: now,
      updatedAt: now,
      base: { ref: options.from, commit: from.commit },
      parent: { session: from.id, commit: from.commit, turn: from.state.turn },
    };
    const message = `Resume forge session ${from.id} at turn ${from.state.turn} as ${id}\n\nFrom: ${from.commit}`;
    return this.startBranch(state, from.commit, message, options.author);
  }

  /** The session's commits, oldest first: its start (turn 0 or the resumed turn) and every turn. */
  async log(id: string): Promise<TurnInfo[]> {
    validateSessionId(id);
    let oid = await this.repo.refs.resolve(sessionRef(id));
    if (oid === null) throw new ForgeError('SESSION_NOT_FOUND', `No session ${id}.`, { data: { id } });
    const turns: TurnInfo[] = [];
    // Commits made on the branch outside forge (no Forge-Session trailer: a person's commit, a
    // cherry-pick) are listed where session commits lie below them; below the session's first
    // commit the branch's base history begins, where the walk ends.
    let outside: Array<{ oid: string; commit: Commit }> = [];
    while (oid) {
      const commit = await this.repo.readCommit(oid);
      const trailers = parseTrailers(commit.message);
      if (trailers['Forge-Session'] !== id) {
        outside.push({ oid, commit });
        if (outside.length > MAX_OUTSIDE_COMMITS) break;
      } else {
        const turn = Number(trailers['Forge-Turn'] ?? 0);
        for (const above of outside) turns.push({ ...(await this.turnInfo(id, above.oid, above.commit, turn)), outside: true });
        outside = [];
        turns.push(await this.turnInfo(id, oid, commit, turn));
        if (turn === 0) break; // a new session's first commit: below it is the base's history
      }
      oid = commit.parents[0];
    }
    return turns.reverse();
  }

  private async turnInfo(id: string, oid: string, commit: Commit, turn: number): Promise<TurnInfo> {
    const parentTree = commit.parents[0] ? (await this.repo.readCommit(commit.parents[0])).tree : null;
    const changed = (await diffTrees(this.repo, parentTree, commit.tree)).map((c) => c.path).filter((p) => p !== sessionStatePath(id));
    return { turn, commit: oid, time: new Date(commit.committer.timestamp * 1000).toISOString(), summary: subjectOf(commit.message), changedPaths: changed };
  }

  private async startBranch(state: SessionState, parent: string, subject: string, author?: Partial<Signature>): Promise<Session> {
    const stateOid = await this.repo.writeBlob((await this.ctx.redaction.encode(state)).bytes, { keep: false });
    const parentCommit = await this.repo.readCommit(parent);
    const tree = await buildTree(this.repo, parentCommit.tree, [[sessionStatePath(state.id), { oid: stateOid, mode: '100644' }]]);
    const now = this.ctx.now();
    const who = await this.repo.identity(author, now);
    const committer = await this.repo.identity(author, now, 'committer');
    const message = turnCommitMessage({ sessionId: state.id, turn: state.turn, message: subject, changedPaths: [] });
    const commit = await this.repo.writeCommit({ tree, parents: [parent], author: who, committer, message });
    await this.repo.refs.update({ ref: sessionRef(state.id), newOid: commit, expectedOid: ZERO_OID, committer, reflogMessage: `forge: ${subject.split('\n')[0]}` });
    const journal = new FsJournal(this.repo.fs, this.repo.commonDir, state.id);
    // A journal left by an earlier session of the same id (deleted branch) must not leak in.
    await journal.clear();
    const { guard, wipOptions } = this.writerParts(state.id, false);
    const vfs = new WorkInProgressVfs(new CommitVfs(this.repo, commit, tree), journal, undefined, wipOptions);
    return new Session(this.ctx, state, vfs, commit, guard);
  }
}

export function pendingRef(id: string): string {
  return `${PENDING_REF_PREFIX}${id}`;
}
