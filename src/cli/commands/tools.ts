/**
 * forge tools : the tool schemas, in OpenAI function-calling (strict) and Anthropic form,
 * built-ins and the repository's approved tools. Subcommands for repository tools:
 * `list` (every tool and its state), `approve <name>` (a commit of its own recording the
 * source's SHA-256) and `diff <name>` (what changed since the approval).
 */
import type { Command } from 'commander';
import { ForgeError } from '../../errors';
import { DEFAULT_TOOLS_CONFIG, type ToolRegistry } from '../../tools';
import { common } from '../common';
import { emit, shortOid, type CommonOptions } from '../io';
import { cliBaseTools, cliToolRegistry } from '../registry';
import { toolView, type ToolsCliOptions } from './tools-view';

const SESSION_OPTION = ['--session <id>', "use the session's branch (and its uncommitted turn) instead of HEAD"] as const;

export function registerTools(program: Command): void {
  const tools = common(program.command('tools'))
    .description('print the tool schemas (OpenAI strict function calling and Anthropic tool form), built-in and approved repository tools')
    .option(...SESSION_OPTION)
    .action(async (options: ToolsCliOptions) => {
      const registry = await schemaRegistry(options);
      const schemas = registry.schemas(DEFAULT_TOOLS_CONFIG);
      emit(options, schemas, () => schemas.openai.map((t) => `${t.function.name}\n    ${t.function.description.split('\n')[0]}`).join('\n'));
    });

  common(tools.command('list'))
    .description('list built-in and repository tools with their state: approved, changed since approval, never approved, refused')
    .option(...SESSION_OPTION)
    .action(async (_options: ToolsCliOptions, command: Command) => {
      const options = withParent(command);
      const { listTools } = await import('../../tools/repo');
      const { view, repoTools } = await toolView(options);
      const listing = await listTools(cliBaseTools(), repoTools, view.vfs);
      emit(options, { source: view.label, tools: listing }, () =>
        listing
          .map((t) => {
            if (t.kind === 'builtin') return `${t.name.padEnd(24)} built-in`;
            const state =
              t.state === 'changed'
                ? 'CHANGED since approval (forge tools diff ' + t.name + ')'
                : t.state === 'unapproved'
                  ? 'never approved'
                  : t.state === 'refused'
                    ? `refused: ${t.problem}`
                    : t.state === 'untrusted'
                      ? `approved upstream by ${t.approvedBy}, not trusted here (review: forge tools diff ${t.name}; then forge tools approve ${t.name} --sha256 ${t.sha256})`
                      : `approved by ${t.approvedBy} at ${t.approvedAt}, trusted here by ${t.trustedBy}`;
            // The whole hash: it is what forge tools approve --sha256 takes.
            return `${t.name.padEnd(24)} ${t.path}  sha256 ${t.sha256!}  ${state}`;
          })
          .join('\n'),
      );
    });

  common(tools.command('approve <name>'))
    .description(
      "approve tools/<name>.js on this machine: records its SHA-256 in this repository's local trust list (.git/forge/trusted-tools.json) and in .forge/approved_tools.json (a commit of its own on the current branch or the session branch, unless that approval is already committed)",
    )
    .option(...SESSION_OPTION)
    .option('--sha256 <hash>', 'the SHA-256 you reviewed (forge tools diff / tools list show it): refused if the source is not that one any more')
    .action(async (name: string, _options: ToolsCliOptions & { sha256?: string }, command: Command) => {
      const options = withParent(command) as ToolsCliOptions & { sha256?: string };
      const { approveRepoTool } = await import('../../tools/repo');
      const { nodeWorktreeSync } = await import('../../branches/node/worktree-sync');
      const { openRepository } = await import('../open');
      const repo = await openRepository(options);
      const result = await approveRepoTool(repo, {
        name,
        ...(options.session !== undefined ? { session: options.session } : {}),
        ...(options.sha256 !== undefined ? { expectedSha256: options.sha256.toLowerCase() } : {}),
        reservedNames: new Set(cliBaseTools().flatMap((t) => [t.name, ...(t.aliases ?? [])])),
        hash: (bytes) => repo.platform.sha256Hex(bytes),
        worktree: nodeWorktreeSync(),
      });
      emit(options, result, () =>
        result.confirmedUpstream
          ? `trusted ${result.path} here (sha256 ${result.sha256}), approved upstream by ${result.approval.approvedBy}; nothing committed`
          : result.commit === null
          ? `${result.path} is already approved and trusted here as it is (sha256 ${result.sha256}); nothing committed`
          : `approved ${result.path} (sha256 ${result.sha256})${result.previousSha256 ? `, replacing ${result.previousSha256}` : ''}\ncommitted ${shortOid(result.commit)} on ${result.ref.replace(/^refs\/heads\//, '')}`,
      );
    });

  common(tools.command('diff <name>'))
    .description("show what changed in tools/<name>.js since it was approved (the whole file if it never was)")
    .option(...SESSION_OPTION)
    .action(async (name: string, _options: ToolsCliOptions, command: Command) => {
      const options = withParent(command);
      const { diffTool } = await import('../../tools/repo');
      const { view, repoTools } = await toolView(options);
      const result = await diffTool(repoTools, view.vfs, (oid) => view.repo.readBlob(oid), name);
      emit(options, result, () => {
        if (result.state === 'approved') return `${result.path} is approved and trusted here as it is (sha256 ${result.sha256})`;
        const head =
          result.state === 'untrusted'
            ? `approved upstream by ${result.approvedBy}, not trusted here; ${result.base === 'trusted-here' ? 'the diff is from the version last trusted here' : 'never trusted here: the whole file'}\nsha256 ${result.sha256}`
            : result.approvedSha256
              ? `approved sha256 ${result.approvedSha256}\ncurrent  sha256 ${result.sha256}`
              : `never approved; current sha256 ${result.sha256}`;
        return `${head}\n${result.diff}to approve exactly this source: forge tools approve ${result.tool} --sha256 ${result.sha256}${options.session !== undefined ? ` --session ${options.session}` : ''}`;
      });
    });
}

/** `forge tools --session X list` and `forge tools list --session X` alike: the parent declares the same options and parses them first. */
function withParent(command: Command): ToolsCliOptions {
  return command.optsWithGlobals<ToolsCliOptions>();
}

/** The registry `forge tools` prints: outside a git repository, the built-ins alone. */
async function schemaRegistry(options: ToolsCliOptions): Promise<ToolRegistry> {
  let view;
  try {
    view = await toolView(options);
  } catch (error) {
    // No repository (or no commit yet): there are no repository tools, and the built-ins are still worth printing.
    if (error instanceof ForgeError && ((error.code === 'NOT_A_REPOSITORY' && options.repo === undefined) || error.code === 'REF_NOT_FOUND') && options.session === undefined) return cliToolRegistry();
    throw error;
  }
  return view.registry;
}
