/** Codes of the pure text engine (matching, edits, patches, reindent, SEARCH/REPLACE blocks). */
export const TEXT_CODES = {
  TEXT_NO_MATCH: { kind: 'user', summary: 'The text to replace was not found.' },
  TEXT_AMBIGUOUS_MATCH: { kind: 'user', summary: 'The text to replace appears more than once.' },
  TEXT_INDENTATION_UNCLEAR: { kind: 'user', summary: 'The text matched after a line\'s indentation, and a new line\'s indentation could be meant relative to it or as written.' },
  TEXT_COPY_UNCLEAR: { kind: 'user', summary: 'After a match that ignored whitespace at line ends, a line the new text repeats from the old text has other whitespace at its end than the file: an edit or noise, which cannot be told.' },
  TEXT_EMPTY_SNIPPET: { kind: 'user', summary: 'The text to locate is empty, so it cannot identify a place in the file.' },
  TEXT_MATCH_HINT_INVALID: { kind: 'user', summary: 'A match hint line range is malformed.' },
  TEXT_LINE_RANGE_INVALID: { kind: 'user', summary: 'A line range is malformed or lies outside the file.' },
  PATCH_INVALID_OPERATION: { kind: 'user', summary: 'A patch operation is unknown or its fields do not fit the operation.' },
  PATCH_FILE_MISSING: { kind: 'user', summary: 'A replace patch targets a file that does not exist.' },
  PATCH_OVERLAP: { kind: 'user', summary: 'Two patches of one call change overlapping regions of the file.' },
  PATCH_CLIPBOARD_MISSING: { kind: 'user', summary: 'A patch reads a clipboard that has never been set.' },
  PATCH_REINDENT_FAILED: { kind: 'user', summary: 'A reindent strip prefix is missing from a non-blank line.' },
  PATCH_TOO_LARGE: { kind: 'user', summary: 'The patch input exceeds the size limit.' },
  SEARCH_REPLACE_MALFORMED: { kind: 'user', summary: 'SEARCH/REPLACE blocks are missing a marker or are out of order.' },
} as const;
