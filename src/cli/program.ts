/** The `forge` program over a table of command modules, shared by the full CLI and the group bundles. */
import { Command, CommanderError } from 'commander';
import { ForgeError } from '../errors';
import { cliGlobals, takeGlobalOptions } from './globals';
import { EXIT_CODES, ReportedFailure, reportError } from './io';
import { markPhase } from './phase-timing';
import { withSessionSuggestions } from './session-suggestions';

export type Register = (program: Command) => void;

/** Each command's module, by the names it registers. */
export type CommandTable = ReadonlyArray<readonly [names: readonly string[], load: () => Promise<Register>]>;

/** The program with the command that `argv` names registered, or every command of the table. */
export async function buildProgramFrom(table: CommandTable, argv: readonly string[]): Promise<Command> {
  const program = new Command('forge')
    .description('A git-backed workspace for AI coding agents: tool edits on a work-in-progress view, one atomic commit per turn on forge/session/<id>.')
    .version('0.1.0')
    // Listed for help; runCli takes them off the arguments before parsing (see globals.ts).
    .option('-C, --repo <dir>', 'run as if started in DIR (each command also takes --repo)')
    .option('--no-color', 'no colour, also when writing to a terminal (as does NO_COLOR)')
    .option('-q, --quiet', 'print only what the command is for: no progress, no confirmations')
    .enablePositionalOptions()
    .exitOverride()
    // A usage error is reported by runCli as one line with a hint, not followed by the help.
    .configureOutput({ outputError: () => {} });
  const named = table.filter(([names]) => names.includes(argv[0] ?? ''));
  for (const [, load] of named.length > 0 ? named : table) (await load())(program);
  return program;
}

/** Runs the command `argv` names; the exit code. */
export async function runCli(table: CommandTable, argv: string[]): Promise<number> {
  markPhase('main');
  const json = argv.includes('--json');
  try {
    const { globals, rest } = takeGlobalOptions(argv);
    Object.assign(cliGlobals, globals);
    const program = await buildProgramFrom(table, rest);
    markPhase('command');
    await program.parseAsync(rest, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof ReportedFailure) return error.exitCode;
    if (error instanceof CommanderError) {
      // Help and version are not failures. `forge` or `forge session` alone printed the help on
      // stderr: a usage error, as git's exit code for it says.
      if (error.exitCode === 0 || error.code === 'commander.helpDisplayed') return 0;
      if (error.code === 'commander.help') return EXIT_CODES.user;
      return reportError(usageError(table, error, argv), json);
    }
    return reportError(await withSessionSuggestions(error), json);
  }
}

/** commander's message ("error: required option '--calls <file>' not specified") as a ForgeError. */
function usageError(table: CommandTable, error: CommanderError, argv: readonly string[]): ForgeError {
  const message = error.message.replace(/^error: /, '').replace(/\n[\s\S]*/, '');
  const words = takeGlobalOptions(argv).rest.filter((a) => !a.startsWith('-')).slice(0, 2);
  const command = words[0] === 'session' ? words.join(' ') : (words[0] ?? '');
  const known = table.some(([names]) => names.includes(words[0] ?? ''));
  return new ForgeError('INVALID_ARGUMENT', `${message.charAt(0).toUpperCase()}${message.slice(1)}.`.replace(/\.\.$/, '.'), {
    hint: known ? `"forge ${command} --help" shows its usage.` : '"forge --help" lists the commands.',
  });
}
