/** The `forge` command line: a thin adapter over the library (argument parsing, output, exit codes). */
import type { Command } from 'commander';
import { buildProgramFrom, runCli, type CommandTable } from './program';

/**
 * Each command's module, by the names it registers. A command's module is loaded only when that
 * command runs (all of them for help or an unknown command): `forge ls` does not build the zod
 * schemas of the session state and the tools, nor load the agent or the merge code (~20 ms of a
 * ~100 ms run). The groups of command-groups.ts also have bundles of their own (bin-view.ts,
 * bin-merge.ts), which register the same modules.
 */
const COMMANDS: CommandTable = [
  [['session'], async () => (await import('./commands/session')).registerSession],
  [['turn'], async () => (await import('./commands/turn')).registerTurn],
  [['run'], async () => (await import('./commands/run')).registerRun],
  [['undo'], async () => (await import('./commands/undo')).registerUndo],
  [['log', 'show', 'resume'], async () => (await import('./commands/history')).registerHistory],
  [['merge', 'rebase', 'diff'], async () => (await import('./commands/merge')).registerMerge],
  [['cat', 'ls', 'materialize'], async () => (await import('./commands/view')).registerView],
  [['tools'], async () => (await import('./commands/tools')).registerTools],
  [['mcp'], async () => (await import('./commands/mcp')).registerMcp],
  [['completion'], async () => (await import('./commands/completion')).registerCompletion],
  [['push'], async () => (await import('./commands/push')).registerPush],
  [['fetch'], async () => (await import('./commands/fetch')).registerFetch],
  [['inspect'], async () => (await import('./commands/inspect')).registerInspect],
  [['blame', 'why'], async () => (await import('./commands/blame')).registerBlame],
  [['mount'], async () => (await import('./commands/mount')).registerMount],
  [['agent'], async () => (await import('./commands/agent')).registerAgent],
];

/** The program with the command that `argv` names registered, or every command. */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  return buildProgramFrom(COMMANDS, argv);
}

export async function main(argv: string[]): Promise<number> {
  return runCli(COMMANDS, argv);
}
