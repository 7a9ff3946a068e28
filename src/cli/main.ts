/** The `forge` command line: a thin adapter over the library (argument parsing, output, exit codes). */
import { Command, CommanderError } from 'commander';
import { registerHistory } from './commands/history';
import { registerMerge } from './commands/merge';
import { registerMcp } from './commands/mcp';
import { registerRun } from './commands/run';
import { registerSession } from './commands/session';
import { registerTools } from './commands/tools';
import { registerTurn } from './commands/turn';
import { registerUndo } from './commands/undo';
import { registerView } from './commands/view';
import { EXIT_CODES, ReportedFailure, reportError } from './io';

export function buildProgram(): Command {
  const program = new Command('forge')
    .description('A git-backed workspace for AI coding agents: tool edits on a work-in-progress view, one atomic commit per turn on forge/session/<id>.')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  registerSession(program);
  registerTurn(program);
  registerRun(program);
  registerUndo(program);
  registerHistory(program);
  registerMerge(program);
  registerView(program);
  registerTools(program);
  registerMcp(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
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
