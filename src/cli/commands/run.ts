/**
 * forge run: a headless agent run against a repository, one commit per turn on the session's
 * branch. Readable progress by default; with --json, JSON Lines events (turn_start, assistant,
 * tool_call, tool_result, commit, error, done), one object with a `type` per line.
 * Ctrl-C cancels: nothing is committed, the turn stays pending, and running again continues it.
 */
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { DEFAULT_CONTEXT_TOKENS } from '../../agent/context';
import type { AgentEvent } from '../../agent/events';
import { Agent, DEFAULT_LIMITS, turnInProgressOf } from '../../agent/loop';
import { createProvider, parseScript, PROVIDER_KINDS, type Provider, type ProviderKind, type Script } from '../../agent/providers';
import { argsLine, clipLine, formatDiffStat } from '../../agent/report';
import { planScript, planTask, runTurns } from '../../agent/run';
import { deterministicSummarizer, ModelSummarizer, type FileSummarizer } from '../../agent/summaries';
import { ForgeError, toForgeError } from '../../errors';
import { SessionModeSchema, type SessionState } from '../../session';
import { allowReadOnly, type ApprovalPolicy, type ApprovalRequest } from '../../tools';
import { cliToolRegistry, cliToolRegistryFor } from '../registry';
import { approvableNames, approvalFromOption } from '../approval-option';
import { paint } from '../color';
import { cliGlobals } from '../globals';
import { EXIT_TOOL_CALLS_FAILED, readInput, reportError, ReportedFailure, shortOid, type CommonOptions } from '../io';
import { openStore } from '../open';
import { loadSettings } from '../settings';
import { checkPushRemote, pushingAfterEachTurn } from './push';

interface RunOptions extends CommonOptions {
  session?: string;
  base?: string;
  id?: string;
  task?: string;
  script?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  cheapModel?: string;
  summaries: string;
  approve?: string;
  mode?: string;
  maxTurns?: string;
  maxToolCalls?: string;
  maxTokens?: string;
  timeout?: string;
  contextTokens?: string;
  commandTimeout?: string;
  push?: string | boolean;
  allowHttp?: boolean;
}

/** Exit code of a cancelled run (128 + SIGINT), as shells report an interrupted command. */
export const EXIT_CANCELLED = 130;

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new ForgeError('INVALID_ARGUMENT', `${flag} takes a whole number of at least 1 (got ${JSON.stringify(value)}).`);
  return Number(value);
}

function validate(options: RunOptions): void {
  if (options.session !== undefined && options.base !== undefined) throw new ForgeError('INVALID_ARGUMENT', 'Give --session (continue a session) or --base (start one), not both.');
  if (options.session !== undefined && options.id !== undefined) throw new ForgeError('INVALID_ARGUMENT', '--id names a NEW session; with --session the session already has its id.');
  if (options.task !== undefined && options.script !== undefined) throw new ForgeError('INVALID_ARGUMENT', 'Give --task or --script, not both.');
  if (options.task === undefined && options.script === undefined && options.session === undefined) {
    throw new ForgeError('INVALID_ARGUMENT', 'Give --task TEXT or --script FILE (or --session ID alone to continue its unfinished turn).');
  }
  if (options.provider !== undefined && !(PROVIDER_KINDS as readonly string[]).includes(options.provider)) {
    throw new ForgeError('INVALID_ARGUMENT', `--provider takes ${PROVIDER_KINDS.join(', ')} (got ${JSON.stringify(options.provider)}).`);
  }
  if (options.summaries !== 'deterministic' && options.summaries !== 'model') throw new ForgeError('INVALID_ARGUMENT', '--summaries takes deterministic or model.');
  if (options.summaries === 'model' && options.cheapModel === undefined) throw new ForgeError('INVALID_ARGUMENT', '--summaries model needs --cheap-model M (the model that writes them).');
}

/**
 * `--approve ask` (the default): a y/N question on the terminal. Without a terminal (CI) there
 * is no one to ask: rather than a run whose every write is denied and that still "succeeds",
 * fail before anything starts, saying how to give the approval.
 */
