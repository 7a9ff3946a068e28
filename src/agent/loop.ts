/**
 * The turn loop (spec 002, "Agent Flow" and "Data Flow"): user message -> context -> provider
 * (with the tool schemas) -> each tool call through SessionToolRunner (registry: mode, schema,
 * sandbox, approval) -> results back to the model -> ... until the model answers without tool
 * calls or a limit is reached -> ONE commit (code + session state) -> control returns.
 *
 * - Every message (user, assistant text and tool calls, tool results) goes into the session
 *   state as it happens, and is journaled with the pending layer: time travel shows the exact
 *   conversation, and a crash loses nothing.
 * - A failing tool call is a result the model reads; the turn goes on and commits.
 * - A limit (tool calls, tokens, wall-clock time) ends the turn early: calls not run get a
 *   "not run" result, the turn is committed with a note, and the limit is reported.
 * - Cancellation (the signal) and provider failures commit nothing: the pending layer and the
 *   conversation so far stay journaled, the branch does not move, and running the turn again
 *   (runTurn() without a message, or with the same message) continues it.
 */
import { ForgeError, toForgeError, type ErrorCode } from '../errors';
import { filePatches, type Message, type Session, type SessionState, type TurnCommit } from '../session';
import { createToolRegistry, recordSeen, type ApprovalPolicy, type ToolRegistry, type ToolSchemas } from '../tools';
import { modelCommitMessage } from './commit-message';
import { buildContext, DEFAULT_CONTEXT_TOKENS, type ContextReport } from './context';
import type { AgentEvent, EventSink } from './events';
import { addUsage, estimateTokens, ZERO_USAGE, type ChatMessage, type Provider, type ProviderToolCall, type Usage } from './providers/types';
import { diffStatOf, notRunContent, resultLine, toolResultContent } from './report';
import { deterministicSummarizer, SummaryCache, type FileSummarizer } from './summaries';
import { SessionToolRunner } from './tool-calls';

export interface AgentLimits {
  /** Tool calls run per turn; the next one is not run and the turn ends. Default 50. */
  maxToolCalls: number;
  /** Tokens (input + output, as the provider counts them) per turn; no model call starts that would pass it. Default 400,000. */
  maxTokens: number;
  /** Wall-clock time per turn, in ms; a model request in flight is aborted. Default 10 minutes. */
  maxTurnMs: number;
}

export const DEFAULT_LIMITS: AgentLimits = { maxToolCalls: 50, maxTokens: 400_000, maxTurnMs: 10 * 60 * 1000 };

export interface AgentOptions {
  session: Session;
  provider: Provider;
  approval: ApprovalPolicy;
  /** Default: the built-in tools. */
  registry?: ToolRegistry;
  /** A ToolsConfig or a partial one. */
  toolsConfig?: unknown;
  limits?: Partial<AgentLimits>;
  /** Context budget in tokens (default 24,000) and the instructions (default DEFAULT_INSTRUCTIONS). */
  context?: { budgetTokens?: number; instructions?: string };
  /** Default: the deterministic summarizer. */
  summarizer?: FileSummarizer;
  /** Default true: summaries are cached under <gitdir>/forge/summaries/. */
  persistSummaries?: boolean;
  /** A cheap model for commit messages; without it the deterministic summary is used. */
  commitMessages?: Provider;
  /** Passed to the provider with every request. */
  maxOutputTokens?: number;
  /** Cancels the run: nothing is committed, the turn stays pending. */
  signal?: AbortSignal;
  onEvent?: EventSink;
  /** Milliseconds; injected in tests. Default Date.now. */
  clock?: () => number;
}

export type TurnStatus = 'completed' | 'limit' | 'cancelled' | 'failed';

export interface TurnOutcome {
  turn: number;
  status: TurnStatus;
  /** Set when the turn was committed (completed or limit). */
  commit?: TurnCommit;
  /** The limit, cancellation or provider failure that ended the turn. */
  error?: ForgeError;
  /** Usage of this run of the turn. */
  usage: Usage;
  toolCalls: number;
  modelCalls: number;
  /** The model's last non-empty text of the turn. */
  finalText: string;
  /** The context of the last model request. */
  context?: ContextReport;
}

