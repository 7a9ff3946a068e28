/**
 * forge mcp: the session tools as a stdio MCP server (Claude Code, Cursor, Codex CLI, ...).
 * stdout carries the protocol only; the session id and any notes go to stderr.
 */
import { Option, type Command } from 'commander';
import type * as McpServerModule from '../../mcp/server';
import { openMcpSession } from '../../mcp/session';
import type { AutoCommit } from '../../mcp/turns';
import type { SessionMode } from '../../session';
import { BUILTIN_TOOLS } from '../../tools';
import { approvableNames, approvalFromOption } from '../approval-option';
import { shortOid } from '../io';
import { openStore } from '../open';
import { loadSettings } from '../settings';

interface McpOptions {
  repo?: string;
  session?: string;
  base?: string;
  mode?: SessionMode;
  autoCommit: AutoCommit;
  approve?: string;
  mount?: string;
}

const log = (line: string) => {
  process.stderr.write(`${line}\n`);
};

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('serve the tools of a session over MCP on stdin/stdout (for Claude Code, Cursor, Codex CLI, ...)')
    .option('--repo <dir>', 'the repository (default: the current directory)')
    .option('--session <id>', 'the session to work in; created when it does not exist, so a restart resumes it (default: a new session)')
    .option('--base <ref>', 'revision a new session starts from (default HEAD); ignored when the session exists')
    .addOption(new Option('--mode <mode>', 'restricted (read-only tools) or unrestricted; new sessions default to unrestricted').choices(['restricted', 'unrestricted']))
    .addOption(new Option('--auto-commit <when>', 'every-call: commit each successful call that changes files; explicit: only commit_turn commits').choices(['every-call', 'explicit']).default('explicit'))
    .option('--mount <dir>', 'also mount the session at this empty directory (FUSE) while serving: the client\'s own shell and editors work there, and what they change is in the session and in the next commit_turn')
    .option('--approve <policy>', 'all | none | TOOL,TOOL: which side-effecting calls run (MCP clients ask their user themselves, so default all)')
    .action(async (options: McpOptions) => {
      if (options.approve !== undefined) approvalFromOption(options.approve, approvableNames(BUILTIN_TOOLS)); // a bad flag fails before the repository is opened
      const store = await openStore(options);
      const settings = loadSettings(store.repo.workdir, options.approve !== undefined ? { approve: options.approve } : {});
      const approval = approvalFromOption(settings.approve ?? 'all', approvableNames(BUILTIN_TOOLS));
      const { session, created, notes } = await openMcpSession(store, {
        ...(options.session !== undefined ? { session: options.session } : {}),
        ...(options.base !== undefined ? { base: options.base } : {}),
        ...(options.mode !== undefined ? { mode: options.mode } : {}),
      });
      // Loaded on use: initialising the MCP SDK (hundreds of zod schemas, ajv) would cost every
      // other command ~20 ms of start-up. esbuild bundles this require() into forge.cjs as a
      // lazily initialised module; a dynamic import() would not do, the code-cache launcher
      // cannot serve it (dist/forge.cjs is the only way the CLI runs).
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { ForgeMcpServer, serveStdio } = require('../../mcp/server') as typeof McpServerModule;
      // The built-ins plus the repository's approved tools; the list follows tools/ as the session changes it.
      const { cliRepoTools } = await import('../repo-tools');
      const { repoToolSet } = await import('../../mcp/repo-tool-list');
      const { registry, repoTools } = await cliRepoTools(session.repo, session.vfs, BUILTIN_TOOLS);
      const { SerialQueue } = await import('../../session/serial-queue');
      // The mount's edits and the tool calls go through one queue: the journal takes one unit at a time.
      const queue = new SerialQueue();
      const server = new ForgeMcpServer({ queue, session, approval, registry, repoTools: repoToolSet(BUILTIN_TOOLS, repoTools), ...(settings.denied_paths !== undefined ? { config: { denied_paths: settings.denied_paths } } : {}), autoCommit: options.autoCommit, version: program.version() ?? '0.0.0' });
      const pending = (await session.vfs.diff()).length;
      log(
        `forge mcp: session ${session.id} on ${session.branch} at ${shortOid(session.head)} (${created ? `new, from ${shortOid(session.state.base.commit)}` : `turn ${session.state.turn}`}; ` +
          `${pending} pending change(s); mode ${session.state.mode}; auto-commit ${options.autoCommit}; repo ${store.repo.workdir ?? store.repo.gitdir})`,
      );
      for (const note of notes) log(`forge mcp: ${note}`);
      let mount: { unmount(): Promise<void>; dir: string } | undefined;
      if (options.mount !== undefined) {
        const { mountSession } = await import('../../mount/node/mount-session');
        const { DEFAULT_TOOLS_CONFIG } = await import('../../tools');
        mount = await mountSession(session, options.mount, { queue, log, worktreeIgnored: settings.mount_worktree_ignored !== false, config: settings.denied_paths !== undefined ? { ...DEFAULT_TOOLS_CONFIG, denied_paths: settings.denied_paths } : DEFAULT_TOOLS_CONFIG });
        log(`forge mcp: session mounted at ${mount.dir} (FUSE): what programs change there is pending in the session until commit_turn`);
      }
      try {
        await serveStdio(server, log);
      } finally {
        await mount?.unmount();
      }
    });
}
