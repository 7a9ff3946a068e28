/**
 * What a run reports as it goes: the CLI prints these live, and `forge run --json` writes each
 * as one JSON line, so a harness can follow a run without parsing text.
 */
import type { Usage } from './providers/types';
import type { DiffStatEntry } from './report';

export type RunStatus = 'completed' | 'limit' | 'cancelled' | 'failed';

export type AgentEvent =
  | { type: 'turn_start'; session: string; turn: number; user: string; continued: boolean }
  | { type: 'assistant'; turn: number; text: string; toolCalls: number; usage: Usage }
  | { type: 'tool_call'; turn: number; id: string; tool: string; args: unknown }
  | {
      type: 'tool_result';
      turn: number;
      id: string;
      tool: string;
      ok: boolean;
      /** false: the loop did not run the call (a limit was reached before it). */
      ran: boolean;
      summary: string;
      error?: { code: string; message: string };
      changedPaths: string[];
    }
  | {
      type: 'commit';
      turn: number;
      session: string;
      branch: string;
      commit: string;
      subject: string;
      messageSource: 'model' | 'default';
      files: DiffStatEntry[];
      /** Set when a limit ended the turn early. */
      stoppedBy?: string;
      /** Secrets replaced by markers in the committed state, per rule. */
      redactions?: Array<{ rule: string; count: number }>;
    }
  | {
      type: 'error';
      turn?: number;
      code: string;
      kind: string;
      message: string;
      hint?: string;
      /** Whether the turn was committed anyway (limits) or kept pending (cancellation, provider failure). */
      committed: boolean;
    }
  | {
      type: 'done';
      session: string;
      branch: string;
      status: RunStatus;
      /** Turns committed by this run. */
      turns: number;
      head: string;
      usage: Usage;
      /** Script turns not run (after --max-turns or a stop). */
      remainingTurns: number;
    };

export type EventSink = (event: AgentEvent) => void;
