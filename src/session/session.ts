/**
 * A live session: its state, its work-in-progress view over the branch head, and the turn
 * commit that publishes both at once (jj's transaction: write every object, then move one ref).
 */
import { ForgeError, isForgeError } from '../errors';
import { buildTree, gitdirsWithCheckout, type FileChange, type Repository, type Signature } from '../git';
import { CommitVfs, WorkInProgressVfs, type PendingChange, type PendingValue } from '../vfs';
import { carryPendingOnto, foldJournaledState, pendingAlreadyCommitted, renumberRecords, type CarryOver } from './carry-over';
import type { SessionLease } from './lease';
import { turnCommitMessage } from './commit-message';
import { sessionRef, sessionStatePath } from './ids';
import { SESSION_STATE_VERSION, type Message, type SessionState, type ToolCallRecord } from './state';
import type { StateRedaction } from './redact-state';
import { mergeCounts } from './redact-state';
import type { RedactionCount } from './redaction';
import { applyStateDeltas, StateDeltaTracker, type StateDelta } from './state-delta';
import { readStateAt, readStateFromView } from './state-io';

export interface CommitTurnOptions {
  /** The commit message (trailers are added); default: a summary of the turn. */
  message?: string;
  /** Lines added to the message body, e.g. that the turn includes an undo. */
  notes?: string[];
  author?: Partial<Signature>;
  committer?: Partial<Signature>;
}

export interface TurnCommit {
  commit: string;
  tree: string;
  turn: number;
  changes: PendingChange[];
  message: string;
  /** Secrets replaced by markers in the committed state and message, per rule (empty: none). */
  redactions: RedactionCount[];
}

export interface SessionContext {
  repo: Repository;
  now: () => Date;
  /** Every state written as an object passes through it (secrets become markers). */
  redaction: StateRedaction;
}

/**
 * The session's side of its lease: taken at the first journal write of a pending layer,
 * checked at every later one, given up when the layer is committed or discarded. A write that
 * finds the lease gone (another process discarded the session) makes the session forget its
 * pending layer and sit on the branch head again, and fails with PENDING_DISCARDED.
 */
export class LeaseGuard {
  private held = false;
  /** Set when beforeWrite took the lease from no one in this process (another process may have left a journal). */
  takenOver = false;
  /** Set by the session: what to do when the pending layer was discarded behind its back. */
  onDiscarded: (() => Promise<void>) | null = null;

  constructor(readonly lease: SessionLease) {}

  /** Whether this process took the lease (and has not found it gone since). */
  get isHeld(): boolean {
    return this.held;
  }

  async beforeWrite(): Promise<void> {
    if (!this.held) {
      this.takenOver = await this.lease.acquire();
      this.held = true;
      return;
    }
    const holder = await this.lease.read();
    if (holder !== undefined) return this.lease.assertHeld(holder);
    this.held = false;
    await this.onDiscarded?.();
    throw new ForgeError('PENDING_DISCARDED', 'The pending changes of this session were discarded by another process (forge session discard); this view is back at the branch head and this call changed nothing.', {
      hint: 'Read the files again before editing them; the earlier pending edits are gone.',
    });
  }

  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await this.lease.release();
  }
}

export class Session {
  /** Lines for the next commit's message body (e.g. that the turn includes an undo). */
  private readonly notes: string[] = [];
  /** What of the state the journal already holds. */
  private readonly journaled: StateDeltaTracker;
  /** Set when opening carried a pending layer made on an older head onto the current one. */
  carriedOver?: CarryOver;
  /** Set when the journal had a torn record (records from it on were dropped). */
  journalTear?: { line: number; dropped: number };
  /** Set when opening moved the branch back from a head a gc had pruned. */
  prunedHead?: { missing: string; restored: string };
  /** Set when opening dropped pending paths whose blobs a gc removed before they were pinned. */
  droppedOnOpen?: string[];
  /** Set by pinPerBatch: the calls up to the commit are one batch. */
  private batched = false;

