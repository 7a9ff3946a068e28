/**
 * The sessions list, one row at a time: each session's state is read, summarized and dropped
 * before the next is read, so listing 1,000 sessions never holds 1,000 states (the caller writes
 * each row out as it comes).
 */
import type { Repository } from '../git';
import { readStateAt, SESSION_REF_PREFIX, sessionBranch } from '../session';
import { FsJournal } from '../vfs';

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

export async function* sessionRows(repo: Repository): AsyncGenerator<SessionRow> {
  for (const { ref, oid } of await repo.refs.list(SESSION_REF_PREFIX)) {
    const id = ref.slice(SESSION_REF_PREFIX.length);
    const pending = (await new FsJournal(repo.fs, repo.commonDir, id).load().catch(() => null))?.changes.size ?? 0;
    const row: SessionRow = { id, branch: sessionBranch(id), head: oid, turns: 0, base: { commit: '' }, createdAt: '', updatedAt: '', pending, title: '' };
    try {
      const state = await readStateAt(repo, oid, id);
      row.turns = state.turn;
      row.base = state.base;
      row.createdAt = state.createdAt;
      row.updatedAt = state.updatedAt;
      row.title = state.messages.find((m) => m.role === 'user')?.content.slice(0, 200) ?? '';
      if (state.parent) row.parent = state.parent;
    } catch (error) {
      row.error = error instanceof Error ? error.message : String(error);
    }
    yield row;
  }
}
