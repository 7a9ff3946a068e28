/**
 * The mount's one write path into the session: the same pending layer, lease check, batch and
 * journal a tool call uses. Each unit (a file's close, a rename, an unlink, a chmod) is journaled
 * as one line together with the undo entry it makes, so when the operation returns to the kernel
 * the change is durable, and Undo reverts the last one like a tool's edit.
 *
 * While a tool call runs a command in the mount (run_command), the call lends the mount its
 * view: the mount's edits are then that call's writes (no unit, no undo entry of their own),
 * journaled with the call and kept or rolled back by it.
 */
import { ForgeError } from '../errors';
import type { Session } from '../session';
import { RecordingVfs } from '../tools';
import type { WritableVfs } from '../vfs/types';

/** The undo entry's tool name for an edit made through the mount. */
export const MOUNT_EDIT_TOOL = 'mount';

/** The view a tool call lent to the mount of a session, while it runs a command there. */
const lent = new WeakMap<Session, WritableVfs>();

/** Until the returned function is called, the mount's edits of `session` go into `vfs`. */
export function lendView(session: Session, vfs: WritableVfs): () => void {
  if (lent.has(session)) throw new ForgeError('INTERNAL', 'The mount of this session is already lent to a running command.');
  lent.set(session, vfs);
  return () => {
    if (lent.get(session) === vfs) lent.delete(session);
  };
}

export class SessionEditor {
  constructor(private readonly session: Session) {}

  get vfs(): WritableVfs {
    return this.session.vfs;
  }

  /** Applies `change` as one journaled unit; nothing of it stays when it fails. */
  async edit(summary: string, change: (vfs: WritableVfs) => Promise<void>): Promise<void> {
    const { session } = this;
    const borrower = lent.get(session);
    if (borrower !== undefined) {
      // Part of the running call: the call's batch and journal line take it; a failure leaves nothing.
      const recording = new RecordingVfs(borrower);
      try {
        await change(recording);
      } catch (error) {
        await recording.rollback().catch(() => undefined); // the first error is the one to report
        throw error;
      }
      return;
    }
    // Refused (SESSION_BUSY, PENDING_DISCARDED) before anything changes.
    await session.prepareCall();
    session.vfs.beginBatch();
    let journaled = false;
    try {
      const recording = new RecordingVfs(session.vfs);
      await change(recording);
      const files = await recording.changes((bytes) => session.repo.sha256Hex(bytes));
      if (files.length > 0) {
        session.state.undo = { tool: MOUNT_EDIT_TOOL, turn: session.currentTurn, summary, files };
        await session.saveState();
      }
      await session.vfs.endBatch();
      journaled = true;
    } finally {
      // The journal did not take the unit (it failed half-way, or the disk is full): forget it in memory too.
      if (!journaled) await session.revertToJournal().catch(() => undefined); // the first error is the one to report
    }
  }
}
