/**
 * Codex CLI's rollout file ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl):
 * one `{timestamp, type, payload}` per line. `session_meta` names the thread; `turn_context`
 * the model of the turns after it; `response_item` payloads are the Responses API items:
 * `message` (role user/assistant/developer, content input_text/output_text parts),
 * `function_call` (name, arguments as a JSON string, call_id) and `function_call_output`
 * (call_id, output), `custom_tool_call` / `custom_tool_call_output` (apply_patch's free-form
 * input), `local_shell_call`, `reasoning`. `event_msg` lines repeat them for the UI, and mark
 * the prompt (`user_message`): a user-role message item holding only Codex's own context
 * (<environment_context>, <user_instructions>, AGENTS.md) is not a prompt.
 *
 * A turn is what follows the last prompt: the notify program runs when the turn is complete.
 */
import type { ToolCall } from '../session';
import { contentText, isRecord, jsonLines, toolRecords, type ConvertedTurn } from './transcript';

interface Item {
  type: string;
  timestamp?: string;
  payload: Record<string, unknown>;
}

const CONTEXT_WRAPPER = /^\s*<(environment_context|user_instructions|user_shell_command|turn_aborted)>|^\s*# AGENTS\.md instructions/;

function items(text: string): Item[] {
  return jsonLines(text).filter((e): e is Item => isRecord(e) && typeof e['type'] === 'string' && isRecord(e['payload']));
}

function isPrompt(item: Item): boolean {
  const p = item.payload;
  if (item.type !== 'response_item' || p['type'] !== 'message' || p['role'] !== 'user') return false;
  return !CONTEXT_WRAPPER.test(contentText(p['content']));
}

function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw);
  } catch {
    return { raw };
  }
}

/** A function call output: a string, or {content, success} (older rollouts), or JSON text of that. */
function outputOf(raw: unknown): { text: string; failed: boolean } {
  let value = raw;
  if (typeof raw === 'string' && raw.startsWith('{')) {
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
  }
  if (isRecord(value) && 'output' in value) {
    // A command that exited non-zero (a failing test) still ran: its output is a result, not an error.
    return { text: contentText(value['output']), failed: false };
  }
  if (isRecord(value) && 'content' in value) return { text: contentText(value['content']), failed: value['success'] === false };
  return { text: contentText(value), failed: false };
}

export function codexTurns(text: string): ConvertedTurn[] {
  const all = items(text);
  let threadId: string | undefined;
  let model: string | undefined;
  const turns: ConvertedTurn[] = [];
  let turn: ConvertedTurn | null = null;
  for (const item of all) {
    const p = item.payload;
    if (item.type === 'session_meta' && typeof p['id'] === 'string') threadId = p['id'];
    if (item.type === 'turn_context' && typeof p['model'] === 'string') {
      model = p['model'];
      if (turn) turn.model = model;
    }
    if (item.type !== 'response_item') continue;
    if (isPrompt(item)) {
      turn = { agent: 'codex', key: `${threadId ?? ''} ${item.timestamp ?? ''} ${contentText(p['content'])}`, messages: [{ role: 'user', content: contentText(p['content']) }], toolCalls: [], ...(model ? { model } : {}), ...(threadId ? { agentSessionId: threadId } : {}) };
      turns.push(turn);
      continue;
    }
    if (!turn) continue;
    switch (p['type']) {
      case 'message':
        if (p['role'] === 'assistant') turn.messages.push({ role: 'assistant', content: contentText(p['content']) });
        break;
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call': {
        const call: ToolCall = {
          id: String(p['call_id'] ?? p['id'] ?? ''),
          tool: String(p['name'] ?? (p['type'] === 'local_shell_call' ? 'local_shell' : 'tool')),
          args: p['type'] === 'custom_tool_call' ? { input: p['input'] } : p['type'] === 'local_shell_call' ? (p['action'] ?? {}) : parseArguments(p['arguments']),
        };
        // Calls made together follow one assistant message (or none): they join the last one.
        const last = turn.messages[turn.messages.length - 1];
        if (last?.role === 'assistant') last.toolCalls = [...(last.toolCalls ?? []), call];
        else turn.messages.push({ role: 'assistant', content: '', toolCalls: [call] });
        break;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const { text: content, failed } = outputOf(p['output']);
        turn.messages.push({ role: 'tool', content, toolCallId: String(p['call_id'] ?? ''), ...(failed ? { isError: true } : {}) });
        break;
      }
    }
  }
  for (const t of turns) t.toolCalls = toolRecords(t.messages);
  return turns;
}

export function codexLastTurn(text: string): ConvertedTurn | null {
  const turns = codexTurns(text);
  return turns[turns.length - 1] ?? null;
}

/**
 * The rollout as of a turn: its items up to the prompt of the first turn whose key is not in
 * `keep` (Codex's `resume <thread id>` continues a thread from such a file), and the keys kept.
 */
export function codexRolloutUpTo(text: string, keep: ReadonlySet<string>): { entries: Array<Record<string, unknown>>; keys: string[] } {
  const turnKeys = new Set(codexTurns(text).map((t) => t.key));
  const kept: Array<Record<string, unknown>> = [];
  const keys: string[] = [];
  let threadId = '';
  for (const value of jsonLines(text)) {
    if (!isRecord(value)) continue;
    const item = isRecord(value['payload']) && typeof value['type'] === 'string' ? (value as unknown as Item) : null;
    if (item?.type === 'session_meta' && typeof item.payload['id'] === 'string') threadId = item.payload['id'];
    if (item !== null && isPrompt(item)) {
      const key = `${threadId} ${item.timestamp ?? ''} ${contentText(item.payload['content'])}`;
      if (turnKeys.has(key)) {
        if (!keep.has(key)) break;
        keys.push(key);
      }
    }
    kept.push(value);
  }
  return { entries: kept, keys };
}
