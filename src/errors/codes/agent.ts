/** Codes of the agent layer: the turn loop, its limits, the providers and run_command. */
export const AGENT_CODES = {
  // Providers.
  PROVIDER_NOT_CONFIGURED: { kind: 'user', summary: 'The provider is missing something it needs (an API key, a model, a script).' },
  PROVIDER_AUTH: { kind: 'user', summary: 'The provider rejected the credentials (HTTP 401 or 403).' },
  PROVIDER_BAD_REQUEST: { kind: 'user', summary: 'The provider rejected the request (HTTP 400 or another 4xx): model name, parameters or payload.' },
  PROVIDER_UNAVAILABLE: { kind: 'conflict', summary: 'The provider stayed unavailable (429, 5xx, network failure) after every retry; try again later.' },
  PROVIDER_BAD_RESPONSE: { kind: 'internal', summary: 'The provider answered with something that is not its wire format.' },

  // Scripts of the scripted provider.
  SCRIPT_INVALID: { kind: 'user', summary: 'A script file is not valid JSON or does not match the script format.' },
  SCRIPT_MISMATCH: { kind: 'user', summary: 'The conversation does not match the script (a user message the script does not have).' },

  // The turn loop.
  APPROVAL_REQUIRED: { kind: 'user', summary: 'Side-effecting tool calls need an approval policy and there is no terminal to ask on: give --approve.' },
  MOUNT_UNAVAILABLE: { kind: 'unsupported', summary: 'forge mount is not available in this build; use --copy (a materialized working directory).' },
  AGENT_CLI_NOT_FOUND: { kind: 'user', summary: 'The agent CLI (claude, codex) could not be started: not installed or not on PATH.' },
  AGENT_TRANSCRIPT_NOT_FOUND: { kind: 'user', summary: "The agent's transcript (Claude Code's transcript_path, Codex's rollout file) could not be read." },
  AGENT_WORKDIR_STALE: { kind: 'conflict', summary: "forge agent's copy directory holds uncommitted changes made on another commit than the session's head (after an undo, a resume, or for another session)." },
  AGENT_WORKDIR_MISSING: { kind: 'user', summary: "forge agent's working directory is gone; run forge agent again to materialize it." },
  AGENT_FAILED: { kind: 'user', summary: 'The agent CLI exited non-zero or was killed; the turns it finished are committed. forge agent exits 8 (EXIT_AGENT_FAILED).' },
  AGENT_HOOK_REFUSED: { kind: 'user', summary: "A hook's payload was refused: a transcript path outside the agent's own transcript directory, or a payload too large." },
  AGENT_CANCELLED: { kind: 'user', summary: 'The run was cancelled; the pending turn is kept and running again continues it.' },
  AGENT_TURN_IN_PROGRESS: { kind: 'conflict', summary: 'The session has an unfinished turn; continue it or discard it first.' },
  AGENT_NO_TURN_IN_PROGRESS: { kind: 'user', summary: 'There is no unfinished turn to continue and no new user message was given.' },
  LIMIT_TOOL_CALLS: { kind: 'user', summary: 'The turn reached its tool-call limit; it was committed as it stood.' },
  LIMIT_TOKENS: { kind: 'user', summary: 'The turn reached its token limit; it was committed as it stood.' },
  LIMIT_TIME: { kind: 'user', summary: 'The turn reached its wall-clock limit; it was committed as it stood.' },

  // run_command.
  COMMAND_FAILED_TO_START: { kind: 'internal', summary: 'The command could not be started (no shell, no temporary directory).' },
} as const;