function approvalPolicy(value: string, tools: readonly string[], onInterrupt: () => void): ApprovalPolicy {
  if (value !== 'ask') return approvalFromOption(value, tools);
  if (!process.stdin.isTTY) {
    throw new ForgeError('APPROVAL_REQUIRED', 'forge run needs approval for side-effecting tool calls (writes, run_command, Undo), and without a terminal there is no one to ask.', {
      hint: 'Give --approve all, --approve TOOL,TOOL (e.g. write_file,Edit) or --approve none (read-only run).',
    });
  }
  return allowReadOnly(
    (request: ApprovalRequest) =>
      new Promise<boolean>((resolve) => {
        const rl = createInterface({ input: process.stdin, output: process.stderr });
        rl.on('SIGINT', () => {
          rl.close();
          onInterrupt();
          resolve(false);
        });
        const what = argsLine(request.args) || request.paths.join(', ');
        rl.question(`forge: allow ${request.tool}${what ? ` ${what}` : ''}? [y/N] `, (answer) => {
          rl.close();
          resolve(/^y(es)?$/i.test(answer.trim()));
        });
      }),
  );
}

function indent(text: string, prefix: string, maxLines = 6): string[] {
  const lines = text.trimEnd().split('\n');
  const shown = lines.slice(0, maxLines).map((l) => `${prefix}${l}`);
  if (lines.length > maxLines) shown.push(`${prefix}… (${lines.length - maxLines} more lines)`);
  return shown;
}

/** Readable progress, one event at a time. */
function renderEvent(event: AgentEvent): string[] {
  switch (event.type) {
    case 'turn_start':
      return ['', `turn ${event.turn}${event.continued ? ' (continued)' : ''}: ${clipLine(event.user, 100)}`];
    case 'assistant':
      return event.text.trim() === '' ? [] : indent(event.text, '  model: ');
    case 'tool_call':
      return [`  → ${event.tool}${argsLine(event.args) ? ` ${argsLine(event.args)}` : ''}`];
    case 'tool_result':
      if (!event.ran) return [`      NOT RUN (${event.error?.code})`];
      return [event.ok ? `      ${event.summary}` : `      ${paint.red('FAILED')} ${clipLine(`${event.error?.code}: ${event.error?.message}`, 160)}`];
    case 'commit':
      return [`  commit ${paint.yellow(shortOid(event.commit))} (turn ${event.turn} on ${event.branch}): ${event.subject}`, ...formatDiffStat(event.files).map((l) => `  ${l}`)];
    case 'error':
      return [`  stopped: ${event.code}: ${clipLine(event.message, 200)}${event.committed ? ' (turn committed)' : ' (nothing committed; the turn stays pending)'}`];
    case 'done': {
      const usage = `tokens in ${event.usage.inputTokens}, out ${event.usage.outputTokens}`;
      const left = event.remainingTurns > 0 ? `; ${event.remainingTurns} turn(s) not run` : '';
      return ['', `${event.status}: ${event.turns} turn(s) committed on ${event.branch}, head ${shortOid(event.head)}; ${usage}${left}`];
    }
  }
}

async function loadScript(file: string | undefined): Promise<Script | undefined> {
  if (file === undefined) return undefined;
  return parseScript(await readInput(file, '--script'), `--script ${file}`);
}

