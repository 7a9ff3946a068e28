/**
 * The repository tools of a view, ready for a ToolRegistry: `definitions` gives the approved
 * tools (to list and offer), `resolve` finds a tool by name at call time (a tool written or
 * changed during the session: refused with TOOL_NOT_APPROVED until a person approves it).
 * Module declarations are cached by source hash: loading a tool costs one sandbox evaluation
 * per version, not per call.
 */
import { ForgeError } from '../../errors';
import type { Vfs } from '../../vfs/types';
import type { ToolContext } from '../context';
import type { AnyToolDefinition } from '../define';
import { ToolRegistry } from '../registry';
import { sha256Hex } from '../hash';
import { nameProblem, notApprovedError, readApprovals, readToolSource, repoToolPath, scanRepoTools, toolStatus, type RepoToolStatus } from './discover';
import { repoToolDefinition, specFromModule, type RepoToolSpec } from './definition';
import { parseRepoToolLimits, type RepoToolLimits } from './limits';
import type { ToolTrust } from './trust';
import type { WasmSandbox } from './wasm-sandbox';

export interface RepoToolsOptions {
  sandbox: WasmSandbox;
  /**
   * This machine's trust list (`new LocalToolTrust(repo)`): a tool runs only when a person
   * approved its exact source here, whatever the committed approvals file says.
   */
  trust: ToolTrust;
  /** Names repository tools may not take: the built-ins and their aliases. */
  reservedNames: Iterable<string>;
  /** Per-call limits (snake_case keys, defaults in limits.ts). */
  limits?: unknown;
  hash?: (bytes: Uint8Array) => Promise<string>;
}

export class RepoTools {
  readonly limits: RepoToolLimits;
  readonly reservedNames: ReadonlySet<string>;
  readonly trust: ToolTrust;
  private readonly sandbox: WasmSandbox;
  private readonly hash: (bytes: Uint8Array) => Promise<string>;
  private readonly specs = new Map<string, Promise<RepoToolSpec>>();

  constructor(options: RepoToolsOptions) {
    this.sandbox = options.sandbox;
    this.trust = options.trust;
    this.reservedNames = new Set(options.reservedNames);
    this.limits = parseRepoToolLimits(options.limits);
    this.hash = options.hash ?? sha256Hex;
  }

  hashOf(bytes: Uint8Array): Promise<string> {
    return this.hash(bytes);
  }

  scan(vfs: Vfs): Promise<RepoToolStatus[]> {
    return scanRepoTools(vfs, this.reservedNames, this.hash, this.trust);
  }

  /** Loads (evaluates) one version of a tool's module and validates its declarations. */
  load(name: string, sha256: string, source: Uint8Array): Promise<RepoToolSpec> {
    const key = `${name}\0${sha256}`;
    let spec = this.specs.get(key);
    if (!spec) {
      spec = this.sandbox.inspect(new TextDecoder().decode(source), repoToolPath(name), this.limits).then((info) => specFromModule(name, sha256, info));
      spec.catch(() => this.specs.delete(key));
      this.specs.set(key, spec);
    }
    return spec;
  }

  definition(spec: RepoToolSpec): AnyToolDefinition {
    return repoToolDefinition(spec, { sandbox: this.sandbox, limits: this.limits, reservedNames: this.reservedNames, trust: this.trust });
  }

  /**
   * The approved tools of a view that load, as definitions, the problems of those that do
   * not (an invalid module is reported, not fatal: the other tools stay usable), and the tools
   * approved upstream but not trusted here (for a warning: they do not run).
   */
  async definitions(vfs: Vfs): Promise<{ tools: AnyToolDefinition[]; problems: Array<{ tool: string; error: ForgeError }>; untrusted: RepoToolStatus[] }> {
    const tools: AnyToolDefinition[] = [];
    const problems: Array<{ tool: string; error: ForgeError }> = [];
    const untrusted: RepoToolStatus[] = [];
    for (const status of await this.scan(vfs)) {
      if (status.state === 'untrusted') untrusted.push(status);
      if (status.state !== 'approved') continue;
      try {
        tools.push(this.definition(await this.load(status.name, status.sha256, await vfs.readFile(status.path))));
      } catch (error) {
        if (!(error instanceof ForgeError)) throw error;
        problems.push({ tool: status.name, error });
      }
    }
    return { tools, problems, untrusted };
  }

  /**
   * For ToolRegistry's `resolve`: a name the registry does not know, looked up in the view at
   * call time. undefined when there is no tools/<name>.js; TOOL_NOT_APPROVED when it is not
   * approved as it is now.
   */
  readonly resolve = async (name: string, ctx: ToolContext): Promise<AnyToolDefinition | undefined> => {
    if (nameProblem(name, new Set()) !== null || (await ctx.vfs.stat(repoToolPath(name)))?.type !== 'file') return undefined;
    const source = await readToolSource(ctx.vfs, name);
    const status = await toolStatus(name, source, await readApprovals(ctx.vfs), this.reservedNames, ctx.hashContent, this.trust);
    if (status.state === 'refused') {
      throw new ForgeError('TOOL_NAME_CONFLICT', `Repository tool ${status.path} is refused: ${status.problem}.`, { data: { tool: name, path: status.path } });
    }
    if (status.state !== 'approved') throw notApprovedError(status);
    return this.definition(await this.load(name, status.sha256, source));
  };
}

/**
 * A registry of `base` (the built-ins, and whatever the platform adds) plus the approved
 * repository tools of a view, resolving other tools/<name>.js at call time.
 */
export async function registryWithRepoTools(
  base: readonly AnyToolDefinition[],
  vfs: Vfs,
  options: Omit<RepoToolsOptions, 'reservedNames'>,
): Promise<{ registry: ToolRegistry; repoTools: RepoTools; problems: Array<{ tool: string; error: ForgeError }>; untrusted: RepoToolStatus[] }> {
  const repoTools = new RepoTools({ ...options, reservedNames: base.flatMap((t) => [t.name, ...(t.aliases ?? [])]) });
  const { tools, problems, untrusted } = await repoTools.definitions(vfs);
  return { registry: new ToolRegistry([...base, ...tools], repoTools.resolve), repoTools, problems, untrusted };
}
