/** The `forge` command line: a thin adapter over the library (argument parsing, output, exit codes). */
import { Command, CommanderError } from 'commander';
import { ForgeError } from '../errors';
import { cliGlobals, takeGlobalOptions } from './globals';
import { EXIT_CODES, ReportedFailure, reportError } from './io';
import { markPhase } from './phase-timing';
import { withSessionSuggestions } from './session-suggestions';

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
  const program = new Command('forge')
    .description('A git-backed workspace for AI coding agents: tool edits on a work-in-progress view, one atomic commit per turn on forge/session/<id>.')
    .version('0.1.0')
    // Listed for help; main takes them off the arguments before parsing (see globals.ts).
    .option('-C, --repo <dir>', 'run as if started in DIR (each command also takes --repo)')
    .option('--no-color', 'no colour, also when writing to a terminal (as does NO_COLOR)')
    .option('-q, --quiet', 'print only what the command is for: no progress, no confirmations')
    .enablePositionalOptions()
    .exitOverride()
    // A usage error is reported by main as one line with a hint, not followed by the help.
    .configureOutput({ outputError: () => {} });
  const named = COMMANDS.filter(([names]) => names.includes(argv[0] ?? ''));
  for (const [, load] of named.length > 0 ? named : COMMANDS) (await load())(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  markPhase('main');
  const json = argv.includes('--json');
  try {
    const { globals, rest } = takeGlobalOptions(argv);
    Object.assign(cliGlobals, globals);
    const program = await buildProgram(rest);
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
      return reportError(usageError(error, argv), json);
    }
    return reportError(await withSessionSuggestions(error), json);
  }
}

/** commander's message ("error: required option '--calls <file>' not specified") as a ForgeError. */
function usageError(error: CommanderError, argv: readonly string[]): ForgeError {
  const message = error.message.replace(/^error: /, '').replace(/\n[\s\S]*/, '');
  const words = takeGlobalOptions(argv).rest.filter((a) => !a.startsWith('-')).slice(0, 2);
  const command = words[0] === 'session' ? words.join(' ') : (words[0] ?? '');
  const known = COMMANDS.some(([names]) => names.includes(words[0] ?? ''));
  return new ForgeError('INVALID_ARGUMENT', `${message.charAt(0).toUpperCase()}${message.slice(1)}.`.replace(/\.\.$/, '.'), {
    hint: known ? `"forge ${command} --help" shows its usage.` : '"forge --help" lists the commands.',
  });
}
