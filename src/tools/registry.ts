/**
 * The registry: lookup by name or alias, and the one path every call takes (as in the MCP SDK's
 * tools/call): mode -> input schema -> path sandbox -> approval -> handler. A tool-level failure
 * never throws to the caller: it becomes a result that keeps its ForgeError code. A call that
 * fails after the handler started is rolled back (view and tool state), so a failed call never
 * changes anything.
 */
import { z } from 'zod';
import { ForgeError, toForgeError, type ErrorCode } from '../errors';
import { savepoint, type MapSavepoint } from '../session';
import { resolveApproval, type ApprovalOutcome } from './approval';
import type { ToolContext, ToolState } from './context';
import type { AnyToolDefinition } from './define';
import { parseToolInput } from './input';
import { TOOL_NAME_PATTERN, toAnthropicTool, toOpenAiTool, type AnthropicToolSchema, type OpenAiToolSchema } from './json-schema';
import { disabledInModeMessage, isAvailableInMode } from './modes';
import { RecordingVfs, type FileChange } from './recording-vfs';
import { checkPath } from './sandbox';
import { splitUtf8Args } from './utf8-text';
import type { ToolsConfig } from './config';

export interface ToolError {
  code: ErrorCode;
  message: string;
  data?: Record<string, unknown>;
  hint?: string;
}

export type ToolResult<O = unknown> =
  /** `changes`: what the call wrote, in the shape of an undo entry's files. */
  | { tool: string; ok: true; output: O; changes: FileChange[] }
  | { tool: string; ok: false; error: ToolError };

export interface ToolSchemas {
  openai: OpenAiToolSchema[];
  anthropic: AnthropicToolSchema[];
}