  constructor(
    private readonly ctx: SessionContext,
    /**
     * The live state, which tools update in place. Its `readHashes` and `clipboards` sit behind
     * proxies that note changed keys for the journal (see state-delta.ts): copy it with JSON or
     * spreads, as structuredClone refuses proxies.
     */
    readonly state: SessionState,
    readonly vfs: WorkInProgressVfs,
    private headOid: string,
    private readonly guard?: LeaseGuard,
  ) {
    this.journaled = new StateDeltaTracker(state);
    if (guard) guard.onDiscarded = () => this.reloadHead();
  }

  /**
   * What opening the session recovered, for the user to see (stderr of `forge turn`, `forge mcp`):
   * records dropped at a torn journal line, pending edits kept aside in a rescue commit because
   * the branch had moved under them and changed the same files.
   */
  recoveryNotes(): string[] {
    const notes: string[] = [];
    if (this.journalTear) notes.push(`the pending-changes journal was torn at line ${this.journalTear.line}: ${this.journalTear.dropped} record(s) from there on were dropped; every whole record before it was kept.`);
    if (this.prunedHead) {
      const { missing, restored } = this.prunedHead;
      notes.push(`the branch head ${missing.slice(0, 12)} had lost objects to a git gc/prune that ran while it was committed; the branch is back at ${restored.slice(0, 12)}, its last complete commit, and what survived of that turn (the pending-changes journal, else the files still in the repository) is pending again.`);
    }
    if (this.droppedOnOpen) notes.push(droppedNote(this.droppedOnOpen, 'when the session was opened'));
    const carried = this.carriedOver;
    if (carried?.rescue) {
      notes.push(`the branch moved under the pending changes: ${carried.reapplied.length} carried onto ${this.headOid.slice(0, 12)}; ${carried.conflicts.length} conflict with it (${carried.conflicts.slice(0, 5).join(', ')}) and were kept aside in ${carried.rescue.ref} ("git show ${carried.rescue.commit}").`);
    }
    return notes;
  }

  /** Gives up the session's lease (a process that ends without it is detected as gone anyway). */
  async close(): Promise<void> {
    await this.guard?.release();
  }

  get id(): string {
    return this.state.id;
  }

  get branch(): string {
    return this.state.branch;
  }

  get ref(): string {
    return sessionRef(this.state.id);
  }

  /** The branch head this session's pending layer sits on. */
  get head(): string {
    return this.headOid;
  }

  get repo(): Repository {
    return this.ctx.repo;
  }

  /** The number the turn in progress will get when committed. */
  get currentTurn(): number {
    return this.state.turn + 1;
  }

  /** Adds a line to the body of the next turn commit's message. */
  addCommitNote(note: string): void {
    this.notes.push(note);
  }

  async recordUserMessage(content: string): Promise<void> {
    await this.pushMessage({ role: 'user', content, turn: this.currentTurn, at: this.stamp() });
  }

  async recordMessage(message: Omit<Message, 'turn' | 'at'>): Promise<void> {
    await this.pushMessage({ ...message, turn: this.currentTurn, at: this.stamp() });
  }

  async recordToolCall(record: Omit<ToolCallRecord, 'turn' | 'at'>): Promise<void> {
    this.state.toolCalls.push(stampedRecord(record, this.currentTurn, this.stamp()));
    await this.saveState();
  }

  /**
   * Journals what changed in the state since the last record, so a crash loses neither edits
   * nor the conversation, and a turn of n calls journals O(n) bytes, not n growing snapshots.
   */
  async saveState(): Promise<void> {
    const delta = this.journaled.take(this.state);
    // What the undo entry would restore stays reachable for gc while it is pending.
    const keep = delta?.replace?.undo ? delta.replace.undo.files.flatMap((f) => (f.preOid ? [f.preOid] : [])) : [];
    if (delta !== null) await this.vfs.journalState({ delta }, keep);
  }

  /**
   * Before a tool call or a commit: this process must be the session's one writer. Another live
   * holder is SESSION_BUSY (and a discard behind our back PENDING_DISCARDED) before anything
   * changes. A session taken over from a process that is gone (or let go) with its pending
   * changes still journaled takes those changes over: they are acknowledged edits.
   */
  async prepareCall(): Promise<void> {
    // A batch's calls: the lease is checked at the first, then at each pin and at the commit
    // (pinPerBatch), not per call.
    if (this.batched && this.guard?.isHeld) return;
    return this.checkLease();
  }

