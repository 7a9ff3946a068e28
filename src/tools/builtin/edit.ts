/**
 * Edit (spec 001): one snippet replacement or one line-range replacement, newline-preserving,
 * guarded by read tracking and an optional file_hash. The two modes are ONE object schema (a
 * top-level union is rejected or emptied by MCP clients and OpenAI) whose fields are checked by
 * mode. Every answer, success or failure, carries the FR-SFE-04 payload: on failure it is the
 * error's `data`, next to a stable code.
 */
import { z } from 'zod';
import { ForgeError, type ErrorCode } from '../../errors';
import { analyzeNewlines, applyLineEditToBytes, applySnippetEdit, unifiedDiff, unifiedDiffOfByteSplice, Utf8Lines, type NewlineKind, type RecoveryReport } from '../../text';
import { defineTool } from '../define';
import { loadFile, writeSeen } from '../file-access';
import { freshnessProblem } from '../read-tracking';
import { decodeRange, decodeText, encodeText, isUtf8Text, splicedContent, utf8ByteLength } from '../text-io';

const SNIPPET_FIELDS = ['old_snippet', 'new_snippet', 'match_hint'] as const;
const LINE_FIELDS = ['start_line', 'end_line', 'new_content'] as const;
const SNIPPET_FORM = 'snippet mode {path, old_snippet, new_snippet, match_hint?}';
const LINE_FORM = 'line-range mode {path, start_line, end_line, new_content}';

const line = z.number().int().min(1);

