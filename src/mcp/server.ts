/**
 * The MCP server: the tool registry of one session, plus commit_turn and session_status, and
 * the session's read-only resources. Every tools/call goes through the same SessionToolRunner
 * as `forge turn` (mode, strict input, sandbox, approval policy, recording, undo entry), one at
 * a time. As in the SDK's own tools/call path, a failure of any kind becomes an `isError`
 * result, never a protocol error or a crash; unlike it (McpServer validates arguments with zod
 * before the handler and answers a message-only error), the input is validated by the registry,
 * so an invalid call keeps its stable code (TOOL_INPUT_INVALID) and its field-by-field message.
 */
import { format } from 'node:util';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { SessionToolRunner } from '../agent/tool-calls';
import type { SessionMode } from '../session';
import { ForgeError } from '../errors';
import type { Session } from '../session';
import { isAvailableInMode, type ApprovalPolicy, type ToolRegistry } from '../tools';
import { parseToolInput } from '../tools/input';
import { SerialQueue } from '../session/serial-queue';
import { touchesRepoTools, type RepoToolSet } from './repo-tool-list';
import { LineStdioTransport } from './stdio-transport';
import { listResources, readResource } from './resources';
import { registryToolDescriptor } from './tool-list';
import { errorResult, successResult, toToolError } from './tool-results';
import { COMMIT_TURN, CommitTurnInput, renderStatus, SESSION_STATUS, SessionStatusInput, TurnTools, withAutoCommitOutput, type AutoCommit } from './turns';

export const COMMIT_META_KEY = 'forge/commit';
export const COMMIT_ERROR_META_KEY = 'forge/commit-error';

export interface ForgeMcpServerOptions {
  session: Session;
  /** MCP clients approve calls themselves; the server's policy comes on top (e.g. allowAll). */
  approval: ApprovalPolicy;
  autoCommit?: AutoCommit;
  registry?: ToolRegistry;
  /** Repository tools: the tool list is rebuilt after a call that changed tools/ (tools/list_changed). */
  repoTools?: RepoToolSet;
  /** A ToolsConfig or a partial one. */
  config?: unknown;
  version: string;
  /** Shared with whatever else changes the session in this process (forge mcp --mount: the mount). */
  queue?: SerialQueue;
}

function instructions(session: Session, autoCommit: AutoCommit): string {
  const commits =
    autoCommit === 'every-call'
      ? 'Every successful call of a tool that changes files is committed right away, one commit per call.'
      : 'Changes stay pending until you call commit_turn, which commits them and the session record as ONE commit: call it when a unit of work is done.';
  return (
    `Forge workspace: the tools read and edit session ${session.id} of a git repository, on the branch ${session.branch}, ` +
    "not the user's working directory. " +
    `${commits} session_status shows the branch, its head and the pending changes. ` +
    'Read a file with read_file before editing it. A failed call answers "<CODE>: <message>"; the message says how to recover.'
  );
}

export class ForgeMcpServer {
  readonly server: Server;
  /** Replaced when the repository tools change (the registry is fixed per runner). */
  runner: SessionToolRunner;
  readonly turns: TurnTools;
  /** One change of the session at a time (tool calls, commits, and a mount's edits when given the same queue). */
  readonly queue: SerialQueue;
  /** Requests whose handler has not finished yet. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly toolLists = new Map<SessionMode, Tool[]>();

  constructor(private readonly options: ForgeMcpServerOptions) {
    this.queue = options.queue ?? new SerialQueue();
    const { session } = options;
    this.runner = new SessionToolRunner(session, {
      approval: options.approval,
      ...(options.registry ? { registry: options.registry } : {}),
      ...(options.config !== undefined ? { config: options.config } : {}),
    });
    this.turns = new TurnTools(session, options.autoCommit ?? 'explicit');
    for (const name of [COMMIT_TURN, SESSION_STATUS]) {
      if (this.runner.registry.get(name)) throw new ForgeError('INTERNAL', `The tool registry has a tool named ${name}, which the MCP server reserves.`);
    }
    this.server = new Server(
      { name: 'forge', title: 'Forge', version: options.version },
      // listChanged: request_mode_upgrade changes which tools the session's mode offers, and
      // a change under tools/ which repository tools there are.
      { capabilities: { tools: { listChanged: true }, resources: {} }, instructions: instructions(session, this.turns.autoCommit) },
    );
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.listTools() }));
    this.server.setRequestHandler(CallToolRequestSchema, (request) => this.track(this.callTool(request.params.name, request.params.arguments)));
    this.server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: listResources(session) }));
    this.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
    this.server.setRequestHandler(ReadResourceRequestSchema, (request) => this.track(this.queue.run(() => readResource(session, request.params.uri))));
  }

  /**
   * The registry's enabled tools the session's mode offers (canonical names), then commit_turn
   * and session_status. Built once per mode: the descriptors (JSON Schemas of zod inputs and
   * outputs) cost milliseconds to build and never change while the server runs.
   */
  listTools(): Tool[] {
    const mode = this.options.session.state.mode;
    let tools = this.toolLists.get(mode);
    if (tools === undefined) {
      const offered = this.runner.registry.enabled(this.runner.context.config).filter((tool) => isAvailableInMode(tool, mode));
      const autoCommits = this.turns.autoCommit === 'every-call';
      tools = [...offered.map((tool) => registryToolDescriptor(tool, autoCommits && tool.sideEffects ? withAutoCommitOutput : undefined)), ...this.turns.descriptors()];
      this.toolLists.set(mode, tools);
    }
    return tools;
  }

