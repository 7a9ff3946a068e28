import type { Command } from 'commander';

/** Every command takes --repo and --json. */
export function common(command: Command): Command {
  return command.option('--repo <dir>', 'the repository (default: the current directory)').option('--json', 'print exactly one JSON document');
}