  private async checkLease(): Promise<void> {
    if (!this.guard) return;
    this.guard.takenOver = false;
    await this.guard.beforeWrite();
    if (this.guard.takenOver) await this.adoptLeftJournal();
  }

  /**
   * After a tool call failed to reach the journal (a full or read-only disk, a killed write): the
   * in-memory session goes back to what the journal holds, so an edit the caller was told failed
   * is never committed by a later turn, and the next write does not journal it either.
   */
  async revertToJournal(): Promise<void> {
    const { repo } = this.ctx;
    const journaled = await this.vfs.loadJournal().catch(() => null);
    const usable = journaled !== null && journaled.base === this.headOid;
    const view = new CommitVfs(repo, this.headOid, (await repo.readCommit(this.headOid)).tree);
    const committed = await readStateFromView(view, this.id, this.headOid);
    const records = usable ? journaled.states : [];
    this.replaceState(foldJournaledState(committed, records));
    this.vfs.resetToJournaled(usable ? journaled.changes : new Map(), records, journaled !== null);
    this.journaled.reset(this.state);
  }

  private async adoptLeftJournal(): Promise<void> {
    const left = await this.vfs.loadJournal();
    if (left === null) return this.followMovedHead();
    if (left.owner === this.vfs.owner) return;
    const { repo } = this.ctx;
    const head = (await repo.refs.resolve(this.ref)) ?? this.headOid;
    const view = new CommitVfs(repo, head, (await repo.readCommit(head)).tree);
    const committed = await readStateFromView(view, this.id, head);
    let changes: ReadonlyMap<string, PendingValue> = left.changes;
    let records = left.states;
    if (left.base !== head) {
      if (await pendingAlreadyCommitted(repo, left.changes, left.base, head)) {
        changes = new Map();
        records = [];
      } else {
        const carried = await carryPendingOnto(repo, this.id, left.changes, left.base, head, this.ctx.now());
        changes = carried.changes;
        records = renumberRecords(left.states, committed.turn + 1);
        this.carriedOver = carried;
      }
    }
    this.replaceState(foldJournaledState(committed, records));
    this.headOid = head;
    this.notes.length = 0;
    await this.vfs.adopt(view, changes, records);
    this.journaled.reset(this.state);
  }

  /**
   * Taking the session with nothing pending here and no journal left by another process: a turn
   * another process committed meanwhile is where this view goes on (its files, its state), so
   * this call does not work on a stale head and find out only at the commit.
   */
  private async followMovedHead(): Promise<void> {
    if (this.vfs.pendingSet.size > 0) return;
    const { repo } = this.ctx;
    const head = await repo.refs.resolve(this.ref);
    if (head === null || head === this.headOid) return;
    // A head without this session's state (the branch reset to its base, a commit made with git)
    // is left to the commit, which carries this view's work onto it and keeps the conversation.
    const state = await readStateAt(repo, head, this.id).catch(() => null);
    if (state !== null) await this.sitOn(head, state);
  }

  /**
   * The tool calls up to the next commit are acknowledged together (a `forge turn` tells its
   * caller only when it exits): their blobs are pinned for gc once, at the commit, instead of
   * once per call. A gc beside a batch killed before that may remove some: opening the session
   * drops those paths and says so (droppedOnOpen). Their journal records are held and written
   * at the pins, their objects written as one pack, and the lease checked at the first call and
   * at each pin and the commit (WorkInProgressVfs.deferPins). A connection that acknowledges each
   * call (MCP, `forge run`) never batches.
   */
  pinPerBatch(): void {
    this.batched = true;
    this.vfs.deferPins();
  }