const Input = z
  .strictObject({
    path: z.string().describe('File path relative to the repository root.'),
    old_snippet: z.string().optional().describe('Snippet mode: the exact text to replace, copied from the file; it must occur once (or once within match_hint).'),
    new_snippet: z.string().optional().describe('Snippet mode: the replacement text.'),
    match_hint: z
      .strictObject({
        start_line: line.describe('First line of the range (1-based).'),
        end_line: line.describe('Last line of the range (inclusive).'),
      })
      .optional()
      .describe('Snippet mode: only a match lying within these lines counts (no fallback to matches elsewhere).'),
    start_line: line.optional().describe('Line-range mode: first line to replace (1-based, as read_file numbers them).'),
    end_line: line.optional().describe('Line-range mode: last line to replace (inclusive).'),
    new_content: z.string().optional().describe('Line-range mode: the new text of those lines ("" deletes them).'),
    file_hash: z.string().optional().describe('file_hash from read_file; the edit is refused if the file changed since.'),
    region_id: z.string().optional().describe('Any label; echoed back in the response.'),
  })
  .superRefine((input, ctx) => {
    const snippet = SNIPPET_FIELDS.filter((f) => input[f] !== undefined);
    const lines = LINE_FIELDS.filter((f) => input[f] !== undefined);
    if (snippet.length > 0 && lines.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `Mixed modes: ${snippet.map((f) => `\`${f}\``).join(', ')} belong to snippet mode but ${lines.map((f) => `\`${f}\``).join(', ')} belong to line-range mode. Use either ${SNIPPET_FORM} or ${LINE_FORM}, not both.`,
      });
      return;
    }
    if (snippet.length === 0 && lines.length === 0) {
      ctx.addIssue({ code: 'custom', message: `No edit given. Use either ${SNIPPET_FORM} or ${LINE_FORM}.` });
      return;
    }
    const [mode, required] = snippet.length > 0 ? (['snippet', ['old_snippet', 'new_snippet']] as const) : (['line-range', LINE_FIELDS] as const);
    for (const field of required) {
      if (input[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `is required in ${mode} mode` });
    }
  });

type Action = 'apply_snippet_edit' | 'apply_line_edit';
type Status = 'ok' | 'no_match' | 'stale_file' | 'error';

/** FR-SFE-04. `current_file_hash` / `newline_kind` are null when there is no readable file. */
export interface EditResponse {
  action: Action;
  status: Status;
  message: string;
  current_file_hash: string | null;
  newline_kind: NewlineKind | null;
  region_id?: string;
  /** ok: the 1-based lines the edit touched (in the original for a snippet, in the result for a line range). */
  start_line?: number;
  end_line?: number;
  /** ok: unified diff of the change. */
  diff?: string;
  /** no_match: the most similar lines; ambiguous: the lines where the snippet starts. */
  candidates?: unknown;
  /** ok, snippet mode: present when old_snippet did not match exactly and the recovery ladder placed it. */
  recovery?: RecoveryReport;
}

export const editTool = defineTool({
  name: 'Edit',
  aliases: ['edit'],
  description:
    'Edit one existing file, keeping its newline style. Two modes, never mixed: ' +
    'snippet mode {path, old_snippet, new_snippet, match_hint?} replaces the one occurrence of old_snippet (copy it exactly from read_file output, without line numbers; add match_hint {start_line, end_line} when it occurs more than once); ' +
    'line-range mode {path, start_line, end_line, new_content} replaces exactly those lines (numbers as read_file shows them). ' +
    'Read the file with read_file first: an edit of a file you have not read, or that changed since, returns status stale_file. ' +
    'Pass file_hash from read_file to pin the exact version. The response has status ok | no_match | stale_file | error and the current_file_hash. ' +
    'If old_snippet does not match exactly, whitespace drift is recovered when the place is unique (whitespace at line ends, shifted indentation, tabs written as spaces, a cut first or last line that new_snippet keeps): ' +
    'new_snippet is then written in the file\'s own indentation and `recovery` says what was adjusted; check the diff. ' +
    'Line-range mode keeps the file\'s final newline as it is; to add one, use snippet mode with the last line as old_snippet and the same line plus a newline as new_snippet (the reverse removes it).',
  input: Input,
  sideEffects: true,
  paths: (input) => [{ field: 'path', path: input.path, role: 'write' }],
  async handler(input, ctx): Promise<EditResponse> {
    const snippetMode = input.old_snippet !== undefined;
    const action: Action = snippetMode ? 'apply_snippet_edit' : 'apply_line_edit';
    const echo = input.region_id === undefined ? {} : { region_id: input.region_id };
    let currentHash: string | null = null;
    let newlineKind: NewlineKind | null = null;
    const fail = (code: ErrorCode, status: Exclude<Status, 'ok'>, message: string, extra: Partial<EditResponse> = {}): ForgeError => {
      const response: EditResponse = { action, status, message, current_file_hash: currentHash, newline_kind: newlineKind, ...echo, ...extra };
      return new ForgeError(code, message, { data: { ...response } });
    };

    const limits = ctx.config.edit;
    if (snippetMode) {
      for (const field of ['old_snippet', 'new_snippet'] as const) {
        const size = utf8ByteLength(input[field]!);
        if (size > limits.max_snippet_bytes) {
          throw fail('EDIT_TOO_LARGE', 'error', `\`${field}\` is ${size} bytes, over the limit of ${limits.max_snippet_bytes}. Split the change into smaller edits, or use write_file for a whole-file rewrite.`);
        }
      }
    } else {
      const size = utf8ByteLength(input.new_content!);
      if (size > limits.max_line_edit_bytes) {
        throw fail('EDIT_TOO_LARGE', 'error', `\`new_content\` is ${size} bytes, over the limit of ${limits.max_line_edit_bytes}. Split the change into smaller line ranges.`);
      }
    }
    if (limits.require_file_hash && input.file_hash === undefined) {
      throw fail('FILE_HASH_REQUIRED', 'error', 'This workspace requires `file_hash` on every edit. Pass the file_hash that read_file returned for this file.');
    }

    const file = await loadFile(ctx, input.path);
    if (file === null) {
      throw fail('PATH_NOT_FOUND', 'error', `No file at ${input.path}. Edit changes existing files; create a new file with write_file (or a Patch overwrite).`);
    }
    currentHash = file.hash;
    if (!snippetMode) {
      // On the bytes: a one-line edit of a 50 MB file never decodes the file whole (only the
      // changed lines and their context, for the diff), and its new bytes are the old ones
      // around the new lines: assembled once, or for a large file never (splicedContent).
      const bytes = file.bytes;
      const lines = isUtf8Text(bytes) ? new Utf8Lines(bytes) : null;
      if (lines !== null) newlineKind = lines.newlines.dominant;
      const stale = freshnessProblem(ctx.state, input.path, file.hash, 'Edit', input.file_hash);
      if (stale) throw fail(stale.code, 'stale_file', stale.message);
      if (lines === null) throw fail('BINARY_FILE', 'error', `${input.path} is a binary file (not UTF-8 text); Edit changes text files only.`);
      const result = applyLineEditToBytes(bytes, { startLine: input.start_line!, endLine: input.end_line!, newContent: input.new_content! }, lines);
      if (result.status === 'error') throw fail(result.code, 'error', result.message);
      const { splice } = result;
      const unchanged = decodeRange(bytes, splice.start, splice.end) === splice.replacement;
      const diff = unchanged ? '' : unifiedDiffOfByteSplice(input.path, bytes, splice);
      const hash = unchanged ? file.hash : await writeSeen(ctx, input.path, splicedContent(bytes, splice));
      return {
        action,
        status: 'ok',
        message: `${input.path}: ${result.message}`,
        current_file_hash: hash,
        newline_kind: result.newlineKind,
        ...echo,
        start_line: result.startLine,
        end_line: result.endLine,
        diff,
      };
    }
    const text = decodeText(file.bytes);
    if (text !== null) newlineKind = analyzeNewlines(text).dominant;
    const stale = freshnessProblem(ctx.state, input.path, file.hash, 'Edit', input.file_hash);
    if (stale) throw fail(stale.code, 'stale_file', stale.message);
    if (text === null) throw fail('BINARY_FILE', 'error', `${input.path} is a binary file (not UTF-8 text); Edit changes text files only.`);

    const result = applySnippetEdit(text, {
      oldSnippet: input.old_snippet!,
      newSnippet: input.new_snippet!,
      ...(input.match_hint ? { matchHint: { startLine: input.match_hint.start_line, endLine: input.match_hint.end_line } } : {}),
    });

    if (result.status === 'no_match') throw fail(result.code, 'no_match', result.message, { candidates: result.candidates });
    // The spec's statuses have no "ambiguous": several matches mean no unique match, fixed the same way.
    if (result.status === 'ambiguous') throw fail(result.code, 'no_match', result.message, { candidates: result.candidateLines });
    if (result.status === 'error') throw fail(result.code, 'error', result.message);

    const unchanged = result.text === text;
    const hash = unchanged ? file.hash : await writeSeen(ctx, input.path, encodeText(result.text));
    return {
      action,
      status: 'ok',
      message: `${input.path}: ${result.message}`,
      current_file_hash: hash,
      newline_kind: result.newlineKind,
      ...echo,
      start_line: result.matchStartLine,
      end_line: result.matchEndLine,
      diff: unchanged ? '' : unifiedDiff(input.path, text, result.text),
      ...(result.recovery !== undefined ? { recovery: result.recovery } : {}),
    };
  },
});
