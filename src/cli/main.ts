/** The `forge` command line: a thin adapter over the library (argument parsing, output, exit codes). */
import { Command, CommanderError } from 'commander';
import { EXIT_CODES, ReportedFailure, reportError } from './io';

type Register = (program: Command) => void;

/**
 * Each command's module, by the names it registers. A command's module is loaded only when that
 * command runs (all of them for help or an unknown command): `forge ls` does not build the zod
 * schemas of the session state and the tools, nor load the agent or the merge code (~20 ms of a
 * ~100 ms run).
 */
const COMMANDS: ReadonlyArray<readonly [names: readonly string[], load: () => Promise<Register>]> = [
  [['session'], async () => (await import('./commands/session')).registerSession],
  [['turn'], async () => (await import('./commands/turn')).registerTurn],
  [['run'], async () => (await import('./commands/run')).registerRun],
  [['undo'], async () => (await import('./commands/undo')).registerUndo],
  [['log', 'show', 'resume'], async () => (await import('./commands/history')).registerHistory],
  [['merge', 'rebase', 'diff'], async () => (await import('./commands/merge')).registerMerge],
  [['cat', 'ls', 'materialize'], async () => (await import('./commands/view')).registerView],
  [['tools'], async () => (await import('./commands/tools')).registerTools],
  [['mcp'], async () => (await import('./commands/mcp')).registerMcp],
];

/** The program with the command that `argv` names registered, or every command. */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('forge')
    .description('A git-backed workspace for AI coding agents: tool edits on a work-in-progress view, one atomic commit per turn on forge/session/<id>.')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  const named = COMMANDS.filter(([names]) => names.includes(argv[0] ?? ''));
  for (const [, load] of named.length > 0 ? named : COMMANDS) (await load())(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof ReportedFailure) return error.exitCode;
    if (error instanceof CommanderError) {
      // Help and version are not failures; commander already printed usage errors.
      return error.exitCode === 0 ? 0 : EXIT_CODES.user;
    }
    return reportError(error, argv.includes('--json'));
  }
}
