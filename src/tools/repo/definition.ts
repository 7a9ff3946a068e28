/**
 * A repository tool as a ToolDefinition, so it takes the built-ins' pipeline in the registry:
 * mode (it writes: restricted mode refuses it with REQ-PATCH-009's wording), strict input from
 * its JSON Schema, approval policy, the recording view (a failed call is rolled back), the undo
 * entry, the journal and the turn commit. The handler checks the approval again against the
 * view as it is at the call: a tool file changed earlier in the turn no longer runs.
 */
import { z } from 'zod';
import { ForgeError } from '../../errors';
import type { AnyToolDefinition } from '../define';
import type { JsonSchema } from '../json-schema';
import { isSafeRegex } from '../regex-safety';
import { sandboxBridge } from './bridge';
import { notApprovedError, readApprovals, readToolSource, repoToolPath, toolStatus } from './discover';
import type { RepoToolLimits } from './limits';
import type { ToolTrust } from './trust';
import type { ToolModuleInfo, WasmSandbox } from './wasm-sandbox';

export interface RepoToolOutput {
  /** What execute returned, as JSON. */
  result: unknown;
}

export interface RepoToolSpec {
  name: string;
  sha256: string;
  description: string;
  input: z.ZodObject;
}

/** Validates what a module exported: a description, an object JSON Schema, an execute function. */
export function specFromModule(name: string, sha256: string, info: ToolModuleInfo): RepoToolSpec {
  const path = repoToolPath(name);
  const invalid = (problem: string) =>
    new ForgeError('REPO_TOOL_INVALID', `${path} ${problem}.`, {
      data: { tool: name, path },
      hint: 'A repository tool exports `description` (a string), `schema` (a JSON Schema of type object) and `execute(vfs, args)`.',
    });
  if (typeof info.description !== 'string' || info.description.trim() === '') throw invalid('does not export a non-empty string `description`');
  if (!info.hasExecute) throw invalid('does not export a function `execute`');
  const schema = info.schema as JsonSchema | undefined;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || schema.type !== 'object') throw invalid('does not export `schema`, a JSON Schema with type "object"');
  const unsafe = unsafePatterns(schema);
  if (unsafe.length > 0) {
    throw invalid(
      `has a \`pattern\` that nests quantifiers (${unsafe.map((p) => JSON.stringify(p)).join(', ')}): the host checks arguments against it outside the sandbox, where such a pattern can take exponential time`,
    );
  }
  let input: z.ZodType;
  try {
    // Tool inputs are strict objects, like the built-ins': unknown keys are refused.
    input = z.fromJSONSchema({ additionalProperties: false, ...schema } as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw invalid(`exports a schema that cannot be used (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!(input instanceof z.ZodObject)) throw invalid('exports a schema that is not a single object');
  try {
    // It must also export back (forge tools, MCP and the agent send it to models).
    z.toJSONSchema(input, { io: 'input', unrepresentable: 'throw' });
  } catch (error) {
    throw invalid(`exports a schema that cannot be offered to a model (${error instanceof Error ? error.message : String(error)})`);
  }
  return { name, sha256, description: info.description, input };
}

/** Keywords whose values are data, not subschemas: a `pattern` key inside them is not a pattern. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'description', 'title']);

/**
 * The patterns of a schema (`pattern` values and `patternProperties` keys) that fail the
 * project's safe-regex rule. Walked with an explicit stack: the schema's depth is bounded before
 * it gets here, but this code must not depend on it.
 */
export function unsafePatterns(schema: JsonSchema): string[] {
  const unsafe: string[] = [];
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) continue;
      if (key === 'pattern' && typeof value === 'string' && !isSafeRegex(value)) unsafe.push(value);
      if (key === 'patternProperties' && value !== null && typeof value === 'object') unsafe.push(...Object.keys(value).filter((p) => !isSafeRegex(p)));
      pending.push(value);
    }
  }
  return unsafe;
}

export interface RepoToolDeps {
  sandbox: WasmSandbox;
  limits: RepoToolLimits;
  reservedNames: ReadonlySet<string>;
  trust: ToolTrust;
}

export function repoToolDefinition(spec: RepoToolSpec, deps: RepoToolDeps): AnyToolDefinition {
  const path = repoToolPath(spec.name);
  return {
    name: spec.name,
    description: spec.description,
    input: spec.input,
    sideEffects: true,
    async handler(input: unknown, ctx): Promise<RepoToolOutput> {
      const source = await readToolSource(ctx.vfs, spec.name);
      const status = await toolStatus(spec.name, source, await readApprovals(ctx.vfs), deps.reservedNames, ctx.hashContent, deps.trust);
      if (status.state !== 'approved') throw notApprovedError(status);
      if (status.sha256 !== spec.sha256) {
        // Approved as it is now, but loaded from another version: its schema may differ; load again.
        throw new ForgeError('TOOL_NOT_APPROVED', `Repository tool ${spec.name} changed since this run loaded it (SHA-256 ${spec.sha256}, now ${status.sha256}). Nothing was changed.`, {
          data: { tool: spec.name, path, sha256: status.sha256, approvedSha256: status.approval?.sha256 ?? null, loadedSha256: spec.sha256 },
          hint: 'Start a new run so the tool is loaded again.',
        });
      }
      const bridge = sandboxBridge(ctx);
      let json: string;
      try {
        json = await deps.sandbox.execute(new TextDecoder().decode(source), path, bridge.vfs, input, deps.limits);
      } catch (error) {
        throw bridge.violation ?? error;
      }
      if (bridge.violation) throw bridge.violation;
      return { result: JSON.parse(json) as unknown };
    },
  };
}