  /**
   * Commits all pending changes and the session state as ONE commit on the session branch,
   * moving the branch by compare-and-swap. On a lost race the pending layer stays intact.
   */
  async commitTurn(options: CommitTurnOptions = {}): Promise<TurnCommit> {
    try {
      return await this.commitWithRetry(options);
    } catch (error) {
      // Not committed: what the batch wrote stays pending, so it is kept from gc now.
      await this.vfs.pinDeferred().catch(() => undefined);
      throw error;
    }
  }

  private async commitWithRetry(options: CommitTurnOptions): Promise<TurnCommit> {
    await this.checkLease();
    try {
      return await this.commitOnce(options);
    } catch (error) {
      if (!isForgeError(error, 'REF_CAS_FAILED')) throw error;
      // The branch moved under the pending layer: carry it onto the new head, then commit there
      // (unless some of it conflicts: then say what was kept aside, and let the caller decide).
      const carried = await this.carryOntoHead(error);
      if (carried.conflicts.length > 0) {
        throw new ForgeError('REF_CAS_FAILED', `The session branch moved to ${this.headOid} under this turn. ${carried.reapplied.length} pending change(s) were carried onto it; ${carried.conflicts.length} conflict with it (${carried.conflicts.slice(0, 5).join(', ')}) and were kept aside in ${carried.rescue!.ref} (${carried.rescue!.commit}).`, {
          data: { ref: this.ref, head: this.headOid, reapplied: carried.reapplied, conflicts: carried.conflicts, rescue: carried.rescue },
          hint: `Commit again to publish the carried changes; "git show ${carried.rescue!.commit}" shows the conflicting edits as they were.`,
        });
      }
      return this.commitOnce(options);
    }
  }

  /** After a lost compare-and-swap: the pending layer and the in-turn state, on the branch's new head. */
  private async carryOntoHead(cause: ForgeError): Promise<CarryOver> {
    const { repo } = this.ctx;
    const newHead = await repo.refs.resolve(this.ref);
    if (newHead === null) throw cause;
    const carried = await carryPendingOnto(repo, this.id, this.vfs.pendingSet, this.headOid, newHead, this.ctx.now());
    // A branch reset to a commit without this session's file (its base) keeps the conversation we had.
    const committed = await readStateAt(repo, newHead, this.id).catch(() => readStateAt(repo, this.headOid, this.id));
    const turn = committed.turn + 1;
    const records = renumberRecords(this.vfs.journaledStates, turn);
    const deltas = records.flatMap((r) => (r !== null && typeof r === 'object' && 'delta' in r ? [(r as { delta: StateDelta }).delta] : []));
    this.replaceState(applyStateDeltas(committed, deltas));
    this.headOid = newHead;
    await this.vfs.adopt(new CommitVfs(repo, newHead, (await repo.readCommit(newHead)).tree), carried.changes, records);
    this.journaled.reset(this.state);
    this.carriedOver = carried;
    return carried;
  }

  /** The pending layer was discarded by another process: forget it and sit on the branch head. */
  private async reloadHead(): Promise<void> {
    const { repo } = this.ctx;
    const head = (await repo.refs.resolve(this.ref)) ?? this.headOid;
    await this.sitOn(head, await readStateAt(repo, head, this.id));
  }

  /** Nothing pending: the view and the state are the branch head's, `head`. */
  private async sitOn(head: string, state: SessionState): Promise<void> {
    const { repo } = this.ctx;
    this.replaceState(state);
    this.headOid = head;
    this.notes.length = 0;
    this.vfs.forget(new CommitVfs(repo, head, (await repo.readCommit(head)).tree));
    this.journaled.reset(this.state);
  }

  private replaceState(next: SessionState): void {
    // In place: tool contexts hold this very object across turns.
    for (const key of Object.keys(this.state)) delete (this.state as Record<string, unknown>)[key];
    Object.assign(this.state, next);
  }