export function registerRun(program: Command): void {
  program
    .command('run')
    // common()'s options, with --json described as what it is here: JSON Lines.
    .option('--repo <dir>', 'the repository (default: the current directory)')
    .option('--json', 'write JSON Lines events (one object with a "type" per line) instead of readable progress')
    .description('run an agent headless: each turn goes through the model and the tools and is committed as ONE commit on forge/session/<id>')
    .option('--session <id>', 'continue this session (alone: continue its unfinished turn)')
    .option('--base <ref>', 'start a new session from this revision (default HEAD)')
    .option('--id <id>', 'id of the new session (default: a new UUID)')
    .option('--task <text>', 'the user message of one turn')
    .option('--script <file>', 'a script {"turns": [{"user", "replies": [...]}]} (- for standard input)')
    .option('--provider <name>', 'scripted (replays --script; the default), openai (OPENAI_API_KEY, OPENAI_BASE_URL) or anthropic (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)')
    .option('--model <model>', 'model name (default: OPENAI_MODEL / ANTHROPIC_MODEL)')
    .option('--base-url <url>', 'the provider\'s base URL (overrides OPENAI_BASE_URL / ANTHROPIC_BASE_URL)')
    .option('--cheap-model <model>', 'a cheaper model of the same provider for commit messages (and --summaries model)')
    .option('--summaries <kind>', 'file summaries in the context: deterministic or model (needs --cheap-model)', 'deterministic')
    .option('--approve <policy>', 'which side-effecting tool calls run: all, none, ask (the default: a terminal prompt; an error without a terminal) or TOOL,TOOL')
    .option('--mode <mode>', 'restricted (read-only tools) or unrestricted (new sessions default to unrestricted)')
    .option('--max-turns <n>', 'commit at most N turns in this run (the rest of a script is left for a later run)')
    .option('--max-tool-calls <n>', `tool calls per turn (default ${DEFAULT_LIMITS.maxToolCalls})`)
    .option('--max-tokens <n>', `tokens per turn, input + output (default ${DEFAULT_LIMITS.maxTokens})`)
    .option('--timeout <seconds>', `wall-clock time per turn (default ${DEFAULT_LIMITS.maxTurnMs / 1000})`)
    .option('--context-tokens <n>', `context budget: file summaries + active files (default ${DEFAULT_CONTEXT_TOKENS})`)
    .option('--command-timeout <seconds>', 'default timeout of run_command (default 30)')
    .option('--push [remote]', 'push the session to this remote (default origin) after every committed turn')
    .option('--allow-http', 'with --push: allow plain http to hosts other than loopback')
    .action(async (options: RunOptions) => {
      try {
        await run(options);
      } catch (error) {
        if (error instanceof ReportedFailure || !options.json) throw error;
        // With --json every stdout line is an event, failures before the first turn included.
        const forgeError = toForgeError(error);
        const event: AgentEvent = { type: 'error', code: forgeError.code, kind: forgeError.kind, message: forgeError.message, ...(forgeError.hint !== undefined ? { hint: forgeError.hint } : {}), committed: false };
        process.stdout.write(`${JSON.stringify(event)}\n`);
        throw new ReportedFailure(reportError(forgeError, false));
      }
    });
}

