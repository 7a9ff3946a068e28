/** Codes of repository-defined tools (tools/<name>.js run in the WASM sandbox, approved by content hash). */
export const REPO_TOOL_CODES = {
  TOOL_NOT_APPROVED: { kind: 'user', summary: 'The repository tool was never approved, its source changed since it was approved, or it was approved upstream but not by a person on this machine.' },
  TOOL_CHANGED_SINCE_REVIEW: { kind: 'conflict', summary: 'forge tools approve --sha256 named a source the tool no longer has (it changed after the review); nothing was approved.' },
  TOOL_NAME_CONFLICT: { kind: 'user', summary: 'A repository tool has the name of a built-in tool (or an invalid name) and is refused.' },
  REPO_TOOL_NOT_FOUND: { kind: 'user', summary: 'There is no tools/<name>.js in the repository.' },
  REPO_TOOL_INVALID: { kind: 'user', summary: 'The tool module does not load or does not export description, schema and execute as required.' },
  REPO_TOOL_FAILED: { kind: 'user', summary: 'The repository tool threw an error; its partial edits were discarded.' },
  REPO_TOOL_TIMEOUT: { kind: 'user', summary: 'The repository tool ran past its time limit and was stopped; its partial edits were discarded.' },
  REPO_TOOL_MEMORY_LIMIT: { kind: 'user', summary: 'The repository tool ran out of its memory limit and was stopped; its partial edits were discarded.' },
  REPO_TOOL_DEPTH_LIMIT: { kind: 'user', summary: 'The repository tool recursed deeper than its stack allows, or returned a value nested too deeply; its partial edits were discarded.' },
  REPO_TOOL_OUTPUT_TOO_LARGE: { kind: 'user', summary: 'The repository tool returned more than its output size limit; its edits were discarded.' },
} as const;
