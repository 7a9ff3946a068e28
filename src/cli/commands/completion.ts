/** forge completion bash|zsh|fish : a shell completion script for every command and option. */
import { Argument, type Command } from 'commander';
import { completionScript, SHELLS, type CompletionCommand, type Shell } from '../completion/scripts';

function describe(command: Command, prefix: string): CompletionCommand[] {
  const path = prefix ? `${prefix} ${command.name()}` : command.name();
  if (command.commands.length > 0) return command.commands.flatMap((sub) => describe(sub, path));
  const options = command.options.flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined));
  return [
    {
      path,
      options: [...options, '--help'],
      sessionOptions: options.filter((f) => f === '--session'),
      sessionArgument: command.registeredArguments[0]?.name() === 'session' || (path === 'session discard'),
    },
  ];
}

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: source <(forge completion bash)')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .action(async (shell: Shell) => {
      const { buildProgram } = await import('../main');
      const full = await buildProgram();
      const commands = full.commands.filter((c) => c.name() !== 'completion').flatMap((c) => describe(c, ''));
      const globals = program.options.flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined));
      process.stdout.write(completionScript(shell, commands, [...globals, '--help', '--version']));
    });
}