async function run(options: RunOptions): Promise<void> {
  validate(options);
  const controller = new AbortController();
  const commandTimeoutS = positiveInt(options.commandTimeout, '--command-timeout');
  const runCommand = { signal: controller.signal, ...(commandTimeoutS !== undefined ? { defaultTimeoutS: commandTimeoutS } : {}) };
  const maxTurns = positiveInt(options.maxTurns, '--max-turns');
  const limits = {
    ...(options.maxToolCalls !== undefined ? { maxToolCalls: positiveInt(options.maxToolCalls, '--max-tool-calls')! } : {}),
    ...(options.maxTokens !== undefined ? { maxTokens: positiveInt(options.maxTokens, '--max-tokens')! } : {}),
    ...(options.timeout !== undefined ? { maxTurnMs: positiveInt(options.timeout, '--timeout')! * 1000 } : {}),
  };
  const contextTokens = positiveInt(options.contextTokens, '--context-tokens');
  const modeParsed = options.mode === undefined ? undefined : SessionModeSchema.safeParse(options.mode);
  if (modeParsed && !modeParsed.success) throw new ForgeError('INVALID_ARGUMENT', `--mode takes restricted or unrestricted (got ${JSON.stringify(options.mode)}).`);
  const mode = modeParsed?.data;
  const script = await loadScript(options.script);
  const store = await openStore(options);
  const settings = loadSettings(store.repo.workdir, {
    ...(options.provider !== undefined ? { provider: options.provider as ProviderKind } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.approve !== undefined ? { approve: options.approve } : {}),
    ...(mode !== undefined ? { mode } : {}),
  });
  // An existing session first: its problems (unknown, nothing to continue) come before the provider's.
  const existing = options.session !== undefined ? await store.open(options.session) : undefined;
  const planFor = (state: SessionState) => (script ? planScript(script, state, turnInProgressOf(state)) : planTask(options.task, state, turnInProgressOf(state)));
  const earlyPlan = existing ? planFor(existing.state) : undefined;

  const kind: ProviderKind = settings.provider ?? 'scripted';
  const env = process.env;
  const provider = createProvider({ kind, ...(settings.model ? { model: settings.model } : {}), ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), env, ...(script ? { script } : {}) });
  let cheap: Provider | undefined;
  if (options.cheapModel !== undefined) {
    if (kind === 'scripted') throw new ForgeError('INVALID_ARGUMENT', '--cheap-model needs a model provider (--provider openai or anthropic).');
    cheap = createProvider({ kind, model: options.cheapModel, ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), env });
  }
  const summarizer: FileSummarizer = options.summaries === 'model' && cheap ? new ModelSummarizer(cheap) : deterministicSummarizer;
  // Before a session is created: a run that cannot be approved changes nothing.
  // (--approve names the built-ins; repository tools are approved by "all" or by their approval file.)
  const approval = approvalPolicy(settings.approve ?? 'ask', approvableNames(cliToolRegistry(runCommand).tools), () => controller.abort());
  // A --push that cannot work fails now, not after the first turn is committed.
  if (options.push !== undefined) await checkPushRemote(store.repo, options);

  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(EXIT_CANCELLED);
    process.stderr.write('forge: cancelling (the turn stays pending; Ctrl-C again to quit at once)\n');
    controller.abort();
  };

  const session =
    existing ??
    (await store.create({
      ...(options.base !== undefined ? { base: options.base } : {}),
      ...(options.id !== undefined ? { id: options.id } : {}),
      mode: settings.mode ?? 'unrestricted',
      model: { provider: provider.name, ...(provider.model ? { model: provider.model } : {}) },
    }));
  if (mode !== undefined) session.state.mode = mode;

  const write = (lines: string[]) => {
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
  };
  const calls = { done: 0, failed: 0 };
  const onEvent = (event: AgentEvent) => {
    if (event.type === 'tool_result') {
      calls.done++;
      if (!event.ok) calls.failed++;
    }
    if (options.json) process.stdout.write(`${JSON.stringify(event)}\n`);
    else if (!cliGlobals.quiet || event.type === 'error') write(renderEvent(event));
  };
  // A copy directory of the session (forge mount --copy): its changes first, the run's written back at the end.
  const { CopyMount } = await import('../../mount/node/copy-mount');
  const { DEFAULT_TOOLS_CONFIG } = await import('../../tools');
  const copy = await CopyMount.find(session, settings.denied_paths !== undefined ? { ...DEFAULT_TOOLS_CONFIG, denied_paths: settings.denied_paths } : DEFAULT_TOOLS_CONFIG);
  await copy?.sync();
  // run_command runs in the session's mount (made on its first use, kept for the run, then unmounted).
  const { SessionCommandWorkspace } = await import('../../mount/node/command-mount');
  const workspace = new SessionCommandWorkspace(session);
  const registry = await cliToolRegistryFor(session.repo, session.vfs, { ...runCommand, workspace });
  const agent = new Agent({
    session,
    ...(settings.denied_paths !== undefined ? { toolsConfig: { denied_paths: settings.denied_paths } } : {}),
    provider,
    approval,
    registry,
    limits,
    ...(contextTokens !== undefined ? { context: { budgetTokens: contextTokens } } : {}),
    summarizer,
    ...(cheap ? { commitMessages: cheap } : {}),
    signal: controller.signal,
    onEvent,
  });
  const plan = earlyPlan ?? planFor(session.state);
  if (!options.json && !cliGlobals.quiet) {
    write([`session ${session.id} on ${session.branch} (base ${shortOid(session.state.base.commit)}), provider ${provider.name}${provider.model ? ` ${provider.model}` : ''}`]);
    if (plan.skipped > 0) write([`skipping ${plan.skipped} script turn(s) the session already has`]);
  }

  process.on('SIGINT', onSigint);
  let result;
  try {
    result = await runTurns(options.push !== undefined ? pushingAfterEachTurn(agent, options, onEvent) : agent, plan, { ...(maxTurns !== undefined ? { maxTurns } : {}), onEvent });
  } finally {
    process.off('SIGINT', onSigint);
    await workspace.close();
    await copy?.writeBack();
  }
  if (result.error) {
    // Already reported as events: one line on stderr, and the exit code.
    const code = reportError(result.error, false);
    throw new ReportedFailure(result.status === 'cancelled' ? EXIT_CANCELLED : code);
  }
  if (calls.failed > 0) {
    process.stderr.write(`forge: ${calls.failed} of ${calls.done} tool call(s) failed; the turns are committed with their errors (exit ${EXIT_TOOL_CALLS_FAILED})\n`);
    throw new ReportedFailure(EXIT_TOOL_CALLS_FAILED);
  }
}
