/**
 * The tools the CLI offers: the built-in (browser-safe) tools plus run_command, which needs a
 * real directory and child processes. `forge run`, `forge turn` and `forge tools` share it, so
 * what `forge tools` prints is what the other two accept.
 */
import { createRunCommandTool, type RunCommandOptions } from '../agent/node/run-command';
import { BUILTIN_TOOLS, ToolRegistry } from '../tools';

export function cliToolRegistry(runCommand: RunCommandOptions = {}): ToolRegistry {
  return new ToolRegistry([...BUILTIN_TOOLS, createRunCommandTool(runCommand)]);
}
