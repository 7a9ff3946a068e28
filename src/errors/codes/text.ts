/** Codes of the pure text engine (matching, patches, reindent). */
export const TEXT_CODES = {
  TEXT_NO_MATCH: { kind: 'user', summary: 'The text to replace was not found.' },
  TEXT_AMBIGUOUS_MATCH: { kind: 'user', summary: 'The text to replace appears more than once.' },
} as const;
