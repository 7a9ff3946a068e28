/**
 * Registry results as MCP tool results. A success is text (read_file: its numbered lines; any
 * other tool: its output as JSON) plus `structuredContent` when the output is an object. A
 * failure is `isError: true` with the text `<CODE>: <message>` (the stable code first, then the
 * message a model can act on), its hint and data, and the whole error under `_meta["forge/error"]`
 * for programs. Failures carry no `structuredContent`: a client validates structured content
 * against the tool's output schema even on an error (the SDK's Client does).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ForgeError, toForgeError } from '../errors';
import type { ToolError } from '../tools';
import type { ReadFileOutput } from '../tools/builtin/read-file';

export const ERROR_META_KEY = 'forge/error';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function renderReadFile(output: ReadFileOutput): string {
  const pageInfo =
    output.content !== undefined && output.total_lines
      ? `lines ${output.start_line}-${output.end_line} of ${output.total_lines}, `
      : '';
  const lines = [`${output.path}: ${pageInfo}file_hash ${output.file_hash}${output.has_bom ? ' (starts with a UTF-8 BOM)' : ''}`];
  if (output.content) lines.push(output.content);
  if (output.message) lines.push(output.message);
  return lines.join('\n');
}

export function renderOutputText(tool: string, output: unknown): string {
  if (tool === 'read_file' && isPlainObject(output) && typeof output.file_hash === 'string') return renderReadFile(output as unknown as ReadFileOutput);
  if (typeof output === 'string') return output;
  return JSON.stringify(output ?? null);
}

export function successResult(tool: string, output: unknown, text = renderOutputText(tool, output)): CallToolResult {
  return {
    content: [{ type: 'text', text }],
    ...(isPlainObject(output) ? { structuredContent: output } : {}),
  };
}

export function errorResult(error: ToolError): CallToolResult {
  const lines = [`${error.code}: ${error.message}`];
  if (error.hint !== undefined) lines.push(`Hint: ${error.hint}`);
  const content: CallToolResult['content'] = [{ type: 'text', text: lines.join('\n') }];
  if (error.data !== undefined) content.push({ type: 'text', text: `Details: ${JSON.stringify(error.data)}` });
  return { content, isError: true, _meta: { [ERROR_META_KEY]: { ...error } } };
}

/** Any thrown value as a tool error that keeps its code (INTERNAL when it is not a ForgeError). */
export function toToolError(thrown: unknown): ToolError {
  const error: ForgeError = toForgeError(thrown);
  const out: ToolError = { code: error.code, message: error.message };
  if (Object.keys(error.data).length > 0) out.data = error.data;
  if (error.hint !== undefined) out.hint = error.hint;
  return out;
}
