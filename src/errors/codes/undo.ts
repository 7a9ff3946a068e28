/** Codes of the undo layer. */
export const UNDO_CODES = {} as const;