  private async commitOnce(options: CommitTurnOptions): Promise<TurnCommit> {
    const { repo } = this.ctx;
    const checkouts = await gitdirsWithCheckout(repo, this.ref);
    if (checkouts.length > 0) {
      throw new ForgeError('BRANCH_CHECKED_OUT', `${this.branch} is checked out in ${checkouts[0]}; forge does not move a checked-out branch (git branch -f refuses too). Nothing was committed; the pending changes are kept.`, {
        data: { ref: this.ref, gitdirs: checkouts },
        hint: `Switch that working tree to another branch (git switch -), then commit again.`,
      });
    }
    // A git gc/prune may have removed pending blobs (before they were pinned, or by hand): never
    // publish a tree that names a missing object. The files are asked (not a cached listing);
    // what this process still holds is written again. The commit's own new objects (its trees,
    // the session file, the commit) are checked under the ref's lock (ObjectStore.restoreUnsettled).
    const pendingOids = this.vfs.pendingOids();
    const missing = await repo.restoreFromMemory(pendingOids);
    if (missing.length > 0) throw await this.dropLostPending(missing);
    const changes = await this.vfs.diff();
    const now = this.ctx.now();
    const turn = this.state.turn + 1;
    // The state file holds this turn's tool calls only (version 2): earlier turns' records are
    // in their own commits, so the file, and this write, stay O(turn).
    const turnCalls = this.state.toolCalls.filter((c) => c.turn === turn);
    const nextState: SessionState = { ...this.state, version: SESSION_STATE_VERSION, turn, updatedAt: now.toISOString(), toolCalls: turnCalls };
    const encoded = await this.writeState(nextState);
    const stateOid = encoded.oid;
    const treeChanges: Array<[string, FileChange]> = [...this.vfs.pendingSet.entries()];
    treeChanges.push([sessionStatePath(this.id), { oid: stateOid, mode: '100644' }]);
    const tree = await buildTree(repo, this.vfs.baseView.rootTree, treeChanges);
    const lastUser = [...encoded.state.messages].reverse().find((m) => m.role === 'user' && m.turn === turn);
    const notes = [...(options.notes ?? []), ...this.notes];
    const draft = turnCommitMessage({
      sessionId: this.id,
      turn,
      changedPaths: changes.map((c) => c.path),
      ...(options.message !== undefined ? { message: options.message } : {}),
      ...(lastUser ? { userMessage: lastUser.content } : {}),
      ...(notes.length > 0 ? { notes } : {}),
    });
    // The caller's message may quote a secret too (the user message in it is redacted already).
    const { text: message, redactions: inMessage } = await this.ctx.redaction.redactText(draft);
    const redactions = mergeCounts(encoded.redactions, inMessage);
    const author = await repo.identity(options.author, now);
    const committer = await repo.identity(options.committer ?? options.author, now, 'committer');
    const commit = await repo.writeCommit({ tree, parents: [this.headOid], author, committer, message });
    // A batch's blobs are pinned before the branch moves onto them: a gc that walks the refs
    // between here and the move (and a kill meanwhile) cannot leave the branch naming a pruned
    // blob. The pin holds the turn's tree (it reaches them all), and its move writes the turn's
    // staged objects as one pack.
    await this.vfs.pinForCommit(tree);
    try {
      await repo.refs.update({ ref: this.ref, newOid: commit, expectedOid: this.headOid, committer, reflogMessage: `forge: turn ${turn}` });
    } catch (error) {
      if (isForgeError(error, 'REF_LOCKED')) {
        // Keep every pending change, on disk too: the journal becomes this view's own.
        await this.vfs.persistJournal();
      }
      throw error;
    }
    // In place: tool contexts hold this very object across turns.
    this.state.version = SESSION_STATE_VERSION;
    this.state.turn = nextState.turn;
    this.state.updatedAt = nextState.updatedAt;
    keepOnly(this.state.toolCalls, turnCalls);
    this.headOid = commit;
    this.notes.length = 0;
    this.journaled.reset(this.state);
    const keep = await this.undoObjectsOutside(this.vfs.baseView);
    await this.vfs.rebase(new CommitVfs(repo, commit, tree));
    // What the undo entry restores may be a blob no commit holds (a file written twice in the
    // turn): it stays pinned for gc until the next turn commit.
    if (keep.length > 0) await this.vfs.pinObjects(keep);
    return { commit, tree, turn, changes, message, redactions };
  }

