/**
 * One agent turn becomes one Forge turn: the files the agent changed (already in the pending
 * layer) plus the turn's conversation, with the agent and model recorded, committed together.
 * Redaction happens in the commit, as for every state writer. A turn that changed no file
 * still commits its conversation.
 *
 * A turn that changed files becomes the session's undo entry (the same entry a tool's edit or
 * a mount write makes), so `forge undo` reverts the agent's last turn of edits, hash-verified.
 */
import { SESSION_DIR, type Session, type TurnCommit } from '../session';
import type { UndoEntry, UndoFile } from '../session/state';
import type { FileMode } from '../vfs/types';
import type { ConvertedTurn } from './transcript';

export async function recordAgentTurn(session: Session, turn: ConvertedTurn, notes: string[] = []): Promise<TurnCommit> {
  await session.prepareCall();
  const undo = await pendingUndoEntry(session, turn);
  if (undo !== undefined) session.state.undo = undo;
  for (const message of turn.messages) await session.recordMessage(message);
  for (const record of turn.toolCalls) await session.recordToolCall(record);
  session.state.model = { provider: turn.agent, ...(turn.model !== undefined ? { model: turn.model } : {}) };
  await session.saveState();
  return session.commitTurn(notes.length > 0 ? { notes } : {});
}

function isFileMode(mode: string | undefined): mode is FileMode {
  return mode === '100644' || mode === '100755' || mode === '120000';
}

/**
 * The undo entry of everything pending (the turn's files, whichever syncs brought them in):
 * undefined when nothing is pending (the previous entry stays, as after a tool turn that only
 * read), null when a change cannot be undone file by file (a directory or submodule replaced),
 * so an undo never reverts an older turn in place of this one.
 */
async function pendingUndoEntry(session: Session, turn: ConvertedTurn): Promise<UndoEntry | null | undefined> {
  const changes = (await session.vfs.diff()).filter((c) => !c.path.startsWith(`${SESSION_DIR}/`));
  if (changes.length === 0) return undefined;
  const files: UndoFile[] = [];
  for (const change of changes) {
    const existedBefore = change.kind !== 'added';
    const existsAfter = change.kind !== 'deleted';
    if (existedBefore && (change.oldOid === undefined || !isFileMode(change.oldMode))) return null;
    if (existsAfter && !isFileMode(change.newMode)) return null;
    files.push({
      path: change.path,
      existedBefore,
      ...(existedBefore ? { preOid: change.oldOid!, preMode: change.oldMode as FileMode } : {}),
      existsAfter,
      ...(existsAfter ? { postSha256: await session.repo.sha256Hex(await session.vfs.readFile(change.path)), postMode: change.newMode! } : {}),
    });
  }
  const shown = files.slice(0, 3).map((f) => f.path).join(', ') + (files.length > 3 ? ', …' : '');
  return { tool: turn.agent, turn: session.currentTurn, summary: `${turn.agent} turn ${session.currentTurn} (${files.length} file(s): ${shown})`, files };
}

/** The turns not committed yet, in order: a missed hook is caught up by the next one. */
export function turnsToCommit(turns: readonly ConvertedTurn[], committed: ReadonlySet<string>): ConvertedTurn[] {
  return turns.filter((t) => !committed.has(t.key));
}
