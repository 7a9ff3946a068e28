/**
 * Runs tool calls against a session: each call goes through the registry (mode, schema,
 * sandbox, approval), is recorded in the session state with its result, and a call that changed
 * files becomes the session's undo entry. Shared by `forge turn`, the agent loop and MCP, so a
 * tool behaves the same everywhere.
 */
import type { Session } from '../session';
import { createToolContext, createToolRegistry, type ApprovalPolicy, type ToolContext, type ToolRegistry, type ToolResult } from '../tools';
import { Utf8Text } from '../tools/utf8-text';

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
      hashContent: (bytes) => session.repo.sha256Hex(bytes),
      hashOfBlob: (oid) => session.repo.blobSha256(oid),
      ...(options.config !== undefined ? { config: options.config } : {}),
    });
  }

  async call(input: ToolCallInput): Promise<ToolResult> {
    const id = input.id ?? `call_${this.session.currentTurn}_${++this.counter}`;
    const args = input.args ?? {};
    // Refused (SESSION_BUSY) before anything changes while another process writes the session.
    await this.session.prepareCall();
    const undoBefore = this.session.state.undo;
    // The call's file changes and its record are journaled as one line (all or nothing).
    this.session.vfs.beginBatch();
    let journaled = false;
    try {
      const result = await this.callInBatch(id, input.tool, args, undoBefore);
      await this.session.vfs.endBatch();
      journaled = true;
      return result;
    } finally {
      // The journal did not take the call (a full disk...): it is forgotten in memory too.
      if (!journaled) await this.session.revertToJournal().catch(() => undefined); // the first error is the one to report
    }
  }

  private async callInBatch(id: string, tool: string, args: unknown, undoBefore: Session['state']['undo']): Promise<ToolResult> {
    const result = await this.registry.call(this.context, tool, args);
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
        ? { id, tool: result.tool, args: boundForRecord(args), ok: true, output: boundForRecord(result.output) }
        : { id, tool: result.tool, args: boundForRecord(args), ok: false, error: { code: result.error.code, message: result.error.message } },
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

/**
 * What the session state keeps of a call's arguments and output: long strings (a file's content
 * in write_file, a read_file result) are cut to their start and their length. The bytes are in the
 * object store and the journal names them; keeping them again in every record made the state,
 * the per-turn state write and a long-running server's memory grow with everything ever written.
 */
export const RECORDED_STRING_LIMIT = 4096;
const RECORDED_STRING_HEAD = 512;

export function boundForRecord(value: unknown, limit = RECORDED_STRING_LIMIT): unknown {
  if (typeof value === 'string') {
    return value.length <= limit ? value : `${value.slice(0, RECORDED_STRING_HEAD)}… [${value.length - RECORDED_STRING_HEAD} more characters not kept in the session record]`;
  }
  // A huge argument kept as bytes (forge turn): the same record as for its string.
  if (value instanceof Utf8Text) {
    const length = value.length;
    return length <= limit ? value.toString() : `${value.head(RECORDED_STRING_HEAD)}… [${length - RECORDED_STRING_HEAD} more characters not kept in the session record]`;
  }
  if (Array.isArray(value)) return value.map((item) => boundForRecord(item, limit));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = boundForRecord(item, limit);
    return out;
  }
  return value;
}