interface Stop {
  code: ErrorCode;
  message: string;
}

interface TurnRun {
  turn: number;
  toolCalls: number;
  modelCalls: number;
  usage: Usage;
  finalText: string;
  deadline: number;
  /** Tokens this turn spent in earlier runs of it (a continued turn). */
  earlierTokens: number;
  /** The wall-clock timer fired (the clock may be injected; the timer is real). */
  timedOut: boolean;
  stop: Stop | null;
  failure: ForgeError | null;
  context?: ContextReport;
}

/** The conversation in provider form. Tool results whose call is unknown are left out. */
export function conversationOf(messages: readonly Message[]): ChatMessage[] {
  const names = new Map<string, string>();
  const out: ChatMessage[] = [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content });
    else if (m.role === 'assistant') {
      const calls = (m.toolCalls ?? []).map((c) => ({ id: c.id, name: c.tool, args: c.args }));
      for (const c of calls) names.set(c.id, c.name);
      out.push(calls.length > 0 ? { role: 'assistant', content: m.content, toolCalls: calls } : { role: 'assistant', content: m.content });
    } else {
      const name = names.get(m.toolCallId ?? '');
      if (name === undefined) continue;
      out.push({ role: 'tool', toolCallId: m.toolCallId!, name, content: m.content, ...(m.isError ? { isError: true } : {}) });
    }
  }
  return out;
}

/** The user message of a session's unfinished turn (recorded, not committed), or null. */
export function turnInProgressOf(state: SessionState): string | null {
  const turn = state.turn + 1;
  return state.messages.find((m) => m.role === 'user' && m.turn === turn)?.content ?? null;
}

/** Links an outer signal to a controller of our own (AbortSignal.any is not everywhere yet). */
function link(outer: AbortSignal | undefined, inner: AbortController): () => void {
  if (!outer) return () => {};
  if (outer.aborted) inner.abort(outer.reason);
  const onAbort = () => inner.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  return () => outer.removeEventListener('abort', onAbort);
}

export class Agent {
  readonly runner: SessionToolRunner;
  readonly limits: AgentLimits;
  readonly summaries: SummaryCache;
  private readonly schemas: ToolSchemas;
  private readonly toolsTokens: number;
  private readonly clock: () => number;

  constructor(private readonly options: AgentOptions) {
    const registry = options.registry ?? createToolRegistry();
    this.runner = new SessionToolRunner(options.session, { approval: options.approval, registry, ...(options.toolsConfig !== undefined ? { config: options.toolsConfig } : {}) });
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    for (const [name, value] of Object.entries(this.limits)) {
      if (!Number.isFinite(value) || value <= 0) throw new ForgeError('INVALID_ARGUMENT', `Limit ${name} must be a positive number (got ${value}).`);
    }
    const repo = options.session.repo;
    this.summaries = new SummaryCache({
      fs: repo.fs,
      gitdir: repo.commonDir,
      summarizer: options.summarizer ?? deterministicSummarizer,
      readBlob: (oid) => repo.readBlob(oid),
      persist: options.persistSummaries ?? true,
    });
    this.schemas = registry.schemas(this.runner.context.config);
    this.toolsTokens = estimateTokens(JSON.stringify(this.schemas.openai));
    this.clock = options.clock ?? Date.now;
  }

  get session(): Session {
    return this.options.session;
  }

  /** The user message of the unfinished turn (recorded, not committed), if there is one. */
  get turnInProgress(): string | null {
    return turnInProgressOf(this.session.state);
  }

