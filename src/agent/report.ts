/**
 * What the loop tells the model and the people watching about a tool call: the tool result as
 * the text the model reads, a one-line summary of the call and of its result, and a diffstat
 * of a turn's commit.
 */
import type { FilePatch } from '../session';
import type { ToolResult } from '../tools';

/** Tool results longer than this are cut (with a marker) before they reach the model. */
export const MAX_TOOL_RESULT_CHARS = 200_000;

export function clipLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** The tool message a model receives: the output as JSON, or {"error": {code, message, hint?, data?}}. */
export function toolResultContent(result: ToolResult): { content: string; isError: boolean } {
  const text = result.ok ? JSON.stringify(result.output ?? null) : JSON.stringify({ error: result.error });
  const content =
    text.length <= MAX_TOOL_RESULT_CHARS ? text : `${text.slice(0, MAX_TOOL_RESULT_CHARS)}… [tool result cut: ${text.length - MAX_TOOL_RESULT_CHARS} more characters]`;
  return { content, isError: !result.ok };
}

/** The tool message for a call the loop did not run (a limit was reached). */
export function notRunContent(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

type Output = Record<string, unknown>;

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function describeOutput(tool: string, output: Output): string {
  switch (tool) {
    case 'read_file': {
      if (output.binary) return `binary, ${num(output.size) ?? '?'} bytes`;
      if (output.type === 'symlink') return `symlink to ${str(output.symlink_target) ?? '?'}`;
      const total = num(output.total_lines) ?? 0;
      const start = num(output.start_line);
      const end = num(output.end_line);
      return start !== undefined && end !== undefined && (start > 1 || end < total) ? `lines ${start}-${end} of ${total}` : `${total} lines`;
    }
    case 'write_file':
      return `${output.created ? 'created' : 'replaced'} (${num(output.bytes) ?? 0} bytes)`;
    case 'delete_file':
      return 'deleted';
    case 'search':
      return `${Array.isArray(output.matches) ? output.matches.length : 0} match(es) in ${num(output.files_with_matches) ?? 0} file(s)${output.truncated ? ' (truncated)' : ''}`;
    case 'list_files':
      return `${num(output.total) ?? 0} file(s)${output.truncated ? ' (truncated)' : ''}`;
    case 'update_context':
    case 'list_active_files':
      return `active: ${Array.isArray(output.active_files) && output.active_files.length > 0 ? output.active_files.join(', ') : '(none)'}`;
    case 'run_command': {
      const seconds = ((num(output.duration_ms) ?? 0) / 1000).toFixed(1);
      const status = output.timed_out ? `timed out after ${seconds} s` : `exit ${output.exit_code ?? `signal ${str(output.signal) ?? '?'}`} in ${seconds} s`;
      const changes = output.changes as { added?: unknown[]; modified?: unknown[]; deleted?: unknown[] } | undefined;
      const changed = (changes?.added?.length ?? 0) + (changes?.modified?.length ?? 0) + (changes?.deleted?.length ?? 0);
      return `${status}${changed > 0 ? `, ${changed} file change(s) ${output.applied ? 'applied' : 'discarded'}` : ''}`;
    }
    default: {
      const message = str(output.message);
      return message ?? JSON.stringify(output);
    }
  }
}

/** One line about a result: "ok: 12 lines", "TEXT_NO_MATCH: …". */
export function resultLine(result: ToolResult, max = 160): string {
  if (!result.ok) return clipLine(`${result.error.code}: ${result.error.message}`, max);
  const output = result.output;
  const text = typeof output === 'object' && output !== null && !Array.isArray(output) ? describeOutput(result.tool, output as Output) : JSON.stringify(output);
  return clipLine(text, max);
}

/** One line about a call's arguments: its path, command or pattern. */
export function argsLine(args: unknown, max = 100): string {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return clipLine(typeof args === 'string' ? args : JSON.stringify(args), max);
  const record = args as Record<string, unknown>;
  for (const key of ['command', 'path', 'pattern']) {
    if (typeof record[key] === 'string') return clipLine(String(record[key]), max);
  }
  const keys = Object.keys(record);
  return keys.length === 0 ? '' : clipLine(JSON.stringify(record), max);
}

export interface DiffStatEntry {
  path: string;
  kind: FilePatch['kind'];
  added: number;
  removed: number;
  binary: boolean;
}

export function diffStatOf(patches: readonly FilePatch[]): DiffStatEntry[] {
  return patches.map((p) => ({ path: p.path, kind: p.kind, added: p.added, removed: p.removed, binary: p.binary }));
}

/** git's --stat layout: " path | 5 ++-" lines and a summary line. */
export function formatDiffStat(entries: readonly DiffStatEntry[], width = 40): string[] {
  if (entries.length === 0) return [' no code changes'];
  const nameWidth = Math.min(Math.max(...entries.map((e) => e.path.length)), 60);
  const most = Math.max(1, ...entries.map((e) => e.added + e.removed));
  const scale = most > width ? width / most : 1;
  const countWidth = String(most).length;
  const lines = entries.map((e) => {
    const name = e.path.length > nameWidth ? `…${e.path.slice(e.path.length - nameWidth + 1)}` : e.path.padEnd(nameWidth);
    if (e.binary) return ` ${name} | Bin`;
    const plus = e.added === 0 ? 0 : Math.max(1, Math.round(e.added * scale));
    const minus = e.removed === 0 ? 0 : Math.max(1, Math.round(e.removed * scale));
    return ` ${name} | ${String(e.added + e.removed).padStart(countWidth)} ${'+'.repeat(plus)}${'-'.repeat(minus)}`;
  });
  const added = entries.reduce((n, e) => n + e.added, 0);
  const removed = entries.reduce((n, e) => n + e.removed, 0);
  const parts = [`${entries.length} file${entries.length === 1 ? '' : 's'} changed`];
  if (added > 0) parts.push(`${added} insertion${added === 1 ? '' : 's'}(+)`);
  if (removed > 0) parts.push(`${removed} deletion${removed === 1 ? '' : 's'}(-)`);
  lines.push(` ${parts.join(', ')}`);
  return lines;
}