  /** The state file, redacted, written as a blob; its bytes (tens of megabytes after a long turn) are not kept. */
  private async writeState(state: SessionState): Promise<{ oid: string; state: SessionState; redactions: RedactionCount[] }> {
    const encoded = await this.ctx.redaction.encode(state);
    return { oid: await this.ctx.repo.writeBlob(encoded.bytes, { keep: false }), state: encoded.state, redactions: encoded.redactions };
  }

  /**
   * Pending blobs whose content is gone (pruned, and not held in memory): the session must not
   * stay stuck on them (every commit would fail). Their paths go back to the branch head's
   * version, the journal and the pin are rewritten without them, and the error says which were
   * dropped; the next commit publishes the rest, with a note in its message.
   */
  private async dropLostPending(missing: readonly string[]): Promise<ForgeError> {
    const lost = new Set(missing);
    const paths = [...this.vfs.pendingSet].filter(([, v]) => v !== null && lost.has(v.oid)).map(([p]) => p);
    await this.vfs.dropPending(paths);
    const listed = listPaths(paths);
    this.notes.push(`${paths.length} pending file(s) were dropped before this commit: a git prune removed their content (${listed}).`);
    return new ForgeError('OBJECTS_MISSING', `${missing.length} pending blob(s) are no longer in the repository (${listed}): a git gc/prune removed them. Nothing was committed. Those files were dropped from the pending changes (they are back at the branch head's version); the other pending changes are kept, and the next commit publishes them.`, {
      data: { missing: [...missing], paths, dropped: paths },
      hint: 'Read those files and write them again if the edits are still wanted, then commit again.',
    });
  }

  /** The pre-edit blobs of the undo entry that the parent commit does not hold at their path. */
  private async undoObjectsOutside(parent: CommitVfs): Promise<string[]> {
    const out: string[] = [];
    for (const file of this.state.undo?.files ?? []) {
      if (file.preOid && (await parent.entry(file.path).catch(() => null))?.oid !== file.preOid) out.push(file.preOid);
    }
    return out;
  }

  /** Drops the pending changes and the in-turn state: back to what the branch head holds. */
  async discardPending(): Promise<void> {
    this.replaceState(await readStateAt(this.ctx.repo, this.headOid, this.id));
    this.journaled.reset(this.state);
    await this.vfs.discard();
  }

  private async pushMessage(message: Message): Promise<void> {
    this.state.messages.push(message);
    await this.saveState();
  }

  private stamp(): string {
    return this.ctx.now().toISOString();
  }
}


/**
 * `{ ...record, turn, at }`, the usual records as object literals: V8 gave each spread copy an
 * object shape of its own (10,000 shapes in a 10,000-call turn); the keys stay in the same order.
 */
function stampedRecord(record: Omit<ToolCallRecord, 'turn' | 'at'>, turn: number, at: string): ToolCallRecord {
  const keys = Object.keys(record).join(',');
  if (keys === 'id,tool,args,ok,output') return { id: record.id, tool: record.tool, args: record.args, ok: record.ok, output: record.output, turn, at };
  if (keys === 'id,tool,args,ok,error') return { id: record.id, tool: record.tool, args: record.args, ok: record.ok, error: record.error!, turn, at };
  return { ...record, turn, at };
}

/** Makes `list` hold `kept` (a subsequence of it), in place: tools and loops hold the array. */
function keepOnly<T>(list: T[], kept: readonly T[]): void {
  for (let i = 0; i < kept.length; i++) list[i] = kept[i]!;
  list.length = kept.length;
}

/** The first few paths of a list, and how many more. */
function listPaths(paths: readonly string[]): string {
  return `${paths.slice(0, 5).join(', ')}${paths.length > 5 ? `, and ${paths.length - 5} more` : ''}`;
}

/** What the user (stderr) and the next commit's message are told about pending paths a gc took. */
export function droppedNote(paths: readonly string[], when: string): string {
  return `${paths.length} pending file(s) were dropped ${when}: a git gc/prune removed their content before a commit held it (${listPaths(paths)}); they are back at the branch head's version. (A \`forge turn\` killed before its commit had acknowledged none of its calls.)`;
}