  /**
   * Runs one turn. With a message: starts a turn with it (or continues the unfinished turn if
   * it has that same message). Without: continues the unfinished turn.
   */
  async runTurn(userMessage?: string): Promise<TurnOutcome> {
    const { session } = this;
    const turn = session.currentTurn;
    const pending = this.turnInProgress;
    if (pending !== null && userMessage !== undefined && pending !== userMessage) {
      throw new ForgeError('AGENT_TURN_IN_PROGRESS', `Session ${session.id} has an unfinished turn ${turn} (user: ${JSON.stringify(pending.slice(0, 80))}).`, {
        data: { session: session.id, turn, user: pending },
        hint: `Continue it (forge run --session ${session.id}) or drop it (forge session discard ${session.id}).`,
      });
    }
    if (pending === null && userMessage === undefined) {
      throw new ForgeError('AGENT_NO_TURN_IN_PROGRESS', `Session ${session.id} has no unfinished turn to continue; give a task or a script.`, { data: { session: session.id } });
    }
    const run: TurnRun = { turn, toolCalls: 0, modelCalls: 0, usage: ZERO_USAGE, finalText: '', deadline: this.clock() + this.limits.maxTurnMs, earlierTokens: 0, timedOut: false, stop: null, failure: null };
    if (this.options.signal?.aborted) return this.cancelled(run);

    const continued = pending !== null;
    if (!continued) await session.recordUserMessage(userMessage!);
    const model = { provider: this.options.provider.name, ...(this.options.provider.model ? { model: this.options.provider.model } : {}) };
    if (session.state.model?.provider !== model.provider || session.state.model?.model !== model.model) session.state.model = model;
    // A continued turn keeps counting the tool calls and tokens it already spent.
    run.toolCalls = session.state.toolCalls.filter((c) => c.turn === turn).length;
    for (const m of session.state.messages) if (m.turn === turn && m.usage) run.earlierTokens += m.usage.inputTokens + m.usage.outputTokens;
    this.emit({ type: 'turn_start', session: session.id, turn, user: pending ?? userMessage!, continued });

    const controller = new AbortController();
    const unlink = link(this.options.signal, controller);
    const timer = setTimeout(() => {
      run.timedOut = true;
      controller.abort();
    }, this.limits.maxTurnMs);
    try {
      await this.completeDanglingCalls(run);
      while (run.stop === null) {
        this.checkStop(run);
        if (run.stop !== null) break;
        const ended = await this.step(run, controller.signal);
        if (ended) break;
      }
    } finally {
      clearTimeout(timer);
      unlink();
    }

    if (run.stop?.code === 'AGENT_CANCELLED') return this.cancelled(run);
    if (run.failure) {
      this.emitError(run.failure, turn, false);
      return this.outcome(run, 'failed', { error: run.failure });
    }
    const commit = await this.commit(run);
    if (run.stop) {
      const error = new ForgeError(run.stop.code, run.stop.message, { data: { turn, limits: this.limits } });
      this.emitError(error, turn, true);
      return this.outcome(run, 'limit', { commit, error });
    }
    return this.outcome(run, 'completed', { commit });
  }

  /** One model call and the tool calls it asks for. True when the model ended the turn. */
  private async step(run: TurnRun, signal: AbortSignal): Promise<boolean> {
    const { session } = this;
    let system: string;
    try {
      const built = await buildContext({
        view: session.vfs,
        activeFiles: session.state.activeFiles,
        summaries: this.summaries,
        toolsConfig: this.runner.context.config,
        budgetTokens: this.options.context?.budgetTokens ?? DEFAULT_CONTEXT_TOKENS,
        ...(this.options.context?.instructions !== undefined ? { instructions: this.options.context.instructions } : {}),
        hashContent: this.runner.context.hashContent,
        signal,
      });
      system = built.system;
      run.context = built.report;
      // The model receives these files whole: it has seen their current content.
      for (const file of built.report.active) if (file.shown === 'full' && file.hash) recordSeen(session.state, file.path, file.hash);
    } catch (error) {
      if (this.noteAbort(run)) return true;
      throw error;
    }
    const messages = conversationOf(session.state.messages);
    const estimate = estimateTokens(system) + estimateTokens(JSON.stringify(messages)) + this.toolsTokens;
    const used = run.earlierTokens + run.usage.inputTokens + run.usage.outputTokens;
    if (used + estimate > this.limits.maxTokens) {
      run.stop = {
        code: 'LIMIT_TOKENS',
        message: `The turn reached its token limit (${this.limits.maxTokens}): ${used} used, the next request needs about ${estimate}.`,
      };
      return true;
    }
    let response;
    try {
      response = await this.options.provider.complete({
        system,
        messages,
        tools: this.schemas,
        signal,
        ...(this.options.maxOutputTokens !== undefined ? { maxOutputTokens: this.options.maxOutputTokens } : {}),
      });
    } catch (error) {
      if (this.noteAbort(run)) return true;
      run.failure = toForgeError(error);
      return true;
    }
    run.modelCalls++;
    run.usage = addUsage(run.usage, response.usage);
    if (response.text.trim() !== '') run.finalText = response.text;
    const calls = this.uniqueIds(run.turn, response.toolCalls);
    const toolCalls = calls.map((c) => ({ id: c.id, tool: c.name, args: c.args }));
    await session.recordMessage({
      role: 'assistant',
      content: response.text,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      usage: { inputTokens: Math.max(0, Math.round(response.usage.inputTokens)), outputTokens: Math.max(0, Math.round(response.usage.outputTokens)) },
    });
    this.emit({ type: 'assistant', turn: run.turn, text: response.text, toolCalls: toolCalls.length, usage: response.usage });
    if (calls.length === 0) return true;
    await this.runCalls(run, calls);
    return run.stop !== null;
  }

