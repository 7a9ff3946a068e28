/** Codes of the tool layer (schemas, sandbox, modes, approval, undo). */
export const TOOL_CODES = {
  TOOL_INPUT_INVALID: { kind: 'user', summary: 'The tool arguments do not match its schema.' },
} as const;
