/** The CLI's repository-tool set-up: one QuickJS sandbox per process, limits from the view's config. */
import { join } from 'node:path';
import type { AnyToolDefinition } from '../tools';
import { registryWithRepoTools, repoToolLimitsFromConfig } from '../tools/repo';
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

export async function cliRepoTools(vfs: Vfs, base: readonly AnyToolDefinition[]) {
  const result = await registryWithRepoTools(base, vfs, { sandbox: cliSandbox(), limits: await repoToolLimitsFromConfig(vfs) });
  for (const { tool, error } of result.problems) process.stderr.write(`forge: warning: repository tool ${tool} is approved but does not load: ${error.code}: ${error.message}\n`);
  return result;
}
