/**
 * Runs tool calls against a session: each call goes through the registry (mode, schema,
 * sandbox, approval), is recorded in the session state with its result, and a call that changed
 * files becomes the session's undo entry. Shared by `forge turn`, the agent loop and MCP, so a
 * tool behaves the same everywhere.
 */
import type { Session } from '../session';
import { createToolContext, createToolRegistry, type ApprovalPolicy, type ToolContext, type ToolRegistry, type ToolResult } from '../tools';

export interface ToolCallInput {
  tool: string;
  args?: unknown;
  /** The model's id for the call; generated when absent. */
  id?: string;
}

export interface ToolCallOptions {
  approval: ApprovalPolicy;
  registry?: ToolRegistry;
  /** A ToolsConfig or a partial one (defaults fill the rest). */
  config?: unknown;
}

export class SessionToolRunner {
  readonly registry: ToolRegistry;
  readonly context: ToolContext;
  private counter = 0;

  constructor(
    readonly session: Session,
    options: ToolCallOptions,
  ) {
    this.registry = options.registry ?? createToolRegistry();
    // The session state object itself: tools update read hashes, clipboards and active files in place.
    this.context = createToolContext({
      vfs: session.vfs,
      state: session.state,
      approval: options.approval,
      // The repository's platform: native SHA-256 on Node, WebCrypto elsewhere.
      hashContent: (bytes) => session.repo.platform.sha256Hex(bytes),
      ...(options.config !== undefined ? { config: options.config } : {}),
    });
  }

  async call(input: ToolCallInput): Promise<ToolResult> {
    const id = input.id ?? `call_${this.session.currentTurn}_${++this.counter}`;
    const args = input.args ?? {};
    const undoBefore = this.session.state.undo;
    const result = await this.registry.call(this.context, input.tool, args);
    const recordsUndo = this.registry.get(result.tool)?.recordsUndo !== false;
    if (result.ok && result.changes.length > 0 && recordsUndo) {
      this.session.state.undo = { tool: result.tool, turn: this.session.currentTurn, summary: summarize(result.tool, result.changes.map((c) => c.path)), files: result.changes };
    }
    if (result.ok && !recordsUndo && undoBefore !== null && this.session.state.undo === null) {
      // The commit that carries a reversal says so (the undone edit may be from an earlier turn).
      this.session.addCommitNote(`Undo of turn ${undoBefore.turn}: ${undoBefore.summary}`);
    }
    await this.session.recordToolCall(
      result.ok
        ? { id, tool: result.tool, args, ok: true, output: result.output }
        : { id, tool: result.tool, args, ok: false, error: { code: result.error.code, message: result.error.message } },
    );
    return result;
  }

  /** Runs calls in order; a failing call does not stop the ones after it. */
  async callAll(inputs: readonly ToolCallInput[]): Promise<ToolResult[]> {
    const results: ToolResult[] = [];
    for (const input of inputs) results.push(await this.call(input));
    return results;
  }
}

function summarize(tool: string, paths: string[]): string {
  const shown = paths.slice(0, 3).join(', ');
  return `${tool} ${shown}${paths.length > 3 ? ` and ${paths.length - 3} more` : ''}`;
}
