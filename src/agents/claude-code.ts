/**
 * Claude Code's transcript (the JSONL file whose path every hook receives as transcript_path):
 * one entry per line; `type: "user"` entries hold the user's prompt (a string, or text blocks)
 * or tool_result blocks answering the previous assistant entry; `type: "assistant"` entries
 * hold one API message (`message.model`, `message.content` blocks: text, thinking, tool_use,
 * `message.usage`), a response split over several entries sharing `message.id`. Other entry types
 * (summary, system, file-history-snapshot, attachments) and meta entries (isMeta: the CLI's own
 * caveats) are not conversation.
 *
 * A turn is what follows the last prompt: the Stop hook fires when the answer to it is complete.
 */
import type { ToolCall } from '../session';
import { contentText, isRecord, jsonLines, toolRecords, type ConvertedTurn } from './transcript';

interface Entry {
  type: string;
  message: Record<string, unknown>;
  isMeta?: boolean;
  isSidechain?: boolean;
  sessionId?: string;
  uuid?: string;
  timestamp?: string;
}

function entries(text: string): Entry[] {
  return jsonLines(text).filter(
    (e): e is Entry => isRecord(e) && (e['type'] === 'user' || e['type'] === 'assistant') && isRecord(e['message']) && e['isMeta'] !== true && e['isSidechain'] !== true,
  );
}

/** A user entry that is a prompt (not only tool results). */
function promptText(entry: Entry): string | null {
  if (entry.type !== 'user') return null;
  const content = entry.message['content'];
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.some((b) => isRecord(b) && b['type'] === 'tool_result')) return null;
  const text = contentText(content.filter((b) => isRecord(b) && b['type'] === 'text'));
  return text === '' ? null : text;
}

/** A slash command the user ran (`<command-name>/exit</command-name>…`) or its output. */
function isCommandEntry(text: string): boolean {
  return /^\s*<(command-name|command-message|local-command-[a-z]+)>/.test(text);
}

/**
 * Every turn of the transcript (one per prompt), converted. A slash command starts a turn only
 * when the model answered it (a custom command expands into a prompt); a local one (/exit,
 * /clear, /model) and its output are not conversation.
 */
export function claudeCodeTurns(text: string): ConvertedTurn[] {
  const all = entries(text);
  const starts = all.flatMap((e, i) => (promptText(e) !== null && !isCommandOutput(e) ? [i] : []));
  const slices = starts.map((start, k) => all.slice(start, starts[k + 1] ?? all.length));
  return slices.filter((slice) => !isCommandEntry(promptText(slice[0]!)!) || slice.some((e) => e.type === 'assistant')).map(convert);
}

function isCommandOutput(entry: Entry): boolean {
  return /^\s*<local-command-[a-z]+>/.test(promptText(entry) ?? '');
}

/** The last turn of the transcript: what the Stop hook commits. */
export function claudeCodeLastTurn(text: string): ConvertedTurn | null {
  const turns = claudeCodeTurns(text);
  return turns[turns.length - 1] ?? null;
}

/** The key of the turn a prompt entry starts. */
function turnKey(first: Entry): string {
  return first.uuid ?? `${first.timestamp ?? ''} ${promptText(first) ?? ''}`;
}

/**
 * The transcript as of a turn: its lines up to the prompt of the first turn whose key is not in
 * `keep` (torn or non-JSON lines left out), and the keys of the turns kept. Claude Code resumes a
 * conversation from such a file (`--resume <id>`), which is how a resumed Forge session hands
 * the agent its own conversation as of the commit it was resumed from.
 */
export function claudeCodeTranscriptUpTo(text: string, keep: ReadonlySet<string>): { entries: Array<Record<string, unknown>>; keys: string[] } {
  const kept: Array<Record<string, unknown>> = [];
  const keys: string[] = [];
  const turns = new Set(claudeCodeTurns(text).map((t) => t.key));
  for (const value of jsonLines(text)) {
    if (!isRecord(value)) continue;
    const entry = entries(JSON.stringify(value))[0];
    const key = entry !== undefined && promptText(entry) !== null ? turnKey(entry) : null;
    // Only a turn starts a turn: a local slash command (never committed) does not end the conversation kept.
    if (key !== null && turns.has(key)) {
      if (!keep.has(key)) break;
      keys.push(key);
    }
    kept.push(value);
  }
  return { entries: kept, keys };
}

function convert(slice: Entry[]): ConvertedTurn {
  const first = slice[0]!;
  const turn: ConvertedTurn = { agent: 'claude-code', key: turnKey(first), messages: [], toolCalls: [] };
  // Entries of one API response (same message.id) become one assistant message.
  let open: { id: unknown; message: ConvertedTurn['messages'][number] } | null = null;
  for (const entry of slice) {
    if (entry.sessionId) turn.agentSessionId = entry.sessionId;
    const m = entry.message;
    if (entry.type === 'user') {
      open = null;
      const prompt = promptText(entry);
      if (prompt !== null) {
        turn.messages.push({ role: 'user', content: prompt });
        continue;
      }
      for (const block of Array.isArray(m['content']) ? m['content'] : []) {
        if (!isRecord(block) || block['type'] !== 'tool_result') continue;
        turn.messages.push({
          role: 'tool',
          content: contentText(block['content']),
          toolCallId: String(block['tool_use_id'] ?? ''),
          ...(block['is_error'] === true ? { isError: true } : {}),
        });
      }
      continue;
    }
    if (typeof m['model'] === 'string' && m['model'] !== '<synthetic>') turn.model = m['model'];
    const blocks = Array.isArray(m['content']) ? m['content'] : typeof m['content'] === 'string' ? [{ type: 'text', text: m['content'] }] : [];
    const text = blocks.filter((b) => isRecord(b) && b['type'] === 'text').map((b) => String((b as Record<string, unknown>)['text'] ?? ''));
    const calls: ToolCall[] = blocks
      .filter((b): b is Record<string, unknown> => isRecord(b) && b['type'] === 'tool_use')
      .map((b) => ({ id: String(b['id'] ?? ''), tool: String(b['name'] ?? ''), args: b['input'] ?? {} }));
    const usage = isRecord(m['usage']) ? m['usage'] : null;
    if (open && m['id'] !== undefined && open.id === m['id']) {
      if (text.length > 0) open.message.content = [open.message.content, ...text].filter((t) => t !== '').join('\n');
      if (calls.length > 0) open.message.toolCalls = [...(open.message.toolCalls ?? []), ...calls];
      continue;
    }
    const message: ConvertedTurn['messages'][number] = {
      role: 'assistant',
      content: text.join('\n'),
      ...(calls.length > 0 ? { toolCalls: calls } : {}),
      ...(usage && typeof usage['input_tokens'] === 'number' && typeof usage['output_tokens'] === 'number'
        ? { usage: { inputTokens: usage['input_tokens'], outputTokens: usage['output_tokens'] } }
        : {}),
    };
    turn.messages.push(message);
    open = { id: m['id'], message };
  }
  // A response that was only thinking leaves an empty message: not part of the conversation.
  turn.messages = turn.messages.filter((m) => m.role !== 'assistant' || m.content !== '' || (m.toolCalls?.length ?? 0) > 0);
  turn.toolCalls = toolRecords(turn.messages);
  return turn;
}
