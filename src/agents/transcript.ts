/**
 * What an agent CLI's own transcript of one turn becomes in a Forge session: messages (the
 * user's prompt, the model's text and tool calls, the tool results) and one tool-call record
 * per call, with the agent's name and the model it ran. Pure: the converters take the
 * transcript's text, the hook's adapter reads the file.
 */
import type { Message, ToolCallRecord } from '../session';

export type AgentName = 'claude-code' | 'codex';

export interface ConvertedTurn {
  agent: AgentName;
  /** The model the agent reported for this turn (the last one, if it changed). */
  model?: string;
  messages: Array<Omit<Message, 'turn' | 'at'>>;
  toolCalls: Array<Omit<ToolCallRecord, 'turn' | 'at'>>;
  /** Names the turn's prompt entry (its uuid, or time and text): a turn is committed once. */
  key: string;
  /** The agent's own session id (Claude Code's session_id, Codex's thread id). */
  agentSessionId?: string;
}

/** Each line of a JSONL text parsed; a torn last line (the agent still writing) is skipped. */
export function jsonLines(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // A line the agent is still writing, or not JSON: not part of any complete entry.
    }
  }
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A tool result's content as text (strings, text blocks; other blocks named by type). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((block) => {
        if (typeof block === 'string') return block;
        if (!isRecord(block)) return '';
        if (typeof block['text'] === 'string') return block['text'];
        return `[${String(block['type'] ?? 'block')}]`;
      })
      .filter((t) => t !== '')
      .join('\n');
  }
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

/** Pairs calls with their results: a record per call, ok unless the result said error. */
export function toolRecords(messages: ConvertedTurn['messages']): ConvertedTurn['toolCalls'] {
  const results = new Map(messages.filter((m) => m.role === 'tool' && m.toolCallId).map((m) => [m.toolCallId!, m]));
  const out: ConvertedTurn['toolCalls'] = [];
  for (const m of messages) {
    for (const call of m.toolCalls ?? []) {
      const result = results.get(call.id);
      const ok = result !== undefined && result.isError !== true;
      out.push({
        id: call.id,
        tool: call.tool,
        args: call.args,
        ok,
        ...(result && ok ? { output: result.content } : {}),
        ...(!ok ? { error: { code: result ? 'AGENT_TOOL_ERROR' : 'AGENT_TOOL_NO_RESULT', message: result ? result.content : 'The transcript has no result for this call (interrupted).' } } : {}),
      });
    }
  }
  return out;
}

/**
 * The turns with the last one ended by `answer` when the transcript does not hold that answer yet:
 * Claude Code runs its Stop hook before the answer's entry reaches the transcript file
 * (anthropics/claude-code#15812) and gives the hook the answer's text instead
 * (`last_assistant_message`). A last turn that already ends with an answer is left as it is.
 */
export function endLastTurnWith(turns: ConvertedTurn[], answer: string | undefined): ConvertedTurn[] {
  const last = turns.at(-1);
  if (last === undefined || answer === undefined || answer === '' || endsWithAnswer(last)) return turns;
  return [...turns.slice(0, -1), { ...last, messages: [...last.messages, { role: 'assistant', content: answer }] }];
}

/** A turn is whole once the model had the last word: text after the last tool result. */
export function endsWithAnswer(turn: ConvertedTurn): boolean {
  const last = turn.messages.at(-1);
  return last !== undefined && last.role === 'assistant' && (last.toolCalls?.length ?? 0) === 0;
}
