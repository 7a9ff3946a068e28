/**
 * Shell completion scripts (bash, zsh, fish), generated from the commands' own definitions so
 * that they list exactly the commands and options the CLI has. Pure: a description in, text out.
 */

export interface CompletionCommand {
  /** "turn", or "session new" for a subcommand. */
  path: string;
  /** Long and short option flags, e.g. ["--session", "--json"]. */
  options: string[];
  /** Options that take a session id, completed from `forge session list`. */
  sessionOptions: string[];
  /** Whether its first argument is a session id (forge log, forge session discard). */
  sessionArgument: boolean;
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const SESSION_IDS = "forge session list 2>/dev/null | awk '{print $1}'";

function groups(commands: readonly CompletionCommand[]): Map<string, CompletionCommand[]> {
  const byTop = new Map<string, CompletionCommand[]>();
  for (const command of commands) {
    const top = command.path.split(' ')[0]!;
    byTop.set(top, [...(byTop.get(top) ?? []), command]);
  }
  return byTop;
}

function bash(commands: readonly CompletionCommand[], globals: readonly string[]): string {
  const cases: string[] = [];
  for (const [top, members] of groups(commands)) {
    const nested = members.filter((m) => m.path.includes(' '));
    if (nested.length > 0) {
      const subs = nested.map((m) => m.path.split(' ')[1]).join(' ');
      const inner = nested
        .map((m) => `        ${m.path.split(' ')[1]}) opts="${m.options.join(' ')}"; sessionopts="${m.sessionOptions.join(' ')}"; sessionarg=${m.sessionArgument ? 1 : 0} ;;`)
        .join('\n');
      cases.push(`    ${top})\n      if [ "$i" -eq "$COMP_CWORD" ]; then COMPREPLY=($(compgen -W "${subs}" -- "$cur")); return; fi\n      case "\${COMP_WORDS[$i]}" in\n${inner}\n      esac ;;`);
    } else {
      const m = members[0]!;
      cases.push(`    ${top}) opts="${m.options.join(' ')}"; sessionopts="${m.sessionOptions.join(' ')}"; sessionarg=${m.sessionArgument ? 1 : 0} ;;`);
    }
  }
  return `# forge completion for bash: add to ~/.bashrc:  source <(forge completion bash)
_forge() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local i=1 opts="" sessionopts="" sessionarg=0
  # Skip the global options before the command (-C DIR, --repo DIR, --no-color, -q).
  while [ "$i" -lt "$COMP_CWORD" ]; do
    case "\${COMP_WORDS[$i]}" in
      -C|--repo) i=$((i + 2)) ;;
      -*) i=$((i + 1)) ;;
      *) break ;;
    esac
  done
  if [ "$i" -eq "$COMP_CWORD" ]; then
    COMPREPLY=($(compgen -W "${[...groups(commands).keys()].join(' ')} ${globals.join(' ')}" -- "$cur"))
    return
  fi
  local command="\${COMP_WORDS[$i]}"
  i=$((i + 1))
  case "$command" in
${cases.join('\n')}
    *) return ;;
  esac
  if [[ " $sessionopts " == *" $prev "* ]] || { [ "$sessionarg" -eq 1 ] && [ "$i" -eq "$COMP_CWORD" ] && [[ "$cur" != -* ]]; }; then
    COMPREPLY=($(compgen -W "$(${SESSION_IDS})" -- "$cur"))
    return
  fi
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); fi
}
complete -o default -F _forge forge
`;
}

function zsh(commands: readonly CompletionCommand[], globals: readonly string[]): string {
  // zsh runs the bash function through its bash-completion emulation.
  return `#compdef forge
# forge completion for zsh: add to ~/.zshrc:  source <(forge completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash(commands, globals).split('\n').slice(1).join('\n')}`;
}

function fish(commands: readonly CompletionCommand[], globals: readonly string[]): string {
  const lines = ['# forge completion for fish: forge completion fish > ~/.config/fish/completions/forge.fish', 'complete -c forge -f'];
  for (const flag of globals) lines.push(`complete -c forge -n __fish_use_subcommand ${fishFlag(flag)}`);
  for (const [top, members] of groups(commands)) {
    lines.push(`complete -c forge -n __fish_use_subcommand -a ${top}`);
    for (const m of members) {
      const words = m.path.split(' ');
      const condition = words.length === 1 ? `__fish_seen_subcommand_from ${top}` : `__fish_seen_subcommand_from ${words[1]}`;
      if (words.length === 2) lines.push(`complete -c forge -n "__fish_seen_subcommand_from ${top}; and not __fish_seen_subcommand_from ${members.map((x) => x.path.split(' ')[1]).join(' ')}" -a ${words[1]}`);
      for (const flag of m.options) {
        const takesSession = m.sessionOptions.includes(flag);
        lines.push(`complete -c forge -n "${condition}" ${fishFlag(flag)}${takesSession ? ` -x -a "(${SESSION_IDS})"` : ''}`);
      }
      if (m.sessionArgument) lines.push(`complete -c forge -n "${condition}" -a "(${SESSION_IDS})"`);
    }
  }
  return lines.join('\n') + '\n';
}

function fishFlag(flag: string): string {
  return flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`;
}

export function completionScript(shell: Shell, commands: readonly CompletionCommand[], globals: readonly string[]): string {
  if (shell === 'bash') return bash(commands, globals);
  if (shell === 'zsh') return zsh(commands, globals);
  return fish(commands, globals);
}
