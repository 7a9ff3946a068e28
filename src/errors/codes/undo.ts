/** Codes of the Undo tool (spec 000, FR-UNDO-08 and FR-UNDO-17). */
export const UNDO_CODES = {
  UNDO_NOTHING_TO_UNDO: { kind: 'user', summary: 'The session has no undo entry.' },
  UNDO_REFUSED: { kind: 'conflict', summary: 'A file of the last edit changed since (or cannot be restored); nothing was reverted.' },
  SESSION_HAS_PENDING: { kind: 'conflict', summary: 'The session has uncommitted changes in the way of the operation.' },
} as const;