  /** One tools/call: never throws; any failure is an isError result with its code. */
  callTool(name: string, args: unknown): Promise<CallToolResult> {
    return this.queue.run(async () => {
      const modeBefore = this.options.session.state.mode;
      try {
        return await this.dispatch(name, args);
      } catch (error) {
        return errorResult(toToolError(error));
      } finally {
        if (this.options.session.state.mode !== modeBefore) await this.toolListChanged();
      }
    });
  }

  /** Resolves when no request received so far is still being handled. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Tells the client to fetch tools/list again (a client that is not connected yet will list them anyway). */
  private async toolListChanged(): Promise<void> {
    if (this.server.transport === undefined) return;
    await this.server.sendToolListChanged().catch(() => undefined);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    const forget = () => this.inFlight.delete(work);
    work.then(forget, forget);
    return work;
  }

  private async dispatch(name: string, args: unknown): Promise<CallToolResult> {
    if (name === COMMIT_TURN) {
      const input = parseToolInput(COMMIT_TURN, CommitTurnInput, args);
      const out = await this.turns.commit(input.message);
      return successResult(COMMIT_TURN, out, out.message);
    }
    if (name === SESSION_STATUS) {
      parseToolInput(SESSION_STATUS, SessionStatusInput, args);
      const out = await this.turns.status();
      return successResult(SESSION_STATUS, out, renderStatus(out));
    }
    const { session } = this.options;
    // Unique within the turn across server restarts (the count comes from the journaled state).
    const callsThisTurn = session.state.toolCalls.filter((c) => c.turn === session.currentTurn).length;
    const result = await this.runner.call({ tool: name, args: args ?? {}, id: `mcp_${session.currentTurn}_${callsThisTurn + 1}` });
    if (!result.ok) return errorResult(result.error);
    if (this.options.repoTools && touchesRepoTools(result.changes)) await this.refreshTools(this.options.repoTools);
    const reply = successResult(result.tool, result.output);
    if (this.turns.commitsAfter(this.runner.registry.get(result.tool), result)) await this.autoCommit(reply);
    return reply;
  }

  /** Rebuilds the registry from the view; tells the client when the list changed. */
  private async refreshTools(repoTools: RepoToolSet): Promise<void> {
    const before = JSON.stringify(this.listTools());
    const { session, approval, config } = this.options;
    this.runner = new SessionToolRunner(session, { approval, registry: await repoTools.registry(session.vfs), ...(config !== undefined ? { config } : {}) });
    // The lists were built from the old registry.
    this.toolLists.clear();
    if (JSON.stringify(this.listTools()) === before) return;
    await this.toolListChanged();
  }

  /** The call succeeded and stays successful; the commit's outcome is added to its result. */
  private async autoCommit(reply: CallToolResult): Promise<void> {
    try {
      const out = await this.turns.commit();
      reply.content.push({ type: 'text', text: out.message });
      if (reply.structuredContent) reply.structuredContent = { ...reply.structuredContent, commit: out };
      reply._meta = { ...reply._meta, [COMMIT_META_KEY]: out };
    } catch (error) {
      const failure = toToolError(error);
      reply.content.push({ type: 'text', text: `The automatic commit failed (${failure.code}: ${failure.message}). The change is still pending; call commit_turn to retry.` });
      if (reply.structuredContent) reply.structuredContent = { ...reply.structuredContent, commit_error: failure };
      reply._meta = { ...reply._meta, [COMMIT_ERROR_META_KEY]: failure };
    }
  }
}

export type Log = (line: string) => void;

/**
 * Serves on stdin/stdout until stdin ends or SIGINT/SIGTERM arrives; then lets the running call
 * finish and closes. stdout carries only the protocol: console output goes to stderr. The
 * transport (stdio-transport.ts) answers malformed messages itself and logs them here.
 */
export async function serveStdio(forge: ForgeMcpServer, log: Log): Promise<void> {
  for (const method of ['log', 'info', 'debug', 'warn'] as const) {
    console[method] = (...args: unknown[]) => process.stderr.write(`${format(...args)}\n`);
  }
  const transport = new LineStdioTransport(process.stdin, process.stdout);
  const closed = new Promise<void>((resolve) => {
    forge.server.onclose = resolve;
  });
  forge.server.onerror = (error) => log(`forge mcp: ${error instanceof Error ? error.message : String(error)}`);
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`forge mcp: ${why}; stopping.`);
    // Answer every request already received; the answers are written a few promise hops after
    // their handlers finish, hence the turn of the event loop before closing.
    void forge
      .idle()
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() => forge.server.close())
      .catch((error: unknown) => log(`forge mcp: close failed: ${error instanceof Error ? error.message : String(error)}`));
  };
  const onSignal = (signal: NodeJS.Signals) => stop(`received ${signal}`);
  process.stdin.once('end', () => stop('the client closed the connection'));
  // A client that went away without closing stdin (EPIPE): stop instead of crashing.
  process.stdout.on('error', (error) => stop(`stdout failed (${error.message})`));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  await forge.server.connect(transport);
  await closed;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}
