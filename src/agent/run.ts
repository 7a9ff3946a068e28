/**
 * A run: one or more turns of an Agent, from a task or a script, ending with a `done` event.
 * A script run on an existing session skips the script turns the session already has (its user
 * messages, matched in order) and continues an unfinished one, so running a cancelled script
 * again picks up where it stopped.
 */
import { ForgeError, toForgeError } from '../errors';
import type { SessionState } from '../session';
import type { RunStatus, EventSink } from './events';
import type { Agent, TurnOutcome } from './loop';
import { addUsage, ZERO_USAGE, type Usage } from './providers/types';
import type { Script } from './providers/scripted';

export interface RunPlan {
  /** Continue the unfinished turn first. */
  continuePending: boolean;
  /** User messages of the turns to run after it, in order. */
  messages: string[];
  /** Script turns the session already had (not run again). */
  skipped: number;
}

export interface RunResult {
  status: RunStatus;
  turns: TurnOutcome[];
  /** Turns committed by this run. */
  committed: number;
  usage: Usage;
  /** Planned turns not committed (after maxTurns, a stop or a failure). */
  remainingTurns: number;
  head: string;
  /** The failure that ended the run, if any (limits and cancellation included). */
  error?: ForgeError;
}

function unfinishedTurnError(state: SessionState, user: string): ForgeError {
  return new ForgeError('AGENT_TURN_IN_PROGRESS', `Session ${state.id} has an unfinished turn ${state.turn + 1} (user: ${JSON.stringify(user.slice(0, 80))}) that is not part of this request.`, {
    data: { session: state.id, turn: state.turn + 1, user },
    hint: `Continue it first (forge run --session ${state.id}), or drop it (forge session discard ${state.id}).`,
  });
}

export function planTask(task: string | undefined, state: SessionState, inProgress: string | null): RunPlan {
  if (task === undefined) {
    if (inProgress === null) {
      throw new ForgeError('AGENT_NO_TURN_IN_PROGRESS', `Session ${state.id} has no unfinished turn to continue; give --task or --script.`, { data: { session: state.id } });
    }
    return { continuePending: true, messages: [], skipped: 0 };
  }
  if (inProgress === null) return { continuePending: false, messages: [task], skipped: 0 };
  if (inProgress === task) return { continuePending: true, messages: [], skipped: 0 };
  throw unfinishedTurnError(state, inProgress);
}

export function planScript(script: Script, state: SessionState, inProgress: string | null): RunPlan {
  const current = state.turn + 1;
  let matched = 0;
  let lastMatchedTurn = -1;
  for (const message of state.messages) {
    if (message.role !== 'user' || matched >= script.turns.length) continue;
    if (message.content === script.turns[matched]!.user) {
      matched++;
      lastMatchedTurn = message.turn;
    }
  }
  const rest = script.turns.slice(matched).map((t) => t.user);
  if (inProgress === null) return { continuePending: false, messages: rest, skipped: matched };
  if (matched > 0 && lastMatchedTurn === current) return { continuePending: true, messages: rest, skipped: matched - 1 };
  throw unfinishedTurnError(state, inProgress);
}

export interface RunOptions {
  /** Most turns to run (the continued one included). Default: all planned. */
  maxTurns?: number;
  onEvent?: EventSink;
}

/** Runs the plan turn by turn; stops at the first turn that does not complete. Never throws for a turn's failure. */
export async function runTurns(agent: Agent, plan: RunPlan, options: RunOptions = {}): Promise<RunResult> {
  const queue: Array<string | undefined> = [...(plan.continuePending ? [undefined] : []), ...plan.messages];
  const turns: TurnOutcome[] = [];
  let status: RunStatus = 'completed';
  let error: ForgeError | undefined;
  let usage = ZERO_USAGE;
  for (const message of queue) {
    if (options.maxTurns !== undefined && turns.length >= options.maxTurns) break;
    let outcome: TurnOutcome;
    try {
      outcome = await agent.runTurn(message);
    } catch (thrown) {
      error = toForgeError(thrown);
      status = 'failed';
      options.onEvent?.({ type: 'error', turn: agent.session.currentTurn, code: error.code, kind: error.kind, message: error.message, ...(error.hint !== undefined ? { hint: error.hint } : {}), committed: false });
      break;
    }
    turns.push(outcome);
    usage = addUsage(usage, outcome.usage);
    if (outcome.status !== 'completed') {
      status = outcome.status;
      error = outcome.error;
      break;
    }
  }
  const committed = turns.filter((t) => t.commit !== undefined).length;
  const result: RunResult = { status, turns, committed, usage, remainingTurns: queue.length - committed, head: agent.session.head, ...(error ? { error } : {}) };
  options.onEvent?.({
    type: 'done',
    session: agent.session.id,
    branch: agent.session.branch,
    status,
    turns: committed,
    head: result.head,
    usage,
    remainingTurns: result.remainingTurns,
  });
  return result;
}
