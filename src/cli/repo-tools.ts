/** The CLI's repository-tool set-up: one QuickJS sandbox per process, limits from the view's config. */
import { join } from 'node:path';
import type { AnyToolDefinition } from '../tools';
import type { Repository } from '../git';
import { LocalToolTrust, registryWithRepoTools, repoToolLimitsFromConfig, type RepoToolStatus } from '../tools/repo';
import { NodeWorkerSandbox } from '../tools/repo/node/worker-sandbox';
import type { Vfs } from '../vfs/types';

let sandbox: NodeWorkerSandbox | null = null;

/**
 * Tools run in a worker thread the CLI terminates at the deadline (a tool spinning in a native
 * built-in cannot hold `forge turn` or `forge mcp`). The worker script sits next to forge.cjs.
 */
export function cliSandbox(): NodeWorkerSandbox {
  sandbox ??= new NodeWorkerSandbox({ entry: join(__dirname, 'repo-tool-worker.cjs') });
  return sandbox;
}

export async function cliRepoTools(repo: Repository, vfs: Vfs, base: readonly AnyToolDefinition[]) {
  const result = await registryWithRepoTools(base, vfs, { sandbox: cliSandbox(), trust: new LocalToolTrust(repo), limits: await repoToolLimitsFromConfig(vfs) });
  for (const { tool, error } of result.problems) process.stderr.write(`forge: warning: repository tool ${tool} is approved but does not load: ${error.code}: ${error.message}\n`);
  for (const status of result.untrusted) process.stderr.write(`forge: warning: ${untrustedWarning(status)}\n`);
  return result;
}

/** The line `forge tools list` and the warnings on stderr (forge mcp, turn, run) show for an upstream approval. */
export function untrustedWarning(status: Pick<RepoToolStatus, 'name' | 'sha256'> & { approval?: { approvedBy: string } }): string {
  return `repository tool ${status.name} is approved upstream by ${status.approval?.approvedBy ?? 'someone'}, not trusted here: it does not run until you review it (forge tools diff ${status.name}) and run forge tools approve ${status.name} --sha256 ${status.sha256}`;
}
