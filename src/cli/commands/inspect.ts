/** forge inspect : a local web page for time travel, review and merge of the repository's sessions. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Command } from 'commander';
import { nodeWorktreeSync } from '../../branches/node/worktree-sync';
import { ForgeError } from '../../errors';
import { openRepository } from '../open';

interface InspectOptions {
  repo?: string;
  port: string;
  host: string;
  allowRemote?: boolean;
  open?: boolean;
}

/** The system's way to open a URL in the default browser. */
function openInBrowser(url: string): void {
  const [command, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => process.stderr.write(`forge: could not start a browser; open ${url}\n`));
  child.unref();
}

/** A port in use or an address this machine does not have is the user's input, not a bug (INTERNAL). */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === undefined || !['EADDRINUSE', 'EADDRNOTAVAIL', 'EACCES', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) return error;
  return new ForgeError('INVALID_ARGUMENT', `Cannot listen on ${host}:${port}: ${(error as Error).message}.`, {
    data: { host, port, code },
    hint: code === 'EADDRINUSE' ? 'Choose another --port, or --port 0 for any free one.' : 'Give --host an address of this machine, such as 127.0.0.1.',
  });
}

export function registerInspect(program: Command): void {
  program
    .command('inspect')
    .description('serve a local web page to review sessions: timeline, diffs, files at any turn, merge preview and actions')
    .option('--repo <dir>', 'the repository (default: the current directory)')
    .option('--port <n>', 'the port (default: any free port)', '0')
    .option('--host <address>', 'the address to listen on (an address other than loopback needs --allow-remote)', '127.0.0.1')
    .option('--allow-remote', 'allow --host to be an address other machines can reach (anyone with the printed URL can then read and change the repository)')
    .option('--open', 'open the page in the default browser')
    .action(async (options: InspectOptions) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ForgeError('INVALID_ARGUMENT', `--port ${options.port} is not a port number (0-65535).`);
      const { isLoopback } = await import('../../inspect/security');
      if (!isLoopback(options.host) && !options.allowRemote) {
        throw new ForgeError('INVALID_ARGUMENT', `--host ${options.host} would make the inspector reachable from other machines; it reads, merges and discards in this repository.`, {
          data: { host: options.host },
          hint: 'Leave --host out (127.0.0.1), or add --allow-remote if other machines must reach it.',
        });
      }
      const repo = await openRepository(options);
      // The bundle runs from dist/forge.cjs; the page is built beside it in dist/inspect/.
      // Loaded here: node:http costs every other command's start-up ~6 ms.
      const { startInspectServer } = await import('../../inspect/node/server');
      const inspector = await startInspectServer({ repo, assetsDir: join(__dirname, 'inspect'), host: options.host, port, worktree: nodeWorktreeSync() }).catch((error: unknown) => {
        throw listenError(error, options.host, port);
      });
      if (!isLoopback(options.host)) {
        process.stderr.write(
          `forge: warning: listening on ${options.host}:${new URL(inspector.origin).port}, reachable from other machines. Anyone with the URL below can read this repository and merge, rebase, undo or discard its sessions; it travels unencrypted (plain HTTP). Share it only over a trusted network; from another machine, open it with this machine's address in place of the host.\n`,
        );
      }
      // The URL carries the secret that lets a browser in: it is printed here, on the terminal, and served nowhere.
      process.stdout.write(`forge inspect: ${inspector.url}\n(Ctrl-C to stop)\n`);
      if (options.open) openInBrowser(inspector.url);
      await new Promise<void>((resolve) => {
        for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void inspector.close().then(resolve));
      });
    });
}
