/**
 * One agent turn becomes one Forge turn: the files the agent changed (already in the pending
 * layer) plus the turn's conversation, with the agent and model recorded, committed together.
 * Redaction happens in the commit, as for every state writer. A turn that changed no file
 * still commits its conversation.
 */
import type { Session, TurnCommit } from '../session';
import type { ConvertedTurn } from './transcript';

export async function recordAgentTurn(session: Session, turn: ConvertedTurn, notes: string[] = []): Promise<TurnCommit> {
  await session.prepareCall();
  for (const message of turn.messages) await session.recordMessage(message);
  for (const record of turn.toolCalls) await session.recordToolCall(record);
  session.state.model = { provider: turn.agent, ...(turn.model !== undefined ? { model: turn.model } : {}) };
  await session.saveState();
  return session.commitTurn(notes.length > 0 ? { notes } : {});
}

/** The turns not committed yet, in order: a missed hook is caught up by the next one. */
export function turnsToCommit(turns: readonly ConvertedTurn[], committed: ReadonlySet<string>): ConvertedTurn[] {
  return turns.filter((t) => !committed.has(t.key));
}