  /**
   * Tool-call ids as the session records them: the model's, unless it sent none or one the
   * session already has (results are matched to calls by id, across the whole conversation).
   */
  private uniqueIds(turn: number, calls: readonly ProviderToolCall[]): ProviderToolCall[] {
    const used = new Set<string>();
    for (const m of this.session.state.messages) for (const c of m.toolCalls ?? []) used.add(c.id);
    let n = 0;
    return calls.map((call) => {
      let id = /^[A-Za-z0-9_-]{1,64}$/.test(call.id) ? call.id : '';
      while (id === '' || used.has(id)) id = `call_t${turn}_${++n}`;
      used.add(id);
      return id === call.id ? call : { ...call, id };
    });
  }

  private checkStop(run: TurnRun): void {
    if (run.stop !== null) return;
    if (this.options.signal?.aborted) run.stop = { code: 'AGENT_CANCELLED', message: 'The run was cancelled.' };
    else if (run.timedOut || this.clock() >= run.deadline) run.stop = { code: 'LIMIT_TIME', message: `The turn reached its time limit (${Math.round(this.limits.maxTurnMs / 1000)} s).` };
  }

  /** After a failed await: was it our cancellation or the time limit? Sets the stop if so. */
  private noteAbort(run: TurnRun): boolean {
    if (this.options.signal?.aborted) {
      run.stop = { code: 'AGENT_CANCELLED', message: 'The run was cancelled.' };
      return true;
    }
    if (run.timedOut || this.clock() >= run.deadline) {
      run.stop = { code: 'LIMIT_TIME', message: `The turn reached its time limit (${Math.round(this.limits.maxTurnMs / 1000)} s); the model request in flight was aborted.` };
      return true;
    }
    return false;
  }

  private async runCalls(run: TurnRun, calls: readonly ProviderToolCall[]): Promise<void> {
    const { session } = this;
    for (const call of calls) {
      if (run.stop === null) {
        this.checkStop(run);
        if (run.stop === null && run.toolCalls >= this.limits.maxToolCalls) {
          run.stop = { code: 'LIMIT_TOOL_CALLS', message: `The turn reached its limit of ${this.limits.maxToolCalls} tool calls.` };
        }
      }
      if (run.stop !== null) {
        // Cancelled: leave the rest unanswered; continuing the turn runs them.
        if (run.stop.code === 'AGENT_CANCELLED') return;
        const message = `Not run: ${run.stop.message} The turn ends here; nothing of this call was applied.`;
        await session.recordMessage({ role: 'tool', content: notRunContent(run.stop.code, message), toolCallId: call.id, isError: true });
        this.emit({ type: 'tool_result', turn: run.turn, id: call.id, tool: call.name, ok: false, ran: false, summary: `not run: ${run.stop.code}`, error: { code: run.stop.code, message }, changedPaths: [] });
        continue;
      }
      this.emit({ type: 'tool_call', turn: run.turn, id: call.id, tool: call.name, args: call.args });
      const result = await this.runner.call({ tool: call.name, args: call.args, id: call.id });
      run.toolCalls++;
      const { content, isError } = toolResultContent(result);
      await session.recordMessage({ role: 'tool', content, toolCallId: call.id, ...(isError ? { isError: true } : {}) });
      this.emit({
        type: 'tool_result',
        turn: run.turn,
        id: call.id,
        tool: result.tool,
        ok: result.ok,
        ran: true,
        summary: resultLine(result),
        ...(result.ok ? {} : { error: { code: result.error.code, message: result.error.message } }),
        changedPaths: result.ok ? result.changes.map((c) => c.path) : [],
      });
    }
  }

