/**
 * A live session: its state, its work-in-progress view over the branch head, and the turn
 * commit that publishes both at once (jj's transaction: write every object, then move one ref).
 */
import { isForgeError } from '../errors';
import { buildTree, type FileChange, type Repository, type Signature } from '../git';
import { CommitVfs, WorkInProgressVfs, type PendingChange } from '../vfs';
import { turnCommitMessage } from './commit-message';
import { sessionRef, sessionStatePath } from './ids';
import type { Message, SessionState, ToolCallRecord } from './state';
import { encodeState } from './state-codec';
import { StateDeltaTracker } from './state-delta';
import { readStateAt } from './state-io';

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
}

export interface SessionContext {
  repo: Repository;
  now: () => Date;
}

export class Session {
  /** Lines for the next commit's message body (e.g. that the turn includes an undo). */
  private readonly notes: string[] = [];
  /** What of the state the journal already holds. */
  private readonly journaled: StateDeltaTracker;

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
  ) {
    this.journaled = new StateDeltaTracker(state);
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
    this.state.toolCalls.push({ ...record, turn: this.currentTurn, at: this.stamp() });
    await this.saveState();
  }

  /**
   * Journals what changed in the state since the last record, so a crash loses neither edits
   * nor the conversation, and a turn of n calls journals O(n) bytes, not n growing snapshots.
   */
  async saveState(): Promise<void> {
    const delta = this.journaled.take(this.state);
    if (delta !== null) await this.vfs.journalState({ delta });
  }

  /**
   * Commits all pending changes and the session state as ONE commit on the session branch,
   * moving the branch by compare-and-swap. On a lost race the pending layer stays intact.
   */
  async commitTurn(options: CommitTurnOptions = {}): Promise<TurnCommit> {
    const { repo } = this.ctx;
    const changes = await this.vfs.diff();
    const now = this.ctx.now();
    const turn = this.state.turn + 1;
    const nextState: SessionState = { ...this.state, turn, updatedAt: now.toISOString() };
    const stateOid = await repo.writeBlob(encodeState(nextState), { keep: false });
    const treeChanges: Array<[string, FileChange]> = [...this.vfs.pendingSet.entries()];
    treeChanges.push([sessionStatePath(this.id), { oid: stateOid, mode: '100644' }]);
    const tree = await buildTree(repo, this.vfs.baseView.rootTree, treeChanges);
    const lastUser = [...nextState.messages].reverse().find((m) => m.role === 'user' && m.turn === turn);
    const notes = [...(options.notes ?? []), ...this.notes];
    const message = turnCommitMessage({
      sessionId: this.id,
      turn,
      changedPaths: changes.map((c) => c.path),
      ...(options.message !== undefined ? { message: options.message } : {}),
      ...(lastUser ? { userMessage: lastUser.content } : {}),
      ...(notes.length > 0 ? { notes } : {}),
    });
    const author = await repo.identity(options.author, now);
    const committer = await repo.identity(options.committer ?? options.author, now);
    const commit = await repo.writeCommit({ tree, parents: [this.headOid], author, committer, message });
    try {
      await repo.refs.update({ ref: this.ref, newOid: commit, expectedOid: this.headOid, committer, reflogMessage: `forge: turn ${turn}` });
    } catch (error) {
      if (isForgeError(error, 'REF_CAS_FAILED') || isForgeError(error, 'REF_LOCKED')) {
        // Keep every pending change, on disk too: the journal becomes this view's own.
        await this.vfs.persistJournal();
      }
      throw error;
    }
    // In place: tool contexts hold this very object across turns.
    this.state.turn = nextState.turn;
    this.state.updatedAt = nextState.updatedAt;
    this.headOid = commit;
    this.notes.length = 0;
    this.journaled.reset(this.state);
    await this.vfs.rebase(new CommitVfs(repo, commit, tree));
    return { commit, tree, turn, changes, message };
  }

  /** Drops the pending changes and the in-turn state: back to what the branch head holds. */
  async discardPending(): Promise<void> {
    const committed = await readStateAt(this.ctx.repo, this.headOid, this.id);
    // In place, for the same reason as in commitTurn.
    for (const key of Object.keys(this.state)) delete (this.state as Record<string, unknown>)[key];
    Object.assign(this.state, committed);
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
