/**
 * The options that come before the subcommand, as git's `-C`: `forge -C repo session list`.
 * Taken off the arguments before commander sees them, and read by the commands through
 * `cliGlobals` (a command's own --repo wins over the global one).
 */
import { ForgeError } from '../errors';

export interface CliGlobals {
  repo?: string;
  /** false with --no-color (NO_COLOR is read where colour is decided). */
  color: boolean;
  quiet: boolean;
}

export const cliGlobals: CliGlobals = { color: true, quiet: false };

/** Splits the leading global options off `argv`. */
export function takeGlobalOptions(argv: readonly string[]): { globals: CliGlobals; rest: string[] } {
  const globals: CliGlobals = { color: true, quiet: false };
  let i = 0;
  const value = (flag: string): string => {
    const next = argv[i + 1];
    if (next === undefined) throw new ForgeError('INVALID_ARGUMENT', `${flag} needs a directory.`, { hint: 'forge -C DIR <command> ..., as git -C DIR.' });
    i++;
    return next;
  };
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-C' || arg === '--repo') globals.repo = value(arg);
    else if (arg.startsWith('--repo=')) globals.repo = arg.slice('--repo='.length);
    else if (arg.startsWith('-C') && arg.length > 2) globals.repo = arg.slice(2);
    else if (arg === '--no-color') globals.color = false;
    else if (arg === '-q' || arg === '--quiet') globals.quiet = true;
    else break;
  }
  return { globals, rest: argv.slice(i) };
}