function failure(tool: string, error: unknown): ToolResult<never> {
  const forgeError =
    error instanceof ForgeError
      ? error
      : new ForgeError('INTERNAL', `Internal error in ${tool}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  const out: ToolError = { code: forgeError.code, message: forgeError.message };
  if (Object.keys(forgeError.data).length > 0) out.data = forgeError.data;
  if (forgeError.hint !== undefined) out.hint = forgeError.hint;
  return { tool, ok: false, error: out };
}

function deniedMessage(tool: string, outcome: Exclude<ApprovalOutcome, { allowed: true }>): string {
  const what =
    outcome.reason === 'declined'
      ? `The user declined the ${tool} call.`
      : outcome.reason === 'no_approver'
        ? `${tool} needs approval and no approver is available in this run.`
        : `The approval policy denied the ${tool} call.`;
  return `${what} Nothing was changed. Do not repeat the same call; continue without it or ask the user how to proceed.`;
}

/** What a failed call restores: the maps through savepoints (cost: the keys the call changed). */
interface SavedState {
  mode: ToolState['mode'];
  activeFiles: ToolState['activeFiles'];
  undo: ToolState['undo'];
  readHashes: MapSavepoint;
  clipboards: MapSavepoint;
}

function saveState(state: ToolState): SavedState {
  // The lists are replaced, not edited, by the tools; the undo entry is cloned whole.
  return { mode: state.mode, activeFiles: [...state.activeFiles], undo: structuredClone(state.undo), readHashes: savepoint(state.readHashes), clipboards: savepoint(state.clipboards) };
}

function restoreState(state: ToolState, saved: SavedState): void {
  state.mode = saved.mode;
  state.readHashes = saved.readHashes.restore();
  state.clipboards = saved.clipboards.restore();
  state.activeFiles = saved.activeFiles;
  state.undo = saved.undo;
}

/**
 * Looks up a tool the registry does not list, at call time (repository tools written or
 * changed during a session). undefined: no such tool; a throw becomes the call's error.
 */
export type ToolResolver = (name: string, ctx: ToolContext) => Promise<AnyToolDefinition | undefined>;

export class ToolRegistry {
  private readonly byName = new Map<string, AnyToolDefinition>();

  constructor(
    readonly tools: readonly AnyToolDefinition[],
    private readonly resolve?: ToolResolver,
  ) {
    for (const tool of tools) {
      // Misdeclared tools are programming errors: fail at construction, not in front of a model.
      if (!(tool.input instanceof z.ZodObject)) throw new ForgeError('INTERNAL', `Tool ${tool.name}: the input schema must be one object`);
      for (const name of [tool.name, ...(tool.aliases ?? [])]) {
        if (!TOOL_NAME_PATTERN.test(name)) throw new ForgeError('INTERNAL', `Tool name ${JSON.stringify(name)} is not 1-64 characters of a-zA-Z0-9_-`);
        if (this.byName.has(name)) throw new ForgeError('INTERNAL', `Tool name ${name} is declared twice`);
        this.byName.set(name, tool);
      }
    }
  }

  get(name: string): AnyToolDefinition | undefined {
    return this.byName.get(name);
  }

  /** The tools a configuration offers (disabled ones left out). */
  enabled(config: ToolsConfig): AnyToolDefinition[] {
    return this.tools.filter((t) => !config.disabled_tools.includes(t.name));
  }

  /** Canonical names only: an alias is accepted on call but not advertised twice. */
  schemas(config: ToolsConfig): ToolSchemas {
    const tools = this.enabled(config);
    return { openai: tools.map(toOpenAiTool), anthropic: tools.map(toAnthropicTool) };
  }

  async call(ctx: ToolContext, name: string, args: unknown): Promise<ToolResult> {
    let tool = this.byName.get(name);
    if (!tool && this.resolve) {
      try {
        tool = await this.resolve(name, ctx);
      } catch (error) {
        return failure(name, error);
      }
    }
    if (!tool) {
      const known = this.enabled(ctx.config).map((t) => t.name).join(', ');
      return failure(name, new ForgeError('TOOL_NOT_FOUND', `There is no tool named ${JSON.stringify(name)}. Available tools: ${known}.`, { data: { tool: name } }));
    }
    try {
      if (ctx.config.disabled_tools.includes(tool.name)) {
        throw new ForgeError('TOOL_DISABLED', `${tool.name} is disabled in this workspace's configuration. Use another tool.`, { data: { tool: tool.name } });
      }
      if (!isAvailableInMode(tool, ctx.state.mode)) {
        throw new ForgeError('TOOL_DISABLED_IN_MODE', disabledInModeMessage(tool.name), { data: { tool: tool.name, mode: ctx.state.mode } });
      }
      const split = splitUtf8Args(args, tool.utf8Args ?? []);
      const input = parseToolInput(tool.name, tool.input, split.args);
      const paths: string[] = [];
      for (const arg of tool.paths?.(input) ?? []) paths.push(await checkPath(ctx.vfs, ctx.config, arg));
      const outcome = await resolveApproval(ctx.approval, {
        tool: tool.name,
        aliases: tool.aliases ?? [],
        sideEffects: tool.sideEffects,
        args: input,
        paths,
        mode: ctx.state.mode,
      });
      if (!outcome.allowed) {
        throw new ForgeError('TOOL_DENIED', deniedMessage(tool.name, outcome), { data: { tool: tool.name, reason: outcome.reason } });
      }
      return await this.run(tool, input, split.bytes.size > 0 ? { ...ctx, utf8Args: split.bytes } : ctx);
    } catch (error) {
      return failure(tool.name, error);
    }
  }

  private async run(tool: AnyToolDefinition, input: unknown, ctx: ToolContext): Promise<ToolResult> {
    const recorder = new RecordingVfs(ctx.vfs);
    const saved = saveState(ctx.state);
    try {
      const output: unknown = await tool.handler(input, { ...ctx, vfs: recorder });
      const result: ToolResult = { tool: tool.name, ok: true, output, changes: await recorder.changes(ctx.hashContent) };
      saved.readHashes.release();
      saved.clipboards.release();
      return result;
    } catch (error) {
      restoreState(ctx.state, saved);
      try {
        await recorder.rollback();
      } catch (rollbackError) {
        const cause = toForgeError(error);
        return failure(
          tool.name,
          new ForgeError('INTERNAL', `${tool.name} failed (${cause.code}: ${cause.message}) and its partial writes could not be undone: ${toForgeError(rollbackError).message}`, {
            data: { paths: recorder.touched, cause: cause.code },
          }),
        );
      }
      return failure(tool.name, error);
    }
  }
}
