/** Codes of the branches layer. */
export const BRANCHES_CODES = {} as const;
