/**
 * Tool names the engine's front ends add beside the registry's tools: the MCP server's
 * `commit_turn` and `session_status`. No tool of a registry may take one (the MCP server would
 * refuse to start), so a repository tool with such a name is refused like one named after a
 * built-in, at approval and when a view's tools are loaded.
 */
export const COMMIT_TURN = 'commit_turn';
export const SESSION_STATUS = 'session_status';

export const FRONT_END_TOOL_NAMES: readonly string[] = [COMMIT_TURN, SESSION_STATUS];

/** True when `name` is a built-in's (from `builtinNames`) or one the front ends reserve. */
export function isReservedToolName(name: string, builtinNames: ReadonlySet<string>): boolean {
  return builtinNames.has(name) || FRONT_END_TOOL_NAMES.includes(name);
}
