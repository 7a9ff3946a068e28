/**
 * The MCP tool list follows the repository's tools: a call that changed a file under tools/
 * (an agent proposing or editing a tool, an Undo of that) may add or remove an approved tool,
 * so the server rebuilds its registry from the session's view and, when the list differs,
 * sends notifications/tools/list_changed.
 */
import { ToolRegistry, type AnyToolDefinition, type FileChange } from '../tools';
import { REPO_TOOLS_DIR, type RepoTools } from '../tools/repo';
import type { Vfs } from '../vfs/types';

export interface RepoToolSet {
  /** The base tools plus the approved repository tools of the view as it is now. */
  registry(vfs: Vfs): Promise<ToolRegistry>;
}

export function repoToolSet(base: readonly AnyToolDefinition[], repoTools: RepoTools): RepoToolSet {
  return {
    async registry(vfs) {
      const { tools } = await repoTools.definitions(vfs);
      return new ToolRegistry([...base, ...tools], repoTools.resolve);
    },
  };
}

export function touchesRepoTools(changes: readonly FileChange[]): boolean {
  return changes.some((c) => c.path.startsWith(`${REPO_TOOLS_DIR}/`));
}
