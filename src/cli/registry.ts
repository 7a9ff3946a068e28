/**
 * The tools the CLI offers: the built-in (browser-safe) tools plus run_command, which needs a
 * real directory and child processes, plus the repository's approved tools (tools/<name>.js,
 * run in the QuickJS sandbox). `forge run`, `forge turn` and `forge tools` share it, so what
 * `forge tools` prints is what the other two accept.
 */
import { createRunCommandTool, type RunCommandOptions } from '../agent/node/run-command';
import { BUILTIN_TOOLS, ToolRegistry, type AnyToolDefinition } from '../tools';
import type { Repository } from '../git';
import type { Vfs } from '../vfs/types';

export function cliBaseTools(runCommand: RunCommandOptions = {}): AnyToolDefinition[] {
  return [...BUILTIN_TOOLS, createRunCommandTool(runCommand)];
}

export function cliToolRegistry(runCommand: RunCommandOptions = {}): ToolRegistry {
  return new ToolRegistry(cliBaseTools(runCommand));
}

/**
 * The CLI's tools and the repository tools of a view; limits from `repo_tools` in the view's
 * .forge/config.json. An approved tool that does not load is reported on stderr and left out.
 */
export async function cliToolRegistryFor(repo: Repository, vfs: Vfs, runCommand: RunCommandOptions = {}): Promise<ToolRegistry> {
  const { cliRepoTools } = await import('./repo-tools');
  const { registry } = await cliRepoTools(repo, vfs, cliBaseTools(runCommand));
  return registry;
}