  /**
   * A turn interrupted between a model response and the results of its tool calls: calls
   * already run (recorded) get their recorded result; the others run now.
   */
  private async completeDanglingCalls(run: TurnRun): Promise<void> {
    const messages = this.session.state.messages;
    let last = -1;
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i]!.turn !== run.turn) break;
      if (messages[i]!.role === 'assistant') {
        last = i;
        break;
      }
    }
    if (last < 0) return;
    const answered = new Set(messages.slice(last + 1).filter((m) => m.role === 'tool').map((m) => m.toolCallId));
    const missing = (messages[last]!.toolCalls ?? []).filter((c) => !answered.has(c.id));
    for (const call of missing) {
      const record = this.session.state.toolCalls.find((r) => r.id === call.id && r.turn === run.turn);
      if (record) {
        // It ran, and the process stopped before its result was recorded as a message.
        const content = record.ok ? JSON.stringify(record.output ?? null) : JSON.stringify({ error: record.error });
        await this.session.recordMessage({ role: 'tool', content, toolCallId: call.id, ...(record.ok ? {} : { isError: true }) });
      } else {
        await this.runCalls(run, [{ id: call.id, name: call.tool, args: call.args }]);
      }
    }
  }

  private async commit(run: TurnRun): Promise<TurnCommit> {
    const { session } = this;
    let message: string | null = null;
    const cheap = this.options.commitMessages;
    if (cheap) {
      const changes = await session.vfs.diff();
      if (changes.length > 0) {
        const userMessage = session.state.messages.find((m) => m.role === 'user' && m.turn === run.turn)?.content ?? '';
        message = await modelCommitMessage(cheap, { userMessage, finalText: run.finalText, patches: await filePatches(session.repo, changes) });
      }
    }
    const notes = run.stop ? [`Stopped early: ${run.stop.message}`] : [];
    const commit = await session.commitTurn({ ...(message !== null ? { message } : {}), ...(notes.length > 0 ? { notes } : {}) });
    const patches = await filePatches(session.repo, commit.changes);
    this.emit({
      type: 'commit',
      turn: commit.turn,
      session: session.id,
      branch: session.branch,
      commit: commit.commit,
      subject: commit.message.split('\n')[0] ?? '',
      messageSource: message !== null ? 'model' : 'default',
      files: diffStatOf(patches),
      ...(run.stop ? { stoppedBy: run.stop.code } : {}),
      ...(commit.redactions.length > 0 ? { redactions: commit.redactions } : {}),
    });
    return commit;
  }

  private cancelled(run: TurnRun): TurnOutcome {
    const error = new ForgeError('AGENT_CANCELLED', `The run was cancelled during turn ${run.turn}; nothing was committed and the turn is kept pending.`, {
      data: { session: this.session.id, turn: run.turn },
      hint: `Run again (forge run --session ${this.session.id}) to continue the turn, or drop it (forge session discard ${this.session.id}).`,
    });
    this.emitError(error, run.turn, false);
    return this.outcome(run, 'cancelled', { error });
  }

  private outcome(run: TurnRun, status: TurnStatus, extra: { commit?: TurnCommit; error?: ForgeError }): TurnOutcome {
    return {
      turn: run.turn,
      status,
      usage: run.usage,
      toolCalls: run.toolCalls,
      modelCalls: run.modelCalls,
      finalText: run.finalText,
      ...(run.context ? { context: run.context } : {}),
      ...extra,
    };
  }

  private emitError(error: ForgeError, turn: number, committed: boolean): void {
    this.emit({ type: 'error', turn, code: error.code, kind: error.kind, message: error.message, ...(error.hint !== undefined ? { hint: error.hint } : {}), committed });
  }

  private emit(event: AgentEvent): void {
    this.options.onEvent?.(event);
  }
}
