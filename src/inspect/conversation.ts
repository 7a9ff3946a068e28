/**
 * A turn's conversation as it happened: the user's message, each assistant reply followed by the
 * tool calls it made, in order (a reviewer reads "I'll run the tests" next to the run, not all
 * text first and all calls after). Each call comes with a one-line summary (tool, path, what it
 * changed, ok or the error code); its arguments and result stay in the record for the page to
 * open. Pure: it reads the turn's messages and recorded calls only.
 */
import type { Message, ToolCallRecord } from '../session';

export interface CallSummary {
  tool: string;
  /** The path the call acted on, when it names one. */
  path: string | null;
  /** What the call did, in a few words ("wrote 12 lines", "2 patches", "node --test"). */
  change: string;
  ok: boolean;
  /** The error code of a failed call. */
  error: string | null;
}

export type ConversationItem =
  | { kind: 'message'; role: Message['role']; text: string; at: string }
  /** `index`: the call's position among the turn's recorded calls. */
  | { kind: 'call'; index: number; summary: CallSummary; at: string };

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function lineCount(text: string): number {
  if (text === '') return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

/** At most `max` characters of one line of text (a command, a pattern), with an ellipsis when cut. */
export function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** How the session record ends a long string it kept only the start of (`agent/tool-calls.ts`, boundForRecord). */
const CUT = /… \[(\d+) more characters not kept in the session record\]$/;

/** The +/- counts the turn's commit has for a path. */
export type FileCounts = ReadonlyMap<string, { added: number; removed: number }>;

export function summarizeCall(call: ToolCallRecord, files?: FileCounts): CallSummary {
  const args = (call.args !== null && typeof call.args === 'object' ? call.args : {}) as Record<string, unknown>;
  const str = (key: string) => (typeof args[key] === 'string' ? (args[key] as string) : null);
  const path = str('path') ?? str('file_path') ?? str('file');
  let change: string;
  switch (call.tool) {
    case 'write_file': {
      const content = str('content');
      const counts = path !== null ? files?.get(path) : undefined;
      // A long content is kept only in part: the lines it wrote are counted from the commit instead.
      if (content !== null && CUT.test(content)) change = counts ? `wrote the file (+${counts.added} -${counts.removed} this turn)` : `wrote ${Number(CUT.exec(content)![1]) + content.indexOf('… [')} characters`;
      else change = content !== null ? `wrote ${plural(lineCount(content), 'line')}` : 'wrote the file';
      break;
    }
    case 'Edit': {
      const before = str('old_snippet');
      const after = str('new_snippet') ?? str('new_content');
      const [start, end] = [args.start_line, args.end_line];
      if (before !== null && after !== null) change = `replaced ${plural(lineCount(before), 'line')} with ${lineCount(after)}`;
      else if (typeof start === 'number' && typeof end === 'number' && after !== null) change = `replaced lines ${start}–${end} with ${plural(lineCount(after), 'line')}`;
      else change = 'edited';
      break;
    }
    case 'Patch': {
      const patches = Array.isArray(args.patches) ? (args.patches as Array<Record<string, unknown>>) : [];
      const ops = [...new Set(patches.map((p) => (typeof p.operation === 'string' ? p.operation : 'patch')))];
      change = `${plural(patches.length, 'patch', 'patches')}${ops.length ? ` (${ops.join(', ')})` : ''}`;
      break;
    }
    case 'search_replace': {
      const blocks = str('blocks') ?? '';
      change = plural((blocks.match(/^>>>>>>> REPLACE/gm) ?? []).length, 'replacement');
      break;
    }
    case 'read_file':
      change = 'read';
      break;
    case 'run_command':
      change = oneLine(str('command') ?? '');
      break;
    case 'Undo':
      change = 'reverted the last edit';
      break;
    default: {
      // Any other tool: its first string argument that is not the path says what it did.
      const first = Object.entries(args).find(([key, value]) => key !== 'path' && typeof value === 'string');
      change = first ? `${first[0]}: ${oneLine(first[1] as string, 60)}` : '';
    }
  }
  return { tool: call.tool, path, change, ok: call.ok, error: call.ok ? null : (call.error?.code ?? 'ERROR') };
}

function time(at: string): number {
  const t = Date.parse(at);
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
}

/**
 * The turn's messages and calls in conversation order. An assistant message is followed by the
 * calls it made (named by id); a tool message whose call is recorded is left out (the call shows
 * its result). Calls no message names (a scripted `forge turn --calls`) are placed by their time
 * among the rest, each sequence keeping its own order.
 */
export function interleave(messages: readonly Message[], calls: readonly ToolCallRecord[], files?: FileCounts): ConversationItem[] {
  const byId = new Map<string, number>();
  calls.forEach((c, i) => {
    if (!byId.has(c.id)) byId.set(c.id, i);
  });
  const placed = new Set<number>();
  const items: ConversationItem[] = [];
  const callItem = (index: number): ConversationItem => ({ kind: 'call', index, summary: summarizeCall(calls[index]!, files), at: calls[index]!.at });
  for (const m of messages) {
    if (m.role === 'tool' && m.toolCallId !== undefined && byId.has(m.toolCallId)) continue;
    if (m.content.trim() !== '') items.push({ kind: 'message', role: m.role, text: m.content, at: m.at });
    for (const named of m.role === 'assistant' ? (m.toolCalls ?? []) : []) {
      const index = byId.get(named.id);
      if (index === undefined || placed.has(index)) continue;
      placed.add(index);
      items.push(callItem(index));
    }
  }
  const rest = calls.map((_, i) => i).filter((i) => !placed.has(i));
  if (rest.length === 0) return items;
  // A merge by time: an unplaced call goes before the first item that came after it.
  const out: ConversationItem[] = [];
  let r = 0;
  for (const item of items) {
    while (r < rest.length && time(calls[rest[r]!]!.at) < time(item.at)) out.push(callItem(rest[r++]!));
    out.push(item);
  }
  while (r < rest.length) out.push(callItem(rest[r++]!));
  return out;
}
