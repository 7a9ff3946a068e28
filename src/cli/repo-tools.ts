/** The CLI's repository-tool set-up: one QuickJS sandbox per process, limits from the view's config. */
import type { QuickJSSyncVariant, QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { AnyToolDefinition } from '../tools';
import type { Repository } from '../git';
import { LocalToolTrust, QuickJsSandbox, registryWithRepoTools, repoToolLimitsFromConfig, type RepoToolStatus } from '../tools/repo';
import type { Vfs } from '../vfs/types';

let sandbox: QuickJsSandbox | null = null;

/**
 * forge.cjs runs from a V8 code cache (vm.Script), which has no dynamic import(): QuickJS is
 * required from node_modules (left out of the bundle, loaded only when a repository tool is).
 */
async function requireQuickJs(): Promise<QuickJSWASMModule> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const core = require('quickjs-emscripten-core') as typeof import('quickjs-emscripten-core');
  const variant = require('@jitl/quickjs-wasmfile-release-sync') as { default?: QuickJSSyncVariant } & QuickJSSyncVariant;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return core.newQuickJSWASMModuleFromVariant(variant.default ?? variant);
}

export function cliSandbox(): QuickJsSandbox {
  sandbox ??= new QuickJsSandbox(requireQuickJs);
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
