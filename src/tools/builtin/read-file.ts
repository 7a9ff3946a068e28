/**
 * read_file: a file's content with line numbers and its hash, a page at a time. Reading records
 * the hash as seen, which is what later edits are checked against. Binary files and symlinks
 * are described instead of dumped.
 */
import { z } from 'zod';
import { ForgeError } from '../../errors';
import { defineTool } from '../define';
import { loadFile, notFound } from '../file-access';
import { recordSeen } from '../read-tracking';
import { isUtf8Text } from '../text-io';
import { Utf8Lines } from '../../text/utf8-lines';
import type { ToolsConfig } from '../config';

const Input = z.strictObject({
  path: z.string().describe('File path relative to the repository root, e.g. "src/index.ts".'),
  start_line: z.number().int().min(1).optional().describe('First line to return (1-based). Default: 1.'),
  end_line: z.number().int().min(1).optional().describe('Last line to return (inclusive). Default: as many as fit in one page.'),
});

export interface ReadFileOutput {
  path: string;
  file_hash: string;
  type: 'file' | 'symlink';
  /** Numbered lines, `<number>\t<line>`, for text files. */
  content?: string;
  total_lines?: number;
  start_line?: number;
  end_line?: number;
  /** Set when more lines follow the page: call again with start_line = next_start_line. */
  next_start_line?: number;
  binary?: boolean;
  size?: number;
  symlink_target?: string;
  has_bom?: boolean;
  message?: string;
}

function page(lines: Utf8Lines, first: number, last: number, limits: ToolsConfig['read_file']): { content: string; end: number } {
  const width = String(last).length;
  const out: string[] = [];
  let bytes = 0;
  let line = first;
  for (; line <= last && line - first < limits.max_lines; line++) {
    let text = lines.content(line);
    if (text.length > limits.max_line_chars) {
      text = `${text.slice(0, limits.max_line_chars)}… [line cut: ${text.length - limits.max_line_chars} more characters]`;
    }
    const numbered = `${String(line).padStart(width)}\t${text}`;
    // Always return at least one line, so a page makes progress.
    if (out.length > 0 && bytes + numbered.length + 1 > limits.max_bytes) break;
    out.push(numbered);
    bytes += numbered.length + 1;
  }
  return { content: out.join('\n'), end: line - 1 };
}

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a file of the workspace. Returns the content with line numbers ("<number>\\t<line>"), the total line count and the file_hash. ' +
    'Long files are returned a page at a time: when next_start_line is set, call again with start_line = next_start_line. ' +
    'Read a file before editing it: edits of files you have not read, or that changed since you read them, are refused. ' +
    'Binary files are described, not shown.',
  input: Input,
  sideEffects: false,
  paths: (input) => [{ field: 'path', path: input.path, role: 'read' }],
  async handler(input, ctx): Promise<ReadFileOutput> {
    const file = await loadFile(ctx, input.path);
    if (file === null) throw notFound(input.path);
    recordSeen(ctx.state, input.path, file.hash);
    if (file.mode === '120000') {
      const target = new TextDecoder().decode(file.bytes);
      return { path: input.path, file_hash: file.hash, type: 'symlink', symlink_target: target, message: `${input.path} is a symlink to ${target}. Read the target path instead.` };
    }
    if (!isUtf8Text(file.bytes)) {
      return {
        path: input.path,
        file_hash: file.hash,
        type: 'file',
        binary: true,
        size: file.bytes.length,
        message: `${input.path} is a binary file (${file.bytes.length} bytes); its content is not shown.`,
      };
    }
    const bytes = file.bytes;
    const hasBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    // Lines of the canonical view (CRLF, CR and LF all end a line, as the edit tools count
    // them), indexed on the bytes: only the page's lines become strings, never the whole file.
    const lines = new Utf8Lines(bytes, hasBom ? 3 : 0);
    const total = lines.count;
    const first = input.start_line ?? 1;
    if (total === 0) {
      return { path: input.path, file_hash: file.hash, type: 'file', content: '', total_lines: 0, message: `${input.path} is empty.` };
    }
    if (first > total) {
      throw new ForgeError('TOOL_INPUT_INVALID', `\`start_line\` ${first} is past the end of ${input.path}, which has ${total} lines. Pass a start_line between 1 and ${total}.`, {
        data: { issues: [{ field: 'start_line', message: `past the end (${total} lines)` }] },
      });
    }
    if (input.end_line !== undefined && input.end_line < first) {
      throw new ForgeError('TOOL_INPUT_INVALID', `\`end_line\` ${input.end_line} is before \`start_line\` ${first}. Pass end_line >= start_line.`, {
        data: { issues: [{ field: 'end_line', message: 'before start_line' }] },
      });
    }
    const last = Math.min(input.end_line ?? total, total);
    const { content, end } = page(lines, first, last, ctx.config.read_file);
    const out: ReadFileOutput = { path: input.path, file_hash: file.hash, type: 'file', content, total_lines: total, start_line: first, end_line: end };
    if (end < last) {
      out.next_start_line = end + 1;
      out.message = `Showing lines ${first}-${end} of ${total}. Call read_file again with start_line ${end + 1} for more.`;
    }
    if (hasBom) out.has_bom = true;
    return out;
  },
});
